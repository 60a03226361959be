"""Dureń (R-P1..R-P6): leads of pairs, no throw-in, cover all or take, partial defence."""

from __future__ import annotations

from localdurak.game.actions import Action, Do, GameResult
from localdurak.game.cards import Card, mask_of, parse_cards
from localdurak.game.duren import is_lead
from localdurak.game.engine import Game
from localdurak.game.rules import DurenLeads
from tests.support.engine_helpers import make, play, position, refused

C = Card.parse
D = {"variant": "duren"}
H2 = ["7H 7D 9S 9C QH", "8H 8D TS JS KD"]  # clubs trump (AC turned)


def leads(g: Game, seat: int) -> set[str]:
    return {" ".join(map(str, a.cards)) for a in g.legal_actions(seat) if a.do is Do.ATTACK}


def test_R_P1_hand_of_five_and_the_dealers_left_leads() -> None:
    g = make(H2, trump="AC", dealer=0, **D)
    assert g.count(0) == 5 and g.attacker == 1 and g.defender == 0
    g = make(H2, trump="AC", dealer=1, **D)
    assert g.attacker == 0  # even though seat 1 might hold a lower trump


def test_R_P2_pairs_leads_are_listed_in_hand_order() -> None:
    g = make(H2, trump="AC", **D)
    assert leads(g, 0) == {
        # one card
        "7H", "7D", "9S", "QH", "9C",
        # a pair: one rank, one colour
        "7H 7D", "9S 9C",
        # a pair and one card of any kind
        "7H 7D 9S", "7H 7D 9C", "7H 7D QH", "7H 9S 9C", "7D 9S 9C", "9S QH 9C",
        # two pairs, and two pairs and one card
        "7H 7D 9S 9C", "7H 7D 9S QH 9C",
    }  # fmt: skip
    assert leads(g, 1) == set()


def test_R_P2_pairs_mode_refuses_other_leads() -> None:
    g = make(H2, trump="AC", **D)
    refused(g, "0 attack 7H 9S", "R-P2", "pair")
    refused(g, "0 attack 7H 9S QH", "R-P2")
    refused(g, "0 attack 7H 7D 9S QH", "R-P2")  # a pair and two singles
    play(g, "0 attack 7H 7D 9S QH 9C")
    assert len(g.table) == 5


def test_R_P2_a_pair_is_one_rank_and_one_colour() -> None:
    pairs = DurenLeads.PAIRS
    assert is_lead(mask_of(parse_cards(["7H", "7D"])), pairs)  # both red
    assert is_lead(mask_of(parse_cards(["7S", "7C"])), pairs)  # both black
    assert not is_lead(mask_of(parse_cards(["7H", "7S"])), pairs)
    assert is_lead(mask_of(parse_cards(["7H", "7D", "7S", "7C"])), pairs)  # two pairs
    assert is_lead(mask_of(parse_cards(["7H", "7D", "8S", "8C", "AH"])), pairs)
    assert not is_lead(mask_of(parse_cards(["7H", "7S", "8S", "8C", "AH"])), pairs)


def test_R_P2_odd_leads_one_three_or_five_cards() -> None:
    odd = DurenLeads.ODD
    assert is_lead(mask_of(parse_cards(["7H"])), odd)
    assert not is_lead(mask_of(parse_cards(["7H", "7D"])), odd)
    assert is_lead(mask_of(parse_cards(["7H", "7S", "KD"])), odd)  # any colours here
    assert not is_lead(mask_of(parse_cards(["7H", "8S", "KD"])), odd)
    assert not is_lead(mask_of(parse_cards(["7H", "7S", "8S", "8C"])), odd)
    assert is_lead(mask_of(parse_cards(["7H", "7S", "8S", "8D", "AH"])), odd)
    assert is_lead(mask_of(parse_cards(["7H", "7S", "7D", "7C", "AH"])), odd)
    assert not is_lead(mask_of(parse_cards(["7H", "7S", "8S", "9D", "AH"])), odd)
    g = make(H2, trump="AC", duren_leads="odd", **D)
    assert {len(x.split()) for x in leads(g, 0)} == {1, 3, 5}
    refused(g, "0 attack 7H 7D", "R-P2", "pair and any third")


def test_R_P3_never_more_than_the_defender_holds_and_no_throw_in() -> None:
    g = position(["7H 7D 9S", "8H 8D"], attacker=0, trump="C", **D)
    refused(g, "0 attack 7H 7D 9S", "R-P3", "holds 2 cards")
    assert max(len(a.cards) for a in g.legal_actions(0)) == 2
    play(g, "0 attack 7H 7D")
    refused(g, "0 attack 9S", "R-P3", "nobody throws in")
    refused(g, "0 pass", "R-P4", "nobody passes")
    assert g.legal_actions(0) == []


def test_R_P4_all_covered_the_defender_leads_next() -> None:
    g = make(H2, trump="AC", **D)
    play(g, "0 attack 7H 7D", "1 cover 8H 7H")
    assert g.table
    play(g, "1 cover 8D 7D")
    assert g.table == [] and g.discard_count == 4
    assert (g.attacker, g.defender) == (1, 0)


def test_R_P4_otherwise_he_takes_everything_and_loses_his_turn() -> None:
    g = make([*H2, "6S 6H 6D JH QD"], trump="AC", **D)
    play(g, "0 attack 7H 7D", "1 cover 8H 7H", "1 take")
    assert g.table == [] and {C("7H"), C("7D"), C("8H")} <= set(g.hand(1))
    assert (g.attacker, g.defender) == (2, 0)  # the player on his left leads
    assert Action(1, Do.PASS) not in g.legal_actions(1)


def test_R_P5_partial_defence_discards_the_covered_pairs() -> None:
    g = make([*H2, "6S 6H 6D JH QD"], trump="AC", partial_defence=True, **D)
    play(g, "0 attack 7H 7D", "1 cover 8H 7H", "1 take")
    assert C("7D") in g.hand(1) and C("7H") not in g.hand(1) and C("8H") not in g.hand(1)
    assert g.discard_count == 2
    assert (g.attacker, g.defender) == (2, 0)  # he still loses his turn


def test_R_P6_refill_the_attacker_then_the_defender() -> None:
    g = make([*H2, "6S 6H 6D JH QD"], trump="AC", stock="AS AH AD KH", **D)
    play(g, "0 attack 7H 7D", "1 cover 8H 7H", "1 cover 8D 7D")
    assert g.refill_schedule() == [0, 0, 1, 1]
    assert {C("AS"), C("AH")} <= set(g.hand(0)) and {C("AD"), C("KH")} <= set(g.hand(1))


def test_R_P6_remis_when_the_defender_covers_everything_in_the_last_move() -> None:
    g = position(["7H 7D", "8H 8D"], attacker=0, trump="C", **D)
    play(g, "0 attack 7H 7D", "1 cover 8H 7H", "1 cover 8D 7D")
    assert g.result == GameResult((), True, 0)
    g = position(["7H 7D", "8H 8D AS"], attacker=0, trump="C", **D)
    play(g, "0 attack 7H 7D", "1 cover 8H 7H", "1 cover 8D 7D")
    assert g.result == GameResult((1,), False, 0)


def test_R_P_no_transfer_show_or_challenge_in_duren() -> None:
    g = make(H2, trump="AC", **D)
    play(g, "0 attack 7H")
    refused(g, "1 transfer 8H", "R-B6")
    refused(g, "0 challenge 7H", "R-S2")
