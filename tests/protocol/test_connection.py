"""Two `Connection` objects joined in memory (h11's ConnectionPair idea; docs/protocol.md §3)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localdurak.game.rules import Rules
from localdurak.protocol import messages as m
from localdurak.protocol.codec import MAX_FRAME_BEFORE_AUTH, encode_frame
from localdurak.protocol.connection import Connection, State
from localdurak.protocol.errors import (
    BadFrame,
    BadMessage,
    LocalProtocolError,
    ProtocolError,
    Replayed,
)

KEY = bytes(32)
SIG = bytes(64)


class Pair:
    def __init__(self) -> None:
        self.client = Connection(m.Role.CLIENT)
        self.host = Connection(m.Role.HOST)

    def to_host(self, message: m.Message) -> m.Message:
        self.host.receive_data(self.client.send(message))
        got = self.host.next_message()
        assert got == message
        return got

    def to_client(self, message: m.Message) -> m.Message:
        self.client.receive_data(self.host.send(message))
        got = self.client.next_message()
        assert got == message
        return got

    def handshake(self) -> None:
        self.to_host(m.Hello())
        self.to_client(m.Welcome(version=1, features=(), nonce=KEY, table="T"))
        self.to_host(m.Auth(key=KEY, sig=SIG, name="Ann"))
        self.to_client(m.Authed(player=1, seat=None, seq=0))


def lobby(seq: int) -> m.Lobby:
    return m.Lobby(
        seq=seq, table="T", state=m.TableState.LOBBY, rules=Rules(), seats=(m.SeatInfo(),) * 2
    )


def test_handshake_then_commands_and_events() -> None:
    p = Pair()
    assert p.host.state is State.HANDSHAKE
    p.handshake()
    assert p.host.state is State.OPEN and p.client.state is State.OPEN
    p.to_host(m.Sit(id=p.client.next_command_id()))
    p.to_host(m.Ready(id=p.client.next_command_id()))
    assert p.host.last_command_id == 2
    p.to_client(lobby(5))
    p.to_client(lobby(6))
    assert p.client.last_seq == 6


def test_frame_cap_rises_only_after_authentication() -> None:
    big = m.Privacy(id=1, game=b"g" * 16, n=0, step="shuffle", body=[b"x" * 32] * 400, sig=SIG)
    frame = m.encode_message(big)
    assert len(frame) > MAX_FRAME_BEFORE_AUTH
    stranger = Connection(m.Role.HOST)
    stranger.receive_data(struct.pack(">I", len(frame) - 4))
    with pytest.raises(BadFrame, match="8192-byte limit"):
        stranger.next_message()
    assert stranger.state is State.CLOSED
    p = Pair()
    p.handshake()
    p.to_host(big)  # the same frame is fine from an authenticated player


def test_commands_before_the_handshake_refused() -> None:
    host = Connection(m.Role.HOST)
    host.receive_data(m.encode_message(m.Sit(id=1)))
    with pytest.raises(BadMessage, match="before the handshake finished"):
        host.next_message()
    with pytest.raises(BadMessage):  # the connection stays failed
        host.next_message()


def test_handshake_out_of_order_refused() -> None:
    host = Connection(m.Role.HOST)
    host.receive_data(m.encode_message(m.Auth(key=KEY, sig=SIG, name="x")))
    with pytest.raises(BadMessage, match="expected 'hello'"):
        host.next_message()


def test_a_client_cannot_send_host_messages() -> None:
    host = Connection(m.Role.HOST)
    host.receive_data(m.encode_message(m.Authed(player=1, seat=0, seq=0)))
    with pytest.raises(BadMessage, match="a client may not send 'authed'"):
        host.next_message()
    with pytest.raises(LocalProtocolError):
        Connection(m.Role.CLIENT).send(m.Welcome(version=1, features=(), nonce=KEY, table="T"))


def test_replayed_command_id_refused() -> None:
    p = Pair()
    p.handshake()
    p.to_host(m.Ready(id=5))
    p.host.receive_data(encode_frame(m.message_to_wire(m.Ready(id=5))))
    with pytest.raises(Replayed, match="does not increase"):
        p.host.next_message()


def test_event_gap_refused() -> None:
    p = Pair()
    p.handshake()
    p.to_client(lobby(10))
    p.to_client(lobby(11))
    p.client.receive_data(encode_frame(m.message_to_wire(lobby(13))))
    with pytest.raises(BadMessage, match="does not follow 11"):
        p.client.next_message()


def test_ping_and_errors_allowed_any_time() -> None:
    p = Pair()
    p.to_host(m.Ping(nonce=1))
    p.to_client(m.Pong(nonce=1))
    p.to_client(m.Error(code=m.ErrorCode.BAD_PIN, message="wrong PIN"))
    p.handshake()
    p.to_host(m.Bye(reason="bye"))


def test_hello_twice_refused() -> None:
    p = Pair()
    p.handshake()
    with pytest.raises(LocalProtocolError):
        p.client.send(m.Hello())
    p.host.receive_data(encode_frame(m.message_to_wire(m.Hello())))
    with pytest.raises(BadMessage, match="after the handshake"):
        p.host.next_message()


def test_sending_an_invalid_message_is_our_bug_not_the_peers() -> None:
    p = Pair()
    p.handshake()
    with pytest.raises(LocalProtocolError, match="between 0 and 5"):
        p.client.send(m.Sit(id=1, seat=9))
    with pytest.raises(LocalProtocolError, match="control characters"):
        p.host.send(m.Bye(reason="line one\nline two"))


def test_error_from_an_exception_is_always_sendable() -> None:
    from localdurak.protocol.errors import IllegalMove

    p = Pair()
    err = m.Error.from_exception(IllegalMove("R-B4c: only 2 more\nmay be thrown in", rule="R-B4c"))
    p.to_client(err)
    assert err.message == "R-B4c: only 2 more may be thrown in" and err.rule == "R-B4c"
    assert m.Error.from_exception(IllegalMove("x", rule="not a rule")).rule is None


def _frames() -> list[bytes]:
    from tests.protocol.test_messages import EXAMPLES

    return [m.encode_message(x) for x in EXAMPLES]


@given(
    st.lists(st.sampled_from(_frames()) | st.binary(max_size=40), max_size=8),
    st.sampled_from([m.Role.HOST, m.Role.CLIENT]),
)
@settings(max_examples=200)
def test_any_byte_stream_raises_only_protocol_errors(chunks: list[bytes], role: m.Role) -> None:
    """A hostile peer can send any mixture of valid frames and garbage, in any order."""
    conn = Connection(role)
    try:
        for chunk in chunks:
            conn.receive_data(chunk)
            while conn.next_message() is not None:
                pass
    except ProtocolError as e:
        assert conn.state is State.CLOSED and e.code in set(m.ErrorCode)
