"""The client session's state, shared by its parts (`localdurak.net.client` puts them
together): the constants, `Address`, `SessionClosed`, and `SessionState` — what one player's
session at one table knows (its seat, the lobby, the game's replica, what it waits for)."""

from __future__ import annotations

import asyncio
import collections
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localdurak.game.view import PlayerView
from localdurak.net.api import (
    AuditStatus,
    AuditVerdict,
    MoveClock,
    SeriesScore,
    TableEvent,
)
from localdurak.net.identity import Identity, data_dir
from localdurak.net.transport import (
    Channel,
    parse_address,
)
from localdurak.protocol.errors import (
    AuthFailed,
    BadPin,
    IllegalMove,
    Replayed,
    TableFull,
    TooManyAttempts,
    VersionTooNew,
    VersionTooOld,
)
from localdurak.protocol.messages import (
    Error,
    GameOver,
    Lobby,
    Message,
    PrivacyEvent,
)
from localdurak.protocol.table.clock import ClockView
from localdurak.protocol.table.common import Signed
from localdurak.protocol.table.host import REFUSALS_BACK
from localdurak.protocol.table.seat import SeatGame

log = logging.getLogger("localdurak.net.client")

FATAL = (AuthFailed, BadPin, TooManyAttempts, TableFull, VersionTooNew, VersionTooOld)
"""Refusals that reconnecting cannot fix."""


class Broken(Exception):
    """Our own checks refused a relayed step (`BROKEN`)."""


BROKEN = (AuthFailed, IllegalMove, Replayed)
"""What our own checks find wrong in a relayed step: the game cannot go on at this table."""
BROKEN_TEXT = "the table relayed a step that breaks the game, so it cannot go on here"

BACKOFF = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)
IDLE_VERIFY_S = 0.004
"""How long the table must be quiet before the client checks a strip of another hand's deal
ahead of its plays (`SeatGame.verify_ahead`)."""
SAVE_LATER_S = 0.5
"""How long the save after a game action may wait (`ClientSession._send_signed`): several
actions share one save, made while the table is quiet."""
SYNC_PAUSE_S = 0.05
"""How long after a save its fsync follows (saves meanwhile share it)."""
HOST_GONE_S = 6 * 3600.0
"""How long a client keeps trying to reach a host that vanished during a game (reading: a
seat that could not rejoin because the host stopped is never forfeited; a person quits with
q meanwhile, a script stops its process)."""
RECENT_REFUSED = REFUSALS_BACK
"""Our refused steps a session keeps (`SessionState._refused`): as many as a resumed host
takes back from a seat."""
RECENT_STEPS = 64
"""Relayed steps a session keeps to give back to a host that lost the last frames of its
log (the docs allow 50 ms of a table's lines lost in a power cut: a few steps)."""


class SessionClosed(ConnectionError):
    """The table closed, or the session gave up (the message says why)."""


@dataclass
class Address:
    """Where a table is: its address (``others``: every other address it advertised, tried
    in turn, lan.md), its port, and the fingerprint to pin (None: not known yet)."""

    host: str
    port: int
    fingerprint: str | None = None
    others: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str, fingerprint: str | None = None) -> Address:
        """``HOST:PORT`` (``--address``); the port defaults to the table's fixed port."""
        host, port = parse_address(text)
        return cls(host, port, fingerprint)


