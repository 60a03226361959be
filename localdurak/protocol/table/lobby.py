"""The lobby's rules (docs/protocol.md §4), sans-I/O: which seat a key takes, who may change
the table and how, and when every seat is ready for a game.  The host (localdurak.net.host_lobby)
keeps the seats with their connections and bots; it asks these functions and does what they
say.  A refusal is a `RemoteProtocolError` for the asking seat."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from localdurak.game.rules import Rules, RulesError
from localdurak.protocol.errors import BadMessage, Forbidden, TableFull, Unavailable
from localdurak.protocol.messages import SeatKind, TableState

__all__ = [
    "Seat",
    "all_ready",
    "bot_seat",
    "check_add_bot",
    "check_owner",
    "check_remove_bot",
    "check_resize",
    "check_sit",
    "check_stand",
    "held_seat",
    "is_owner",
    "known_key",
    "new_seat",
]


class Seat(Protocol):
    """What the rules read of a seat (the host's `SeatSlot`)."""

    @property
    def kind(self) -> SeatKind: ...
    @property
    def key(self) -> bytes | None: ...
    @property
    def ready(self) -> bool: ...
    @property
    def connected(self) -> bool: ...


def known_key(seats: Sequence[Seat], key: bytes) -> bool:
    """Whether a person with this key sits at the table (the PIN gate lets him back)."""
    return any(s.key == key and s.kind is SeatKind.HUMAN for s in seats)


def held_seat(seats: Sequence[Seat], key: bytes) -> int | None:
    """The seat a person with this key holds already (he reconnects to it), if any."""
    for s, seat in enumerate(seats):
        if seat.key == key and seat.kind is SeatKind.HUMAN:
            return s
    return None


def new_seat(seats: Sequence[Seat], key: bytes, state: TableState) -> int:
    """The seat a newcomer takes: the first free one, in the lobby only; one seat a key."""
    if state is not TableState.LOBBY:
        raise TableFull("the game has started and no seat is held for you")
    if any(s.key == key for s in seats):
        raise TableFull("this key already plays at the table")
    for s, seat in enumerate(seats):
        if seat.kind is SeatKind.EMPTY:
            return s
    raise TableFull("every seat at this table is taken")


def check_sit(asked: int | None, given: int) -> None:
    """A player keeps the seat the table gave him (`Sit` names no other)."""
    if asked is not None and asked != given:
        raise TableFull("you keep the seat the table gave you")


def check_stand(state: TableState) -> None:
    """A player leaves his seat in the lobby only."""
    if state is not TableState.LOBBY:
        raise Unavailable("you cannot leave your seat during a game")


def is_owner(seats: Sequence[Seat], seat: int, *, own_seat: bool, host_key: bytes) -> bool:
    """The table's owner: the person at the host's own seat (0), signed in with the host's
    own key.  A headless table (``own_seat`` False) has none."""
    return own_seat and seat == 0 and seats[0].key == host_key


def check_owner(owner: bool, state: TableState, games_played: int) -> None:
    """The owner changes the table (bots, rules, seats) in the lobby before the first game:
    a series keeps its table."""
    if not owner:
        raise Forbidden("only the table's owner (the host's own seat) may change the table")
    if state is not TableState.LOBBY or games_played > 0:
        raise Unavailable("the table can change only before its first game")


def check_add_bot(seats: Sequence[Seat], at: int | None) -> None:
    """A bot asked for at a given seat needs that seat free."""
    if at is not None and not (0 <= at < len(seats) and seats[at].kind is SeatKind.EMPTY):
        raise TableFull(f"seat {at + 1} is not free")


def bot_seat(seats: Sequence[Seat], at: int | None, *, own_seat: bool) -> int:
    """Where a bot sits: seat ``at``, or the first free one; never the host's own seat (0)
    when the person hosting plays."""
    for s, seat in enumerate(seats):
        if at is not None and s != at:
            continue
        if seat.kind is SeatKind.EMPTY and not (s == 0 and own_seat):
            return s
    raise TableFull("no free seat for a bot")


def check_remove_bot(seats: Sequence[Seat], at: int) -> None:
    if not 0 <= at < len(seats) or seats[at].kind is not SeatKind.BOT:
        raise BadMessage(f"there is no bot at seat {at + 1}")


def check_resize(seats: Sequence[Seat], rules: Rules, count: int) -> None:
    """New rules and a seat count: valid together (R-C3, R-T1, R-D1: how many may play), and
    no taken seat beyond the new count."""
    try:
        rules.check_seats(count)
    except RulesError as e:
        raise BadMessage(str(e)) from None
    taken = [i for i, seat in enumerate(seats) if seat.kind is not SeatKind.EMPTY]
    if taken and max(taken) >= count:
        raise Unavailable(f"seat {max(taken) + 1} is taken: free it before the table gets smaller")


def all_ready(seats: Sequence[Seat]) -> bool:
    """A game starts when every seat is taken, every person at it ready (a bot always is),
    and every seat connected."""
    return all(
        s.kind is not SeatKind.EMPTY and (s.ready or s.kind is SeatKind.BOT) and s.connected
        for s in seats
    )
