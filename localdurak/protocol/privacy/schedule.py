"""The public deal schedule of the card-privacy protocol (docs/privacy.md, "The schedule").

Which deck position goes to whom is public and fixed by the rules, never by a request:

* the deal (R-D1): positions 0 .. seats·hand−1, one card at a time clockwise from the
  dealer's left, so position p goes to seat (dealer + 1 + p) mod seats;
* the trump card (R-D2): the next position, turned face up (public), drawn last;
  R-D3: when the deal uses the whole deck, the dealer's last card is shown (public) and stays in
  his hand; R-D4 (japanese): no card is turned;
* the stock: the remaining positions from the top, the trump card last;
* each bout's refill (R-B12): one batch, the engine's ``Game.refill_schedule()`` (one seat per
  card, in draw order) mapped onto the next stock positions.

A batch is split into **chunks**, one per receiving seat (plus one public chunk for a turned
card).  A chunk's layers are removed by every other seat in a fixed **route**: for a seat's
chunk, the seats on its left in clockwise order; for a public chunk, every seat starting left of
the dealer.  All chunks of a batch travel their routes at the same time, so a batch takes
seats−1 rounds (seats for a public chunk) and in each round every seat strips one chunk.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...game.cards import DECK_SIZES, Suit, lowest_rank

PUBLIC = -1
"""The owner of a public chunk (a turned card everybody decodes)."""


class ScheduleError(ValueError):
    """A schedule that the rules do not allow (too many cards, a seat out of range)."""


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything the protocol needs to know about the game before it starts."""

    seats: int
    deck_size: int
    hand_size: int
    dealer: int
    japanese: bool = False
    lowest_trump: bool = True
    """Run the R-F1 step (first game, or after a draw); else the engine names the first attacker."""
    rules: Mapping[str, Any] = field(default_factory=dict)
    """The table options, bound into the game id."""

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= 6:
            raise ScheduleError(f"2 to 6 players, not {self.seats} (R-C3)")
        if self.deck_size not in DECK_SIZES:
            raise ScheduleError(f"a deck has 24, 36 or 52 cards, not {self.deck_size} (R-C1)")
        if self.hand_size not in (5, 6) or self.seats * self.hand_size > self.deck_size:
            raise ScheduleError(
                f"{self.seats} players × {self.hand_size} cards do not fit a {self.deck_size} deck"
            )
        if not 0 <= self.dealer < self.seats:
            raise ScheduleError(f"dealer {self.dealer} is not a seat")

    @classmethod
    def from_rules(cls, rules: Any, seats: int, dealer: int, *, lowest_trump: bool = True) -> Setup:
        """From a `localdurak.game.rules.Rules`."""
        return cls(
            seats=seats,
            deck_size=rules.deck,
            hand_size=rules.hand_size,
            dealer=dealer,
            japanese=rules.japanese,
            # R-P1: in Dureń the dealer's left attacks first, no lowest trump is asked for.
            lowest_trump=lowest_trump and str(rules.variant) != "duren",
            rules=rules.to_dict(),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "seats": self.seats,
            "deck": self.deck_size,
            "hand": self.hand_size,
            "dealer": self.dealer,
            "japanese": self.japanese,
            "lowest_trump": self.lowest_trump,
            "rules": dict(self.rules),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Setup:
        try:
            return cls(
                seats=int(d["seats"]),
                deck_size=int(d["deck"]),
                hand_size=int(d["hand"]),
                dealer=int(d["dealer"]),
                japanese=bool(d.get("japanese", False)),
                lowest_trump=bool(d.get("lowest_trump", True)),
                rules=dict(d.get("rules", {})),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ScheduleError(f"not a privacy setup: {e}") from None

    def digest(self) -> bytes:
        return hashlib.sha512(
            json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":")).encode()
        ).digest()

    # --- the layout of the deck (R-D1..R-D4) ----------------------------------------------

    @property
    def dealt(self) -> int:
        return self.seats * self.hand_size

    def deal_owner(self, position: int) -> int:
        """R-D1: the seat the deal gives ``position`` to."""
        return (self.dealer + 1 + position) % self.seats

    @property
    def turned_position(self) -> int | None:
        """The position everybody decodes at the deal: the trump card (R-D2), the dealer's last
        card when nothing is left (R-D3), or none (R-D4)."""
        if self.japanese:
            return None
        return self.dealt if self.dealt < self.deck_size else self.dealt - 1

    @property
    def trump_in_stock(self) -> bool:
        """R-D2: the turned card lies under the stock (else R-D3: in the dealer's hand)."""
        return not self.japanese and self.dealt < self.deck_size

    def stock_positions(self) -> list[int]:
        """The stock in draw order: from the top, the trump card last (R-D2)."""
        if self.japanese:
            return list(range(self.dealt, self.deck_size))
        if self.trump_in_stock:
            return [*range(self.dealt + 1, self.deck_size), self.dealt]
        return []

    def route(self, owner: int) -> tuple[int, ...]:
        """Who strips a chunk, in order: the seats left of the owner; all seats from the
        dealer's left for a public chunk."""
        if owner == PUBLIC:
            return tuple((self.dealer + i) % self.seats for i in range(1, self.seats + 1))
        return tuple((owner + i) % self.seats for i in range(1, self.seats))

    def trump_ranks(self) -> list[int]:
        """The ranks of the trump suit asked about at R-F1, ascending."""
        return list(range(lowest_rank(self.deck_size), 15))


