"""Cards, suits, ranks, decks and their text notation (R-C1, R-C2, R-C4).

A card is a small integer, ``suit * 13 + (rank - 2)``, so that a set of cards
is an integer bit set (python-chess style): the cards of one suit are 13
contiguous bits, ranks ascending.  `Card` subclasses `int` so that it can be
used directly as a bit index, while still printing and parsing as ``"TD"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum
from functools import cache
from typing import Final


class Suit(IntEnum):
    """The four suits, in the notation's order S H D C (R-C2)."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def letter(self) -> str:
        return "SHDC"[self]

    @property
    def symbol(self) -> str:
        return "♠♥♦♣"[self]

    @property
    def red(self) -> bool:
        """R-C4: hearts and diamonds are red, spades and clubs black."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse ``S``/``H``/``D``/``C`` (either case) or a suit symbol."""
        t = text.strip()
        for suit in cls:
            if t.upper() == suit.letter or t in (suit.symbol, "♤♡♢♧"[suit]):
                return suit
        raise CardError(f"{text!r} is not a suit: use S, H, D, C or ♠ ♥ ♦ ♣ (R-C2)")


RANK_LETTERS: Final = "23456789TJQKA"
"""Ranks low to high (R-C1); index 0 is the two, 12 the ace."""


class CardError(ValueError):
    """A text that is not a card, suit or deck in our notation."""


class Card(int):
    """One card; ``int(card)`` is its index 0..51 and its bit in a card set."""

    __slots__ = ()

    @property
    def suit(self) -> Suit:
        return Suit(self // 13)

    @property
    def rank(self) -> int:
        """The rank as a number: 2..10, J=11, Q=12, K=13, A=14."""
        return self % 13 + 2

    @property
    def rank_letter(self) -> str:
        return RANK_LETTERS[self % 13]

    @property
    def bit(self) -> int:
        return 1 << self

    @classmethod
    def of(cls, rank: int, suit: Suit) -> Card:
        if not 2 <= rank <= 14:
            raise CardError(f"rank {rank} is not 2..14")
        return CARDS[suit * 13 + rank - 2]

    @classmethod
    def parse(cls, text: str) -> Card:
        """``"TD"``, ``"10d"``, ``"Q♥"`` → the card (R-C2)."""
        t = text.strip()
        if len(t) < 2:
            raise CardError(f"{text!r} is not a card: write rank then suit, e.g. 6S, TD, QH (R-C2)")
        rank_text, suit_text = t[:-1].upper(), t[-1]
        if rank_text == "10":
            rank_text = "T"
        if len(rank_text) != 1 or rank_text not in RANK_LETTERS:
            raise CardError(
                f"{text!r} is not a card: the rank must be one of 2-9, T (or 10), J, Q, K, A (R-C2)"
            )
        try:
            suit = Suit.parse(suit_text)
        except CardError:
            raise CardError(
                f"{text!r} is not a card: the suit must be S, H, D, C or ♠ ♥ ♦ ♣ (R-C2)"
            ) from None
        return CARDS[suit * 13 + RANK_LETTERS.index(rank_text)]

    def __str__(self) -> str:
        return RANK_LETTERS[self % 13] + "SHDC"[self // 13]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def pretty(self, ascii_only: bool = False) -> str:
        """For people: ``10♦`` (or ``10D`` with ``ascii_only``)."""
        rank = "10" if self.rank == 10 else self.rank_letter
        return rank + (self.suit.letter if ascii_only else self.suit.symbol)


CARDS: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(52))
"""Every card, indexed by its number: the canonical order (spades 2..A, hearts, diamonds, clubs)."""

DECK_SIZES: Final = (24, 36, 52)


def lowest_rank(deck_size: int) -> int:
    """The deck's lowest rank (R-C1): 9 for 24 cards, 6 for 36, 2 for 52."""
    try:
        return {24: 9, 36: 6, 52: 2}[deck_size]
    except KeyError:
        raise CardError(f"a deck has 24, 36 or 52 cards, not {deck_size} (R-C1)") from None


def deck_cards(deck_size: int) -> tuple[Card, ...]:
    """The cards of a deck of that size, in canonical order (R-C1)."""
    low = lowest_rank(deck_size)
    return tuple(c for c in CARDS if c.rank >= low)


def deck_mask(deck_size: int) -> int:
    return mask_of(deck_cards(deck_size))


# --- card sets as integer bit sets ------------------------------------------------

SUIT_MASK: Final = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
RANK_MASK: Final = tuple(sum(1 << (13 * s + r) for s in range(4)) for r in range(13))
"""RANK_MASK[rank - 2]: the four cards of that rank."""


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> Iterator[Card]:
    """The cards of a bit set, in canonical order."""
    while mask:
        low = mask & -mask
        yield CARDS[low.bit_length() - 1]
        mask ^= low


def popcount(mask: int) -> int:
    return mask.bit_count()


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in texts)


# --- R-B5, the one place that says which card beats which -----------------------------------


def beats(cover: int, attack: int, trump: int, japanese: bool = False) -> bool:
    """R-B5: does ``cover`` beat ``attack``?  A higher card of the attack card's suit, or any
    trump on a non-trump; Japanese (R-D4): a spade only by a higher spade."""
    cs, at = cover // 13, attack // 13
    if cs == at:
        return cover > attack
    return cs == trump and not (japanese and at == Suit.SPADES)


@cache
def beat_masks(trump: int, japanese: bool = False) -> tuple[int, ...]:
    """R-B5 as bit sets: for each card (by index), the set of the cards that beat it, made
    from `beats` once per trump suit and rule."""
    return tuple(sum(1 << c for c in range(52) if beats(c, a, trump, japanese)) for a in range(52))
