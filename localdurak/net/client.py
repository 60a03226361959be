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

`ClientSession` is put together from parts sharing its state (`SessionState`, in
client_state.py): the port the screens and bots use (client_port.py) and the seat saved on
disk (client_saved.py).  This module keeps connecting, sending and receiving.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, cast

from localdurak.game.actions import GameResult
from localdurak.game.bots import Bot, Rng, make_bot
from localdurak.net.api import (
    AuditStatus,
    AuditVerdict,
    EventKind,
    MoveClock,
    TableEvent,
    table_events,
)
from localdurak.net.client_port import SessionPort
from localdurak.net.client_saved import SessionSaved
from localdurak.net.client_state import (
    BACKOFF,
    BROKEN,
    BROKEN_TEXT,
    FATAL,
    HOST_GONE_S,
    IDLE_VERIFY_S,
    Address,
    Broken,
    SessionClosed,
)
from localdurak.net.recovery import relayed_before
from localdurak.net.transport import (
    ConnectionClosed,
    client_handshake,
    connect_any,
    keepalive,
)
from localdurak.protocol.errors import (
    CheatFound,
    ProtocolError,
    RemoteProtocolError,
    Unavailable,
)
from localdurak.protocol.messages import (
    REPLACED,
    Ack,
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
    Resume,
    TableClosed,
    TableState,
)
from localdurak.protocol.privacy.audit import audit as audit_record
from localdurak.protocol.privacy.group import GROUP
from localdurak.protocol.privacy.record import transcript_to_dict
from localdurak.protocol.table.clock import waited_for
from localdurak.protocol.table.common import GAME_STEPS, Signed
from localdurak.protocol.table.seat import SeatGame

log = logging.getLogger("localdurak.net.client")

__all__ = ["BROKEN_TEXT", "Address", "ClientSession", "SessionClosed", "play_as_bot"]


