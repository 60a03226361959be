"""How fast the rules engine plays: full games and actions per second.

    python benchmarks/engine.py [--seconds S] [--seed N] [--json]
    python benchmarks/engine.py --compare REF [--seconds S] [--rounds R] [--json]

Part 1, random legal play, 36 cards, podkidnoy and perevodnoy, 2, 4 and 6 players.  Each step
lists the legal actions of every seat (Durak is not turn-based, so a driver must ask every
seat), picks a seat that has any, uniformly, then one of its actions, uniformly, and applies
it.  The randomness is a seeded `random.Random` passed in, so a run is repeatable.

Part 2, our 2-player podkidnoy beside the PyPI package `durakgame` (1.0.4; the `bench` extra),
whose engine is a 2-player 36-card podkidnoy without transfers, teams, cheating, several
attackers, explicit passes, R-F1 or R-B4c.  Both play "the first listed option": durakgame's
`MrFirst` player (its `MrRandom` enumerates every subset of throw-ins after a take and runs out
of memory), and for us the first legal action of the seat that acts.  Which seat acts: the
defender while an attack card is uncovered (durakgame alternates attack and defence the same
way), otherwise the main attacker, or the other seat if he has no legal action.  Like
durakgame, which lists the options of its current player only, we list the legal actions of
the seat that acts (of both seats when the first has none).  Both engines list card moves
before ending or taking (our `legal_actions` lists attacks and covers before take and pass),
so "first" means the same in both; the games still differ (durakgame's player 1 always opens,
ours follows R-F1; after a take its `MrFirst` throws in nothing, ours throws in what it can),
hence the actions per game printed beside the figures.

Counting actions the same way: for us, one action is one `Game.apply` with the listing of
legal actions before it; for durakgame, one action is one move its `Game.kickoff` loop
processes (one `generateOptions` + one `process`, the same work), counted from its game
history; a `FinishingMove` that throws in k cards after a take counts k + 1 (our k throw-ins
and a pass; under `MrFirst` k is always 0).  durakgame also plays an `EndingMove` where our
engine ends the bout by itself (R-B10: the bout's last card covered, or a defender without
cards); it is counted, which favours durakgame slightly.  Both deal the same seeded decks.

Each measurement runs whole games until its time share is used (50 CPU seconds in all by
default, about a minute with the set-up).  Time is this process's CPU time
(`time.process_time`), so that other programs sharing the machine slow neither side's
figures; the comparison runs interleaved in ten rounds as well.

``--compare REF``: our engine before and after, side by side from one run.  REF (a commit,
a branch) is checked out into a temporary git worktree; two worker processes, one importing
``localdurak`` from REF and one from this tree, play the scenarios above (random play, each
variant and seat count, and 3-player podkidnoy in the cheating mode, whose honest random play
still has the engine copy the bout's state before every card; the first listed option, 2
players) with this script's own code: the
same games (game i of a scenario is seeded by the seed, the scenario and i) in both, chunk by
chunk, in rounds whose order alternates (before, after / after, before), CPU time of the
worker.  The same games must take the same number of actions in both (the engine's behaviour
did not change); a difference is reported.  Printed: actions per second before and after, and
after / before: over all rounds, the median of the rounds' ratios (the figure to read on a
busy machine: a round that a burst of other work hit does not move it), and the lowest and
highest round.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import compare

from localdurak.game.cards import Card, Suit, deck_cards
from localdurak.game.engine import Game
from localdurak.game.rules import Rules, Variant

CONFIGS = [
    (variant, seats) for variant in (Variant.PODKIDNOY, Variant.PEREVODNOY) for seats in (2, 4, 6)
]


def random_game(rules: Rules, seats: int, rng: random.Random) -> int:
    """One game of random legal play; returns the number of actions applied."""
    deck = list(deck_cards(rules.deck))
    rng.shuffle(deck)
    game = Game.deal(rules, seats, rng.randrange(seats), deck)
    actions = 0
    while game.result is None:
        options = [legal for s in range(seats) if (legal := game.legal_actions(s))]
        if not options:
            raise RuntimeError("the game is not over but nobody has a legal action")
        game.apply(rng.choice(rng.choice(options)))
        actions += 1
    return actions


def first_option_game(deck: list[Card], dealer: int) -> int:
    """One 2-player podkidnoy game where the acting seat plays its first listed option."""
    game = Game.deal(Rules(), 2, dealer, deck)
    actions = 0
    while game.result is None:
        attacker = game.attacker or 0
        order = (attacker, 1 - attacker)
        if game.phase == "bout" and any(cover is None for _, cover in game.table):
            order = (1 - attacker, attacker)  # the defender answers an uncovered card first
        for seat in order:
            legal = game.legal_actions(seat)
            if legal:
                break
        else:
            raise RuntimeError("the game is not over but nobody has a legal action")
        game.apply(legal[0])
        actions += 1
    return actions


def durakgame_game(deck: list[Any]) -> int:
    """One durakgame game between two `MrFirst` players; returns its action count."""
    from durakgame import MrFirst
    from durakgame.game import Game as DGame
    from durakgame.move import FinishingMove

    g = DGame(list(deck), MrFirst(), MrFirst())
    g.kickoff()
    moves = [*g.history.p1Moves, *g.history.p2Moves]
    return len(moves) + sum(len(m.cards) for m in moves if isinstance(m, FinishingMove))


def to_durakgame(card: Card) -> Any:
    """Our card as durakgame's (its values run Six..Ace, its suits are named)."""
    from durakgame.primitives import Card as DCard
    from durakgame.primitives import CardValue
    from durakgame.primitives import Suit as DSuit

    suit = {
        Suit.SPADES: DSuit.Spade,
        Suit.HEARTS: DSuit.Heart,
        Suit.DIAMONDS: DSuit.Diamond,
        Suit.CLUBS: DSuit.Cross,
    }[card.suit]
    return DCard(list(CardValue)[card.rank - 6], suit)


