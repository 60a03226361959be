"""rules.md section O: table options, defaults, and refusing an impossible table."""

import pytest

from localdurak.game.rules import OPTION_NAMES, Rules, RulesError, Variant


def test_defaults_match_section_O() -> None:
    r = Rules()
    assert r.variant is Variant.PODKIDNOY and r.deck == 36 and r.hand_size == 6
    assert r.first_bout_five and r.transfer_first_bout
    assert not (r.trump_show or r.cheating or r.japanese or r.partial_defence)
    assert Rules(variant=Variant.DUREN).hand_size == 5  # R-P1


def test_round_trip_through_dict() -> None:
    r = Rules.from_dict({"variant": "perevodnoy", "deck": 52, "trump_show": True})
    assert Rules.from_dict(r.to_dict()) == r
    assert set(r.to_dict()) == set(OPTION_NAMES)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"colour": "red"}, "unknown table option"),
        ({"deck": 32}, "R-C1"),
        ({"variant": "bridge"}, "variant cannot be"),
        ({"trump_show": True}, "R-B7"),
        ({"variant": "duren", "teams": "2v2"}, "R-P1"),
        ({"partial_defence": True}, "R-P5"),
        ({"cheating": "yes"}, "true or false"),
    ],
)
def test_refuses_impossible_options(data: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules.from_dict(data)


def test_check_seats() -> None:
    Rules().check_seats(6)  # 6 × 6 = 36: R-D3 shows the last card as trump
    with pytest.raises(RulesError, match="R-C3"):
        Rules().check_seats(7)
    with pytest.raises(RulesError, match="R-T1"):
        Rules(teams="2v2").check_seats(6)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="R-D1"):
        Rules(deck=24).check_seats(5)
