"""Podkidnoy (rules.md D, F, B): each rule with a hand-built deal so the situation is exact."""

from __future__ import annotations

import pytest

from localdurak.game.actions import Action, Do, GameResult, IllegalAction
from localdurak.game.cards import Card, Suit, deck_cards, parse_cards
from localdurak.game.engine import Game
from localdurak.game.rules import Rules, RulesError
from tests.support.engine_helpers import hand, make, play, position, refused

C = Card.parse
# Two players, 36 cards, clubs trump (6C turned); seat 0 attacks first (7C is the lowest trump).
A0 = "6S 6H 7S 8D 9D 7C"
A1 = "7H 8S 6D QS KH 8C"


def two() -> Game:
    return make([A0, A1], trump="6C")


def test_R_D1_deals_one_card_at_a_time_clockwise_from_the_dealers_left() -> None:
    deck = list(deck_cards(36))
    g = Game.deal(Rules(), 3, 1, deck)
    # seat 2 (dealer's left) gets cards 0, 3, 6, ...; seat 0 gets 1, 4, ...; seat 1 gets 2, 5, ...
    assert set(g.hand(2)) == set(deck[0:18:3])
    assert set(g.hand(0)) == set(deck[1:18:3])
    assert set(g.hand(1)) == set(deck[2:18:3])


def test_R_D2_next_card_is_the_trump_card_drawn_last() -> None:
    deck = list(deck_cards(36))
    g = Game.deal(Rules(), 2, 1, deck)
    assert g.trump_card == deck[12] and g.trump == deck[12].suit
    assert g.stock_count == 24
    assert g.stock_cards() == [*deck[13:], deck[12]]


def test_R_D3_no_card_left_the_dealers_last_card_names_trump_and_stays() -> None:
    deck = list(deck_cards(36))
    g = Game.deal(Rules(), 6, 2, deck)
    last = deck[35]
    assert g.trump == last.suit and g.trump_card is None and g.stock_count == 0
    assert last in g.hand(2)
    assert last in g.known(2)  # shown to everyone
    assert last in g.view(0).others[2].known


def test_R_D4_japanese_diamonds_are_trump_and_nothing_is_turned() -> None:
    deck = list(deck_cards(36))
    g = Game.deal(Rules(japanese=True), 2, 1, deck)
    assert g.trump == Suit.DIAMONDS and g.trump_card is None
    assert g.stock_cards() == deck[12:]


def test_R_D_deck_must_be_a_permutation_of_the_rules_deck() -> None:
    deck = list(deck_cards(36))
    with pytest.raises(ValueError, match="R-C1"):
        Game.deal(Rules(), 2, 0, deck[:-1] + deck[:1])  # a card twice
    for wrong in (
        [*deck[:-1], C("2S")],  # a card of the 52-card deck only
        deck[:-1],  # one short
        [*deck, C("2S")],  # one too many
        [*deck[:-1], Card(-1)],  # not a card
        [*deck[:-1], Card(52)],
    ):
        with pytest.raises(RulesError, match="R-C1"):
            Game.deal(Rules(), 2, 0, wrong)
    Game.deal(Rules(), 2, 0, [int(c) for c in reversed(deck)])  # plain indices are cards


# --- F: first attack ----------------------------------------------------------------


def test_R_F1_lowest_trump_attacks_first_and_shows_it() -> None:
    g = two()
    assert g.attacker == 0 and g.defender == 1  # 7C beats 8C as the lowest trump
    assert g.known(0) == [C("7C")] and g.known(1) == []
    g = make([A1, A0], trump="6C")
    assert g.attacker == 1 and g.defender == 0


def test_R_F1_nobody_holds_a_trump_the_dealers_left_attacks() -> None:
    g = make(["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"], trump="6C", dealer=0)
    assert g.attacker == 1
    g = make(["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"], trump="6C", dealer=1)
    assert g.attacker == 0


def test_R_F3_defender_is_the_next_active_player_on_the_left() -> None:
    g = make(["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH", "6D 7D 8D 9D TD JD"], trump="6C", dealer=1)
    assert (g.attacker, g.defender) == (2, 0)


# --- B: the bout --------------------------------------------------------------------


