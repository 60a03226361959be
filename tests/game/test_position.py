"""The position notation (game/position.py) both ways: a literal position reads as written,
and over random play of every variant, ``write(read(write(g))) == write(g)`` and the game
read back plays on exactly like the original (the same views, legal actions and outcomes)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localdurak.game.actions import Action, Do
from localdurak.game.cards import Card
from localdurak.game.engine import Game
from localdurak.game.outcome import BoutEnded, Opened, Phase
from localdurak.game.position import PositionError, read, write
from localdurak.game.rules import Rules
from tests.game.test_engine_random import CASES
from tests.support.engine_helpers import random_deck, state


def observable(game: Game) -> tuple[Any, ...]:
    views = []
    for s in [*range(game.seats), None]:
        v = game.view(s)
        views.append((v.hand, v.others, v.table, v.attackers, v.limit, v.legal, v.phase, v.bout))
    return (*state(game)[:-2], state(game)[-1], views, game.stock_cards())


def same_game(a: Game, b: Game, rng: random.Random, steps: int) -> None:
    """``b`` (read from ``a``'s position) plays on exactly like ``a``."""
    for _ in range(steps):
        assert observable(a) == observable(b)
        if a.result is not None:
            return
        acts = [x for s in range(a.seats) for x in a.legal_actions(s)]
        action = rng.choice(acts)
        assert a.apply(action) == b.apply(action), action


def play_to(opts: dict[str, Any], n: int, seed: int, stop: int) -> tuple[Game, random.Random]:
    rules = Rules(**opts)
    rng = random.Random(seed)
    game = Game.deal(rules, n, rng.randrange(n), random_deck(rules, rng))
    for _ in range(stop):
        if game.result is not None:
            break
        if rules.cheating and not game.table:
            break
        acts = [x for s in range(n) for x in game.legal_actions(s)]
        plain = [x for x in acts if x.do is not Do.CHALLENGE] or acts
        game.apply(rng.choice(plain))
    return game, rng


def check(opts: dict[str, Any], n: int, seed: int, stop: int) -> None:
    game, rng = play_to(opts, n, seed, stop)
    if game.rules.cheating and game.table:
        with pytest.raises(PositionError):
            write(game)
        return
    text = write(game)
    again = read(text)
    assert write(again) == text
    same_game(game, again, rng, 40)


@settings(max_examples=40, deadline=None)
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**32), stop=st.integers(0, 400))
def test_a_position_reads_back_and_plays_on_alike(
    case: tuple[dict[str, Any], int], seed: int, stop: int
) -> None:
    check(*case, seed, stop)


def test_every_table_at_a_few_moments() -> None:
    for i, (opts, n) in enumerate(CASES):
        for stop in (0, 7, 60, 1000):
            check(opts, n, i, stop)


def test_a_literal_position() -> None:
    # Trump hearts, three seats, seat 2 out.  Seat 0 attacked 6S, seat 1 covered with 7S,
    # seat 0 threw in the trump 6H; everyone saw the 9S go into seat 0's hand.
    text = "podkidnoy 2 H 9DKH 8S9S*9S/TCJC/- 6S7S.6H a=0 b=3 def out=2"
    g = read(text)
    assert write(g) == text
    assert g.seats == 3 and g.trump_card == Card.parse("KH") and g.stock_count == 2
    assert g.table == [(Card.parse("6S"), Card.parse("7S")), (Card.parse("6H"), None)]
    assert g.known(0) == [Card.parse("9S")] and g.out == [2] and g.bout_number == 3
    assert g.phase is Phase.BOUT and g.defended_once and g.limit == 6
    assert g.discard_count == 36 - 9  # all but the stock, hands and table
    # Seat 1 cannot beat the trump 6H with clubs: he takes, and draws from the stock.
    assert [a.do for a in g.legal_actions(1)] == [Do.TAKE]
    events = g.apply(Action(1, Do.TAKE))
    assert events == () and g.phase is Phase.TAKING
    ended = g.apply(Action(0, Do.PASS))
    assert isinstance(ended[0], BoutEnded) and ended[0].taken
    fresh = read("podkidnoy 0 C - 6S/7S - a=1")
    assert fresh.apply(Action(1, Do.ATTACK, (Card.parse("7S"),))) == (Opened(1, 0),)


@pytest.mark.parametrize(
    "bad",
    [
        "podkidnoy 0 C - 6S/7S",  # five fields
        "podkidnoy 0 C - 6S/6S - a=0",  # a card twice
        "podkidnoy 0 C - 6S/7 - a=0",  # half a card
        "podkidnoy 0 C - 6S/7S - d=1",  # no attacker
        "podkidnoy 0 C - 6S/7S - a=0 d=1 zz=3",  # an unknown word
        "podkidnoy,deck=37 0 C - 6S/7S - a=0",  # bad rules
        "podkidnoy 0 C - 6S*7S/8S - a=0",  # a seen card not in the hand
    ],
)
def test_what_is_not_a_position_is_refused(bad: str) -> None:
    with pytest.raises(PositionError):
        read(bad)