JAPANESE_TRUMP = Suit.DIAMONDS
"""R-D4: diamonds are always trump."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """The positions of one batch that one seat receives, and who strips them in which order."""

    batch: int
    owner: int
    positions: tuple[int, ...]
    route: tuple[int, ...]

    @property
    def key(self) -> tuple[int, int]:
        return (self.batch, self.owner)


class Schedule:
    """The whole public schedule so far: batches of chunks and who holds each dealt position."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.batches: list[list[Chunk]] = []
        self.holder: dict[int, int] = {}
        """position -> the seat whose hand it went to (public positions included)."""
        self.batch_of: dict[int, int] = {}
        self._stock = setup.stock_positions()
        self._drawn = 0
        self.turned_batch: int | None = None
        """The refill batch that drew the face-up trump card (R-D2), once drawn."""
        self._deal()

    def _deal(self) -> None:
        s = self.setup
        turned = s.turned_position
        per_owner: dict[int, list[int]] = {}
        for p in range(s.dealt):
            self.holder[p] = s.deal_owner(p)
            self.batch_of[p] = 0
            if p != turned:
                per_owner.setdefault(s.deal_owner(p), []).append(p)
        chunks = [Chunk(0, o, tuple(per_owner[o]), s.route(o)) for o in sorted(per_owner)]
        if turned is not None:
            chunks.append(Chunk(0, PUBLIC, (turned,), s.route(PUBLIC)))
            self.batch_of[turned] = 0
        self.batches.append(chunks)

    @property
    def stock_left(self) -> int:
        return len(self._stock) - self._drawn

    def refill(self, seats: Sequence[int]) -> list[Chunk]:
        """Add the batch for one refill (R-B12): one seat per card, in draw order.  The trump
        card (R-D2), drawn last, is already public: it changes hands without a chunk."""
        if len(seats) > self.stock_left:
            raise ScheduleError(
                f"a refill of {len(seats)} cards but only {self.stock_left} left in the stock"
            )
        # Check every seat before drawing anything: a refused refill changes nothing.
        for seat in seats:
            if not 0 <= seat < self.setup.seats:
                raise ScheduleError(f"seat {seat} is not at the table")
        batch = len(self.batches)
        per_owner: dict[int, list[int]] = {}
        turned = self.setup.turned_position
        for seat in seats:
            p = self._stock[self._drawn]
            self._drawn += 1
            self.holder[p] = seat
            if p == turned:
                self.turned_batch = batch
                continue
            self.batch_of[p] = batch
            per_owner.setdefault(seat, []).append(p)
        chunks = [
            Chunk(batch, o, tuple(per_owner[o]), self.setup.route(o)) for o in sorted(per_owner)
        ]
        self.batches.append(chunks)
        return chunks

    def chunk(self, batch: int, owner: int) -> Chunk | None:
        if not 0 <= batch < len(self.batches):
            return None
        for c in self.batches[batch]:
            if c.owner == owner:
                return c
        return None

    def chunk_of(self, position: int) -> Chunk | None:
        b = self.batch_of.get(position)
        if b is None:
            return None
        for c in self.batches[b]:
            if position in c.positions:
                return c
        return None