def test_R_B1_open_with_one_card_or_several_of_one_rank() -> None:
    g = two()
    refused(g, "1 attack 7H", "R-B1", "main attacker")
    refused(g, "0 attack 6S 7S", "R-B1", "one rank")
    refused(g, "0 pass", "R-B1")
    assert g.legal_actions(1) == []
    assert {a.cards for a in g.legal_actions(0)} == {(c,) for c in parse_cards(A0.split())}
    play(g, "0 attack 6S 6H")
    assert g.table == [(C("6S"), None), (C("6H"), None)]


def test_R_B2_neighbours_only_the_defenders_nearest_opponents_throw_in() -> None:
    hands = ["6S 7S 8S 9S TS 7C", "6H 7H 8H 9H TH JH", "6D 7D 8D 9D TD JD", "JS QS KS AS QH KH"]
    g = make(hands, trump="6C", throw_in="neighbours")
    assert (g.attacker, g.defender) == (0, 1) and g.attackers == [0, 2]
    play(g, "0 attack 6S")
    refused(g, "3 pass", "R-B9", "not an attacker")
    play(g, "2 attack 6D")
    g = make(hands, trump="6C")
    assert g.attackers == [0, 2, 3]


def test_R_B3_throw_in_a_rank_already_on_the_table() -> None:
    g = make(["6S 7S 8S 9S JC 7C", "6H 7H 8H 9H TH JH", "6D 7D 8D QS TD JD"], trump="6C")
    play(g, "0 attack 9S")
    refused(g, "2 attack 6D", "R-B3", "rank already on the table")
    assert g.legal_actions(2) == [Action(2, Do.PASS)]
    play(g, "2 pass")


def test_R_B3_throw_in_on_a_cover_rank_by_several_cards() -> None:
    g = make(["6S 7S 8S 9S JC 7C", "6H 7H 8H 9H TH TS", "6D 7D 8D TD JD JS"], trump="6C")
    play(g, "0 attack 9S", "1 cover TS 9S")
    # ten is on the table as a cover: seat 2 may throw in TD; seat 0 has no nine or ten left
    assert Action(2, Do.ATTACK, (C("TD"),)) in g.legal_actions(2)
    assert [a.do for a in g.legal_actions(0)] == [Do.PASS]
    play(g, "2 attack TD")
    assert g.table[-1] == (C("TD"), None)


def test_R_B3_first_word_others_wait_for_the_main_attackers_done() -> None:
    hands = ["6S 7S 8S 9S JC 7C", "6H 7H 8H 9H TH TS", "6D 7D 8D TD JD JS"]
    g = make(hands, trump="6C", throw_in_order="first_word")
    play(g, "0 attack 6S")
    refused(g, "2 attack 6D", "R-B3", "said Done")
    assert g.legal_actions(2) == [Action(2, Do.PASS)]  # he may pass before
    play(g, "0 pass", "2 attack 6D", "1 cover TS 6S")
    # the table changed: the main attacker's Done no longer counts
    refused(g, "2 attack TD", "R-B3", "said Done")
    play(g, "0 pass", "2 attack TD")
    g = make(hands, trump="6C")  # free: in arrival order
    play(g, "0 attack 6S", "2 attack 6D")


def test_R_B4a_at_most_six_attack_cards_then_R_B10a_ends_at_once() -> None:
    g = position(["6S 6D 6C 7D 7C 8S", "7S 8D 8C 9S 9D 9C TS", "9H QS"], attacker=0, trump="H")
    assert g.limit == 6
    play(g, "0 attack 6S 6D 6C", "1 cover 7S 6S", "1 cover 8D 6D", "1 cover 8C 6C")
    play(g, "0 attack 7D", "1 cover 9D 7D", "0 attack 7C 8S")
    e = refused(g, "2 attack 9H", "R-B4a")
    assert str(e) == "R-B4a: a bout holds at most 6 attack cards, so no more may be played"
    assert g.legal_actions(2) == [Action(2, Do.PASS)]
    play(g, "1 cover 9C 7C")
    assert g.table
    # R-B10a: every attack card covered and R-B4 allows nothing more: bito, without passes
    play(g, "1 cover 9S 8S")
    assert g.table == [] and g.attacker == 1 and g.discard_count == 36 - 3


