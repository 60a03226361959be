"""The host: a table's authority (issue 4 part 4; docs/protocol.md §4-§7).

A `TableHost` serves TLS (`transport.serve`), admits players (`transport.host_handshake`, the
PIN gate), keeps the lobby (seats, names, ready, the rules, bots filling seats), starts a game
when every seat is taken and every player ready, and then runs it:

- every command from every seat (remote players and the in-process bots) goes through one
  queue, so the table has one order; a `HostGame` accepts or refuses each (the signature and
  counter, the card-privacy proofs, the rules engine on public information) and the host relays
  what it accepts, unchanged, to every seat as numbered events; a refusal goes to its sender
  alone;
- the host holds no secret: each bot is a `SeatGame` with its own keys, reading only its
  seat's view (R-T4), like a remote player;
- every accepted step and action is written at once to the game's journal (JSON Lines,
  `localdurak.protocol.records`), and every event to the table's event log, so a crash loses
  nothing: ``localdurak host --resume JOURNAL`` carries the table on (`TableHost.resume`);
- a player whose connection drops keeps his seat for ``hold`` seconds (`Presence`), then
  forfeits: he is the durak (card-privacy.md "When a player drops out");
- in cheating mode an action that would close a bout waits ``challenge_window`` seconds while
  challenges are taken first (R-S5);
- a series (R-F2, R-D5): ``games`` games in a row, the score counted per seat.

The table is advertised with mDNS (`discovery.Advertiser`), its TXT record updated when seats
change; ``advertise=False`` turns that off.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import pickle
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from localdurak.game.actions import Do, GameResult
from localdurak.game.bots import Bot, Rng, make_bot
from localdurak.game.engine import Game
from localdurak.game.rules import Rules, RulesError
from localdurak.net.discovery import Advertiser, TableAd, TableStatus
from localdurak.net.identity import Identity
from localdurak.net.replica import (
    EphemeralKey,
    HostGame,
    SeatGame,
    Signed,
    action_of,
    closes_bout,
    decode_body,
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
from localdurak.protocol.codec import MAX_FRAME, FrameDecoder, encode_frame
from localdurak.protocol.connection import encoded_frame
from localdurak.protocol.errors import (
    AuthFailed,
    BadMessage,
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
    BotLevel,
    Bye,
    Closing,
    Error,
    GameOver,
    GameStarted,
    Lobby,
    Message,
    Presence,
    Privacy,
    PrivacyEvent,
    Ready,
    RemoveBot,
    Resume,
    SeatInfo,
    SeatKind,
    SetRules,
    Sit,
    Stand,
    TableClosed,
    TableState,
    message_from_wire,
    message_to_wire,
)
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.records import (
    journal_action,
    journal_append,
    journal_header,
    journal_set,
    read_journal,
)

log = logging.getLogger(__name__)

HOLD_SECONDS = 120.0
"""How long a dropped player's seat is held before he forfeits (issue 4 part 5)."""
CHALLENGE_WINDOW = 2.0
"""R-S5: seconds an action that closes a bout waits for challenges in cheating mode."""
REVEAL_TIMEOUT = 10.0
"""Seconds to wait for every key after a game ends (the audit checks what it gets)."""
REPLAY_KEEP = 100_000
BOT_REST = 0.2
"""Seconds a host bot waits after the host refused one of its steps."""
IDLE_VERIFY_S = 0.004
"""How long the table must be quiet before the host verifies a deferred strip proof."""
"""Events kept in memory for players who come back (`Resume`); older ones go by snapshot."""
SYNC_PAUSE_S = 0.05
"""The pause after each fsync of the journal and the event log (`_sync_soon`): at most this
long more of a table's lines wait for the disk when the power goes (a crash of the host's own
process loses none: each line is flushed to the system before anyone hears of it)."""
PEER_BACKLOG_MAX = 16 << 20
"""Bytes written to a player's connection and not taken by it yet past which the host drops
the connection (`Peer`): far more than a whole game's events (about 2 MB at six seats)."""
EVENTS_FILE = "events.bin"
STATE_FILE = "table.json"
BOTS_FILE = "bots.pickle"

HardErrors = (AuthFailed, BadMessage, Replayed)
"""Refusals that also close the connection (docs/protocol.md §8)."""

EventSink = Callable[[dict[str, Any]], None]


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
    challenge_window: float = CHALLENGE_WINDOW
    bot_delay: float = 0.0
    """Seconds a bot waits before it acts (0 for headless games)."""
    seed: int | None = None
    keepalive: float = 5.0
    own_seat: bool = False
    """The person hosting plays at seat 0 (cli.md ``localdurak host``): bots sit from 1."""


