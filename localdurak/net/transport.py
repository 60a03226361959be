"""TLS 1.3 connections that carry protocol messages, and the handshake (docs/protocol.md §3).

- The host serves TLS 1.3 with its device certificate (`serve`).
- A client connects (`connect`), reads the host's certificate and compares its SHA-256 with
  the fingerprint it was given (from mDNS or from the person) *before it sends a byte*; a
  mismatch raises `FingerprintMismatch`.  No CA is involved: the certificate is pinned.
- `client_handshake` / `host_handshake` run hello → welcome → auth → authed: versions are
  negotiated, the client signs the host's nonce bound to the host's fingerprint, the host
  checks the signature and the table PIN (`PinGate`, with limited attempts) and lets the
  session decide whether the player may sit (`admit`).
- A `Channel` is one such connection: ``await send(message)``, ``await recv()``.  It answers
  pings by itself and `keepalive` pings a quiet peer and hangs up on a silent one.

Every error a peer can cause is a `ProtocolError`; a closed connection is `ConnectionClosed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
import ssl
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from localdurak.net.identity import (
    Identity,
    cert_public_key,
    fingerprint_of,
    normalize_fingerprint,
    sign_auth,
    verify_auth,
)
from localdurak.protocol.connection import Connection
from localdurak.protocol.errors import (
    AuthFailed,
    BadMessage,
    BadPin,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
    TooManyAttempts,
)
from localdurak.protocol.messages import (
    FEATURES,
    PROTOCOL_VERSION,
    Auth,
    Authed,
    Bye,
    Error,
    Hello,
    Message,
    Ping,
    Pong,
    Role,
    TableState,
    Welcome,
    check_version,
    encode_message,
)

log = logging.getLogger(__name__)

DEFAULT_PORT: Final = 47823
"""The fixed default port, so a firewall rule can name it (lan.md "firewalls")."""

HANDSHAKE_TIMEOUT: Final = 10.0
"""Seconds a peer gets to finish the handshake before it is dropped."""

READ_CHUNK: Final = 64 * 1024

SHUTDOWN_WAIT: Final = 1.0
"""Seconds a closing connection waits for the peer's side of the TLS close before it is cut
(asyncio waits 30 s by default: a dead link's seat was marked away only ~47 s after the cut,
past the 15 s lan.md promises)."""


class ConnectionClosed(ConnectionError):
    """The peer closed the connection (or it broke).  ``reason`` says how, when known."""

    def __init__(self, reason: str = "the connection was closed") -> None:
        super().__init__(reason)
        self.reason = reason


def _why(e: BaseException) -> str:
    """An OS error's reason for a person: its text, its errno's name, or its kind (a bare
    ``ConnectionResetError()`` says nothing: "the connection broke while sending:" ended
    with an empty reason)."""
    text = str(e)
    if text:
        return text
    strerror = getattr(e, "strerror", None)
    if strerror:
        return str(strerror)
    return {
        "ConnectionResetError": "the other side reset the connection",
        "BrokenPipeError": "the other side closed the connection",
        "ConnectionAbortedError": "the connection was aborted",
    }.get(type(e).__name__, type(e).__name__)


class FingerprintMismatch(AuthFailed):
    """The host's certificate is not the one we were told to expect; ``actual`` is the
    fingerprint it showed (the client's pinning says what changed)."""

    actual: str | None = None


class PortInUse(OSError):
    """The port to listen on cannot be bound; the message names it."""


def server_context(identity: Identity) -> ssl.SSLContext:
    """TLS 1.3 only, with the device certificate; clients are identified by signature, so
    no client certificate is asked for (CPython #75425)."""
    if identity.cert_path is None or identity.key_path is None:
        raise ValueError("an ephemeral identity cannot serve TLS: use identity.load_or_create")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.load_cert_chain(identity.cert_path, identity.key_path)
    return ctx


def client_context() -> ssl.SSLContext:
    """TLS 1.3 only, no CA verification: the certificate is pinned by fingerprint instead
    (`connect` checks it before anything is sent)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


class Channel:
    """One TLS connection carrying protocol messages, for either role.

    ``peer_fingerprint`` is the host certificate's fingerprint (on a client's channel);
    ``peer_key`` the peer's public key: on a client's channel the key in the host's pinned
    certificate, on the host's once the client has proven it in the handshake.  Both sides
    can show ``pairing_code(own key, peer_key)``.

    One task reads (``recv``); any number may ``send`` (sends are serialized)."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        role: Role,
        *,
        peer_fingerprint: str | None = None,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.connection = Connection(role)
        self.role = role
        self.peer_fingerprint = peer_fingerprint
        self.peer_key: bytes | None = None
        self.peer_name: str | None = None
        peer = writer.get_extra_info("peername")
        self.peer_address: str = f"{peer[0]}:{peer[1]}" if peer else "?"
        self.last_received = time.monotonic()
        self._ping_nonce = 0
        self._send_lock = asyncio.Lock()
        self.closed = False

    async def send(self, message: Message) -> None:
        """Send one message (validated by the protocol's state machine first)."""
        if self.closed:
            raise ConnectionClosed("cannot send: the connection is closed")
        data = self.connection.send(message)
        async with self._send_lock:
            try:
                self._writer.write(data)
                await self._writer.drain()
            except (ConnectionError, OSError) as e:
                await self._abort()
                raise ConnectionClosed(f"the connection broke while sending: {_why(e)}") from None

    def write_now(self, messages: list[Message]) -> int:
        """Write ``messages`` at once, in one write, without waiting for the peer to take
        them; returns the bytes still waiting to go (the caller bounds them).  Ordered with
        `send`: a write is never split."""
        if self.closed:
            raise ConnectionClosed("cannot send: the connection is closed")
        data = b"".join(self.connection.send(m) for m in messages)
        try:
            self._writer.write(data)
        except (ConnectionError, OSError, RuntimeError) as e:
            raise ConnectionClosed(f"the connection broke while sending: {_why(e)}") from None
        return self._writer.transport.get_write_buffer_size()

    async def abort(self) -> None:
        """Close at once, without a farewell."""
        await self._abort()

    def cut(self) -> None:
        """Drop the connection at once: no farewell, no TLS close (a peer that stopped
        answering would never answer it).  The reader sees the end of the stream now."""
        self.closed = True
        self.connection.close()
        self._writer.transport.abort()

    async def recv(self, timeout: float | None = None) -> Message:
        """The next message from the peer.  Pings are answered and pongs absorbed here.

        Raises the peer's `ProtocolError` (after answering with an ``error`` message and
        closing: the stream is no longer trustworthy), `ConnectionClosed` at the end of the
        stream, `TimeoutError` after ``timeout`` seconds without a message."""
        while True:
            message = await asyncio.wait_for(self._next(), timeout)
            if isinstance(message, Ping):
                with contextlib.suppress(ConnectionClosed, LocalProtocolError):
                    await self.send(Pong(message.nonce))
                continue
            if isinstance(message, Pong):
                continue
            return message

    async def _next(self) -> Message:
        while True:
            try:
                message = self.connection.next_message()
            except RemoteProtocolError as e:
                await self.close(e)
                raise
            if message is not None:
                self.last_received = time.monotonic()
                return message
            if self.closed:
                raise ConnectionClosed()
            try:
                data = await self._reader.read(READ_CHUNK)
            except (ConnectionError, OSError, ssl.SSLError) as e:
                await self._abort()
                raise ConnectionClosed(f"the connection broke: {e}") from None
            if not data:
                try:
                    self.connection.receive_data(b"")
                    message = self.connection.next_message()
                except RemoteProtocolError as e:
                    await self._abort()
                    raise ConnectionClosed(f"the peer hung up mid-message ({e})") from None
                if message is not None:
                    return message
                await self._abort()
                raise ConnectionClosed("the peer closed the connection")
            try:
                self.connection.receive_data(data)
            except RemoteProtocolError as e:
                await self.close(e)
                raise

    async def ping(self) -> None:
        self._ping_nonce = (self._ping_nonce + 1) % 2**32
        await self.send(Ping(self._ping_nonce))

    async def close(self, error: ProtocolError | None = None, *, reason: str = "") -> None:
        """Close the connection, first telling the peer why (an ``error`` or a ``bye``)."""
        if self.closed:
            return
        farewell: Message | None = None
        if error is not None:
            farewell = Error.from_exception(error)
        elif reason:
            farewell = Bye(reason)
        if farewell is not None:
            # Written directly, not through the state machine: an error or a bye is valid at
            # any point, even after the peer's data made our side of the connection fail.
            with contextlib.suppress(Exception):
                self._writer.write(encode_message(farewell))
                await asyncio.wait_for(self._writer.drain(), 1.0)
        await self._abort()

    async def _abort(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.connection.close()
        self._writer.close()
        try:
            await asyncio.wait_for(self._writer.wait_closed(), SHUTDOWN_WAIT)
        except Exception:  # no TLS close from the peer in time (a dead link): cut it
            self._writer.transport.abort()


async def connect(
    host: str,
    port: int,
    *,
    fingerprint: str | None,
    timeout: float = 5.0,
) -> Channel:
    """Open a TLS connection to a host and pin its certificate.

    ``fingerprint`` is the SHA-256 the host must present (from its TXT record, or typed by a
    person); ``None`` accepts any certificate — only for `localdurak join --address` without
    a known fingerprint, after which the caller must show `Channel.peer_fingerprint` and the
    pairing code to the person.  A mismatch raises `FingerprintMismatch` before anything has
    been sent over the connection."""
    expected = normalize_fingerprint(fingerprint) if fingerprint is not None else None
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(
                host, port, ssl=client_context(), ssl_shutdown_timeout=SHUTDOWN_WAIT
            ),
            timeout,
        )
    except TimeoutError:
        raise ConnectionClosed(f"no answer from {host}:{port} within {timeout:g} s") from None
    except ssl.SSLError as e:
        raise ConnectionClosed(f"TLS with {host}:{port} failed: {e.reason or e}") from None
    except OSError as e:
        raise ConnectionClosed(f"cannot connect to {host}:{port}: {e.strerror or e}") from None
    except ValueError as e:  # a host name the resolver refuses (a label over 63 letters)
        raise ConnectionClosed(f"cannot connect to {host[:80]}:{port}: {e}") from None
    ssl_object = writer.get_extra_info("ssl_object")
    der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
    if not der:
        writer.close()
        raise FingerprintMismatch(f"{host}:{port} presented no certificate")
    actual = fingerprint_of(der)
    if expected is not None and not hmac.compare_digest(actual, expected):
        writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer.wait_closed(), 1.0)
        mismatch = FingerprintMismatch(
            f"{host}:{port} is not the table it claims to be: its certificate fingerprint is "
            f"{actual[:16]}…, expected {expected[:16]}…; nothing was sent to it"
        )
        mismatch.actual = actual
        raise mismatch
    channel = Channel(reader, writer, Role.CLIENT, peer_fingerprint=actual)
    try:
        # The host's key, for the pairing code both screens show (identity.pairing_code).
        channel.peer_key = cert_public_key(der)
    except AuthFailed:
        await channel.close()
        raise
    return channel


