"""Suite 1, hostile input: a seeded mutation fuzzer against a live host while a game runs.

The table: a `TableHost` on loopback (advertising off) with one host-side bot and two
`ClientSession` seats whose moves a random bot picks.  The seats are driven step by step:
between two moves the table is quiet, the fuzzer sends a burst of hostile input from several
connections at once, and the host's state (event counter, event log, the public game state)
must be exactly what it was before the burst.  Then one honest move, and so on until the game
ends; a series of games is played when the game ends before the messages are all sent.

Hostile input, each kind with the refusal it must get (docs/protocol.md §8):
- ``raw``: random bytes on a plain TCP connection (no TLS): the TLS layer hangs up;
- ``junk``: a TLS connection, then a frame of random bytes: ``bad_frame`` / ``bad_message``;
- ``oversize``: a length prefix above the 8 KiB limit before authentication: ``bad_frame``;
- ``hello``: a mutated ``hello`` (fields dropped, added, replaced by random values of random
  types, or bytes flipped): ``bad_message`` / ``bad_frame`` / ``too_new`` / ``too_old``, or,
  when the mutation left it valid, a ``welcome`` and then a mutated ``auth``: ``auth_failed``
  / ``bad_message`` / ``bad_frame``;
- ``early``: a command before authenticating: ``bad_message``;
- ``command`` (on a seated player's connection): the owner's commands ``forbidden``, another
  seat ``table_full``, leaving mid-game ``unavailable``, a signed take/pass its seat may not
  make ``not_your_turn`` / ``illegal_move`` — none of these closes the connection;
- ``hard`` (rarely, on a seated connection): a broken frame: ``bad_frame``, the connection
  closed; the session reconnects by itself and the game goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import struct
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgpack

from localdurak.game.actions import Do
from localdurak.game.bots import make_bot
from localdurak.game.rules import Rules
from localdurak.net import transport as tr
from localdurak.net.client import Address, ClientSession
from localdurak.net.host import HostOptions, TableHost
from localdurak.net.identity import load_or_create
from localdurak.protocol import messages as m
from localdurak.protocol.codec import encode_frame
from localdurak.protocol.errors import ErrorCode, ProtocolError
from localdurak.protocol.messages import TableState
from tests.soak.common import check_record, fds, rss_kib

EXPECTED: dict[str, set[str]] = {
    "raw": {"tls"},
    "junk": {ErrorCode.BAD_FRAME, ErrorCode.BAD_MESSAGE},
    "oversize": {ErrorCode.BAD_FRAME},
    "hello": {
        ErrorCode.BAD_FRAME,
        ErrorCode.BAD_MESSAGE,
        ErrorCode.TOO_NEW,
        ErrorCode.TOO_OLD,
        ErrorCode.AUTH_FAILED,
    },
    "early": {ErrorCode.BAD_MESSAGE},
    "command": {
        ErrorCode.FORBIDDEN,
        ErrorCode.TABLE_FULL,
        ErrorCode.UNAVAILABLE,
        ErrorCode.NOT_YOUR_TURN,
        ErrorCode.ILLEGAL_MOVE,
    },
    "hard": {ErrorCode.BAD_FRAME},
}
WEIGHTS = {"raw": 3, "junk": 10, "oversize": 3, "hello": 20, "early": 4, "command": 60}


class _Errors(logging.Handler):
    """Counts ERROR records (a handler that failed: ``log.exception`` in the host)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    k = rng.randrange(9 if depth < 2 else 6)
    if k == 0:
        return None
    if k == 1:
        return rng.choice([True, False])
    if k == 2:
        return rng.choice([0, -1, 1, 2**31, -(2**63), 2**64 - 1, rng.randrange(-1000, 1000)])
    if k == 3:
        return rng.random() * 10 ** rng.randrange(-3, 30)
    if k == 4:
        return "".join(chr(rng.randrange(1, 0x2FFF)) for _ in range(rng.randrange(0, 40)))
    if k == 5:
        return rng.randbytes(rng.randrange(0, 80))
    if k == 6:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(0, 5))]
    if k == 7:
        return {
            rng.choice(["t", "id", "seat", "key", "x", str(rng.random())]): _random_value(
                rng, depth + 1
            )
            for _ in range(rng.randrange(0, 5))
        }
    return rng.choice(["hello", "auth", "ready", "privacy", "resume", "error", ""])


