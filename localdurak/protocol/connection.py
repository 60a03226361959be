"""One end of a connection, as a sans-I/O state machine (h11's ``Connection``; docs/protocol.md §3).

A `Connection` knows which side it is (`Role`), turns received bytes into validated messages
(`receive_data` / `next_message`) and messages into bytes (`send`).  It enforces what every
session needs and nothing about the game:

- the frame cap: `MAX_FRAME_BEFORE_AUTH` until authentication has finished, `MAX_FRAME` after;
- direction: a host never accepts a host-only message, nor a client a client-only one;
- order of the handshake: ``hello`` → ``welcome`` → ``auth`` → ``authed``; nothing else but
  ``ping``/``pong``/``bye``/``error`` before it is done;
- command ids that increase (from a client), event ``seq`` numbers without gaps (from a host,
  after the first one or a snapshot).

Errors in what the *peer* sent raise a `ProtocolError` from `next_message` and close the
connection (the caller should send ``Error.from_exception(e)`` and hang up).  Errors in what
*we* try to send raise `LocalProtocolError` — a bug on our side, never the peer's doing.
"""

from __future__ import annotations

from enum import Enum

from localdurak.protocol.codec import MAX_FRAME, MAX_FRAME_BEFORE_AUTH, FrameDecoder, encode_frame
from localdurak.protocol.errors import BadMessage, LocalProtocolError, ProtocolError, Replayed
from localdurak.protocol.messages import (
    Auth,
    Authed,
    Hello,
    Kind,
    Message,
    Role,
    Welcome,
    message_from_wire,
    message_to_wire,
)


class State(Enum):
    HANDSHAKE = "handshake"
    OPEN = "open"
    CLOSED = "closed"


# The order of the handshake, as the message types each side expects next.
_HANDSHAKE_ORDER: dict[Role, tuple[type[Message], ...]] = {
    Role.CLIENT: (Hello, Auth),  # what a client sends
    Role.HOST: (Welcome, Authed),  # what a host sends
}

_ENCODED: dict[int, tuple[Message, bytes]] = {}
"""The frames of the last few messages sent, by identity: a host relays each event to every
peer, and checks and encodes it once instead of once per peer (the entry holds the message, so
its id is not reused while it is cached)."""
_ENCODED_KEEP = 64


def _encoded(m: Message) -> bytes:
    """``m``'s frame, after the checks the peer will run (see `Connection.send`)."""
    hit = _ENCODED.get(id(m))
    if hit is not None and hit[0] is m:
        return hit[1]
    try:
        # What we send must pass the checks the peer will run: a bad value here is our
        # bug, and should not cost the peer its connection (h11's LocalProtocolError).
        wire = message_to_wire(m)
        message_from_wire(wire)
        data = encode_frame(wire)
    except ProtocolError as e:
        raise LocalProtocolError(f"cannot send {m.TYPE!r}: {e}") from None
    if len(_ENCODED) >= _ENCODED_KEEP:
        del _ENCODED[next(iter(_ENCODED))]
    _ENCODED[id(m)] = (m, data)
    return data


def encoded_frame(m: Message) -> bytes:
    """``m``'s frame, checked as `Connection.send` checks it, and encoded once however many
    peers it goes to (the host's event log and trace take it from here too)."""
    return _encoded(m)


