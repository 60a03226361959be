"""The table options of rules.md section O, and the check that refuses an impossible table.

`Rules` is frozen and hashable.  `Rules.from_dict` reads the ``rules`` object of a game
record (records.md): an option left out has its default, an unknown option or value is
refused with a message a person understands.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from localdurak.game.cards import DECK_SIZES


class RulesError(ValueError):
    """An impossible table or an unknown option (rules.md section O)."""


class Variant(StrEnum):
    PODKIDNOY = "podkidnoy"
    PEREVODNOY = "perevodnoy"
    DUREN = "duren"


class Teams(StrEnum):
    NONE = "none"
    TWO_V_TWO = "2v2"
    THREE_V_THREE = "3v3"
    PAIRS = "pairs"


class ThrowIn(StrEnum):
    ALL = "all"
    NEIGHBOURS = "neighbours"


class ThrowInOrder(StrEnum):
    FREE = "free"
    FIRST_WORD = "first_word"


class Tie(StrEnum):
    DRAW = "draw"
    LAST_DEFENDER_LOSES = "last_defender_loses"


class NextFirstAttack(StrEnum):
    AT_DURAK = "at_durak"
    FROM_DURAK = "from_durak"


class DurenLeads(StrEnum):
    PAIRS = "pairs"
    ODD = "odd"


TEAM_SEATS: Final[dict[Teams, int]] = {
    Teams.TWO_V_TWO: 4,
    Teams.THREE_V_THREE: 6,
    Teams.PAIRS: 6,
}
"""R-T1: the number of players each team layout needs."""


@dataclass(frozen=True, slots=True)
class Rules:
    """A game's table options (rules.md section O), defaults as the rule book names them."""

    variant: Variant = Variant.PODKIDNOY
    deck: int = 36
    hand_size: int = 0
    """0 means the variant's default: 6, or 5 for Dureń (R-P1). Resolved on construction."""
    teams: Teams = Teams.NONE
    throw_in: ThrowIn = ThrowIn.ALL
    throw_in_order: ThrowInOrder = ThrowInOrder.FREE
    first_bout_five: bool = True
    trump_show: bool = False
    transfer_first_bout: bool = True
    cheating: bool = False
    japanese: bool = False
    tie: Tie = Tie.DRAW
    next_first_attack: NextFirstAttack = NextFirstAttack.AT_DURAK
    duren_leads: DurenLeads = DurenLeads.PAIRS
    partial_defence: bool = False

    def __post_init__(self) -> None:
        # Coerce plain strings to the enums so that Rules(variant="perevodnoy") works.
        for name, kind in _ENUM_FIELDS.items():  # in the fields' order
            value = getattr(self, name)
            if type(value) is kind:
                continue  # already the enum (the usual case): nothing to coerce
            try:
                object.__setattr__(self, name, kind(value))
            except ValueError:
                choices = ", ".join(v.value for v in kind)
                raise RulesError(
                    f"{name} cannot be {value!r}: choose one of {choices} (rules.md O)"
                ) from None
        for name in _BOOL_FIELDS:
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"{name} must be true or false, not {getattr(self, name)!r}")
        if isinstance(self.deck, bool) or not isinstance(self.deck, int):
            raise RulesError(f"deck must be 24, 36 or 52, not {self.deck!r} (R-C1)")
        if self.deck not in DECK_SIZES:
            raise RulesError(f"deck must be 24, 36 or 52, not {self.deck} (R-C1)")
        if isinstance(self.hand_size, bool) or not isinstance(self.hand_size, int):
            raise RulesError(f"hand_size must be 5 or 6, not {self.hand_size!r}")
        if self.hand_size == 0:
            object.__setattr__(self, "hand_size", 5 if self.variant is Variant.DUREN else 6)
        if self.hand_size not in (5, 6):
            raise RulesError(f"hand_size must be 5 or 6, not {self.hand_size} (rules.md O)")
        self._check_variant()

    def _check_variant(self) -> None:
        """Options that do not apply to the variant must keep their default (rules.md O)."""
        v = self.variant
        wrong: list[str] = []
        if v is not Variant.PEREVODNOY:
            if self.trump_show:
                wrong.append("trump_show (perevodnoy only, R-B7)")
            if not self.transfer_first_bout:
                wrong.append("transfer_first_bout (perevodnoy only, R-B6)")
        if v is not Variant.DUREN:
            if self.duren_leads is not DurenLeads.PAIRS:
                wrong.append("duren_leads (duren only, R-P2)")
            if self.partial_defence:
                wrong.append("partial_defence (duren only, R-P5)")
        else:
            # R-P1: Dureń is played without teams and without the cheating mode; R-P3:
            # nobody throws in, so the throw-in options have no meaning.
            if self.teams is not Teams.NONE:
                wrong.append("teams (Dureń is played without teams, R-P1)")
            if self.cheating:
                wrong.append("cheating (Dureń is played without the cheating mode, R-P1)")
            if self.throw_in is not ThrowIn.ALL:
                wrong.append("throw_in (nobody throws in in Dureń, R-P3)")
            if self.throw_in_order is not ThrowInOrder.FREE:
                wrong.append("throw_in_order (nobody throws in in Dureń, R-P3)")
            if not self.first_bout_five:
                wrong.append("first_bout_five (Dureń leads at most 5 cards anyway, R-P3)")
            if self.next_first_attack is not NextFirstAttack.AT_DURAK:
                # R-P1: in Dureń the dealer's left always leads first; R-F2 does not apply.
                wrong.append("next_first_attack (the dealer's left leads first in Dureń, R-P1)")
        if wrong:
            raise RulesError(
                f"these options do not apply to {v.value} and must keep their default: "
                + "; ".join(wrong)
            )

    def check_seats(self, seats: int) -> None:
        """Refuse a table this many players cannot play (R-C3, R-T1, R-D1)."""
        if isinstance(seats, bool) or not isinstance(seats, int) or not 2 <= seats <= 6:
            raise RulesError(f"Durak is played by 2 to 6 players, not {seats!r} (R-C3)")
        need = TEAM_SEATS.get(self.teams)
        if need is not None and seats != need:
            raise RulesError(
                f"teams {self.teams.value} needs exactly {need} players, not {seats} (R-T1)"
            )
        dealt = seats * self.hand_size
        if dealt > self.deck:
            raise RulesError(
                f"{seats} players × {self.hand_size} cards = {dealt} cards, "
                f"more than the {self.deck}-card deck holds (R-D1)"
            )

    @property
    def transfers(self) -> bool:
        return self.variant is Variant.PEREVODNOY

    def to_dict(self) -> dict[str, Any]:
        """Every option, as a record's ``rules`` object (JSON types only)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = value.value if isinstance(value, StrEnum) else value
        return out

    def non_defaults(self) -> dict[str, Any]:
        """Only the options that differ from their defaults (a short summary)."""
        base = Rules(variant=self.variant).to_dict()
        return {k: v for k, v in self.to_dict().items() if k == "variant" or base[k] != v}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        if not isinstance(data, Mapping):
            raise RulesError("rules must be an object of table options (records.md)")
        unknown = sorted(set(data) - set(OPTION_NAMES))
        if unknown:
            raise RulesError(
                f"unknown table option {', '.join(map(repr, unknown))}; "
                f"the options are {', '.join(OPTION_NAMES)} (rules.md O)"
            )
        kwargs = dict(data)
        if kwargs.get("hand_size") is None:
            kwargs.pop("hand_size", None)
        return cls(**kwargs)

    def summary(self) -> str:
        """A short human summary: ``perevodnoy 36 · trump show``."""
        parts = [self.variant.value, str(self.deck)]
        extra = {k: v for k, v in self.non_defaults().items() if k not in ("variant", "deck")}
        for k, v in extra.items():
            parts.append(k.replace("_", " ") if v is True else f"{k.replace('_', ' ')} {v}")
        return " · ".join(parts)


_ENUM_FIELDS: Final[dict[str, type[StrEnum]]] = {
    "variant": Variant,
    "teams": Teams,
    "throw_in": ThrowIn,
    "throw_in_order": ThrowInOrder,
    "tie": Tie,
    "next_first_attack": NextFirstAttack,
    "duren_leads": DurenLeads,
}
_BOOL_FIELDS: Final = (
    "first_bout_five",
    "trump_show",
    "transfer_first_bout",
    "cheating",
    "japanese",
    "partial_defence",
)
OPTION_NAMES: Final[tuple[str, ...]] = tuple(f.name for f in dataclasses.fields(Rules))
"""The names of rules.md section O, in its order."""
