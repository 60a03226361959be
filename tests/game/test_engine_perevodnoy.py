"""Perevodnoy: the transfer (R-B6) and the transfer by showing a trump (R-B7)."""

from __future__ import annotations

import pytest

from localdurak.game.actions import Action, Do
from localdurak.game.cards import Card
from localdurak.game.rules import Rules, RulesError
from tests.support.engine_helpers import make, play, position, refused

C = Card.parse
P = {"variant": "perevodnoy"}
# Three players, clubs trump; seat 0 holds the lowest trump (7C) and attacks seat 1.
H3 = ["6S 7S 8S 9D 7C 9S", "6H 6D 8H QS KH 8C", "TS JS TH JH TD JD"]


def test_R_B6_transfer_passes_the_bout_to_the_next_player() -> None:
    g = make(H3, trump="6C", **P)
    play(g, "0 attack 6S")
    assert Action(1, Do.TRANSFER, card=C("6H")) in g.legal_actions(1)
    assert Action(1, Do.TRANSFER, card=C("6D")) in g.legal_actions(1)
    play(g, "1 transfer 6H")
    assert g.table == [(C("6S"), None), (C("6H"), None)]
    # the transferring defender is the main attacker now
    assert (g.attacker, g.defender) == (1, 2) and g.attackers == [0, 1]
    # seat 2 cannot transfer on: seat 0 holds six cards but seat 2 has no six
    assert {a.do for a in g.legal_actions(2)} == {Do.COVER, Do.TAKE}


def test_R_B6_only_while_no_attack_card_is_covered() -> None:
    g = make(H3, trump="6C", **P)
    play(g, "0 attack 6S")
    play(g, "1 cover 8C 6S")
    refused(g, "1 transfer 6H", "R-B6", "no attack card is covered")
    assert all(a.do is not Do.TRANSFER for a in g.legal_actions(1))


def test_R_B6_new_defender_must_hold_as_many_cards_as_the_attack() -> None:
    g = position(["6S 6H 9D", "6D 7D", "TS"], attacker=0, trump="C", **P)
    play(g, "0 attack 6S 6H")
    # seat 2 holds one card: three attack cards would be too many
    refused(g, "1 transfer 6D", "R-B6", "holds 1 card, fewer than the 3")
    assert [a.do for a in g.legal_actions(1)] == [Do.TAKE]


def test_R_B6_two_players_transfer_back_and_the_new_defender_may_transfer_again() -> None:
    g = make(["6S 7S 8S 9D 7C 6D", "6H 9C 8H QS KH 8C"], trump="JC", **P)
    play(g, "0 attack 6S", "1 transfer 6H")
    assert (g.attacker, g.defender) == (1, 0)
    play(g, "0 transfer 6D")
    assert (g.attacker, g.defender) == (0, 1) and len(g.table) == 3


def test_R_B6_transfer_first_bout_off() -> None:
    g = make(H3, trump="6C", transfer_first_bout=False, **P)
    play(g, "0 attack 6S")
    refused(g, "1 transfer 6H", "R-B6", "first bout")
    play(g, "1 cover 8C 6S", "0 pass", "2 pass")
    assert g.bout_number == 1
    play(g, "1 attack 6H", "2 take")  # later bouts transfer as usual (seat 2 has no six)
    with pytest.raises(RulesError):
        Rules(transfer_first_bout=False)  # podkidnoy has no transfers to forbid


def test_R_B6_podkidnoy_has_no_transfer() -> None:
    g = make(H3, trump="6C")
    play(g, "0 attack 6S")
    refused(g, "1 transfer 6H", "R-B6", "perevodnoy only")


def test_R_B12_final_defender_draws_last_also_when_he_opened_the_bout() -> None:
    g = make(["6S 7S 8S 9D 7C 6D", "6H 9C 8H QS KH 8C"], trump="JC", **P)
    play(g, "0 attack 6S", "1 transfer 6H", "0 cover 7S 6S", "0 cover 7C 6H", "1 pass")
    assert g.table == [] and g.refill_schedule() == [1, 0, 0, 0]
    assert (g.attacker, g.defender) == (0, 1)  # R-B11: the defender attacks next


SHOW = dict(P, trump_show=True)
H2 = ["8S 8D 9S 9D 7C TS", "8H 8C QS KH AH 6D"]  # clubs trump (JC turned); seat 0 attacks


def test_R_B7_show_a_trump_of_the_attack_rank_it_stays_in_the_hand() -> None:
    g = make(H2, trump="JC", **SHOW)
    play(g, "0 attack 8S")
    assert Action(1, Do.SHOW, card=C("8C")) in g.legal_actions(1)
    refused(g, "1 show 8H", "R-B7", "show a trump")
    play(g, "1 show 8C")
    assert g.table == [(C("8S"), None)]  # nothing is added
    assert C("8C") in g.hand(1) and g.known(1) == [C("8C")]  # seen by everyone
    assert (g.attacker, g.defender) == (1, 0)


def test_R_B7_each_player_shows_a_given_trump_once_per_bout() -> None:
    g = make(H2, trump="JC", **SHOW)
    play(g, "0 attack 8S", "1 show 8C", "0 transfer 8D")
    assert (g.attacker, g.defender) == (0, 1)
    refused(g, "1 show 8C", "R-B7", "already shown")
    assert Action(1, Do.SHOW, card=C("8C")) not in g.legal_actions(1)
    # a real transfer with that trump, or with 8H, is still possible
    assert Action(1, Do.TRANSFER, card=C("8C")) in g.legal_actions(1)
    assert Action(1, Do.TRANSFER, card=C("8H")) in g.legal_actions(1)


def test_R_B7_the_count_check_of_R_B6_applies() -> None:
    g = position(["8S 8D 9S", "8C 8H QS"], attacker=0, trump="C", **SHOW)
    play(g, "0 attack 8S 8D")
    # the show leaves two attack cards; seat 0 holds one card
    refused(g, "1 show 8C", "R-B7", "holds 1 card, fewer than the 2")


def test_R_B7_only_with_the_trump_show_option() -> None:
    g = make(H2, trump="JC", **P)
    play(g, "0 attack 8S")
    refused(g, "1 show 8C", "R-B7", "does not transfer by showing")
