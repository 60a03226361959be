"""The two-player endgame solver (endgame.py) on hand-built positions, and the normal bot
keeping every win it claims in real games."""

from __future__ import annotations

import random

from localdurak.game.actions import Action
from localdurak.game.bots import Bot, GreedyBot, NormalBot, RandomBot, play_game
from localdurak.game.cards import mask_of, parse_cards
from localdurak.game.endgame import DRAW, LOSS, WIN, Solver
from localdurak.game.view import PlayerView
from tests.game.test_bots import new_game

CLUBS = 3


def m(text: str) -> int:
    return mask_of(parse_cards(text.split()))


def solver(**kw: bool) -> Solver:
    opts = {"japanese": False, "first_bout_five": True, "last_defender_loses": False}
    opts.update(kw)
    return Solver(trump=CLUBS, budget=100_000, **opts)


def test_R_B13_a_card_he_cannot_beat_wins_at_once() -> None:
    best = solver().best(m("AH"), m("6S 7S"), 0, 0, 0, False, True, True)
    assert best == (WIN, ("open", parse_cards(["AH"])[0], -1))


def test_R_B14_last_card_covered_with_the_last_card_is_a_draw() -> None:
    six, seven = parse_cards(["6S", "7S"])
    # The attacker has opened his last card 6♠; the defender holds only 7♠.
    best = solver().best(0, m("7S"), m("6S"), m("6S"), 1, False, True, False)
    assert best == (DRAW, ("cover", seven, six))
    # tie last_defender_loses: the defender of that bout is the durak either way.
    s = solver(last_defender_loses=True)
    best = s.best(0, m("7S"), m("6S"), m("6S"), 1, False, True, False)
    assert best is not None and best[0] == LOSS


def test_R_B5_the_defender_who_cannot_cover_loses() -> None:
    # He can beat nothing: each lead is taken, and the attacker goes out.
    best = solver().best(m("6D 7D"), m("AS AH"), 0, 0, 0, False, True, True)
    assert best is not None and best[0] == WIN
    # He beats everything and attacks with what is left: the attacker loses.
    best = solver().best(m("6D 7D"), m("8D 9D"), 0, 0, 0, False, True, True)
    assert best is not None and best[0] == LOSS


def test_the_best_move_and_the_reply_agree() -> None:
    # A zero-sum game: after the best move, the defender's best reply is worth the opposite.
    s = solver()
    a, d = m("7S 7H KD"), m("8S 9H AD")
    best = s.best(a, d, 0, 0, 0, False, True, True)
    assert best is not None
    _kind, card, _ = best[1]
    b = 1 << card
    reply = solver().best(a ^ b, d, b, b, 1, False, True, False)
    assert reply is not None and reply[0] == -best[0]


def test_budget_runs_out_cleanly() -> None:
    s = solver()
    s.budget = 5
    a = m("6S 7S 8S 9S TS JS QS KS")
    d = m("6H 7H 8H 9H TH JH QH KH")
    assert s.best(a, d, 0, 0, 0, False, True, True) is None


class Watch:
    """A normal bot, noting whether its solver ever found a forced win."""

    name = "normal"

    def __init__(self, bot: NormalBot) -> None:
        self.bot = bot
        self.won = False

    def choose(self, view: PlayerView) -> Action | None:
        a = self.bot.choose(view)
        self.won = self.won or self.bot.mem.solved == WIN
        return a


def test_normal_keeps_every_endgame_win_it_claims() -> None:
    """Whenever the solver tells the normal bot it has a forced win, it does not lose."""
    claims = 0
    for seed in range(40):
        for variant in ("podkidnoy", "perevodnoy"):
            rng = random.Random(seed)
            game = new_game({"variant": variant}, 2, rng)
            me = seed % 2
            bot = NormalBot(random.Random(seed))
            other = (GreedyBot if seed % 4 < 2 else RandomBot)(random.Random(seed))
            watch = Watch(bot)
            bots: list[Bot] = [other, other]
            bots[me] = watch
            result = play_game(game, bots, rng)
            if watch.won:
                claims += 1
                assert me not in result.durak, f"seed {seed} {variant}: a claimed win lost"
    assert claims > 10
