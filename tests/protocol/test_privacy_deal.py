"""The deal under card privacy, for every table size and deck (the cheap phases)."""

from __future__ import annotations

import itertools

import pytest

from localdurak.game.cards import Card, deck_cards
from localdurak.protocol.privacy.events import CardTurned, FirstAttacker, HandDealt
from localdurak.protocol.privacy.schedule import Setup
from tests.support.privacy_play import table

MATRIX = [(n, d) for n, d in itertools.product(range(2, 7), (24, 36, 52)) if n * 6 <= d]


@pytest.mark.parametrize(("n", "deck"), MATRIX)
def test_R_D1_R_D2_every_hand_dealt_privately_and_consistently(n: int, deck: int) -> None:
    tab = table(n, deck, seed=n * deck)
    tab.start()
    setup = tab.setup
    hands = [p.cards() for p in tab.players]
    dealt = [c for h in hands for c in h]
    assert all(len(h) == 6 for h in hands)
    assert len(set(dealt)) == len(dealt) and set(dealt) <= set(deck_cards(deck))
    turned = [e for e in tab.events[0] if isinstance(e, CardTurned)]
    assert len(turned) == 1
    if setup.trump_in_stock:  # R-D2: the trump card is in no hand
        assert turned[0].card not in dealt and turned[0].holder is None
    else:  # R-D3: the dealer's last card, shown, stays in his hand
        assert turned[0].card in hands[setup.dealer] and turned[0].holder == setup.dealer
    for s in range(n):
        [mine] = [e for e in tab.events[s] if isinstance(e, HandDealt)]
        assert set(mine.cards) <= set(hands[s])
        # Everybody agrees on the first attacker.
        assert [e for e in tab.events[s] if isinstance(e, FirstAttacker)] == [
            e for e in tab.events[0] if isinstance(e, FirstAttacker)
        ]


def test_R_F1_lowest_trump_attacks_first() -> None:
    for seed in range(4):
        tab = table(3, 36, seed=seed)
        tab.start()
        t = tab.players[0].t
        trump = t.trump_suit
        assert trump is not None and t.first_attacker is not None
        holders = {c: s for s in range(3) for c in tab.players[s].cards()}
        trumps = sorted((c for c in holders if c.suit == trump), key=lambda c: c.rank)
        if trumps:
            assert t.first_attacker.seat == holders[trumps[0]]
            assert t.first_attacker.card == trumps[0]
        else:
            assert t.first_attacker.seat == (tab.setup.dealer + 1) % 3
        # Nothing was asked above the lowest dealt trump, and every "not me" is true.
        lowest = trumps[0].rank if trumps else 15
        assert all(a.rank <= lowest for a in t.claims)
        assert all(holders.get(Card.of(a.rank, trump)) != a.seat for a in t.claims)


def test_R_D4_japanese_diamonds_no_turned_card() -> None:
    tab = table(3, 36, japanese=True)
    tab.start()
    assert not any(isinstance(e, CardTurned) for e in tab.events[0])
    assert tab.players[0].t.trump_suit is not None and tab.players[0].t.trump_suit.letter == "D"
    assert tab.host.t.schedule.stock_left == 36 - 18


def test_schedule_routes_and_positions() -> None:
    s = Setup(4, 36, 6, 2)
    assert [s.deal_owner(p) for p in range(5)] == [3, 0, 1, 2, 3]
    assert s.route(1) == (2, 3, 0)
    assert s.route(-1) == (3, 0, 1, 2)
    assert s.stock_positions()[-1] == 24 and s.stock_positions()[0] == 25
