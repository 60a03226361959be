"""The host: a table's authority (docs/protocol.md §4-§7).

A `TableHost` serves TLS (`transport.serve`), admits players (`transport.host_handshake`, the
PIN gate), keeps the lobby (seats, names, ready, the rules, bots filling seats), starts a game
when every seat is taken and every player ready, and then runs it:

- every command from every seat (remote players and the in-process bots) and every timer goes
  through one typed inbox (`Item`), so the table has one order; a `HostGame` accepts or
  refuses each command (the signature and counter, the card-privacy proofs, the rules engine
  on public information) and the host relays what it accepts, unchanged, to every seat as
  numbered events; a refusal goes to its sender alone;
- the table's phase is one value (`Phase`), changed only along `TRANSITIONS`;
- the host holds no secret: each bot is a `SeatGame` with its own keys, reading only its
  seat's view (R-T4), like a remote player (`host_bots`);
- every accepted step and action is written at once to the game's journal, and every event
  to the table's event log (`table_store`), so a crash loses nothing: ``localdurak host
  --resume JOURNAL`` carries the table on (`resume_table`);
- a player whose connection drops keeps his seat for ``hold`` seconds (`Presence`), then
  forfeits: he is the durak (privacy.md "When a player drops out");
- in cheating mode an action that would close a bout waits ``challenge_window`` seconds while
  challenges are taken first (R-S5);
- a series (R-F2, R-D5): ``games`` games in a row, the score counted per seat.

The table is advertised with mDNS (`discovery.Advertiser`), its TXT record updated when seats
change; ``advertise=False`` turns that off.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import dataclasses
import enum
import logging
import os
import random
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from localdurak.game.actions import GameResult
from localdurak.game.engine import Game
from localdurak.game.outcome import Phase as EnginePhase
from localdurak.game.rules import Rules, RulesError
from localdurak.net.discovery import Advertiser, TableAd, TableStatus
from localdurak.net.host_bots import BotSeat, HostBots
from localdurak.net.identity import EphemeralKey, Identity
from localdurak.net.peer import PEER_BACKLOG_MAX, Peer, SeatSlot
from localdurak.net.recovery import RESUME_GAP, journal_commands, signed_item
from localdurak.net.table_store import (
    EVENTS_FILE,
    RETRY_S,
    STATE_FILE,
    TableStore,
    check_room,
    journal_objects,
    read_event_log,
    read_frames,
    same_file,
    table_state,
    write_record_file,
)
from localdurak.net.transport import (
    DEFAULT_PORT,
    Channel,
    ConnectionClosed,
    PinGate,
    bound_port,
    host_handshake,
    keepalive,
    serve,
)
from localdurak.protocol.codec import encode_frame
from localdurak.protocol.connection import encoded_frame
from localdurak.protocol.errors import (
    AuthFailed,
    BadMessage,
    CheatFound,
    ErrorCode,
    Forbidden,
    RemoteProtocolError,
    Replayed,
    TableFull,
    Unavailable,
)
from localdurak.protocol.messages import (
    Ack,
    AddBot,
    Auth,
    Authed,
    Bye,
    Clock,
    Closing,
    Error,
    GameOver,
    GameStarted,
    Lobby,
    Message,
    Notice,
    Presence,
    Privacy,
    PrivacyEvent,
    Ready,
    RemoveBot,
    Resume,
    SeatKind,
    SetRules,
    Sit,
    Stand,
    TableClosed,
    TableState,
    message_to_wire,
)
from localdurak.protocol.records import (
    journal_action,
    journal_append,
    journal_header,
    journal_set,
)
from localdurak.protocol.table.common import action_of, decode_body
from localdurak.protocol.table.host import HostGame
from localdurak.protocol.table.policy import waits_for_challenges

log = logging.getLogger(__name__)

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
"""After a resume, how long the bots' steps signed after events the host lost wait for the
players to give those back (`HostBots.resend_pending`)."""
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

__all__ = [
    "EVENTS_FILE",
    "PEER_BACKLOG_MAX",
    "STATE_FILE",
    "BotSeat",
    "HostOptions",
    "Peer",
    "Phase",
    "TableHost",
    "read_frames",
    "resume_table",
    "table_state",
]


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
    keys (issue 11 item 2)."""
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


_PAUSABLE = (Phase.LOBBY, Phase.PLAYING, Phase.REVEALING, Phase.FORFEITED, Phase.ABORTED)
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
    **{(p, Go.PAUSE): Phase.PAUSED for p in _PAUSABLE},
    **{(p, Go.CLOSE): Phase.CLOSED for p in Phase if p not in (Phase.PAUSED, Phase.CLOSED)},
}
"""Every move of the table's phase; anything else is ignored (a forfeit timer that fires
while the record is written, a second forfeit, a forfeit after the game's own result)."""

