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

`TableHost` is put together from parts, one job each, sharing the table's state (`HostCore`,
in host_core.py, with the phase, the inbox and the options): admission and the lobby
(host_lobby.py), the game's commands with the challenge window and the move clock
(host_moves.py), a game's start and its end with record and audit (host_ending.py), dropping
out, coming back and the table's files (host_resume.py).  This module keeps the connections,
the loop and its dispatch, starting, pausing and closing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import shlex
from pathlib import Path

from localdurak.game.rules import Rules
from localdurak.net.discovery import Advertiser
from localdurak.net.host_bots import BotSeat
from localdurak.net.host_core import (
    CANNOT_SAVE,
    CHALLENGE_WINDOW,
    CLOSE_RETRY_S,
    GIVE_BACK_WAIT,
    HOLD_SECONDS,
    IDLE_VERIFY_S,
    MOVE_TIME,
    PAUSABLE,
    PAUSED_TEXT,
    Call,
    EventSink,
    FromBot,
    Go,
    HardErrors,
    HeldBack,
    HostOptions,
    Item,
    Joined,
    Left,
    Phase,
    Received,
    wake,
)
from localdurak.net.host_ending import HostEnding
from localdurak.net.host_lobby import HostLobby
from localdurak.net.host_moves import HostMoves
from localdurak.net.host_resume import HostResume, check_resume, refused_in_journal
from localdurak.net.identity import EphemeralKey, Identity
from localdurak.net.peer import PEER_BACKLOG_MAX, Peer, SeatSlot
from localdurak.net.table_store import (
    EVENTS_FILE,
    RETRY_S,
    STATE_FILE,
    check_room,
    read_frames,
    table_state,
)
from localdurak.net.transport import (
    Channel,
    ConnectionClosed,
    bound_port,
    host_handshake,
    keepalive,
    serve,
)
from localdurak.protocol.codec import encode_frame
from localdurak.protocol.errors import (
    BadMessage,
    ErrorCode,
    Forbidden,
    RemoteProtocolError,
    Replayed,
)
from localdurak.protocol.messages import (
    Ack,
    AddBot,
    Auth,
    Authed,
    Bye,
    Error,
    Message,
    Notice,
    Privacy,
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
from localdurak.protocol.table import lobby as lobby_rules

log = logging.getLogger("localdurak.net.host")

__all__ = [
    "CANNOT_SAVE",
    "EVENTS_FILE",
    "PEER_BACKLOG_MAX",
    "STATE_FILE",
    "BotSeat",
    "HostOptions",
    "Peer",
    "Phase",
    "TableHost",
    "read_frames",
    "refused_in_journal",
    "resume_table",
    "table_state",
]


class TableHost(HostLobby, HostMoves, HostEnding, HostResume):
    """One table: lobby, games, series.  ``await host.run()`` until the games are played."""

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
            # A bot whose turn it is acts after an inbox item: a resumed table with nothing
            # to resend froze for good (1 resume of all-bot tables in 6).
            self.inbox.put_nowait(Call(wake))
            # The move clock counted afresh from the end of it (`_end_gathering`).
            self._begin_gathering(GIVE_BACK_WAIT)
        if self.resumed and not self.store.broken:
            # It can save again: a "cannot save" the old host told is over (seen under
            # tmux: the friends' screens kept it after a full disk was freed and resumed).
            self._emit(Notice(seq=self._next_seq(), problem=""))
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
            and self.phase in (*PAUSABLE, Phase.RECORDING)
        )

    async def stop(self, reason: str = "the host stopped") -> Path | None:
        """Stopping is pausing: a table with a game to come back to is paused —
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
        paused_at = self.seq
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
        if not self.store.broken and paused_at == self.seq:
            # After the journal and the event log are on the disk (`close`): the resumed
            # host finds that it lost nothing, and nobody gives back (`_clean_at`).
            self._paused_at = paused_at
            self._save_state()

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

    async def _loop(self) -> None:
        while True:
            if self._deferred and not self._gathering:
                # What came while the host gathered its lost steps, before anything newer.
                item = self._deferred.pop(0)
            elif self.game is not None and self.game.idle_work and self.inbox.empty():
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
            elif (
                self.phase is Phase.PLAYING or self.phase is Phase.REVEALING
            ) and not self._gathering:
                self.bots.think(self._held)

    async def _dispatch(self, item: Item) -> None:
        if self.phase is Phase.PAUSED and isinstance(item, Received | FromBot):
            return  # unanswered: the sender keeps it and sends it again to the resumed host
        if self._gathering and self._new_step(item):
            # A step signed after what the host lost must come after it (the players saw
            # the lost ones first): it waits until every player gave back.
            self._deferred.append(item)
            return
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
                    if peer.seat in self._giving_back:
                        # It gives back again when it is back (while the host gathers).
                        self._giving_back.discard(peer.seat)
                        self._awaited.add(peer.seat)

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
                # A seat found a relayed step broken (privacy.md "Blame goes to the cheater"): the
                # host checks all it relayed unchecked, itself; a cheat it confirms aborts the game
                # naming the cheater.  The report alone names nobody.
                self.game.verify_idle()
                self._abort_if_cheated()
            return
        command_id: int | None = getattr(message, "id", None)
        try:
            seq = self._command(seat, peer, message)
        except HeldBack:
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
            lobby_rules.check_sit(m.seat, seat)
            return None
        if isinstance(m, Stand):
            lobby_rules.check_stand(self.state)
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
            if m.refused is not None:
                # One of its own steps an earlier host refused, given back (this host lost
                # the refusal with the journal's tail): recorded, never relayed nor applied.
                # Only from a player who saw what this host lost, while he gives it back in
                # the gathering (a refusal claimed otherwise could only put a refusal the
                # audit cannot justify into the record); held until the gathering ends, so
                # every lost step claims its counter first (a "refusal" given back under the
                # counter of a move the old host accepted would undo it).
                if seat not in self._giving_back:
                    raise Forbidden("only to give back what the host lost")
                self._hold_refusal_back(seat, dataclasses.replace(m, refused=None), m.refused)
                return None
            if m.seat is not None and m.seat != seat:
                # Another seat's step from the sender's copy: only from a player who saw
                # what this host lost (`_resume_peer`); its seat's signature is checked.
                if seat not in self._restoring:
                    raise Forbidden("only your own steps, but to give back what the host lost")
                return self._privacy(m.seat, dataclasses.replace(m, seat=None))
            return self._privacy(seat, m, peer)
        raise BadMessage(f"{m.TYPE!r} is not a command")


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
    check_resume(identity, journal, state, record_dir)
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
    paused_at = state.get("paused_at")
    if isinstance(paused_at, int) and not isinstance(paused_at, bool):
        host._paused_at = paused_at  # (`_clean_at`, in `replay_events`)
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
