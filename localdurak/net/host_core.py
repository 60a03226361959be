"""The table host's state and what every part of it uses (`localdurak.net.host` puts the
parts together): the table's phase (`Phase`, changed only along `TRANSITIONS`), the typed inbox
(`Item`), the options, and `HostCore` — the state itself, numbering and sending events to every
seat and bot (`_emit`), timers through the inbox, the lobby event and the advertisement.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import os
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from localdurak.game.actions import GameResult
from localdurak.game.rules import Rules
from localdurak.net.discovery import Advertiser, TableAd, TableStatus
from localdurak.net.host_bots import HostBots, share_checks
from localdurak.net.identity import Identity
from localdurak.net.peer import Peer, SeatSlot
from localdurak.net.table_store import (
    TableStore,
)
from localdurak.net.transport import (
    DEFAULT_PORT,
    PinGate,
)
from localdurak.protocol.connection import encoded_frame
from localdurak.protocol.errors import (
    AuthFailed,
    BadMessage,
    Replayed,
)
from localdurak.protocol.messages import (
    GameOver,
    GameStarted,
    Lobby,
    Message,
    Privacy,
    PrivacyEvent,
    SeatKind,
    TableState,
)
from localdurak.protocol.privacy.group import GROUP
from localdurak.protocol.table.clock import ClockView
from localdurak.protocol.table.common import GAME_STEPS
from localdurak.protocol.table.host import HostGame

log = logging.getLogger("localdurak.net.host")

HOLD_SECONDS = 120.0
"""How long a dropped player's seat is held before he forfeits."""
MOVE_TIME = 60.0
"""The move clock's default (``--move-time``): past it the seat the table waits for forfeits
as a dropped player does after the hold."""
CHALLENGE_WINDOW = 2.0
"""R-S5: seconds an action that closes a bout waits for challenges in cheating mode."""
REVEAL_TIMEOUT = 10.0
"""Seconds to wait for every key after a game ends (the audit checks what it gets)."""
GIVE_BACK_WAIT = 10.0
"""After a resume mid-game, how long the host waits for its players to come back and give
back the signed steps it lost (`HostResume._gathering`) before new steps go on, once they
are all back (one who is not is waited for until his hold runs out)."""
REPLAY_KEEP = 100_000
"""Events kept in memory for players who come back (`Resume`); older ones go by snapshot."""
IDLE_VERIFY_S = 0.004
"""How long the table must be quiet before the host verifies a deferred strip proof."""

CANNOT_SAVE = "the host cannot save: this game can no longer be resumed after a crash"
"""What every screen says while the host's disk refuses its writes (a `Notice`)."""
GAME_BYTES = 2_500_000
"""Disk a game of six seats and 52 cards takes (measured: journal 0.77 MB, record 0.51 MB,
event log ~0.45 MB, six bots' seats 0.24 MB; rounded up); smaller tables scale down."""

CLOSE_RETRY_S = 60.0
"""How long a host that closes with disk trouble keeps trying to write what it holds."""

PAUSED_TEXT = "the host paused; it will resume"
"""What the clients are told when the host stops mid-table (`TableHost.stop`)."""

HardErrors = (AuthFailed, BadMessage, Replayed)
"""Refusals that also close the connection (docs/protocol.md §8)."""

EventSink = Callable[[dict[str, Any]], None]


# --- the table's phase: one value, one table of transitions (h11's _state.py is the model) ---


class Phase(enum.Enum):
    LOBBY = "lobby"
    """Seats fill, players say ready; the next game starts when all are."""
    PLAYING = "playing"
    """A game is being played."""
    REVEALING = "revealing"
    """The game's result is in; the seats reveal their keys (at most `REVEAL_TIMEOUT`)."""
    FORFEITED = "forfeited"
    """A seat forfeited (`GameOver` told at once); the others reveal their keys."""
    ABORTED = "aborted"
    """A seat broke the card-privacy protocol (a proof of its failed the host's own check):
    the game ends with no durak, `GameOver` names the seat at once; the others reveal their
    keys (privacy.md "Blame goes to the cheater")."""
    RECORDING = "recording"
    """The game's record is being written and audited (in a thread)."""
    PAUSED = "paused"
    """The host stopped for now (a signal, its own quit): everything is on disk, the clients
    were told, and ``localdurak host --resume JOURNAL`` carries the table on."""
    CLOSED = "closed"