class SessionState:
    """One player at one table over the network: the state its parts share."""

    def __init__(
        self,
        identity: Identity,
        name: str,
        address: Address,
        *,
        pin: str | None = None,
        state_dir: Path | None = None,
        hold: float = 120.0,
    ) -> None:
        self.identity = identity
        self.name = name
        self.address = address
        self.pin = pin
        self.hold = hold
        self.my_seat: int | None = None
        self.lobby: Lobby | None = None
        self.known_table: str | None = None
        """The table's name as last heard (a lobby, or the saved seat): kept across a
        reconnect, when a resumed host or a session started again has not said it yet."""
        self.game: SeatGame | None = None
        self.score: tuple[int, ...] = ()
        self.results: list[GameOver] = []
        self.cheat: tuple[int, str] | None = None
        """A seat our own checks caught breaking the card-privacy protocol, and why."""
        self.aborted: tuple[int, str] | None = None
        """The host ended the game as aborted: the seat that broke the protocol, and why."""
        self.closed_reason: str | None = None
        self.last_seq: int | None = None
        self.channel: Channel | None = None
        self._changed = asyncio.Event()
        self._view_cache: PlayerView | None = None
        self._view_key: tuple[int, int] | None = None
        self._changes = 0
        """Counts `notify` calls: the cached view is rebuilt after each."""
        self._host_hold = 0
        """The seat hold the host's `Presence` events gave (0: none seen yet)."""
        self._held_until: dict[int, float] = {}
        """Offline seats: the loop time their hold runs out (from `Presence`)."""
        self._ahead = False
        """Whether strips of other hands' deals may wait for `SeatGame.verify_ahead`."""
        self._closing = False
        self._next_id = 1
        self._pending: list[Signed] = []
        """Our signed steps not yet seen relayed: sent again after a reconnect."""
        self._waiters: dict[int, asyncio.Future[int | None]] = {}
        self._runner: asyncio.Task[None] | None = None
        self._state_dir = state_dir if state_dir is not None else data_dir() / "sessions"
        self._restored = False
        self._syncing: asyncio.Task[None] | None = None
        self.bytes_saved = 0
        """Bytes of saved state written (benchmarks: bytes per game)."""
        self._clock: MoveClock | None = None
        """The move clock the host told (`Clock` events), restarted by each game action
        (`_clock_view`)."""
        self._clock_view = ClockView()
        self.host_problem: str | None = None
        """Trouble on the host's side every screen shows (`Notice`: it cannot save)."""
        self.save_problem: str | None = None
        """Why the seat cannot be saved right now (a full or read-only disk), for the screen:
        the game goes on from memory meanwhile."""
        self._save_timer: asyncio.TimerHandle | None = None
        self._save_number = 0
        """Saves taken (`SessionSaved._snapshot`); `_saved_number` is the one on disk."""
        self._saved_number = 0
        self._generation: int | None = None
        """The generation of the newest save on disk (`client_saved`; None: not read yet)."""
        self._save_lock = threading.Lock()
        self.reconnects = 0
        self.paused: str | None = None
        """What the host said when it paused the table (`Bye.paused`), until it is back: the
        session keeps its seat and keeps trying to reconnect meanwhile."""
        self.errors: list[Error] = []
        """Every refusal the host sent (for a screen, and for tests)."""
        self._events: list[TableEvent] = []
        self._listeners: list[Callable[[], None]] = []
        self._away: set[int] = set()
        self._series = SeriesScore()
        self._audit = AuditVerdict(AuditStatus.PENDING)
        self._step_of_id: dict[int, int] = {}
        self._resume_id: int | None = None
        self._resumed_from: int | None = None
        """The last event we had when we asked the host to resume (`_give_back`)."""
        self._recent: collections.deque[PrivacyEvent] = collections.deque(maxlen=RECENT_STEPS)
        """The game's last relayed steps, every seat's: a host that lost the last frames of
        its log (a power cut) gets them back from us (`_give_back`)."""
        self._refused: collections.deque[tuple[Signed, int]] = collections.deque(
            maxlen=RECENT_REFUSED
        )
        """Our last steps the host refused, each with the length of the privacy log then
        (where the record places the refusal): a refusal is in no event, only in the host's
        journal, so a host that lost the journal's last lines (a power cut) gets them back
        from us (`_give_back`), or the gap each left in our counter is unexplained."""
        self._tasks: set[asyncio.Task[None]] = set()
        self.on_game: Callable[[SeatGame], None] | None = None
        """Called with each new game's seat (the host's own player shares the host's checks:
        `host_bots.share_checks`)."""
        self.trace: Callable[[dict[str, Any]], None] | None = None
        """Timing lines for benchmarks/net.py (``LOCALDURAK_TRACE=1``)."""
        self._traced_deal: bytes | None = None
        self._unchecked: list[int] = []
        """For the trace: the event of each card proof still deferred, oldest first."""

    # --- what one part of the session calls in another (`ClientSession` puts them together) --

    def notify(self) -> None:  # `SessionPort`
        raise NotImplementedError

    async def close(self) -> None:  # `SessionPort`
        raise NotImplementedError

    @property
    def closed(self) -> bool:  # `SessionPort`
        raise NotImplementedError

    async def start(self) -> None:  # `ClientSession`
        raise NotImplementedError

    async def run_until_closed(self) -> None:  # `ClientSession`
        raise NotImplementedError

    async def _command(  # `ClientSession`
        self, make: Callable[[int], Message], *, wait: bool, n: int | None = None
    ) -> int | None:
        raise NotImplementedError

    async def _send_signed(self, signed: list[Signed], *, wait: bool = False) -> None:
        raise NotImplementedError  # `ClientSession`

    def _save(self) -> None:  # `SessionSaved`
        raise NotImplementedError

    def _save_later(self) -> None:  # `SessionSaved`
        raise NotImplementedError

    def _save_now(self) -> None:  # `SessionSaved`
        raise NotImplementedError

    def _find_saved(self) -> None:  # `SessionSaved`
        raise NotImplementedError

    def _forget(self) -> None:  # `SessionSaved`
        raise NotImplementedError
