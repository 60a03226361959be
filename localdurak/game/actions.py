"""Actions, their records.md form, game results and the engine's errors.

An `Action` is what one seat does (records.md's action table).  `Action.from_dict` reads the
record form and refuses what is not an action at all (`ActionFormatError`); whether the rules
allow it is the engine's question (`IllegalAction`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from localdurak.game.cards import Card, CardError


class Do(StrEnum):
    """What an action does; the values are records.md's ``do`` words."""

    ATTACK = "attack"
    COVER = "cover"
    TRANSFER = "transfer"
    SHOW = "show"
    TAKE = "take"
    PASS = "pass"
    CHALLENGE = "challenge"


class ActionFormatError(ValueError):
    """Not an action at all: an unknown ``do``, a missing field, a card that is not a card."""


class IllegalAction(ValueError):
    """A well-formed action that the rules refuse.  ``rule`` is the rule id it breaks."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.reason = message


# Which fields each kind of action carries (records.md).
_FIELDS: dict[Do, tuple[str, ...]] = {
    Do.ATTACK: ("cards",),
    Do.COVER: ("card", "on"),
    Do.TRANSFER: ("card",),
    Do.SHOW: ("card",),
    Do.TAKE: (),
    Do.PASS: (),
    Do.CHALLENGE: ("card",),
}


@dataclass(frozen=True, slots=True)
class Action:
    """One seat's action.  ``cards`` for attack, ``card`` (and ``on`` for cover) otherwise."""

    seat: int
    do: Do
    cards: tuple[Card, ...] = ()
    card: Card | None = None
    on: Card | None = None

    # Short constructors that read like the game.
    @classmethod
    def attack(cls, seat: int, *cards: Card) -> Action:
        return cls(seat, Do.ATTACK, cards=tuple(cards))

    @classmethod
    def cover(cls, seat: int, card: Card, on: Card) -> Action:
        return cls(seat, Do.COVER, card=card, on=on)

    @classmethod
    def transfer(cls, seat: int, card: Card) -> Action:
        return cls(seat, Do.TRANSFER, card=card)

    @classmethod
    def show(cls, seat: int, card: Card) -> Action:
        return cls(seat, Do.SHOW, card=card)

    @classmethod
    def take(cls, seat: int) -> Action:
        return cls(seat, Do.TAKE)

    @classmethod
    def pass_(cls, seat: int) -> Action:
        return cls(seat, Do.PASS)

    @classmethod
    def challenge(cls, seat: int, card: Card) -> Action:
        return cls(seat, Do.CHALLENGE, card=card)

    def to_dict(self, with_seat: bool = True) -> dict[str, Any]:
        """The records.md form: ``{"seat": 0, "do": "cover", "card": "7S", "on": "6S"}``."""
        out: dict[str, Any] = {"seat": self.seat} if with_seat else {}
        out["do"] = self.do.value
        for name in _FIELDS[self.do]:
            if name == "cards":
                out["cards"] = [str(c) for c in self.cards]
            else:
                value = getattr(self, name)
                out[name] = None if value is None else str(value)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], seat: int | None = None) -> Action:
        """Read the records.md form.  ``seat`` fills in a missing ``seat`` (the ``legal`` lists)."""
        if not isinstance(data, Mapping):
            raise ActionFormatError(f"an action must be an object, not {type(data).__name__}")
        raw_seat = data.get("seat", seat)
        if isinstance(raw_seat, bool) or not isinstance(raw_seat, int):
            raise ActionFormatError(f"an action needs a whole-number 'seat', not {raw_seat!r}")
        raw_do = data.get("do")
        try:
            do = Do(str(raw_do)) if isinstance(raw_do, str) else Do("")
        except ValueError:
            words = ", ".join(d.value for d in Do)
            raise ActionFormatError(f"unknown action {raw_do!r}: 'do' is one of {words}") from None
        fields: dict[str, Any] = {}
        for name in _FIELDS[do]:
            if name not in data:
                raise ActionFormatError(f"a {do.value} action needs the field {name!r}")
            value = data[name]
            if name == "cards":
                if not isinstance(value, Sequence) or isinstance(value, str) or not value:
                    raise ActionFormatError("'cards' must be a non-empty list of cards")
                fields["cards"] = tuple(_card(v) for v in value)
            else:
                fields[name] = _card(value)
        return cls(raw_seat, do, **fields)

    def __str__(self) -> str:
        d = self.to_dict()
        parts = [f"seat {self.seat}", self.do.value]
        if self.cards:
            parts.append(" ".join(d["cards"]))
        if self.card is not None:
            parts.append(str(self.card))
        if self.on is not None:
            parts.append(f"on {self.on}")
        return " ".join(parts)


def _card(value: Any) -> Card:
    if not isinstance(value, str):
        raise ActionFormatError(f'{value!r} is not a card: write it as text, e.g. "TD" (R-C2)')
    try:
        return Card.parse(value)
    except CardError as e:
        raise ActionFormatError(str(e)) from None


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended (R-B14, R-T3, R-B15): the durak seat(s), or a draw."""

    durak: tuple[int, ...]
    draw: bool
    pogony: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"durak": list(self.durak), "draw": self.draw, "pogony": self.pogony}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameResult:
        durak = data.get("durak")
        draw = data.get("draw")
        pogony = data.get("pogony", 0)
        if (
            not isinstance(durak, list)
            or not all(isinstance(s, int) and not isinstance(s, bool) for s in durak)
            or not isinstance(draw, bool)
            or isinstance(pogony, bool)
            or not isinstance(pogony, int)
        ):
            raise ValueError(f"not a game result: {dict(data)!r}")
        return cls(tuple(durak), draw, pogony)
