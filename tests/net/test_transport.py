"""Real TLS on loopback: pinning, the handshake, PINs, hostile frames (lan.md "Trust")."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import struct
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from localdurak.net import identity as idm
from localdurak.net import transport as tr
from localdurak.protocol import messages as m
from localdurak.protocol.codec import encode_frame
from localdurak.protocol.errors import (
    BadPin,
    ErrorCode,
    TableFull,
    TooManyAttempts,
    VersionTooNew,
    VersionTooOld,
)


class Host:
    """A tiny host: runs the handshake, then acks every command and echoes nothing else."""

    def __init__(self, ident: idm.Identity, *, pin: str | None = None, seats: int = 4) -> None:
        self.ident = ident
        self.gate = tr.PinGate(pin)
        self.seats = seats
        self.players: list[bytes] = []
        self.refusals: list[Exception] = []
        self.received: list[m.Message] = []
        self.server: asyncio.Server | None = None

    async def admit(self, channel: tr.Channel, auth: m.Auth) -> m.Authed:
        if auth.key not in self.players:
            if len(self.players) >= self.seats:
                raise TableFull(f"all {self.seats} seats are taken")
            self.players.append(auth.key)
        return m.Authed(player=self.players.index(auth.key), seat=None, seq=0)

    async def on_channel(self, channel: tr.Channel) -> None:
        try:
            await tr.host_handshake(
                channel,
                self.ident,
                table="Test table",
                admit=self.admit,
                pin_gate=self.gate,
                known_key=self.players.__contains__,
            )
        except Exception as e:
            self.refusals.append(e)
            raise
        while True:
            message = await channel.recv()
            self.received.append(message)
            if m.Kind(message.KIND) is m.Kind.COMMAND:
                await channel.send(m.Ack(re=message.id))  # type: ignore[attr-defined]

    @property
    def port(self) -> int:
        assert self.server is not None
        return tr.bound_port(self.server)


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[Host]:
    h = Host(idm.load_or_create(tmp_path / "host"))
    h.server = await tr.serve(h.ident, h.on_channel, host="127.0.0.1", port=0)
    yield h
    h.server.close()
    await h.server.wait_closed()


@pytest.fixture
def player(tmp_path: Path) -> idm.Identity:
    return idm.load_or_create(tmp_path / "player")


async def test_handshake_and_a_command_over_tls(host: Host, player: idm.Identity) -> None:
    ch = await tr.connect("127.0.0.1", host.port, fingerprint=host.ident.fingerprint)
    welcome, authed = await tr.client_handshake(ch, player, name="Ann")
    assert welcome.table == "Test table" and not welcome.pin_required
    assert authed.player == 0
    assert ch.peer_fingerprint == host.ident.fingerprint
    # Both screens can show the same pairing code.
    assert ch.peer_key == host.ident.public_key
    assert idm.pairing_code(player.public_key, ch.peer_key) == idm.pairing_code(
        host.ident.public_key, player.public_key
    )
    await ch.send(m.Sit(id=1))
    ack = await ch.recv(5)
    assert ack == m.Ack(re=1)
    await ch.ping()
    await ch.send(m.Ready(id=2))
    assert await ch.recv(5) == m.Ack(re=2)  # the pong was absorbed on the way
    await ch.close(reason="done")
    await asyncio.sleep(0.05)
    assert [x.TYPE for x in host.received] == ["sit", "ready", "bye"]


async def test_mismatched_fingerprint_refused_before_anything_is_sent(
    host: Host, player: idm.Identity
) -> None:
    with pytest.raises(tr.FingerprintMismatch, match="nothing was sent"):
        await tr.connect("127.0.0.1", host.port, fingerprint="00" * 32)
    await asyncio.sleep(0.1)
    # The host saw a connection that said nothing at all: not even a hello.
    assert host.received == []
    assert all(isinstance(e, tr.ConnectionClosed) for e in host.refusals)


async def test_bad_signature_refused(host: Host, player: idm.Identity) -> None:
    ch = await tr.connect("127.0.0.1", host.port, fingerprint=host.ident.fingerprint)
    await ch.send(m.Hello())
    welcome = await ch.recv(5)
    assert isinstance(welcome, m.Welcome)
    # Signed for another host (a man in the middle would have another fingerprint).
    sig = idm.sign_auth(player, welcome.nonce, "ab" * 32)
    await ch.send(m.Auth(key=player.public_key, sig=sig, name="Mallory"))
    error = await ch.recv(5)
    assert isinstance(error, m.Error) and error.code is ErrorCode.AUTH_FAILED
    assert "does not check out" in error.message
    with pytest.raises(tr.ConnectionClosed):
        await ch.recv(5)
    assert host.players == []


async def test_stranger_without_pin_refused_and_attempts_limited(tmp_path: Path) -> None:
    h = Host(idm.load_or_create(tmp_path / "host"), pin="4711")
    h.gate.per_key = 2
    h.server = await tr.serve(h.ident, h.on_channel, host="127.0.0.1", port=0)
    stranger = idm.load_or_create(tmp_path / "stranger")
    friend = idm.load_or_create(tmp_path / "friend")

    async def join(who: idm.Identity, pin: str | None) -> m.Authed:
        ch = await tr.connect("127.0.0.1", h.port, fingerprint=h.ident.fingerprint)
        try:
            return (await tr.client_handshake(ch, who, name="x", pin=pin))[1]
        finally:
            await ch.close()

    try:
        with pytest.raises(BadPin, match="needs a PIN"):
            await join(stranger, None)
        with pytest.raises(BadPin, match="wrong PIN"):
            await join(stranger, "0000")
        with pytest.raises(TooManyAttempts):
            await join(stranger, "4711")  # even the right PIN: this key used its tries
        assert (await join(friend, "4711")).player == 0
        assert (await join(friend, None)).player == 0  # a known player reconnects without it
        assert h.players == [friend.public_key]
    finally:
        h.server.close()
        await h.server.wait_closed()


async def test_table_full_refused(tmp_path: Path) -> None:
    h = Host(idm.load_or_create(tmp_path / "host"), seats=1)
    h.server = await tr.serve(h.ident, h.on_channel, host="127.0.0.1", port=0)
    try:
        for i, expect in enumerate((None, TableFull)):
            ch = await tr.connect("127.0.0.1", h.port, fingerprint=h.ident.fingerprint)
            who = idm.load_or_create(tmp_path / f"p{i}")
            if expect is None:
                await tr.client_handshake(ch, who, name="x")
            else:
                with pytest.raises(expect, match="seats are taken"):
                    await tr.client_handshake(ch, who, name="y")
            await ch.close()
    finally:
        h.server.close()
        await h.server.wait_closed()


async def raw_tls(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port, ssl=tr.client_context())


async def read_error(reader: asyncio.StreamReader) -> m.Error:
    (n,) = struct.unpack(">I", await reader.readexactly(4))
    from localdurak.protocol.codec import unpack

    message = m.message_from_wire(unpack(await reader.readexactly(n)))
    assert isinstance(message, m.Error)
    assert await reader.read() == b""  # and the host hung up
    return message


@pytest.mark.parametrize(
    ("payload", "code", "why"),
    [
        (
            struct.pack(">I", 9000) + b"x" * 100,
            ErrorCode.BAD_FRAME,
            "larger than the 8192-byte limit",
        ),
        (b"\0\0\0\x03\xc1\xc1\xc1", ErrorCode.BAD_FRAME, "not a msgpack value"),
        (encode_frame({"t": "sit", "id": 1}), ErrorCode.BAD_MESSAGE, "before the handshake"),
        (encode_frame({"t": "hello", "version": "1"}), ErrorCode.BAD_MESSAGE, "whole number"),
        (
            encode_frame(m.message_to_wire(m.Hello(version=0, min_version=0))),
            ErrorCode.TOO_OLD,
            "too old",
        ),
        (
            encode_frame(
                m.message_to_wire(
                    m.Hello(version=m.PROTOCOL_VERSION + 4, min_version=m.PROTOCOL_VERSION + 4)
                )
            ),
            ErrorCode.TOO_NEW,
            "too new",
        ),
    ],
)
async def test_hostile_bytes_refused_with_clear_errors(
    host: Host, payload: bytes, code: ErrorCode, why: str
) -> None:
    reader, writer = await raw_tls(host.port)
    writer.write(payload)
    await writer.drain()
    error = await read_error(reader)
    assert error.code is code and why in error.message
    writer.close()
    # The host carries on: an honest player still gets in.
    await asyncio.sleep(0.05)


async def test_host_survives_hostile_peers(host: Host, player: idm.Identity) -> None:
    for payload in (os.urandom(64), struct.pack(">I", 2**32 - 1), b"\0\0\0\0"):
        reader, writer = await raw_tls(host.port)
        writer.write(payload)
        await writer.drain()
        assert (await read_error(reader)).code is ErrorCode.BAD_FRAME
        writer.close()
    ch = await tr.connect("127.0.0.1", host.port, fingerprint=host.ident.fingerprint)
    _, authed = await tr.client_handshake(ch, player, name="Ann")
    assert authed.player == 0
    await ch.close()


async def test_version_errors_raise_on_the_client(tmp_path: Path) -> None:
    """A client too new for the host gets the host's `too_new` as `VersionTooNew`."""
    h = Host(idm.load_or_create(tmp_path / "host"))
    h.server = await tr.serve(h.ident, h.on_channel, host="127.0.0.1", port=0)
    try:
        ch = await tr.connect("127.0.0.1", h.port, fingerprint=h.ident.fingerprint)
        await ch.send(m.Hello(version=m.PROTOCOL_VERSION + 3, min_version=m.PROTOCOL_VERSION + 1))
        # Read by the client's player: it is the host that must update (the text
        # was written from the host's side, "update this program", and shown as-is).
        with pytest.raises(VersionTooNew, match="the host must update"):
            await tr._expect(ch, m.Welcome, 5)
        ch = await tr.connect("127.0.0.1", h.port, fingerprint=h.ident.fingerprint)
        await ch.send(m.Hello(version=0, min_version=0))
        with pytest.raises(VersionTooOld, match="update Local Durak on your laptop"):
            await tr._expect(ch, m.Welcome, 5)
    finally:
        h.server.close()
        await h.server.wait_closed()


