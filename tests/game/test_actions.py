"""The records.md action form: parse, print, refuse what is not an action."""

import pytest

from localdurak.game.actions import Action, ActionFormatError, Do, GameResult
from localdurak.game.cards import Card


def test_round_trip_every_kind() -> None:
    c, d = Card.parse("7S"), Card.parse("6S")
    for action in (
        Action.attack(0, d, Card.parse("6H")),
        Action.cover(1, c, d),
        Action.transfer(1, Card.parse("6D")),
        Action.show(1, Card.parse("6C")),
        Action.take(2),
        Action.pass_(0),
        Action.challenge(2, c),
    ):
        assert Action.from_dict(action.to_dict()) == action


def test_records_md_example() -> None:
    a = Action.from_dict({"seat": 2, "do": "cover", "card": "7S", "on": "6S"})
    assert a == Action(2, Do.COVER, card=Card.parse("7S"), on=Card.parse("6S"))
    assert Action.from_dict({"do": "pass"}, seat=1) == Action.pass_(1)


@pytest.mark.parametrize(
    "data",
    [
        {"seat": 0, "do": "fold"},
        {"seat": 0, "do": "cover", "card": "7S"},
        {"seat": 0, "do": "attack", "cards": []},
        {"seat": 0, "do": "attack", "cards": "6S"},
        {"seat": 0, "do": "transfer", "card": "1S"},
        {"seat": 0, "do": "transfer", "card": 7},
        {"seat": "0", "do": "take"},
        {"seat": True, "do": "take"},
        ["seat", 0],
    ],
)
def test_refuses_what_is_not_an_action(data: object) -> None:
    with pytest.raises(ActionFormatError):
        Action.from_dict(data)  # type: ignore[arg-type]


def test_result_round_trip() -> None:
    r = GameResult((1,), False, 2)
    assert GameResult.from_dict(r.to_dict()) == r
