"""Whole games under card privacy, then the audit (card-privacy.md steps 3-7)."""

from __future__ import annotations

import json

import pytest

from localdurak.protocol.privacy import CardPlayed, KeysRevealed, TrumpCardDrawn
from localdurak.protocol.privacy_audit import audit
from tests.privacy_play import play_scripted_game, table


@pytest.mark.parametrize(("n", "deck", "seed"), [(2, 24, 1), (3, 36, 2), (4, 52, 3), (6, 36, 4)])
def test_whole_game_plays_and_audits_clean(n: int, deck: int, seed: int) -> None:
    tab = table(n, deck, seed=seed)
    tab.start()
    bouts = play_scripted_game(tab)
    assert bouts > 0
    assert tab.host.t.schedule.stock_left == 0
    replays = [m for m in tab.host.t.log if type(m).__name__ == "Play" and m.position == -1]
    if (n, deck) == (6, 36):  # this game has takes whose cards are played again, by name
        assert replays
    tab.reveal()
    assert all(isinstance(tab.events[s][-1], KeysRevealed) for s in range(n))
    # Everybody saw the same plays, in the host's order.
    plays = [[e for e in tab.events[s] if isinstance(e, CardPlayed)] for s in range(n)]
    assert all(p == plays[0] for p in plays)
    if tab.setup.trump_in_stock:
        assert any(isinstance(e, TrumpCardDrawn) for e in tab.events[0])
    record = json.loads(json.dumps(tab.record()))  # the record survives JSON
    report = audit(record)
    assert report.clean, report.faults
    assert report.deck is not None and len(report.deck) == deck
    # The audit's deck gives every seat exactly the cards it decoded at the deal.
    dealt = {s: set() for s in range(n)}  # type: dict[int, set[object]]
    for p, card in enumerate(report.deck[: n * 6]):
        dealt[tab.setup.deal_owner(p)].add(card)
    first_hands = [
        {
            c
            for e in tab.events[s]
            if type(e).__name__ == "HandDealt" and e.batch == 0
            for c in e.cards
        }
        for s in range(n)
    ]
    for s in range(n):
        assert first_hands[s] <= dealt[s]


def test_audit_of_a_record_with_a_deck_that_differs() -> None:
    tab = table(2, 24, seed=9)
    tab.start()
    tab.reveal()
    record = tab.record()
    report = audit(record)
    assert report.clean and report.deck is not None
    record["deck"] = [str(c) for c in report.deck]
    assert audit(record).clean
    record["deck"] = [str(c) for c in reversed(report.deck)]
    assert not audit(record).clean
