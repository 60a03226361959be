"""Bots benchmark (docs/bots.md): seeded matches between levels, and the bot ladder.

    python benchmarks/bots.py --match A B --games N [--budget-ms MS] [--simulations N]
        [--variant V] [--seats N] [--rules JSON] [--seed S] [--jobs J] [--clock wall|cpu] --json
    python benchmarks/bots.py --ladder [--ladder-games N] [--jobs J] [--json]
    python benchmarks/bots.py [--games N] [--json]       # the baseline lines (normal vs random)

A level is ``random``, ``greedy`` (the textbook baseline), ``normal``, ``strong`` (at
``--budget-ms``, default 100) or ``strong@MS`` (at MS ms a move).  ``--simulations N`` budgets
`strong` in playouts instead of time, so that a seed decides every game.

**--match A B** plays N games: at N seats (default 2) the levels sit A B A B ..., rotated by one
seat each game, so that each level has each seat equally often; game g deals the deck of
``random.Random(f"{seed}:{g}")``, so a game is the same whatever ``--jobs`` runs it.  The last
line is one JSON object: ``games``, ``draws``, ``durak`` (per level: the games in which a seat
of that level was the durak), ``durak_rate`` among decided games with its 95% Wilson interval,
and per level the time of a ``choose`` call: CPU and wall, mean and p99 (ms), and for
``strong`` its budget and the share of calls over budget + 10%.

**--ladder** plays every pair of random, greedy, normal and strong at 20, 100 and 500 ms in
2-player podkidnoy, 2-player perevodnoy and at a 4-player podkidnoy table (two of each), and
prints Elo ratings with 95% intervals (random anchored at 1000; maximum likelihood over the
pairwise scores, a game won by the level whose seats were not the durak; intervals from 200
bootstrap resamples of the games).  ``--ladder-games N`` games per pair and table (default
20; a strong-500 game is the slow one, about 15 s).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, cast

from localdurak.game.actions import Action
from localdurak.game.bots import Bot, GreedyBot, StrongBot, make_bot, play_game
from localdurak.game.cards import deck_cards
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from localdurak.game.view import PlayerView

LADDER_LEVELS = ("random", "greedy", "normal", "strong@20", "strong@100", "strong@500")
LADDER_TABLES: dict[str, tuple[dict[str, Any], int]] = {
    "podkidnoy 2p": ({}, 2),
    "perevodnoy 2p": ({"variant": "perevodnoy"}, 2),
    "podkidnoy 4p": ({}, 4),
}


@dataclass
class Timed:
    """A bot whose `choose` calls are timed: CPU time of this process (what the bot costs,
    steady on a busy machine) and wall-clock time."""

    bot: Bot
    times: list[float] = field(default_factory=list)
    walls: list[float] = field(default_factory=list)
    sims: list[float] = field(default_factory=list)
    """Playouts of each searched move (strong)."""

    @property
    def name(self) -> str:
        return self.bot.name

    def choose(self, view: PlayerView) -> Action | None:
        w = time.perf_counter()
        t = time.process_time()
        a = self.bot.choose(view)
        self.times.append(time.process_time() - t)
        self.walls.append(time.perf_counter() - w)
        n = getattr(self.bot, "last_simulations", 0)
        if n:
            self.sims.append(n)
        return a


@dataclass(frozen=True)
class Spec:
    """How the bots of a match are made."""

    budget_ms: float = 100
    simulations: int | None = None
    clock: str = "wall"


def budget_of(level: str, spec: Spec) -> float | None:
    if not level.startswith("strong"):
        return None
    _, _, ms = level.partition("@")
    return float(ms) if ms else spec.budget_ms


def new_bot(level: str, rng: random.Random, spec: Spec) -> Bot:
    # "greedy" is the textbook baseline, not a level players choose.
    if level == "greedy":
        return GreedyBot(rng)
    budget = budget_of(level, spec)
    if budget is not None:
        if spec.simulations is not None:
            return StrongBot(rng, budget_ms=budget, simulations=spec.simulations)
        clock = time.process_time if spec.clock == "cpu" else time.perf_counter
        return StrongBot(rng, budget_ms=budget, clock=clock)
    return make_bot(level, rng)


def one_game(
    args: tuple[dict[str, Any], list[str], int, int, Spec],
) -> tuple[list[str], bool, list[int], dict[str, list[float]], dict[str, list[float]]]:
    """Game ``g`` of a match: the seats' levels, draw?, the durak seats, and move times."""
    rules_d, levels, seed, g, spec = args
    rules = Rules.from_dict(rules_d) if rules_d else Rules()
    n = len(levels)
    rng = random.Random(f"{seed}:{g}")
    shift = g % n
    seat_levels = [levels[(s + shift) % n] for s in range(n)]
    bots = [Timed(new_bot(lv, random.Random(rng.random()), spec)) for lv in seat_levels]
    deck = list(deck_cards(rules.deck))
    rng.shuffle(deck)
    game = Game.deal(rules, n, rng.randrange(n), deck)
    result = play_game(game, cast(list[Bot], bots), rng)
    times: dict[str, list[float]] = {}
    walls: dict[str, list[float]] = {}
    for s, lv in enumerate(seat_levels):
        times.setdefault(lv, []).extend(bots[s].times)
        walls.setdefault(lv, []).extend(bots[s].walls)
        walls.setdefault(lv + "#sims", []).extend(bots[s].sims)
    return seat_levels, result.draw, list(result.durak), times, walls


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion k/n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def p99(xs: list[float]) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, math.ceil(0.99 * len(s)) - 1)]


