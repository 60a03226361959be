"""An independent second reading of rules.md sections B, D, F and T against the engine.

Each test states what the rule book says, in a position built by hand
(tests/support/engine_helpers), not what the engine happens to do.
"""

from __future__ import annotations

import pytest

from localdurak.game.actions import Do, GameResult
from localdurak.game.cards import Card, Suit, deck_cards
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from tests.support.engine_helpers import make, play, position, refused

C = Card.parse
PEREVOD = {"variant": "perevodnoy"}


def legal(g: Game, seat: int) -> set[str]:
    out = set()
    for a in g.legal_actions(seat):
        if a.do is Do.ATTACK:
            out.add("attack " + " ".join(str(c) for c in a.cards))
        elif a.do is Do.COVER:
            out.add(f"cover {a.card} {a.on}")
        elif a.card is not None:
            out.add(f"{a.do.value} {a.card}")
        else:
            out.add(a.do.value)
    return out


# --- R-B4 -----------------------------------------------------------------------------


def test_R_B4c_after_take_throw_ins_count_against_the_defenders_hand() -> None:
    # The defender holds 2; one card uncovered; he takes: one more may be thrown in.
    g = position(["6S 6H 6D 7S", "9C TC", "8S 8H"], attacker=0, trump="C")
    play(g, "0 attack 6S", "1 take")
    assert legal(g, 0) == {"attack 6H", "attack 6D", "pass"}
    refused(g, "0 attack 6H 6D", "R-B4c")
    play(g, "0 attack 6H")
    # R-B10b: two uncovered, two in his hand: the limits allow nothing more, at once.
    assert g.table == [] and sorted(map(str, g.hand(1))) == sorted(["6S", "6H", "9C", "TC"])
    assert (g.attacker, g.defender) == (2, 0)  # R-B11: the next on the defender's left


def test_R_B4c_covered_cards_before_take_do_not_count_but_the_smaller_hand_does() -> None:
    g = position(["6S 6H 6D 7S", "9S TC JC", "8S 8H"], attacker=0, trump="C")
    play(g, "0 attack 6S", "1 cover 9S 6S", "1 take")
    # he holds 2 now, nothing uncovered: 2 more may go on the table
    assert g.phase == "taking"
    play(g, "0 attack 6H 6D")
    assert g.table == [] and g.count(1) == 6


def test_R_B4b_five_card_limit_stays_after_a_take_and_lifts_after_a_defence() -> None:
    g = position(
        ["6S 6H 6D 7S 7H 9D", "7C 8C TS TH JS QS", "AS AH AD KS KH KD"],
        attacker=0,
        trump="C",
        stock="QD QH JD JH TD 9C",
        defended=False,
    )
    assert g.limit == 5
    play(g, "0 attack 6S 6H 6D", "1 cover 7C 6S", "1 take", "0 attack 7S")
    refused(g, "0 attack 7H 9D", "R-B3")
    play(g, "0 attack 7H")
    # five cards: R-B4b allows nothing more, the bout ends at once (R-B10b)
    assert g.table == [] and g.limit == 5
    assert (g.attacker, g.defender) == (2, 0)
    g2 = position(
        ["6S 7S 9D", "8S 9S TS", "AS AH AD"],
        attacker=0,
        trump="C",
        stock="QD QH JD JH TD 9C",
        defended=False,
    )
    play(g2, "0 attack 6S", "1 cover 8S 6S", "0 pass", "2 pass")
    assert g2.limit == 6 and g2.defended_once


def test_R_B4b_off_six_from_the_first_bout() -> None:
    g = position(["6S", "7S"], attacker=0, trump="C", defended=False, first_bout_five=False)
    assert g.limit == 6


# --- R-B6 / R-B7 ----------------------------------------------------------------------


def test_R_B6_two_players_back_to_the_attacker_counts_his_hand_after_his_attack() -> None:
    # Seat 0 keeps 1 card after attacking with two: a transfer making 3 attack cards is refused.
    g = position(["6S 6H 9D", "6D 7D 8D 9S"], attacker=0, trump="C", **PEREVOD)
    play(g, "0 attack 6S 6H")
    assert "transfer 6D" not in legal(g, 1)
    refused(g, "1 transfer 6D", "R-B6", "fewer than the 3")
    g2 = position(["6S 6H 9D TD", "6D 7D 8D 9S"], attacker=0, trump="C", **PEREVOD)
    play(g2, "0 attack 6S", "1 transfer 6D")
    assert (g2.attacker, g2.defender) == (1, 0)
    assert "transfer 6H" in legal(g2, 0)  # he may transfer again: back to seat 1


