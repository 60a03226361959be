"""The client session: one player's connection to a table (docs/sessions.md, docs/protocol.md).

`ClientSession` connects to an `Address` (typed, or found by discovery: `TableBrowser` in the
lobby and `localdurak join`), pinning the host's fingerprint when it is known, runs the
handshake, and keeps:

- a replica of the game (`SeatGame`: the engine from its own seat, its own hand, its privacy
  key), fed only by the host's relayed events, each checked (signature, counter, proofs,
  rules) before it is applied;
- the lobby, the score, the presence of the others.

It gives the terminal client and the bots one async API (`TableSession`): ``view()``,
``await act(action)``, ``await set_ready()``, ``await wait_changed()``, ``close()``.

When the connection drops it reconnects by itself with backoff and sends ``resume`` with the
last event it saw; the host replays what it missed.  Its state (the seat's game with its
privacy key, the last event, the steps not yet relayed) is saved in the user's data
directory before anything is sent, so a client that is killed and started again carries on
where it was (privacy.md "When a player drops out").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from localdurak.game.actions import Action, GameResult, IllegalAction
from localdurak.game.bots import Bot, Rng, make_bot
from localdurak.game.rules import Rules
from localdurak.game.view import PlayerView
from localdurak.net.api import (
    ActionRefused,
    AuditStatus,
    AuditVerdict,
    ConnectionState,
    EventKind,
    LobbySeat,
    LobbyView,
    MoveClock,
    SeatKind,
    SeriesScore,
    TableError,
    TableEvent,
    table_events,
)
from localdurak.net.identity import Identity, data_dir
from localdurak.net.identity import pairing_code as code_of
from localdurak.net.table_store import fsync_paths, write_atomic
from localdurak.net.transport import (
    Channel,
    ConnectionClosed,
    FingerprintMismatch,
    client_handshake,
    connect_any,
    keepalive,
    parse_address,
)
from localdurak.protocol import snapshot
from localdurak.protocol.errors import (
    AuthFailed,
    BadPin,
    CheatFound,
    IllegalMove,
    ProtocolError,
    RemoteProtocolError,
    Replayed,
    TableFull,
    TooManyAttempts,
    Unavailable,
    VersionTooNew,
    VersionTooOld,
)
from localdurak.protocol.messages import (
    REPLACED,
    Ack,
    AddBot,
    BotLevel,
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
    PrivacyEvent,
    Ready,
    RemoveBot,
    Resume,
    SetRules,
    TableClosed,
    TableState,
)
from localdurak.protocol.privacy.audit import audit as audit_record
from localdurak.protocol.privacy.record import transcript_to_dict
from localdurak.protocol.table.common import GAME_STEPS, Signed
from localdurak.protocol.table.seat import SNAPSHOT_CLASSES, SeatGame

log = logging.getLogger(__name__)

FATAL = (AuthFailed, BadPin, TooManyAttempts, TableFull, VersionTooNew, VersionTooOld)
"""Refusals that reconnecting cannot fix."""


class _Broken(Exception):
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


class ClientSession:
    """One player at one table over the network."""

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
        """Counts `_notify` calls: the cached view is rebuilt after each."""
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
        """The move clock the host told (`Clock` events)."""
        self.host_problem: str | None = None
        """Trouble on the host's side every screen shows (`Notice`: it cannot save)."""
        self.save_problem: str | None = None
        """Why the seat cannot be saved right now (a full or read-only disk), for the screen:
        the game goes on from memory meanwhile."""
        self._save_timer: asyncio.TimerHandle | None = None
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
        self._tasks: set[asyncio.Task[None]] = set()
        self.trace: Callable[[dict[str, Any]], None] | None = None
        """Timing lines for benchmarks/net.py (``LOCALDURAK_TRACE=1``)."""
        self._traced_deal: bytes | None = None
        self._unchecked: list[int] = []
        """For the trace: the event of each card proof still deferred, oldest first."""

    # --- the API ------------------------------------------------------------------------------

    # --- the TableSession API (localdurak.net.api) ----------------------------------------

    @property
    def view(self) -> PlayerView | None:
        """The seat's view with its legal actions, built once per change: the screen reads
        it many times a frame.  A change is what the session tells its listeners
        (`_notify`, after every message applied) or a new game."""
        g = self.game
        if g is None:
            return None
        key = (id(g), self._changes)
        if self._view_key != key:
            self._view_cache, self._view_key = g.view(), key
        return self._view_cache

    @property
    def seat(self) -> int:
        """Our seat (-1 until the host gave us one)."""
        return -1 if self.my_seat is None else self.my_seat

    @property
    def names(self) -> tuple[str, ...]:
        if self.game is not None:
            return self.game.started.names
        if self.lobby is not None:
            return tuple(s.name for s in self.lobby.seats)
        return ()

    @property
    def table_name(self) -> str:
        return self.lobby.table if self.lobby is not None else self.address.host

    @property
    def offline(self) -> bool:
        return False

    @property
    def game_number(self) -> int:
        return 0 if self.game is None else self.game.started.number + 1

    @property
    def events(self) -> Sequence[TableEvent]:
        return self._events

    @property
    def connection(self) -> ConnectionState:
        if self.closed:
            return ConnectionState.CLOSED
        if self.paused is not None:
            # Until we are back at the resumed table (the old channel may not be closed yet
            # when the host's paused Bye arrives: the friend's screen said "connected").
            return ConnectionState.PAUSED
        if self.channel is None or self.channel.closed:
            return ConnectionState.RECONNECTING
        return ConnectionState.CONNECTED

    @property
    def offline_seats(self) -> tuple[int, ...]:
        return tuple(sorted(self._away))

    @property
    def seat_hold(self) -> float:
        """The host's seat hold as its `Presence` events tell it, else our own patience."""
        return float(self._host_hold or self.hold)

    def hold_left(self, seat: int) -> float | None:
        until = self._held_until.get(seat)
        if until is None or seat not in self._away:
            return None
        return max(0.0, until - asyncio.get_running_loop().time())

    @property
    def series(self) -> SeriesScore:
        return self._series

    @property
    def audit(self) -> AuditVerdict:
        return self._audit

    @property
    def closing(self) -> bool:
        """R-S5: the host holds an action that closes the bout (its `Closing` event)."""
        return self._closing

    @property
    def problem(self) -> str | None:
        return self.host_problem or self.save_problem

    @property
    def move_clock(self) -> MoveClock | None:
        return self._clock

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    async def async_wait_update(self) -> None:
        await self.wait_changed()

    async def async_act(self, action: Action) -> None:
        try:
            await self.act(action)
        except IllegalAction as e:
            raise ActionRefused(e.reason, e.rule) from None
        except RemoteProtocolError as e:
            raise ActionRefused(e.message, e.rule or "") from None
        except (ConnectionError, OSError) as e:
            raise ActionRefused(f"the table cannot be reached: {e}") from None

    async def async_next_game(self) -> None:
        await self.set_ready(True)

    async def async_leave(self) -> None:
        await self.close()

    # --- the port's lobby (api.TableSession): the protocol's errors become TableError -------

    @property
    def lobby_view(self) -> LobbyView | None:
        lobby = self.lobby
        if lobby is None:
            return None
        mine = self.identity.public_key
        # At the host's own seat the peer is ourselves: each guest's code is shown there.
        at_host = self.channel is not None and self.channel.peer_key == mine
        seats = tuple(
            LobbySeat(
                SeatKind(s.kind.value),
                s.name,
                s.ready,
                s.connected,
                code_of(mine, s.key)
                if at_host and s.kind.value == "human" and s.key and s.key != mine
                else "",
            )
            for s in lobby.seats
        )
        return LobbyView(lobby.table, lobby.rules, seats, lobby.games, lobby.owner)

    @property
    def pairing_code(self) -> str:
        peer = None if self.channel is None else self.channel.peer_key
        mine = self.identity.public_key
        return "" if peer is None or peer == mine else code_of(mine, peer)

    async def async_join(self, *, ready: bool = False) -> None:
        """Connect (and say ready when ``ready``: the headless forms); `TableError` with
        the reason when the table refuses us or cannot be reached (the session closed)."""
        try:
            await self.start()
            if ready:
                await self.set_ready(True)
        except BaseException as e:
            with contextlib.suppress(Exception):
                await self.close()
            if isinstance(e, (ProtocolError, ConnectionError, OSError, TimeoutError)):
                reason = str(e) or type(e).__name__
                shown = e.actual if isinstance(e, FingerprintMismatch) else None
                raise TableError(
                    reason, pin_wanted=isinstance(e, BadPin), fingerprint_shown=shown
                ) from None
            raise

    async def async_run(self) -> None:
        """Keep the seat until the table closes; `TableError` with the reason when the
        session fails."""
        try:
            await self.run_until_closed()
        except (ProtocolError, ConnectionError) as e:
            raise TableError(str(e) or type(e).__name__) from None

    async def async_ready(self, ready: bool = True) -> None:
        await self._port(self.set_ready(ready))

    async def async_add_bot(self, level: str = "normal") -> None:
        await self._port(self.add_bot(level))

    async def async_remove_bot(self, seat: int) -> None:
        await self._port(self.remove_bot(seat))

    async def _port(self, command: Awaitable[None]) -> None:
        try:
            await command
        except (ProtocolError, ConnectionError) as e:
            raise TableError(str(e) or type(e).__name__) from None

    def _notify(self) -> None:
        self._changes += 1
        self._changed.set()
        for callback in list(self._listeners):
            try:
                callback()
            except Exception:
                log.exception("a listener failed")

    @property
    def closed(self) -> bool:
        return self.closed_reason is not None

    async def wait_changed(self) -> None:
        """Wait until something changed (an event applied, the connection, the table)."""
        await self._changed.wait()
        self._changed.clear()

    async def act(self, action: Action) -> None:
        """Play ``action``; raises the host's refusal (`IllegalMove`, `NotYourTurn`, ...)."""
        if self.game is None:
            raise Unavailable("no game is being played")
        signed = self.game.act(action)
        await self._send_signed([signed], wait=True)

    async def set_ready(self, ready: bool = True) -> None:
        await self._command(lambda i: Ready(id=i, ready=ready), wait=True)

    # The table's owner (the person at the host's own seat) in the lobby, docs/protocol.md §4;
    # anybody else is refused with `Forbidden`.

    async def add_bot(self, level: str = "normal", seat: int | None = None) -> None:
        """A bot at ``seat`` (the first free seat by default)."""
        bot = BotLevel(level)
        await self._command(lambda i: AddBot(id=i, seat=seat, level=bot), wait=True)

    async def remove_bot(self, seat: int) -> None:
        await self._command(lambda i: RemoveBot(id=i, seat=seat), wait=True)

    async def set_rules(self, rules: Rules, seats: int) -> None:
        await self._command(lambda i: SetRules(id=i, rules=rules, seats=seats), wait=True)

    async def close(self) -> None:
        if self.closed_reason is None:
            self.closed_reason = "you left the table"
        if self.channel is not None:
            await self.channel.close(reason="leaving")
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
        self._notify()

    # --- connecting ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect (or fail with the reason), then keep the session alive in the background."""
        self._restore()
        await self._connect()
        self._runner = asyncio.create_task(self._run())

    async def run_until_closed(self) -> None:
        if self._runner is None:
            await self.start()
        assert self._runner is not None
        await self._runner

    async def _connect(self) -> None:
        a = self.address
        channel = await connect_any([a.host, *a.others], a.port, fingerprint=a.fingerprint)
        welcome, authed = await client_handshake(
            channel, self.identity, name=self.name, pin=self.pin
        )
        if a.fingerprint is None:
            a.fingerprint = channel.peer_fingerprint
        self.channel = channel
        if self.last_seq is not None and (
            authed.seq < self.last_seq
            or authed.seat != self.my_seat
            or (
                welcome.state is TableState.LOBBY
                and self.game is not None
                and self.game.result() is None
            )
        ):
            # What we saved belongs to an earlier table of this host (or a game that ended
            # without us): start afresh at this one.
            self._reset()
        self.my_seat = authed.seat
        if self.last_seq is not None:
            channel.connection.last_seq = None
            self._resume_id = self._take_id()
            await channel.send(Resume(id=self._resume_id, last_seq=self.last_seq))
        await self._resend()

    def _reset(self) -> None:
        self.game = None
        self.last_seq = None
        self._pending = []
        self._forget()

    def _take_id(self) -> int:
        i = self._next_id
        self._next_id += 1
        return i

    async def _run(self) -> None:
        try:
            while True:
                ch = self.channel
                assert ch is not None
                alive = asyncio.create_task(keepalive(ch))
                incoming: asyncio.Task[Message] | None = None
                try:
                    while True:
                        if self._ahead and self.game is not None:
                            # A quiet table: check other hands' deals ahead of their plays.
                            if incoming is None:
                                incoming = asyncio.ensure_future(ch.recv())
                            done, _ = await asyncio.wait({incoming}, timeout=IDLE_VERIFY_S)
                            if not done:
                                try:
                                    self._ahead = self.game.verify_ahead()
                                except BROKEN as e:
                                    if not await self._report_cheat(e):
                                        self._finish(f"{BROKEN_TEXT}: {e}")
                                        return
                                self._trace_checked()
                                continue
                        if incoming is not None:
                            message = await incoming
                            incoming = None
                        else:
                            # Nothing to do meanwhile: no task, no timer per message.
                            message = await ch.recv()
                        try:
                            await self._handle(message)
                        except _Broken as e:
                            # What the host relayed breaks the game: coming back would only
                            # replay it.  The audit of the record names whoever did it.
                            self._finish(f"{BROKEN_TEXT}: {e}")
                            return
                        if (
                            self.game is not None
                            and self.game.hand_decoded()
                            and self.game.result() is None
                        ):
                            self._ahead = self.game.unverified_waiting()
                        if self.closed:
                            return
                except (ConnectionClosed, RemoteProtocolError, OSError) as e:
                    if isinstance(e, FATAL):
                        self._finish(f"the host refused: {e}")
                        return
                    log.info("connection lost: %s", e)
                finally:
                    alive.cancel()
                    if incoming is not None:
                        incoming.cancel()
                    # The lost connection is marked closed first: a command issued meanwhile
                    # (a bot acting) is refused at once instead of waiting on it for ever
                    # for an answer nobody will send (seen after a host's pause).
                    with contextlib.suppress(Exception):
                        await ch.abort()
                    # Commands on the lost connection get no answer: their steps stay pending
                    # and go again after the reconnect.
                    for f in self._waiters.values():
                        if not f.done():
                            f.set_exception(ConnectionClosed("the connection to the table dropped"))
                    self._waiters.clear()
                if self.closed:
                    return
                await self._reconnect()
        except SessionClosed:
            raise
        except Exception as e:
            # Our own bug: say so on the screen rather than sit silent at a table that moves on.
            log.exception("the session failed")
            self._finish(f"this client failed ({type(e).__name__}: {e}); see its log")
        finally:
            for f in self._waiters.values():
                if not f.done():
                    f.set_exception(SessionClosed(self.closed_reason or "closed"))
            self._notify()

    async def _reconnect(self) -> None:
        """Back off and try again until the seat's hold runs out."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.hold
        attempt = 0
        while loop.time() < give_up or self.paused is not None:
            delay = BACKOFF[min(attempt, len(BACKOFF) - 1)] * (0.8 + 0.4 * random.random())
            await asyncio.sleep(delay)
            attempt += 1
            try:
                await self._connect()
                self.reconnects += 1
                self.paused = None
                self._notify()
                return
            except FATAL as e:
                self._finish(f"the host refused: {e}")
                raise SessionClosed(str(e)) from None
            except (ConnectionClosed, RemoteProtocolError, OSError) as e:
                log.info("reconnect attempt %d failed: %s", attempt, e)
        self._finish("the table could not be reached again")
        raise SessionClosed(self.closed_reason or "")

    def _finish(self, reason: str) -> None:
        if self.closed_reason is None:
            self.closed_reason = reason
        self._notify()

    # --- sending --------------------------------------------------------------------------

    async def _command(
        self, make: Callable[[int], Message], *, wait: bool, n: int | None = None
    ) -> int | None:
        if self.channel is None or self.channel.closed:
            raise Unavailable("not connected to the table right now")
        i = self._take_id()
        if n is not None:
            self._step_of_id[i] = n
        fut: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        if wait:
            self._waiters[i] = fut
        await self.channel.send(make(i))
        if not wait:
            return None
        return await fut

    async def _send_signed(self, signed: list[Signed], *, wait: bool = False) -> None:
        """Save first (a restarted client must know what it sent: its key's commitment, its
        shuffle, its strips), then send.  A game action is the exception: a client restarted
        from a save made before it learns it from the host's replay, signed by its own key
        (`SeatGame.receive` adopts it), so its save waits for a quiet moment
        (`SAVE_LATER_S`) instead of standing between a player and the table."""
        self._pending += signed
        if all(s.step in GAME_STEPS for s in signed):
            self._save_later()
        else:
            self._save()
        for k, s in enumerate(signed):
            last = wait and k == len(signed) - 1
            try:
                await self._command(
                    lambda i, s=s: s.command(i),  # type: ignore[misc]
                    wait=last,
                    n=s.n,
                )
            except (ConnectionClosed, Unavailable):
                if last:
                    raise
                return  # sent again after the reconnect

    async def _resend(self) -> None:
        if self.channel is None:
            return
        for s in list(self._pending):
            i = self._take_id()
            self._step_of_id[i] = s.n
            await self.channel.send(s.command(i))

    # --- receiving ------------------------------------------------------------------------

    async def _handle(self, m: Message) -> None:
        if isinstance(m, Error):
            self.errors.append(m)
            if m.re is not None and m.re == self._resume_id:
                # The host cannot replay what we missed: start afresh (docs/protocol.md §7).
                self._reset()
                self._resume_id = None
                return
        if isinstance(m, Ack | Error) and m.re is not None and m.re in self._step_of_id:
            # The host answered a signed step: relayed (an ack with its event) or refused (it
            # never will be): either way it is not sent again after a reconnect.  A step the
            # host holds back (an ack without an event: nonces, keys, R-F1 answers until
            # every seat's is in) stays pending until it is relayed: a host that crashes
            # meanwhile never saw it.
            n = self._step_of_id.pop(m.re)
            if isinstance(m, Error) or m.seq is not None:
                self._pending = [p for p in self._pending if p.n != n]
            if isinstance(m, Error) and self.game is not None:
                self.game.refused(n)
        if isinstance(m, Ack | Error) and m.re is not None and m.re in self._waiters:
            fut = self._waiters.pop(m.re)
            if fut.done():
                return  # its caller stopped waiting (a bot or a screen task cancelled)
            if isinstance(m, Ack):
                fut.set_result(m.seq)
            else:
                fut.set_exception(m.exception())
            return
        if isinstance(m, Error):
            log.info("the host says: %s", m.message)
            if m.re is None:
                raise m.exception()
            return
        if isinstance(m, Ack):
            return
        if isinstance(m, Bye):
            if m.paused:
                # The host stops for now and resumes the table: our seat is kept, and we
                # come back when it is back (however long that takes).
                self.paused = m.reason or "the host paused; it will resume"
                self._notify()
                raise ConnectionClosed(f"the host paused: {m.reason}")
            if m.reason == REPLACED:
                # Our seat was taken by a second process of our identity (one laptop, one
                # LOCALDURAK_HOME): stop here rather than take it back, and be taken again.
                self._finish(
                    "another program with this identity took this seat (a second localdurak "
                    "with the same LOCALDURAK_HOME, or a copy of it): give each its own "
                    "identity with --profile NAME"
                )
            raise ConnectionClosed(f"the host said goodbye: {m.reason}")
        seq = getattr(m, "seq", None)
        if seq is not None and self.last_seq is not None and seq <= self.last_seq:
            return  # already applied (a resume overlapping what we had)
        try:
            out = self._apply(m)
            if seq is not None:
                self.last_seq = seq
            if self.game is not None and self.game.work_due:
                # The action is in our replica: let the screen show it, then do the protocol
                # work it calls for (the refill's layer removals).
                self._notify()
                out += self.game.flush()
                self._trace_checked()
        except BROKEN as e:
            if seq is not None and await self._report_cheat(e):
                self.last_seq = seq  # not followed: we stopped at the cheat
                return
            raise _Broken(str(e)) from e
        if out:
            await self._send_signed(out)
        self._notify()

    async def _report_cheat(self, e: Exception) -> bool:
        """Our own check found that another seat cheated (`CheatFound`; privacy.md "Blame goes to
        the cheater"): we stop following the game, say so, tell the host — which checks it itself
        and aborts the game naming that seat — and stay at the table for its `GameOver` (then we
        reveal our key for the audit).  Leaving instead would make us forfeit, as the durak.
        Whether ``e`` was such a cheat."""
        if not isinstance(e, CheatFound) or e.seat == self.my_seat:
            return False
        if self.cheat is None:
            # Seat None: our own hand does not decode (a last guard; the proofs make it
            # impossible) — which seat, only the keys tell: we stay all the same.
            self.cheat = (-1 if e.seat is None else e.seat, e.reason)
            self._ahead = False
            self._events.append(TableEvent(EventKind.BROKE_PROTOCOL, seat=e.seat, reason=str(e)))
            log.warning("card privacy: seat %s broke the protocol: %s", e.seat, e)
            if self.channel is not None:
                await self.channel.send(Error.from_exception(e))
            self._notify()
        return True

    def _apply(self, m: Message) -> list[Signed]:
        if isinstance(m, Lobby):
            self.lobby = m
            return []
        if isinstance(m, GameStarted):
            if self.my_seat is None:
                return []
            if self.game is not None and self.game.game_id == m.game:
                return []
            self.game = SeatGame(m, self.my_seat, self.identity, os.urandom)
            self.cheat = None
            self.aborted = None
            self._unchecked = []
            self._pending = []
            self._closing = False
            self._audit = AuditVerdict(AuditStatus.PENDING)
            self._events = [TableEvent(EventKind.GAME_STARTED, game=m.number + 1)]
            if self.trace is not None:
                self.trace({"event": "started", "t": time.monotonic(), "cpu": time.process_time()})
            return self.game.start()
        if isinstance(m, PrivacyEvent):
            if self.game is None or m.game != self.game.game_id or self.cheat is not None:
                return []
            if m.seat == self.my_seat:
                self._pending = [p for p in self._pending if p.n != m.n]
            t0 = time.monotonic()
            out = self.game.receive(m, defer=True)
            action = self.game.last_action
            if action is not None:
                self._events += table_events(action, self.game.last_outcome)
            if self.trace is not None:
                self._trace(m, t0)
            return out
        if isinstance(m, GameOver):
            self._closing = False
            self.results.append(m)
            self.score = m.score
            self._series = self._series.add(m.result, len(m.score) or len(self.names))
            if m.aborted is not None:
                # No durak: a seat broke the card-privacy protocol, the host says which.
                self.aborted = (m.aborted, m.reason)
            self._events.append(
                TableEvent(EventKind.GAME_OVER, result=m.result, seat=m.aborted, reason=m.reason)
            )
            self._audit = AuditVerdict(AuditStatus.PENDING)
            if self.game is not None and self.game.keys_revealed:
                # Off the event loop: the audit of a long game takes a while.
                task = asyncio.get_running_loop().create_task(self._audit_later(self.game))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            ended = m.forfeit is not None or m.aborted is not None
            if ended and self.game is not None and m.game == self.game.game_id:
                return self.game.reveal_now()
            return []
        if isinstance(m, Closing):
            self._closing = m.open
            return []
        if isinstance(m, Presence):
            if m.connected:
                if m.seat in self._away:
                    self._events.append(TableEvent(EventKind.SEAT_BACK, seat=m.seat))
                self._away.discard(m.seat)
            else:
                self._away.add(m.seat)
                if m.hold:
                    self._host_hold = m.hold
                    self._held_until[m.seat] = asyncio.get_running_loop().time() + m.hold
                self._events.append(TableEvent(EventKind.SEAT_OFFLINE, seat=m.seat))
            return []
        if isinstance(m, Clock):
            self._clock = (
                None if m.seat is None else MoveClock(m.seat, time.monotonic() + m.seconds)
            )
            self._notify()
            return []
        if isinstance(m, Notice):
            self.host_problem = m.problem or None
            self._notify()
            return []
        if isinstance(m, TableClosed):
            self._finish(f"the table closed: {m.reason}")
            self._forget()
            return []
        return []

    async def _audit_later(self, g: SeatGame) -> None:
        verdict = await asyncio.to_thread(self._own_audit, g)
        if self.game is g:
            self._audit = verdict
            self._notify()

    @staticmethod
    def _own_audit(g: SeatGame) -> AuditVerdict:
        """The client audits the game itself from the steps it saw, once every key is in."""
        if not g.keys_revealed or not g.log_complete or not g.player.t.log:
            return AuditVerdict(AuditStatus.PENDING)
        try:
            report = audit_record({"privacy": transcript_to_dict(g.setup, g.player.t.log, [])})
        except ValueError:
            return AuditVerdict(AuditStatus.PENDING)
        if report.clean:
            return AuditVerdict(AuditStatus.CLEAN)
        return AuditVerdict(AuditStatus.FAILED, report.guilty)

    def _trace(self, m: PrivacyEvent, t0: float) -> None:
        assert self.trace is not None and self.game is not None
        now = time.monotonic()
        if self._traced_deal != m.game and self.game.hand_decoded():
            self._traced_deal = m.game
            self.trace({"event": "dealt", "t": now, "cpu": time.process_time()})
        if m.step in ("play", "act"):
            self.trace({"event": "applied", "seq": m.seq, "t": now, "t0": t0})
        waiting = len(self.game.player.t.deferred_plays)
        self._unchecked += [m.seq] * (waiting - len(self._unchecked))
        self._trace_checked()

    def _trace_checked(self) -> None:
        """A ``checked`` line once the card proofs an event deferred are checked too."""
        if self.trace is None or self.game is None or not self._unchecked:
            return
        waiting = len(self.game.player.t.deferred_plays)
        now = time.monotonic()
        while len(self._unchecked) > waiting:
            seq = self._unchecked.pop(0)
            if not self._unchecked or self._unchecked[0] != seq:
                self.trace({"event": "checked", "seq": seq, "t": now})

    # --- the state on disk ----------------------------------------------------------------------

    def _path(self, fingerprint: str | None = None) -> Path | None:
        fp = fingerprint or self.address.fingerprint
        if fp is None:
            return None
        key = self.identity.public_key.hex()[:16]
        return self._state_dir / f"{fp[:32]}-{key}.session"

    def _save(self) -> None:
        """The session as one snapshot (`protocol.snapshot`: msgpack, no code), replacing the
        last one (a temporary file renamed over it): the file is one seat's state, never a
        growing log.  Its fsync follows off the loop, coalesced (`_sync_soon`)."""
        path = self._path()
        if path is None:
            return
        saved = {
            "fingerprint": self.address.fingerprint or "",
            "seat": self.my_seat,
            "last_seq": self.last_seq,
            "game": self.game.freeze() if self.game is not None else None,
            "pending": list(self._pending),
            "address": [self.address.host, self.address.port],
        }
        data = snapshot.dumps(saved, kind="session", classes=SNAPSHOT_CLASSES)
        try:
            self._state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_atomic(path, data)
        except OSError as e:
            # The game goes on from memory; the next save tries again.
            if self.save_problem is None:
                log.warning("cannot save the seat in %s: %s", path, e)
            self.save_problem = f"cannot save this seat ({e.strerror or e})"
            self._notify()
            return
        if self.save_problem is not None:
            self.save_problem = None
            self._notify()
        self.bytes_saved += len(data)
        self._sync_soon(path)

    def _sync_soon(self, path: Path) -> None:
        if self._syncing is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return

        async def sync() -> None:
            try:
                await asyncio.sleep(SYNC_PAUSE_S)
                await asyncio.to_thread(fsync_paths, [path])
            finally:
                self._syncing = None

        self._syncing = loop.create_task(sync())

    def _save_later(self) -> None:
        if self._save_timer is None:
            self._save_timer = asyncio.get_running_loop().call_later(SAVE_LATER_S, self._save_now)

    def _save_now(self) -> None:
        self._save_timer = None
        if not self.closed:
            self._save()

    def _read_saved(self, path: Path) -> dict[str, Any] | None:
        try:
            saved = snapshot.loads(path.read_bytes(), kind="session", classes=SNAPSHOT_CLASSES)
        except FileNotFoundError:
            return None
        except (OSError, snapshot.SnapshotError) as e:
            log.warning("cannot read the saved session %s: %s", path, e)
            self.save_problem = f"the saved seat {path.name} was not loaded: {e}"
            return None
        return saved if isinstance(saved, dict) else None

    def _find_saved(self) -> None:
        """Started again the way it was started (an address, no fingerprint): the seat saved
        for this identity at this address tells the table's fingerprint, which is pinned."""
        key = self.identity.public_key.hex()[:16]
        try:
            paths = sorted(
                self._state_dir.glob(f"*-{key}.session"),
                key=lambda p: p.stat().st_mtime,
                reverse=True,
            )
        except OSError:
            return
        for path in paths:
            saved = self._read_saved(path)
            if saved is None or not saved.get("fingerprint"):
                continue
            if saved.get("address") == [self.address.host, self.address.port]:
                self.address.fingerprint = saved["fingerprint"]
                return

    def _restore(self) -> None:
        if self.address.fingerprint is None:
            self._find_saved()
        path = self._path()
        if path is None:
            return
        saved = self._read_saved(path)
        if saved is None or saved.get("fingerprint") != self.address.fingerprint:
            return
        self.my_seat = saved["seat"]
        self.last_seq = saved["last_seq"]
        self._pending = list(saved["pending"])
        if saved["game"] is not None:
            try:
                self.game = SeatGame.thaw(saved["game"], self.identity, os.urandom)
            except (snapshot.SnapshotError, ValueError) as e:
                log.warning("cannot read the saved seat's game: %s", e)
                self.my_seat, self.last_seq, self._pending = None, None, []
                return
        self._restored = True

    def _forget(self) -> None:
        if self._save_timer is not None:
            self._save_timer.cancel()
            self._save_timer = None
        path = self._path()
        if path is not None:
            with contextlib.suppress(OSError):
                path.unlink()

    def save(self) -> None:
        """Save the session now (the bot loop calls it after acting)."""
        self._save()


# --- a bot at the table ------------------------------------------------------------------------


async def play_as_bot(
    session: ClientSession,
    level: str = "normal",
    *,
    rng: random.Random | None = None,
    delay: float = 0.0,
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """Play the session's seat with a bot until the table closes: ready in the lobby, an
    action whenever the bot's view allows one."""
    bot: Bot = make_bot(level, cast(Rng, rng or random.Random()), clock=time.perf_counter)
    emit = on_event or (lambda e: None)
    ready_for: int | None = None
    seen_results = 0
    while not session.closed:
        lobby = session.lobby
        if (
            lobby is not None
            and lobby.state.value == "lobby"
            and session.my_seat is not None
            and ready_for != lobby.games
            and not lobby.seats[session.my_seat].ready
        ):
            ready_for = lobby.games
            with contextlib.suppress(ProtocolError, ConnectionError):
                await session.set_ready(True)
        if len(session.results) > seen_results:
            for r in session.results[seen_results:]:
                emit({"event": "game_over", "result": r.result.to_dict(), "score": list(r.score)})
            seen_results = len(session.results)
        g = session.game
        acted = False
        if g is not None and g.hand_complete() and g.result() is None:
            if delay:
                # Think first, then look at the table as it is by then: choosing at once would
                # put every bot's thinking on the path of the event that woke it.
                await asyncio.sleep(delay)
                g = session.game
            view = g.view() if g is not None else None
            if view is not None and view.result is None:
                action = bot.choose(view)
                if action is not None:
                    try:
                        await session.act(action)
                        acted = True
                    except (RemoteProtocolError, ValueError) as e:
                        log.info("the bot's %s was refused: %s", action, e)
                    except ConnectionError:
                        pass
        if not acted:
            await _wait(session.wait_changed(), 1.0)


async def _wait(aw: Awaitable[None], timeout: float) -> None:
    # asyncio.timeout, not wait_for: no task of its own per wait (the bot waits after every
    # event it did not act on).
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout):
            await aw


__all__ = [
    "Address",
    "ClientSession",
    "GameResult",
    "SessionClosed",
    "play_as_bot",
]
