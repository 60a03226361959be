"""What a `Player` tells its application (``Player.next_event``): its hand, the trump, the first
attacker, cards played, the keys revealed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...game.cards import Card


@dataclass(frozen=True, slots=True)
class GameStarted:
    game_id: bytes


@dataclass(frozen=True, slots=True)
class HandDealt:
    """This seat's cards of one batch (the deal, or a refill), decoded."""

    batch: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class CardTurned:
    """A card everybody sees: the trump card (R-D2, ``holder`` None until drawn) or the dealer's
    last card (R-D3, ``holder`` the dealer)."""

    card: Card
    holder: int | None


@dataclass(frozen=True, slots=True)
class TrumpCardDrawn:
    """The face-up trump card was drawn (last, R-B12) by ``seat``."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class FirstAttacker:
    """R-F1: the seat that attacks first, and the lowest trump it showed (None: nobody holds a
    trump, or the trump came from R-D3)."""

    seat: int
    card: Card | None


@dataclass(frozen=True, slots=True)
class CardPlayed:
    seat: int
    card: Card
    shown: bool
    action: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Acted:
    seat: int
    action: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class KeysRevealed:
    pass


Event = (
    GameStarted
    | HandDealt
    | CardTurned
    | TrumpCardDrawn
    | FirstAttacker
    | CardPlayed
    | Acted
    | KeysRevealed
)
