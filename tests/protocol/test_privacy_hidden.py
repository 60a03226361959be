"""Every seat runs the rules engine on what the protocol lets it know (Game.hidden), side by
side with a full-information game: the protocol gives each seat its own hand, the trump, the
first attacker (R-F1) and its draws; its own engine then gives the same refill schedule, the
same hand and the same legal actions as the full game (engine-api.md "Hidden information")."""

from __future__ import annotations

import random
from typing import Any

import pytest

from localdurak.game.actions import Do
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.privacy.events import HandDealt
from localdurak.protocol.privacy.schedule import Setup
from localdurak.protocol.table.common import refill_due
from tests.support.privacy_play import rngs
from tests.support.privacy_sim import MemoryTable, dealt_deck


@pytest.mark.parametrize(
    ("n", "options", "seed"),
    [
        (3, {"variant": "perevodnoy", "deck": 36, "trump_show": True}, 31),
        (4, {"deck": 24}, 32),  # R-D3: the dealer's last card is shown
    ],
)
def test_each_seats_hidden_engine_agrees_with_the_full_game(
    n: int, options: dict[str, Any], seed: int
) -> None:
    rules = Rules(**options)
    dealer = seed % n
    tab = MemoryTable(Setup.from_rules(rules, n, dealer), rngs(n, seed))
    tab.start()
    full = Game.deal(rules, n, dealer, dealt_deck(tab))
    t = tab.host.t
    assert t.trump_suit is not None and t.first_attacker is not None
    shown: dict[int, list[Any]] = {}
    if not tab.setup.trump_in_stock and t.turned is not None:
        shown.setdefault(dealer, []).append(t.turned)  # R-D3
    if t.first_attacker.card is not None:
        shown.setdefault(t.first_attacker.seat, []).append(t.first_attacker.card)  # R-F1
    hidden = [
        Game.hidden(
            rules,
            n,
            dealer,
            trump_card=t.turned if tab.setup.trump_in_stock else None,
            trump_suit=t.trump_suit,
            first_attacker=t.first_attacker.seat,
            viewer=s,
            own_cards=tab.players[s].cards(),
            shown=shown,
        )
        for s in range(n)
    ]
    seen = [len(tab.events[s]) for s in range(n)]
    rng = random.Random(seed)
    for _ in range(3000):
        if full.result is not None:
            break
        for s in range(n):
            assert set(hidden[s].legal_actions(s)) == set(full.legal_actions(s))
            assert sorted(hidden[s].hand(s)) == sorted(full.hand(s))
        action = rng.choice([a for s in range(n) for a in full.legal_actions(s)])
        if action.do is Do.ATTACK:
            for card in action.cards:
                tab.play(action.seat, card, action.to_dict())
        elif action.do in (Do.COVER, Do.TRANSFER, Do.SHOW):
            assert action.card is not None
            tab.play(action.seat, action.card, action.to_dict(), shown=action.do is Do.SHOW)
        else:
            tab.act(action.seat, action.to_dict())
        refill = refill_due(full.apply(action))
        # Each seat's own engine names the refill it will check the host's against.
        assert all(refill_due(g.apply(action)) == refill for g in hidden)
        if refill is not None:
            seats, taker, taken = refill
            tab.end_bout(seats, None if taker < 0 else taker, taken)
            for s in range(n):
                drawn = [
                    c for e in tab.events[s][seen[s] :] if isinstance(e, HandDealt) for c in e.cards
                ]
                seen[s] = len(tab.events[s])
                if drawn:
                    hidden[s].learn_draws(s, drawn)
    assert full.result is not None
    assert all(g.result == full.result for g in hidden)
    tab.reveal()
    record = tab.record(full)
    assert audit(record).clean
