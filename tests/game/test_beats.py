"""R-B5 written once (cards.beats, cards.beat_masks): literal cases, and the engine's covers,
the endgame solver's and the masks all agree with it."""

from __future__ import annotations

import pytest

from localdurak.game.cards import Card, Suit, beat_masks, beats


def c(text: str) -> Card:
    return Card.parse(text)


@pytest.mark.parametrize(
    ("cover", "attack", "trump", "japanese", "expected"),
    [
        ("7S", "6S", Suit.CLUBS, False, True),  # higher of the suit
        ("6S", "7S", Suit.CLUBS, False, False),  # lower of the suit
        ("6C", "AS", Suit.CLUBS, False, True),  # any trump on a non-trump
        ("AS", "6C", Suit.CLUBS, False, False),  # a non-trump never beats a trump
        ("7C", "6C", Suit.CLUBS, False, True),  # a higher trump
        ("AH", "KS", Suit.CLUBS, False, False),  # another suit, no trump
        ("6D", "6S", Suit.DIAMONDS, True, False),  # Japanese: a spade only by a higher spade
        ("7S", "6S", Suit.DIAMONDS, True, True),
        ("6D", "AH", Suit.DIAMONDS, True, True),  # Japanese: trumps still beat other suits
        ("6S", "6S", Suit.CLUBS, False, False),
    ],
)
def test_beats(cover: str, attack: str, trump: Suit, japanese: bool, expected: bool) -> None:
    assert beats(c(cover), c(attack), trump, japanese) is expected
    assert bool(beat_masks(trump, japanese)[c(attack)] >> c(cover) & 1) is expected


def test_the_masks_are_beats_for_every_pair() -> None:
    for trump in Suit:
        for japanese in (False, True):
            masks = beat_masks(trump, japanese)
            for a in range(52):
                assert masks[a] == sum(1 << x for x in range(52) if beats(x, a, trump, japanese))
