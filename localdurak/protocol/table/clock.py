"""The move clock as every player's screen has it (docs/protocol.md §5, `clock`), sans-I/O: the
host's `Clock` events, and between them the game actions relayed, from which each player
restarts the clock itself.  The host keeps the same view of what the players show and sends a
`Clock` only where its own clock differs from it (a seat away, a resumed host gathering what
it lost, a host that does not know yet what the players show): one event fewer per action
for every player to read, decode and handle (benchmarks/net.py --game)."""

from __future__ import annotations

from typing import Any

from localdurak.game.engine import Game
from localdurak.game.outcome import Phase

Waited = tuple[int, tuple[Any, ...]]
"""The seat the table waits for, and the public state it waits in."""


def waited_for(game: Game | None) -> Waited | None:
    """The seat the table waits for and the state it waits in (public information, alike on
    the host and every seat): the attacker at an empty table, the defender with a card to
    cover, else the first attacker who has not passed; None before the deal is done, after
    the result, or when nobody can act."""
    if game is None or game.result is not None:
        return None
    table = game.table
    state = (game.bout_number, tuple(table), tuple(game.passed), game.phase, game.defender)
    seat: int | None
    if not table:
        seat = game.attacker
    elif any(d is None for _, d in table) and game.phase is not Phase.TAKING:
        seat = game.defender
    else:
        seat = next(
            (
                s
                for s in game.attackers
                if s not in game.passed and s != game.defender and s not in game.out
            ),
            None,
        )
    return None if seat is None else (seat, state)


class ClockView:
    """What a player's screen makes of the move clock.  `told`: a `Clock` event (the seat
    whose clock runs, or None, and its seconds).  `acted`: a relayed game action has been
    applied; once a `Clock` has said how long a move may take, the clock starts afresh for the
    seat the table now waits for whenever that seat or the state it waits in changed, with
    those seconds again (none runs when the table waits for nobody)."""

    __slots__ = ("key", "seat", "seconds")

    def __init__(self, seconds: int = 0) -> None:
        self.seconds = seconds
        """The move time the host last told (0: not known, nothing is derived)."""
        self.key: Waited | None = None
        """The waited state at the last `Clock` or restart."""
        self.seat: int | None = None
        """The seat whose clock runs on the screen (None: none)."""

    def told(self, seat: int | None, seconds: int, key: Waited | None) -> None:
        """A `Clock` event, taken when the table waits in ``key``."""
        self.seat = seat
        self.key = key
        if seat is not None:
            self.seconds = seconds

    def acted(self, key: Waited | None) -> bool:
        """A game action was applied and the table waits in ``key`` now: whether the clock
        started afresh for ``seat`` (or stopped: ``seat`` None) from it."""
        if self.seconds <= 0 or key == self.key:
            return False
        self.key = key
        self.seat = None if key is None else key[0]
        return True
