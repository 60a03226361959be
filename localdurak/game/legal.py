"""Listing the legal actions of a seat (records.md ``legal``), and `would_end_bout`.

Listing builds no `Action`: every single-card action exists once (state.py's tables), so
`Game.apply` recognises one it has just listed by identity and skips re-checking it.

One layer of `engine.Game` (state.py says how the layers stack).
"""

from __future__ import annotations

from localdurak.game import duren
from localdurak.game.actions import Action, IllegalAction
from localdurak.game.cards import (
    RANK_MASK,
    SUIT_MASK,
)
from localdurak.game.checks import Checking
from localdurak.game.state import (
    _ATTACK,
    _ATTACK1,
    _CHALLENGE,
    _CHALLENGE1,
    _COVER,
    _COVER1,
    _PASS,
    _PASS1,
    _SHOW,
    _SHOW1,
    _TAKE,
    _TAKE1,
    _TRANSFER,
    _TRANSFER1,
    _cover_row,
)
from localdurak.game.view import sort_mask


class Listing(Checking):
    """What a seat may do now."""

    __slots__ = ()

    # --- legal actions ----------------------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        """records.md ``legal``: what ``seat`` may do now (honest actions only when cheating;
        a podkidnoy attack as single cards; a Dureń attack as every legal lead)."""
        if not 0 <= seat < self.seats:
            raise ValueError(f"there is no seat {seat} at this table (R-C3)")
        if self.result is not None or self._out_mask >> seat & 1:
            return []
        if not self._att:
            if seat != self.attacker:
                return []  # only the main attacker acts before the bout opens (R-B1)
            acts = self._legal_leads(seat) if self._duren else self._legal_open(seat)
        elif seat == self.defender:
            acts = self._legal_defence(seat)  # in Dureń too: cover or take (R-P4)
        elif self._duren:
            return []  # nobody throws in in Dureń (R-P3)
        else:
            acts = self._legal_throw_in(seat)
        if self._cheating:
            self._legal_challenges(seat, acts)
        if not acts:
            return acts  # nothing to recognise in apply
        self._listed[seat] = acts  # for apply's fast path; the caller gets a copy
        return acts[:]

    def _legal_open(self, seat: int) -> list[Action]:
        # R-B1: any card opens (several of one rank may go together).
        acts: list[Action] = []
        hand = self._hands[seat]
        row = _ATTACK1[seat]
        while hand:
            low = hand & -hand
            acts.append(row[low.bit_length() - 1])
            hand ^= low
        return acts

    def _legal_defence(self, seat: int) -> list[Action]:
        """The defender: covers (R-B5), transfers (R-B6, R-B7), take (R-B8)."""
        if self._taking:
            return []
        acts: list[Action] = []
        hand = self._hands[seat]
        # R-B5: each uncovered attack card, in table order, by each card of the hand that
        # beats it (low cards first).
        beats = self._beats
        for a, c in self._table:
            if c is None:
                m = hand & beats[a]
                if m:
                    row = _COVER1[seat][a] or _cover_row(seat, a)
                    while m:
                        low = m & -m
                        acts.append(row[low.bit_length() - 1])
                        m ^= low
        if self._transfers:
            self._legal_transfers(seat, hand, acts)
        acts.append(_TAKE1[seat])
        return acts

    def _legal_throw_in(self, seat: int) -> list[Action]:
        """Another seat while the bout is open: throw-ins (R-B3, R-B4) and pass (R-B9)."""
        bit = 1 << seat
        if not self._attackers & bit or self._passed & bit:
            return []  # not an attacker of this bout (R-B2, R-T2), or passed (R-B9)
        hand = self._hands[seat]
        if not hand and not self._unknown[seat]:
            return []  # without cards he has passed (R-B9)
        acts: list[Action] = []
        d = self.defender
        assert d is not None
        m = hand & self._rank_cards  # R-B3: ranks on the table
        if (
            m
            and len(self._att) < self._limit
            and self._uncovered < self._hands[d].bit_count() + self._unknown[d]  # R-B4
            and (self._free_order or self._may_throw_in(seat))
        ):
            row = _ATTACK1[seat]
            while m:
                low = m & -m
                acts.append(row[low.bit_length() - 1])
                m ^= low
        acts.append(_PASS1[seat])
        return acts

    def _legal_transfers(self, seat: int, hand: int, acts: list[Action]) -> None:
        if not self._transfers or self._uncovered != len(self._att) or not self._transfer_bout():
            return
        rank = self._att[0] % 13
        if self._rank_cards != RANK_MASK[rank]:
            return  # cheats of several ranks lie on the table: no honest transfer
        new = self._next_opponent(seat)
        if new is None:
            return
        n_att = len(self._att)
        if self.count(new) >= n_att + 1 and n_att + 1 <= self._limit:
            m = hand & RANK_MASK[rank]
            while m:
                low = m & -m
                acts.append(_TRANSFER1[seat][low.bit_length() - 1])
                m ^= low
        if self.rules.trump_show and self.count(new) >= n_att:
            m = hand & RANK_MASK[rank] & SUIT_MASK[self.trump] & ~self._shown[seat]
            while m:
                low = m & -m
                acts.append(_SHOW1[seat][low.bit_length() - 1])
                m ^= low

    def _legal_challenges(self, seat: int, acts: list[Action]) -> None:
        for c, (by, _k, _cheat) in self._info.items():
            if by != seat and not self._challenged[seat] >> c & 1:
                acts.append(_CHALLENGE1[seat][c])

    def _legal_leads(self, seat: int) -> list[Action]:
        """Dureń: the main attacker's every legal lead (R-P2, R-P3)."""
        assert self.defender is not None
        most = min(duren.MAX_LEAD, self.count(self.defender))
        key_trump = self.trump
        # reading: a lead's cards are listed in the order hands are shown (records.md).
        return [
            Action(seat, _ATTACK, sort_mask(m, key_trump))
            for m in duren.leads(self._hands[seat], self.rules.duren_leads, most)
        ]

    def can_apply(self, action: Action) -> bool:
        try:
            self.check(action)
        except IllegalAction:
            return False
        return True

    def would_end_bout(self, action: Action) -> bool:
        """Whether applying ``action`` now would end the bout (or the game, which ends only
        with a bout): R-S5's challenge window holds such an action.  False for an action the
        rules refuse.  Changes nothing and copies nothing: it asks `apply`'s R-B10 questions
        of the state the action would leave."""
        try:
            self._check(action)
        except IllegalAction:
            return False
        do = action.do
        if do is _CHALLENGE or do is _TRANSFER or do is _SHOW:
            return False  # R-S3 rolls back, R-B6/R-B7 leave an uncovered card
        d = self.defender
        assert d is not None
        seat = action.seat
        n_att, uncovered, limit = len(self._att), self._uncovered, self._limit
        held = self.count(d)
        if do is _TAKE:
            if self._duren:
                return True  # R-P4
            # R-B9: declaring take changes the table, so the passes start again.
            return n_att >= limit or uncovered >= held or self._all_passed_if(0)
        if do is _COVER:
            if uncovered != 1:
                return False  # a card stays uncovered
            if self._duren:
                return True  # R-P4: all covered
            # R-B10a; the defender is no attacker, so his last card counts only for R-B13.
            return n_att >= limit or held == 1 or self._all_passed_if(0)
        if do is _PASS:
            passed = self._passed | 1 << seat
            if self._taking:
                return n_att >= limit or uncovered >= held or self._all_passed_if(passed)
            return not uncovered and (n_att >= limit or not held or self._all_passed_if(passed))
        # An attack: only a throw-in after take can end the bout (R-B10b).
        if self._duren or not self._taking:
            return False
        k = len(action.cards)
        return (
            n_att + k >= limit
            or uncovered + k >= held
            or self._all_passed_if(0, seat, self.count(seat) - k)
        )
