"""What an action caused: `Game.apply` returns these, in the order they happened.

PokerKit's model: the method that does something returns what it did, so no caller has to
diff the state before and after an action to find out (engine-api.md "Outcome").  An action
that only puts its card on the table (or passes, or declares take) caused nothing beyond
itself: its outcome is the empty tuple.

The events, and when the engine emits them:

- `Opened` — an attack card went onto an empty table: the bout is open (R-B1).
- `Returned` — R-S3: a caught cheat rolled the bout back; these cards left the table for
  the hands they came from (a challenge; followed by the cheater's `Marked`).
- `Marked` — R-S3 / R-S4: a seat was marked for the first time (a caught cheater, or the
  challenger of an honest card).  A seat already marked is not marked again.
- `BoutEnded` — R-B10: the bout is over, beaten off (bito) or taken.
- `Taken` — R-B8 / R-P5: the defender picked these cards up (after `BoutEnded`).
- `Refilled` — R-B12: the refill that followed the bout (when the stock held cards).
- `Out` — R-B13: a seat without cards and an empty stock is out, in seat order.
- `Over` — R-B14, R-T3, R-B15: the game ended with this result (always the last event).

Hidden information (`Game.hidden`): the engine knows every count but not every card, so
`Refilled.cards` holds None for a card whose face only its drawer learns (the protocol tells
him); the turned trump card, drawn in everyone's sight, is known.  Every other event carries
only what every player saw.

The events are immutable and cheap: each is a `typing.NamedTuple` (the engine makes one or
two per bout, on the path every action takes, and a frozen dataclass costs four times a
tuple to build), with an equality of its own that a tuple does not have: two events are equal
only when they are of the same kind with the same fields (``Out(1) != Marked(1)``, and no
event equals a plain tuple).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Final, NamedTuple, TypeVar

from localdurak.game.actions import GameResult
from localdurak.game.cards import Card


class Phase(StrEnum):
    """records.md "state": a bout is being played, its defender declared take (R-B8), or the
    game is over.  A `str`, so the record form is the value itself."""

    BOUT = "bout"
    TAKING = "taking"
    OVER = "over"


class Opened(NamedTuple):
    """An attack went onto an empty table (R-B1): ``attacker`` attacks ``defender``."""

    attacker: int
    defender: int


class Returned(NamedTuple):
    """R-S3: a caught cheat took the bout back to just before the cheat; ``cards`` (in card
    order) went back from the table to the hands ``owners`` (one per card)."""

    cards: tuple[Card, ...]
    owners: tuple[int, ...]


class Marked(NamedTuple):
    """R-S3 / R-S4: ``seat`` is marked from now on (it must play honestly)."""

    seat: int


class BoutEnded(NamedTuple):
    """R-B10: the bout that ``defender`` defended is over; ``taken``: he took (R-B8, R-P5),
    otherwise it was beaten off (bito).  ``discarded``: how many cards went to the discard
    pile (all of the table in a bito; the covered pairs in a Dureń partial defence, R-P5)."""

    defender: int
    taken: bool
    discarded: int

    @property
    def bito(self) -> bool:
        return not self.taken


class Taken(NamedTuple):
    """R-B8 / R-P5: ``seat`` picked up ``cards`` (in table order, each attack card before its
    cover); ``whole``: the whole table (R-B8), otherwise the uncovered cards only (R-P5)."""

    seat: int
    cards: tuple[Card, ...]
    whole: bool


class Refilled(NamedTuple):
    """R-B12: the refill after a bout.  ``seats``: who drew, one entry per card, in drawing
    order; ``cards``: the card drawn at each step as this game knows it (None: hidden
    information, only the drawer learns it); the turned trump card is drawn last (R-D2)."""

    seats: tuple[int, ...]
    cards: tuple[Card | None, ...]

    def drawn(self, seat: int) -> list[Card]:
        """The cards ``seat`` drew, as far as they are known."""
        return [
            c for s, c in zip(self.seats, self.cards, strict=True) if s == seat and c is not None
        ]


class Out(NamedTuple):
    """R-B13: ``seat`` is out of the game (no cards, the stock empty)."""

    seat: int


class Over(NamedTuple):
    """The game is over (R-B14, R-T3, R-B15)."""

    result: GameResult


def _eq(self: tuple[Any, ...], other: object) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other)


def _ne(self: tuple[Any, ...], other: object) -> bool:
    return not _eq(self, other)


def _hash(self: tuple[Any, ...]) -> int:
    return hash((type(self).__name__, tuple.__hash__(self)))


def _unordered(self: tuple[Any, ...], other: object) -> bool:
    raise TypeError(f"events have no order: {self!r}, {other!r}")


_METHODS: Final = {"__eq__": _eq, "__ne__": _ne, "__hash__": _hash} | dict.fromkeys(
    ("__lt__", "__le__", "__gt__", "__ge__"), _unordered
)
for _kind in (Opened, Returned, Marked, BoutEnded, Taken, Refilled, Out, Over):
    for _name, _method in _METHODS.items():
        setattr(_kind, _name, _method)


Event = Opened | Returned | Marked | BoutEnded | Taken | Refilled | Out | Over
"""One thing an action caused."""

Outcome = tuple[Event, ...]
"""What one action caused, in the order it happened (empty: nothing beyond the action)."""

NOTHING: Final[Outcome] = ()


_E = TypeVar("_E", Opened, Returned, Marked, BoutEnded, Taken, Refilled, Out, Over)


def first(outcome: Sequence[Event], kind: type[_E]) -> _E | None:
    """The first event of ``kind`` in ``outcome``, or None."""
    for e in outcome:
        if isinstance(e, kind):
            return e
    return None


__all__ = [
    "NOTHING",
    "BoutEnded",
    "Event",
    "Marked",
    "Opened",
    "Out",
    "Outcome",
    "Over",
    "Phase",
    "Refilled",
    "Returned",
    "Taken",
    "first",
]