def test_R_B6_transfer_skips_a_player_who_is_out() -> None:
    hands = ["6S 9D", "6H 7H 8H", "", "TS JS QS"]
    g = position(hands, attacker=0, trump="C", out=[2], **PEREVOD)
    play(g, "0 attack 6S", "1 transfer 6H")
    assert (g.attacker, g.defender) == (1, 3)
    assert g.attackers == [0, 1]


def test_R_B6_the_transferrer_is_main_attacker_for_first_word() -> None:
    hands = ["6S 6D 9D", "6H 7H 8H", "TS JS QS 6C", "AS AH AD"]
    g = position(hands, attacker=0, trump="C", throw_in_order="first_word", **PEREVOD)
    play(g, "0 attack 6S", "1 transfer 6H")
    assert (g.attacker, g.defender) == (1, 2)
    # seat 0 waits for the new main attacker's Done (R-B3); seat 1 may throw in at once
    assert legal(g, 0) == {"pass"}
    play(g, "1 pass")
    assert "attack 6D" in legal(g, 0)


def test_R_B7_show_back_to_the_attacker_in_two_players_and_once_per_trump() -> None:
    hands = ["7S 7H 9D TD JD", "7C 7D 9S KS"]
    g = position(hands, attacker=0, trump="C", trump_show=True, **PEREVOD)
    play(g, "0 attack 7S", "1 show 7C")
    assert (g.attacker, g.defender) == (1, 0) and C("7C") in g.hand(1)
    assert C("7C") in g.known(1)
    play(g, "0 transfer 7H")
    assert (g.attacker, g.defender) == (0, 1)
    assert "show 7C" not in legal(g, 1)
    refused(g, "1 show 7C", "R-B7", "already shown")
    assert {"transfer 7C", "transfer 7D"} <= legal(g, 1)


def test_R_B7_a_show_changes_the_table_for_R_B9() -> None:
    hands = ["7S 9D", "7C 7D 9S KS", "AS AH AD", "7H 8H"]
    g = position(hands, attacker=0, trump="C", trump_show=True, **PEREVOD)
    play(g, "0 attack 7S", "3 pass")
    assert g.passed == [3]
    play(g, "1 show 7C")
    assert g.passed == [] and g.defender == 2


def test_R_B7_no_show_in_the_first_bout_when_transfers_are_off() -> None:
    hands = ["7S 7C 9S TS JS QS", "6C 7D 8D 9D TD JD"]
    opts = {"trump_show": True, **PEREVOD}
    g = make(hands, trump="AC", transfer_first_bout=False, **opts)
    assert (g.attacker, g.defender) == (1, 0)  # 6C is the lowest trump (R-F1)
    play(g, "1 attack 7D")
    assert legal(g, 0) == {"cover 7C 7D", "take"}
    refused(g, "0 show 7C", "R-B6", "first bout")
    g = make(hands, trump="AC", **opts)
    play(g, "1 attack 7D")
    assert {"show 7C", "transfer 7S", "transfer 7C"} <= legal(g, 0)


# --- R-B9 -----------------------------------------------------------------------------


def test_R_B9_an_attacker_without_cards_has_passed_and_may_not_pass() -> None:
    g = position(["6S", "7S 8S 9S", "6H 8H"], attacker=0, trump="C")
    play(g, "0 attack 6S")
    assert legal(g, 0) == set()
    refused(g, "0 pass", "R-B9")
    play(g, "1 cover 7S 6S", "2 pass")
    assert g.table == [] and g.out == [0]


def test_R_B9_a_pass_is_refused_to_a_non_attacker_and_before_the_opening() -> None:
    g = position(["6S 7D", "7S 8S 9S", "6H 8H"], attacker=0, trump="C")
    refused(g, "0 pass", "R-B1")
    refused(g, "2 pass", "R-B1")


# --- R-B10 ----------------------------------------------------------------------------


def test_R_B10a_the_sixth_card_covered_ends_the_bout_at_once() -> None:
    g = position(
        ["6S 6H 6D 6C 7C 8S", "7S 7H 7D 8C 9C TC KD", "QS KS"],
        attacker=0,
        trump="C",
    )
    play(g, "0 attack 6S 6H 6D", "1 cover 7S 6S", "1 cover 7H 6H", "1 cover 7D 6D")
    play(g, "0 attack 6C 7C", "1 cover 8C 6C", "0 attack 8S")
    assert legal(g, 0) == set() and legal(g, 2) == {"pass"}  # R-B4a: six on the table
    play(g, "1 cover 9C 7C")
    assert g.table and g.passed == []
    play(g, "1 cover TC 8S")  # the sixth card covered: nothing more may come
    assert g.table == [] and g.discard_count > 0 and (g.attacker, g.defender) == (1, 2)


