"""The end of a bout (R-B10 .. R-B15): discarding or taking the table, the refill, the seats
out, the game's result — and the outcome events that say so (outcome.py).

One layer of `engine.Game` (state.py says how the layers stack).
"""

from __future__ import annotations

from localdurak.game.actions import GameResult
from localdurak.game.cards import (
    Card,
    lowest_rank,
)
from localdurak.game.outcome import (
    NOTHING,
    Event,
    Outcome,
    Over,
    Refilled,
    Taken,
)
from localdurak.game.rules import (
    Tie,
)
from localdurak.game.state import (
    _ENDED,
    _OUT,
    _OVER,
    GameState,
    _flat,
    _new,
    _refill_order,
    _seats_of,
)


class BoutEnding(GameState):
    """R-B10: when a bout ends, and what ending it does."""

    __slots__ = ()

    def _maybe_end(self) -> Outcome:
        """R-B10: end the bout when its conditions hold."""
        att = self._att
        if not att:
            return NOTHING
        d = self.defender
        assert d is not None
        if not self._taking:
            # (a) all covered: every attacker passed, or R-B4 allows no further card
            # (the limit, or (c) a defender without cards, R-B13).
            if not self._uncovered and (
                len(att) >= self._limit
                or not (self._hands[d] or self._unknown[d])
                or self._all_passed()
            ):
                return self._end_bout(True)
        elif (
            len(att) >= self._limit
            or self._uncovered >= self._hands[d].bit_count() + self._unknown[d]
            or self._all_passed()
        ):
            return self._end_bout(False)  # (b)
        return NOTHING

    # --- the end of a bout ------------------------------------------------------------

    def _end_bout(self, defended: bool) -> Outcome:
        d = self.defender
        assert d is not None
        att = self._att
        taken = 0
        if defended:
            if not self._defended:
                self._defended = True
                self._limit = self._compute_limit()  # R-B4b: the first defence lifts it to 6
        elif self._duren and self.rules.partial_defence:
            # R-P5: the covered pairs are discarded, the uncovered cards taken.
            for x, c in self._table:
                if c is None:
                    taken |= 1 << x
        else:
            taken = self._table_mask  # R-B8: attack and cover cards alike
        gone = self._table_mask & ~taken
        self._last_bout = tuple(self._table)
        self._last_bout_taken = bool(taken)
        self.discard_count += gone.bit_count()
        self._discard_mask |= gone
        self._hands[d] |= taken
        self._pub[d] |= taken  # everyone saw the cards he picked up
        events: list[Event] = [_ENDED[d][bool(taken)][gone.bit_count()]]
        if taken:
            # Table order, each attack card before its cover.
            cards: list[Card | None] = [*_flat(self._table)]
            whole = taken == self._table_mask
            if whole:
                for _ in range(cards.count(None)):
                    cards.remove(None)
            else:
                cards = [x for x in cards if x is not None and taken >> x & 1]
            events.append(_new(Taken, (d, tuple(cards), whole)))
        last_attack = att  # _start_bout makes a new list
        if self.stock_count:
            refilled = self._refill(d)
            if refilled is not None:
                events.append(refilled)
        else:
            self._last_refill = []
        if not self.stock_count:
            # R-B13: with the stock empty, a player without cards is out (seat order).
            # reading: judged after the refill, so whoever drew the last cards stays in.
            hands, unknown = self._hands, self._unknown
            for s in range(self.seats):
                if not self._out_mask >> s & 1 and not hands[s] and not unknown[s]:
                    self._out.append(s)
                    self._out_mask |= 1 << s
                    events.append(_OUT[s])
            if self._game_over(d, last_attack):
                assert self.result is not None
                events.append(_new(Over, (self.result,)))
                return tuple(events)
        # R-B11 / R-P4: who attacks next.
        nxt = d if defended and not self._out_mask >> d & 1 else self._next_active(d)
        assert nxt is not None
        self._bout_no += 1
        self._start_bout(nxt)
        return tuple(events)

    def _refill(self, d: int) -> Refilled | None:
        """R-B12 (R-P6): draw up to the hand size; the trump card is drawn last.  Returns
        the refill's event (None: nobody drew)."""
        opener = self._opener
        order = (opener, d) if self._duren else _refill_order(self.seats, opener, d, self._out_mask)
        hands, unknown, hs, stock = self._hands, self._unknown, self._hs, self._stock
        full = self._full
        pos = start = self._refill_from = self._stock_pos
        left = self.stock_count
        sched: list[int] = []
        for s in order:
            k = hs - hands[s].bit_count() - unknown[s]
            if k <= 0:
                continue
            if k > left:
                k = left
            left -= k
            sched += [s] * k
            if full:
                m = hands[s]
                for c in stock[pos : pos + k]:
                    m |= 1 << c
                hands[s] = m
                pos += k
            else:
                unknown[s] += k  # hidden: the card-privacy protocol tells the drawer alone
            if not left:
                break
        self.stock_count = left
        self._stock_pos = pos
        self._last_refill = sched
        if not sched:
            return None
        if not left and self._turned is not None:
            # R-D2: the turned trump card, the stock's last, was drawn in everyone's sight.
            s, b = sched[-1], 1 << self._turned
            if not full:
                unknown[s] -= 1
                hands[s] |= b
            self._pub[s] |= b
        drawn = tuple(stock[start:pos]) if full else self._drawn_cards()
        return _new(Refilled, (tuple(sched), drawn))

    def _drawn_cards(self) -> tuple[Card | None, ...]:
        """The cards of the last refill, one per step, as this game knows them."""
        n = len(self._last_refill)
        if self._full:
            return tuple(self._stock[self._refill_from : self._refill_from + n])
        if not self.stock_count and self._turned is not None:
            return (*(None,) * (n - 1), self._turned)  # only the turned card is seen
        return (None,) * n

    def _game_over(self, d: int, last_attack: list[Card]) -> bool:
        """R-B14, R-T3, R-B15: end the game when at most one player (team) holds cards
        (asked once the stock is empty: nobody is out before, R-B13)."""
        out = self._out_mask
        live = [t for t in self._team_masks if t & ~out]  # the teams still holding cards
        if len(live) > 1:
            return False
        if live:
            durak = _seats_of(live[0])
        elif self.rules.tie is Tie.LAST_DEFENDER_LOSES:
            durak = tuple(s for s in range(self.seats) if self._team[s] == self._team[d])
        else:
            durak = ()
        pogony = 0
        # reading: with tie = last_defender_loses the durak did defend the last bout, so his
        # epaulettes count too; a draw has none.
        if d in durak:
            # R-B15: the non-trump attack cards of the deck's lowest rank.
            low = lowest_rank(self.rules.deck)
            pogony = sum(1 for c in last_attack if c.rank == low and c.suit != self.trump)
        self.result = GameResult(durak, not durak, pogony)
        self.phase = _OVER
        self.attacker = self.defender = None
        self._attackers = 0
        self._passed = 0
        self._att, self._table = [], []
        self._uncovered = 0
        self._table_mask = self._rank_cards = 0
        self._info = {}
        self._snaps = []
        return True
