"""A series of games at one table (R-D5, R-F2): the previous result decides who deals and
who attacks first."""

from __future__ import annotations

from localdurak.game.actions import GameResult
from localdurak.game.engine import Game
from tests.support.engine_helpers import make

# Nobody holds a club but seat 2 (7C): R-F1 alone would make seat 2 attack first.
H3 = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH", "6D 7D 8D 9D 7C JD"]
H4 = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH", "6D 7D 8D 9D TD JD", "QS KS AS QH KH 7C"]
LOST_1 = GameResult((1,), False, 0)


def test_R_F2_at_durak_the_first_attack_is_made_at_the_previous_durak() -> None:
    g = make(H3, trump="6C", previous=LOST_1)
    assert (g.attacker, g.defender) == (0, 1)  # by the player on his right


def test_R_F2_from_durak_the_player_on_the_durak_s_left_attacks() -> None:
    g = make(H3, trump="6C", previous=LOST_1, next_first_attack="from_durak")
    assert (g.attacker, g.defender) == (2, 0)


def test_R_F2_after_a_draw_R_F1_applies_again() -> None:
    g = make(H3, trump="6C", previous=GameResult((), True, 0))
    assert g.attacker == 2
    assert make(H3, trump="6C").attacker == 2


def test_R_F2_with_teams_the_losing_teams_lowest_seat() -> None:
    lost = GameResult((1, 3), False, 0)
    g = make(H4, trump="6C", teams="2v2", previous=lost)
    assert (g.attacker, g.defender) == (0, 1)
    g = make(H4, trump="6C", teams="2v2", previous=lost, next_first_attack="from_durak")
    assert (g.attacker, g.defender) == (2, 3)


def test_R_F2_duren_still_leads_from_the_dealers_left() -> None:
    hands = ["6S 7S 8S 9S TS", "6H 7H 8H 9H TH", "6D 7D 8D 9D 7C"]
    g = make(hands, trump="6C", dealer=1, previous=LOST_1, variant="duren")
    assert g.attacker == 2


def test_R_D5_the_previous_durak_deals() -> None:
    assert Game.series_dealer(LOST_1, otherwise=0) == 1
    assert Game.series_dealer(GameResult((1, 3), False, 2), otherwise=0) == 1
    assert Game.series_dealer(GameResult((), True, 0), otherwise=2) == 2
    assert Game.series_dealer(None, otherwise=2) == 2