def measure(play_one: Callable[[], int], seconds: float) -> dict[str, float]:
    """Play whole games until ``seconds`` have passed; games and actions per second."""
    games = actions = 0
    start = time.process_time()
    while True:
        actions += play_one()
        games += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            break
    return {
        "games": games,
        "actions": actions,
        "seconds": round(elapsed, 3),
        "games_per_s": round(games / elapsed, 1),
        "actions_per_s": round(actions / elapsed),
        "actions_per_game": round(actions / games, 1),
    }


def combine(ms: list[dict[str, float]]) -> dict[str, float]:
    """Several measurements of one thing as one."""
    games = sum(m["games"] for m in ms)
    actions = sum(m["actions"] for m in ms)
    elapsed = sum(m["seconds"] for m in ms)
    return {
        "games": games,
        "actions": actions,
        "seconds": round(elapsed, 3),
        "games_per_s": round(games / elapsed, 1),
        "actions_per_s": round(actions / elapsed),
        "actions_per_game": round(actions / games, 1),
    }


# --- before and after (--compare) ---------------------------------------------------------

SCENARIOS = [f"random-{variant.value}-{seats}" for variant, seats in CONFIGS] + [
    "random-podkidnoy-3-cheating",  # R-S1: the engine keeps the bout's state before each card
    "first-option-2",
]


def scenario_games(scenario: str, seed: int, start: int, games: int) -> Callable[[], int]:
    """Games ``start`` .. ``start + games - 1`` of ``scenario``, one per call, each seeded by
    ``seed``, the scenario and its number (so both engines of a comparison play the same)."""
    numbers = iter(range(start, start + games))
    if scenario == "first-option-2":
        decks = []
        for i in range(start, start + games):
            d = list(deck_cards(36))
            random.Random(f"{seed}-{scenario}-{i}").shuffle(d)
            decks.append(d)
        it = iter(decks)
        return lambda: first_option_game(next(it), 1)
    _, variant, seats, *mode = scenario.split("-")
    rules = Rules(variant=Variant(variant), cheating=mode == ["cheating"])
    n = int(seats)
    return lambda: random_game(rules, n, random.Random(f"{seed}-{scenario}-{next(numbers)}"))