def test_R_B10a_all_covered_and_everyone_without_cards_ends_at_once() -> None:
    g = position(["6S", "7S 8H", "6H"], attacker=0, trump="C")
    play(g, "0 attack 6S", "2 attack 6H", "1 cover 7S 6S", "1 cover 8H 6H")
    # R-B13: the defender covered with his last card; all three are out: a draw (R-B14)
    assert g.result == GameResult((), True, 0) and g.out == [0, 1, 2]


# --- R-B11 / R-B12 / R-B13 ------------------------------------------------------------


def test_R_B11_after_a_take_the_next_active_player_skips_one_who_went_out() -> None:
    g = position(["6S 9D", "7C 8C", "6H"], attacker=0, trump="C")
    play(g, "0 attack 6S", "1 take", "2 attack 6H")
    assert g.out == [2] and (g.attacker, g.defender) == (0, 1)


def test_R_B11_after_a_defence_by_a_defender_who_is_out_the_next_on_his_left() -> None:
    g = position(["6S 9D", "7S", "6H 8H", "TD JD"], attacker=0, trump="C")
    play(g, "0 attack 6S", "1 cover 7S 6S")
    assert g.out == [1] and (g.attacker, g.defender) == (2, 3)


def test_R_B12_refill_after_a_transfer_opener_first_final_defender_last() -> None:
    hands = ["6S 9D 9H 9S TS TH", "6H 7H 8H JS QS KS", "JD QD KD AH 7S 8S", "TC JC QC KC AC 9C"]
    g = position(hands, attacker=0, trump="C", stock="AS AD 7D 8D 6C", **PEREVOD)
    play(g, "0 attack 6S", "1 transfer 6H", "2 cover 7S 6S", "2 cover AH 6H")
    play(g, "1 pass", "3 pass", "0 pass")
    # opener 0 first, then clockwise 1 (3 is full), the final defender 2 last
    assert g.refill_schedule() == [0, 1, 2, 2]
    assert C("AS") in g.hand(0) and C("AD") in g.hand(1)
    assert {C("7D"), C("8D")} <= set(g.hand(2))
    assert (g.attacker, g.defender) == (2, 3)


def test_R_B13_stock_runs_out_in_the_refill_the_player_left_without_cards_is_out() -> None:
    g = position(["9D AS", "6S", "7S 8H"], attacker=1, trump="C", stock="6C")
    play(g, "1 attack 6S", "2 cover 7S 6S", "0 pass")
    # the opener (seat 1) draws the last card first; nobody else gets one
    assert g.refill_schedule() == [1] and g.out == []
    g = position(["9D AS", "6S", "7S"], attacker=1, trump="C", stock="6C")
    play(g, "1 attack 6S", "2 cover 7S 6S")
    # the defender covered with his last card: at once; seat 1 draws the trump card and
    # stays; seat 2 holds nothing with the stock empty: out
    assert g.refill_schedule() == [1] and g.out == [2] and g.trump_card is None
    assert (g.attacker, g.defender) == (0, 1)


def test_R_B13_out_in_the_same_bout_in_seat_order() -> None:
    g = position(["6S", "6H", "7H 7S 9S AD"], attacker=1, trump="C")
    play(g, "1 attack 6H", "0 attack 6S", "2 cover 7H 6H", "2 cover 7S 6S")
    assert g.out == [0, 1] and g.result == GameResult((2,), False, 2)


# --- R-B14 / R-B15 --------------------------------------------------------------------


def test_R_B14_tie_last_defender_loses_names_the_final_defender_after_a_transfer() -> None:
    opts = {"tie": "last_defender_loses", **PEREVOD}
    g = position(["6S 8S 8H", "6H"], attacker=0, trump="C", **opts)
    play(g, "0 attack 6S", "1 transfer 6H", "0 cover 8S 6S", "0 cover 8H 6H")
    # both out in the same bout; the defender of that bout is seat 0, after the transfer
    assert g.out == [0, 1] and g.result == GameResult((0,), False, 2)
    g = position(["6S 8S 8H", "6H"], attacker=0, trump="C", **PEREVOD)
    play(g, "0 attack 6S", "1 transfer 6H", "0 cover 8S 6S", "0 cover 8H 6H")
    assert g.result == GameResult((), True, 0)