class ClientSession(SessionPort, SessionSaved):
    """One player at one table over the network."""

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
        self.known_table = welcome.table or self.known_table
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
            self._resumed_from = self.last_seq
            await channel.send(Resume(id=self._resume_id, last_seq=self.last_seq))
            return  # our pending steps go once it answered (`_handle`: after any give-back)
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

    def take_command_id(self) -> int:
        """A command id of this session's, never used before (for a command sent by hand)."""
        return self._take_id()

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The session's running task (`start`): it ends when the session does."""
        return self._runner

    async def send_raw(
        self, make: Callable[[int], Message], *, wait: bool = True, n: int | None = None
    ) -> int | None:
        """Send the command ``make(id)`` builds as it is, past our own replica's checks, and
        (``wait``) its answer: the event it became, or the host's refusal raised.  For tools
        and tests that probe what the host refuses; ``n`` is the privacy step it carries."""
        return await self._command(make, wait=wait, n=n)

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
                                t0, c0 = time.monotonic(), time.process_time()
                                try:
                                    self._ahead = self.game.verify_ahead()
                                except BROKEN as e:
                                    if not await self._report_cheat(e):
                                        self._finish(f"{BROKEN_TEXT}: {e}")
                                        return
                                if self.trace is not None:
                                    now = {"t": time.monotonic(), "c": time.process_time()}
                                    self.trace({"event": "ahead", "t0": t0, "c0": c0} | now)
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
                        except Broken as e:
                            # What the host relayed breaks the game: coming back would only
                            # replay it.  The audit of the record names whoever did it.
                            log.warning("%s: %s (%r)", BROKEN_TEXT, e, message)
                            self._finish(f"{BROKEN_TEXT}: {e}")
                            return
                        if self.game is not None and self.game.result() is None:
                            # Shuffle stages wait for a quiet moment too (they are checked
                            # together when several came meanwhile: `verify_ahead`).
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
            self.notify()

    async def _reconnect(self) -> None:
        """Back off and try again until the seat's hold runs out — or, during a game, for
        as long as a host may take to come back (`HOST_GONE_S`): the host holds a seat only
        from its own return, so a player who gave up on a host that stopped would be
        forfeited and blamed for the host's fault."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.hold
        playing = self.game is not None and self.game.result() is None
        host_gone = loop.time() + HOST_GONE_S
        attempt = 0
        while (
            loop.time() < give_up
            or self.paused is not None
            or (playing and loop.time() < host_gone)
        ):
            delay = BACKOFF[min(attempt, len(BACKOFF) - 1)] * (0.8 + 0.4 * random.random())
            await asyncio.sleep(delay)
            attempt += 1
            try:
                await self._connect()
                self.reconnects += 1
                self.paused = None
                self.notify()
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
        self.notify()

    async def _command(
        self, make: Callable[[int], Message], *, wait: bool, n: int | None = None
    ) -> int | None:
        if self.channel is None or self.channel.closed:
            raise Unavailable("not connected to the table right now")
        if n is not None and self._resume_id is not None:
            # Not before the host answered our resume: a step signed on what it may have
            # lost (a power cut) goes after what we give back (`_give_back`, `_resend`).
            raise Unavailable("the table is catching up")
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
            if isinstance(m, Error) and self.game is not None:
                mine = next((p for p in self._pending if p.n == n), None)
                if mine is not None and mine.game == self.game.game_id:
                    # Kept with where it was refused (`_refused`).  reading: the host's log
                    # then held what we have taken now: it answers a step after relaying
                    # everything before it, in order, on this connection, and we took all
                    # of that (with the refills and returns it called for) before this.
                    self._refused.append((mine, self.game.taken))
                    self._save_later()
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
            if m.re is not None and m.re == self._resume_id:
                self._resume_id = None
                if m.seq is not None and self._resumed_from is not None:
                    await self._give_back(m.seq, self._resumed_from)
                # Ours after what the host lost: we signed them after seeing it.
                await self._resend()
                self.notify()  # a move refused meanwhile ("catching up") is tried again
            return
        if isinstance(m, Bye):
            if m.paused:
                # The host stops for now and resumes the table: our seat is kept, and we
                # come back when it is back (however long that takes).
                self.paused = m.reason or "the host paused; it will resume"
                self.notify()
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
        # Timed for benchmarks/start_timeline.py: the start's steps, not the game's (two
        # system calls for the CPU clock, stamped before each action was applied).
        timed = self.trace is not None and isinstance(m, PrivacyEvent) and m.step not in GAME_STEPS
        t0, c0 = (time.monotonic(), time.process_time()) if timed else (0.0, 0.0)
        try:
            out = self._apply(m)
            if seq is not None:
                self.last_seq = seq
            if self.game is not None and self.game.work_due:
                # The action is in our replica: let the screen show it, then do the protocol
                # work it calls for (the refill's layer removals).
                self.notify()
                out += self.game.flush()
                self._trace_checked()
        except BROKEN as e:
            if seq is not None and await self._report_cheat(e):
                self.last_seq = seq  # not followed: we stopped at the cheat
                return
            raise Broken(str(e)) from e
        t1, c1 = (time.monotonic(), time.process_time()) if timed else (0.0, 0.0)
        if out:
            await self._send_signed(out)
        if timed:
            assert self.trace is not None and isinstance(m, PrivacyEvent)
            # Where a step's time goes at this seat: taken up (t0), checked and answered
            # (t1), the answer saved and written (t); and the CPU of each part (c0, c1, c).
            step = {"event": "ev", "seq": m.seq, "step": m.step, "seat": m.seat, "t0": t0}
            now = {"t1": t1, "t": time.monotonic(), "c0": c0, "c1": c1, "c": time.process_time()}
            self.trace(step | now | {"sent": [s.step for s in out]})
        self.notify()

    async def _give_back(self, kept: int, had: int) -> None:
        """The resumed host kept its events up to ``kept`` only, and we had seen up to ``had``
        (its last frames were lost, a power cut): we give back the signed steps we hold
        after ``kept``, every seat's, in their order.  The host checks each as it checked
        the original (the seat's signature binds it), so nothing is taken on our word."""
        if self.channel is None or kept >= had:
            return
        back = [ev for ev in self._recent if kept < ev.seq <= had] if self.game else []
        log.info("the host lost events %d..%d: giving back %d steps", kept + 1, had, len(back))
        for ev in back:
            cmd = ev.command(self._take_id(), seat=ev.seat)
            await self.channel.send(cmd)
        # And our steps it refused: the refusals were in its journal alone, whose last
        # lines went with the log's (the host takes back those it lost, ignores the rest).
        if self.game is not None:
            for step, at in self._refused:
                if step.game == self.game.game_id:
                    refused = dataclasses.replace(step.command(self._take_id()), refused=at)
                    await self.channel.send(refused)
        # Done: a second `resume` says so (the host holds every new step, its bots' and
        # ours, until each player back gave back what it lost; docs/protocol.md §7).
        assert self.last_seq is not None
        await self.channel.send(Resume(id=self._take_id(), last_seq=self.last_seq))

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
            self.notify()
        return True

    def _apply(self, m: Message) -> list[Signed]:
        if isinstance(m, Lobby):
            self.lobby = m
            self.known_table = m.table
            return []
        if isinstance(m, GameStarted):
            if self.my_seat is None:
                return []
            if self.game is not None and self.game.game_id == m.game:
                return []
            self.game = SeatGame(m, self.my_seat, self.identity, os.urandom)
            self._recent.clear()
            self._refused.clear()
            if self.on_game is not None:
                self.on_game(self.game)
            self.cheat = None
            self.aborted = None
            self._unchecked = []
            self._pending = []
            self._closing = False
            self._audit = AuditVerdict(AuditStatus.PENDING)
            self._events = [TableEvent(EventKind.GAME_STARTED, game=m.number + 1)]
            if self.trace is not None:
                cpu, mul = time.process_time(), GROUP.counts["mul"]
                self.trace({"event": "started", "t": time.monotonic(), "cpu": cpu, "mul": mul})
            return self.game.start()
        if isinstance(m, PrivacyEvent):
            if self.game is None or m.game != self.game.game_id or self.cheat is not None:
                return []
            if m.seat == self.my_seat:
                self._pending = [p for p in self._pending if p.n != m.n]
            if relayed_before(self.game, m, self._recent):
                return []  # relayed again by a resumed host (rebuilt, or given back)
            self._recent.append(m)
            t0 = time.monotonic()
            out = self.game.receive(m, defer=True)
            action = self.game.last_action
            if action is not None:
                self._events += table_events(action, self.game.last_outcome)
                if self._clock_view.acted(waited_for(self.game.game)):
                    # The move clock starts afresh for the seat waited for now: the host
                    # sends no `Clock` for it (docs/protocol.md §5).
                    seat = self._clock_view.seat
                    self._clock = (
                        None
                        if seat is None
                        else MoveClock(seat, time.monotonic() + self._clock_view.seconds)
                    )
            if self.trace is not None:
                self._trace(m, t0)
            return out
        if isinstance(m, GameOver):
            if any(r.game == m.game for r in self.results):
                return []  # told again by a resumed host
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
            game = self.game.game if self.game is not None else None
            self._clock_view.told(m.seat, m.seconds, waited_for(game))
            self._clock = (
                None if m.seat is None else MoveClock(m.seat, time.monotonic() + m.seconds)
            )
            self.notify()
            return []
        if isinstance(m, Notice):
            self.host_problem = m.problem or None
            self.notify()
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
            self.notify()

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
            cpu, mul = time.process_time(), GROUP.counts["mul"]
            self.trace({"event": "dealt", "t": now, "cpu": cpu, "mul": mul})
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