def work(request: dict[str, Any]) -> dict[str, Any]:
    """The worker's answer to one request: play the games, count actions and CPU time."""
    play = scenario_games(request["scenario"], request["seed"], request["start"], request["games"])
    counts = []
    start = time.process_time()
    for _ in range(request["games"]):
        counts.append(play())
    return {"cpu": time.process_time() - start, "counts": counts}


def run_compare(ref: str, seconds: float, rounds: int, seed: int) -> dict[str, Any]:
    """Before (``ref``) and after (this tree), interleaved; the figures per scenario."""
    script = Path(__file__).resolve()
    chunk = seconds / 2 / len(SCENARIOS) / rounds  # CPU seconds per chunk, per tree
    with compare.checkout(ref) as tree:
        before = compare.Worker(script, tree)
        after = compare.Worker(script, compare.ROOT)
        try:
            sizes = {}
            for sc in SCENARIOS:  # how many games make a chunk (game numbers not used later)
                probe = after.ask(scenario=sc, seed=seed, start=-8, games=8)
                sizes[sc] = max(1, round(chunk / (probe["cpu"] / 8)))
            totals = {sc: {"before": [0, 0.0], "after": [0, 0.0]} for sc in SCENARIOS}
            per_round: dict[str, list[float]] = {sc: [] for sc in SCENARIOS}
            differ: dict[str, int] = {sc: 0 for sc in SCENARIOS}
            for r in range(rounds):
                for k, sc in enumerate(SCENARIOS):
                    order = [("before", before), ("after", after)]
                    if (r + k) % 2:
                        order.reverse()
                    got = {}
                    for name, worker in order:
                        got[name] = worker.ask(
                            scenario=sc, seed=seed, start=r * sizes[sc], games=sizes[sc]
                        )
                        totals[sc][name][0] += sum(got[name]["counts"])
                        totals[sc][name][1] += got[name]["cpu"]
                    differ[sc] += sum(
                        a != b
                        for a, b in zip(
                            got["before"]["counts"], got["after"]["counts"], strict=True
                        )
                    )
                    rates = {n: sum(g["counts"]) / g["cpu"] for n, g in got.items()}
                    per_round[sc].append(compare.ratio(rates["after"], rates["before"]))
        finally:
            before.close()
            after.close()
    out: dict[str, Any] = {}
    for sc in SCENARIOS:
        b, a = totals[sc]["before"], totals[sc]["after"]
        rb, ra = b[0] / b[1], a[0] / a[1]
        out[sc] = {
            "games": sizes[sc] * rounds,
            "before_actions_per_s": round(rb),
            "after_actions_per_s": round(ra),
            "ratio": compare.ratio(ra, rb),
            "ratio_median_round": statistics.median(per_round[sc]),
            "ratio_lowest_round": min(per_round[sc]),
            "ratio_highest_round": max(per_round[sc]),
            "games_with_other_action_counts": differ[sc],
        }
    return out


