"""What one seat may see (R-T4, records.md ``state``): `PlayerView`, and the hand order.

A `PlayerView` is the only thing a client renders or a bot reads.  It never holds a card that
its seat may not know: its own hand, the cards of other hands that were seen going into them
(taken from the table, a shown trump, the turned trump card drawn), the table, and counts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from localdurak.game.actions import Action, GameResult
from localdurak.game.cards import CARDS, Card, Suit, cards_of
from localdurak.game.outcome import Phase
from localdurak.game.rules import Rules


def hand_order(trump: Suit) -> Callable[[Card], tuple[int, int, int]]:
    """records.md: non-trumps by rank (ties in suit order S H D C), then trumps by rank."""

    def key(card: Card) -> tuple[int, int, int]:
        suit = card // 13
        return (1 if suit == trump else 0, card % 13, suit)

    return key


@cache
def _order_keys(trump: Suit) -> tuple[int, ...]:
    """For each card index, a number that sorts as `hand_order`'s key does (a table lookup
    is a C-level sort key, where a Python key function is called once per card)."""
    key = hand_order(trump)
    return tuple(t * 52 + rank * 4 + suit for t, rank, suit in map(key, CARDS))


def sort_hand(cards: Iterable[Card], trump: Suit) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=_order_keys(trump).__getitem__))


def sort_mask(cards: int, trump: Suit) -> tuple[Card, ...]:
    """The cards of a bit set, in hand order."""
    if not cards:
        return ()
    return tuple(sorted(cards_of(cards), key=_order_keys(trump).__getitem__))


@dataclass(frozen=True, slots=True)
class SeatView:
    """Another seat as one player sees it: the cards known to be in the hand, and its size."""

    known: tuple[Card, ...]
    count: int
    team: int
    out: bool
    marked: bool
    passed: bool


@dataclass(frozen=True, slots=True)
class PlayerView:
    """Everything ``seat`` may see now (``seat`` None: a spectator, who sees no hand)."""

    seat: int | None
    rules: Rules
    seats: int
    dealer: int
    hand: tuple[Card, ...]
    """The seat's own hand, in the order a client shows it (empty for a spectator)."""
    others: tuple[SeatView, ...]
    """One entry per seat (the viewer's own too), in seat order."""
    trump: Suit
    trump_card: Card | None
    stock_count: int
    discard_count: int
    table: tuple[tuple[Card, Card | None], ...]
    attacker: int | None
    defender: int | None
    attackers: tuple[int, ...]
    """The seats that may throw in this bout (R-B2, R-T2)."""
    passed: tuple[int, ...]
    """The attackers that have passed since the table last changed (R-B9)."""
    phase: Phase  # a str: "bout", "taking" or "over"
    out: tuple[int, ...]
    marked: tuple[int, ...]
    teams: tuple[int, ...]
    """The team of each seat (R-T1); without teams each seat is its own team."""
    bout: int
    """The number of bouts finished in this game (0 during the first bout, R-B6)."""
    defended: bool
    """Whether a bout of this game has ended in a successful defence yet (R-B4b)."""
    limit: int
    """How many attack cards this bout may hold at most (R-B4a/b; 5 in Dureń, R-P3)."""
    result: GameResult | None
    legal: tuple[Action, ...]
    """The seat's legal actions now (records.md ``legal``; honest ones only when cheating)."""
    last_bout: tuple[tuple[Card, Card | None], ...] = ()
    """The table of the bout that ended last, as it lay when it ended: every card on it was
    public, including a last cover that ended the bout at once (R-B10a, R-P4)."""
    last_bout_taken: bool = False
    """Whether the defender of that bout picked cards up (R-B8, R-P4, R-P5)."""

    def count(self, seat: int) -> int:
        return self.others[seat].count

    @property
    def uncovered(self) -> tuple[Card, ...]:
        return tuple(a for a, c in self.table if c is None)
