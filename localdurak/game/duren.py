"""Dureń leads (R-P2, R-P3): which sets of cards a player may lead, as card bit sets.

A lead is a set of cards, so leads are integer bit sets here (cards.py); the engine turns
them into `Action` objects.  Both lead modes of R-P2 are built from *pairs*:

- ``pairs`` (000 basic): a pair is two cards of one rank and one colour (R-C4); a lead is one
  card, a pair, a pair and one card of any kind, two pairs, or two pairs and one card.
- ``odd`` (000 second variant): a pair is two cards of one rank in any colours; a lead is one
  card, a pair and any third card, or two pairs and any fifth card.
"""

from __future__ import annotations

from itertools import combinations
from typing import Final

from localdurak.game.cards import RANK_MASK
from localdurak.game.rules import DurenLeads

MAX_LEAD: Final = 5
"""R-P3: at most 5 cards per lead."""

# R-C4: the red suits are hearts (1) and diamonds (2); black are spades (0) and clubs (3).
_RED_SUITS: Final = (1, 2)
_BLACK_SUITS: Final = (0, 3)


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def _pairs(hand: int, mode: DurenLeads) -> list[int]:
    """Every pair in the hand, as a two-bit mask (R-P2)."""
    pairs: list[int] = []
    for r in range(13):
        if mode is DurenLeads.PAIRS:
            for suits in (_RED_SUITS, _BLACK_SUITS):
                m = (1 << (suits[0] * 13 + r)) | (1 << (suits[1] * 13 + r))
                if hand & m == m:
                    pairs.append(m)
        else:
            for a, b in combinations(_bits(hand & RANK_MASK[r]), 2):
                pairs.append(a | b)
    return pairs


def leads(hand: int, mode: DurenLeads, most: int) -> set[int]:
    """Every legal lead from ``hand`` of at most ``most`` cards (R-P2, R-P3), as masks."""
    most = min(most, MAX_LEAD)
    out: set[int] = set()
    if most < 1:
        return out
    singles = _bits(hand)
    out.update(singles)
    if most < 2:
        return out
    pairs = _pairs(hand, mode)
    if mode is DurenLeads.PAIRS:
        out.update(pairs)
    if most >= 3:
        for p in pairs:
            for x in singles:
                if not x & p:
                    out.add(p | x)
    if most >= 4:
        for p, q in combinations(pairs, 2):
            if p & q:
                continue  # odd mode: two pairs drawn from the same three cards
            pq = p | q
            if mode is DurenLeads.PAIRS:
                out.add(pq)
            if most >= 5:
                for x in singles:
                    if not x & pq:
                        out.add(pq | x)
    return out


def is_lead(cards: int, mode: DurenLeads) -> bool:
    """Whether this set of cards is a legal lead in the mode (R-P2), whatever its size."""
    n = cards.bit_count()
    return 1 <= n <= MAX_LEAD and cards in leads(cards, mode, n)
