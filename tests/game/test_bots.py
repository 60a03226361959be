"""Bots (docs/bots.md): legal play from the view alone, games that end, `normal` stronger
than `random`, and the play of `normal` in chosen positions.

Seeded loops, not Hypothesis: a bot game is a random process already, and a seed makes a
failing game replayable (``play(opts, n, levels, seed)``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from localdurak.game.actions import Action, Do, GameResult
from localdurak.game.bots import (
    BOT_LEVELS,
    Bot,
    BotStall,
    GreedyBot,
    NormalBot,
    RandomBot,
    make_bot,
    play_game,
)
from localdurak.game.cards import Card, deck_cards, mask_of, parse_cards
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from localdurak.game.view import PlayerView
from tests.game.test_engine_random import CASES
from tests.support.engine_helpers import position, random_deck

C = Card.parse


class Checked:
    """Wraps a bot: every answer must be in ``view.legal``, or a cheat the engine accepts
    (cheating mode, an unmarked seat); counts cheats and challenges."""

    def __init__(self, bot: Bot, game: Game) -> None:
        self.bot = bot
        self.game = game
        self.name = bot.name
        self.cheats = 0
        self.challenges: list[Action] = []

    def choose(self, view: PlayerView) -> Action | None:
        a = self.bot.choose(view)
        if a is None:
            return None
        assert a.seat == view.seat
        if a.do is Do.CHALLENGE:
            self.challenges.append(a)
        if a not in view.legal and not several_of_one_rank(a, view):
            assert view.rules.cheating, f"{self.name} played {a}, not in {view.legal}"
            assert view.seat not in view.marked, f"marked seat cheats: {a}"
            assert a.do in (Do.ATTACK, Do.COVER, Do.TRANSFER), a
            self.game.check(a)  # a deliberate cheat still obeys R-B4 and R-S1's own card
            self.cheats += 1
        return a


def several_of_one_rank(a: Action, view: PlayerView) -> bool:
    """records.md lists single attack cards; several of one rank may go together (R-B1)."""
    return (
        a.do is Do.ATTACK
        and len(a.cards) > 1
        and view.rules.variant != "duren"
        and len({c.rank for c in a.cards}) == 1
        and all(Action.attack(a.seat, c) in view.legal for c in a.cards)
    )


def new_game(opts: dict[str, Any], n: int, rng: random.Random) -> Game:
    rules = Rules(**opts)
    return Game.deal(rules, n, rng.randrange(n), random_deck(rules, rng))


def play(
    opts: dict[str, Any],
    n: int,
    levels: Sequence[str],
    seed: int,
    challenges: list[tuple[int, bool]] | None = None,
) -> tuple[Game, list[Checked], GameResult]:
    """One seeded game; seat s plays ``levels[s % len(levels)]``.  After each challenge
    ``challenges`` (if given) notes (challenger, whether the card was a cheat)."""
    rng = random.Random(seed)
    game = new_game(opts, n, rng)
    bots = [
        Checked(make_bot(levels[s % len(levels)], random.Random(seed * 7 + s)), game)
        for s in range(n)
    ]
    outcomes: list[tuple[int, bool]] = [] if challenges is None else challenges

    def note(a: Action) -> None:
        if a.do is Do.CHALLENGE:
            # R-S3: a cheat goes back to its hand; R-S4: a legal card stays on the table.
            outcomes.append((a.seat, all(a.card not in pair for pair in game.table)))

    result = play_game(game, bots, rng, on_action=note)
    return game, bots, result


def test_levels_and_make_bot() -> None:
    assert BOT_LEVELS == ("random", "normal", "strong")
    for level in BOT_LEVELS:
        bot = make_bot(level, random.Random(1))
        assert bot.name == level
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("genius", random.Random(1))


@pytest.mark.parametrize(("opts", "n"), CASES, ids=[f"{o}-{n}" for o, n in CASES])
def test_bot_actions_are_legal_or_deliberate_cheats_and_games_end(
    opts: dict[str, Any], n: int
) -> None:
    """Every variant and option mix: every answer is legal (or an accepted cheat) and the
    game ends with a result, between normal bots, random bots and a mix."""
    for seed, levels in enumerate((["normal"], ["random"], ["normal", "random"])):
        game, _bots, result = play(opts, n, levels, 1000 * n + seed)
        assert game.result == result
        assert result.draw or result.durak


def test_random_bot_never_stalls_a_game() -> None:
    """A random bot acts whenever it may: a table of random bots always plays to the end."""
    for seed in range(30):
        rng = random.Random(seed)
        n = 2 + seed % 5
        game = new_game({}, n, rng)
        play_game(game, [RandomBot(random.Random(seed + s)) for s in range(n)], rng)
        assert game.result is not None


def test_play_game_reports_a_stall() -> None:
    class Idle:
        name = "idle"

        def choose(self, view: PlayerView) -> Action | None:
            return None

    game = new_game({}, 2, random.Random(0))
    with pytest.raises(BotStall, match="no bot acts"):
        play_game(game, [Idle(), Idle()], random.Random(0))


# --- the bot reads only its view: it plays a hidden game (card privacy) ---------------


def hidden_twin(full: Game, viewer: int) -> Game:
    return Game.hidden(
        full.rules,
        full.seats,
        full.dealer,
        trump_card=full.trump_card,
        trump_suit=full.trump,
        first_attacker=full.attacker if full.attacker is not None else 0,
        viewer=viewer,
        own_cards=full.hand(viewer),
        shown={s: full.known(s) for s in range(full.seats)},
    )


@pytest.mark.parametrize(
    "opts",
    [{}, {"variant": "perevodnoy", "trump_show": True}, {"cheating": True}, {"variant": "duren"}],
)
def test_R_T4_bots_play_from_a_hidden_game_that_knows_only_their_seat(
    opts: dict[str, Any],
) -> None:
    """Each bot is asked with the view of its own hidden game (engine-api.md), which holds
    nothing but what its seat may know; the bots still play a whole game."""
    for seed in range(3):
        rng = random.Random(seed)
        n = 3
        full = new_game(opts, n, rng)
        twins = [hidden_twin(full, s) for s in range(n)]
        bots: list[Bot] = [
            NormalBot(random.Random(seed)),
            NormalBot(random.Random(9)),
            RandomBot(rng),
        ]
        for _ in range(5000):
            if full.result is not None:
                break
            answers = [
                a
                for s in range(n)
                if s not in full.out and (a := bots[s].choose(twins[s].view(s))) is not None
            ]
            assert answers
            action = rng.choice([a for a in answers if a.do is Do.CHALLENGE] or answers)
            bout = full.bout_number
            full.apply(action)
            for s, twin in enumerate(twins):
                twin.apply(action)
                if full.bout_number != bout or full.result is not None:
                    twin.learn_draws(s, full.last_draws(s))
        assert full.result is not None
        assert all(t.result == full.result for t in twins)


def test_endgame_card_counting_places_every_card_it_saw() -> None:
    """Once the stock is empty, the cards a normal bot cannot place are exactly the unseen
    cards of the other hands (taken cards are public), unless it missed a discard."""
    checked = 0
    for seed in range(20):
        rng = random.Random(seed)
        game = new_game({}, 2, rng)
        me = NormalBot(random.Random(seed))
        other = GreedyBot(random.Random(seed))
        while game.result is None:
            view = game.view(0)
            a0 = me.choose(view)
            if game.stock_count == 0 and me.mem.unseen_discards == 0:
                hidden = mask_of(game.hand(1)) & ~mask_of(game.known(1))
                assert me._unknown_pool(view) == hidden
                checked += 1
            a1 = other.choose(game.view(1))
            answers = [a for a in (a0, a1) if a is not None]
            game.apply(rng.choice(answers))
    assert checked > 50


# --- strength ---------------------------------------------------------------------------


def durak_rate(level: str, against: type[Bot] | str, games: int, seed: int) -> float:
    rng = random.Random(seed)
    lost = 0
    for g in range(games):
        game = new_game({}, 2, rng)
        me = g % 2  # seats alternated
        bots: list[Bot] = [RandomBot(rng), RandomBot(rng)]
        bots[me] = make_bot(level, random.Random(rng.random()))
        opp = random.Random(rng.random())
        bots[1 - me] = make_bot(against, opp) if isinstance(against, str) else against(opp)
        result = play_game(game, bots, rng)
        lost += me in result.durak
    return lost / games


def test_normal_beats_random() -> None:
    assert durak_rate("normal", "random", 200, seed=11) < 0.10


def test_normal_beats_the_greedy_baseline() -> None:
    assert durak_rate("normal", GreedyBot, 200, seed=12) < 0.47


# --- chosen positions -------------------------------------------------------------------


def pos(
    hands: Sequence[str],
    attacker: int,
    stock: int = 18,
    *,
    seen: Sequence[str] = (),
    **options: Any,
) -> Game:
    """``position`` with a stock of ``stock`` cards (the last a club: trump is clubs)."""
    rules = Rules(**options)
    used = set(parse_cards(" ".join(hands).split()))
    rest = [c for c in deck_cards(rules.deck) if c not in used]
    clubs = [c for c in rest if c.suit == 3]
    plain = [c for c in rest if c.suit != 3 and c not in clubs]
    pile = (plain + clubs[:-1])[: max(0, stock - 1)] + clubs[-1:] if stock else []
    return position(hands, attacker, "C", " ".join(map(str, pile)), seen=seen, **options)


def answer(game: Game, seat: int, bot: Bot | None = None) -> Action | None:
    return (bot or NormalBot(random.Random(0))).choose(game.view(seat))


def test_R_B5_covers_with_the_cheapest_card() -> None:
    g = pos(["6S 7H 8H 9H TH JH", "7S 9S KS 6C AC 8D"], 0)
    g.apply(Action.attack(0, C("6S")))
    assert answer(g, 1) == Action.cover(1, C("7S"), C("6S"))


def test_R_B5_does_not_waste_a_trump_when_a_plain_card_covers() -> None:
    g = pos(["6S 7H 8H 9H TH JH", "QS 6C 7C 8D 9D TD"], 0)
    g.apply(Action.attack(0, C("6S")))
    assert answer(g, 1) == Action.cover(1, C("QS"), C("6S"))


def test_R_B8_takes_rather_than_spend_several_high_trumps_early() -> None:
    g = pos(["6H 6D 7D 8D 9D TD", "QC KC AC 7S 8S JS"], 0, stock=18)
    g.apply(Action.attack(0, C("6H")))
    g.apply(Action.attack(0, C("6D")))
    assert answer(g, 1) == Action.take(1)


def test_R_B8_covers_whatever_it_costs_when_the_stock_is_empty() -> None:
    g = pos(["6H 6D 7D 8D 9D TD", "QC KC AC 7S 8S JS"], 0, stock=0)
    g.apply(Action.attack(0, C("6H")))
    a = answer(g, 1)
    assert a is not None and a.do is Do.COVER


def test_R_B1_leads_its_cheapest_plain_card_and_keeps_trumps() -> None:
    g = pos(["6C 7C 8H 9S KD AS", "6H 7H 8S 9H TH JH"], 0)
    assert answer(g, 0) == Action.attack(0, C("8H"))


def test_R_B3_throws_in_a_cheap_card_but_not_a_trump_early() -> None:
    g = pos(["7H 7D 7C 9S KD AS", "6H 8H 8S 9H TH JH"], 0)
    g.apply(Action.attack(0, C("7H")))
    g.apply(Action.cover(1, C("8H"), C("7H")))
    assert answer(g, 0) == Action.attack(0, C("7D"))
    g.apply(Action.attack(0, C("7D")))
    g.apply(Action.take(1))
    assert answer(g, 0) == Action.pass_(0)  # 7♣ is a trump: kept


def test_attacker_waits_while_the_defender_has_cards_to_answer() -> None:
    g = pos(["7H 7D 8C 9S KD AS", "6H 8H 8S 9H TH JH", "6S 7S 9D TD JD QD"], 0)
    g.apply(Action.attack(0, C("7H")))
    assert answer(g, 2) is None  # not his moment: the defender covers or takes first
    assert answer(g, 1) is not None


def test_endgame_leads_a_card_the_defender_cannot_beat() -> None:
    # He took them: everyone saw them (R-B8).
    g = pos(["6S 7S AH", "8S 9S TH"], 0, stock=0, seen=["", "8S 9S TH"])
    assert g.known(1) == g.hand(1)
    assert answer(g, 0) == Action.attack(0, C("AH"))


def test_R_B6_transfers_with_a_plain_card() -> None:
    g = pos(["6H 7S 8S 9S TS JS", "6D 7H 8H AC KC QC"], 0, variant="perevodnoy")
    g.apply(Action.attack(0, C("6H")))
    assert answer(g, 1) == Action.transfer(1, C("6D"))


def test_R_B7_shows_a_trump_to_transfer() -> None:
    g = pos(["6H 7S 8S 9S TS JS", "6C 7H 8H AC KC QC"], 0, variant="perevodnoy", trump_show=True)
    g.apply(Action.attack(0, C("6H")))
    assert answer(g, 1) == Action.show(1, C("6C"))


def test_R_P2_leads_a_pair_in_duren() -> None:
    g = pos(["7H 7D QS KS AS", "6H 8H 8S 9H TH"], 0, variant="duren", stock=10)
    a = answer(g, 0)
    assert a is not None and set(a.cards) >= {C("7H"), C("7D")}


def test_R_T2_never_attacks_or_challenges_a_partner() -> None:
    """2v2 games (cheating on): every throw-in goes to an opponent, and no normal bot
    challenges a card its partner played."""
    for seed in range(6):
        game, _bots, _ = play(
            {"teams": "2v2", "cheating": True, "variant": "perevodnoy"}, 4, ["normal"], seed
        )
        played_by: dict[int, int] = {}
        for a in game.log:
            if a.do is Do.ATTACK:
                for c in a.cards:
                    played_by[c] = a.seat
            elif a.do in (Do.COVER, Do.TRANSFER) and a.card is not None:
                played_by[a.card] = a.seat
            elif a.do is Do.CHALLENGE and a.card is not None:
                assert (played_by[a.card] - a.seat) % 2 == 1, f"challenged a partner: {a}"


def test_R_S2_normal_challenges_a_cheat_it_saw_and_never_a_legal_card() -> None:
    """Cheating mode: over many games no normal bot is marked for a false challenge (R-S4),
    it catches cheats (not all: it notices about half, NOTICE_RATES), and it cheats itself now
    and then."""
    caught = cheats = 0
    for seed in range(15):
        challenges: list[tuple[int, bool]] = []
        _, bots, _ = play({"cheating": True}, 3, ["normal", "normal", "random"], seed, challenges)
        for seat, was_cheat in challenges:
            assert was_cheat, f"seat {seat} challenged a legal card (seed {seed})"
            caught += 1
        cheats += sum(b.cheats for b in bots)
    assert 0 < caught < cheats


class Watcher(NormalBot):
    NOTICE_RATE = 1.0


def test_R_S2_challenges_an_opponents_false_cover() -> None:
    g = pos(["6H 7S 8S 9S TS JS", "7D 7H 8H AD KD QD", "9H TH JH QH KH AH"], 0, cheating=True)
    watcher = Watcher(random.Random(0))
    watcher.choose(g.view(2))
    g.apply(Action.attack(0, C("6H")))
    watcher.choose(g.view(2))
    g.apply(Action.cover(1, C("7D"), C("6H")))  # 7♦ does not beat 6♥: a cheat (R-S1)
    assert watcher.choose(g.view(2)) == Action.challenge(2, C("7D"))


def test_R_S4_does_not_challenge_a_legal_cover() -> None:
    g = pos(["6H 7S 8S 9S TS JS", "7D 7H 8H AD KD QD", "9H TH JH QH KH AH"], 0, cheating=True)
    watcher = Watcher(random.Random(0))
    watcher.choose(g.view(2))
    g.apply(Action.attack(0, C("6H")))
    watcher.choose(g.view(2))
    g.apply(Action.cover(1, C("7H"), C("6H")))
    a = watcher.choose(g.view(2))
    assert a is None or a.do is not Do.CHALLENGE


def test_R_B3_first_word_waits_for_the_main_attackers_done_before_throwing_in() -> None:
    g = pos(
        ["7H 8C 9S TS KD AS", "6H 8H 8S 9H TH JH", "7D 6S 9D TD JD QD"],
        0,
        throw_in_order="first_word",
    )
    g.apply(Action.attack(0, C("7H")))
    g.apply(Action.cover(1, C("8H"), C("7H")))
    assert answer(g, 2) is None  # 7♦ fits, but only after seat 0's Done
    g.apply(Action.pass_(0))
    assert answer(g, 2) == Action.attack(2, C("7D"))


def test_a_spectator_or_a_seat_that_is_out_does_nothing() -> None:
    g = position(["6S 7S", "", "8S 9S"], 0, "C", "", out=(1,))
    bot = NormalBot(random.Random(0))
    assert bot.choose(g.view(None)) is None
    assert bot.choose(g.view(1)) is None


def test_a_bot_kept_for_a_series_forgets_the_last_game() -> None:
    """R-F2 series: the same bot objects play game after game; memory starts afresh."""
    rng = random.Random(3)
    bots = [NormalBot(random.Random(1)), NormalBot(random.Random(2))]
    previous = None
    for _ in range(3):
        rules = Rules()
        game = Game.deal(rules, 2, rng.randrange(2), random_deck(rules, rng), previous=previous)
        bots[0].choose(game.view(0))
        assert bots[0].mem.discarded == 0 and bots[0].mem.discard_count == 0
        previous = play_game(game, bots, rng)
        assert bots[0].mem.discarded != 0  # it counted the discards of this game