def _mutate(rng: random.Random, value: dict[str, Any]) -> bytes:
    """A mutated encoding of a message dictionary."""
    d = dict(value)
    for _ in range(rng.randrange(1, 4)):
        op = rng.randrange(4)
        keys = list(d)
        if op == 0 and keys:
            del d[rng.choice(keys)]
        elif op == 1:
            d[rng.choice([*keys, "extra", "zz"])] = _random_value(rng)
        elif op == 2 and keys:
            d[rng.choice(keys)] = _random_value(rng)
    body = bytearray(msgpack.packb(d, use_bin_type=True))
    if rng.random() < 0.3 and body:
        for _ in range(rng.randrange(1, 4)):
            body[rng.randrange(len(body))] ^= 1 << rng.randrange(8)
    return struct.pack(">I", len(body)) + bytes(body)


async def _read_frame(reader: asyncio.StreamReader, timeout: float = 10) -> dict[str, Any] | None:
    try:
        head = await asyncio.wait_for(reader.readexactly(4), timeout)
        body = await asyncio.wait_for(reader.readexactly(struct.unpack(">I", head)[0]), timeout)
    except (asyncio.IncompleteReadError, ConnectionError, OSError):
        return None
    frame: dict[str, Any] = msgpack.unpackb(body, raw=False)
    return frame


async def _closed(reader: asyncio.StreamReader, timeout: float = 10) -> bool:
    try:
        rest = await asyncio.wait_for(reader.read(), timeout)
    except (ConnectionError, OSError):
        return True
    return rest == b""


