"""Hidden information (engine-api.md): one seat's game, fed only what that seat may know,
follows the full game step by step and shows the same view; no view holds a card its seat
may not know."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localdurak.game.actions import Do, IllegalAction
from localdurak.game.cards import Card, Suit
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from tests.game.test_engine_random import CASES, candidates, pick
from tests.support.engine_helpers import act, make, play, random_deck


def hidden_twin(full: Game, viewer: int | None) -> Game:
    return Game.hidden(
        full.rules,
        full.seats,
        full.dealer,
        trump_card=full.trump_card,
        trump_suit=full.trump,
        first_attacker=full.attacker if full.attacker is not None else 0,
        viewer=viewer,
        own_cards=[] if viewer is None else full.hand(viewer),
        shown={s: full.known(s) for s in range(full.seats)},
    )


def public(game: Game) -> tuple[Any, ...]:
    return (
        game.table,
        game.attacker,
        game.defender,
        game.phase,
        game.out,
        game.marked,
        game.passed,
        game.stock_count,
        game.discard_count,
        game.trump_card,
        game.result,
        [game.count(s) for s in range(game.seats)],
        [game.known(s) for s in range(game.seats)],
        game.refill_schedule(),
    )


def side_by_side(opts: dict[str, Any], n: int, seed: int) -> None:
    rules = Rules(**opts)
    rng = random.Random(seed)
    full = Game.deal(rules, n, rng.randrange(n), random_deck(rules, rng))
    twins: dict[int | None, Game] = {s: hidden_twin(full, s) for s in [*range(n), None]}
    full_turned = full.trump_card
    steps = 0
    while full.result is None:
        steps += 1
        assert steps < 3000
        acts = [a for s in range(n) for a in full.legal_actions(s)]
        action = pick(rng, acts, full)
        if rules.cheating and rng.random() < 0.2:
            # a random card play, cheat or not, so that challenges roll bouts back
            s = rng.randrange(n)
            tries = [a for a in candidates(full, s) if a.do is not Do.CHALLENGE]
            attempt = rng.choice(tries)
            if full.can_apply(attempt):
                action = attempt
        bout = full.bout_number
        full.apply(action)
        refilled = full.bout_number != bout or full.result is not None
        for viewer, twin in twins.items():
            twin.apply(action)
            if refilled:
                for o in range(n):
                    # R-D2, R-B12: of the cards drawn, only the turned trump card is seen
                    seen = [c for c in full.last_draws(o) if c in full.known(o)]
                    assert twin.last_draws(o) == seen
                    assert seen in ([], [full_turned])
                if viewer is not None:
                    twin.learn_draws(viewer, full.last_draws(viewer))
            assert public(twin) == public(full)
            if viewer is not None:
                assert twin.view(viewer) == full.view(viewer)
                assert twin.hand(viewer) == full.hand(viewer)
                for o in range(n):
                    # the twin knows nothing of another hand beyond what everyone saw
                    if o != viewer:
                        assert set(twin.hand(o)) <= set(full.known(o))
            else:
                assert twin.view(None) == full.view(None)


@settings(max_examples=12, deadline=None)
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**32))
def test_hidden_games_follow_the_full_game(case: tuple[dict[str, Any], int], seed: int) -> None:
    side_by_side(case[0], case[1], seed)


@pytest.mark.parametrize(
    "opts",
    [
        {},
        {"variant": "perevodnoy", "trump_show": True},
        {"variant": "duren"},
        {"cheating": True},
        {"cheating": True, "variant": "perevodnoy", "trump_show": True},
    ],
)
def test_hidden_games_follow_the_full_game_per_variant(opts: dict[str, Any]) -> None:
    for seed in range(3):
        side_by_side(opts, 3, seed)


def test_hidden_accepts_a_card_only_if_it_may_be_in_that_hand() -> None:
    full = make(["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"], trump="6C")
    seat0 = hidden_twin(full, 0)
    play(seat0, "0 attack 6S")
    # Seat 1's hand is unknown to seat 0: any card not known elsewhere may be in it
    # (the protocol proves he really holds it) ...
    assert seat0.can_apply(act("1 cover QS 6S"))
    # ... but not a card seat 0 holds, one on the table, or the turned trump card.
    assert not seat0.can_apply(act("1 cover 7S 6S"))
    assert not seat0.can_apply(act("1 cover 6C 6S"))
    with pytest.raises(IllegalAction, match="R-S1"):
        seat0.apply(act("1 cover 8S 6S"))
    play(seat0, "1 cover QS 6S")
    assert seat0.count(1) == 5 and seat0.hand(1) == [] and seat0.known(1) == []


def test_hidden_taken_cards_become_known_in_the_takers_hand() -> None:
    full = make(["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"], trump="6C")
    seat0 = hidden_twin(full, 0)
    play(seat0, "0 attack 6S", "1 take", "0 pass")
    assert seat0.known(1) == [Card.parse("6S")]
    assert seat0.count(1) == 7
    # R-B12: the attacker draws first; the defender holds 7 and draws nothing.
    assert seat0.refill_schedule() == [0]
    assert seat0.count(0) == 6 and len(seat0.hand(0)) == 5
    seat0.learn_draws(0, full.stock_cards()[:1])
    assert len(seat0.hand(0)) == 6
    with pytest.raises(ValueError):
        seat0.learn_draws(0, [Card.parse("AS")])  # no unknown card left in that hand


HANDS_4 = ["9S 9H TS JS TC", "QS JH QD KD AD", "TH KH AH 9D TD", "JC QC KC AC KS"]


def test_R_B12_refill_schedule_one_entry_per_card_and_the_trump_card_last() -> None:
    opts: dict[str, Any] = {"deck": 24, "hand_size": 5}
    full = make(HANDS_4, trump="9C", **opts)
    assert full.attacker == 0 and full.stock_count == 4  # TC is the lowest trump (R-F1)
    seat2 = hidden_twin(full, 2)
    for g in (full, seat2):
        play(g, "0 attack 9S 9H", "1 cover QS 9S", "1 cover JH 9H", "0 pass", "2 pass", "3 pass")
        # the opener first, the others clockwise, the defender last; 9C drawn last, in public
        assert g.refill_schedule() == [0, 0, 1, 1]
        assert g.stock_count == 0 and g.trump_card is None
        assert g.known(1) == [Card.parse("9C")]
        assert g.attacker == 1 and g.defender == 2
    # seat 2 knows only the lowest trump seat 0 showed for the first attack (R-F1)
    assert seat2.count(0) == 5 and seat2.hand(0) == [Card.parse("TC")]
    assert seat2.trump == Suit.CLUBS
    assert full.hand(0) == [Card.parse(c) for c in ("TS", "JS", "QH", "AS", "TC")]