_WIRE_STATE = {
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


def _wake() -> None:
    """An inbox item that only wakes the host's loop (its bots think after each item)."""


@dataclass
class _Ending:
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
    """Issue 11 item 5: seconds the seat the table waits for has to act (0: no clock)."""
    challenge_window: float = CHALLENGE_WINDOW
    bot_delay: float = 0.0
    """Seconds a bot waits before it acts (0 for headless games)."""
    seed: int | None = None
    keepalive: float = 5.0
    own_seat: bool = False
    """The person hosting plays at seat 0 (cli.md ``localdurak host``): bots sit from 1."""


class _HeldBack(Exception):
    """A command waits for the challenge window (R-S5); it is answered later."""


def _fields(m: Any) -> dict[str, Any]:
    return {name: getattr(m, name) for name in type(m).SCHEMA}


class TableHost:
    """One table: lobby, games, series.  ``await host.run()`` until the games are played."""

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
        """Seats whose players may give back other seats' steps the host lost."""
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
            lambda: self.inbox.put_nowait(Call(_wake)),
            self.rng,
            options.bot_delay,
            on_save_error=lambda e: self.store.failed(e),
        )
        self._ending: _Ending | None = None
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
        self._releasing = False
        self._held = 0
        """Actions waiting for the challenge window (R-S5)."""
        self._handlers: set[asyncio.Task[Any]] = set()
        self._next_player = 1
        self.resumed = False
        self.trace = os.environ.get("LOCALDURAK_TRACE", "") not in ("", "0")
        self.bytes_out = 0
        self.bytes_in = 0
        for _ in range(options.bots):
            self._add_bot(options.bot_level)

    # --- the phase ----------------------------------------------------------------------------

    @property
    def first_seq(self) -> int:
        """The oldest event kept in memory (seqs jump by `RESUME_GAP` at each resume)."""
        return getattr(self.events[0], "seq") if self.events else self.seq + 1  # noqa: B009

    @property
    def state(self) -> TableState:
        """The table's state as the protocol tells it (the lobby's, the handshake's)."""
        return _WIRE_STATE.get(self.phase, TableState.PLAYING)

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

    # --- running ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen, advertise; returns once the table is reachable."""
        self.o.record_dir.mkdir(parents=True, exist_ok=True)
        self.state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.store.lock()  # one host per table (a resume while it runs touches nothing)
        check_room(self.o.record_dir, self._game_bytes())
        check_room(self.state_dir, 0)
        self.server = await serve(self.identity, self._on_channel, host=self.o.host, port=self.port)
        self.port = bound_port(self.server)
        self._save_state()
        if self.resumed:
            # Whole again from memory: a log that lost its tail or had a damaged frame
            # would read only up to it next time (appending after it hides the rest).
            self.store.reopen_events(self.events)
        else:
            self.store.open_events(False, self.events)
        self.on_event(
            {
                "event": "listening",
                "port": self.port,
                "fingerprint": self.identity.fingerprint,
                "name": self.o.name,
            }
        )
        for s, slot in enumerate(self.seats):
            if slot.kind is SeatKind.BOT:
                self.on_event({"event": "seated", "seat": s, "name": slot.name, "bot": True})
        self.advertiser = Advertiser(self._ad(), enabled=self.o.advertise)
        advertiser = self.advertiser
        await advertiser.start()
        # A seat taken while the advertisement was being announced (the host's own player
        # joins at once) found it not yet active: announce what the table is now.
        if self._ad().seats_taken != advertiser.ad.seats_taken:
            self._readvertise()
        if advertiser.problem and self.o.advertise:
            self.on_event({"event": "advertising", "problem": advertiser.problem})
        if not self.resumed:
            self._broadcast_lobby()
        elif self.game_number >= self.o.games or self.phase is Phase.CLOSED:
            # The crash came after the series' last game: nothing left but to close.
            self.phase = Phase.LOBBY
            asyncio.get_running_loop().create_task(self.close("the series is over"))
        elif self.phase is Phase.PLAYING:
            for seat, slot in enumerate(self.seats):
                if slot.kind is SeatKind.HUMAN and slot.peer is None:
                    self._hold(seat)
            self._update_clock()  # counted afresh from the host's return
            # A bot whose turn it is acts after an inbox item: a resumed table with nothing
            # to resend froze for good (1 resume of all-bot tables in 6).
            self.inbox.put_nowait(Call(_wake))
            self._post_later(GIVE_BACK_WAIT, self.bots.resend_waiting)
        self._maybe_start()

    async def run(self) -> None:
        """Serve until every game of the series is played (or `close`)."""
        if self.server is None:
            await self.start()
        loop_task = asyncio.create_task(self._loop())
        try:
            await self.done.wait()
        finally:
            loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await loop_task
            await self.close()

    def resumable(self) -> bool:
        """Whether stopping now leaves something to resume: a game started (its journal says
        where the table's state is) and the series not over."""
        return (
            self.journal_path is not None
            and self.game_number < self.o.games
            and self.phase in (*_PAUSABLE, Phase.RECORDING)
        )

    async def stop(self, reason: str = "the host stopped") -> Path | None:
        """Stopping is pausing (issue 15): a table with a game to come back to is paused —
        the journal to give ``--resume`` is returned — and any other is closed (None)."""
        await self._finish_record()
        if self.resumable():
            await self.pause()
            return self.journal_path
        await self.close(reason)
        return None

    async def pause(self) -> None:
        """Write what a resume needs, tell every client ``PAUSED_TEXT`` (a `Bye` that keeps
        their seats: they reconnect when the host is back), and stop serving.  No event is
        logged: the resumed table carries on from the last one."""
        await self._finish_record()
        if not self._go(Go.PAUSE):
            return
        if self.server is not None:
            # No one connects again before the host is back: a client that came back to a
            # pausing host was refused its steps and fell out of step with the table.
            self.server.close()
        for slot in self.seats:
            if slot.forfeit_timer is not None:
                slot.forfeit_timer.cancel()
                slot.forfeit_timer = None
        self._cancel_reveal_timer()
        self._stop_clock()
        self._save_state()
        bye = Bye(reason=PAUSED_TEXT, paused=True)
        peers = [s.peer for s in self.seats if s.peer is not None]
        for p in peers:
            p.push(bye)
            p.hang_up()
        self.on_event(
            {
                "event": "paused",
                "journal": str(self.journal_path),
                "game": self.game_number,
                "resume": f"localdurak host --resume {shlex.quote(str(self.journal_path))}",
            }
        )
        await self.close()

    async def _finish_record(self) -> None:
        if self._finishing is not None:
            # The last game's record first: the players' game is not over without it.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._finishing), 60)

    async def close(self, reason: str = "the host closed the table") -> None:
        await self._finish_record()
        await self._last_writes()
        if self._go(Go.CLOSE):
            closed = TableClosed(seq=self._next_seq(), reason=reason)
            self._emit(closed)
            for slot in self.seats:
                if slot.peer is not None and not slot.peer.synced:
                    slot.peer.push(closed)  # even one that never resumed hears it
        peers = [s.peer for s in self.seats if s.peer is not None]
        for p in peers:
            p.hang_up()
        for p in peers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(p.finished(), 2)
        for p in peers:
            await p.channel.close()
        # Let the connections' handlers end by themselves (a handler cancelled at exit is
        # reported by asyncio as an error).
        handlers = [t for t in self._handlers if t is not asyncio.current_task()]
        if handlers:
            await asyncio.wait(handlers, timeout=3)
        if self.advertiser is not None:
            await self.advertiser.close()
            self.advertiser = None
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 2)
            self.server = None
        await self.store.close()
        self.bots.close()
        self.done.set()

    async def _last_writes(self) -> None:
        """Closing with disk trouble: the table's files (the records above all) are tried
        again for `CLOSE_RETRY_S` before the host gives up and says what is lost."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + CLOSE_RETRY_S
        while self.store.broken and loop.time() < give_up:
            await asyncio.sleep(RETRY_S)
            self.store.try_again()
        for path, _ in self._unrecorded:
            self.on_event({"event": "unrecorded", "journal": str(path)})
            log.error("the record of %s could not be written: %s", path, self.store.problem)

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

    # --- connections ----------------------------------------------------------------------------

    def _known_key(self, key: bytes) -> bool:
        return any(s.key == key and s.kind is SeatKind.HUMAN for s in self.seats)

    async def _on_channel(self, channel: Channel) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)
        peer_box: list[Peer] = []

        async def admit(ch: Channel, auth: Auth) -> Authed:
            seat = self._admit(auth)
            peer = Peer(ch, auth.key, auth.name)
            peer.seat = seat
            peer_box.append(peer)
            return Authed(player=self._new_player_id(), seat=seat, seq=self.seq)

        await host_handshake(
            channel,
            self.identity,
            table=self.o.name,
            admit=admit,
            pin_gate=self.pin_gate,
            known_key=self._known_key,
            state=self.state if self.state is not TableState.CLOSED else TableState.PLAYING,
        )
        (peer,) = peer_box
        assert peer.seat is not None
        alive = asyncio.create_task(keepalive(channel, interval=self.o.keepalive), name="alive")
        peer.tasks = [alive]
        await self.inbox.put(Joined(peer))
        try:
            while True:
                message = await channel.recv()
                if self.trace:
                    self.bytes_in += len(encode_frame(message_to_wire(message)))
                await self.inbox.put(Received(peer, message))
        except (ConnectionClosed, RemoteProtocolError, TimeoutError) as e:
            log.info("seat %s (%s) left: %s", peer.seat, peer.name, e)
        finally:
            await self.inbox.put(Left(peer))
            with contextlib.suppress(Exception):
                await asyncio.wait_for(peer.finished(), 2)
            alive.cancel()

    def _new_player_id(self) -> int:
        self._next_player += 1
        return self._next_player % 0xFFFF

    def _admit(self, auth: Auth) -> int:
        """The seat this key takes: its own (a reconnect), or a free one in the lobby."""
        for s, slot in enumerate(self.seats):
            if slot.key == auth.key and slot.kind is SeatKind.HUMAN:
                if slot.peer is not None and not slot.peer.channel.closed:
                    # The same device again while its old connection lingers: the new one wins.
                    old = slot.peer
                    slot.peer = None
                    asyncio.get_running_loop().create_task(
                        old.channel.close(reason="you connected again")
                    )
                return s
        if self.state is not TableState.LOBBY:
            raise TableFull("the game has started and no seat is held for you")
        if any(s.key == auth.key for s in self.seats):
            raise TableFull("this key already plays at the table")
        for s, slot in enumerate(self.seats):
            if slot.kind is SeatKind.EMPTY:
                slot.kind, slot.name, slot.key, slot.ready = (
                    SeatKind.HUMAN,
                    auth.name,
                    auth.key,
                    False,
                )
                return s
        raise TableFull("every seat at this table is taken")

    # --- the loop ---------------------------------------------------------------------------

    async def _loop(self) -> None:
        while True:
            if self.game is not None and self.game.idle_work and self.inbox.empty():
                # Strip proofs wait for a quiet moment, and go one at a time (a stage of six
                # cards is about 1.5 ms of curve work): a command that arrives meanwhile is
                # relayed first.  All of them at once stalled the table for tens of
                # milliseconds after each deal (benchmarks/net.py).
                try:
                    item = await asyncio.wait_for(self.inbox.get(), IDLE_VERIFY_S)
                except TimeoutError:
                    fault = self.game.verify_idle(limit=1)
                    if fault is not None:
                        log.warning("card privacy: %s (recorded for the audit)", fault)
                        self._abort_if_cheated()
                    continue
            else:
                item = await self.inbox.get()
            try:
                await self._dispatch(item)
            except Exception:
                log.exception("the host failed on %r", item)
            if not self.inbox.empty():
                # What this command relayed goes to the sockets before the next command is
                # taken (a queue with items does not suspend `get`): a burst of commands
                # would otherwise hold every event of the burst until its end.
                await asyncio.sleep(0)
            elif self.phase is Phase.PLAYING or self.phase is Phase.REVEALING:
                self.bots.think(self._held)

    async def _dispatch(self, item: Item) -> None:
        if self.phase is Phase.PAUSED and isinstance(item, Received | FromBot):
            return  # unanswered: the sender keeps it and sends it again to the resumed host
        match item:
            case Received(peer, message):
                await self._from_peer(peer, message)
            case FromBot(seat, command):
                self._from_bot(seat, command)
            case Call(fn):
                fn()
            case Joined(peer):
                self._joined(peer)
            case Left(peer):
                if peer.seat is not None and self.seats[peer.seat].peer is peer:
                    self._dropped(peer.seat)

    def _joined(self, peer: Peer) -> None:
        seat = peer.seat
        assert seat is not None
        slot = self.seats[seat]
        if slot.peer is not None and slot.peer is not peer:
            slot.peer.hang_up()
        slot.peer = peer
        if slot.away_since is None:
            # (Away, it is back only once it resumes: a client that lost its saved seat
            # cannot play it — the privacy key is gone — and the seat must still forfeit.)
            self.on_event({"event": "seated", "seat": seat, "name": slot.name})
            peer.synced = True
            self._broadcast_lobby()
            self._readvertise()

    async def _from_peer(self, peer: Peer, message: Message) -> None:
        seat = peer.seat
        if seat is None:
            return  # it stood up
        if self.seats[seat].peer is not peer:
            return  # a connection that was replaced
        if isinstance(message, Bye):
            await peer.channel.close()
            return
        if isinstance(message, Error):
            log.info("seat %d reports: %s", seat, message.message)
            if self.game is not None and message.code is ErrorCode.ILLEGAL_MOVE:
                # A seat found a relayed step broken (issue 11 item 2): the host checks all it
                # relayed unchecked, itself; a cheat it confirms aborts the game naming the
                # cheater.  The report alone names nobody.
                self.game.verify_idle()
                self._abort_if_cheated()
            return
        command_id: int | None = getattr(message, "id", None)
        try:
            seq = self._command(seat, peer, message)
        except _HeldBack:
            return  # answered when the challenge window closes (R-S5)
        except RemoteProtocolError as e:
            peer.push(Error.from_exception(e, re=command_id))
            if isinstance(e, HardErrors) and not (
                # A step sent again to a resumed host that had it otherwise (one refused
                # before the crash, given back meanwhile): said, not a reason to drop.
                self.resumed_at and isinstance(e, Replayed) and isinstance(message, Privacy)
            ):
                peer.hang_up()
            return
        if command_id is not None and not isinstance(message, Resume):
            peer.push(Ack(re=command_id, seq=seq))

    def _command(self, seat: int, peer: Peer, m: Message) -> int | None:
        slot = self.seats[seat]
        if isinstance(m, Ready):
            if self.state is not TableState.LOBBY:
                return None
            slot.ready = m.ready
            self._broadcast_lobby()
            self._maybe_start()
            return self.seq
        if isinstance(m, Sit):
            if m.seat is not None and m.seat != seat:
                raise TableFull("you keep the seat the table gave you")
            return None
        if isinstance(m, Stand):
            if self.state is not TableState.LOBBY:
                raise Unavailable("you cannot leave your seat during a game")
            self.seats[seat] = SeatSlot()
            peer.seat = None
            self._broadcast_lobby()
            self._readvertise()
            peer.hang_up()
            return self.seq
        if isinstance(m, SetRules | AddBot | RemoveBot):
            return self._owner_command(seat, m)
        if isinstance(m, Resume):
            self._resume_peer(peer, m)
            return None
        if isinstance(m, Privacy):
            if m.seat is not None and m.seat != seat:
                # Another seat's step from the sender's copy: only from a player who saw
                # what this host lost (`_resume_peer`); its seat's signature is checked.
                if seat not in self._restoring:
                    raise Forbidden("only your own steps, but to give back what the host lost")
                return self._privacy(m.seat, dataclasses.replace(m, seat=None))
            return self._privacy(seat, m, peer)
        raise BadMessage(f"{m.TYPE!r} is not a command")

    # --- lobby -------------------------------------------------------------------------------

    def _is_owner(self, seat: int) -> bool:
        """The table's owner: the person at the host's own seat (0), signed in with the host's
        own key.  A headless table has none."""
        return self.o.own_seat and seat == 0 and self.seats[0].key == self.identity.public_key

    def _owner_command(self, seat: int, m: SetRules | AddBot | RemoveBot) -> int:
        """docs/protocol.md §4: the owner fills seats with bots, frees them, or changes the
        rules, in the lobby before the first game (a series keeps its table)."""
        if not self._is_owner(seat):
            raise Forbidden("only the table's owner (the host's own seat) may change the table")
        if self.state is not TableState.LOBBY or self.game_number > 0:
            raise Unavailable("the table can change only before its first game")
        if isinstance(m, AddBot):
            if m.seat is not None and not (
                0 <= m.seat < len(self.seats) and self.seats[m.seat].kind is SeatKind.EMPTY
            ):
                raise TableFull(f"seat {m.seat + 1} is not free")
            self._add_bot(m.level.value, m.seat)
        elif isinstance(m, RemoveBot):
            if not 0 <= m.seat < len(self.seats) or self.seats[m.seat].kind is not SeatKind.BOT:
                raise BadMessage(f"there is no bot at seat {m.seat + 1}")
            self.seats[m.seat] = SeatSlot()
        else:
            try:
                m.rules.check_seats(m.seats)
            except RulesError as e:
                raise BadMessage(str(e)) from None
            taken = [i for i, slot in enumerate(self.seats) if slot.kind is not SeatKind.EMPTY]
            if taken and max(taken) >= m.seats:
                raise Unavailable(
                    f"seat {max(taken) + 1} is taken: free it before the table gets smaller"
                )
            self.o.rules, self.o.seats = m.rules, m.seats
            self.seats = self.seats[: m.seats] + [
                SeatSlot() for _ in range(m.seats - len(self.seats))
            ]
            self.score = [0] * m.seats
            # The players said ready to other rules: they say it again to these.
            for i, slot in enumerate(self.seats):
                if slot.kind is SeatKind.HUMAN and i != seat:
                    slot.ready = False
        self._broadcast_lobby()
        self._readvertise()
        self._maybe_start()
        return self.seq

    def _add_bot(self, level: str, at: int | None = None) -> int:
        for s, slot in enumerate(self.seats):
            if at is not None and s != at:
                continue
            if slot.kind is SeatKind.EMPTY and not (s == 0 and self.o.own_seat):
                bot = BotSeat(
                    level,
                    random.Random(self.rng.getrandbits(64)),
                    path=self.state_dir / f"bot-{s}.bin",
                )
                slot.kind, slot.bot, slot.ready = SeatKind.BOT, bot, True
                slot.name = f"Bot {s + 1}"
                slot.key = bot.key.public_key
                return s
        raise TableFull("no free seat for a bot")

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
        self._emit(Lobby(**{**_fields(lobby), "seq": self._next_seq()}))

    def _maybe_start(self) -> None:
        if self.phase is not Phase.LOBBY or self.game_number >= self.o.games:
            return
        if all(
            s.kind is not SeatKind.EMPTY and (s.ready or s.kind is SeatKind.BOT) and s.connected
            for s in self.seats
        ):
            self._start_game()

    # --- events -------------------------------------------------------------------------------

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
        for s, slot in enumerate(self.seats):
            if s != actor and slot.peer is not None and slot.peer.synced:
                slot.peer.push(event)
        if actor is not None and 0 <= actor < len(self.seats):
            # The actor's own copy last: the other players are the ones waiting to see it.
            slot = self.seats[actor]
            if slot.peer is not None and slot.peer.synced:
                slot.peer.push(event)
        if self.trace:
            self._trace(event, stamp)
        if isinstance(event, GameStarted | PrivacyEvent):
            self.bots.feed_all(event)
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
            cpu = time.process_time()
            self.on_event({"event": "trace_start", "seq": event.seq, "t": now, "cpu": cpu})
        elif isinstance(event, PrivacyEvent):
            cpu = time.process_time()
            self.on_event(
                {"event": "step", "seq": event.seq, "step": event.step, "t": now, "cpu": cpu}
            )
            if event.step in ("play", "act"):
                self.on_event({"event": "relay", "seq": event.seq, "seat": event.seat, "t": now})
        elif isinstance(event, GameOver):
            self.on_event({"event": "bytes", "out": self.bytes_out, "in": self.bytes_in})

    def _post_later(self, delay: float, fn: Callable[[], None]) -> asyncio.TimerHandle:
        """A timer whose work goes through the inbox (the table's one order)."""
        return asyncio.get_running_loop().call_later(delay, self.inbox.put_nowait, Call(fn))

    # --- games ---------------------------------------------------------------------------------

    def _start_game(self) -> None:
        if not self._go(Go.START):
            return
        n = len(self.seats)
        dealer = Game.series_dealer(self.previous, self.rng.randrange(n))  # R-D5
        keys = tuple(s.key for s in self.seats)
        assert all(k is not None for k in keys)
        started = GameStarted(
            seq=0,
            game=os.urandom(16),
            number=self.game_number,
            rules=self.o.rules,
            dealer=dealer,
            names=tuple(s.name or f"Seat {i + 1}" for i, s in enumerate(self.seats)),
            keys=keys,  # type: ignore[arg-type]
            previous=self.previous,
        )
        self._open_journal(started)
        self._save_state()
        if not self.store.broken:
            try:
                check_room(self.o.record_dir, self._game_bytes())
            except OSError as e:
                self._disk_problem(str(e))
        self._broadcast_lobby()
        self._readvertise()
        started = GameStarted(**{**_fields(started), "seq": self._next_seq()})
        self._drop_finished_games()
        self.store.new_game(self.events)
        self.game = HostGame(started)
        self._logged = self._signed = 0
        self._notes = []
        self._refused = []
        self.on_event(
            {"event": "game_started", "game": self.game_number, "journal": str(self.journal_path)}
        )
        self._emit(started)

    def _drop_finished_games(self) -> None:
        """Keep in memory only the events from the last game's end on: a player who comes
        back needs no more (an older `Resume` starts afresh, docs/protocol.md §7), and a long
        series no longer grows the host's memory game by game (the endurance soak: +88 MB over
        200 games).  The event log on disk keeps every event for ``--resume``."""
        for i in range(len(self.events) - 1, 0, -1):
            if isinstance(self.events[i], GameOver):
                del self.events[:i]
                return

    def _open_journal(self, started: GameStarted) -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.o.record_dir / f"game-{stamp}-{os.getpid()}-{self.game_number + 1}.journal"
        self.store.open_journal(path, self._journal_header(started))

    def _privacy(self, seat: int, cmd: Privacy, peer: Peer | None = None) -> int | None:
        g = self.game
        if g is None or self.state is not TableState.PLAYING:
            raise Unavailable("no game is being played")
        if g.duplicate(seat, cmd):
            return None  # a reconnecting client sent it again: already relayed
        if self._hold_back(g, seat, cmd, peer):
            raise _HeldBack()
        try:
            acc = g.receive(seat, cmd)
        except RemoteProtocolError as e:
            # The gap it leaves in the seat's counters, explained in the record even after a
            # restart (which rebuilds the game from the relayed steps alone).
            self._refused.append((seat, cmd.n))
            self.store.journal_line(journal_append("privacy_refused", [seat, cmd.n]))
            if isinstance(e, CheatFound) and e.seat is not None:
                self._abort(e.seat, e.reason)
            raise
        first: int | None = None
        for m in g.accepted_log[self._logged :]:
            self.store.journal_line(journal_append("privacy_log", m.to_json()))
        self._logged = len(g.accepted_log)
        for st in g.steps[self._signed :]:
            self.store.journal_line(journal_append("privacy_signed", signed_item(st)))
        self._signed = len(g.steps)
        if acc.action is not None:
            self.store.journal_line(journal_action(acc.action))
        for s, c in acc.relay:
            ev = c.relayed(self._next_seq(), s)
            first = first if first is not None else ev.seq
            self._emit(ev)
        self._update_clock()
        if self.phase is Phase.FORFEITED or self.phase is Phase.ABORTED:
            assert self._ending is not None
            revealed = g.privacy.t.revealed
            gone = (
                self._ending.forfeit if self._ending.forfeit is not None else self._ending.aborted
            )
            if all(k is not None for s, k in enumerate(revealed) if s != gone):
                self._record()
            return first
        game = g.game
        if game is not None and game.result is not None:
            if self._go(Go.RESULT):
                self._reveal_timer = self._post_later(REVEAL_TIMEOUT, self._record)
            if g.all_revealed():
                self._record()
        return first

    def _hold_back(self, g: HostGame, seat: int, cmd: Privacy, peer: Peer | None) -> bool:
        """R-S5: in cheating mode an action that would close the bout waits for the challenge
        window; challenges that arrive meanwhile are applied first."""
        window = self.o.challenge_window
        if not self.o.rules.cheating or window <= 0 or self._releasing or g.game is None:
            return False
        if cmd.step not in ("play", "act"):
            return False
        try:
            action = action_of(decode_body(cmd.body, seat))
        except RemoteProtocolError:
            return False  # refused on the spot, with its reason
        if not waits_for_challenges(self.o.rules, g.game, action):
            return False
        self.on_event({"event": "challenge_window", "seat": seat, "seconds": window})
        self._held += 1
        # Everybody sees the window open (their screens say challenges are still taken).
        self._emit(Closing(seq=self._next_seq(), seat=seat, open=True, window=int(window * 1000)))
        self._post_later(window, lambda: self._release(seat, cmd, peer))
        return True

    def _release(self, seat: int, cmd: Privacy, peer: Peer | None) -> None:
        self._held -= 1
        if self.game is None:
            return
        self._releasing = True
        try:
            seq = self._privacy(seat, cmd, peer)
        except RemoteProtocolError as e:
            if peer is not None:
                peer.push(Error.from_exception(e, re=cmd.id))
            return
        finally:
            self._releasing = False
            if not self._held and self.game is not None:
                self._emit(Closing(seq=self._next_seq(), seat=seat, open=False))
        if peer is not None:
            peer.push(Ack(re=cmd.id, seq=seq))

    def _from_bot(self, seat: int, cmd: Privacy) -> None:
        try:
            self._privacy(seat, cmd)
        except _HeldBack:
            pass  # released when the challenge window closes (R-S5)
        except RemoteProtocolError as e:
            log.info("bot %d refused: %s", seat, e)
            bot = self.seats[seat].bot
            if bot is not None:
                self.bots.refused(seat, bot, cmd)

    # --- the end of a game: result or forfeit → keys → record → GameOver ------------------

    # --- the move clock (issue 11 item 5) -------------------------------------------------

    def _waited_for(self) -> tuple[int, tuple[Any, ...]] | None:
        """The seat the table waits for, and the state it waits in (public information):
        the attacker at an empty table, the defender with a card to cover, else the first
        attacker who has not passed; None before the deal is done or after the result."""
        g = self.game
        game = g.game if g is not None else None
        if self.phase is not Phase.PLAYING or game is None or game.result is not None:
            return None
        table = game.table
        state = (game.bout_number, tuple(table), tuple(game.passed), game.phase, game.defender)
        if not table:
            seat = game.attacker
        elif any(d is None for _, d in table) and game.phase is not EnginePhase.TAKING:
            seat = game.defender
        else:
            seat = next(
                (
                    s
                    for s in game.attackers
                    if s not in game.passed and s != game.defender and s not in game.out
                ),
                None,
            )
        return None if seat is None else (seat, state)

    def _update_clock(self) -> None:
        """Start the clock when the seat waited for or the state it waits in changed; tell
        every screen (a `Clock` event)."""
        if self.o.move_time <= 0 or self.store.replaying:
            return
        waited = self._waited_for()
        if waited == self._clock_for:
            return
        if self._clock_timer is not None:
            self._clock_timer.cancel()
            self._clock_timer = None
        self._clock_for = waited
        if waited is None:
            return
        seat = waited[0]
        self._clock_timer = self._post_later(self.o.move_time, lambda: self._clock_out(waited))
        self._emit(Clock(seq=self._next_seq(), seat=seat, seconds=round(self.o.move_time)))

    def _stop_clock(self) -> None:
        if self._clock_timer is not None:
            self._clock_timer.cancel()
            self._clock_timer = None
        self._clock_for = None

    def _clock_out(self, waited: tuple[int, tuple[Any, ...]]) -> None:
        if self._clock_for != waited or self._waited_for() != waited:
            return  # it acted meanwhile
        seat = waited[0]
        self.on_event({"event": "move_time", "seat": seat, "seconds": self.o.move_time})
        self._forfeit(seat, on_clock=True)

    def _forfeit(self, seat: int, *, on_clock: bool = False) -> None:
        """The seat's hold ran out (or its move time, ``on_clock``): it is the durak and the
        game ends (privacy.md "When a player drops out"); the others reveal their keys
        (GameOver tells them) so the audit checks what it can, and the record follows when
        they are in (or `REVEAL_TIMEOUT`)."""
        slot = self.seats[seat]
        g = self.game
        if (slot.away_since is None and not on_clock) or g is None or not self._go(Go.FORFEIT):
            return
        self._stop_clock()
        self.on_event({"event": "forfeit", "seat": seat})
        self._cancel_reveal_timer()
        self.score[seat] += 1
        self._ending = _Ending(GameResult((seat,), False, 0), forfeit=seat)
        self._game_over(g, self._ending)
        self._reveal_timer = self._post_later(REVEAL_TIMEOUT, self._record)

    def _abort_if_cheated(self) -> None:
        g = self.game
        if g is not None and g.cheat is not None and g.cheat.seat is not None:
            self._abort(g.cheat.seat, g.cheat.reason)

    def _abort(self, seat: int, reason: str) -> None:
        """Seat ``seat`` broke the card-privacy protocol (the host's own check of its proof
        failed): the game ends aborted — no durak, no forfeit, nobody's score changes — and
        `GameOver` names the seat at once; the others reveal their keys for the audit, and
        the record follows when they are in (or `REVEAL_TIMEOUT`).  Issue 11 item 2."""
        g = self.game
        if g is None or not self._go(Go.ABORT):
            return
        self.on_event({"event": "aborted", "seat": seat, "reason": reason})
        self._cancel_reveal_timer()
        self._stop_clock()
        for slot in self.seats:
            if slot.forfeit_timer is not None:
                slot.forfeit_timer.cancel()  # nobody forfeits an aborted game
                slot.forfeit_timer = None
        self._ending = _Ending(GameResult((), False, 0), aborted=seat, reason=reason[:500])
        self._game_over(g, self._ending)
        self._reveal_timer = self._post_later(REVEAL_TIMEOUT, self._record)

    def _record(self) -> None:
        """Every key is in (or the wait is over): the journal's last lines, then the record
        in a thread (the audit takes a third of a second at six hands of 52 cards), so that
        the table keeps answering meanwhile.  The game is over for everybody only once its
        record is on disk (a host that crashes before that writes it when it resumes)."""
        g = self.game
        was = self.phase
        if g is None or not self._go(Go.RECORD):
            return
        self._stop_clock()
        self._cancel_reveal_timer()
        if was is not Phase.FORFEITED and was is not Phase.ABORTED:
            game = g.game
            result = game.result if game is not None else None
            self._ending = _Ending(result if result is not None else GameResult((), True, 0))
        ending = self._ending
        assert ending is not None
        ending.lines = self._ending_lines(g, ending)
        for line in ending.lines:
            self.store.journal_line(line)
        self._finishing = asyncio.get_running_loop().create_task(
            self._recorded(g, ending), name="record"
        )

    def _ending_lines(self, g: HostGame, ending: _Ending) -> list[str]:
        lines = [
            journal_set("privacy", g.transcript()),
            journal_set("result", ending.result.to_dict()),
        ]
        if ending.forfeit is not None:
            lines.append(journal_set("forfeit", ending.forfeit))
        if ending.aborted is not None:
            lines.append(journal_set("aborted", {"seat": ending.aborted, "reason": ending.reason}))
        return lines

    def _game_lines(self, g: HostGame) -> list[str]:
        """The game's whole journal from memory (after a crash or disk trouble)."""
        lines = [self._journal_header(g.started)]
        lines += [journal_append("privacy_log", m.to_json()) for m in g.accepted_log]
        lines += [journal_append("privacy_signed", signed_item(st)) for st in g.steps]
        lines += self._notes
        lines += [journal_append("privacy_refused", [seat, n]) for seat, n in self._refused]
        if g.game is not None:
            lines += [journal_action(a) for a in g.game.log]
        if self._ending is not None:
            lines += self._ending.lines
        return lines

    def _cancel_reveal_timer(self) -> None:
        if self._reveal_timer is not None:
            self._reveal_timer.cancel()
            self._reveal_timer = None

    def _game_over(self, g: HostGame, ending: _Ending) -> None:
        """Tell the game's end, once (`_Ending.announced`)."""
        if ending.announced:
            return
        ending.announced = True
        self._emit(
            GameOver(
                seq=self._next_seq(),
                game=g.started.game,
                result=ending.result,
                forfeit=ending.forfeit,
                score=tuple(self.score),
                aborted=ending.aborted,
                reason=ending.reason,
            )
        )

    async def _recorded(self, g: HostGame, ending: _Ending) -> None:
        record_path: Path | None = None
        journal = self.journal_path
        try:
            if self.store.broken:
                raise OSError(self.store.problem)
            record_path, deck = await self.store.write_record()
            if deck is not None:
                self.store.journal_line(journal_set("deck", deck))
        except OSError as e:
            # Written once the disk takes it (`_rewrite_all`); the game ends for everybody now.
            if journal is not None:
                self._unrecorded.append((journal, self._game_lines(g)))
            if not self.store.broken:
                self.store.failed(e)
        except Exception:
            log.exception("cannot write the game's record")
        finally:
            self._finishing = None
        result = ending.result
        if not ending.announced:
            for s in result.durak:
                self.score[s] += 1
        self.previous = result
        self.game = None
        self._ending = None
        self._logged = self._signed = 0
        self.game_number += 1
        self._game_over(g, ending)
        self._go(Go.RECORDED)
        info = {
            "event": "game_over",
            "game": self.game_number - 1,
            "result": result.to_dict(),
            "record": str(record_path) if record_path else None,
            "score": list(self.score),
        }
        if ending.forfeit is not None:
            info["forfeit"] = ending.forfeit
        if ending.aborted is not None:
            info["aborted"] = {"seat": ending.aborted, "reason": ending.reason}
        self.results.append(info)
        self.on_event(info)
        if self.phase is not Phase.LOBBY:
            return  # closed meanwhile
        for slot in self.seats:
            if slot.kind is SeatKind.HUMAN:
                slot.ready = False  # each player says "ready" for the next game of the series
        if self.game_number >= self.o.games:
            asyncio.get_running_loop().create_task(self.close("the series is over"))
            return
        self._broadcast_lobby()
        self._readvertise()
        self._maybe_start()

    def _journal_header(self, started: GameStarted) -> str:
        """The journal's first line for a game (records.md journal), with the table's data."""
        return journal_header(
            started.rules,
            len(started.keys),
            started.dealer,
            names=list(started.names),
            previous=started.previous,
            table={
                "name": self.o.name,
                "game": self.game_number,
                "port": self.port,
                "state": str(self.state_dir.resolve()),
            },
        )

    # --- dropping out and coming back ----------------------------------------------------

    def _dropped(self, seat: int) -> None:
        slot = self.seats[seat]
        slot.peer = None
        if self.phase is Phase.LOBBY:
            self.on_event({"event": "left", "seat": seat, "name": slot.name})
            self.seats[seat] = SeatSlot()
            self._broadcast_lobby()
            self._readvertise()
            return
        if self.state is not TableState.PLAYING:
            return
        self.on_event({"event": "away", "seat": seat, "hold": self.o.hold})
        self._emit(
            Presence(seq=self._next_seq(), seat=seat, connected=False, hold=int(self.o.hold))
        )
        self._hold(seat)

    def _hold(self, seat: int) -> None:
        """The seat is away: held for ``hold`` seconds, then it forfeits."""
        slot = self.seats[seat]
        slot.away_since = time.monotonic()
        slot.forfeit_timer = self._post_later(self.o.hold, lambda: self._forfeit(seat))

    def _back(self, seat: int) -> None:
        slot = self.seats[seat]
        if slot.forfeit_timer is not None:
            slot.forfeit_timer.cancel()
            slot.forfeit_timer = None
        slot.away_since = None
        self.on_event({"event": "back", "seat": seat})

    def _resume_peer(self, peer: Peer, m: Resume) -> None:
        """Send a returning player what he missed, then live events (docs/protocol.md §7)."""
        seat = peer.seat
        assert seat is not None
        if peer.synced:
            # Seated afresh in the lobby: it had the lobby (a whole picture) already, and
            # older events after it would break its sequence.
            peer.push(Ack(re=m.id, seq=self.seq))
            return
        lost = next((p for p in self.resumed_at if p < m.last_seq < p + RESUME_GAP), None)
        if lost is not None and self.game is not None:
            # It saw events this host lost (the old host's last frames, a power cut): it
            # gets everything after what survived (numbered past its last) and our
            # ``Ack`` names that point, so it gives back the signed steps it holds after it
            # (`Privacy.seat`, checked like any step); nobody is stranded or blamed.
            self.on_event({"event": "lost_tail", "seat": seat, "have": lost, "had": m.last_seq})
            self._note("lost_tail", {"seat": seat, "kept": lost, "had": m.last_seq})
            self._restoring.add(seat)
            self._resync(peer, seat, lost, Ack(re=m.id, seq=lost))
            return
        if not self.first_seq - 1 <= m.last_seq <= self.seq:
            # A fresh start for it: the lobby now, live events after (no snapshot of a game
            # it cannot play without its saved seat).
            peer.synced = True
            self._broadcast_lobby()
            raise Unavailable("the events you missed are not here: you start afresh")
        self._resync(peer, seat, m.last_seq, Ack(re=m.id, seq=self.seq))

    def _resync(self, peer: Peer, seat: int, last_seq: int, ack: Ack) -> None:
        """Every event after ``last_seq``, the answer to its `Resume`, then live events."""
        seqs = [getattr(ev, "seq") for ev in self.events]  # noqa: B009
        missed = self.events[bisect.bisect_right(seqs, last_seq) :]
        for ev in missed:
            peer.push(ev)
        peer.push(ack)
        peer.synced = True
        if self.seats[seat].away_since is not None:
            self._back(seat)
        self._emit(Presence(seq=self._next_seq(), seat=seat, connected=True, hold=0))
        if not any(isinstance(ev, Lobby) for ev in missed):
            # A client restarted from its saved seat has no lobby (the table's name, the
            # seats): everybody gets the table's picture again, the seat back in it.
            self._broadcast_lobby()

    # --- persistence --------------------------------------------------------------------------

    def replay_events(self) -> None:
        """Rebuild the table from its event log: the lobby, the game being played (its
        `HostGame` through the same checks as live), the series; then the bots' saved seats,
        each brought up to date with the events after its save."""
        self.store.replaying = True
        try:
            events, whole = read_event_log(self.state_dir / EVENTS_FILE)
            for k, ev in enumerate(events):
                seq = getattr(ev, "seq", None)
                refused = list(self.game.refused_steps) if self.game is not None else []
                try:
                    if not isinstance(seq, int) or seq <= self.seq:
                        raise BadMessage(f"event {seq} after event {self.seq}")
                    self._replay(ev)
                except RemoteProtocolError as e:
                    # A damaged frame that still decodes (a flipped byte in a signature):
                    # the log ends before it; the journal and the players have the rest.
                    log.warning("the event log is damaged at its event %d: %s", k, e)
                    del events[k:]
                    if self.events and self.events[-1] is ev:
                        self.events.pop()
                    self.seq = getattr(self.events[-1], "seq") if self.events else 0  # noqa: B009
                    if self.game is not None:
                        self.game.refused_steps = refused  # not a refusal: a damaged copy
                    whole = False
                    break
            if not events:
                raise ValueError("the table's event log is empty or damaged from its start")
            # What survived, and a jump past anything the old host may have told after it
            # (`resumed_at`: its players give back the signed steps they saw).
            self.resumed_at.append(self.seq)
            self.seq += RESUME_GAP
            if not whole:
                self.on_event({"event": "damaged", "file": EVENTS_FILE, "kept": len(events)})
            for s, bot in self.bots.bots():
                bot.load()
                if (
                    bot.game is not None
                    and self.game is not None
                    and bot.game.game_id != self.game.started.game
                ):
                    bot.game = None
                for ev in events:
                    if isinstance(ev, GameStarted | PrivacyEvent) and ev.seq > bot.last_seq:
                        self.bots.feed(s, bot, ev)
            added = self._steps_from_journal() + self._steps_from_bots()
            if self.game is not None:
                # The record says what happened (records.md ``host_resumed``).
                self._notes.append(
                    journal_append(
                        "host_resumed",
                        {"kept": self.resumed_at[-1], "log_whole": whole, "from_journal": added},
                    )
                )
        finally:
            self.store.replaying = False
        # Whatever the bots signed that the old host never relayed, again (after start()).
        if self.game is not None:
            g = self.game
            self.bots.resend_pending(lambda: g.counters.last)
        if self.game is not None and self.game.all_revealed():
            # Every key was in, and the crash came before the game's end was told: its record
            # and its end now (`_record`, from the loop).
            self.inbox.put_nowait(Call(self._record))
        self.resumed = True
        self.on_event({"event": "resumed", "seq": self.seq, "game": self.game_number})

    def _steps_from_bots(self) -> int:
        """The signed steps the bots' saved seats hold after what the log kept (they are
        saved before it: a power cut may leave them newer), in the old host's order,
        through the same checks; relayed again as new events."""
        g = self.game
        if g is None or not self.resumed_at:
            return 0
        kept = self.resumed_at[-1]
        seen: dict[int, PrivacyEvent] = {}
        for _, bot in self.bots.bots():
            for ev in bot.recent:
                if ev.seq > kept and ev.game == g.started.game:
                    seen.setdefault(ev.seq, ev)
        added = 0
        for _, ev in sorted(seen.items()):
            cmd = Privacy(id=0, game=ev.game, n=ev.n, step=ev.step, body=ev.body, sig=ev.sig)
            if not 0 <= ev.seat < g.seats or g.duplicate(ev.seat, cmd):
                continue
            try:
                acc = g.receive(ev.seat, cmd)
            except RemoteProtocolError as e:
                log.warning("a bot's copy of step %d of seat %d fails: %s", ev.n, ev.seat, e)
                break
            added += 1
            for s, c in acc.relay:
                self._emit(c.relayed(self._next_seq(), s))
        return added

    def _note(self, key: str, item: dict[str, Any]) -> None:
        """A journal line on what the host went through (kept for a rewrite)."""
        if self.game is None:
            return
        line = journal_append(key, item)
        self._notes.append(line)
        self.store.journal_line(line)

    def _steps_from_journal(self) -> int:
        """The signed steps the journal holds beyond the event log (a log cut or damaged):
        through the same checks as live, as far as they check out, relayed again as new
        events (the players ignore a step they have)."""
        g = self.game
        journal = self.journal_path
        if g is None or journal is None:
            return 0
        added = 0
        for seat, cmd in journal_commands(journal, g):
            try:
                acc = g.receive(seat, cmd)
            except RemoteProtocolError as e:
                log.warning(
                    "the journal's step %d of seat %d does not check out: %s", cmd.n, seat, e
                )
                break
            added += 1
            for s, c in acc.relay:
                self._emit(c.relayed(self._next_seq(), s))
        if added:
            self.on_event({"event": "from_journal", "steps": added})
        return added

    def _replay(self, ev: Message) -> None:
        seq: int = getattr(ev, "seq")  # noqa: B009 - events carry seq
        self.seq = seq
        self.events.append(ev)
        if isinstance(ev, Lobby):
            for slot, info in zip(self.seats, ev.seats, strict=False):
                if info.kind is SeatKind.HUMAN:
                    slot.kind, slot.name, slot.key = SeatKind.HUMAN, info.name, info.key
                    slot.ready = info.ready
                elif info.kind is SeatKind.EMPTY and slot.kind is not SeatKind.BOT:
                    slot.kind, slot.name, slot.key, slot.ready = SeatKind.EMPTY, "", None, False
            if ev.state is TableState.LOBBY:
                self.phase = Phase.LOBBY
        elif isinstance(ev, GameStarted):
            self._drop_finished_games()
            self.phase = Phase.PLAYING
            self.game = HostGame(ev)
            self._notes = []
            self.game_number = ev.number
            self.previous = ev.previous
        elif isinstance(ev, PrivacyEvent):
            if self.game is not None and ev.game == self.game.started.game:
                cmd = Privacy(id=0, game=ev.game, n=ev.n, step=ev.step, body=ev.body, sig=ev.sig)
                self.game.receive(ev.seat, cmd)
        elif isinstance(ev, GameOver):
            self.score = list(ev.score)
            self.previous = ev.result
            self.game = None
            self.game_number += 1
            self.phase = Phase.LOBBY
        elif isinstance(ev, TableClosed):
            self.phase = Phase.CLOSED

    def rewrite_journal(self) -> None:
        """The journal again from the rebuilt game (the crash may have cut it after a step the
        event log never got); appending goes on from there."""
        g = self.game
        if g is None or self.journal_path is None:
            return
        # The refused steps are in no event: the old journal's list is kept (records.md).
        self._refused = []
        for seat, n in refused_in_journal(self.journal_path):
            g.refuse(seat, n)
            self._refused.append((seat, n))
        self.store.rewrite_journal(self._game_lines(g))
        self._logged = len(g.accepted_log)
        self._signed = len(g.steps)

    def _save_state(self) -> None:
        """`_write_state`, a failure told as disk trouble (the table goes on)."""
        if self.store.broken:
            return
        try:
            self._write_state()
        except OSError as e:
            self.store.failed(e)

    def _game_bytes(self) -> int:
        """About how much disk a game of this table takes (`GAME_BYTES` scaled)."""
        return GAME_BYTES * len(self.seats) * self.o.rules.deck // (6 * 52)

    def _disk_problem(self, problem: str | None) -> None:
        """Disk trouble on every screen (a `Notice`), and on the host's own output."""
        text = "" if problem is None else f"{CANNOT_SAVE}: {problem}"[:200]
        self.on_event({"event": "disk", "problem": text or None})
        if problem is None:
            log.warning("the table saves again")
        else:
            log.warning("%s", text)
        self._emit(Notice(seq=self._next_seq(), problem=text))

    def _rewrite_all(self) -> None:
        """Every file of the table again from memory (`TableStore.rebuild`, after disk
        trouble): the bots' seats, the table's state, the records the disk did not take,
        the game's journal, the event log.  Raises OSError while the disk refuses."""
        self.state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        for _, bot in self.bots.bots():
            bot.save()
        self._write_state()
        while self._unrecorded:
            path, lines = self._unrecorded[0]
            self.store.rewrite_journal(lines, path)
            record, deck = write_record_file(path)
            if deck is not None:
                with open(path, "a", encoding="utf-8") as f:
                    f.write(journal_set("deck", deck))
            self._unrecorded.pop(0)
            self.on_event({"event": "recorded", "record": str(record)})
        if self.game is not None and self.journal_path is not None:
            self.store.rewrite_journal(self._game_lines(self.game))
            self._logged = len(self.game.accepted_log)
            self._signed = len(self.game.steps)
        self.store.restart_events(self.events)

    def _write_state(self) -> None:
        """What `resume` needs besides the event log: the table's options and the bots' keys."""
        self.store.write_state(
            {
                "name": self.o.name,
                "seats": len(self.seats),
                "rules": self.o.rules.non_defaults(),
                "games": self.o.games,
                "port": self.port,
                "record_dir": str(self.o.record_dir),
                "pin": self.o.pin,
                "bot_level": self.o.bot_level,
                "hold": self.o.hold,
                "move_time": self.o.move_time,
                "advertise": self.o.advertise,
                "challenge_window": self.o.challenge_window,
                "bot_delay": self.o.bot_delay,
                "own_seat": self.o.own_seat,
                "fingerprint": self.identity.fingerprint,
                "journal": str(self.journal_path) if self.journal_path else None,
                "bots": {
                    str(s): {"level": bot.level, "key": bot.key.private_bytes().hex()}
                    for s, bot in self.bots.bots()
                },
            }
        )


def resume_table(
    identity: Identity,
    journal: Path,
    *,
    on_event: EventSink | None = None,
    record_dir: Path | None = None,
) -> TableHost:
    """A host that crashed picks its table up again (``localdurak host --resume JOURNAL``):
    the table's options and bots' keys from its state directory, every event again from its
    event log (through the same checks), each bot's saved seat; then it listens on the same
    port and the players' clients come back by themselves."""
    state_dir, state = table_state(journal)
    check_resume(identity, journal, state_dir, state)
    if record_dir is not None and not same_file(state["record_dir"], record_dir):
        # reading: "honoured or refused" — refused: the journal, the event log and the
        # players' saved seats all name the table's folder; moving it is a copy by hand.
        raise ValueError(
            f"--record-dir: a resumed table keeps its record folder ({state['record_dir']}); "
            "leave --record-dir out"
        )
    options = HostOptions(
        name=state["name"],
        seats=state["seats"],
        rules=Rules.from_dict(state["rules"]),
        bots=0,
        bot_level=state["bot_level"],
        games=state["games"],
        record_dir=Path(state["record_dir"]),
        state_dir=state_dir,
        port=state["port"],
        pin=state["pin"],
        hold=state.get("hold", HOLD_SECONDS),
        move_time=state.get("move_time", MOVE_TIME),
        challenge_window=state.get("challenge_window", CHALLENGE_WINDOW),
        bot_delay=state.get("bot_delay", 0.0),
        advertise=state.get("advertise", True),
        own_seat=bool(state.get("own_seat", False)),
    )
    host = TableHost(identity, options, on_event=on_event)
    host.store.lock()  # before anything is written: a live table is left as it is
    for seat, b in state["bots"].items():
        s = int(seat)
        bot = BotSeat(
            b["level"],
            random.Random(),
            EphemeralKey.from_private_bytes(bytes.fromhex(b["key"])),
            path=state_dir / f"bot-{s}.bin",
        )
        slot = host.seats[s]
        slot.kind, slot.bot, slot.ready, slot.name = SeatKind.BOT, bot, True, f"Bot {s + 1}"
        slot.key = bot.key.public_key
    if state.get("journal"):
        host.journal_path = Path(state["journal"])
    try:
        host.replay_events()
        if host.game_number >= options.games or host.phase is Phase.CLOSED:
            raise ValueError(
                "this table's series is over: there is no game to resume (its records are "
                f"in {options.record_dir})"
            )
        host.rewrite_journal()
    except BaseException:
        host.store.unlock()
        raise
    return host


def check_resume(identity: Identity, journal: Path, state_dir: Path, state: dict[str, Any]) -> None:
    """Refuse (ValueError, for a person) a resume that cannot be: another identity than the
    table's (its players pinned that certificate and would refuse this one, and be blamed
    for it), or a journal whose game is over.  Nothing is written before this."""
    fingerprint = state.get("fingerprint")
    if isinstance(fingerprint, str) and fingerprint != identity.fingerprint:
        raise ValueError(
            f"this table was hosted with another identity (fingerprint {fingerprint[:16]}…, "
            f"this one is {identity.fingerprint[:16]}…): its players would refuse this one. "
            "Resume it with the LOCALDURAK_HOME (and --profile) it was hosted from"
        )
    if journal.suffix == ".json":
        journal = journal.with_suffix(".journal")
    if same_file(state.get("journal"), journal):
        return
    over = any(
        isinstance(o.get("set"), dict) and "result" in o["set"] for o in journal_objects(journal)
    )
    current = state.get("journal")
    then = (
        f"; the table's current game: localdurak host --resume {shlex.quote(current)}"
        if isinstance(current, str)
        else ""
    )
    if over:
        record = journal.with_suffix(".json")
        where = f" (its record: {record})" if record.exists() else ""
        raise ValueError(f"that game is over{where}{then}")
    raise ValueError(f"that journal is not this table's current game{then}")


def refused_in_journal(path: Path) -> list[tuple[int, int]]:
    """The ``privacy_refused`` entries of a journal (a damaged line is skipped)."""
    out: list[tuple[int, int]] = []
    for obj in journal_objects(path):
        appended = obj.get("append")
        item = appended.get("privacy_refused") if isinstance(appended, dict) else None
        if isinstance(item, list) and len(item) == 2 and all(type(x) is int for x in item):
            out.append((item[0], item[1]))
    return out
