"""Pure rules: cards, table options, the state machine, player views. No I/O."""