class Fuzzer:
    def __init__(self, port: int, sessions: list[ClientSession], seed: int) -> None:
        self.port = port
        self.sessions = sessions
        self.rng = random.Random(seed)
        self.codes: Counter[str] = Counter()
        self.kinds: Counter[str] = Counter()
        self.sent = 0
        self.unanswered: list[str] = []
        self.wrong: list[str] = []

    def _answer(self, kind: str, code: str | None, message: str = "?") -> None:
        if code is None:
            self.unanswered.append(kind)
            return
        self.codes[code] += 1
        if code not in EXPECTED[kind] or not message:
            self.wrong.append(f"{kind}: {code} {message!r}")

    async def _tls(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection("127.0.0.1", self.port, ssl=tr.client_context())

    async def one(self, kind: str) -> None:
        rng = self.rng
        self.kinds[kind] += 1
        if kind == "raw":
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            writer.write(rng.randbytes(rng.randrange(1, 600)))
            self.sent += 1
            self._answer(kind, "tls" if await _closed(reader) else None)
            writer.close()
            return
        if kind == "command":
            await self._command(rng.choice(self.sessions))
            return
        reader, writer = await self._tls()
        try:
            if kind == "junk":
                body = rng.randbytes(rng.randrange(0, 200))
                writer.write(struct.pack(">I", len(body)) + body)
            elif kind == "oversize":
                writer.write(struct.pack(">I", rng.randrange(8193, 2**32)) + rng.randbytes(64))
            elif kind == "early":
                cmd = rng.choice(
                    [
                        m.Ready(id=1, ready=True),
                        m.Stand(id=1),
                        m.Resume(id=1, last_seq=rng.randrange(100)),
                        m.Sit(id=1, seat=0),
                    ]
                )
                writer.write(encode_frame(m.message_to_wire(cmd)))
            else:
                hello = m.message_to_wire(m.Hello(features=(), software="fuzz"))
                r = rng.random()
                if r < 0.1:  # a well-formed hello from a program too new or too old
                    v = rng.choice([0, rng.randrange(2, 0x10000)])
                    hello.update(version=v, min_version=v)
                    writer.write(encode_frame(hello))
                else:
                    writer.write(_mutate(rng, hello) if r < 0.85 else encode_frame(hello))
            self.sent += 1
            frame = await _read_frame(reader)
            if frame is not None and frame.get("t") == "welcome":
                auth = {
                    "t": "auth",
                    "key": rng.randbytes(32),
                    "sig": rng.randbytes(64),
                    "name": "fuzz",
                    "pin": None,
                }
                writer.write(_mutate(rng, auth) if rng.random() < 0.5 else encode_frame(auth))
                self.sent += 1
                frame = await _read_frame(reader)
            if frame is None or frame.get("t") != "error":
                self._answer(kind, None)
            else:
                self._answer(kind, str(frame.get("code")), str(frame.get("message", "")))
                if not await _closed(reader):
                    self.wrong.append(f"{kind}: the connection stayed open after an error")
        finally:
            writer.close()

    async def _command(self, s: ClientSession) -> None:
        rng = self.rng
        g, seat = s.game, s.my_seat
        assert g is not None and seat is not None
        view = g.view()
        choice = rng.randrange(7)
        make: Any
        step: int | None = None
        if choice == 0:
            seats = rng.randrange(2, 7)
            make = lambda i: m.SetRules(id=i, rules=Rules(), seats=seats)  # noqa: E731
        elif choice == 1:
            level = rng.choice(list(m.BotLevel))
            st = rng.choice([None, 0, 1, 2, 3, 5])
            make = lambda i: m.AddBot(id=i, seat=st, level=level)  # noqa: E731
        elif choice == 2:
            st = rng.randrange(6)
            make = lambda i: m.RemoveBot(id=i, seat=st)  # noqa: E731
        elif choice == 3:
            other = (seat + rng.randrange(1, 3)) % 3
            make = lambda i: m.Sit(id=i, seat=other)  # noqa: E731
        elif choice == 4:
            make = lambda i: m.Stand(id=i)  # noqa: E731
        else:
            legal = {a.do for a in view.legal} if view is not None else set()
            bad = [d for d in (Do.TAKE, Do.PASS) if d not in legal]
            if not bad:
                make = lambda i: m.Stand(id=i)  # noqa: E731
            else:
                signed = g.sign([g.player.act({"seat": seat, "do": rng.choice(bad).value})])
                make = signed.command
                step = signed.n  # its refusal reaches the seat (SeatGame.refused)
        self.sent += 1
        try:
            await asyncio.wait_for(s.send_raw(make, wait=True, n=step), 10)
        except ProtocolError as e:
            self._answer("command", str(e.code), str(e))
        except (ConnectionError, TimeoutError):
            self.unanswered.append("command (connection)")
        else:
            self._answer("command", None)

    async def hard(self, s: ClientSession) -> None:
        """A broken frame on a seated connection: refused and closed; the seat comes back."""
        ch = s.channel
        assert ch is not None
        before = s.reconnects
        errors = len(s.errors)
        self.kinds["hard"] += 1
        ch._writer.write(struct.pack(">I", 3) + b"\xc1\xc1\xc1")  # 0xc1: never used by msgpack
        self.sent += 1
        deadline = time.monotonic() + 20
        while s.reconnects == before and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        new = [e for e in s.errors[errors:] if e.re is None]
        self._answer("hard", str(new[0].code) if new else None, new[0].message if new else "")
        assert s.reconnects > before, "the seat did not come back after a hard refusal"

    async def burst(self, count: int, connections: int) -> None:
        kinds = list(WEIGHTS)
        weights = list(WEIGHTS.values())
        left = [count]

        async def worker() -> None:
            while left[0] > 0:
                left[0] -= 1
                kind = self.rng.choices(kinds, weights)[0]
                try:
                    await self.one(kind)
                except (ConnectionError, OSError, TimeoutError) as e:
                    self.unanswered.append(f"{kind}: {e}")

        await asyncio.gather(*(worker() for _ in range(connections)))


def _in_play(host: TableHost, sessions: list[ClientSession]) -> bool:
    g = host.game
    return (
        host.state is TableState.PLAYING
        and g is not None
        and g.game is not None
        and g.game.result is None
        and all(s.game is not None and s.game.hand_complete() for s in sessions)
    )


def _snapshot(host: TableHost) -> tuple[Any, ...]:
    g = host.game
    public = repr(g.game.view(None)) if g is not None and g.game is not None else None
    return (host.seq, len(host.events), host.state, public, len(host.results))


async def _quiet(host: TableHost, sessions: list[ClientSession], timeout: float = 30) -> None:
    """Until nothing moves: the host's queue empty, its counter still, every seat caught up."""
    deadline = time.monotonic() + timeout
    last, still = -1, 0
    while still < 3:
        if time.monotonic() > deadline:
            raise AssertionError(f"the table did not settle: seq {host.seq}")
        await asyncio.sleep(0.03)
        caught_up = all(
            s.channel is not None and not s.channel.closed and s.last_seq == host.seq
            for s in sessions
        )
        if host.seq == last and host.inbox.empty() and caught_up:
            still += 1
        else:
            last, still = host.seq, 0


async def run_fuzz(
    tmp: Path,
    messages: int,
    *,
    connections: int = 4,
    seed: int = 1,
    hard_every: int = 2000,
    max_games: int = 50,
    progress: bool = False,
) -> dict[str, Any]:
    errors = _Errors()
    logging.getLogger("localdurak").addHandler(errors)
    rng = random.Random(seed)
    host = TableHost(
        load_or_create(tmp / "host"),
        HostOptions(
            name="Fuzzed",
            seats=3,
            bots=1,
            bot_level="random",
            rules=Rules(),
            games=max_games,
            record_dir=tmp / "records",
            port=0,
            advertise=False,
            host="127.0.0.1",
            seed=seed,
        ),
    )
    await host.start()
    run = asyncio.create_task(host.run())
    sessions = []
    for name in ("alice", "bob"):
        s = ClientSession(
            load_or_create(tmp / name),
            name,
            Address("127.0.0.1", host.port, host.identity.fingerprint),
            state_dir=tmp / name / "sessions",
        )
        await s.start()
        sessions.append(s)
    bots = {id(s): make_bot("random", random.Random(rng.getrandbits(32))) for s in sessions}
    fuzzer = Fuzzer(host.port, sessions, seed)
    per_burst = max(20, messages // 60)
    next_hard = hard_every
    snapshots_checked = 0
    rss: list[int] = []
    fd_counts: list[int] = []
    games_seen = 0
    t0 = time.monotonic()
    try:
        while True:
            if len(host.results) > games_seen:
                games_seen = len(host.results)
                if fuzzer.sent >= messages:
                    break
            if host.state is TableState.LOBBY:
                for s in sessions:
                    assert s.my_seat is not None
                    if not host.seats[s.my_seat].ready:
                        with contextlib.suppress(ProtocolError, ConnectionError):
                            await s.set_ready(True)
            if not _in_play(host, sessions):
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(sessions[0].wait_changed(), 0.2)
                continue
            await _quiet(host, sessions)
            if fuzzer.sent < messages:
                if fuzzer.sent >= next_hard:
                    # A dropped connection is news (presence away / back): outside the check.
                    next_hard += hard_every
                    await fuzzer.hard(rng.choice(sessions))
                    await _quiet(host, sessions)
                before = _snapshot(host)
                await fuzzer.burst(min(per_burst, messages - fuzzer.sent), connections)
                for s in sessions:
                    # The seats keep every error the host sent them (ClientSession.errors):
                    # tens of thousands here, our own refused commands; not the host's memory.
                    s.errors.clear()
                await _quiet(host, sessions)
                after = _snapshot(host)
                assert after == before, f"the hostile burst changed the table: {before} {after}"
                snapshots_checked += 1
                if progress:
                    print(f"fuzz: {fuzzer.sent} sent, {time.monotonic() - t0:.0f} s", flush=True)
                rss.append(rss_kib())
                fd_counts.append(fds())
            # One honest move by whichever seat may make one (the host's bot moves by itself).
            movers = [s for s in sessions if s.game and (v := s.game.view()) and v.legal]
            rng.shuffle(movers)
            for s in movers:
                assert s.game is not None
                view = s.game.view()
                assert view is not None
                action = bots[id(s)].choose(view)
                if action is None:
                    continue
                with contextlib.suppress(ProtocolError):
                    await asyncio.wait_for(s.act(action), 30)
                    break
    finally:
        seconds = time.monotonic() - t0
        for s in sessions:
            await s.close()
        host.done.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(run, 30)
        logging.getLogger("localdurak").removeHandler(errors)
    records = [r["record"] for r in host.results]
    for path in records:
        check_record(path)
    warm = len(rss) // 10
    return {
        "messages": fuzzer.sent,
        "seconds": round(seconds, 1),
        "games": len(host.results),
        "bursts_with_state_unchanged": snapshots_checked,
        "kinds": dict(fuzzer.kinds),
        "codes": dict(fuzzer.codes),
        "unanswered": fuzzer.unanswered,
        "wrong": fuzzer.wrong,
        "host_errors": [r.getMessage() for r in errors.records],
        "rss_kib_after_warmup": rss[warm] if rss else None,
        "rss_kib_end": rss[-1] if rss else None,
        "fds_after_warmup": fd_counts[warm] if fd_counts else None,
        "fds_end": fd_counts[-1] if fd_counts else None,
        "records_clean": len(records),
    }
