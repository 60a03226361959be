"""A second reading of rules.md section S (cheating mode) against the engine."""

from __future__ import annotations

from localdurak.game.actions import Do
from localdurak.game.cards import Card
from localdurak.game.engine import Game
from tests.support.engine_helpers import play, position, refused

C = Card.parse
CHEAT = {"cheating": True}


def three() -> Game:
    return position(["6S 7S 8S", "6H 6D 8H QS", "TS 6C JD"], attacker=0, trump="C", **CHEAT)


def test_R_S4_an_honest_card_thrown_in_together_with_a_cheat_is_a_legal_card() -> None:
    # R-S1: "such a card is a cheat" is said of a card; 6C matches the 6 on the table.
    g = three()
    play(g, "0 attack 6S", "2 attack 6C TS")
    play(g, "1 challenge 6C")
    # R-S4: nothing moves; the challenger is marked
    assert g.table == [(C("6S"), None), (C("6C"), None), (C("TS"), None)]
    assert g.marked == [1]
    # R-S3: the cheat itself takes back every card played with it
    play(g, "0 challenge TS")
    assert g.table == [(C("6S"), None)] and g.marked == [1, 2]
    assert {C("6C"), C("TS")} <= set(g.hand(2))


def test_R_S3_a_challenge_after_the_cheat_resets_every_pass() -> None:
    g = three()
    play(g, "0 attack 6S", "2 attack TS", "1 cover QS 6S", "0 pass")
    assert g.passed == [0]
    play(g, "0 challenge TS")
    assert g.passed == [] and g.table == [(C("6S"), None)]


def test_R_S4_an_honest_challenge_changes_nothing_so_passes_stay() -> None:
    g = three()
    play(g, "0 attack 6S", "1 cover QS 6S", "0 pass")
    play(g, "2 challenge QS")
    assert g.passed == [0] and g.marked == [2]


def test_R_S3_marks_in_between_stay_and_a_seat_is_marked_once() -> None:
    g = three()
    play(g, "0 attack 6S", "2 attack TS", "2 challenge 6S")  # 6S honest: seat 2 marked
    assert g.marked == [2]
    play(g, "1 challenge TS")  # TS a cheat by seat 2, already marked
    assert g.marked == [2] and g.table == [(C("6S"), None)]
    refused(g, "2 attack TS", "R-S3")


def test_R_S2_the_defenders_partner_and_a_marked_player_may_challenge() -> None:
    hands = ["6S 7S", "6H 6D 8H QS", "TS JD", "9S 9H"]
    g = position(hands, attacker=0, trump="C", teams="2v2", **CHEAT)
    play(g, "0 attack 6S")
    # R-S2 "any other player still in the game": the defender's partner too
    assert any(a.do is Do.CHALLENGE for a in g.legal_actions(3))
    play(g, "3 challenge 6S")  # honest: seat 3 marked (R-S4)
    assert g.marked == [3]
    play(g, "2 attack TS")  # a cheat
    play(g, "3 challenge TS")  # a marked player challenges: it is a cheat
    assert g.marked == [3, 2] and g.table == [(C("6S"), None)]


def test_R_S1_a_cheat_transfer_still_needs_the_count_check() -> None:
    g = position(
        ["6S 9D", "8H QS", "TS"],
        attacker=0,
        trump="C",
        variant="perevodnoy",
        **CHEAT,
    )
    play(g, "0 attack 6S")
    refused(g, "1 transfer 8H", "R-B6", "fewer than the 2")


def test_R_S1_cheat_cards_must_be_in_the_hand_and_R_B4c_holds() -> None:
    g = position(["6S 7D 8D 9D", "6H", "TS"], attacker=0, trump="C", **CHEAT)
    play(g, "0 attack 6S")
    refused(g, "0 attack 7D", "R-B4c")
    refused(g, "2 attack JS", "R-S1", "does not hold")


def test_R_S3_an_opening_of_several_ranks_is_a_cheat_as_a_whole() -> None:
    # reading (engine.py): no single card of a mixed opening is illegal; the lead is.
    g = three()
    play(g, "0 attack 6S 7S")
    play(g, "1 challenge 6S")
    assert g.table == [] and g.marked == [0] and g.attacker == 0


def test_R_S2_any_other_player_may_challenge_a_card_already_found_honest() -> None:
    g = three()
    play(g, "0 attack 6S", "1 challenge 6S")
    assert g.marked == [1]
    # seat 2 has not challenged 6S: R-S2 lets him; R-S4 marks him
    assert any(a.do is Do.CHALLENGE and a.card == C("6S") for a in g.legal_actions(2))
    play(g, "2 challenge 6S")
    assert g.marked == [1, 2] and g.table == [(C("6S"), None)]
    # the same player again changes nothing: refused (reading)
    refused(g, "1 challenge 6S", "R-S4", "already")
