"""Frames on the wire: a 4-byte big-endian length, then one msgpack value (docs/protocol.md §1).

Sans-I/O, h11 style: `FrameDecoder.receive_data(bytes)` takes whatever the socket gave,
`FrameDecoder.next_frame()` hands back one decoded msgpack value at a time (or ``None`` when
it needs more bytes).  `encode_frame(value)` is the way out.

Why not a streaming ``msgpack.Unpacker``: an Unpacker that raised is not reusable, and it
buffers as much as the peer sends before it knows how large a value is.  The length prefix
lets us refuse an oversized frame from its first four bytes, before buffering any of it, and
each frame is decoded on its own with `msgpack.unpackb` (lan.md "Read at most a small frame
before the hello").  After any error the decoder is dead and the connection must be dropped:
the byte stream can no longer be trusted to be in step.

Everything the peer may cause raises `BadFrame` (a `RemoteProtocolError`), never another type.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from typing import Any, Final

import msgpack

from localdurak.protocol.errors import BadFrame, BadMessage

HEADER: Final = struct.Struct(">I")
"""The length prefix: 4 bytes, big-endian, the number of payload bytes that follow."""

MAX_FRAME_BEFORE_AUTH: Final = 8 * 1024
"""Largest frame accepted from a peer that has not finished the hello and authentication.

A stranger on the network gets this much and no more (KDE Connect reads 8 KiB before trust)."""

MAX_FRAME: Final = 1024 * 1024
"""Largest frame accepted after authentication.  The biggest honest message is a snapshot
of a 6-player, 52-card game with its card-privacy transcript: a few hundred KiB at most."""

MAX_DEPTH: Final = 32
"""Deepest nesting of arrays and maps accepted inside a message."""

_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**64 - 1


# --- encoding ---------------------------------------------------------------------------


def pack(value: Any) -> bytes:
    """msgpack bytes of a plain value (str as str, bytes as bin; never an ext type)."""
    try:
        return msgpack.packb(value, use_bin_type=True, strict_types=False, datetime=False)  # type: ignore[no-any-return]
    except (TypeError, ValueError, OverflowError) as e:
        raise BadMessage(f"cannot encode {type(value).__name__}: {e}") from None


def encode_frame(value: Any, *, max_frame: int = MAX_FRAME) -> bytes:
    """One frame: the length prefix and the msgpack bytes of ``value``."""
    body = pack(value)
    if len(body) > max_frame:
        raise BadFrame(f"a frame of {len(body)} bytes is larger than the {max_frame}-byte limit")
    return HEADER.pack(len(body)) + body


def canonical(value: Any) -> bytes:
    """A deterministic encoding for signatures: maps with their keys sorted, recursively.

    Two parties that hold equal plain values get equal bytes, whatever order a map was built
    in, so a signature made by a player still checks after the host relays the value.
    """
    return pack(_sorted(value))


_LEAF: Final = frozenset({str, bytes, int, bool, float, type(None)})
"""Types `_sorted` gives back as they are, by exact type, without a call."""


def _sorted(value: Any) -> Any:
    # By exact type first: every client checks the signature of every relayed step on its
    # way to the screen, and the `isinstance` checks against `Mapping` (an ABC) made a step's
    # signed payload 10.8 us instead of 4.6 (warm; a few per cent of a seat's work per step).
    # Anything else (a mapping of another type, a subclass) takes the general path; the
    # bytes are the same (tests/protocol/test_codec.py).
    t = type(value)
    if t in _LEAF:
        return value
    if t is list or t is tuple:
        return [v if type(v) in _LEAF else _sorted(v) for v in value]
    if t is dict:
        return {k: v if type(v := value[k]) in _LEAF else _sorted(v) for k in sorted(value)}
    if isinstance(value, Mapping):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return [_sorted(v) for v in value]
    return value


# --- decoding ---------------------------------------------------------------------------


def _refuse_ext(code: int, data: bytes) -> Any:
    raise BadFrame(f"msgpack extension type {code} is not allowed")


def unpack(body: bytes) -> Any:
    """Decode one msgpack value that must fill ``body`` exactly; only `BadFrame` escapes."""
    try:
        value = msgpack.unpackb(
            body,
            raw=False,  # str must be UTF-8
            strict_map_key=True,  # map keys are str or bytes only (checked again below)
            ext_hook=_refuse_ext,
            timestamp=0,
            use_list=True,
        )
    except BadFrame:
        raise
    except Exception as e:  # msgpack raises several types (ValueError, ExtraData, ...)
        raise BadFrame(f"not a msgpack value: {type(e).__name__}: {e}") from None
    check_plain(value)
    return value


def check_plain(value: Any, *, max_depth: int = MAX_DEPTH) -> None:
    """Refuse anything but nil, bool, int, finite float, str, bin, arrays and str-keyed maps.

    Iterative, so that a deeply nested value cannot exhaust the Python stack.
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if v is None or isinstance(v, bool | int | str | bytes):
            if isinstance(v, int) and not isinstance(v, bool) and not _INT_MIN <= v <= _INT_MAX:
                raise BadFrame("an integer outside the 64-bit range")
            continue
        if isinstance(v, float):
            if not math.isfinite(v):
                raise BadFrame("a float that is not a finite number")
            continue
        if depth >= max_depth:
            raise BadFrame(f"values nested deeper than {max_depth} levels")
        if isinstance(v, list):
            stack.extend((item, depth + 1) for item in v)
        elif isinstance(v, dict):
            for k, item in v.items():
                if not isinstance(k, str):
                    raise BadFrame(f"a map key must be a string, not {type(k).__name__}")
                stack.append((item, depth + 1))
        else:
            raise BadFrame(f"a value of type {type(v).__name__} is not allowed")


