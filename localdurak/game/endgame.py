"""An exact solver for the two-player endgame of podkidnoy (the `normal` bot's endgame).

Once the stock is empty and the bot has counted every card (taken cards are public, the
discard pile was seen going out), both hands are known: the rest is a game of perfect
information.  This searches it to the end — win, draw or loss — within a node budget; the bot
falls back on its heuristics when the budget runs out.

The model follows the engine's rules for two players with an empty stock: R-B1 (one card
opens; several of a rank are the same as throwing them in), R-B3 throw-ins of the table's
ranks, R-B4 limits, R-B5 covers, R-B8 take (the attacker may still throw in), R-B10 the bout's
end, R-B11 the next attacker, R-B13/R-B14 going out, the draw and the ``tie`` option.  To keep
the tree small, the defender covers the uncovered cards strongest first and the attacker
throws in only when nothing is left uncovered (or the defender takes); the attacker may do
no better by hurrying.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar, Final

from localdurak.game.cards import SUIT_MASK, beat_masks

WIN: Final = 1
DRAW: Final = 0
LOSS: Final = -1


class Budget(Exception):
    """The search ran out of nodes."""


_LOW13: Final = (1 << 13) - 1
_SPREAD: Final = 1 | 1 << 13 | 1 << 26 | 1 << 39


def _ranks(mask: int) -> int:
    """Every card of each rank present in ``mask`` (fold the four suits, spread back)."""
    folded = (mask | mask >> 13 | mask >> 26 | mask >> 39) & _LOW13
    return folded * _SPREAD


def _rank(c: int) -> int:
    return c % 13


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


# A move: ("open" | "throw" | "transfer", card, -1), ("cover", card, on),
# ("take" | "pass", -1, -1).
Move = tuple[str, int, int]
# A position after a move: a terminal value for the bout's attacker, or (position, swapped).
Child = int | tuple[tuple[int, ...], bool]


@dataclass
class Solver:
    """Solves positions for one game (the table options and trump are fixed)."""

    trump: int
    japanese: bool
    first_bout_five: bool
    last_defender_loses: bool
    transfers: bool = False
    """Perevodnoy (R-B6): the defender may add a card of the attack rank and pass the bout
    back (two players).  Trump shows (R-B7) are not searched."""
    budget: int = 20_000
    MAX_DEPTH: ClassVar[int] = 200

    def __post_init__(self) -> None:
        self.beats = beat_masks(self.trump, self.japanese)
        self.memo: dict[tuple[int, ...], int] = {}
        self.path: set[tuple[int, ...]] = set()
        self.nodes = 0

    # Values are for the attacker of the position (``a`` below holds his hand).

    def best(
        self,
        a: int,
        d: int,
        unc: int,
        table: int,
        n_att: int,
        taking: bool,
        defended: bool,
        attacker_moves: bool,
    ) -> tuple[int, Move] | None:
        """The value for the player to move and his best move, or None if out of budget.

        ``attacker_moves``: the attacker is to move (open, throw in or pass); otherwise the
        defender (cover or take)."""
        self.nodes = 0
        self.path = set()
        try:
            moves = self._moves(a, d, unc, table, n_att, taking, defended, attacker_moves)
            best: tuple[int, Move] | None = None
            for mv, child in moves:
                val = self._child_value(child, attacker_moves)
                if best is None or val > best[0]:
                    best = (val, mv)
                    if val == WIN:
                        break
            return best
        except Budget:
            return None

    def _child_value(self, child: Child, attacker_moves: bool) -> int:
        """Value of a child for the mover (positions are valued for their own attacker)."""
        if isinstance(child, int):
            return child if attacker_moves else -child  # a terminal, for this attacker
        key, swapped = child
        val = self._value(key)
        for_attacker = -val if swapped else val  # a defended bout: the defender attacks
        return for_attacker if attacker_moves else -for_attacker

    def _value(self, key: tuple[int, ...]) -> int:
        """Value for the attacker of the position ``key`` (its own attacker)."""
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if key in self.path:
            # Transfers can bring a position back (cards pass to and fro): call such a
            # cycle a draw.  reading: the values above it are then not exact, so a cycle
            # makes the search a heuristic one; without transfers there are none.
            return DRAW
        self.nodes += 1
        if self.nodes > self.budget or len(self.path) > self.MAX_DEPTH:
            raise Budget
        self.path.add(key)
        a, d, unc, table, n_att, taking, defended, mover = key
        attacker_moves = mover == 1
        best = -2
        for _mv, child in self._moves(
            a, d, unc, table, n_att, bool(taking), bool(defended), attacker_moves
        ):
            val = self._child_value(child, attacker_moves)
            if val > best:
                best = val
                if val == WIN:
                    break
        self.path.discard(key)
        assert best != -2
        out = best if attacker_moves else -best
        self.memo[key] = out
        return out

    def _moves(
        self,
        a: int,
        d: int,
        unc: int,
        table: int,
        n_att: int,
        taking: bool,
        defended: bool,
        attacker_moves: bool,
    ) -> Iterator[tuple[Move, Child]]:
        """The moves and their positions, lazily (a win cuts the rest off), likely-good
        moves first."""
        if attacker_moves:
            if not table:
                # Cards he cannot beat first, then the lowest ranks.
                beats = self.beats
                hard = [c for c in _bits(a) if not d & beats[c]]
                easy = sorted((c for c in _bits(a) if d & beats[c]), key=_rank)
                for c in hard + easy:
                    b = 1 << c
                    yield ("open", c, -1), self._after(a ^ b, d, b, b, 1, False, defended)
                return
            limit = 6 if defended or not self.first_bout_five else 5
            if n_att < limit and unc.bit_count() < d.bit_count():
                for c in _bits(a & _ranks(table)):
                    b = 1 << c
                    yield (
                        ("throw", c, -1),
                        self._after(a ^ b, d, unc | b, table | b, n_att + 1, taking, defended),
                    )
            yield ("pass", -1, -1), self._end(a, d, table, not taking, defended)
            return
        # The defender: transfer (R-B6), cover the strongest uncovered card (plain cards
        # first), or take.
        on = unc.bit_length() - 1
        if self.transfers and unc == table:
            limit = 6 if defended or not self.first_bout_five else 5
            if n_att + 1 <= limit and a.bit_count() >= n_att + 1:
                for c in _bits(d & _ranks(1 << on)):
                    b = 1 << c
                    # Two players: the bout goes back to the attacker, who now defends.
                    key = (d ^ b, a, unc | b, table | b, n_att + 1, 0, int(defended), 0)
                    yield ("transfer", c, -1), (key, True)
        can = d & self.beats[on]
        tm = SUIT_MASK[self.trump]
        for c in _bits(can & ~tm) + _bits(can & tm):
            b = 1 << c
            child = self._after(a, d ^ b, unc ^ (1 << on), table | b, n_att, False, defended)
            yield ("cover", c, on), child
        yield ("take", -1, -1), self._after(a, d, unc, table, n_att, True, defended)

    def _after(
        self, a: int, d: int, unc: int, table: int, n_att: int, taking: bool, defended: bool
    ) -> Child:
        """The position after a move, with R-B10's automatic ends applied."""
        limit = 6 if defended or not self.first_bout_five else 5
        if not taking:
            if not unc and (n_att >= limit or not d or not a):
                return self._end(a, d, table, True, defended)
            mover = 0 if unc else 1
        else:
            if n_att >= limit or unc.bit_count() >= d.bit_count() or not a:
                return self._end(a, d, table, False, defended)
            mover = 1
        return (a, d, unc, table, n_att, int(taking), int(defended), mover), False

    def _end(self, a: int, d: int, table: int, defence: bool, defended: bool) -> Child:
        """The bout ends (R-B10): a terminal value for this bout's attacker (R-B13, R-B14),
        or the next position (swapped when the defender attacks next, R-B11)."""
        if not defence:
            d |= table
        if not a and not d:
            # R-B14: both out in the same bout; ``tie`` last_defender_loses: he is the durak.
            return WIN if self.last_defender_loses else DRAW
        if not a:
            return WIN
        if not d:
            return LOSS
        if defence:
            return (d, a, 0, 0, 0, 0, 1, 1), True
        return (a, d, 0, 0, 0, 0, int(defended), 1), False