def match(
    a: str,
    b: str,
    games: int,
    *,
    rules: dict[str, Any] | None = None,
    seats: int = 2,
    seed: int = 1,
    jobs: int = 1,
    spec: Spec | None = None,
    outcomes: list[tuple[float, float]] | None = None,
    progress: int = 0,
) -> dict[str, Any]:
    """A seeded match of ``games`` games, A and B alternating seats (see the module doc)."""
    spec = spec or Spec()
    levels = [a if s % 2 == 0 else b for s in range(seats)]
    work = [(rules or {}, levels, seed, g, spec) for g in range(games)]
    t0 = time.perf_counter()
    results = []
    tally = {a: 0, b: 0, "draws": 0}

    def note(r: tuple[list[str], bool, list[int], Any, Any]) -> None:
        # A running tally on stderr (a long run stopped early still tells what it played).
        results.append(r)
        tally["draws"] += r[1]
        for lv in {r[0][s] for s in r[2]}:
            tally[lv] += 1
        if progress and len(results) % progress == 0:
            print(f"# {len(results)} games: durak {tally}", file=sys.stderr, flush=True)

    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            for r in pool.map(one_game, work, chunksize=1):
                note(r)
    else:
        for w in work:
            note(one_game(w))
    elapsed = time.perf_counter() - t0
    durak = {a: 0, b: 0}
    draws = 0
    times: dict[str, list[float]] = {a: [], b: []}
    walls: dict[str, list[float]] = {a: [], b: []}
    sims: dict[str, list[float]] = {}
    for seat_levels, draw, duraks, ts, ws in results:
        if draw:
            draws += 1
            if outcomes is not None:
                outcomes.append((0.5, 0.5))
        lost = {seat_levels[s] for s in duraks}
        for lv in lost:
            durak[lv] += 1
        if outcomes is not None and not draw:
            outcomes.append((0.0 if a in lost else 1.0, 0.0 if b in lost else 1.0))
        for lv in ts:
            times[lv].extend(ts[lv])
            walls[lv].extend(ws[lv])
            sims.setdefault(lv, []).extend(ws.get(lv + "#sims", []))
    decided = games - draws
    out: dict[str, Any] = {
        "A": a,
        "B": b,
        "rules": rules or {},
        "seats": seats,
        "seed": seed,
        "games": games,
        "draws": draws,
        "decided": decided,
        "durak": {"A": durak[a], "B": durak[b]} if a != b else {"A": durak[a], "B": durak[a]},
        "durak_rate": {},
        "move_ms": {},
        "seconds": round(elapsed, 1),
    }
    for key, lv in (("A", a), ("B", b)):
        k = durak[lv]
        lo, hi = wilson(k, decided)
        out["durak_rate"][key] = {
            "rate": k / decided if decided else 0.0,
            "ci95": [round(lo, 4), round(hi, 4)],
        }
        tl, wl = times[lv], walls[lv]
        m: dict[str, Any] = {
            "level": lv,
            "calls": len(tl),
            "cpu_mean": 1000 * sum(tl) / max(1, len(tl)),
            "cpu_p99": 1000 * p99(tl),
            "wall_mean": 1000 * sum(wl) / max(1, len(wl)),
            "wall_p99": 1000 * p99(wl),
        }
        budget = budget_of(lv, spec)
        if budget is not None:
            m["budget_ms"] = budget
            m["simulations"] = spec.simulations
            m["clock"] = "simulations" if spec.simulations is not None else spec.clock
            over = sum(1 for w in wl if w > 1.1 * budget / 1000)
            m["over_budget_share"] = over / max(1, len(wl))
            ns = sims.get(lv, [])
            m["searched_moves"] = len(ns)
            m["playouts_mean"] = sum(ns) / max(1, len(ns))
        out["move_ms"][key] = {
            k2: round(v, 3) if isinstance(v, float) else v for k2, v in m.items()
        }
    return out


