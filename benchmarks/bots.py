"""Bots benchmark (issue 4, part 7): `normal` against `random`, durak rates and move times.

    python benchmarks/bots.py [--games N] [--json] [--seed S]

Main line: 2,000 two-player games of 36-card podkidnoy, seats alternated; extra lines:
perevodnoy, and a 4-player table of two normal and two random bots (alternating seats).
Target (issue 4): normal is the durak in at most 8% of the two-player games, and a `choose`
call takes under 5 ms.
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
from localdurak.game.bots import Bot, make_bot, play_game
from localdurak.game.cards import deck_cards
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from localdurak.game.view import PlayerView


@dataclass
class Timed:
    """A bot whose `choose` calls are timed."""

    bot: Bot
    times: list[float] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.bot.name

    def choose(self, view: PlayerView) -> Action | None:
        t = time.perf_counter()
        a = self.bot.choose(view)
        self.times.append(time.perf_counter() - t)
        return a


def run(label: str, rules: Rules, levels: list[str], games: int, seed: int) -> dict[str, Any]:
    """``games`` games with ``levels`` seated in turn-rotated order (seats alternated)."""
    rng = random.Random(seed)
    n = len(levels)
    durak = {lv: 0 for lv in set(levels)}
    seats_of = {lv: 0 for lv in set(levels)}
    draws = 0
    times: dict[str, list[float]] = {lv: [] for lv in set(levels)}
    t0 = time.perf_counter()
    for g in range(games):
        shift = g % n
        seat_levels = [levels[(s + shift) % n] for s in range(n)]
        bots = [Timed(make_bot(lv, random.Random(rng.random()))) for lv in seat_levels]
        deck = list(deck_cards(rules.deck))
        rng.shuffle(deck)
        game = Game.deal(rules, n, rng.randrange(n), deck)
        result = play_game(game, bots, rng)
        for s, lv in enumerate(seat_levels):
            seats_of[lv] += 1
            times[lv].extend(bots[s].times)
        if result.draw:
            draws += 1
        for s in result.durak:
            durak[seat_levels[s]] += 1
    elapsed = time.perf_counter() - t0
    out: dict[str, Any] = {"label": label, "games": games, "draws": draws, "seconds": elapsed}
    for lv in sorted(durak):
        ts = sorted(times[lv])
        # Rate per game for the level: how often one of its seats was the durak.
        per_game = durak[lv] / games / max(1, levels.count(lv)) * levels.count(lv)
        out[lv] = {
            "durak_rate": per_game if levels.count(lv) == 1 else durak[lv] / seats_of[lv],
            "durak": durak[lv],
            "choose_mean_ms": 1000 * sum(ts) / max(1, len(ts)),
            "choose_p99_ms": 1000 * ts[int(0.99 * (len(ts) - 1))] if ts else 0.0,
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
    lines = [
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
    ]
    if args.json:
        json.dump(lines, sys.stdout, indent=2)
        print()
    else:
        for r in lines:
            print(f"{r['label']}: {r['games']} games in {r['seconds']:.1f} s, {r['draws']} draws")
            for lv in ("normal", "random"):
                x = r[lv]
                print(
                    f"  {lv:7s} durak {100 * x['durak_rate']:5.1f}%  "
                    f"choose mean {x['choose_mean_ms']:.3f} ms  p99 {x['choose_p99_ms']:.3f} ms"
                )
    main_rate = lines[0]["normal"]["durak_rate"]
    return 0 if main_rate <= 0.08 else 1


if __name__ == "__main__":
    sys.exit(main())
