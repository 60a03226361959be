"""The port the terminal client plays through (no getattr on the session behind it): the
one async API of the offline table and the network client (docs/sessions.md).

A `TableSession` is one seat at one table.  It hands out only that seat's `PlayerView`
(R-T4), turns its actions into the table's business, and tells its listeners when anything
changed.  The offline table (`localdurak.net.local.LocalTable`) and the network client
session (`localdurak.net.client.ClientSession`) implement it the same way, so the client
cannot tell them apart except by `offline`, the audit verdict and a network table's lobby
(`lobby_view`, `pairing_code`, `async_ready` and the owner's bot commands).  Every failure
reaches the client as `ActionRefused` (a game action) or `TableError` (anything else): the
client never sees the protocol's own errors.

Listeners are plain callbacks (the terminal client passes ``app.invalidate``); coroutines
that prefer to wait use `TableSession.async_wait_update`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable

from localdurak.game.actions import Action, Do, GameResult
from localdurak.game.outcome import BoutEnded, Marked, Opened, Out, Outcome, Returned, first
from localdurak.game.rules import Rules
from localdurak.game.view import PlayerView


class ActionRefused(ValueError):
    """The table refused an action of ours; ``reason`` is for the player to read.

    ``rule`` is the rule id the action broke (e.g. ``"R-B4c"``), or "" when the refusal is
    not about the rules (the game is over, the connection is down)."""

    def __init__(self, reason: str, rule: str = "") -> None:
        super().__init__(f"{rule}: {reason}" if rule else reason)
        self.reason = reason
        self.rule = rule


class ConnectionState(StrEnum):
    """How the seat is connected to its table (the client's reconnect banner)."""

    OFFLINE = "offline"
    """An offline game on this laptop: always there."""
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    PAUSED = "paused"
    """The host paused the table (it stopped and will resume): the seat is kept and the
    client reconnects by itself when the host is back."""
    CLOSED = "closed"
    """The table is gone (left, or the host closed it)."""


class EventKind(StrEnum):
    """What a log entry tells."""

    GAME_STARTED = "game_started"
    ACTION = "action"
    """``seat`` did ``action`` (attack, cover, take, pass, …)."""
    CHALLENGE = "challenge"
    """``seat`` challenged ``action.card``; ``caught`` tells whether it was a cheat
    (R-S3) or not (R-S4); ``marked`` is the seat marked by it, if any."""
    BITO = "bito"
    """The bout ended with a successful defence by ``seat`` (R-B10a)."""
    TOOK = "took"
    """The bout ended with ``seat`` picking up the table (R-B10b)."""
    OUT = "out"
    """``seat`` is out of the game and safe (R-B13)."""
    GAME_OVER = "game_over"
    SEAT_OFFLINE = "seat_offline"
    SEAT_BACK = "seat_back"
    BROKE_PROTOCOL = "broke_protocol"
    """Our own checks caught ``seat`` breaking the card-privacy protocol (``reason``); the
    host, which checks it too, ends the game as aborted (a `GAME_OVER` naming ``seat``)."""


@dataclass(frozen=True, slots=True)
class MoveClock:
    """The seat the table waits for and when its move time runs out (``time.monotonic``);
    a screen counts down `left` in the last `SHOWN_S` seconds."""

    seat: int
    deadline: float

    SHOWN_S = 15.0

    def left(self, now: float) -> float:
        return max(0.0, self.deadline - now)

    def shown(self, now: float) -> bool:
        return self.left(now) <= self.SHOWN_S


@dataclass(frozen=True, slots=True)
class TableEvent:
    """One entry of the table's log, in structured form: the client words it in the player's
    language."""

    kind: EventKind
    seat: int | None = None
    action: Action | None = None
    opens: bool = False
    """With an attack: whether it opened the bout (else it was a throw-in)."""
    caught: bool = False
    marked: int | None = None
    result: GameResult | None = None
    game: int = 0
    reason: str = ""
    """With `BROKE_PROTOCOL`, and with a `GAME_OVER` that names ``seat`` (an aborted game):
    what that seat did."""


def table_events(action: Action, outcome: Outcome) -> list[TableEvent]:
    """The table's log for one applied action, from what it caused (`Game.apply`'s outcome,
    the only source): the action, or the challenge with whether it caught a cheat (R-S3) and
    whom it marked; then the bout's end, bito or took, and every seat that went out.  The
    game's end is logged by the caller (`GAME_OVER` with the game's number)."""
    if action.do is Do.CHALLENGE:
        marked = first(outcome, Marked)
        entry = TableEvent(
            EventKind.CHALLENGE,
            action.seat,
            action,
            caught=first(outcome, Returned) is not None,
            marked=None if marked is None else marked.seat,
        )
    else:
        opens = first(outcome, Opened) is not None
        entry = TableEvent(EventKind.ACTION, action.seat, action, opens=opens)
    out = [entry]
    for e in outcome:
        if isinstance(e, BoutEnded):
            out.append(TableEvent(EventKind.TOOK if e.taken else EventKind.BITO, e.defender))
        elif isinstance(e, Out):
            out.append(TableEvent(EventKind.OUT, e.seat))
    return out


class AuditStatus(StrEnum):
    OFFLINE = "offline"
    """An offline game: every card was dealt on this laptop, there is nothing to audit."""
    PENDING = "pending"
    CLEAN = "clean"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class AuditVerdict:
    status: AuditStatus
    seats: tuple[int, ...] = ()
    """With FAILED: the seats that broke the card-privacy protocol."""


@dataclass(frozen=True, slots=True)
class SeriesScore:
    """The evening's score (R-F2's series): games played, draws, and how often each seat was
    the durak."""

    games: int = 0
    draws: int = 0
    durak: tuple[int, ...] = field(default_factory=tuple)

    def add(self, result: GameResult, seats: int) -> SeriesScore:
        counts = list(self.durak) or [0] * seats
        for s in result.durak:
            counts[s] += 1
        return SeriesScore(self.games + 1, self.draws + int(result.draw), tuple(counts))


class SeatKind(StrEnum):
    """Who holds a seat of a table's lobby."""

    EMPTY = "empty"
    HUMAN = "human"
    BOT = "bot"


@dataclass(frozen=True, slots=True)
class LobbySeat:
    """One seat of a network table's lobby, as the client shows it."""

    kind: SeatKind = SeatKind.EMPTY
    name: str = ""
    ready: bool = False
    connected: bool = False
    code: str = ""
    """The pairing code this seat's player reads on his screen, to compare with ours: shown
    at the host's own seat only ("" for bots, empty seats, ourselves, and at a guest's seat,
    which compares its one code with the host, `TableSession.pairing_code`)."""


@dataclass(frozen=True, slots=True)
class LobbyView:
    """A network table's lobby before (and between) the games: its seats and their state."""

    table: str
    rules: Rules
    seats: tuple[LobbySeat, ...]
    games: int = 0
    """How many games of the series have been played."""
    owner: int = 0
    """The seat that may seat and free bots (the host's own player)."""


class TableError(Exception):
    """The table refused us or failed (joining, an owner command, the connection): ``reason``
    is for the player to read; ``pin_wanted``: the table asks for a (another) PIN;
    ``fingerprint_shown``: the host showed another certificate than the one pinned (its
    fingerprint), nothing was sent to it."""

    def __init__(
        self, reason: str, *, pin_wanted: bool = False, fingerprint_shown: str | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.pin_wanted = pin_wanted
        self.fingerprint_shown = fingerprint_shown


@runtime_checkable
class TableSession(Protocol):
    """One seat at a table, as the terminal client and the bots see it."""

    @property
    def seat(self) -> int: ...

    @property
    def names(self) -> tuple[str, ...]:
        """The players' names, one per seat."""
        ...

    @property
    def table_name(self) -> str: ...

    @property
    def offline(self) -> bool:
        """Whether this is an offline game on this laptop (no network, no audit)."""
        ...

    @property
    def view(self) -> PlayerView | None:
        """The seat's latest view; None before the first deal."""
        ...

    @property
    def game_number(self) -> int:
        """1 for the evening's first game."""
        ...

    @property
    def events(self) -> Sequence[TableEvent]:
        """The log, oldest first (at least the current game's)."""
        ...

    @property
    def connection(self) -> ConnectionState: ...

    @property
    def offline_seats(self) -> tuple[int, ...]:
        """Seats whose player is disconnected now (shown as "offline")."""
        ...

    @property
    def seat_hold(self) -> float:
        """Seconds the table keeps this seat for its player after he drops or leaves (0 in an
        offline game): the client says it before he leaves."""
        ...

    def hold_left(self, seat: int) -> float | None:
        """Seconds the table still keeps offline ``seat``'s place; None when unknown."""
        ...

    @property
    def series(self) -> SeriesScore: ...

    @property
    def audit(self) -> AuditVerdict:
        """The verdict on the last finished game's card-privacy transcript."""
        ...

    @property
    def closing(self) -> bool:
        """Whether an action that closes the bout is being held for the challenge window
        (R-S5); the table may still take challenges."""
        ...

    @property
    def problem(self) -> str | None:
        """Trouble every screen shows (the host cannot save, this seat cannot be saved), or
        None."""
        ...

    @property
    def move_clock(self) -> MoveClock | None:
        """The move clock of the seat the table waits for (``--move-time``, docs/cli.md), or
        None when no clock runs (off, or nobody to wait for)."""
        ...

    @property
    def aborted(self) -> tuple[int, str] | None:
        """The game was ended as aborted: the seat that broke the card-privacy protocol and
        what it did (no durak).  None otherwise (and in an offline game)."""
        ...

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` (no arguments, on the event loop) after every change; returns
        the function that unsubscribes it."""
        ...

    async def async_wait_update(self) -> None:
        """Return after the next change."""
        ...

    async def async_act(self, action: Action) -> None:
        """Play ``action`` for this seat; raise `ActionRefused` with the reason if the table
        refuses it.  Returns once the table accepted it (its effect is in `view`, or held
        for the challenge window)."""
        ...

    async def async_next_game(self) -> None:
        """After a game over: ask for the next game of the series."""
        ...

    async def async_leave(self) -> None:
        """Leave the table (the session is closed afterwards)."""
        ...

    # --- a network table's lobby (an offline table has none) --------------------------------

    @property
    def lobby_view(self) -> LobbyView | None:
        """The table's lobby (None offline, or before the host sent it)."""
        ...

    @property
    def pairing_code(self) -> str:
        """The code to compare with the host's screen ("" offline and at the host's own
        seat, which compares each guest's `LobbySeat.code` instead)."""
        ...

    async def async_ready(self, ready: bool = True) -> None:
        """Say that this seat's player has compared the codes and is ready for the deal (or
        is not, any more); raises `TableError` with the reason."""
        ...

    async def async_add_bot(self, level: str = "normal") -> None:
        """The owner seats a bot at the first free seat; raises `TableError` with the
        reason (not the owner, no free seat, the connection)."""
        ...

    async def async_remove_bot(self, seat: int) -> None:
        """The owner frees ``seat``, which a bot holds; raises `TableError`."""
        ...