# --- the ladder ----------------------------------------------------------------------------


def elo_fit(
    levels: Sequence[str], pairs: dict[tuple[str, str], list[tuple[float, float]]]
) -> dict[str, float]:
    """Maximum-likelihood Elo ratings (random at 1000) from per-game scores of each pair."""
    idx = {lv: i for i, lv in enumerate(levels)}
    r = [0.0] * len(levels)
    agg: list[tuple[int, int, float, int]] = []
    for (a, b), games in pairs.items():
        sa = sum(x for x, _ in games)
        sb = sum(y for _, y in games)
        tot = sa + sb
        if tot:
            agg.append((idx[a], idx[b], sa / tot * len(games), len(games)))
    for _ in range(2000):  # gradient ascent on the log-likelihood, in Elo points
        grad = [0.0] * len(levels)
        for i, j, s, n in agg:
            e = 1 / (1 + 10 ** ((r[j] - r[i]) / 400))
            grad[i] += s - n * e
            grad[j] -= s - n * e
        for i in range(len(levels)):
            # a little pull towards 0 keeps a level that never lost finite
            r[i] += 8 * (grad[i] - 0.001 * r[i]) / max(1, sum(n for *_, n in agg))
        r = [x - r[0] for x in r]
    return {lv: round(1000 + r[idx[lv]], 1) for lv in levels}


def ladder(
    games: int, seed: int, jobs: int, spec: Spec, levels: Sequence[str] = LADDER_LEVELS
) -> dict[str, Any]:
    out: dict[str, Any] = {"levels": list(levels), "games_per_pair": games, "tables": {}}
    t0 = time.perf_counter()
    for name, (rules, seats) in LADDER_TABLES.items():
        pairs: dict[tuple[str, str], list[tuple[float, float]]] = {}
        matches = []
        for a, b in itertools.combinations(levels, 2):
            res: list[tuple[float, float]] = []
            m = match(
                a, b, games, rules=rules, seats=seats, seed=seed, jobs=jobs, spec=spec, outcomes=res
            )
            pairs[(a, b)] = res
            matches.append(m)
            print(
                f"# {name}: {a} vs {b}: durak {m['durak']} draws {m['draws']} ({m['seconds']} s)",
                file=sys.stderr,
                flush=True,
            )
        elo = elo_fit(levels, pairs)
        brng = random.Random(seed)
        boots: dict[str, list[float]] = {lv: [] for lv in levels}
        for _ in range(200):
            resampled = {k: [v[brng.randrange(len(v))] for _ in v] for k, v in pairs.items() if v}
            for lv, x in elo_fit(levels, resampled).items():
                boots[lv].append(x)
        table: dict[str, Any] = {}
        for lv in levels:
            bs = sorted(boots[lv])
            table[lv] = {
                "elo": elo[lv],
                "ci95": [bs[int(0.025 * len(bs))], bs[int(0.975 * len(bs)) - 1]],
            }
        out["tables"][name] = {"elo": table, "matches": matches}
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


# --- the baseline lines -------------------------------------------------------------------