async def test_silent_peer_dropped_by_keepalive(host: Host) -> None:
    dropped = asyncio.Event()

    async def on_channel(channel: tr.Channel) -> None:
        await tr.keepalive(channel, interval=0.1, misses=3)
        dropped.set()

    server = await tr.serve(host.ident, on_channel, host="127.0.0.1", port=0)
    try:
        reader, writer = await raw_tls(tr.bound_port(server))
        # We never answer: the host pings after 0.1 s, gives up after 0.3 s.
        await asyncio.wait_for(dropped.wait(), 3)
        data = await reader.read()
        assert b"ping" in data and b"no answer to pings" in data
        writer.close()
    finally:
        server.close()
        await server.wait_closed()


async def test_answering_peer_kept_alive(host: Host, player: idm.Identity) -> None:
    ch = await tr.connect("127.0.0.1", host.port, fingerprint=host.ident.fingerprint)
    await tr.client_handshake(ch, player, name="Ann")
    task = asyncio.create_task(tr.keepalive(ch, interval=0.05, misses=3))
    reader = asyncio.create_task(ch.recv())  # reading answers the host's pongs to our pings
    await asyncio.sleep(0.4)
    assert not ch.closed
    task.cancel()
    reader.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await ch.close()


async def test_busy_port_named_in_the_error(host: Host) -> None:
    with pytest.raises(tr.PortInUse, match=f"127.0.0.1:{host.port}.*--port"):
        await tr.serve(host.ident, host.on_channel, host="127.0.0.1", port=host.port)


