"""R-C1, R-C2, R-C4: cards, notation and decks."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from localdurak.game.cards import (
    CARDS,
    Card,
    CardError,
    Suit,
    cards_of,
    deck_cards,
    lowest_rank,
    mask_of,
)
from localdurak.game.view import hand_order, sort_hand, sort_mask


def test_R_C2_notation_round_trips_for_every_card() -> None:
    for card in CARDS:
        assert Card.parse(str(card)) == card
        assert eval(repr(card)) == card  # a repr can be pasted back as code


@pytest.mark.parametrize(
    ("text", "expected"),
    [("6S", "6S"), ("TD", "TD"), ("10D", "TD"), ("10♦", "TD"), ("q♥", "QH"), ("ac", "AC")],
)
def test_R_C2_accepts_ten_and_suit_symbols(text: str, expected: str) -> None:
    assert str(Card.parse(text)) == expected


@pytest.mark.parametrize("text", ["", "6", "1S", "6X", "11D", "ZZ", "TDD"])
def test_R_C2_refuses_what_is_not_a_card(text: str) -> None:
    with pytest.raises(CardError, match="R-C2"):
        Card.parse(text)


def test_R_C1_deck_sizes_and_lowest_rank() -> None:
    assert len(deck_cards(24)) == 24 and lowest_rank(24) == 9
    assert len(deck_cards(36)) == 36 and lowest_rank(36) == 6
    assert len(deck_cards(52)) == 52 and lowest_rank(52) == 2
    assert all(c.rank >= 6 for c in deck_cards(36))
    with pytest.raises(CardError, match="R-C1"):
        deck_cards(32)


def test_R_C1_ace_is_high() -> None:
    assert Card.parse("AS").rank > Card.parse("KS").rank > Card.parse("2S").rank


def test_R_C4_colours() -> None:
    assert Suit.HEARTS.red and Suit.DIAMONDS.red
    assert not Suit.SPADES.red and not Suit.CLUBS.red


@given(st.sets(st.sampled_from(CARDS)))
def test_bit_sets_round_trip(cards: set[Card]) -> None:
    assert set(cards_of(mask_of(cards))) == cards


@given(cards=st.sets(st.sampled_from(CARDS), max_size=20), trump=st.sampled_from(list(Suit)))
def test_records_hand_order_of_a_list_and_of_a_bit_set(cards: set[Card], trump: Suit) -> None:
    """records.md hand order: non-trumps by rank (ties S H D C), then trumps by rank."""
    expected = tuple(sorted(cards, key=hand_order(trump)))
    assert sort_hand(list(cards), trump) == expected
    assert sort_mask(mask_of(cards), trump) == expected
    trumps = [c for c in expected if c.suit == trump]
    assert list(expected[len(expected) - len(trumps) :]) == trumps  # trumps last
