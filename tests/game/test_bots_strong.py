"""The strong bot (docs/bots.md): legal play in every variant, only its seat's view (R-T4),
a budget it holds, the same game for the same seed, partners left alone (R-T2), and the
benchmark's JSON.

Budgeted in playouts (no clock) wherever a result must not depend on the machine's load.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from localdurak.game.actions import Action, Do
from localdurak.game.bots import NormalBot, StrongBot, make_bot, play_game
from localdurak.game.bots.strong import _Policy, _Sampler, _Seen
from localdurak.game.cards import Card, deck_cards, mask_of, parse_cards
from localdurak.game.endgame import Solver
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from localdurak.game.view import PlayerView
from tests.game.test_bots import Checked
from tests.game.test_engine_random import CASES
from tests.support.engine_helpers import position, random_deck

ROOT = Path(__file__).resolve().parents[2]


def strong(seed: int, sims: int = 6, **kw: Any) -> StrongBot:
    return StrongBot(random.Random(seed), simulations=sims, **kw)


@pytest.mark.parametrize(("opts", "n"), CASES, ids=[f"{o}-{n}" for o, n in CASES])
def test_strong_plays_only_legal_actions_in_every_variant(opts: dict[str, Any], n: int) -> None:
    """Every variant and option mix: each answer is legal (or a deliberate cheat the engine
    accepts, cheating mode) and the game ends; strong sits beside normal bots."""
    rng = random.Random(n * 31 + len(opts))
    rules = Rules(**opts)
    game = Game.deal(rules, n, rng.randrange(n), random_deck(rules, rng))
    bots = [
        Checked(strong(s) if s % 2 == 0 else NormalBot(random.Random(s)), game) for s in range(n)
    ]
    result = play_game(game, bots, rng)
    assert result.draw or result.durak
    assert sum(b.bot.searches for b in bots if isinstance(b.bot, StrongBot)) > 0


def _twin_games(seed: int, opts: dict[str, Any] | None = None) -> tuple[Game, Game]:
    """Two deals identical for seat 0 (its hand, the turned trump card, the first attacker)
    whose other hands and stock hold the same unseen cards in another order."""
    rules = Rules(**(opts or {}))
    for k in range(100):
        rng = random.Random(seed * 100 + k)
        deck = random_deck(rules, rng)
        n, hs = 2, rules.hand_size
        mine = deck[0 : n * hs : n]  # dealer 1: seat 0 receives the first card
        theirs = deck[1 : n * hs : n]
        turned = deck[n * hs]
        hidden = theirs + deck[n * hs + 1 :]
        random.Random(seed).shuffle(hidden)
        other = hidden[:hs]
        rest = hidden[hs:]
        twin = [c for pair in zip(mine, other, strict=True) for c in pair] + [turned, *rest]
        a = Game.deal(rules, n, 1, deck)
        b = Game.deal(rules, n, 1, twin)
        if a.attacker == b.attacker and a.view(0) == b.view(0):
            return a, b
    raise AssertionError("no twin deals found")


def test_two_games_differing_only_in_hidden_cards_get_the_same_decisions() -> None:
    """R-T4: the bot reads nothing but its view.  In twin deals that look the same from seat
    0, bots seeded alike answer every view alike, for as long as the views stay equal."""
    for seed in range(4):
        a, b = _twin_games(seed)
        assert a.hand(1) != b.hand(1) or a.stock_cards() != b.stock_cards()
        bot_a, bot_b = strong(seed, sims=30), strong(seed, sims=30)
        rng_a, rng_b = random.Random(seed), random.Random(seed)
        opp_a, opp_b = NormalBot(random.Random(9)), NormalBot(random.Random(9))
        same = 0
        while a.result is None and a.view(0) == b.view(0):
            da, db = bot_a.choose(a.view(0)), bot_b.choose(b.view(0))
            assert da == db
            same += 1
            # One move of the table, the same in both while the views agree.
            acts = [x for x in (da, opp_a.choose(a.view(1))) if x is not None]
            opp_b.choose(b.view(1))
            if not acts:
                break
            pick = rng_a.choice(acts)
            rng_b.choice(acts)
            if not b.can_apply(pick) or not a.can_apply(pick):
                break
            a.apply(pick)
            b.apply(pick)
        assert same >= 1


def test_sampled_worlds_agree_with_everything_public() -> None:
    """Each world keeps the bot's hand, the cards publicly known in other hands, the table,
    the turned trump card at the bottom of the stock and every count."""
    rules = Rules(variant="perevodnoy")
    rng = random.Random(5)
    for seed in range(6):
        game = Game.deal(rules, 3, 0, random_deck(rules, rng))
        bots = [NormalBot(random.Random(seed + s)) for s in range(3)]
        seen = _Seen()
        # play a while, the strong bot's memory following seat 0's views
        probe = StrongBot(random.Random(seed), simulations=1)
        for _ in range(12 + seed * 7):
            if game.result is not None:
                break
            v0 = game.view(0)
            probe._observe(v0)
            acts = [a for s, b in enumerate(bots) if (a := b.choose(game.view(s))) is not None]
            game.apply(rng.choice(acts))
        if game.result is not None:
            continue
        v = game.view(0)
        probe._observe(v)
        seen = probe.seen
        sampler = _Sampler.of(v, seen)
        assert sampler is not None
        true_discard = game._discard_mask
        assert seen.discarded & ~true_discard == 0, "a card taken for discarded is not"
        for _ in range(20):
            world = sampler.sample(random.Random(_))
            built = _Sampler.build(v, rules, world, seen.opener)
            assert built.hand(0) == list(v.hand)
            for s in range(3):
                assert built.count(s) == v.count(s)
                assert mask_of(v.others[s].known) & ~mask_of(built.hand(s)) == 0
            assert built.table == list(v.table)
            assert built.stock_count == v.stock_count
            if v.stock_count and v.trump_card is not None:
                assert built.stock_cards()[-1] == v.trump_card
            assert built.discard_count == v.discard_count
            everything = built._discard_mask | built._table_mask | mask_of(built.stock_cards())
            for s in range(3):
                everything |= mask_of(built.hand(s))
            assert everything == mask_of(deck_cards(rules.deck))
            assert built.legal_actions(0) == list(v.legal)


class FakeClock:
    """A clock that advances ``step`` seconds at every reading (a busy machine's clock)."""

    def __init__(self, step: float) -> None:
        self.t = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.t += self.step
        self.reads += 1
        return self.t


class Clocked:
    """A strong bot and the time its searched moves took on its clock."""

    def __init__(self, bot: StrongBot, clock: FakeClock) -> None:
        self.bot, self.clock, self.name = bot, clock, bot.name
        self.spent: list[float] = []

    def choose(self, view: PlayerView) -> Action | None:
        start = self.clock.t
        a = self.bot.choose(view)
        if self.bot.last_simulations:
            self.spent.append(self.clock.t - start)
        return a


def test_the_time_budget_is_held() -> None:
    """With a clock, a move's search stops within its budget (as that clock tells it); the
    playout cap bounds it too."""
    rules = Rules()
    for budget in (5, 20, 100):
        clock = FakeClock(0.0007)
        bot = StrongBot(random.Random(1), budget_ms=budget, clock=clock)
        timed = Clocked(bot, clock)
        rng = random.Random(budget)
        game = Game.deal(rules, 2, 0, random_deck(rules, rng))
        play_game(game, [timed, NormalBot(random.Random(2))], rng)
        assert timed.spent, "no move was searched"
        assert max(timed.spent) <= budget / 1000 * 1.1
    capped = StrongBot(random.Random(1), budget_ms=10_000, clock=FakeClock(1e-9), simulations=7)
    game = Game.deal(rules, 2, 0, random_deck(rules, random.Random(4)))
    for _ in range(40):
        s = game.attacker if not game.table else game.defender
        assert s is not None
        a0 = capped.choose(game.view(s))
        assert capped.last_simulations <= 7
        if a0 is None or game.result is not None:
            break
        game.apply(a0)


def _self_play(seed: int, opts: dict[str, Any], n: int) -> list[Action]:
    rng = random.Random(seed)
    rules = Rules(**opts)
    game = Game.deal(rules, n, rng.randrange(n), random_deck(rules, rng))
    bots = [make_bot("strong", random.Random(seed * 10 + s), simulations=12) for s in range(n)]
    play_game(game, bots, rng)
    return list(game.log)


def test_the_same_seed_plays_the_same_game() -> None:
    """Budgeted in playouts, a seed decides every decision."""
    for seed, (opts, n) in enumerate([({}, 2), ({"variant": "perevodnoy"}, 3)]):
        assert _self_play(seed, opts, n) == _self_play(seed, opts, n)


class Partners:
    """Wraps a strong bot at a teams table: it never attacks, throws in against, covers for
    or challenges its partner (R-T2)."""

    def __init__(self, bot: StrongBot) -> None:
        self.bot = bot
        self.name = bot.name
        self.acts = 0

    def choose(self, view: PlayerView) -> Action | None:
        a = self.bot.choose(view)
        if a is None:
            return None
        assert view.seat is not None
        me = view.teams[view.seat]
        self.acts += 1
        if a.do is Do.ATTACK:
            assert view.defender is not None and view.teams[view.defender] != me
        if a.do in (Do.COVER, Do.TRANSFER, Do.SHOW, Do.TAKE):
            assert view.seat == view.defender
        if a.do is Do.TRANSFER:
            pass  # the engine passes the bout to the next opponent (R-T2)
        if a.do is Do.CHALLENGE:
            assert a.card is not None
            owners = self.bot.normal.mem.owner
            assert a.card in owners and view.teams[owners[a.card]] != me
        return a


@pytest.mark.parametrize(
    "opts",
    [
        {"teams": "2v2"},
        {"teams": "2v2", "variant": "perevodnoy", "trump_show": True},
        {"teams": "2v2", "cheating": True},
    ],
)
def test_strong_never_plays_against_its_partner(opts: dict[str, Any]) -> None:
    for seed in range(3):
        rng = random.Random(seed)
        rules = Rules(**opts)
        game = Game.deal(rules, 4, rng.randrange(4), random_deck(rules, rng))
        bots = [Partners(strong(seed * 4 + s)) for s in range(4)]
        play_game(game, bots, rng)
        assert game.result is not None
        assert all(b.acts for b in bots)


def test_the_strong_bot_is_a_level() -> None:
    bot = make_bot("strong", random.Random(1), budget_ms=20, simulations=5)
    assert isinstance(bot, StrongBot) and bot.name == "strong" and bot.simulations == 5
    assert make_bot("strong", random.Random(1)).budget_ms == 100


def test_benchmark_match_prints_one_json_object() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, str(ROOT / "benchmarks" / "bots.py"), "--match", "strong", "normal"]
    cmd += ["--games", "2", "--simulations", "4", "--seed", "3", "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["games"] == 2
    assert r["draws"] + r["durak"]["A"] + r["durak"]["B"] == 2
    assert set(r["durak"]) == {"A", "B"}
    for key in ("A", "B"):
        m = r["move_ms"][key]
        for f in ("cpu_mean", "cpu_p99", "wall_mean", "wall_p99"):
            assert m[f] >= 0
        lo, hi = r["durak_rate"][key]["ci95"]
        assert 0 <= lo <= hi <= 1
    assert r["move_ms"]["A"]["budget_ms"] == 100
    bad = subprocess.run(
        [*cmd[:3], "strong", "genius", "--games", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_cards_are_cards() -> None:
    """The sampler deals `Card`s, so that a built world is a real engine position."""
    v = Game.deal(Rules(), 2, 0, random_deck(Rules(), random.Random(2))).view(1)
    sampler = _Sampler.of(v, _Seen())
    assert sampler is not None and all(type(c) is Card for c in sampler.pool)


def test_benchmark_ladder_prints_elo_with_intervals() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, str(ROOT / "benchmarks" / "bots.py"), "--ladder"]
    cmd += ["--levels", "random,greedy,normal", "--ladder-games", "2", "--json"]
    cmd += ["--simulations", "3"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert set(r["tables"]) == {"podkidnoy 2p", "perevodnoy 2p", "podkidnoy 4p"}
    for t in r["tables"].values():
        assert t["elo"]["random"]["elo"] == 1000.0
        for e in t["elo"].values():
            lo, hi = e["ci95"]
            assert lo <= hi
        assert len(t["matches"]) == 3 and all(m["games"] == 2 for m in t["matches"])


class EndgameSpy:
    """A strong bot that notes, at each move with the stock empty, its endgame solver and
    the time the move took on the bot's clock."""

    def __init__(self, bot: StrongBot, clock: FakeClock | None = None) -> None:
        self.bot, self.clock, self.name = bot, clock, bot.name
        self.solvers: list[Any] = []
        self.spent: list[float] = []

    def choose(self, view: PlayerView) -> Action | None:
        start = self.clock.t if self.clock is not None else 0.0
        a = self.bot.choose(view)
        if view.stock_count == 0 and view.seat not in view.out:
            self.solvers.append(self.bot.normal.mem.solver)
            if self.clock is not None:
                self.spent.append(self.clock.t - start)
        return a


def test_the_endgame_search_gets_the_strong_bot_s_budget() -> None:
    """Heads-up with the stock empty, normal's exact endgame search (a few hundred nodes)
    gets strong's budget: in playouts mode a node count that grows with the playouts, with a
    clock a deadline inside the move's budget."""
    rules = Rules()
    spies = []
    for seed in range(3):
        spy = EndgameSpy(strong(seed, sims=60))
        rng = random.Random(seed)
        game = Game.deal(rules, 2, 0, random_deck(rules, rng))
        play_game(game, [spy, NormalBot(random.Random(seed + 9))], rng)
        spies.append(spy)
    solvers = [s for spy in spies for s in spy.solvers if s is not None]
    assert solvers, "no endgame was reached"
    assert all(s.budget == 20 * 60 > NormalBot.SEARCH_NODES for s in solvers)
    for budget in (5, 20):
        clock = FakeClock(0.00002)
        spy = EndgameSpy(StrongBot(random.Random(1), budget_ms=budget, clock=clock), clock)
        rng = random.Random(budget)
        game = Game.deal(rules, 2, 0, random_deck(rules, rng))
        play_game(game, [spy, NormalBot(random.Random(2))], rng)
        assert spy.spent, "no endgame was reached"
        assert max(spy.spent) <= budget / 1000 * 1.1


def test_the_playout_policy_leads_what_the_defender_cannot_beat_in_the_endgame() -> None:
    """With the stock empty a playout's attacker leads, as normal does, the cards of one rank
    the world's defender cannot beat (R-B1: together), not merely its cheapest card."""
    g = position(["7S 6H 6D AS", "8S 9S"], 0, "C", "")
    policy = _Policy(g.view(0), random.Random(1), 0.0)
    a = policy.act(g, 0)
    assert a is not None and a.do is Do.ATTACK
    assert sorted(a.cards) == sorted(parse_cards(["6H", "6D"]))
    g.apply(a)  # the engine takes it: a legal opening
    assert g.defender == 1


class FixedWorldSpy(StrongBot):
    """Records, for each search, whether every card was placed, the playouts and candidates."""

    def __init__(self, seed: int, sims: int) -> None:
        super().__init__(random.Random(seed), simulations=sims)
        self.log: list[tuple[bool, int, int]] = []

    def _search(self, v: PlayerView, cands: Sequence[Action], prior: int) -> Action:
        sampler = _Sampler.of(v, self.seen)
        a = super()._search(v, cands, prior)
        if sampler is not None:
            self.log.append((not sampler.pool, self.last_simulations, len(cands)))
        return a


def test_a_world_with_every_card_placed_is_played_once() -> None:
    """Heads-up at the end every card is placed: every world is the same and the policy is
    fixed, so each candidate is played out once (the time goes to the exact search)."""
    rules = Rules()
    fixed: list[tuple[bool, int, int]] = []
    unknown: list[tuple[bool, int, int]] = []
    for seed in range(6):
        spy = FixedWorldSpy(seed, 40)
        rng = random.Random(seed)
        game = Game.deal(rules, 2, 0, random_deck(rules, rng))
        play_game(game, [spy, NormalBot(random.Random(seed + 9))], rng)
        fixed += [x for x in spy.log if x[0]]
        unknown += [x for x in spy.log if not x[0]]
    assert fixed, "no search with every card placed"
    assert all(sims <= k for _, sims, k in fixed)
    assert any(sims > k for _, sims, k in unknown)


def test_a_playout_solves_a_small_heads_up_ending_exactly() -> None:
    """A playout that reaches a heads-up bout's start with the stock empty and few cards
    takes the exact solver's value (game/endgame.py) instead of the policy's play: here
    the policy would lose a game the attacker wins (three cards against four)."""
    hands = ["TS 6S 9C", "KH JH QS TD"]
    g = position(hands, 0, "C", "")
    plain = _Policy(g.view(0), random.Random(1), 0.0)
    assert plain.playout(g, g.team(0), 600, 0, 0) == 0.0
    g = position(hands, 0, "C", "")
    policy = _Policy(g.view(0), random.Random(1), 0.0)
    policy.solver = Solver(
        trump=g.trump,
        japanese=False,
        first_bout_five=g.rules.first_bout_five,
        last_defender_loses=False,
    )
    policy.solve_cards = StrongBot.PLAYOUT_SOLVE_CARDS
    assert policy.playout(g, g.team(0), 600, 0, 0) == 1.0
    assert policy.playout(position(hands, 0, "C", ""), g.team(1), 600, 1, 0) == 0.0
    assert policy.solver.memo