class Go(enum.Enum):
    START = "start"
    RESULT = "result"
    FORFEIT = "forfeit"
    ABORT = "abort"
    RECORD = "record"
    RECORDED = "recorded"
    PAUSE = "pause"
    CLOSE = "close"


PAUSABLE = (Phase.LOBBY, Phase.PLAYING, Phase.REVEALING, Phase.FORFEITED, Phase.ABORTED)
"""A table pauses from these (a record being written is finished first)."""

TRANSITIONS: dict[tuple[Phase, Go], Phase] = {
    (Phase.LOBBY, Go.START): Phase.PLAYING,
    (Phase.PLAYING, Go.RESULT): Phase.REVEALING,
    (Phase.PLAYING, Go.FORFEIT): Phase.FORFEITED,
    # A cheat found while the result waits for the keys still aborts (nobody is the durak of
    # a game somebody cheated in); a forfeit after an abort is ignored: the detector who
    # drops is never made the durak.
    (Phase.PLAYING, Go.ABORT): Phase.ABORTED,
    (Phase.REVEALING, Go.ABORT): Phase.ABORTED,
    (Phase.FORFEITED, Go.ABORT): Phase.ABORTED,
    (Phase.ABORTED, Go.RECORD): Phase.RECORDING,
    (Phase.PLAYING, Go.RECORD): Phase.RECORDING,
    (Phase.REVEALING, Go.RECORD): Phase.RECORDING,
    (Phase.FORFEITED, Go.RECORD): Phase.RECORDING,
    (Phase.RECORDING, Go.RECORDED): Phase.LOBBY,
    **{(p, Go.PAUSE): Phase.PAUSED for p in PAUSABLE},
    **{(p, Go.CLOSE): Phase.CLOSED for p in Phase if p not in (Phase.PAUSED, Phase.CLOSED)},
}
"""Every move of the table's phase; anything else is ignored (a forfeit timer that fires
while the record is written, a second forfeit, a forfeit after the game's own result)."""

WIRE_STATE = {
    Phase.LOBBY: TableState.LOBBY,
    Phase.CLOSED: TableState.CLOSED,
    Phase.PAUSED: TableState.CLOSED,
}
"""The phase as the protocol tells it (`Lobby.state`): every other phase is "playing"."""


# --- the inbox: every input of the table's loop, typed ------------------------------------


@dataclass(frozen=True, slots=True)
class Joined:
    """A peer finished the handshake."""

    peer: Peer


@dataclass(frozen=True, slots=True)
class Received:
    """A message from a connected peer."""

    peer: Peer
    message: Message


@dataclass(frozen=True, slots=True)
class Left:
    """A peer's connection ended."""

    peer: Peer


@dataclass(frozen=True, slots=True)
class FromBot:
    """A command one of the host's bots signed."""

    seat: int
    command: Privacy


@dataclass(frozen=True, slots=True)
class Call:
    """A timer that fired (a hold, the reveal timeout, a challenge window), or a wake-up."""

    fn: Callable[[], None]


Item = Joined | Received | Left | FromBot | Call


def wake() -> None:
    """An inbox item that only wakes the host's loop (its bots think after each item)."""


@dataclass
class Ending:
    """How the game being finished ends: its result, the seat that forfeited, and whether
    `GameOver` was told already (a forfeit is told at once, for the keys)."""

    result: GameResult
    forfeit: int | None = None
    announced: bool = False
    aborted: int | None = None
    """The seat that broke the card-privacy protocol (the game is aborted, no durak)."""
    reason: str = ""
    lines: list[str] = field(default_factory=list)
    """The journal's last lines for it (the transcript, the result, the forfeit)."""