class BotSeat:
    """An in-process bot: its own signing key and privacy key, its seat's view only.

    Like a remote client it saves its seat (`SeatGame.freeze`) and the steps it has not seen
    relayed yet before the host takes them, so a host that crashed and resumes carries the
    bot's game on with the same privacy key."""

    def __init__(
        self,
        level: str,
        rng: random.Random,
        key: EphemeralKey | None = None,
        path: Path | None = None,
    ) -> None:
        self.level = level
        self.key = key if key is not None else EphemeralKey()
        self.bot: Bot = make_bot(level, cast(Rng, rng))
        self.game: SeatGame | None = None
        self.next_id = 1
        self.pending: list[Signed] = []
        self.last_seq = 0
        self.resting_until = 0.0
        """After the host refused one of its steps, the bot does not try again before this
        (loop time): a refused bot used to retry at once, for ever, in a busy loop."""
        self.path = path
        self._file: Any = None

    def save(self) -> None:
        if self.path is None:
            return
        state = {
            "last_seq": self.last_seq,
            "game": self.game.freeze() if self.game is not None else None,
            "pending": self.pending,
        }
        blob = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        if self._file is None:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            self._file = os.fdopen(fd, "ab")
        self._file.write(len(blob).to_bytes(4, "big") + blob)
        self._file.flush()

    def load(self) -> None:
        if self.path is None or not self.path.exists():
            return
        data = self.path.read_bytes()
        at, state = 0, None
        while at + 4 <= len(data):
            size = int.from_bytes(data[at : at + 4], "big")
            if at + 4 + size > len(data):
                break  # the crash tore the last entry
            state = pickle.loads(data[at + 4 : at + 4 + size])
            at += 4 + size
        if state is None:
            return
        self.last_seq = state["last_seq"]
        self.pending = list(state["pending"])
        if state["game"] is not None:
            self.game = SeatGame.thaw(state["game"], self.key)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class Peer:
    """A connected remote player: its channel and what is queued for it.

    What the host pushes goes out at the end of the event loop's current turn, in one write
    (one TLS record, one system call) for everything pushed meanwhile: a burst of events (the
    deal) is batched, and a single action reaches the socket without a task, a queue or a
    lock per player on its way (benchmarks/net.py)."""

    def __init__(self, channel: Channel, key: bytes, name: str) -> None:
        self.channel = channel
        self.key = key
        self.name = name
        self.seat: int | None = None
        self.synced = False
        """True once the peer gets live events (after its first lobby or its resume)."""
        self.tasks: list[asyncio.Task[None]] = []
        self._queue: list[Message] = []
        self._flushing = False
        self._hanging_up = False
        self._closing: asyncio.Task[None] | None = None

    def push(self, message: Message) -> None:
        if self._hanging_up:
            return  # said after the last word: the connection is going
        self._queue.append(message)
        self._flush_soon()

    def hang_up(self) -> None:
        """Close the connection once everything pushed before is written (a refusal that
        closes, leaving, a connection replaced by a newer one)."""
        self._hanging_up = True
        self._flush_soon()

    async def finished(self) -> None:
        """Wait until what was pushed is written and, after `hang_up`, the channel closed."""
        while self._flushing:
            await asyncio.sleep(0)
        if self._closing is not None:
            await self._closing

    def _flush_soon(self) -> None:
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flushing = False
        batch, self._queue = self._queue, []
        if self.channel.closed:
            return
        try:
            backlog = self.channel.write_now(batch) if batch else 0
        except (ConnectionClosed, RemoteProtocolError, OSError):
            return
        except Exception:  # a LocalProtocolError is our bug: log it, drop the peer
            log.exception("cannot send to %s", self.name)
            self._hanging_up = True
            backlog = 0
        if backlog > PEER_BACKLOG_MAX:
            # Not reading for a long while (a frozen laptop): it can resume once it does.
            log.warning("%s reads too slowly (%d bytes waiting): dropped", self.name, backlog)
            self._closing = asyncio.get_running_loop().create_task(self.channel.abort())
        elif self._hanging_up and self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self.channel.close())


