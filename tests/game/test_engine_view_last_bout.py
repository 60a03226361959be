"""PlayerView.last_bout: the table of the bout that just ended stays visible (R-B10a, R-P4).

A bout can end at once on its last cover; without this field no view would ever show that
cover card, and a bot or a client counting cards would lose track of it.
"""

from __future__ import annotations

from localdurak.game.cards import Card
from tests.support.engine_helpers import make, play

C = Card.parse


def test_R_P4_a_defended_duren_lead_ends_at_once_and_the_cover_stays_visible() -> None:
    # Dureń, clubs trump; dealer 1, so seat 0 (the dealer's left) leads against seat 1.
    g = make(["7H 7D 9S 9C QH", "8H 8D TS JS KD"], trump="AC", dealer=1, variant="duren")
    play(g, "0 attack 9S", "1 cover TS 9S")
    assert g.table == []  # the bout ended on the cover (R-P4)
    for seat in (0, 1, None):
        v = g.view(seat)
        assert v.last_bout == ((C("9S"), C("TS")),)
        assert v.last_bout_taken is False


def test_R_B8_a_take_is_reported_with_its_cards() -> None:
    g = make(["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"], trump="AC")
    first = g.attacker
    assert first is not None
    defender = 1 - first
    lead = "6S" if first == 0 else "6H"
    play(g, f"{first} attack {lead}", f"{defender} take", f"{first} pass")
    v = g.view(defender)
    assert v.last_bout == ((C(lead), None),)
    assert v.last_bout_taken is True
    assert g.view(first).last_bout == v.last_bout


def test_a_fresh_game_has_no_last_bout() -> None:
    g = make(["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"], trump="AC")
    assert g.view(0).last_bout == () and g.view(0).last_bout_taken is False