def main_compare(args: argparse.Namespace) -> int:
    figures = run_compare(args.compare, args.seconds, args.rounds, args.seed)
    report = {
        "python": sys.version.split()[0],
        "seed": args.seed,
        "rounds": args.rounds,
        "before": compare.describe(args.compare),
        "after": compare.current(),
        "scenarios": figures,
    }
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"before: {report['before']}")
    print(f"after:  {report['after']}")
    print(f"{args.rounds} rounds, interleaved, CPU time; actions per second:")
    print(
        f"  {'scenario':<28} {'before':>9} {'after':>9}  after/before: all  median  rounds"
        "       games"
    )
    for sc, f in figures.items():
        print(
            f"  {sc:<28} {f['before_actions_per_s']:>9,} {f['after_actions_per_s']:>9,}"
            f"  {f['ratio']:>17.3f}  {f['ratio_median_round']:>6.3f}"
            f"  {f['ratio_lowest_round']:.2f}..{f['ratio_highest_round']:.2f}  {f['games']:>6}"
        )
    bad = {sc: f["games_with_other_action_counts"] for sc, f in figures.items()}
    if any(bad.values()):
        print(f"  the same games took other numbers of actions: {bad}")
        return 1
    print("  every game took the same number of actions in both")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=50.0, help="CPU seconds in all (about)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--compare", metavar="REF", help="before (REF) and after, side by side")
    parser.add_argument("--rounds", type=int, default=20, help="rounds of --compare")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return compare.serve(work)
    if args.compare:
        return main_compare(args)
    share = args.seconds / (len(CONFIGS) + 2)

    random_play: dict[str, Any] = {}
    for variant, seats in CONFIGS:
        rng = random.Random(f"{args.seed}-{variant}-{seats}")
        rules = Rules(variant=variant)
        random_play[f"{variant.value}-{seats}"] = measure(
            lambda rules=rules, seats=seats, rng=rng: random_game(rules, seats, rng), share
        )
        if not args.json:
            _print_row(f"{variant.value}, {seats} players", random_play[f"{variant.value}-{seats}"])

    # The comparison: the same decks in both engines.  durakgame deals alternately from the
    # top, player 1 first, the 13th card is trump; ours deals clockwise from the dealer's
    # left (R-D1), so with dealer 1 seat 0 gets the first card: the same hands and stock.
    deck_rng = random.Random(f"{args.seed}-versus")
    decks = []
    for _ in range(1000):
        d = list(deck_cards(36))
        deck_rng.shuffle(d)
        decks.append(d)
    theirs_decks = [[to_durakgame(c) for c in d] for d in decks]
    ours_i = theirs_i = 0

    def ours() -> int:
        nonlocal ours_i
        ours_i += 1
        return first_option_game(decks[ours_i % len(decks)], 1)

    def theirs() -> int:
        nonlocal theirs_i
        theirs_i += 1
        return durakgame_game(theirs_decks[theirs_i % len(decks)])

    # Interleaved in ten rounds, so that a busy moment of a shared machine hits both alike.
    rounds: dict[str, list[dict[str, float]]] = {"localdurak": [], "durakgame": []}
    for _ in range(10):
        rounds["localdurak"].append(measure(ours, share / 10))
        rounds["durakgame"].append(measure(theirs, share / 10))
    versus: dict[str, Any] = {name: combine(ms) for name, ms in rounds.items()}
    versus["ratio_actions_per_s"] = round(
        versus["localdurak"]["actions_per_s"] / versus["durakgame"]["actions_per_s"], 2
    )
    versus["ratio_games_per_s"] = round(
        versus["localdurak"]["games_per_s"] / versus["durakgame"]["games_per_s"], 2
    )
    report = {
        "python": sys.version.split()[0],
        "seed": args.seed,
        "random_play": random_play,
        "versus_durakgame": versus,
    }
    if args.json:
        print(json.dumps(report))
        return 0
    print()
    print("2-player podkidnoy, 36 cards, first listed option on both sides:")
    _print_row("localdurak", versus["localdurak"])
    _print_row("durakgame 1.0.4", versus["durakgame"])
    print(
        f"  ratio localdurak / durakgame: actions/s {versus['ratio_actions_per_s']}, "
        f"games/s {versus['ratio_games_per_s']}"
    )
    return 0


def _print_row(label: str, m: dict[str, float]) -> None:
    print(
        f"  {label:<24} {m['games_per_s']:>9.1f} games/s {m['actions_per_s']:>9,.0f} actions/s"
        f"  ({m['actions_per_game']:.0f} actions/game, {m['games']:.0f} games)"
    )


if __name__ == "__main__":
    raise SystemExit(main())