@dataclass
class SeatSlot:
    kind: SeatKind = SeatKind.EMPTY
    name: str = ""
    key: bytes | None = None
    ready: bool = False
    peer: Peer | None = None
    bot: BotSeat | None = None
    away_since: float | None = None
    forfeit_timer: asyncio.TimerHandle | None = None

    @property
    def connected(self) -> bool:
        return self.kind is SeatKind.BOT or (self.peer is not None and not self.peer.channel.closed)

    def info(self) -> SeatInfo:
        return SeatInfo(
            kind=self.kind,
            name=self.name,
            ready=self.ready or self.kind is SeatKind.BOT,
            connected=self.connected,
            key=self.key,
            level=BotLevel(self.bot.level) if self.bot is not None else None,
        )


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
        self.seats = [SeatSlot() for _ in range(options.seats)]
        self.pin_gate = PinGate(options.pin)
        self.state = TableState.LOBBY
        self.seq = 0
        self.events: list[Message] = []
        self.first_seq = 1
        self.inbox: asyncio.Queue[tuple[Any, Message | None]] = asyncio.Queue()
        self.game: HostGame | None = None
        self.game_number = 0
        self.previous: GameResult | None = None
        self.score = [0] * options.seats
        self.results: list[dict[str, Any]] = []
        self.port = options.port
        self.server: asyncio.Server | None = None
        self.advertiser: Advertiser | None = None
        self.done = asyncio.Event()
        self.journal_path: Path | None = None
        self._journal: Any = None
        self._events_file: Any = None
        self._game_over_at: float | None = None
        self._sync: asyncio.Task[None] | None = None
        self._finishing: asyncio.Task[None] | None = None
        """The game's record being written (`_finish_game`)."""
        self._sync_again = False
        self._ending: int | None = None
        self._releasing = False
        self._held = 0
        self._handlers: set[asyncio.Task[Any]] = set()
        """The seat that forfeited, while the others reveal their keys."""
        self._reveal_timer: asyncio.TimerHandle | None = None
        self._bot_wait: asyncio.TimerHandle | None = None
        self._next_player = 1
        self._resuming = False
        self.resumed = False
        self.trace = os.environ.get("LOCALDURAK_TRACE", "") not in ("", "0")
        self.bytes_out = 0
        self.bytes_in = 0
        for _ in range(options.bots):
            self._add_bot(options.bot_level)

    # --- running ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen, advertise; returns once the table is reachable."""
        self.o.record_dir.mkdir(parents=True, exist_ok=True)
        self.state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.server = await serve(self.identity, self._on_channel, host=self.o.host, port=self.port)
        self.port = bound_port(self.server)
        self._write_state()
        if self._events_file is None:
            # A new table starts a new event log (and forgets the bots of an old one).
            if not self.resumed:
                for old in self.state_dir.glob("bot-*.bin"):
                    old.unlink()
            mode = "ab" if self.resumed else "wb"
            self._events_file = open(self.state_dir / EVENTS_FILE, mode)  # noqa: SIM115
            if not self.resumed:
                for e in self.events:
                    self._events_file.write(encode_frame(message_to_wire(e)))
                self._events_file.flush()
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
        await self.advertiser.start()
        if self.advertiser.problem and self.o.advertise:
            self.on_event({"event": "advertising", "problem": self.advertiser.problem})
        if not self.resumed:
            self._broadcast_lobby()
        elif self.game_number >= self.o.games or self.state is TableState.CLOSED:
            # The crash came after the series' last game: nothing left but to close.
            self.state = TableState.LOBBY
            asyncio.get_running_loop().create_task(self.close("the series is over"))
        elif self.state is TableState.PLAYING:
            loop = asyncio.get_running_loop()
            for seat, slot in enumerate(self.seats):
                if slot.kind is SeatKind.HUMAN and slot.peer is None:
                    slot.away_since = time.monotonic()
                    slot.forfeit_timer = loop.call_later(
                        self.o.hold,
                        lambda seat=seat: self.inbox.put_nowait(  # type: ignore[misc]
                            (lambda: self._forfeit(seat), None)
                        ),
                    )
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

    async def close(self, reason: str = "the host closed the table") -> None:
        if self._finishing is not None:
            # The last game's record first: the players' game is not over without it.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._finishing), 60)
        if self.state is not TableState.CLOSED:
            self.state = TableState.CLOSED
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
        if self._sync is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._sync, 2)
        for f in (self._journal, self._events_file):
            if f is not None:
                _fsync_all([f.fileno()])
                f.close()
        self._journal = self._events_file = None
        self.done.set()

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
        await self.inbox.put((peer, _Joined()))
        try:
            while True:
                message = await channel.recv()
                if self.trace:
                    self.bytes_in += len(encode_frame(message_to_wire(message)))
                await self.inbox.put((peer, message))
        except (ConnectionClosed, RemoteProtocolError, TimeoutError) as e:
            log.info("seat %s (%s) left: %s", peer.seat, peer.name, e)
        finally:
            await self.inbox.put((peer, None))
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
                    source, message = await asyncio.wait_for(self.inbox.get(), IDLE_VERIFY_S)
                except TimeoutError:
                    fault = self.game.verify_idle(limit=1)
                    if fault is not None:
                        log.warning("card privacy: %s (recorded for the audit)", fault)
                    continue
            else:
                source, message = await self.inbox.get()
            try:
                if isinstance(source, Peer):
                    await self._from_peer(source, message)
                elif isinstance(source, int) and isinstance(message, Privacy):
                    self._from_bot(source, message)
                elif callable(source):
                    source()
            except Exception:
                log.exception("the host failed on %r", message)
            if not self.inbox.empty():
                # What this command relayed goes to the sockets before the next command is
                # taken (a queue with items does not suspend `get`): a burst of commands
                # would otherwise hold every event of the burst until its end.
                await asyncio.sleep(0)
            elif self.state is TableState.PLAYING:
                self._bots_think()

    async def _from_peer(self, peer: Peer, message: Message | None) -> None:
        seat = peer.seat
        assert seat is not None
        slot = self.seats[seat]
        if isinstance(message, _Joined):
            if slot.peer is not None and slot.peer is not peer:
                slot.peer.hang_up()
            slot.peer = peer
            if slot.away_since is not None:
                # Back only once it resumes: a client that lost its saved seat cannot play
                # it (the privacy key is gone), and the seat must still forfeit in time.
                pass
            else:
                self.on_event({"event": "seated", "seat": seat, "name": slot.name})
                peer.synced = True
                self._broadcast_lobby()
                self._readvertise()
            return
        if message is None:
            if slot.peer is peer:
                self._dropped(seat)
            return
        if slot.peer is not peer:
            return  # a connection that was replaced
        if isinstance(message, Bye):
            await peer.channel.close()
            return
        if isinstance(message, Error):
            log.info("seat %d reports: %s", seat, message.message)
            return
        command_id: int | None = getattr(message, "id", None)
        try:
            seq = self._command(seat, peer, message)
        except _HeldBack:
            return  # answered when the challenge window closes (R-S5)
        except RemoteProtocolError as e:
            peer.push(Error.from_exception(e, re=command_id))
            if isinstance(e, HardErrors):
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
        if self.state is not TableState.LOBBY or self.game_number >= self.o.games:
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
            self.first_seq += drop
        if self._events_file is not None and not self._resuming:
            # Before anyone hears of it: a host that crashes after this line resumes with it.
            self._events_file.write(encoded_frame(event))
            self._events_file.flush()
            self._sync_soon()
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
            self._feed_bots(event)
        elif isinstance(event, GameOver) and event.forfeit is not None and not self._resuming:
            for s, slot in enumerate(self.seats):
                if slot.bot is not None and slot.bot.game is not None:
                    out = slot.bot.game.reveal_now()
                    if out:
                        self._bot_send(s, slot.bot, out)

    def _trace(self, event: Message, now: float) -> None:
        """Timing and size lines for benchmarks/net.py (``trace=True``); ``now``: when the
        host had the event (before its journal and its sending)."""
        size = len(encoded_frame(event))
        peers = sum(1 for s in self.seats if s.peer is not None and s.peer.synced)
        self.bytes_out += size * peers
        if isinstance(event, GameStarted):
            self.on_event({"event": "trace_start", "seq": event.seq, "t": now})
        elif isinstance(event, PrivacyEvent):
            self.on_event({"event": "step", "seq": event.seq, "step": event.step, "t": now})
            if event.step in ("play", "act"):
                self.on_event({"event": "relay", "seq": event.seq, "seat": event.seat, "t": now})
        elif isinstance(event, GameOver):
            self.on_event({"event": "bytes", "out": self.bytes_out, "in": self.bytes_in})

    def _feed_bots(self, event: GameStarted | PrivacyEvent) -> None:
        for s, slot in enumerate(self.seats):
            if slot.bot is not None:
                self._feed_bot(s, slot.bot, event)

    def _feed_bot(self, s: int, bot: BotSeat, event: GameStarted | PrivacyEvent) -> None:
        if event.seq <= bot.last_seq:
            return  # a resumed bot already had it
        bot.last_seq = event.seq
        out: list[Signed] = []
        try:
            if isinstance(event, GameStarted):
                bot.game = SeatGame(event, s, bot.key)
                bot.pending = []
                out = bot.game.start()
            elif bot.game is not None and event.game == bot.game.game_id:
                if event.seat == s:
                    bot.pending = [p for p in bot.pending if p.n != event.n]
                out = bot.game.receive(event)
        except RemoteProtocolError:
            log.exception("bot at seat %d refused an event", s)
            return
        if out:
            self._bot_send(s, bot, out)

    def _bot_send(self, s: int, bot: BotSeat, out: list[Signed], delay: float = 0.0) -> None:
        """Save the bot's seat first (what it signed must survive a crash), then queue."""
        bot.pending += out
        bot.save()
        for signed in out:
            cmd = signed.command(bot.next_id)
            bot.next_id += 1
            if delay > 0:
                asyncio.get_running_loop().call_later(delay, self.inbox.put_nowait, (s, cmd))
            else:
                self.inbox.put_nowait((s, cmd))

    def _bots_think(self) -> None:
        """One bot acts, when one may: a bot reads only its own seat's view."""
        if self._bot_wait is not None or self._held:
            return  # a bot waits while an action waits for challenges (R-S5)
        bots = [(s, slot.bot) for s, slot in enumerate(self.seats) if slot.bot is not None]
        self.rng.shuffle(bots)
        for s, bot in bots:
            sg = bot.game
            if (
                sg is None
                or not sg.hand_complete()
                or bot.resting_until > asyncio.get_running_loop().time()
            ):
                continue
            view = sg.view()
            if view is None or view.result is not None:
                continue
            action = bot.bot.choose(view)
            if action is None:
                continue
            try:
                signed = sg.act(action)
            except (ValueError, RemoteProtocolError) as e:
                log.info("bot %d cannot play %s: %s", s, action, e)
                continue
            self._bot_send(s, bot, [signed], self.o.bot_delay)
            if self.o.bot_delay > 0:
                loop = asyncio.get_running_loop()
                self._bot_wait = loop.call_later(self.o.bot_delay, self._clear_bot_wait)
            return

    def _clear_bot_wait(self) -> None:
        self._bot_wait = None

    # --- games ---------------------------------------------------------------------------------

    def _start_game(self) -> None:
        self.state = TableState.PLAYING
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
        self._write_state()
        self._broadcast_lobby()
        self._readvertise()
        started = GameStarted(**{**_fields(started), "seq": self._next_seq()})
        self._drop_finished_games()
        self.game = HostGame(started)
        self._game_over_at = None
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
                self.first_seq += i
                return

    def _open_journal(self, started: GameStarted) -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.journal_path = (
            self.o.record_dir / f"game-{stamp}-{os.getpid()}-{self.game_number + 1}.journal"
        )
        if self._journal is not None:
            _fsync_all([self._journal.fileno()])
            self._journal.close()
        self._journal = open(self.journal_path, "w", encoding="utf-8")  # noqa: SIM115
        self._journal_line(self._journal_header(started))

    def _journal_line(self, line: str) -> None:
        if self._journal is not None and not self._resuming:
            self._journal.write(line)
            self._journal.flush()
            self._sync_soon()

    def _sync_soon(self) -> None:
        """Get the journal and the event log onto the disk, off the event loop.  ``flush``
        per line already hands every line to the system before anyone hears of it, which
        is all a crash of the host's process needs; ``fsync`` is for a laptop that loses
        power or a system that crashes.  Coalesced: one sync at a time, and after it a pause
        of `SYNC_PAUSE_S` that gathers the lines of the next one; a busy table syncs at most
        about 1/`SYNC_PAUSE_S` times a second instead of once an action."""
        if self._sync is not None:
            self._sync_again = True
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not serving (a resume rebuilding the table): nothing new to sync
        self._sync = loop.create_task(self._sync_files(), name="fsync")

    async def _sync_files(self) -> None:
        try:
            while True:
                self._sync_again = False
                fds = [f.fileno() for f in (self._journal, self._events_file) if f is not None]
                await asyncio.to_thread(_fsync_all, fds)
                await asyncio.sleep(SYNC_PAUSE_S)
                if not self._sync_again:
                    return
        finally:
            self._sync = None

    def _privacy(self, seat: int, cmd: Privacy, peer: Peer | None = None) -> int | None:
        g = self.game
        if g is None or self.state is not TableState.PLAYING:
            raise Unavailable("no game is being played")
        if g.duplicate(seat, cmd):
            return None  # a reconnecting client sent it again: already relayed
        if self._hold_back(g, seat, cmd, peer):
            raise _HeldBack()
        acc = g.receive(seat, cmd)
        first: int | None = None
        for m in g.accepted_log[self._logged :]:
            self._journal_line(journal_append("privacy_log", m.to_json()))
        self._logged = len(g.accepted_log)
        if acc.action is not None:
            self._journal_line(journal_action(acc.action))
        for s, c in acc.relay:
            ev = c.relayed(self._next_seq(), s)
            first = first if first is not None else ev.seq
            self._emit(ev)
        if self._ending is not None:
            revealed = g.privacy.t.revealed
            if all(k is not None for s, k in enumerate(revealed) if s != self._ending):
                self._finish_game(self._ending)
            return first
        game = g.game
        if game is not None and game.result is not None:
            if self._game_over_at is None:
                self._game_over_at = time.monotonic()
                self._reveal_timer = asyncio.get_running_loop().call_later(
                    REVEAL_TIMEOUT, lambda: self.inbox.put_nowait((self._finish_game, None))
                )
            if g.all_revealed():
                self._finish_game()
        return first

    _logged = 0

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
        if action.do is Do.CHALLENGE or not closes_bout(g.game, action):
            return False
        self.on_event({"event": "challenge_window", "seat": seat, "seconds": window})
        self._held += 1
        # Everybody sees the window open (their screens say challenges are still taken).
        self._emit(Closing(seq=self._next_seq(), seat=seat, open=True, window=int(window * 1000)))
        asyncio.get_running_loop().call_later(
            window,
            lambda: self.inbox.put_nowait((lambda: self._release(seat, cmd, peer), None)),
        )
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
                bot.pending = [p for p in bot.pending if p.n != cmd.n]
                if bot.game is not None and bot.game.game_id == cmd.game:
                    bot.game.refused(cmd.n)
                loop = asyncio.get_running_loop()
                bot.resting_until = loop.time() + BOT_REST
                # Wake the table then, in case nothing else happens meanwhile.
                loop.call_later(BOT_REST, self.inbox.put_nowait, (_wake, None))

    def _finish_game(self, forfeit: int | None = None) -> None:
        g = self.game
        if g is None or self._finishing is not None:
            return
        if self._reveal_timer is not None:
            self._reveal_timer.cancel()
            self._reveal_timer = None
        game = g.game
        result = game.result if game is not None and forfeit is None else None
        if result is None:
            durak = (forfeit,) if forfeit is not None else ()
            result = GameResult(durak, not durak, 0)
        if forfeit is not None and self._ending is None:
            # card-privacy.md: the absent player is the durak and the game ends; the others
            # reveal their keys (GameOver tells them) so the audit checks what it can.
            self._ending = forfeit
            for s in result.durak:
                self.score[s] += 1
            self._emit(
                GameOver(
                    seq=self._next_seq(),
                    game=g.started.game,
                    result=result,
                    forfeit=forfeit,
                    score=tuple(self.score),
                )
            )
            self._reveal_timer = asyncio.get_running_loop().call_later(
                REVEAL_TIMEOUT,
                lambda: self.inbox.put_nowait((lambda: self._finish_game(forfeit), None)),
            )
            return
        announced = self._ending is not None
        self._ending = None
        transcript = g.transcript()
        self._journal_line(journal_set("privacy", transcript))
        self._journal_line(journal_set("result", result.to_dict()))
        if forfeit is not None:
            self._journal_line(journal_set("forfeit", forfeit))
        # The record's audit takes a while (a third of a second at six hands of 52 cards):
        # in a thread, so that the table keeps answering meanwhile.  The game is over for
        # everybody only once its record is on disk (a host that crashes before that writes
        # it when it resumes: `replay_events`).
        self._finishing = asyncio.get_running_loop().create_task(
            self._finish_with_record(g, result, forfeit, announced), name="record"
        )

    async def _finish_with_record(
        self, g: HostGame, result: GameResult, forfeit: int | None, announced: bool
    ) -> None:
        try:
            record_path = await self._write_record(result)
        except Exception:
            log.exception("cannot write the game's record")
            record_path = None
        finally:
            self._finishing = None
        if not announced:
            for s in result.durak:
                self.score[s] += 1
        self.previous = result
        self.game = None
        self._logged = 0
        self.game_number += 1
        if not announced:
            self._emit(
                GameOver(
                    seq=self._next_seq(),
                    game=g.started.game,
                    result=result,
                    forfeit=forfeit,
                    score=tuple(self.score),
                )
            )
        info = {
            "event": "game_over",
            "game": self.game_number - 1,
            "result": result.to_dict(),
            "record": str(record_path) if record_path else None,
            "score": list(self.score),
        }
        if forfeit is not None:
            info["forfeit"] = forfeit
        self.results.append(info)
        self.on_event(info)
        self.state = TableState.LOBBY
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

    async def _write_record(self, result: GameResult) -> Path | None:
        if self.journal_path is None:
            return None
        path, deck = await asyncio.to_thread(_write_record_file, self.journal_path)
        if deck is not None:
            self._journal_line(journal_set("deck", deck))
        return path

    # --- dropping out and coming back ----------------------------------------------------

    def _dropped(self, seat: int) -> None:
        slot = self.seats[seat]
        slot.peer = None
        if self.state is TableState.LOBBY:
            self.on_event({"event": "left", "seat": seat, "name": slot.name})
            self.seats[seat] = SeatSlot()
            self._broadcast_lobby()
            self._readvertise()
            return
        if self.state is not TableState.PLAYING:
            return
        slot.away_since = time.monotonic()
        self.on_event({"event": "away", "seat": seat, "hold": self.o.hold})
        self._emit(
            Presence(seq=self._next_seq(), seat=seat, connected=False, hold=int(self.o.hold))
        )
        loop = asyncio.get_running_loop()
        slot.forfeit_timer = loop.call_later(
            self.o.hold, lambda: self.inbox.put_nowait((lambda: self._forfeit(seat), None))
        )

    def _back(self, seat: int) -> None:
        slot = self.seats[seat]
        if slot.forfeit_timer is not None:
            slot.forfeit_timer.cancel()
            slot.forfeit_timer = None
        slot.away_since = None
        self.on_event({"event": "back", "seat": seat})

    def _forfeit(self, seat: int) -> None:
        slot = self.seats[seat]
        if slot.away_since is None or self.game is None:
            return
        self.on_event({"event": "forfeit", "seat": seat})
        self._finish_game(forfeit=seat)

    def _resume_peer(self, peer: Peer, m: Resume) -> None:
        """Send a returning player what he missed, then live events (docs/protocol.md §7)."""
        seat = peer.seat
        assert seat is not None
        if peer.synced:
            # Seated afresh in the lobby: it had the lobby (a whole picture) already, and
            # older events after it would break its sequence.
            peer.push(Ack(re=m.id, seq=self.seq))
            return
        if not self.first_seq - 1 <= m.last_seq <= self.seq:
            # A fresh start for it: the lobby now, live events after (no snapshot of a game
            # it cannot play without its saved seat).
            peer.synced = True
            self._broadcast_lobby()
            raise Unavailable("the events you missed are not here: you start afresh")
        for ev in self.events[m.last_seq - self.first_seq + 1 :]:
            peer.push(ev)
        peer.push(Ack(re=m.id, seq=self.seq))
        peer.synced = True
        if self.seats[seat].away_since is not None:
            self._back(seat)
        self._emit(Presence(seq=self._next_seq(), seat=seat, connected=True, hold=0))
        if not any(isinstance(ev, Lobby) for ev in self.events[m.last_seq - self.first_seq + 1 :]):
            # A client restarted from its saved seat has no lobby (the table's name, the
            # seats): everybody gets the table's picture again, the seat back in it.
            self._broadcast_lobby()

    # --- persistence --------------------------------------------------------------------------

    def replay_events(self) -> None:
        """Rebuild the table from its event log: the lobby, the game being played (its
        `HostGame` through the same checks as live), the series; then the bots' saved seats,
        each brought up to date with the events after its save."""
        self._resuming = True
        try:
            events = read_frames(self.state_dir / EVENTS_FILE)
            for ev in events:
                self._replay(ev)
            for s, slot in enumerate(self.seats):
                bot = slot.bot
                if bot is None:
                    continue
                bot.load()
                if (
                    bot.game is not None
                    and self.game is not None
                    and bot.game.game_id != self.game.started.game
                ):
                    bot.game = None
                for ev in events:
                    if isinstance(ev, GameStarted | PrivacyEvent) and ev.seq > bot.last_seq:
                        self._feed_bot(s, bot, ev)
        finally:
            self._resuming = False
        # Whatever the bots signed that the old host never relayed, again (after start()).
        for s, slot in enumerate(self.seats):
            bot = slot.bot
            if bot is not None and bot.pending and self.game is not None:
                for signed in bot.pending:
                    self.inbox.put_nowait((s, signed.command(bot.next_id)))
                    bot.next_id += 1
        if self.game is not None and self.game.all_revealed():
            # Every key was in, and the crash came before the game's end was told: its record
            # and its end now (`_finish_game`, from the loop).
            self.inbox.put_nowait((self._finish_game, None))
        self.resumed = True
        self.on_event({"event": "resumed", "seq": self.seq, "game": self.game_number})

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
            self.state = TableState.LOBBY if ev.state is TableState.LOBBY else self.state
        elif isinstance(ev, GameStarted):
            self._drop_finished_games()
            self.state = TableState.PLAYING
            self.game = HostGame(ev)
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
            self.state = TableState.LOBBY
        elif isinstance(ev, TableClosed):
            self.state = TableState.CLOSED

    def rewrite_journal(self) -> None:
        """The journal again from the rebuilt game (the crash may have cut it after a step the
        event log never got); appending goes on from there."""
        g = self.game
        if g is None or self.journal_path is None:
            return
        started = g.started
        with open(self.journal_path, "w", encoding="utf-8") as f:
            f.write(self._journal_header(started))
            for m in g.accepted_log:
                f.write(journal_append("privacy_log", m.to_json()))
            if g.game is not None:
                for a in g.game.log:
                    f.write(journal_action(a))
        self._logged = len(g.accepted_log)
        self._journal = open(self.journal_path, "a", encoding="utf-8")  # noqa: SIM115

    def _write_state(self) -> None:
        """What `resume` needs besides the event log: the table's options and the bots' keys."""
        state = {
            "name": self.o.name,
            "seats": len(self.seats),
            "rules": self.o.rules.non_defaults(),
            "games": self.o.games,
            "port": self.port,
            "record_dir": str(self.o.record_dir),
            "pin": self.o.pin,
            "bot_level": self.o.bot_level,
            "hold": self.o.hold,
            "advertise": self.o.advertise,
            "challenge_window": self.o.challenge_window,
            "bot_delay": self.o.bot_delay,
            "own_seat": self.o.own_seat,
            "journal": str(self.journal_path) if self.journal_path else None,
            "bots": {
                str(s): {"level": slot.bot.level, "key": slot.bot.key.private_bytes().hex()}
                for s, slot in enumerate(self.seats)
                if slot.bot is not None
            },
        }
        path = self.state_dir / STATE_FILE
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(state, f)
        tmp.replace(path)


