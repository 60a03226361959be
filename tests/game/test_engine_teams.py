"""Teams (R-T1..R-T3): partners never attack each other; the team is the durak."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localdurak.game.actions import Action, Do, GameResult, IllegalAction
from localdurak.game.cards import Card, deck_cards
from localdurak.game.rules import Rules, RulesError
from tests.support.engine_helpers import act, make, play, position

C = Card.parse
# 2v2: seats 0 and 2 against 1 and 3; clubs trump, seat 0 holds the lowest trump.
H4 = ["6S 7S 8S 9S 7C TS", "7H 8H 9H TH JH QH", "6H 7D 8D 9D TD JD", "6D JS QS KS AS KH"]


def test_R_T1_team_layouts() -> None:
    g = make(H4, trump="6C", teams="2v2")
    assert [g.team(s) for s in range(4)] == [0, 1, 0, 1]
    assert g.view(0).teams == (0, 1, 0, 1)
    six = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH", "6D 7D 8D 9D TD JD"]
    six += ["QS KS AS QH KH AH", "6C 7C 8C 9C TC JC", "QD KD AD QC KC AC"]
    g = make(six, teams="pairs")  # R-D3: all 36 cards dealt
    assert [g.team(s) for s in range(6)] == [0, 1, 2, 0, 1, 2]
    g = make(six, teams="3v3")
    assert [g.team(s) for s in range(6)] == [0, 1, 0, 1, 0, 1]
    with pytest.raises(RulesError, match="R-T1"):
        Rules(teams="2v2").check_seats(3)


def test_R_T2_partners_never_throw_in_against_each_other() -> None:
    g = make(H4, trump="6C", teams="2v2")
    assert (g.attacker, g.defender) == (0, 1) and g.attackers == [0, 2]
    play(g, "0 attack 6S")
    with pytest.raises(IllegalAction, match="partner") as e:
        g.apply(act("3 attack 6D"))
    assert e.value.rule == "R-T2"
    with pytest.raises(IllegalAction, match="not an attacker"):
        g.apply(act("3 pass"))
    assert g.legal_actions(3) == []
    assert Action(2, Do.ATTACK, (C("6H"),)) in g.legal_actions(2)


def test_R_T2_the_defender_is_the_next_active_opponent() -> None:
    g = position(["6S 9D", "", "7S", "8S 9S"], attacker=0, out=[1], teams="2v2")
    assert (g.attacker, g.defender) == (0, 3)  # seat 2 is his partner
    assert g.attackers == [0, 2]


def test_R_T2_a_transfer_goes_to_the_next_active_opponent() -> None:
    hands = ["6S 9D TD", "6H 7D", "", "8S 9S"]
    g = position(hands, attacker=0, out=[2], teams="2v2", variant="perevodnoy")
    play(g, "0 attack 6S", "1 transfer 6H")
    assert (g.attacker, g.defender) == (1, 0)  # past his partner, seat 3
    assert g.attackers == [1, 3]


def test_R_T3_the_last_team_with_cards_is_the_durak_team() -> None:
    g = position(["6D", "8D", "", "9H"], attacker=0, out=[2], teams="2v2")
    play(g, "0 attack 6D", "1 cover 8D 6D")
    # seat 1 is out, but his partner still holds cards: the whole team is the durak,
    # and a member of it defended the last bout: 6D is an epaulette (R-B15)
    assert g.result == GameResult((1, 3), False, 1)


def test_R_T3_last_teams_out_in_the_same_bout_draw_or_last_defender_loses() -> None:
    g = position(["7D", "8D", "", ""], attacker=0, out=[2, 3], teams="2v2")
    play(g, "0 attack 7D", "1 cover 8D 7D")
    assert g.result == GameResult((), True, 0)
    g = position(
        ["7D", "8D", "", ""], attacker=0, out=[2, 3], teams="2v2", tie="last_defender_loses"
    )
    play(g, "0 attack 7D", "1 cover 8D 7D")
    assert g.result == GameResult((1, 3), False, 0)


def test_R_T4_no_view_shows_a_partners_hand() -> None:
    g = make(H4, trump="6C", teams="2v2")
    v = g.view(0)
    assert v.others[2].known == () and v.others[2].count == 6
    assert v.hand == tuple(g.hand(0))


@settings(max_examples=60, deadline=None)
@given(
    layout=st.sampled_from(
        [("none", n) for n in range(2, 7)] + [("2v2", 4), ("3v3", 6), ("pairs", 6)]
    ),
    out=st.integers(0, 63),
    seat=st.integers(0, 5),
)
def test_R_F3_R_T2_next_seats_on_the_left_and_right_skip_the_out_and_partners(
    layout: tuple[str, int], out: int, seat: int
) -> None:
    """The seat bit-set walks (R-B2 clockwise order) against a plain walk round the table."""
    teams, n = layout
    seat %= n
    g = make(_six_hands(n), teams=teams, deck=52 if n > 4 else 36)
    g._out_mask = out & ((1 << n) - 1)
    left = [(seat + k) % n for k in range(1, n + 1)]
    active = [s for s in left if not g._out_mask >> s & 1]
    assert g._next_active(seat) == (active[0] if active else None)
    opp = [s for s in left[:-1] if not g._out_mask >> s & 1 and g.team(s) != g.team(seat)]
    assert g._next_opponent(seat) == (opp[0] if opp else None)
    right = [(seat - k) % n for k in range(1, n)]
    opp_r = [s for s in right if not g._out_mask >> s & 1 and g.team(s) != g.team(seat)]
    assert g._next_opponent(seat, -1) == (opp_r[0] if opp_r else None)


def _six_hands(n: int) -> list[str]:
    """n hands of six cards from the 52-card deck (36 for up to 4 players)."""
    cards = [str(c) for c in deck_cards(52 if n > 4 else 36)]
    return [" ".join(cards[6 * i : 6 * i + 6]) for i in range(n)]