@pytest.mark.parametrize(
    ("deck", "low"),
    [(24, "9"), (36, "6"), (52, "2")],
)
def test_R_B15_pogony_lowest_rank_of_the_deck_trumps_excluded(deck: int, low: str) -> None:
    g = position([f"{low}S {low}H {low}C", "AS AH AD KS"], attacker=0, trump="C", deck=deck)
    play(g, f"0 attack {low}S {low}H {low}C", "1 take")
    assert g.result == GameResult((1,), False, 2)


def test_R_B15_transferred_cards_are_attack_cards_of_the_last_bout() -> None:
    g = position(["6S", "6H", "AS AH AD KS"], attacker=0, trump="C", **PEREVOD)
    play(g, "0 attack 6S", "1 transfer 6H", "2 take")
    assert g.out == [0, 1] and g.result == GameResult((2,), False, 2)


def test_R_B15_japanese_the_trump_is_diamonds() -> None:
    g = position(["6S 6H 6D", "AS AH AD KS"], attacker=0, trump="D", japanese=True)
    play(g, "0 attack 6S 6H 6D", "1 take")
    assert g.result == GameResult((1,), False, 2)


# --- R-D / R-F ------------------------------------------------------------------------


def test_R_D3_24_cards_four_players_the_dealers_last_card_is_shown() -> None:
    deck = list(deck_cards(24))
    g = Game.deal(Rules(deck=24), 4, 1, deck)
    last = deck[23]
    assert g.stock_count == 0 and g.trump_card is None and g.trump == last.suit
    assert last in g.hand(1) and last in g.known(1)
    for s in range(4):
        assert last in g.view(s).others[1].known


def test_R_D3_japanese_shows_nothing() -> None:
    deck = list(deck_cards(36))
    g = Game.deal(Rules(japanese=True), 6, 0, deck)
    assert g.trump == Suit.DIAMONDS and g.trump_card is None and g.stock_count == 0
    assert all(c.suit == Suit.DIAMONDS for s in range(6) for c in g.known(s))


def test_R_D4_japanese_the_stock_is_the_rest_of_the_deck() -> None:
    deck = list(deck_cards(36))
    g = Game.deal(Rules(japanese=True), 2, 1, deck)
    assert g.stock_count == 24 and g.trump_card is None
    assert g.stock_cards() == deck[12:]


def test_R_F1_lowest_trump_across_seats_with_R_D3() -> None:
    deck = list(deck_cards(36))
    g = Game.deal(Rules(), 6, 5, deck)
    assert deck[35] == C("AC") and deck[27] == C("6C")
    # R-D3: AC names clubs; 6C, the lowest trump, was dealt 28th: to seat (5+1+27) % 6 = 3
    assert g.trump_card is None and g.attacker == 3 and C("AC") in g.known(5)


def test_R_F2_at_durak_with_pairs_teams() -> None:
    hands = [" ".join(str(c) for c in deck_cards(36)[i * 6 : i * 6 + 6]) for i in range(6)]
    prev = GameResult((1, 4), False, 0)
    g = make(hands, previous=prev, teams="pairs")
    assert (g.attacker, g.defender) == (0, 1)
    g = make(hands, previous=prev, teams="pairs", next_first_attack="from_durak")
    assert (g.attacker, g.defender) == (2, 3)


# --- R-T2 -----------------------------------------------------------------------------


def test_R_T2_neighbours_with_teams_are_the_nearest_opponents() -> None:
    hands = ["6S 7S", "8S 9S TS", "6H 7H", "6D 7D", "QS KS", "6C 7C"]
    g = position(hands, attacker=0, trump="C", teams="3v3", throw_in="neighbours")
    assert g.defender == 1 and g.attackers == [0, 2]
    play(g, "0 attack 6S")
    refused(g, "3 pass", "R-B9")
    refused(g, "4 pass", "R-B9")
    refused(g, "4 attack QS", "R-B2")


def test_R_T2_the_next_attacker_after_a_take_may_be_the_defenders_partner() -> None:
    hands = ["6S 7D", "8S 9S", "", "6H 7H"]
    g = position(hands, attacker=0, trump="C", teams="2v2", out=[2])
    play(g, "0 attack 6S", "1 take", "0 pass")
    # R-B11: the next active player on the defender's left is seat 3 (his partner);
    # R-F3 / R-T2: he attacks his next active opponent, seat 0
    assert (g.attacker, g.defender) == (3, 0)
    assert g.attackers == [1, 3]