HOST_SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys
    from pathlib import Path
    from localdurak.net import identity as idm, transport as tr
    from localdurak.protocol import messages as m

    async def main():
        ident = idm.load_or_create(Path(sys.argv[1]))
        done = asyncio.Event()

        async def admit(channel, auth):
            return m.Authed(player=7, seat=2, seq=41)

        async def on_channel(channel):
            auth, _ = await tr.host_handshake(channel, ident, table="Proc table", admit=admit)
            msg = await channel.recv(10)
            await channel.send(m.Ack(re=msg.id, seq=42))
            print(json.dumps({"event": "got", "name": auth.name, "type": msg.TYPE}), flush=True)
            done.set()

        server = await tr.serve(ident, on_channel, host="127.0.0.1", port=0)
        print(json.dumps({"event": "listening", "port": tr.bound_port(server),
                          "fingerprint": ident.fingerprint}), flush=True)
        await asyncio.wait_for(done.wait(), 20)
        server.close()

    asyncio.run(main())
    """
)


async def test_client_and_host_in_separate_processes(tmp_path: Path, player: idm.Identity) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        HOST_SCRIPT,
        str(tmp_path / "proc-host"),
        stdout=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert proc.stdout is not None
        line = json.loads(await asyncio.wait_for(proc.stdout.readline(), 20))
        assert line["event"] == "listening"
        ch = await tr.connect("127.0.0.1", line["port"], fingerprint=line["fingerprint"])
        welcome, authed = await tr.client_handshake(ch, player, name="Cy")
        assert welcome.table == "Proc table" and authed == m.Authed(player=7, seat=2, seq=41)
        await ch.send(m.Ready(id=1))
        assert await ch.recv(10) == m.Ack(re=1, seq=42)
        got = json.loads(await asyncio.wait_for(proc.stdout.readline(), 10))
        assert got == {"event": "got", "name": "Cy", "type": "ready"}
        await ch.close()
        assert await asyncio.wait_for(proc.wait(), 10) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_connect_any_tries_every_advertised_address(host: Host) -> None:
    # 127.0.0.2 is loopback too, but nothing listens there: refused, then the next works.
    ch = await tr.connect_any(
        ["127.0.0.2", "127.0.0.1"], host.port, fingerprint=host.ident.fingerprint
    )
    assert ch.peer_fingerprint == host.ident.fingerprint
    await ch.close()
    with pytest.raises(tr.FingerprintMismatch):
        await tr.connect_any(["127.0.0.1", "127.0.0.2"], host.port, fingerprint="11" * 32)
    with pytest.raises(tr.ConnectionClosed, match=r"cannot connect to 127\.0\.0\.2"):
        await tr.connect_any(["127.0.0.2"], host.port, fingerprint=None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("192.0.2.10:5000", ("192.0.2.10", 5000)),
        ("192.0.2.10", ("192.0.2.10", tr.DEFAULT_PORT)),
        ("anna-laptop.local:47823", ("anna-laptop.local", 47823)),
        ("[2001:db8::1]:9", ("2001:db8::1", 9)),
        ("2001:db8::1", ("2001:db8::1", tr.DEFAULT_PORT)),
    ],
)
def test_parse_address(text: str, expected: tuple[str, int]) -> None:
    assert tr.parse_address(text) == expected


@pytest.mark.parametrize("text", [":80", "host:0", "host:http", "[::1", "host:70000"])
def test_parse_address_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        tr.parse_address(text)
