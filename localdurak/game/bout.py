"""The state of a bout that a card-playing action changes: what R-S3 rolls back.

In the cheating mode the engine keeps, before each card-playing action of the bout (attack,
cover, transfer), a `BoutState` copied from the game; a caught cheat puts the one taken
before the cheat back (R-S3).  The engine itself keeps these fields flat on `Game` (the
state machine reads them on every action, so one attribute lookup each); this object is
their named copy: a `typing.NamedTuple` (as cheap to make as a tuple, one per card played in
the cheating mode) with its fields named, instead of a tuple of fourteen positions.
"""

from __future__ import annotations

from typing import NamedTuple

from localdurak.game.cards import Card


class BoutState(NamedTuple):
    """The bout's state at one moment (lists are the snapshot's own copies)."""

    hands: tuple[int, ...]
    """Each seat's known cards (bit sets)."""
    unknown: tuple[int, ...]
    """Each seat's count of cards this game does not know (hidden information)."""
    public: tuple[int, ...]
    """Each seat's cards that every player saw go into its hand."""
    table: tuple[tuple[Card, Card | None], ...]
    """(attack card, its cover or None), in the order the attack cards were played."""
    uncovered: int
    table_mask: int
    rank_cards: int
    """Every card of a rank on the table (R-B3)."""
    passed: int
    """The attackers that passed since the table last changed (R-B9), a seat bit set."""
    taking: bool
    """The defender declared take (R-B8)."""
    attacker: int | None
    defender: int | None
    attackers: int
    """Who may attack or throw in (R-B2, R-T2), a seat bit set."""
    shown: tuple[int, ...]
    """The trumps each seat showed to transfer this bout (R-B7)."""

    @property
    def attack_cards(self) -> list[Card]:
        return [a for a, _ in self.table]