async def connect_any(
    addresses: Sequence[str], port: int, *, fingerprint: str | None, timeout: float = 5.0
) -> Channel:
    """Try every address a table advertised, in order, and return the first connection whose
    certificate matches (lan.md: "a client tries every advertised address").  Raises the
    `FingerprintMismatch` if any address answered with the wrong certificate and none with
    the right one, else the last `ConnectionClosed`."""
    if not addresses:
        raise ConnectionClosed("the table advertised no address")
    mismatch: FingerprintMismatch | None = None
    last: ConnectionClosed | None = None
    for address in addresses:
        try:
            return await connect(address, port, fingerprint=fingerprint, timeout=timeout)
        except FingerprintMismatch as e:
            mismatch = e
        except ConnectionClosed as e:
            last = e
    if mismatch is not None:
        raise mismatch
    assert last is not None
    raise last


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``HOST:PORT``, ``HOST``, ``[v6]:PORT`` or ``v6`` → (host, port), for ``--address``.
    Raises `ValueError` with a message for the person who typed it."""
    t = text.strip()
    host, port_s = t, ""
    if t.startswith("["):
        end = t.find("]")
        if end < 0:
            raise ValueError(f"{text!r}: an IPv6 address in brackets needs its closing ']'")
        host, rest = t[1:end], t[end + 1 :]
        if rest and not rest.startswith(":"):
            raise ValueError(f"{text!r} is not HOST:PORT")
        port_s = rest[1:]
    elif t.count(":") == 1:
        host, port_s = t.split(":")
    if not host:
        raise ValueError(f"{text!r} has no host: write HOST:PORT, e.g. 192.168.1.20:{default_port}")
    if not port_s:
        return host, default_port
    if not port_s.isdigit() or not 0 < int(port_s) < 65536:
        raise ValueError(f"{text!r}: the port must be a number from 1 to 65535")
    return host, int(port_s)


async def _expect(channel: Channel, kind: type[Message], timeout: float) -> Message:
    """The next message, which must be ``kind``; an ``error`` from the peer is raised as the
    `ProtocolError` it stands for."""
    try:
        message = await channel.recv(timeout)
    except TimeoutError:
        await channel.close(BadMessage(f"no {kind.TYPE!r} within {timeout:g} s"))
        raise ConnectionClosed(f"the peer sent no {kind.TYPE!r} within {timeout:g} s") from None
    if isinstance(message, Error):
        await channel.close()
        raise message.exception()
    if isinstance(message, Bye):
        await channel.close()
        raise ConnectionClosed(f"the peer left: {message.reason}")
    if not isinstance(message, kind):
        error = BadMessage(f"expected {kind.TYPE!r}, got {message.TYPE!r}")
        await channel.close(error)
        raise error
    return message


async def client_handshake(
    channel: Channel,
    identity: Identity,
    *,
    name: str,
    pin: str | None = None,
    software: str = "localdurak",
    timeout: float = HANDSHAKE_TIMEOUT,
) -> tuple[Welcome, Authed]:
    """Run the client's side of the handshake; raises the host's refusal as its
    `ProtocolError` (`BadPin`, `TableFull`, `VersionTooNew`, ...)."""
    assert channel.peer_fingerprint is not None
    await channel.send(Hello(software=software))
    welcome = await _expect(channel, Welcome, timeout)
    assert isinstance(welcome, Welcome)
    try:
        check_version(welcome.version, welcome.version, at_host=False)
    except RemoteProtocolError as e:
        await channel.close(e)
        raise
    sig = sign_auth(identity, welcome.nonce, channel.peer_fingerprint)
    await channel.send(Auth(key=identity.public_key, sig=sig, name=name, pin=pin))
    authed = await _expect(channel, Authed, timeout)
    assert isinstance(authed, Authed)
    return welcome, authed


@dataclass
class PinGate:
    """The table PIN with limited attempts (lan.md "Limit PIN attempts").

    A key gets ``per_key`` wrong guesses; the whole table ``total`` (new keys are free to
    make, so the total is what bounds guessing: with a 4-digit PIN and the default 10, a
    stranger's chance is 0.1 %).  After that, new players are refused with
    `TooManyAttempts` until the host starts the table again; players already known to the
    table (reconnecting) are not asked for the PIN."""

    pin: str | None = None
    per_key: int = 3
    total: int = 10
    failures: dict[bytes, int] = field(default_factory=dict)
    total_failures: int = 0

    @property
    def required(self) -> bool:
        return self.pin is not None

    def check(self, key: bytes, given: str | None, *, known: bool = False) -> None:
        if self.pin is None or known:
            return
        if self.total_failures >= self.total or self.failures.get(key, 0) >= self.per_key:
            raise TooManyAttempts("too many wrong PINs at this table: ask the host to restart it")
        if given is not None and hmac.compare_digest(given.encode(), self.pin.encode()):
            return
        self.failures[key] = self.failures.get(key, 0) + 1
        self.total_failures += 1
        left = min(self.per_key - self.failures[key], self.total - self.total_failures)
        what = "needs a PIN" if given is None else "wrong PIN"
        raise BadPin(f"this table {what}: ask the host for it ({left} attempt(s) left)")


Admit = Callable[[Channel, Auth], Awaitable[Authed]]
"""The session's decision on an authenticated player: return the `Authed` to send (with the
seat it holds, if any) or raise a `ProtocolError` (`TableFull`, ...)."""


async def host_handshake(
    channel: Channel,
    identity: Identity,
    *,
    table: str,
    admit: Admit,
    pin_gate: PinGate | None = None,
    known_key: Callable[[bytes], bool] = lambda key: False,
    state: TableState = TableState.LOBBY,
    timeout: float = HANDSHAKE_TIMEOUT,
    nonce: bytes | None = None,
) -> tuple[Auth, Authed]:
    """Run the host's side of the handshake on a fresh connection.

    On any refusal the client is told why (an ``error`` message) and the connection closed;
    the `ProtocolError` is raised to the caller too.  ``known_key`` says whether a key already
    belongs to the table (a reconnect skips the PIN)."""
    gate = pin_gate if pin_gate is not None else PinGate()
    try:
        hello = await _expect(channel, Hello, timeout)
        assert isinstance(hello, Hello)
        version = check_version(hello.version, hello.min_version)
        nonce = nonce if nonce is not None else os.urandom(32)
        await channel.send(
            Welcome(
                version=version,
                features=tuple(sorted(FEATURES & set(hello.features))),
                nonce=nonce,
                table=table,
                pin_required=gate.required,
                state=state,
            )
        )
        auth = await _expect(channel, Auth, timeout)
        assert isinstance(auth, Auth)
        verify_auth(auth.key, auth.sig, nonce, identity.fingerprint)
        gate.check(auth.key, auth.pin, known=known_key(auth.key))
        channel.peer_key, channel.peer_name = auth.key, auth.name
        authed = await admit(channel, auth)
        await channel.send(authed)
    except RemoteProtocolError as e:
        if not channel.closed:
            await channel.close(e)
        raise
    return auth, authed


class _Memory:
    """Let the memory of closed connections go back to the system (glibc only; nothing
    elsewhere, and nothing with ``LOCALDURAK_MALLOC=default``, the benchmark's "before").

    asyncio's TLS gives every connection a 256 KiB read buffer.  glibc serves blocks that
    large by mmap until the first one is freed, then raises its mmap threshold to their size
    and carves them from the heap instead, which it seldom gives back: a host's memory went
    from 46.7 to 108.6 MB after 200 + 200 connections at once and stayed there (no Python
    object outlived its connection: tracemalloc saw ~100 KB).  A fixed threshold keeps them
    mmapped, returned when freed; a trim a moment after connections closed gives back the
    heap's free pages (benchmarks/net_memory.py)."""

    TRIM_AFTER_S = 2.0

    def __init__(self) -> None:
        self._libc: Any = None
        self._trim: asyncio.TimerHandle | None = None
        if os.environ.get("LOCALDURAK_MALLOC") == "default" or not sys.platform.startswith("linux"):
            return
        import ctypes
        import ctypes.util

        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            libc.mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD, fixed
            libc.malloc_trim  # noqa: B018 (glibc's; musl has neither)
        except (OSError, AttributeError):
            return
        self._libc = libc

    def closed_one(self) -> None:
        """A connection closed: trim once the burst it belongs to is over."""
        if self._libc is None:
            return
        if self._trim is not None:
            self._trim.cancel()
        self._trim = asyncio.get_running_loop().call_later(self.TRIM_AFTER_S, self._trim_now)

    def _trim_now(self) -> None:
        self._trim = None
        self._libc.malloc_trim(0)


_memory: _Memory | None = None


async def serve(
    identity: Identity,
    on_channel: Callable[[Channel], Awaitable[None]],
    *,
    host: str = "0.0.0.0",
    port: int = DEFAULT_PORT,
) -> asyncio.Server:
    """Listen for players.  ``on_channel`` runs once per TLS connection (it usually calls
    `host_handshake` first); when it returns, the connection is closed.

    A port that cannot be bound raises `PortInUse` naming it (lan.md "firewalls")."""
    ctx = server_context(identity)
    global _memory
    if _memory is None:
        _memory = _Memory()
    memory = _memory

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        channel = Channel(reader, writer, Role.HOST)
        try:
            await on_channel(channel)
        except (ConnectionClosed, RemoteProtocolError, TimeoutError) as e:
            log.info("connection from %s ended: %s", channel.peer_address, e)
        except Exception:
            log.exception("connection from %s failed", channel.peer_address)
        finally:
            await channel.close()
            memory.closed_one()

    try:
        return await asyncio.start_server(
            handle,
            host,
            port,
            ssl=ctx,
            ssl_handshake_timeout=HANDSHAKE_TIMEOUT,
            ssl_shutdown_timeout=SHUTDOWN_WAIT,
        )
    except OSError as e:
        raise PortInUse(
            f"cannot listen on {host}:{port}: {e.strerror or e}; choose another port with --port"
        ) from None


def bound_port(server: asyncio.Server) -> int:
    """The TCP port a server listens on (useful with ``port=0``)."""
    port: int = server.sockets[0].getsockname()[1]
    return port


async def keepalive(channel: Channel, *, interval: float = 5.0, misses: int = 3) -> None:
    """Ping the peer whenever it has been quiet for ``interval`` seconds; after
    ``misses × interval`` seconds of silence (15 s by default, lan.md "Keepalive") drop the
    channel at once (`Channel.cut`: a dead link answers no TLS close either).

    Run it as a task beside the reader loop: ``recv`` answers pings and records when the
    peer was last heard.  Returns when the channel closes."""
    give_up = interval * misses
    pinged = 0.0
    while not channel.closed:
        now = time.monotonic()
        heard = channel.last_received
        if now - heard >= give_up:
            log.info("%s silent for %.1f s: dropping it", channel.peer_address, now - heard)
            with contextlib.suppress(Exception):  # the farewell, if anything still goes out
                channel.write_now([Bye("no answer to pings")])
            channel.cut()
            return
        since = max(heard, pinged)
        if now - since >= interval:
            pinged = now
            try:
                await channel.ping()
            except (ConnectionClosed, LocalProtocolError):
                return
            continue
        # Wake when the next ping is due, or when the silence reaches the limit.
        await asyncio.sleep(max(0.01, min(heard + give_up, since + interval) - now))


__all__ = [
    "DEFAULT_PORT",
    "PROTOCOL_VERSION",
    "Channel",
    "ConnectionClosed",
    "FingerprintMismatch",
    "PinGate",
    "PortInUse",
    "bound_port",
    "client_handshake",
    "connect",
    "connect_any",
    "host_handshake",
    "keepalive",
    "parse_address",
    "serve",
]
