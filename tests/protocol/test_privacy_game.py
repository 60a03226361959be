"""Whole games under card privacy, then the audit (privacy.md steps 3-7)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from localdurak.game.actions import Action, Do
from localdurak.game.cards import CARDS
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.privacy.events import CardPlayed, KeysRevealed, TrumpCardDrawn
from localdurak.protocol.privacy.messages import Play, Return
from localdurak.protocol.privacy.schedule import Setup
from tests.support.privacy_play import play_scripted_game, rngs, table
from tests.support.privacy_sim import MemoryTable, dealt_deck, play_engine_game

ENGINE_GAMES = [
    (2, {"deck": 24}, 1),
    (3, {"variant": "perevodnoy", "deck": 36, "trump_show": True}, 2),
    (4, {"deck": 52}, 3),
    (6, {"variant": "perevodnoy", "deck": 36}, 4),
    (4, {"deck": 24, "japanese": True}, 5),
    (3, {"variant": "duren", "deck": 52, "partial_defence": True}, 6),  # R-P1, R-P5, R-P6
    (3, {"variant": "perevodnoy", "deck": 36, "cheating": True}, 0),  # R-S1..R-S4
]


@pytest.mark.parametrize(("n", "options", "seed"), ENGINE_GAMES)
def test_whole_engine_game_under_privacy_audits_clean(
    n: int, options: dict[str, Any], seed: int
) -> None:
    rules = Rules(**options)
    tab = MemoryTable(Setup.from_rules(rules, n, seed % n), rngs(n, seed))
    tab.start()
    # Random legal play by the engine; after every bout each protocol hand equals the engine's.
    game = play_engine_game(tab, rules, random.Random(seed))
    assert game.result is not None
    tab.reveal()
    record = json.loads(json.dumps(tab.record(game)))
    report = audit(record)
    assert report.clean, report.faults
    assert report.deck is not None
    # The audit's deck dealt with the engine replays the same game.
    replay = Game.deal(rules, n, seed % n, report.deck)
    for a in game.log:
        replay.apply(a)
    assert replay.result == game.result
    if options.get("cheating"):  # a challenged cheat put cards back into hands (R-S3)
        assert any(isinstance(m, Return) for m in tab.host.t.log)
    shows = [m for m in tab.host.t.log if isinstance(m, Play) and m.shown]
    if options.get("trump_show"):
        assert all(CARDS[m.card].suit == game.trump for m in shows)


@pytest.mark.parametrize(("n", "deck", "seed"), [(3, 36, 2), (6, 36, 5)])
def test_whole_scripted_game_plays_and_audits_clean(n: int, deck: int, seed: int) -> None:
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


def _engine_game(seed: int = 7) -> tuple[MemoryTable, Game]:
    rules = Rules(deck=24)
    tab = MemoryTable(Setup.from_rules(rules, 3, 0), rngs(3, seed))
    tab.start()
    game = play_engine_game(tab, rules, random.Random(seed))
    tab.reveal()
    return tab, game


def test_audit_replays_the_actions_against_the_proven_cards() -> None:
    tab, game = _engine_game()
    record = tab.record(game)
    assert audit(record).clean
    # A record whose actions do not play the cards the protocol proved.
    actions = record["actions"]
    i = next(i for i, a in enumerate(actions) if a["do"] == "attack")
    j = next(j for j, a in enumerate(actions) if a["do"] == "attack" and j > i + 1)
    swapped = dict(record, actions=[*actions[:i], actions[j], *actions[i + 1 :]])
    report = audit(swapped)
    assert not report.clean


def test_R_B12_a_refill_the_rules_do_not_call_for_is_named_by_the_audit() -> None:
    # Every player's engine is fooled (or colludes): the live checks pass, the audit does not.
    rules = Rules(deck=24)
    tab = MemoryTable(Setup.from_rules(rules, 3, 0), rngs(3, 8))
    tab.start()
    game = Game.deal(rules, 3, 0, dealt_deck(tab))
    first = game.legal_actions(game.attacker or 0)[0]
    tab.play(first.seat, first.cards[0], first.to_dict())
    game.apply(first)
    tab.act(game.defender or 0, {"do": "take"})
    game.apply(Action(game.defender or 0, Do.TAKE))
    tab.end_bout([1, 1], None)  # not the bout's refill, and nobody "took"
    tab.reveal()
    report = audit(tab.record(game))
    # The host's fault (its Refill says seat 0 whoever hosts): the host/record, no seat.
    assert any(f.seat is None and "R-B12" in f.what for f in report.faults)


def test_R_F2_later_game_skips_the_lowest_trump_step_and_duren_hands_of_five() -> None:
    rules = Rules(variant="duren", deck=52)
    setup = Setup.from_rules(rules, 3, 1, lowest_trump=False)
    assert setup.hand_size == 5
    tab = MemoryTable(setup, rngs(3, 21))
    tab.start()
    assert tab.host.t.first_attacker is None and not tab.host.t.claims
    assert all(len(p.cards()) == 5 for p in tab.players)
    game = Game.deal(rules, 3, 1, dealt_deck(tab))
    for p in tab.players:
        assert sorted(p.cards()) == sorted(game.hand(p.seat))
