"""Cheating mode (R-S1..R-S4): cheats within the counts, challenges, rollback, marks."""

from __future__ import annotations

from localdurak.game.actions import Action, Do
from localdurak.game.cards import Card
from localdurak.game.engine import Game
from tests.support.engine_helpers import act, make, play, position, refused

C = Card.parse
CHEAT = {"cheating": True}
# Three players, clubs trump (6C turned): seat 0 attacks seat 1, seat 2 throws in.
H3 = ["6S 7S 8S 9D 7C 9S", "6H 6D 8H QS KH 8C", "TS JS TH JH TD JD"]


def game() -> Game:
    return make(H3, trump="6C", **CHEAT)


def test_R_S1_cheats_are_allowed_but_never_listed() -> None:
    g = game()
    play(g, "0 attack 6S")
    assert Action(2, Do.ATTACK, (C("TS"),)) not in g.legal_actions(2)
    play(g, "2 attack TS")  # a rank not on the table
    assert Action(1, Do.COVER, card=C("6H"), on=C("6S")) not in g.legal_actions(1)
    play(g, "1 cover 6H 6S")  # does not beat
    assert g.table == [(C("6S"), C("6H")), (C("TS"), None)]
    # without the cheating mode the same cards are refused
    h = make(H3, trump="6C")
    play(h, "0 attack 6S")
    refused(h, "2 attack TS", "R-B3")


def test_R_S1_counts_still_enforced_and_the_card_must_be_in_the_hand() -> None:
    g = position(["6S 7H 8D", "9S TS", "JD QD"], attacker=0, trump="C", **CHEAT)
    play(g, "0 attack 6S", "2 attack JD")
    refused(g, "0 attack 7H", "R-B4c")
    refused(g, "2 attack AS", "R-S1", "does not hold")
    refused(g, "1 cover AS 6S", "R-S1", "does not hold")


def test_R_S2_challenge_is_listed_for_every_other_players_card_on_the_table() -> None:
    g = game()
    play(g, "0 attack 6S", "1 cover QS 6S")
    assert {a.card for a in g.legal_actions(2) if a.do is Do.CHALLENGE} == {C("6S"), C("QS")}
    assert {a.card for a in g.legal_actions(0) if a.do is Do.CHALLENGE} == {C("QS")}
    assert {a.card for a in g.legal_actions(1) if a.do is Do.CHALLENGE} == {C("6S")}
    refused(g, "0 challenge 6S", "R-S2", "his own card")
    refused(g, "0 challenge AS", "R-S2", "not on the table")
    h = make(H3, trump="6C")
    play(h, "0 attack 6S")
    refused(h, "1 challenge 6S", "R-S2", "cheating mode only")


def test_R_S3_challenged_cheat_rolls_back_the_bout_and_marks_the_cheater() -> None:
    g = game()
    play(g, "0 attack 6S", "2 attack TS", "1 cover QS 6S", "1 cover 8C TS", "0 attack 8S")
    play(g, "0 challenge QS")  # an honest card: seat 0 is marked (R-S4)
    play(g, "1 challenge TS")
    # back to just before "2 attack TS": TS, and every card after it, to their hands
    assert g.table == [(C("6S"), None)]
    assert {C("TS")} <= set(g.hand(2)) and {C("QS"), C("8C")} <= set(g.hand(1))
    assert C("8S") in g.hand(0)
    assert g.marked == [0, 2]  # the mark made in between stays
    assert g.passed == []
    # the cards that went back were seen by everyone
    assert C("TS") in g.known(2) and C("8S") in g.known(0)
    # the cheater must play honestly now
    refused(g, "2 attack JS", "R-S3", "must play honestly")
    play(g, "1 cover 6H 6S")  # seat 1 is not marked: he may still cheat


def test_R_S3_a_rollback_undoes_a_take_declared_after_the_cheat() -> None:
    g = game()
    play(g, "0 attack 6S", "2 attack TS", "1 take")
    assert g.phase == "taking"
    play(g, "0 challenge TS")
    assert g.phase == "bout" and g.table == [(C("6S"), None)] and g.marked == [2]


def test_R_S3_cards_played_with_the_cheat_go_back_too() -> None:
    g = game()
    play(g, "0 attack 6S", "2 attack TS TH")
    play(g, "1 challenge TH")
    assert g.table == [(C("6S"), None)] and {C("TS"), C("TH")} <= set(g.hand(2))


def test_R_S3_a_cheating_transfer_goes_back_to_the_defender() -> None:
    g = make(H3, trump="6C", variant="perevodnoy", **CHEAT)
    play(g, "0 attack 6S", "1 transfer 8H")  # another rank
    assert (g.attacker, g.defender) == (1, 2)
    play(g, "2 challenge 8H")
    assert (g.attacker, g.defender) == (0, 1) and g.table == [(C("6S"), None)]
    assert g.marked == [1]
    refused(g, "1 transfer 8H", "R-S3")
    play(g, "1 transfer 6H")  # an honest transfer is fine


def test_R_S4_challenged_honest_card_marks_the_challenger_once() -> None:
    g = game()
    play(g, "0 attack 6S", "1 cover QS 6S")
    before_table = g.table
    play(g, "2 challenge QS")
    assert g.table == before_table and g.marked == [2]
    play(g, "2 challenge 6S")  # a marked player may challenge; it costs nothing more
    assert g.marked == [2]
    refused(g, "2 challenge QS", "R-S4", "challenged Q♠ already")
    # R-S2: any other player may still challenge it; R-S4 marks him too
    play(g, "0 challenge QS")
    assert g.table == before_table and g.marked == [2, 0]
    # the marked player is held to honest play
    refused(g, "2 attack TS", "R-S3")


def test_R_S2_too_late_once_the_bout_is_over() -> None:
    g = game()
    play(g, "0 attack 6S", "2 attack TS", "1 cover QS 6S", "1 cover 8C TS", "0 pass", "2 pass")
    assert g.table == []
    refused(g, "1 challenge TS", "R-S2", "not on the table")


def test_R_S5_the_engine_knows_no_time_the_closing_pass_ends_the_bout() -> None:
    g = game()
    play(g, "0 attack 6S", "2 attack TS", "1 cover QS 6S", "1 cover 8C TS", "0 pass")
    # until the last pass the cheat may be challenged; the host holds that pass back
    assert g.can_apply(act("1 challenge TS"))
    play(g, "2 pass")
    assert g.table == [] and not g.can_apply(act("1 challenge TS"))
