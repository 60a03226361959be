"""The protocol's errors: one root, `ProtocolError`, with two branches.

* `LocalProtocolError` — we asked for something the protocol does not allow now: a bug on our
  side, never the peer's doing (h11's name).  Nothing sends it to a peer.
* `RemoteProtocolError` — a peer broke the protocol, or did something the table refuses;
  ``seat`` names the seat at fault when it is known.  The wire's kinds (`BadFrame`,
  `IllegalMove`, `TableFull`, …) are its subclasses, one per `ErrorCode`:
  `localdurak.protocol.messages.Error.from_exception` turns one into an ``error`` message for
  the peer, and `error_for_code` turns it back.

Every error carries ``code`` (what an ``error`` message says), ``message`` (for a person) and
``rule`` (the rule id it cites, if any).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class ErrorCode(StrEnum):
    """The machine-readable kinds of protocol error; the ``code`` of an ``error`` message."""

    TOO_OLD = "too_old"
    """The peer's protocol version is older than the oldest we still speak."""
    TOO_NEW = "too_new"
    """The peer's protocol version is newer than ours."""
    BAD_FRAME = "bad_frame"
    """Bytes that are not a frame: a wrong length, an oversized frame, not msgpack."""
    BAD_MESSAGE = "bad_message"
    """A well-formed frame that is not a valid message (schema, state or direction)."""
    ILLEGAL_MOVE = "illegal_move"
    """A well-formed action that the rules refuse (the message names the rule id)."""
    NOT_YOUR_TURN = "not_your_turn"
    """An action for a seat that is not the sender's, or at a moment it may not act."""
    AUTH_FAILED = "auth_failed"
    """A certificate fingerprint or a signature that does not check out."""
    TABLE_FULL = "table_full"
    """No free seat (or the asked seat is taken)."""
    BAD_PIN = "bad_pin"
    """The table has a PIN and the one given is missing or wrong."""
    TOO_MANY_ATTEMPTS = "too_many_attempts"
    """Too many wrong PINs: this key is refused until the host restarts the table."""
    REPLAYED = "replayed"
    """A command or signed action seen before (an id or counter that does not increase)."""
    FORBIDDEN = "forbidden"
    """Something only the table's owner may do (rules, bots)."""
    UNAVAILABLE = "unavailable"
    """The request cannot be met now (e.g. a resume from a sequence number too old)."""
    INTERNAL = "internal"
    """The host failed; the message says how."""


class ProtocolError(ValueError):
    """Root of every error the protocol raises; ``code`` says which kind (`ErrorCode`)."""

    code: ErrorCode = ErrorCode.INTERNAL

    def __init__(self, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule


class LocalProtocolError(ProtocolError):
    """We asked for something the protocol does not allow now (our own mistake)."""


class RemoteProtocolError(ProtocolError):
    """A peer broke the protocol.  ``seat`` is the seat at fault; None when the fault cannot be
    pinned on one seat yet (under card privacy the audit then names it) or when the peer is
    simply the other end of one connection.  ``reason`` is the message without the seat."""

    code = ErrorCode.BAD_MESSAGE

    def __init__(self, seat: int | None, reason: str, *, rule: str | None = None) -> None:
        self.seat = seat
        self.reason = reason
        self.recorded = False
        """Set by the card-privacy host once the refusal is in its transcript."""
        super().__init__(f"seat {seat}: {reason}" if seat is not None else reason, rule=rule)


class Cheated(RemoteProtocolError):
    """Under card privacy: ``seat``'s own message fails the check of its proof (a shuffle
    stage that is no permutation, a wrong layer removal, a play or claim its proof does not
    back).  Nothing but cheating (or a broken client) produces one: the host ends the game as
    aborted, naming ``seat`` (privacy.md "Blame goes to the cheater"), never as a forfeit of
    whoever found it."""


class WireError(RemoteProtocolError):
    """A kind of error an ``error`` message carries (one class per `ErrorCode`).  Its text is
    ``message`` alone: the connection it arrives on already says who sent it."""

    def __init__(self, message: str, *, rule: str | None = None, seat: int | None = None) -> None:
        super().__init__(seat, message, rule=rule)
        self.message = message
        self.args = (message,)


class VersionTooOld(WireError):
    code = ErrorCode.TOO_OLD


class VersionTooNew(WireError):
    code = ErrorCode.TOO_NEW


class BadFrame(WireError):
    code = ErrorCode.BAD_FRAME


class BadMessage(WireError):
    code = ErrorCode.BAD_MESSAGE


class IllegalMove(WireError):
    code = ErrorCode.ILLEGAL_MOVE


class CheatFound(IllegalMove):
    """A relayed step or a command failed as `Cheated`: ``seat`` broke the protocol.  A seat
    that finds one tells the host (an ``error``) and stays; the host, which checks it
    itself, ends the game as aborted naming the seat."""


class NotYourTurn(WireError):
    code = ErrorCode.NOT_YOUR_TURN


class AuthFailed(WireError):
    code = ErrorCode.AUTH_FAILED


class TableFull(WireError):
    code = ErrorCode.TABLE_FULL


class BadPin(WireError):
    code = ErrorCode.BAD_PIN


class TooManyAttempts(WireError):
    code = ErrorCode.TOO_MANY_ATTEMPTS


class Replayed(WireError):
    code = ErrorCode.REPLAYED


class Forbidden(WireError):
    code = ErrorCode.FORBIDDEN


class Unavailable(WireError):
    code = ErrorCode.UNAVAILABLE


class InternalError(WireError):
    code = ErrorCode.INTERNAL


_BY_CODE: Final[dict[ErrorCode, type[WireError]]] = {
    cls.code: cls
    for cls in (
        VersionTooOld,
        VersionTooNew,
        BadFrame,
        BadMessage,
        IllegalMove,
        NotYourTurn,
        AuthFailed,
        TableFull,
        BadPin,
        TooManyAttempts,
        Replayed,
        Forbidden,
        Unavailable,
        InternalError,
    )
}


def error_for_code(code: ErrorCode) -> type[WireError]:
    """The exception class that stands for ``code``."""
    return _BY_CODE[code]
