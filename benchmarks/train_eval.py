"""Fit the strong bot's position evaluation (docs/bots.md "The strong level, measured"): a logistic
model of "this seat is not the durak" from a few features of a position at the start of a bout.

    python benchmarks/train_eval.py [--games N] [--seed S]

Plays N games (default 3,000: a third each of 2-player podkidnoy, 2-player perevodnoy and a
4-player podkidnoy table) between `normal` bots, records `strong.features` of every seat still
in the game at each bout's start with the game's outcome for it (1 not the durak, 0 the durak,
1/2 a draw), fits the weights by Newton's method (pure Python, a minute or two on one core)
and prints them as the ``EVAL_WEIGHTS`` line of localdurak/game/bots/strong.py, with the
log-loss and accuracy on a held-out fifth of the games.
"""

from __future__ import annotations

import argparse
import math
import random
import sys

from localdurak.game.bots import NormalBot
from localdurak.game.bots.strong import features
from localdurak.game.cards import deck_cards
from localdurak.game.engine import Game
from localdurak.game.rules import Rules, Variant


def games(n: int, seed: int) -> list[list[tuple[list[float], float]]]:
    """Per game, the (features, outcome) rows of its seats at every bout's start."""
    tables = [(Rules(), 2), (Rules(variant=Variant.PEREVODNOY), 2), (Rules(), 4)]
    out = []
    for g in range(n):
        rules, seats = tables[g % 3]
        rng = random.Random(f"{seed}:{g}")
        deck = list(deck_cards(rules.deck))
        rng.shuffle(deck)
        game = Game.deal(rules, seats, rng.randrange(seats), deck)
        bots = [NormalBot(random.Random(rng.random())) for _ in range(seats)]
        rows: list[tuple[int, list[float]]] = []
        bout = -1
        for _ in range(20_000):
            if game.result is not None:
                break
            if game.bout_number != bout and not game.table:
                bout = game.bout_number
                for s in range(seats):
                    if s not in game.out:
                        rows.append((s, features(game, s)))
            answers = [a for s, b in enumerate(bots) if (a := b.choose(game.view(s))) is not None]
            game.apply(rng.choice(answers))
        r = game.result
        if r is None:
            continue
        out.append([(f, 0.5 if r.draw else 0.0 if s in r.durak else 1.0) for s, f in rows])
    return out


def fit(rows: list[tuple[list[float], float]], iters: int = 12) -> list[float]:
    """Logistic regression by Newton's method (with a little ridge for stability)."""
    k = len(rows[0][0])
    w = [0.0] * k
    for _ in range(iters):
        grad = [0.0] * k
        hess = [[1e-3 * (i == j) for j in range(k)] for i in range(k)]
        for x, y in rows:
            z = sum(a * b for a, b in zip(w, x, strict=True))
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            for i in range(k):
                grad[i] += (y - p) * x[i]
                for j in range(k):
                    hess[i][j] += p * (1 - p) * x[i] * x[j]
        step = solve(hess, grad)
        w = [a + b for a, b in zip(w, step, strict=True)]
    return w


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[c][c]:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--games", type=int, default=3000)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    data = games(args.games, args.seed)
    cut = len(data) * 4 // 5
    train = [r for g in data[:cut] for r in g]
    test = [r for g in data[cut:] for r in g]
    w = fit(train)
    loss = acc = 0.0
    for x, y in test:
        z = sum(a * b for a, b in zip(w, x, strict=True))
        q = min(1 - 1e-9, max(1e-9, 1 / (1 + math.exp(-z))))
        loss -= y * math.log(q) + (1 - y) * math.log(1 - q)
        acc += (q > 0.5) == (y > 0.5)
    print(
        f"# {len(train)} training rows, {len(test)} held out: log-loss "
        f"{loss / len(test):.4f}, accuracy {acc / len(test):.3f}",
        file=sys.stderr,
    )
    print("EVAL_WEIGHTS: Final = (" + ", ".join(f"{x:.4f}" for x in w) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