def test_R_B4b_first_bout_five_then_six() -> None:
    hands = ["6S 6H 6D 7D 8S 8H", "7S 7H 8D 9S 9H 9D", "QS KS AS QH KH AH"]
    g = make(hands, trump="6C")
    assert g.limit == 5 and g.attacker == 0  # nobody holds a club: the dealer's left
    play(g, "0 attack 6S 6H 6D", "1 cover 7S 6S", "1 cover 7H 6H", "1 cover 8D 6D")
    play(g, "0 attack 7D 8S")
    e = refused(g, "0 attack 8H", "R-B4b", "at most 5")
    assert str(e) == (
        "R-B4b: until the first successful defence of the game a bout holds at most 5, "
        "so no more may be played"
    )
    play(g, "1 cover 9D 7D", "1 cover 9S 8S")  # five covered: R-B4b allows no more, bito
    assert g.table == [] and g.limit == 6  # a successful defence happened
    assert make(hands, trump="6C", first_bout_five=False).limit == 6


def test_R_B4c_uncovered_cards_never_outnumber_the_defenders_hand() -> None:
    g = position(["6S 6H 6D 6C 7S", "8S 8H 9S", "QS KS AS QH KH AH"], attacker=0, trump="H")
    e = refused(g, "0 attack 6S 6H 6D 6C", "R-B4c")
    assert str(e) == "R-B4c: the defender holds 3 cards, so only 3 more may be thrown in"
    play(g, "0 attack 6S 6D")
    e = refused(g, "0 attack 6C 6H", "R-B4c")
    assert str(e) == "R-B4c: the defender holds 3 cards, so only 1 more may be thrown in"
    play(g, "0 attack 6C")
    assert g.legal_actions(0) == [Action(0, Do.PASS)]  # 6H would be a fourth uncovered card


def test_R_B5_cover_higher_same_suit_or_trump() -> None:
    g = two()
    play(g, "0 attack 6S")
    legal = {(a.card, a.on) for a in g.legal_actions(1) if a.do is Do.COVER}
    assert legal == {(C("8S"), C("6S")), (C("QS"), C("6S")), (C("8C"), C("6S"))}
    refused(g, "1 cover 7H 6S", "R-B5", "does not beat")
    refused(g, "1 cover 6D 6S", "R-B5")
    refused(g, "0 cover 7S 6S", "R-B5", "only the defender")
    play(g, "1 cover 8C 6S")


def test_R_B5_a_trump_is_covered_only_by_a_higher_trump() -> None:
    g = make(["6S 6H 7S 8D 9D 7C", "7H 8S 6D QS KH 8C"], trump="6C")
    play(g, "0 attack 7C")
    assert {(a.card, a.on) for a in g.legal_actions(1) if a.do is Do.COVER} == {(C("8C"), C("7C"))}
    e = refused(g, "1 cover QS 7C", "R-B5")
    assert "higher trump" in str(e)


def test_R_B5_cover_attack_cards_in_any_order() -> None:
    g = position(["6S 6H", "7H 7S AC", "QS KS"], attacker=0, trump="C")
    play(g, "0 attack 6S 6H", "1 cover 7H 6H", "1 cover 7S 6S")
    assert g.table == [(C("6S"), C("7S")), (C("6H"), C("7H"))]


def test_R_B5_japanese_a_spade_only_by_a_higher_spade() -> None:
    g = make(["6S 6H 7S 8D 9D 7C", "7H 8S 6D QS KH 8C"], trump="6C", japanese=True)
    assert g.trump == Suit.DIAMONDS and g.attacker == 1  # 6D is the lowest trump
    play(g, "1 attack 7H")
    assert {(a.card, a.on) for a in g.legal_actions(0) if a.do is Do.COVER} == {
        (C("8D"), C("7H")),
        (C("9D"), C("7H")),
    }
    g = make(["6S 6H 7S 8D 9D 7C", "7H 8S 6D QS KH 8C"], trump="6C", japanese=True)
    play(g, "1 attack 8S")
    e = refused(g, "0 cover 8D 8S", "R-B5", "higher spade")
    assert "Japanese" in str(e)
    assert [a.do for a in g.legal_actions(0)] == [Do.TAKE]


