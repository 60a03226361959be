"""Write the golden records of tests/golden/ (run from the repository root):

    python tests/golden/generate.py            # rewrite every generated golden
    python tests/golden/generate.py NAME ...   # only these

Each scenario deals seeded random decks and plays seeded random legal games until one shows
what the scenario is about (a transfer, a draw, pogony ...), then writes NAME.record.json and
NAME.steps.jsonl: the `localdurak replay --json` object after 0, 1, 2 ... actions, one per line.
Some scenarios end with an action the rules refuse (``ok: false``).

These files only pin what our engine does; tests/game/test_golden.py checks key positions of
several of them against rules.md by hand, and the hand-written records (``hand-*.record.json``,
not written by this script) have literal expectations there too.  The steps of a hand-written
record are (re)written by ``--steps NAME``.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from localdurak.game.actions import Action, Do
from localdurak.game.cards import deck_cards
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from localdurak.protocol.records import Record, parse_record, replay, replay_steps

HERE = Path(__file__).resolve().parent


@dataclass
class Scenario:
    name: str
    rules: dict[str, Any]
    seats: int
    want: Callable[[Record, dict[str, Any]], bool] = lambda r, final: True
    cheat: float = 0.0
    """In cheating mode: how often a player tries a cheat instead of a listed action."""
    previous: dict[str, Any] | None = None
    refuse: Callable[[Record, Game], Action | None] | None = None
    """Cut the game where this returns an action the rules refuse, and end with it."""
    names: list[str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def played(record: Record, do: Do) -> int:
    return sum(a.do is do for a in record.actions)


def ended(final: dict[str, Any]) -> bool:
    return final["ok"] and final["result"] is not None


def challenges_both_ways(record: Record, final: dict[str, Any]) -> bool:
    """A cheat caught and an honest card challenged: check by replaying."""
    if not ended(final):
        return False
    game = Game.deal(record.rules, record.seats, record.dealer, record.deck)
    caught = false = 0
    for a in record.actions:
        marked = set(game.marked)
        game.apply(a)
        new = set(game.marked) - marked
        if a.do is Do.CHALLENGE and new:
            if new == {a.seat}:
                false += 1
            else:
                caught += 1
    return caught >= 1 and false >= 1


def last_bout_both_out(record: Record, final: dict[str, Any]) -> bool:
    """R-B14 tie: the last players ran out in the same bout (a durak named by the tie rule)."""
    if not ended(final):
        return False
    result = final["result"]
    holding = [s for s in range(record.seats) if final["state"]["hands"][s]]
    return not result["draw"] and not holding


def partial_defence(record: Record, final: dict[str, Any]) -> bool:
    """R-P5: a bout where the defender covered some cards (discarded) and took the others."""
    if not ended(final):
        return False
    game = Game.deal(record.rules, record.seats, record.dealer, record.deck)
    for a in record.actions:
        table, discard = game.table, game.discard_count
        game.apply(a)
        covered = [x for x, c in table if c is not None]
        if a.do is Do.TAKE and covered and game.discard_count > discard:
            return True
    return False


def illegal_throw_in(record: Record, game: Game) -> Action | None:
    """An attacker throwing in a rank that is not on the table (R-B3)."""
    if not game.table or game.phase == "over" or len(record.actions) < 30:
        return None
    on_table = {c.rank for pair in game.table for c in pair if c is not None}
    for seat in game.attackers:
        for card in game.hand(seat):
            if card.rank not in on_table:
                return Action.attack(seat, card)
    return None


def out_of_turn_lead(record: Record, game: Game) -> Action | None:
    """Somebody but the main attacker opening a bout (R-B1)."""
    if game.table or game.phase == "over" or len(record.actions) < 20:
        return None
    for seat in range(record.seats):
        if seat != game.attacker and seat != game.defender and game.hand(seat):
            return Action.attack(seat, game.hand(seat)[0])
    return None


def cover_too_low(record: Record, game: Game) -> Action | None:
    """A cover that does not beat (R-B5)."""
    d = game.defender
    if d is None or game.phase != "bout" or len(record.actions) < 30:
        return None
    for attack, cover in game.table:
        if cover is None:
            for card in game.hand(d):
                a = Action.cover(d, card, attack)
                if not game.can_apply(a):
                    return a
    return None


SCENARIOS = [
    Scenario("podkidnoy-2p-36", {}, 2, names=["Ann", "Bob"]),
    Scenario("podkidnoy-3p-36", {}, 3),
    Scenario("podkidnoy-4p-36", {}, 4),
    Scenario("podkidnoy-6p-36", {}, 6),
    Scenario("podkidnoy-2p-24", {"deck": 24}, 2),
    Scenario("podkidnoy-4p-24-no-stock", {"deck": 24}, 4),
    Scenario("podkidnoy-2p-52", {"deck": 52}, 2),
    Scenario("podkidnoy-5p-neighbours", {"throw_in": "neighbours"}, 5),
    Scenario("podkidnoy-3p-first-word", {"throw_in_order": "first_word"}, 3),
    Scenario("podkidnoy-2p-hand5-six-first", {"hand_size": 5, "first_bout_five": False}, 2),
    Scenario(
        "perevodnoy-3p-trump-show",
        {"variant": "perevodnoy", "trump_show": True},
        3,
        want=lambda r, f: ended(f) and played(r, Do.TRANSFER) >= 2 and played(r, Do.SHOW) >= 1,
    ),
    Scenario(
        "perevodnoy-2p",
        {"variant": "perevodnoy"},
        2,
        want=lambda r, f: ended(f) and played(r, Do.TRANSFER) >= 2,
    ),
    Scenario(
        "perevodnoy-4p-no-first-transfer",
        {"variant": "perevodnoy", "transfer_first_bout": False},
        4,
        want=lambda r, f: ended(f) and played(r, Do.TRANSFER) >= 1,
    ),
    Scenario("teams-2v2", {"teams": "2v2"}, 4),
    Scenario("teams-3v3", {"teams": "3v3"}, 6),
    Scenario("teams-pairs", {"teams": "pairs"}, 6),
    Scenario(
        "teams-2v2-perevodnoy",
        {"variant": "perevodnoy", "teams": "2v2"},
        4,
        want=lambda r, f: ended(f) and played(r, Do.TRANSFER) >= 1,
    ),
    Scenario("cheating-3p", {"cheating": True}, 3, want=challenges_both_ways, cheat=0.08),
    Scenario("cheating-2p", {"cheating": True}, 2, want=challenges_both_ways, cheat=0.08),
    Scenario("japanese-2p", {"japanese": True}, 2),
    Scenario("japanese-4p-24", {"japanese": True, "deck": 24}, 4),
    Scenario("duren-2p-pairs", {"variant": "duren"}, 2),
    Scenario("duren-4p-pairs", {"variant": "duren"}, 4),
    Scenario("duren-3p-odd", {"variant": "duren", "duren_leads": "odd"}, 3),
    Scenario(
        "duren-3p-partial",
        {"variant": "duren", "partial_defence": True},
        3,
        want=partial_defence,
    ),
    Scenario(
        "tie-last-defender-loses",
        {"tie": "last_defender_loses", "deck": 24},
        2,
        want=last_bout_both_out,
    ),
    Scenario("draw", {"deck": 24}, 2, want=lambda r, f: ended(f) and f["result"]["draw"]),
    Scenario("pogony", {}, 3, want=lambda r, f: ended(f) and f["result"]["pogony"] >= 2),
    Scenario(
        "series-at-durak",
        {},
        4,
        previous={"durak": [2], "draw": False, "pogony": 0},
    ),
    Scenario(
        "series-from-durak",
        {"next_first_attack": "from_durak", "teams": "2v2"},
        4,
        previous={"durak": [1, 3], "draw": False, "pogony": 1},
    ),
    Scenario("refused-throw-in", {}, 3, refuse=illegal_throw_in),
    Scenario("refused-lead", {"variant": "perevodnoy"}, 4, refuse=out_of_turn_lead),
    Scenario("refused-cover", {"deck": 52}, 2, refuse=cover_too_low),
]


def play_one(sc: Scenario, rng: random.Random, previous: Any) -> Record:
    rules = Rules.from_dict(sc.rules)
    deck = list(deck_cards(rules.deck))
    rng.shuffle(deck)
    # R-D5: in a later game the previous durak deals.
    dealer = Game.series_dealer(previous, rng.randrange(sc.seats))
    record = Record(rules, sc.seats, dealer, tuple(deck), names=_names(sc), previous=previous)
    game = Game.deal(rules, sc.seats, dealer, deck, previous=previous)
    while game.result is None:
        if sc.refuse is not None:
            bad = sc.refuse(record, game)
            if bad is not None:
                return record.with_action(bad)
        action = choose(game, sc, rng)
        game.apply(action)
        record = record.with_action(action)
        if len(record.actions) > 2000:
            raise RuntimeError(f"{sc.name}: a game of more than 2000 actions")
    return record


def _names(sc: Scenario) -> tuple[str, ...] | None:
    return None if sc.names is None else tuple(sc.names)


def choose(game: Game, sc: Scenario, rng: random.Random) -> Action:
    """Random play that looks like play: mostly cards, sometimes take or pass."""
    options = {s: legal for s in range(game.seats) if (legal := game.legal_actions(s))}
    seat = rng.choice(sorted(options))
    legal = options[seat]
    if sc.cheat and rng.random() < sc.cheat:
        cheat = try_cheat(game, seat, rng)
        if cheat is not None:
            return cheat
    plays = [a for a in legal if a.do not in (Do.TAKE, Do.PASS, Do.CHALLENGE)]
    rest = [a for a in legal if a.do in (Do.TAKE, Do.PASS)]
    challenges = [a for a in legal if a.do is Do.CHALLENGE]
    if challenges and rng.random() < 0.1:
        return rng.choice(challenges)
    # The defender mostly covers (or transfers) when he can; attackers throw in now and then.
    eager = 0.85 if seat == game.defender else 0.35
    if plays and (not rest or rng.random() < eager):
        return rng.choice(plays)
    return rng.choice(rest or legal)


def try_cheat(game: Game, seat: int, rng: random.Random) -> Action | None:
    """A card that does not follow the rules (R-S1), if the engine takes it."""
    hand = game.hand(seat)
    if not hand or not game.table:
        return None
    card = rng.choice(hand)
    if seat == game.defender and game.phase == "bout":
        open_ = [a for a, c in game.table if c is None]
        if not open_:
            return None
        a = Action.cover(seat, card, rng.choice(open_))
    else:
        a = Action.attack(seat, card)
    legal = game.legal_actions(seat)
    return a if a not in legal and game.can_apply(a) else None


def generate(sc: Scenario) -> Record:
    rng = random.Random(f"golden-{sc.name}")
    previous = None
    if sc.previous is not None:
        from localdurak.game.actions import GameResult

        previous = GameResult.from_dict(sc.previous)
    for _ in range(5000):
        record = play_one(sc, rng, previous)
        final = replay(record)
        if sc.refuse is not None:
            if not final["ok"]:
                return record
            continue
        if ended(final) and sc.want(record, final):
            return record
    raise RuntimeError(f"{sc.name}: no game found")


def write(name: str, record: Record) -> None:
    (HERE / f"{name}.record.json").write_text(record.to_json(), encoding="utf-8")
    write_steps(name, record)


def write_steps(name: str, record: Record) -> None:
    lines = [json.dumps(s, ensure_ascii=False, separators=(",", ":")) for s in replay_steps(record)]
    (HERE / f"{name}.steps.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--steps"]:
        for name in argv[1:]:
            record = parse_record((HERE / f"{name}.record.json").read_text(encoding="utf-8"))
            write_steps(name, record)
        return 0
    chosen = [sc for sc in SCENARIOS if not argv or sc.name in argv]
    for sc in chosen:
        record = generate(sc)
        write(sc.name, record)
        final = replay(record)
        print(f"{sc.name}: {len(record.actions)} actions, ok={final['ok']}, {final['result']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