def baseline(games: int, seed: int) -> list[dict[str, Any]]:
    """normal against random (podkidnoy, perevodnoy, a 4-player table) and against greedy."""
    return [
        match("normal", "random", games, seed=seed),
        match(
            "normal", "random", max(1, games // 4), rules={"variant": "perevodnoy"}, seed=seed + 1
        ),
        match("normal", "random", max(1, games // 4), seats=4, seed=seed + 2),
        match("normal", "greedy", max(1, games // 2), seed=seed + 3),
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--match", nargs=2, metavar=("A", "B"))
    p.add_argument("--ladder", action="store_true")
    p.add_argument("--games", type=int, default=None)
    p.add_argument("--ladder-games", type=int, default=20)
    p.add_argument("--levels", default=None, help="the ladder's levels, comma-separated")
    p.add_argument("--budget-ms", type=float, default=100)
    p.add_argument("--simulations", type=int, default=None)
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    p.add_argument("--variant", default=None)
    p.add_argument("--rules", default=None, help="more table options, as JSON (rules.md O)")
    p.add_argument("--seats", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--json", action="store_true")
    p.add_argument("--progress", type=int, default=0, metavar="K", help="a tally every K games")
    args = p.parse_args(argv)
    spec = Spec(args.budget_ms, args.simulations, args.clock)
    rules: dict[str, Any] = json.loads(args.rules) if args.rules else {}
    if args.variant:
        rules["variant"] = args.variant
    try:
        Rules.from_dict(rules).check_seats(args.seats)
        for lv in [*(args.match or ()), *(args.levels.split(",") if args.levels else ())]:
            if lv.partition("@")[0] not in ("random", "greedy", "normal", "strong"):
                raise ValueError(f"unknown level {lv!r}")
    except ValueError as e:
        print(f"bots.py: {e}", file=sys.stderr)
        return 2
    if args.match:
        a, b = args.match
        r = match(
            a,
            b,
            args.games or 100,
            progress=args.progress,
            rules=rules,
            seats=args.seats,
            seed=args.seed,
            jobs=args.jobs,
            spec=spec,
        )
        if not args.json:
            for key in ("A", "B"):
                x, t = r["durak_rate"][key], r["move_ms"][key]
                print(
                    f"{r[key]:11s} durak {r['durak'][key]:5d} ({100 * x['rate']:.1f}% of decided,"
                    f" 95% {100 * x['ci95'][0]:.1f}-{100 * x['ci95'][1]:.1f}%)  move CPU "
                    f"{t['cpu_mean']:.2f}/{t['cpu_p99']:.2f} ms, wall {t['wall_mean']:.2f}/"
                    f"{t['wall_p99']:.2f} ms (mean/p99)"
                )
            print(f"{r['games']} games, {r['draws']} draws, {r['seconds']} s")
        print(json.dumps(r))
        return 0
    if args.ladder:
        levels = args.levels.split(",") if args.levels else list(LADDER_LEVELS)
        r = ladder(args.ladder_games, args.seed, args.jobs, spec, levels)
        if not args.json:
            for name, t in r["tables"].items():
                print(name)
                for lv, ent in t["elo"].items():
                    print(
                        f"  {lv:11s} Elo {ent['elo']:7.1f}"
                        f"  (95% {ent['ci95'][0]:.0f}..{ent['ci95'][1]:.0f})"
                    )
            print(f"{r['seconds']} s")
        print(json.dumps(r))
        return 0
    lines = baseline(args.games or 2000, args.seed)
    if args.json:
        print(json.dumps(lines))
    else:
        for r in lines:
            x = r["move_ms"]["A"]
            print(
                f"{r['A']} vs {r['B']} {r['rules'] or ''} {r['seats']} seats: "
                f"{r['games']} games, "
                f"{r['draws']} draws, durak {r['durak']}; normal choose CPU mean "
                f"{x['cpu_mean']:.3f} ms p99 {x['cpu_p99']:.3f} ms (wall {x['wall_mean']:.3f} / "
                f"{x['wall_p99']:.3f} ms)"
            )
    main_rate = lines[0]["durak"]["A"] / max(1, lines[0]["games"])
    return 0 if main_rate <= 0.08 else 1


if __name__ == "__main__":
    sys.exit(main())
