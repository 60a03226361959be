"""Bots benchmark (docs/bots.md): `normal` against `random`, durak rates and move times.

    python benchmarks/bots.py [--games N] [--json] [--seed S]

Main line: 2,000 two-player games of 36-card podkidnoy, seats alternated; extra lines:
perevodnoy, a 4-player table of two normal and two random bots (alternating seats), and
normal against the greedy baseline (random is too weak to tell strategies apart).  A durak
rate is the share of games in which a seat of that level was the durak.
Target: normal is the durak in at most 8% of the two-player games, and a `choose`
call takes under 5 ms (CPU time; the wall-clock time is printed too, it grows with the load of
a shared machine).  Exit status 1 if the durak-rate target is missed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from localdurak.game.actions import Action
from localdurak.game.bots import Bot, GreedyBot, make_bot, play_game
from localdurak.game.cards import deck_cards
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from localdurak.game.view import PlayerView


@dataclass
class Timed:
    """A bot whose `choose` calls are timed: CPU time of this process (what the bot costs,
    steady on a busy machine) and wall-clock time."""

    bot: Bot
    times: list[float] = field(default_factory=list)
    walls: list[float] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.bot.name

    def choose(self, view: PlayerView) -> Action | None:
        w = time.perf_counter()
        t = time.process_time()
        a = self.bot.choose(view)
        self.times.append(time.process_time() - t)
        self.walls.append(time.perf_counter() - w)
        return a


def new_bot(level: str, rng: random.Random) -> Bot:
    # "greedy" is the textbook baseline, not a level players choose.
    return GreedyBot(rng) if level == "greedy" else make_bot(level, rng)


def run(label: str, rules: Rules, levels: list[str], games: int, seed: int) -> dict[str, Any]:
    """``games`` games with ``levels`` seated in turn-rotated order (seats alternated)."""
    rng = random.Random(seed)
    n = len(levels)
    durak = {lv: 0 for lv in set(levels)}
    draws = 0
    times: dict[str, list[float]] = {lv: [] for lv in set(levels)}
    walls: dict[str, list[float]] = {lv: [] for lv in set(levels)}
    t0 = time.perf_counter()
    for g in range(games):
        shift = g % n
        seat_levels = [levels[(s + shift) % n] for s in range(n)]
        bots = [Timed(new_bot(lv, random.Random(rng.random()))) for lv in seat_levels]
        deck = list(deck_cards(rules.deck))
        rng.shuffle(deck)
        game = Game.deal(rules, n, rng.randrange(n), deck)
        result = play_game(game, bots, rng)
        for s, lv in enumerate(seat_levels):
            times[lv].extend(bots[s].times)
            walls[lv].extend(bots[s].walls)
        if result.draw:
            draws += 1
        for lv in {seat_levels[s] for s in result.durak}:
            durak[lv] += 1
    elapsed = time.perf_counter() - t0
    out: dict[str, Any] = {"label": label, "games": games, "draws": draws, "seconds": elapsed}
    for lv in sorted(durak):
        ts = sorted(times[lv])
        ws = sorted(walls[lv])
        out[lv] = {
            # The share of games in which a seat of this level was the durak.
            "durak_rate": durak[lv] / games,
            "durak": durak[lv],
            "choose_mean_ms": 1000 * sum(ts) / max(1, len(ts)),
            "choose_p99_ms": 1000 * ts[int(0.99 * (len(ts) - 1))] if ts else 0.0,
            "choose_wall_mean_ms": 1000 * sum(ws) / max(1, len(ws)),
            "choose_wall_p99_ms": 1000 * ws[int(0.99 * (len(ws) - 1))] if ws else 0.0,
            "calls": len(ts),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    g = args.games
    lines = [  # the first line is the target
        run("podkidnoy 36, 2 players", Rules(), ["normal", "random"], g, args.seed),
        run(
            "perevodnoy 36, 2 players",
            Rules(variant="perevodnoy"),
            ["normal", "random"],
            max(1, g // 4),
            args.seed + 1,
        ),
        run(
            "podkidnoy 36, 4 players (2 normal, 2 random)",
            Rules(),
            ["normal", "random", "normal", "random"],
            max(1, g // 4),
            args.seed + 2,
        ),
        run(
            "podkidnoy 36, 2 players, against the greedy baseline",
            Rules(),
            ["normal", "greedy"],
            max(1, g // 2),
            args.seed + 3,
        ),
    ]
    if args.json:
        json.dump(lines, sys.stdout, indent=2)
        print()
    else:
        for r in lines:
            print(f"{r['label']}: {r['games']} games in {r['seconds']:.1f} s, {r['draws']} draws")
            for lv in ("normal", "random", "greedy"):
                if lv not in r:
                    continue
                x = r[lv]
                print(
                    f"  {lv:7s} durak {100 * x['durak_rate']:5.1f}%  "
                    f"choose CPU mean {x['choose_mean_ms']:.3f} ms p99 {x['choose_p99_ms']:.3f} ms"
                    f" (wall {x['choose_wall_mean_ms']:.3f} / {x['choose_wall_p99_ms']:.3f} ms)"
                )
    main_rate = lines[0]["normal"]["durak_rate"]
    return 0 if main_rate <= 0.08 else 1


if __name__ == "__main__":
    sys.exit(main())