def read_frames(path: Path) -> list[Message]:
    """The events of an event log (a torn last frame is dropped)."""
    data = path.read_bytes() if path.exists() else b""
    out: list[Message] = []
    decoder = FrameDecoder(MAX_FRAME)
    decoder.receive_data(data)
    while True:
        try:
            frame = decoder.next_frame()
        except RemoteProtocolError:
            break
        if frame is None:
            break
        out.append(message_from_wire(frame))
    return out


class _HeldBack(Exception):
    """A command waits for the challenge window (R-S5); it is answered later."""


class _Joined(Message):
    """Internal marker: a peer finished the handshake."""

    TYPE = "_joined"


def _fields(m: Any) -> dict[str, Any]:
    return {name: getattr(m, name) for name in type(m).SCHEMA}


__all__ = ["HostOptions", "TableHost"]


def _write_record_file(journal_path: Path) -> tuple[Path, list[str] | None]:
    """The finished game's record beside its journal, audited (records.md); its path, and
    the deck in deal order when the audit could decode it.  Pure work on files: a thread."""
    record = read_journal(journal_path.read_text(encoding="utf-8"))
    record.pop("privacy_log", None)
    report = audit(record)
    deck = [str(c) for c in report.deck] if report.deck is not None else None
    if deck is not None:
        record["deck"] = deck
    record["audit"] = "clean" if report.clean else [str(f) for f in report.faults]
    ordered: dict[str, Any] = {
        k: record[k]
        for k in ("format", "rules", "seats", "names", "dealer", "previous", "deck", "actions")
        if k in record
    }
    ordered.update((k, v) for k, v in record.items() if k not in ordered)
    path = journal_path.with_suffix(".json")
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(ordered, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path, deck


def _wake() -> None:
    """An inbox item that only wakes the host's loop (its bots think after each item)."""


def _fsync_all(fds: list[int]) -> None:
    for fd in fds:
        # A file closed meanwhile (the last game's journal) was synced before it closed.
        with contextlib.suppress(OSError):
            os.fsync(fd)


def table_state(journal: Path) -> tuple[Path, dict[str, Any]]:
    """The state directory of ``journal``'s table and what it saved there (`_write_state`);
    ``journal`` may be the finished record beside it.  OSError or ValueError when unreadable."""
    if journal.suffix == ".json" and journal.with_suffix(".journal").exists():
        journal = journal.with_suffix(".journal")  # the record's journal beside it
    head = read_journal(journal.read_text(encoding="utf-8"))
    table = head.get("table")
    if not isinstance(table, dict) or not isinstance(table.get("state"), str):
        raise ValueError("this journal does not say where its table keeps its state")
    state_dir = Path(table["state"])
    state = json.loads((state_dir / STATE_FILE).read_text(encoding="utf-8"))
    if not isinstance(state, dict):
        raise ValueError("the table's saved state is not an object")
    return state_dir, state


def resume_table(
    identity: Identity, journal: Path, *, on_event: EventSink | None = None
) -> TableHost:
    """A host that crashed picks its table up again (``localdurak host --resume JOURNAL``):
    the table's options and bots' keys from its state directory, every event again from its
    event log (through the same checks), each bot's saved seat; then it listens on the same
    port and the players' clients come back by themselves."""
    state_dir, state = table_state(journal)
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
        challenge_window=state.get("challenge_window", CHALLENGE_WINDOW),
        bot_delay=state.get("bot_delay", 0.0),
        advertise=state.get("advertise", True),
        own_seat=bool(state.get("own_seat", False)),
    )
    host = TableHost(identity, options, on_event=on_event)
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
    host.replay_events()
    if state.get("journal"):
        host.journal_path = Path(state["journal"])
    host.rewrite_journal()
    return host
