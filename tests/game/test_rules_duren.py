"""A second reading of rules.md section P (Dureń) against the engine."""

from __future__ import annotations

import pytest

from localdurak.game.actions import Do, GameResult
from localdurak.game.cards import Card
from localdurak.game.engine import Game
from localdurak.game.rules import Rules, RulesError
from tests.support.engine_helpers import make, play, position, refused

C = Card.parse
DUREN = {"variant": "duren"}


def leads(g: Game, seat: int) -> set[str]:
    return {
        " ".join(sorted(str(c) for c in a.cards))
        for a in g.legal_actions(seat)
        if a.do is Do.ATTACK
    }


def lead(text: str) -> str:
    return " ".join(sorted(text.split()))


def test_R_P1_the_dealers_left_leads_whoever_holds_the_lowest_trump() -> None:
    g = make(
        ["9S TS JS QS KS", "6C 7D 8D 9D TD", "7S 8S 9H TH JH"],
        trump="AC",
        dealer=2,
        **DUREN,
    )
    assert (g.attacker, g.defender) == (0, 1)  # seat 1 holds 6C, the lowest trump


def test_R_P2_pairs_mode_colours_and_sizes() -> None:
    g = position(["7H 7D 7S 8S 8C", "9D TD JD QD KD"], attacker=0, trump="C", **DUREN)
    got = leads(g, 0)
    assert lead("7H 7D") in got and lead("8S 8C") in got  # red pair, black pair
    assert lead("7H 7S") not in got and lead("7S 8S") not in got  # colours / ranks differ
    assert lead("7H 7D 7S") in got  # a pair and one more card of any kind
    assert lead("7H 7D 8S 8C") in got  # two pairs, either colour
    assert lead("7H 7D 8S 8C 7S") in got  # two pairs and one more card
    assert lead("7H 7D 7S 8S") not in got  # a pair and two single cards
    assert lead("7S 8S 8C") in got
    refused(g, "0 attack 7H 7S", "R-P2")
    refused(g, "0 attack 7H 7D 7S 8S", "R-P2")


def test_R_P2_odd_mode_one_three_or_five_cards_pairs_in_any_colours() -> None:
    opts = {"duren_leads": "odd", **DUREN}
    g = position(["7H 7S 8D 9S 9C", "9D TD JD QD KD"], attacker=0, trump="C", **opts)
    got = leads(g, 0)
    assert {len(x.split()) for x in got} == {1, 3, 5}
    assert lead("7H 7S 8D") in got and lead("7H 7S 9S 9C 8D") in got
    assert lead("7H 8D 9S") not in got  # no pair
    refused(g, "0 attack 7H 7S", "R-P2")
    refused(g, "0 attack 7H 7S 9S 9C", "R-P2")


@pytest.mark.parametrize("mode", ["pairs", "odd"])
def test_R_P3_never_more_cards_than_the_defender_holds(mode: str) -> None:
    g = position(["7H 7D 8H 8D 9S", "TD JD"], attacker=0, trump="C", duren_leads=mode, **DUREN)
    got = leads(g, 0)
    assert max(len(x.split()) for x in got) <= 2
    refused(g, "0 attack 7H 7D 9S", "R-P3", "holds 2 cards")


def test_R_P3_nobody_throws_in_or_passes_and_a_lead_cannot_change() -> None:
    g = position(["7H 9S", "TD JD", "7D 8D"], attacker=0, trump="C", **DUREN)
    play(g, "0 attack 7H")
    assert g.legal_actions(2) == [] and g.legal_actions(0) == []
    refused(g, "2 attack 7D", "R-P3")
    refused(g, "0 attack 9S", "R-P3")
    refused(g, "0 pass", "R-P4")


HANDS = ["7H 7D 9S 9H KC", "8H 8D 6C 6S 6H", "TS JS QS KS AS"]
STOCK = "AD KD QD JD AC"


def test_R_P4_not_all_covered_he_takes_everything_and_the_left_player_leads() -> None:
    g = position(HANDS, attacker=0, trump="C", stock=STOCK, **DUREN)
    discard = g.discard_count
    play(g, "0 attack 7H 7D", "1 cover 8H 7H", "1 take")
    # without partial defence he takes the covers too (R-P4 "every card on the table")
    assert {C("7H"), C("7D"), C("8H")} <= set(g.hand(1)) and g.discard_count == discard
    assert (g.attacker, g.defender) == (2, 0)
    assert g.refill_schedule() == [0, 0]  # R-P6: the attacker refills


def test_R_P5_partial_defence_covered_pairs_discarded_uncovered_taken() -> None:
    g = position(HANDS, attacker=0, trump="C", stock=STOCK, partial_defence=True, **DUREN)
    discard = g.discard_count
    play(g, "0 attack 7H 7D", "1 cover 8H 7H", "1 take")
    assert C("7D") in g.hand(1) and C("7H") not in g.hand(1) and C("8H") not in g.hand(1)
    assert g.discard_count == discard + 2 and g.count(1) == 5
    assert (g.attacker, g.defender) == (2, 0)  # he left one uncovered: he loses his turn
    assert g.refill_schedule() == [0, 0]


def test_R_P4_all_covered_he_leads_next_and_R_P6_refill_order() -> None:
    g = position(HANDS, attacker=0, trump="C", stock=STOCK, **DUREN)
    play(g, "0 attack 7H 7D", "1 cover 8H 7H", "1 cover 8D 7D")
    assert g.table == [] and (g.attacker, g.defender) == (1, 2)
    # R-P6: the attacker first, then the defender
    assert g.refill_schedule() == [0, 0, 1, 1]
    assert {C("AD"), C("KD")} <= set(g.hand(0)) and {C("QD"), C("JD")} <= set(g.hand(1))


def test_R_P6_remis_and_R_B15_pogony_in_duren() -> None:
    g = position(["6S 6C", "7S 7C"], attacker=0, trump="C", **DUREN)
    play(g, "0 attack 6S 6C", "1 cover 7S 6S", "1 cover 7C 6C")
    assert g.result == GameResult((), True, 0)
    g = position(["6S 6C", "7S 7C 9D"], attacker=0, trump="C", **DUREN)
    play(g, "0 attack 6S 6C", "1 cover 7S 6S", "1 cover 7C 6C")
    assert g.result == GameResult((1,), False, 1)  # 6S; 6C is a trump


def test_R_P1_duren_options_that_do_not_apply_are_refused() -> None:
    # R-P1: in Dureń the dealer's left always attacks first, so next_first_attack (R-F2)
    # does not apply (rules.md O: such an option must keep its default).
    with pytest.raises(RulesError, match="next_first_attack"):
        Rules(variant="duren", next_first_attack="from_durak")  # type: ignore[arg-type]
    Rules(variant="duren", tie="last_defender_loses", japanese=True)  # type: ignore[arg-type]
