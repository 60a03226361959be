"""Frames: length prefix, size caps, msgpack strictness (docs/protocol.md §1)."""

from __future__ import annotations

import struct
from collections.abc import Mapping
from enum import IntEnum
from types import MappingProxyType
from typing import NamedTuple

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localdurak.protocol.codec import (
    HEADER,
    MAX_FRAME,
    MAX_FRAME_BEFORE_AUTH,
    FrameDecoder,
    canonical,
    encode_frame,
)
from localdurak.protocol.errors import BadFrame, ErrorCode, ProtocolError, error_for_code

plain = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


maps = st.dictionaries(st.text(max_size=8), plain, max_size=4)


@given(st.lists(maps, min_size=1, max_size=5), st.integers(1, 64))
@settings(max_examples=150)
def test_frames_round_trip_in_any_chunking(values: list[object], chunk: int) -> None:
    data = b"".join(encode_frame(v) for v in values)
    d = FrameDecoder(MAX_FRAME)
    out: list[object] = []
    for i in range(0, len(data), chunk):
        d.receive_data(data[i : i + chunk])
        while (frame := d.next_frame()) is not None:
            out.append(frame)
    assert out == values
    assert d.buffered == 0


@given(st.binary(max_size=300))
@settings(max_examples=300)
def test_garbage_raises_only_the_protocols_own_error(garbage: bytes) -> None:
    d = FrameDecoder()
    try:
        d.receive_data(garbage)
        d.receive_data(b"")  # the peer hung up
        while d.next_frame() is not None:
            pass
    except ProtocolError as e:
        assert e.code is ErrorCode.BAD_FRAME


@given(st.binary(min_size=1, max_size=200))
@settings(max_examples=300)
def test_garbage_bodies_in_a_valid_frame_raise_bad_frame_or_decode(body: bytes) -> None:
    d = FrameDecoder()
    d.receive_data(HEADER.pack(len(body)) + body)
    try:
        d.next_frame()
    except BadFrame:
        assert d.failed


def test_oversized_frame_refused_from_its_prefix_alone() -> None:
    d = FrameDecoder()  # before authentication: 8 KiB
    d.receive_data(struct.pack(">I", MAX_FRAME_BEFORE_AUTH + 1))
    with pytest.raises(BadFrame, match="larger than the 8192-byte limit"):
        d.next_frame()
    # A decoder that failed stays failed: the stream is out of step.
    with pytest.raises(BadFrame):
        d.receive_data(encode_frame({}))
    with pytest.raises(BadFrame):
        d.next_frame()


def test_frame_cap_is_the_decoders_setting() -> None:
    big = encode_frame({"b": b"x" * 20000})
    d = FrameDecoder()
    d.receive_data(big)
    with pytest.raises(BadFrame):
        d.next_frame()
    d = FrameDecoder(MAX_FRAME)
    d.receive_data(big)
    assert d.next_frame() == {"b": b"x" * 20000}
    with pytest.raises(BadFrame, match="larger than"):
        encode_frame({"b": b"x" * (MAX_FRAME + 1)})


def test_empty_frame_and_truncated_stream() -> None:
    d = FrameDecoder()
    d.receive_data(b"\0\0\0\0")
    with pytest.raises(BadFrame, match="empty frame"):
        d.next_frame()
    d = FrameDecoder()
    d.receive_data(encode_frame({"a": 1})[:-1])
    assert d.next_frame() is None  # waits for the rest
    d.receive_data(b"")
    with pytest.raises(BadFrame, match="ended inside a frame"):
        d.next_frame()


def test_trailing_bytes_inside_a_frame_refused() -> None:
    body = msgpack.packb(1) + msgpack.packb(2)
    d = FrameDecoder()
    d.receive_data(HEADER.pack(len(body)) + body)
    with pytest.raises(BadFrame, match="not a msgpack value"):
        d.next_frame()


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (msgpack.ExtType(5, b"abc"), "extension type 5"),
        (msgpack.Timestamp(1, 0), "Timestamp is not allowed"),
        ({1: "int key"}, "not a msgpack value"),  # strict_map_key
        ({b"k": "bin key"}, "map key must be a string"),
        ({"x": float("nan")}, "finite"),
        ([1, 2], "must hold a map"),
    ],
)
def test_refused_msgpack_values(value: object, why: str) -> None:
    body = msgpack.packb(value, use_bin_type=True, strict_map_key=False) if False else None
    body = msgpack.packb(value, use_bin_type=True)
    d = FrameDecoder()
    d.receive_data(HEADER.pack(len(body)) + body)
    with pytest.raises(BadFrame, match=why):
        d.next_frame()


def test_invalid_utf8_refused() -> None:
    body = b"\xa2\xff\xfe"  # fixstr of 2 bytes that are not UTF-8
    d = FrameDecoder()
    d.receive_data(HEADER.pack(len(body)) + body)
    with pytest.raises(BadFrame):
        d.next_frame()


def test_deep_nesting_refused_without_recursion_error() -> None:
    body = b"\x91" * 5000 + b"\xc0"  # 5000 nested one-element arrays
    d = FrameDecoder()
    d.receive_data(HEADER.pack(len(body)) + body)
    with pytest.raises(BadFrame):
        d.next_frame()


def test_canonical_ignores_map_order() -> None:
    assert canonical({"b": 1, "a": [{"y": 2, "x": 1}]}) == canonical(
        {"a": [{"x": 1, "y": 2}], "b": 1}
    )


def _reference_canonical(value: object) -> bytes:
    """`canonical` as the protocol defines it, written the plain way: every mapping by its
    sorted keys, every list or tuple as a list, recursively, then msgpack."""

    def tree(v: object) -> object:
        if isinstance(v, Mapping):
            return {k: tree(v[k]) for k in sorted(v)}
        if isinstance(v, list | tuple):
            return [tree(x) for x in v]
        return v

    return msgpack.packb(tree(value), use_bin_type=True)  # type: ignore[no-any-return]


class _Seat(IntEnum):
    NORTH = 3


class _Pair(NamedTuple):
    a: object
    b: object


signed_values = st.recursive(
    plain | st.sampled_from([_Seat.NORTH]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        | st.dictionaries(st.integers(-5, 5), inner, max_size=4)
        | st.dictionaries(st.text(max_size=8), inner, max_size=3).map(MappingProxyType)
        | st.tuples(inner, inner).map(lambda t: _Pair(*t))
    ),
    max_leaves=25,
)


@given(signed_values)
@settings(max_examples=300)
def test_canonical_bytes_are_the_definitions(value: object) -> None:
    # What a player signed must check after the host relays it, across versions: the fast
    # path by exact type gives the bytes of the plain definition, for every shape a signed
    # body can take (and the shapes it should not, a mapping of another type, a subclass).
    assert canonical(value) == _reference_canonical(value)


def test_every_error_code_has_its_class() -> None:
    for code in ErrorCode:
        cls = error_for_code(code)
        assert issubclass(cls, ProtocolError) and issubclass(cls, ValueError)
        assert cls("x").code is code