class Connection:
    """One end of a connection.  ``role`` is *our* side."""

    def __init__(self, role: Role) -> None:
        self.role = role
        self.peer_role = Role.HOST if role is Role.CLIENT else Role.CLIENT
        self.state = State.HANDSHAKE
        self._decoder = FrameDecoder(MAX_FRAME_BEFORE_AUTH)
        self._sent_handshake = 0
        self._received_handshake = 0
        self.last_command_id: int | None = None
        """The last command id received (host side) or sent (client side)."""
        self.last_seq: int | None = None
        """The last event sequence number received (client side) or sent (host side)."""
        self.error: ProtocolError | None = None

    # --- receiving ------------------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Bytes from the peer; ``b""`` when it closed the stream."""
        if self.error is not None:
            raise self.error
        try:
            self._decoder.receive_data(data)
        except ProtocolError as e:
            raise self._fail(e) from None

    def next_message(self) -> Message | None:
        """The next message from the peer, validated, or ``None`` when more bytes are needed."""
        if self.error is not None:
            raise self.error
        try:
            frame = self._decoder.next_frame()
            if frame is None:
                return None
            message = message_from_wire(frame)
            self._check_incoming(message)
        except ProtocolError as e:
            raise self._fail(e) from None
        return message

    def _check_incoming(self, m: Message) -> None:
        if m.SENDER is not None and m.SENDER is not self.peer_role:
            raise BadMessage(f"a {self.peer_role.value} may not send {m.TYPE!r}")
        if self.state is State.CLOSED:
            raise BadMessage(f"{m.TYPE!r} after the connection was closed")
        order = _HANDSHAKE_ORDER[self.peer_role]
        if self.state is State.HANDSHAKE:
            if not m.BEFORE_AUTH:
                raise BadMessage(f"{m.TYPE!r} before the handshake finished")
            if isinstance(m, order):
                expected = order[self._received_handshake] if self._received_handshake < 2 else None
                if expected is None or not isinstance(m, expected):
                    want = expected.TYPE if expected else "nothing more"
                    raise BadMessage(f"expected {want!r} in the handshake, got {m.TYPE!r}")
                self._received_handshake += 1
                if isinstance(m, Authed):
                    self._open()
        elif isinstance(m, order):
            raise BadMessage(f"{m.TYPE!r} after the handshake finished")
        if m.KIND is Kind.COMMAND:
            command_id: int = getattr(m, "id")  # noqa: B009 - every command has an id
            if self.last_command_id is not None and command_id <= self.last_command_id:
                raise Replayed(
                    f"command id {command_id} does not increase (last was {self.last_command_id})"
                )
            self.last_command_id = command_id
        elif m.KIND is Kind.EVENT:
            seq: int = getattr(m, "seq")  # noqa: B009 - every event has a seq
            if self.last_seq is not None and seq != self.last_seq + 1:
                raise BadMessage(f"event seq {seq} does not follow {self.last_seq}")
            self.last_seq = seq

    # --- sending --------------------------------------------------------------------------

    def send(self, message: Message) -> bytes:
        """The bytes that carry ``message`` to the peer."""
        m = message
        if self.state is State.CLOSED:
            raise LocalProtocolError(f"cannot send {m.TYPE!r}: the connection is closed")
        if m.SENDER is not None and m.SENDER is not self.role:
            raise LocalProtocolError(f"a {self.role.value} does not send {m.TYPE!r}")
        order = _HANDSHAKE_ORDER[self.role]
        if self.state is State.HANDSHAKE:
            if not m.BEFORE_AUTH:
                raise LocalProtocolError(f"{m.TYPE!r} before the handshake finished")
            if isinstance(m, order):
                if self._sent_handshake >= 2 or not isinstance(m, order[self._sent_handshake]):
                    raise LocalProtocolError(f"{m.TYPE!r} out of the handshake's order")
                self._sent_handshake += 1
        elif isinstance(m, order):
            raise LocalProtocolError(f"{m.TYPE!r} after the handshake finished")
        if m.KIND is Kind.COMMAND:
            command_id: int = getattr(m, "id")  # noqa: B009
            if self.last_command_id is not None and command_id <= self.last_command_id:
                raise LocalProtocolError(f"command id {command_id} does not increase")
            self.last_command_id = command_id
        elif m.KIND is Kind.EVENT:
            self.last_seq = getattr(m, "seq")  # noqa: B009
        data = _encoded(m)
        if isinstance(m, Authed):
            self._open()
        return data

    def next_command_id(self) -> int:
        """A command id for the next command this client sends."""
        return 1 if self.last_command_id is None else self.last_command_id + 1

    def close(self) -> None:
        self.state = State.CLOSED

    # --- internals ------------------------------------------------------------------------

    def _open(self) -> None:
        self.state = State.OPEN
        # The peer is authenticated: frames may now be as large as a snapshot (§1).
        self._decoder.max_frame = MAX_FRAME

    def _fail(self, error: ProtocolError) -> ProtocolError:
        self.error = error
        self.state = State.CLOSED
        return error
