"""`Game.apply`'s outcome (outcome.py) against the state it changed, over random play of every
variant and option mix: each event says exactly what diffing the state before and after would
find, in the order it happened; a hidden-information twin (viewer None and a seat) returns
the same events, with the faces of the cards it cannot see left out; `would_end_bout` agrees
with a trial on a copy, for listed, unlisted and cheating actions alike."""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from localdurak.game.actions import Action, Do, IllegalAction
from localdurak.game.engine import Game
from localdurak.game.outcome import (
    BoutEnded,
    Event,
    Marked,
    Opened,
    Out,
    Over,
    Phase,
    Refilled,
    Returned,
    Taken,
    first,
)
from localdurak.game.rules import Rules
from tests.game.test_engine_hidden import hidden_twin
from tests.game.test_engine_random import CASES, candidates, pick
from tests.support.engine_helpers import make, play, random_deck


def trial_ends(game: Game, action: Action) -> bool:
    trial = copy.deepcopy(game)
    try:
        trial.apply(action)
    except IllegalAction:
        return False
    return trial.bout_number != game.bout_number or trial.result is not None


def expected(game: Game, action: Action, before: dict[str, Any]) -> list[Event]:
    """The events the state diff shows, in the engine's order."""
    out: list[Event] = []
    if action.do is Do.ATTACK and not before["table"]:
        out.append(Opened(action.seat, before["defender"]))
    on_before = {c for pair in before["table"] for c in pair if c is not None}
    on_now = {c for pair in game.table for c in pair if c is not None}
    if action.do is Do.CHALLENGE and on_before - on_now:
        gone = tuple(sorted(on_before - on_now))
        owners = tuple(next(s for s in range(game.seats) if c in game.hand(s)) for c in gone)
        out.append(Returned(gone, owners))
    out += [Marked(s) for s in game.marked if s not in before["marked"]]
    if game.bout_number != before["bout"] or game.result is not None:
        d = before["defender"]
        played = {*action.cards, *([action.card] if action.do in (Do.COVER,) else [])}
        table = [c for pair in before["table"] for c in pair if c is not None]
        if action.do is Do.COVER:
            i = [a for a, _ in before["table"]].index(action.on)
            table.insert(2 * i + 1, action.card)  # the cover sits after its attack card
        else:
            table += list(action.cards)
        taken = [c for c in table if c in set(game.hand(d)) - set(before["hands"][d])]
        assert set(table) == on_before | played
        discarded = game.discard_count - before["discard"]
        out.append(BoutEnded(d, bool(taken), discarded))
        if taken:
            out.append(Taken(d, tuple(taken), len(taken) == len(table)))
        if game.refill_schedule() and before["stock"]:
            sched = tuple(game.refill_schedule())
            stock = before["stock_cards"][: len(sched)]
            out.append(Refilled(sched, tuple(stock)))
        out += [Out(s) for s in game.out if s not in before["out"]]
        if game.result is not None:
            out.append(Over(game.result))
    return out


def snapshot(game: Game) -> dict[str, Any]:
    return {
        "table": game.table,
        "defender": game.defender,
        "marked": game.marked,
        "bout": game.bout_number,
        "hands": [game.hand(s) for s in range(game.seats)],
        "discard": game.discard_count,
        "stock": game.stock_count,
        "stock_cards": game.stock_cards(),
        "out": game.out,
    }


def hidden_view(events: tuple[Event, ...], twin: Game) -> tuple[Event, ...]:
    """What a hidden twin's outcome must be: the drawn cards' faces only where it sees them
    (its own draws need `learn_draws` first; the turned trump card is public)."""
    out: list[Event] = []
    for e in events:
        if isinstance(e, Refilled):
            n = len(e.cards)
            last = e.cards[-1] if twin.stock_count == 0 and twin._turned is not None else None
            e = Refilled(e.seats, (None,) * (n - 1) + (last,))
        out.append(e)
    return tuple(out)


def run(opts: dict[str, Any], n: int, seed: int) -> None:
    rules = Rules(**opts)
    rng = random.Random(seed)
    game = Game.deal(rules, n, rng.randrange(n), random_deck(rules, rng))
    twins = {v: hidden_twin(game, v) for v in (None, 0)}
    steps = 0
    while game.result is None:
        steps += 1
        assert steps < 3000
        everything = [a for s in range(n) for a in game.legal_actions(s)]
        if steps % 3 == 0:
            for s in range(n):
                cands = candidates(game, s)
                for a in rng.sample(cands, min(2, len(cands))):
                    assert game.would_end_bout(a) == trial_ends(game, a), a
        action = pick(rng, everything, game)
        if rules.cheating and rng.random() < 0.2:
            s = rng.randrange(n)
            attempt = rng.choice([a for a in candidates(game, s) if a.do is not Do.CHALLENGE])
            if game.can_apply(attempt):
                action = attempt
        ends = game.would_end_bout(action)
        for twin in twins.values():
            assert twin.would_end_bout(action) == ends, action
        before = snapshot(game)
        events = game.apply(action)
        assert list(events) == expected(game, action, before), action
        assert (first(events, BoutEnded) is not None) == ends
        assert isinstance(game.phase, Phase)
        for viewer, twin in twins.items():
            got = twin.apply(action)
            assert got == hidden_view(events, twin), (viewer, action)
            if first(got, BoutEnded) and viewer is not None:
                twin.learn_draws(viewer, game.last_draws(viewer))


@settings(max_examples=10, deadline=None)
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**32))
def test_the_outcome_is_what_an_action_changed(case: tuple[dict[str, Any], int], seed: int) -> None:
    run(*case, seed)


def test_the_outcome_every_table_once() -> None:
    for i, (opts, n) in enumerate(CASES):
        run(opts, n, 1000 + i)


def test_a_quiet_action_causes_nothing_and_a_bito_says_so() -> None:
    # Trump clubs; seat 0 attacks 6S, seat 1 covers with 7S: all covered, seat 0 passes.
    g = make(["6S 8D 9D TD JD QD", "7S 8H 9H TH JH QH"], trump="6C", stock="KD KH")
    assert g.apply(Action(0, Do.ATTACK, (g.hand(0)[0],))) == (Opened(0, 1),)
    assert play(g, "1 cover 7S 6S").log[-1].do is Do.COVER
    events = g.apply(Action(0, Do.PASS))
    ended = first(events, BoutEnded)
    assert ended == BoutEnded(1, False, 2) and ended.bito
    refill = first(events, Refilled)
    assert refill is not None and refill.drawn(0) == list(refill.cards[:1])
    assert g.phase is Phase.BOUT and g.phase == "bout"