def test_R_B8_take_even_when_all_covered_then_throw_in_then_pick_up_all() -> None:
    g = two()
    play(g, "0 attack 6S", "1 cover 8S 6S", "1 take")
    assert g.phase == "taking"
    assert g.legal_actions(1) == []
    refused(g, "1 cover QS 6S", "R-B8")
    refused(g, "1 take", "R-B8")
    play(g, "0 attack 6H", "0 attack 8D")  # thrown in after the take (навздогін)
    assert g.phase == "taking"
    play(g, "0 pass")
    assert g.phase == "bout" and g.table == []
    assert {"6S", "8S", "6H", "8D"} <= set(hand(g, 1).split()) and g.count(1) == 9
    assert set(g.known(1)) == set(parse_cards(["6S", "8S", "6H", "8D"]))
    assert g.attacker == 0 and g.defender == 1  # R-B11: the next on the taker's left


def test_R_B9_a_second_pass_is_refused_until_the_table_changes() -> None:
    g = make([A0, A1, "TS JS TH JH TD JD"], trump="6C")
    play(g, "0 attack 6S", "0 pass")
    refused(g, "0 pass", "R-B9", "already passed")
    refused(g, "0 attack 6H", "R-B9", "has passed")
    play(g, "1 cover 8S 6S")  # the table changed: seat 0 may act again
    assert Action(0, Do.PASS) in g.legal_actions(0)
    assert Action(0, Do.ATTACK, (C("8D"),)) in g.legal_actions(0)


def test_R_B9_defender_does_not_pass() -> None:
    g = two()
    play(g, "0 attack 6S")
    refused(g, "1 pass", "R-B9", "defender")


def test_R_B9_an_attacker_without_cards_has_passed() -> None:
    g = position(["6S", "7S 8S 9S", "TD JD QD"], attacker=0, trump="H", stock="")
    play(g, "0 attack 6S", "1 cover 7S 6S", "2 pass")
    # seat 0 holds nothing: the bout ends without his pass
    assert g.table == [] and 0 in g.out


def test_R_B10a_successful_defence_when_all_covered_and_all_passed() -> None:
    g = make([A0, A1, "TS JS TH JH TD JD"], trump="6C")
    play(g, "0 attack 6S", "1 cover 8S 6S", "0 pass")
    assert g.table  # seat 2 has not passed
    play(g, "2 pass")
    assert g.table == [] and g.discard_count == 2
    assert g.attacker == 1 and g.defender == 2  # R-B11: the defender attacks next


def test_R_B10b_take_ends_once_every_attacker_passed_or_at_once_at_the_limit() -> None:
    g = position(["6S 6H 7S", "8S 9H", "QS KS AS"], attacker=0, trump="C")
    play(g, "0 attack 6S", "1 take", "0 attack 6H")
    # two uncovered cards, the defender holds two: R-B4c allows nothing more
    assert g.table == [] and g.count(1) == 4 and g.attacker == 2


def test_R_B11_after_a_take_the_next_player_on_the_defenders_left() -> None:
    g = make([A0, A1, "TS JS TH JH TD JD"], trump="6C")
    play(g, "0 attack 6S", "1 take", "0 pass", "2 pass")
    assert (g.attacker, g.defender) == (2, 0)


def test_R_B12_refill_opener_first_clockwise_defender_last() -> None:
    g = make([A0, A1, "8H JS TH JH TD JD"], trump="6C", stock="AS AH AD")
    play(g, "0 attack 6S", "1 cover 8S 6S", "2 attack 8H", "1 cover KH 8H", "0 pass", "2 pass")
    assert g.refill_schedule() == [0, 2, 1, 1]
    assert C("AS") in g.hand(0) and C("AH") in g.hand(2) and C("AD") in g.hand(1)


def test_R_B13_going_out_with_the_stock_empty() -> None:
    g = position(["6S", "7S 8H", "TD JD"], attacker=0, trump="C")
    play(g, "0 attack 6S", "1 cover 7S 6S", "2 pass")
    assert g.out == [0] and (g.attacker, g.defender) == (1, 2)


def test_R_B13_defender_covering_with_his_last_card_ends_the_bout_at_once() -> None:
    g = position(["6S 6H", "7S", "TD JD"], attacker=0, trump="C")
    play(g, "0 attack 6S", "1 cover 7S 6S")
    assert g.table == [] and g.out == [1]
    assert (g.attacker, g.defender) == (2, 0)  # R-B11: he is out, the next on his left