class FrameDecoder:
    """Turns received bytes into msgpack maps, one frame at a time (sans-I/O).

    >>> d = FrameDecoder()
    >>> d.receive_data(encode_frame({"t": "ping", "nonce": 1}))
    >>> d.next_frame()
    {'t': 'ping', 'nonce': 1}
    >>> d.next_frame() is None
    True

    ``max_frame`` starts at `MAX_FRAME_BEFORE_AUTH`; the connection raises it to `MAX_FRAME`
    once the peer is authenticated.  ``receive_data(b"")`` means the peer closed: a partial
    frame left in the buffer is then an error.  After any `BadFrame` the decoder refuses
    everything: drop the connection.
    """

    def __init__(self, max_frame: int = MAX_FRAME_BEFORE_AUTH) -> None:
        self.max_frame = max_frame
        self._buffer = bytearray()
        self._eof = False
        self._failed: BadFrame | None = None

    @property
    def buffered(self) -> int:
        """Bytes received and not yet consumed."""
        return len(self._buffer)

    @property
    def failed(self) -> bool:
        return self._failed is not None

    def receive_data(self, data: bytes) -> None:
        if self._failed is not None:
            raise self._failed
        if self._eof and data:
            raise self._fail(BadFrame("data after the end of the stream"))
        if not data:
            self._eof = True
            return
        self._buffer += data

    def next_frame(self) -> dict[str, Any] | None:
        """The next frame's map, or ``None`` when more bytes are needed.

        A frame always holds one msgpack map (every message is one, §1); anything else is
        a `BadFrame`."""
        if self._failed is not None:
            raise self._failed
        if len(self._buffer) < HEADER.size:
            if self._eof and self._buffer:
                raise self._fail(BadFrame("the stream ended inside a frame's length prefix"))
            return None
        (length,) = HEADER.unpack_from(self._buffer)
        if length == 0:
            raise self._fail(BadFrame("an empty frame"))
        if length > self.max_frame:
            # Refused from the prefix alone: nothing of it is buffered beyond what arrived.
            raise self._fail(
                BadFrame(
                    f"a frame of {length} bytes is larger than the {self.max_frame}-byte limit"
                )
            )
        end = HEADER.size + length
        if len(self._buffer) < end:
            if self._eof:
                raise self._fail(BadFrame("the stream ended inside a frame"))
            return None
        body = bytes(self._buffer[HEADER.size : end])
        del self._buffer[:end]
        try:
            value = unpack(body)
        except BadFrame as e:
            raise self._fail(e) from None
        if not isinstance(value, dict):
            raise self._fail(BadFrame(f"a frame must hold a map, not {type(value).__name__}"))
        return value

    def _fail(self, error: BadFrame) -> BadFrame:
        self._failed = error
        self._buffer.clear()
        return error