@dataclass
class HostOptions:
    name: str
    seats: int
    rules: Rules = field(default_factory=Rules)
    bots: int = 0
    bot_level: str = "normal"
    games: int = 1
    record_dir: Path = field(default_factory=lambda: Path("."))
    state_dir: Path | None = None
    """Where the table's event log and bots' keys live (default: a directory in record_dir)."""
    host: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    pin: str | None = None
    advertise: bool = True
    hold: float = HOLD_SECONDS
    move_time: float = MOVE_TIME
    """The move clock: seconds the seat the table waits for has to act (0: no clock)."""
    challenge_window: float = CHALLENGE_WINDOW
    bot_delay: float = 0.0
    """Seconds a bot waits before it acts (0 for headless games)."""
    seed: int | None = None
    keepalive: float = 5.0
    own_seat: bool = False
    """The person hosting plays at seat 0 (cli.md ``localdurak host``): bots sit from 1."""


class HeldBack(Exception):
    """A command waits for the challenge window (R-S5); it is answered later."""


def fields_of(m: Any) -> dict[str, Any]:
    return {name: getattr(m, name) for name in type(m).SCHEMA}


class HostCore:
    """The state of one table, shared by its parts: `HostLobby` (admission, the lobby),
    `HostMoves` (the game's commands, the R-S5 challenge window, the move clock), `HostEnding`
    (a game's start, and its end with record and audit), `HostResume` (dropping out, coming
    back, the table's files), and `TableHost` (connections, the loop).  What one part calls in
    another is declared at the end of this class."""

    def __init__(
        self,
        identity: Identity,
        options: HostOptions,
        *,
        on_event: EventSink | None = None,
    ) -> None:
        options.rules.check_seats(options.seats)
        if not 0 <= options.bots <= options.seats - int(options.own_seat):
            raise ValueError(f"--bots must be 0..{options.seats - int(options.own_seat)}")
        self.identity = identity
        self.o = options
        self.on_event = on_event or (lambda e: None)
        self.rng = random.Random(options.seed)
        self.state_dir = options.state_dir or options.record_dir / ".localdurak-table"
        self.store = TableStore(self.state_dir, options.record_dir)
        self.store.snapshots = lambda: [b.path for _, b in self.bots.bots() if b.path is not None]
        self.store.on_problem = self._disk_problem
        self.store.rebuild = self._rewrite_all
        self._unrecorded: list[tuple[Path, list[str]]] = []
        """Finished games whose record the disk did not take yet: their journals' lines."""
        self.seats = [SeatSlot() for _ in range(options.seats)]
        self.pin_gate = PinGate(options.pin)
        self.phase = Phase.LOBBY
        self.seq = 0
        self.events: list[Message] = []
        self.resumed_at: list[int] = []
        """The last event each resume of this table found in its log: the events after it
        (up to `RESUME_GAP` later) were lost with the old host, and a player who saw some of
        them gives back the signed steps among them (`_resume_peer`)."""
        self._restoring: set[int] = set()
        """Seats whose players may give back other seats' steps the host lost (while the
        host gathers them: cleared when the gathering ends)."""
        self._clean_at: int | None = None
        """The point of `resumed_at` after which the old host lost nothing: it paused cleanly
        with its event log whole (``paused_at`` in its state), so nobody gives back."""
        self._refusals_back: list[tuple[int, Privacy, int]] = []
        """Refusals the players gave back while the host gathers: (seat, step, at), taken
        when the gathering ends, after every lost step (`HostResume._end_gathering`)."""
        self._paused_at: int | None = None
        """The last event when this host paused (written in its state: `_clean_at`)."""
        self._giving_back: set[int] = set()
        """Seats whose players are giving back the steps the host lost, until their second
        `Resume` says they are done (docs/protocol.md §7)."""
        self._gathering = False
        """A resumed host gathers what it lost before anything new: every player back and
        done giving back, or `GIVE_BACK_WAIT` over (`HostResume._end_gathering`)."""
        self._awaited: set[int] = set()
        """While gathering: the seats of players not back since the resume."""
        self._deferred: list[Item] = []
        """New steps (a player's own, a bot's) that came while gathering: taken after it,
        in the order they came, before anything newer."""
        self._gather_timer: asyncio.TimerHandle | None = None
        self._gather_wait = GIVE_BACK_WAIT
        self.inbox: asyncio.Queue[Item] = asyncio.Queue()
        self.game: HostGame | None = None
        self.game_number = 0
        self.previous: GameResult | None = None
        self.score = [0] * options.seats
        self.results: list[dict[str, Any]] = []
        self.port = options.port
        self.server: asyncio.Server | None = None
        self.advertiser: Advertiser | None = None
        self.done = asyncio.Event()
        self.bots = HostBots(
            lambda: self.seats,
            lambda s, cmd: self.inbox.put_nowait(FromBot(s, cmd)),
            lambda: self.inbox.put_nowait(Call(wake)),
            self.rng,
            options.bot_delay,
            on_save_error=lambda e: self.store.failed(e),
            share=lambda seat: share_checks(self.game, seat),
        )
        self._ending: Ending | None = None
        """How the game ends, from its result or forfeit until its record is written."""
        self._finishing: asyncio.Task[None] | None = None
        """The game's record being written (`_record`)."""
        self._reveal_timer: asyncio.TimerHandle | None = None
        self._logged = 0
        """How many of the game's accepted steps are in its journal."""
        self._signed = 0
        """How many of the game's signed steps are in its journal (``privacy_signed``)."""
        self._notes: list[str] = []
        """The game's journal lines on what the host went through (``host_resumed``,
        ``lost_tail``: records.md), kept for a journal written again from memory."""
        self._refused: list[tuple[int, int]] = []
        """The game's refused steps (seat, n) its journal lists (records.md)."""
        self._clock_timer: asyncio.TimerHandle | None = None
        self._clock_for: tuple[int, tuple[Any, ...]] | None = None
        self._clock_view = ClockView()
        """The move clock as the players show it (they restart it from each game action)."""
        self._releasing = False
        self._held = 0
        """Actions waiting for the challenge window (R-S5)."""
        self._handlers: set[asyncio.Task[Any]] = set()
        self._next_player = 1
        self.resumed = False
        self.trace = os.environ.get("LOCALDURAK_TRACE", "") not in ("", "0")
        self._held_events: list[tuple[Message, float]] | None = None
        """Inside `_one_write`: the events emitted meanwhile (and when), for the host's own
        seats (and the timing lines) after the write."""
        self._write_after: list[Peer] = []
        """Inside `_one_write`: the players to write to at its end."""
        self.bytes_out = 0
        self.bytes_in = 0
        for _ in range(options.bots):
            self._add_bot(options.bot_level)

    @property
    def first_seq(self) -> int:
        """The oldest event kept in memory (seqs jump by `RESUME_GAP` at each resume)."""
        return getattr(self.events[0], "seq") if self.events else self.seq + 1  # noqa: B009

    @property
    def state(self) -> TableState:
        """The table's state as the protocol tells it (the lobby's, the handshake's)."""
        return WIRE_STATE.get(self.phase, TableState.PLAYING)

    def _go(self, step: Go) -> bool:
        """Move the phase along `TRANSITIONS`; False (nothing changes) if it may not."""
        to = TRANSITIONS.get((self.phase, step))
        if to is None:
            return False
        self.phase = to
        return True

    @property
    def journal_path(self) -> Path | None:
        return self.store.journal_path

    @journal_path.setter
    def journal_path(self, path: Path | None) -> None:
        self.store.journal_path = path

    def _next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def _emit(self, event: Message) -> None:
        """Number, log, journal and send one event to every synced peer and every bot."""
        stamp = time.monotonic()
        self.events.append(event)
        if len(self.events) > REPLAY_KEEP:
            drop = len(self.events) - REPLAY_KEEP
            del self.events[:drop]
        self.store.append_event(event)
        actor = event.seat if isinstance(event, PrivacyEvent) else None
        # A game action is written to the other players at once (at the end of
        # `_one_write`): what the host does after it (its bots' replicas, the move clock, the
        # rest of the command) is not between it and them (benchmarks/net.py: the action
        # latency).  Other events go in one write at the end of the loop's turn
        # (the deal's bursts).
        now = isinstance(event, PrivacyEvent) and event.step in GAME_STEPS
        for s, slot in enumerate(self.seats):
            if s != actor and slot.peer is not None and slot.peer.synced:
                slot.peer.push(event)
                if now and self._held_events is None:
                    slot.peer.flush_now()
                elif now and slot.peer not in self._write_after:
                    self._write_after.append(slot.peer)
        if actor is not None and 0 <= actor < len(self.seats):
            # The actor's own copy last: the other players are the ones waiting to see it.
            slot = self.seats[actor]
            if slot.peer is not None and slot.peer.synced:
                slot.peer.push(event)
        if self._held_events is not None:
            self._held_events.append((event, stamp))
            return
        if self.trace:
            self._trace(event, stamp)
        self._feed(event)

    @contextlib.contextmanager
    def _one_write(self) -> Iterator[None]:
        """The events emitted meanwhile (a command's relayed steps) go to each other player
        in one write at the end, and only then to the host's own seats (and the timing
        lines), in their order.  (The move clock's event followed every action in a write of
        its own: every player woke, read and decoded twice per action, benchmarks/net.py
        --game at 4 players; the players now restart the clock from the action themselves.)"""
        if self._held_events is not None:
            yield  # already inside one
            return
        self._held_events = []
        try:
            yield
        finally:
            held, self._held_events = self._held_events, None
            peers, self._write_after = self._write_after, []
            for peer in peers:
                peer.flush_now()
            for event, stamp in held:
                if self.trace:
                    self._trace(event, stamp)
                self._feed(event)

    def _feed(self, event: Message) -> None:
        """The host's own seats (its bots) take an event the players were sent."""
        if isinstance(event, GameStarted | PrivacyEvent):
            if not self.bots.bots():
                return  # no seat of its own (a headless table of players): nothing to feed
            if not (isinstance(event, PrivacyEvent) and event.step in GAME_STEPS):
                # The start's steps (shuffle stages, strips) go to the sockets before the
                # host's own seats check them and make theirs: a bot's check of a shuffle
                # stage is tens of milliseconds, and every other seat waited for the relay
                # meanwhile (benchmarks/start_timeline.py).
                for slot in self.seats:
                    if slot.peer is not None:
                        slot.peer.flush_now()
            self.bots.feed_all(event)
            if self.trace and isinstance(event, PrivacyEvent):
                # When the host's own seats (its bots) had done their part of it.
                self.on_event({"event": "fed", "seq": event.seq, "t": time.monotonic()})
            if self.trace:
                for seat in self.bots.newly_decoded():
                    t, cpu, mul = time.monotonic(), time.process_time(), GROUP.counts["mul"]
                    self.on_event(
                        {"event": "bot_dealt", "seat": seat, "t": t, "cpu": cpu, "mul": mul}
                    )
        elif (
            isinstance(event, GameOver)
            and (event.forfeit is not None or event.aborted is not None)
            and not self.store.replaying
        ):
            self.bots.reveal_now()

    def _trace(self, event: Message, now: float) -> None:
        """Timing and size lines for benchmarks/net.py (``trace=True``); ``now``: when the
        host had the event (before its journal and its sending)."""
        size = len(encoded_frame(event))
        peers = sum(1 for s in self.seats if s.peer is not None and s.peer.synced)
        self.bytes_out += size * peers
        if isinstance(event, GameStarted):
            cpu, mul = time.process_time(), GROUP.counts["mul"]
            self.on_event(
                {"event": "trace_start", "seq": event.seq, "t": now, "cpu": cpu, "mul": mul}
            )
        elif isinstance(event, PrivacyEvent):
            cpu, mul = time.process_time(), GROUP.counts["mul"]
            self.on_event(
                {"event": "step", "seq": event.seq, "step": event.step, "t": now}
                | {"seat": event.seat, "cpu": cpu, "mul": mul}
            )
            if event.step in ("play", "act"):
                self.on_event({"event": "relay", "seq": event.seq, "seat": event.seat, "t": now})
        elif isinstance(event, GameOver):
            self.on_event({"event": "bytes", "out": self.bytes_out, "in": self.bytes_in})

    def _post_later(self, delay: float, fn: Callable[[], None]) -> asyncio.TimerHandle:
        """A timer whose work goes through the inbox (the table's one order)."""
        return asyncio.get_running_loop().call_later(delay, self.inbox.put_nowait, Call(fn))

    # --- the table's picture: the lobby event, the advertisement ------------------------

    @property
    def advertisement(self) -> TableAd:
        """What the table advertises now (its mDNS TXT record, docs/protocol.md §6)."""
        return self._ad()

    @property
    def lobby(self) -> Lobby:
        """The lobby as every seat is told it now (docs/protocol.md §4)."""
        return self._lobby()

    def _ad(self) -> TableAd:
        return TableAd(
            name=self.o.name,
            fingerprint=self.identity.fingerprint,
            port=self.port,
            seats_taken=sum(1 for s in self.seats if s.kind is not SeatKind.EMPTY),
            seats_total=len(self.seats),
            state=TableStatus.PLAYING if self.state is TableState.PLAYING else TableStatus.LOBBY,
            rules=self.o.rules.summary(),
            pin=bool(self.o.pin),
        )

    def _readvertise(self) -> None:
        if self.advertiser is not None and self.advertiser.active:
            ad = self._ad()
            asyncio.get_running_loop().create_task(
                self.advertiser.update(seats_taken=ad.seats_taken, state=ad.state)
            )

    def _lobby(self) -> Lobby:
        return Lobby(
            seq=0,
            table=self.o.name,
            state=self.state if self.state is not TableState.CLOSED else TableState.PLAYING,
            rules=self.o.rules,
            seats=tuple(s.info() for s in self.seats),
            owner=0,  # the host's own seat (`_is_owner`); no seat owns a headless table
            games=self.game_number,
        )

    def _broadcast_lobby(self) -> None:
        lobby = self._lobby()
        self._emit(Lobby(**{**fields_of(lobby), "seq": self._next_seq()}))

    # --- what one part of the table calls in another (`TableHost` puts them together) ---

    def _maybe_start(self) -> None:  # `HostLobby`
        raise NotImplementedError

    def _add_bot(self, level: str, at: int | None = None) -> int:  # `HostLobby`
        raise NotImplementedError

    def _stop_clock(self) -> None:  # `HostMoves`
        raise NotImplementedError

    def _update_clock(self) -> None:  # `HostMoves`
        raise NotImplementedError

    def _start_game(self) -> None:  # `HostEnding`
        raise NotImplementedError

    def _drop_finished_games(self) -> None:  # `HostEnding`
        raise NotImplementedError

    def _forfeit(self, seat: int, *, on_clock: bool = False) -> None:  # `HostEnding`
        raise NotImplementedError

    def _abort(self, seat: int, reason: str) -> None:  # `HostEnding`
        raise NotImplementedError

    def _record(self) -> None:  # `HostEnding`
        raise NotImplementedError

    def _game_lines(self, g: HostGame) -> list[str]:  # `HostEnding`
        raise NotImplementedError

    def _save_state(self) -> None:  # `HostResume`
        raise NotImplementedError

    def _game_bytes(self) -> int:  # `HostResume`
        raise NotImplementedError

    def _disk_problem(self, problem: str | None) -> None:  # `HostResume`
        raise NotImplementedError

    def _rewrite_all(self) -> None:  # `HostResume`
        raise NotImplementedError

    async def close(self, reason: str = "the host closed the table") -> None:  # `TableHost`
        raise NotImplementedError