def test_R_B14_the_last_player_with_cards_is_the_durak() -> None:
    g = position(["7D", "8D 8H"], attacker=0, trump="C")
    play(g, "0 attack 7D", "1 cover 8D 7D")
    assert g.result == GameResult((1,), False, 0) and g.phase == "over"
    assert g.attacker is None and g.defender is None and g.out == [0]
    assert all(g.legal_actions(s) == [] for s in range(2))
    refused(g, "1 pass", "R-B14", "over")


def test_R_B14_both_out_in_the_same_bout_is_a_draw() -> None:
    g = position(["6S", "7S"], attacker=0, trump="C")
    play(g, "0 attack 6S", "1 cover 7S 6S")
    assert g.result == GameResult((), True, 0) and g.out == [0, 1]


def test_R_B14_tie_last_defender_loses() -> None:
    g = position(["6S", "7S"], attacker=0, trump="C", tie="last_defender_loses")
    play(g, "0 attack 6S", "1 cover 7S 6S")
    assert g.result == GameResult((1,), False, 1)  # and 6S is his epaulette (R-B15)


def test_R_B15_pogony_counts_the_lowest_non_trump_attack_cards() -> None:
    g = position(["6S 6H 6C", "7S 8S 9S AD"], attacker=0, trump="C")
    play(g, "0 attack 6S 6H 6C", "1 take")
    # seat 0 holds nothing (he has passed): the take ends the bout and the game
    assert g.result == GameResult((1,), False, 2)  # 6S 6H; the trump 6C is no epaulette


def test_R_B15_no_pogony_when_the_durak_did_not_defend_the_last_bout() -> None:
    g = position(["6S 6H 9D", "7S 7H"], attacker=0, trump="C")
    play(g, "0 attack 6S 6H", "1 cover 7S 6S", "1 cover 7H 6H")
    assert g.result == GameResult((0,), False, 0)


def test_refused_action_names_the_rule_and_changes_nothing() -> None:
    g = two()
    refused(g, "1 cover 8S 6S", "R-B5", "not an attack card")
    refused(g, "0 attack KS", "R-S1", "does not hold")
    refused(g, "7 pass", "R-C3")


def test_listed_action_is_rechecked_once_the_game_changed() -> None:
    g = two()
    listed = g.legal_actions(0)
    six = next(a for a in listed if a.cards == (C("6S"),))
    g.apply(six)
    # the same object, listed before the table changed, is no longer legal
    with pytest.raises(IllegalAction, match="R-S1"):
        g.apply(six)
    # an equal action, not the listed object, is checked in full
    g2 = two()
    g2.legal_actions(0)
    g2.apply(Action(0, Do.ATTACK, (C("6S"),)))
    assert g2.table == g.table


def test_R_C3_two_to_six_seats_and_attacks_go_to_the_left() -> None:
    with pytest.raises(ValueError, match="R-C3"):
        Game.deal(Rules(), 7, 0, list(deck_cards(52)))
    g = make(["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH", "7C 7D 8D 9D TD JD"], trump="6C")
    assert (g.attacker, g.defender) == (2, 0)  # from seat 2, "left" wraps round to seat 0
    refused(g, "3 pass", "R-C3", "no seat 3")
    with pytest.raises(ValueError, match="R-C3"):
        g.legal_actions(3)


def test_R_B2_neighbours_skip_players_who_are_out() -> None:
    hands = ["6S 7S", "8S 9S TS", "", "6H 7H", "6D 7D"]
    g = position(hands, attacker=0, out=[2], throw_in="neighbours")
    assert (g.attacker, g.defender) == (0, 1) and g.attackers == [0, 3]
    play(g, "0 attack 6S")
    refused(g, "4 attack 6D", "R-B2", "nearest opponents")


def test_R_B9_declaring_take_changes_the_table() -> None:
    g = make([A0, A1, "TS JS TH JH TD JD"], trump="6C")
    play(g, "0 attack 6S", "2 pass")
    assert g.passed == [2]
    play(g, "1 take")
    assert g.passed == [] and Action(2, Do.PASS) in g.legal_actions(2)
