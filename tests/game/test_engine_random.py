"""Hypothesis over random legal play, for every variant and a sample of option mixes.

At every step: the cards are conserved, every listed action applies, the actions of the same
kinds that are not listed are refused (cheats aside in cheating mode) and a refusal changes
nothing; every game ends, with one durak (team) or a draw; no view holds a card its seat may
not know.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from localdurak.game.actions import Action, Do, IllegalAction
from localdurak.game.cards import deck_mask
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from tests.support.engine_helpers import random_deck, state

# (options, seat counts) — every variant, every option at least once.
TABLES: list[tuple[dict[str, Any], tuple[int, ...]]] = [
    ({}, (2, 3, 4, 5, 6)),
    ({"deck": 24}, (2, 3, 4)),
    ({"deck": 52, "hand_size": 5}, (2, 4, 6)),
    ({"throw_in": "neighbours", "throw_in_order": "first_word"}, (3, 4, 5, 6)),
    ({"first_bout_five": False, "tie": "last_defender_loses"}, (2, 3, 6)),
    ({"japanese": True}, (2, 3, 4, 6)),
    ({"teams": "2v2"}, (4,)),
    ({"teams": "3v3", "throw_in": "neighbours"}, (6,)),
    ({"teams": "pairs", "tie": "last_defender_loses"}, (6,)),
    ({"next_first_attack": "from_durak"}, (3,)),
    ({"variant": "perevodnoy"}, (2, 3, 4, 5, 6)),
    ({"variant": "perevodnoy", "trump_show": True}, (2, 3, 4)),
    ({"variant": "perevodnoy", "transfer_first_bout": False, "deck": 24}, (2, 3)),
    ({"variant": "perevodnoy", "teams": "2v2", "trump_show": True}, (4,)),
    ({"variant": "perevodnoy", "japanese": True, "throw_in": "neighbours"}, (3, 5)),
    ({"cheating": True}, (2, 3, 4)),
    ({"cheating": True, "variant": "perevodnoy", "teams": "2v2"}, (4,)),
    ({"variant": "duren"}, (2, 3, 4, 5, 6)),
    ({"variant": "duren", "duren_leads": "odd"}, (2, 3, 5)),
    ({"variant": "duren", "partial_defence": True, "deck": 52}, (2, 4, 6)),
    ({"variant": "duren", "japanese": True, "deck": 24, "partial_defence": True}, (2, 4)),
]

CASES = [(opts, n) for opts, ns in TABLES for n in ns]


def conserved(game: Game, full: int) -> None:
    masks = [game._hands[s] for s in range(game.seats)]
    masks += [game._table_mask, game._discard_mask]
    stock = sum(1 << c for c in game.stock_cards())
    masks.append(stock)
    total = 0
    union = 0
    for m in masks:
        total += m.bit_count()
        union |= m
    assert union == full and total == full.bit_count(), "a card was lost or doubled"
    assert game.stock_count == len(game.stock_cards())
    assert game.discard_count == game._discard_mask.bit_count()


def candidates(game: Game, seat: int) -> list[Action]:
    """Every single-card action of every kind the seat could try, plus take and pass."""
    hand = game.hand(seat)
    out: list[Action] = [Action(seat, Do.TAKE), Action(seat, Do.PASS)]
    for c in hand:
        out.append(Action(seat, Do.ATTACK, (c,)))
        out.append(Action(seat, Do.TRANSFER, card=c))
        out.append(Action(seat, Do.SHOW, card=c))
        for a, cov in game.table:
            if cov is None:
                out.append(Action(seat, Do.COVER, card=c, on=a))
    for a, cov in game.table:
        out.append(Action(seat, Do.CHALLENGE, card=a))
        if cov is not None:
            out.append(Action(seat, Do.CHALLENGE, card=cov))
    return out


def pick(rng: random.Random, acts: list[Action], game: Game) -> Action:
    """A random action; challenges only now and then, or every player is soon marked
    (R-S4) and nobody can cheat any more; but a cheat on the table is often caught, so
    that rollbacks (R-S3) happen."""
    caught = [a for a in acts if a.do is Do.CHALLENGE and game._info[a.card][2]]
    if caught and rng.random() < 0.3:
        return rng.choice(caught)
    plain = [a for a in acts if a.do is not Do.CHALLENGE]
    if plain and (len(plain) == len(acts) or rng.random() < 0.9):
        return rng.choice(plain)
    return rng.choice(acts)


def check_views(game: Game) -> None:
    for s in range(game.seats):
        v = game.view(s)
        assert set(v.hand) == set(game.hand(s))
        for o, sv in enumerate(v.others):
            assert sv.count == game.count(o)
            if o != s:
                # another hand shows only the cards every player saw go into it
                assert set(sv.known) <= set(game.known(o))
                assert set(sv.known) <= set(game.hand(o))


def run(opts: dict[str, Any], n: int, seed: int, check_every: int) -> Game:
    rules = Rules(**opts)
    rng = random.Random(seed)
    game = Game.deal(rules, n, rng.randrange(n), random_deck(rules, rng))
    full = deck_mask(rules.deck)
    steps = 0
    while game.result is None:
        steps += 1
        assert steps < 3000, "the game does not end"
        legal = {s: game.legal_actions(s) for s in range(n)}
        everything = [a for acts in legal.values() for a in acts]
        assert everything, "nobody can act but the game is not over"
        if steps % check_every == 0:
            conserved(game, full)
            check_views(game)
            for s in range(n):
                listed = set(legal[s])
                for a in listed:
                    assert game.can_apply(a), a
                cands = candidates(game, s)
                for a in rng.sample(cands, min(len(cands), 6)):
                    if a in listed:
                        continue
                    if rules.cheating and a.do in (Do.ATTACK, Do.COVER, Do.TRANSFER):
                        continue  # cheats are allowed, yet never listed
                    before = state(game)
                    try:
                        game.apply(a)
                    except IllegalAction as e:
                        assert e.rule.startswith("R-"), e
                    else:
                        raise AssertionError(f"{a} applied but was not listed")
                    assert state(game) == before, f"refusing {a} changed the game"
        if rules.cheating and rng.random() < 0.15:
            # a random card play, cheat or not, from a random seat
            s = rng.randrange(n)
            cands = [a for a in candidates(game, s) if a.do is not Do.CHALLENGE]
            a = rng.choice(cands)
            if game.can_apply(a):
                game.apply(a)
                continue
        chosen = pick(rng, everything, game)
        if rng.random() < 0.5:
            # an equal action built anew: apply checks it in full instead of recognising
            # the listed object (both paths must agree)
            chosen = Action(chosen.seat, chosen.do, chosen.cards, chosen.card, chosen.on)
        game.apply(chosen)
    conserved(game, full)
    res = game.result
    assert res is not None
    if res.draw:
        assert res.durak == () and res.pogony == 0
    else:
        teams = {game.team(s) for s in res.durak}
        assert len(teams) == 1
        assert set(res.durak) == {s for s in range(n) if game.team(s) in teams}
        assert 0 <= res.pogony <= 4
    assert game.attacker is None and game.defender is None and game.phase == "over"
    assert all(game.legal_actions(s) == [] for s in range(n))
    return game


@settings(max_examples=25, deadline=None)
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**32))
def test_random_play_keeps_every_invariant(case: tuple[dict[str, Any], int], seed: int) -> None:
    opts, n = case
    run(opts, n, seed, check_every=4)


def test_random_play_every_table_once() -> None:
    for i, (opts, n) in enumerate(CASES):
        run(opts, n, i, check_every=4)
