"""The catalogue of the Local Durak wire protocol's messages (docs/protocol.md).

Every message is a frozen dataclass.  On the wire it is a msgpack map whose ``"t"`` key names
its type and whose other keys are its fields.  `message_from_wire` checks a decoded frame
against the type's schema — field names, types, sizes, ranges, written in the schema language
of `localdurak.protocol.schema` — and refuses anything else with `BadMessage`;
`message_to_wire` / `encode_message` are the way out.

Three kinds of message (docs/protocol.md §2):

- *commands* go from a client to the host and carry ``id``, a number the client increases by
  at least one for every command it sends; the host's answer (`Ack` or `Error`) names it in
  ``re``;
- *events* go from the host to every client and carry ``seq``, the table's event counter,
  which increases by exactly one per event; a client that reconnects says the last one it saw;
- *control* messages (hello, authentication, ping, bye, error, ack) are neither.

Its length (over 700 lines) is the catalogue itself: one small dataclass per message type, each
with its schema and docstring, and nothing else; splitting it would only scatter the list.

Card-privacy steps travel as `Privacy` / `PrivacyEvent`: the body is opaque here (plain msgpack
values only, checked by `check_plain`); `localdurak.protocol.privacy` defines and checks it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, ClassVar, Final

from localdurak.game.actions import GameResult
from localdurak.game.rules import Rules, RulesError
from localdurak.protocol.codec import MAX_FRAME, encode_frame
from localdurak.protocol.errors import (
    BadMessage,
    ErrorCode,
    ProtocolError,
    VersionTooNew,
    VersionTooOld,
    error_for_code,
)
from localdurak.protocol.schema import (
    CONTROL_CHARS,
    RULE_ID,
    Bool,
    Bytes,
    Choice,
    Int,
    ListOf,
    Opt,
    Plain,
    Spec,
    Str,
    StructSpec,
    bad,
    dump_fields,
    load_fields,
    schema,
)

PROTOCOL_VERSION: Final = 5
"""The version this code speaks.  Raise it for any change an older peer would misread.
2: every signed step binds the signed setup (`localdurak.protocol.signing.setup_digest`).
3: signed under `localdurak.protocol.signing.ACTION_DOMAIN` (``localdurak-action/2``: the host
takes a seat's steps in the order of its counter).
4: shuffle stages carry second-version proofs of shuffle (privacy/shuffle.py: the chain's
links proven as one combination), which a version 3 peer cannot read.
5: a game action restarts the move clock on every player's screen without a `Clock` event
(`localdurak.protocol.table.clock`); a version 4 player would wait for one."""

MIN_PROTOCOL_VERSION: Final = 5
"""The oldest version this code still speaks.  reading: a version 4 player misreads only the
move clock's countdown (it would go on showing the seat waited for before each action), but
that is "misread" all the same, and speaking both would mean a `Clock` after every action for
some players and not others: so it is refused as too old, as the versions before (a version 3
peer would refuse our proofs of shuffle and name an honest shuffler; a version 2 peer signs
under the older domain, whose signatures a version 3 peer does not accept; a version 1 peer's
bind no setup)."""

FEATURES: Final[frozenset[str]] = frozenset({"privacy-sra/1", "resume/1", "bots/1"})
"""Optional abilities this side offers; the session uses the intersection of both sides'."""

MAX_ID: Final = 2**53 - 1
"""Command ids and event sequence numbers stay below this (exact in every JSON reader)."""

MAX_SEATS: Final = 6
NAME_MAX: Final = 32
"""Longest player or table name, in characters."""

KEY_LEN: Final = 32
"""Ed25519 public keys, nonces and SHA-256 fingerprints are all 32 bytes."""
SIG_LEN: Final = 64
"""An Ed25519 signature."""


class Role(StrEnum):
    """Which end of a connection sends a message."""

    CLIENT = "client"
    HOST = "host"


class Kind(StrEnum):
    """The three families of message (module docstring)."""

    CONTROL = "control"
    COMMAND = "command"
    EVENT = "event"


class SeatKind(StrEnum):
    EMPTY = "empty"
    HUMAN = "human"
    BOT = "bot"


class BotLevel(StrEnum):
    RANDOM = "random"
    NORMAL = "normal"
    STRONG = "strong"


class TableState(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    CLOSED = "closed"


# --- field schemas of the game's own values (the language: schema.py) --------------------


class RulesSpec(Spec):
    """The table options as a record's ``rules`` object (records.md), only non-defaults sent."""

    def load(self, value: Any, where: str) -> Rules:
        if not isinstance(value, dict):
            raise bad(where, "a map of table options", value)
        try:
            return Rules.from_dict(value)
        except (RulesError, TypeError) as e:
            raise BadMessage(f"{where}: {e}") from None

    def dump(self, value: Any) -> Any:
        assert isinstance(value, Rules)
        return value.non_defaults()


class ResultSpec(Spec):
    def load(self, value: Any, where: str) -> GameResult:
        if not isinstance(value, dict):
            raise bad(where, "a game result", value)
        try:
            result = GameResult.from_dict(value)
        except ValueError as e:
            raise BadMessage(f"{where}: {e}") from None
        if len(result.durak) > MAX_SEATS or not all(0 <= s < MAX_SEATS for s in result.durak):
            raise bad(f"{where}.durak", "a list of seats", list(result.durak))
        return result

    def dump(self, value: Any) -> Any:
        assert isinstance(value, GameResult)
        return value.to_dict()


ID: Final = Int(0, MAX_ID)
SEQ: Final = Int(0, MAX_ID)
SEAT: Final = Int(0, MAX_SEATS - 1)
NAME: Final = Str(NAME_MAX, min_len=1)
KEY: Final = Bytes(KEY_LEN, KEY_LEN)
SIG: Final = Bytes(SIG_LEN, SIG_LEN)
VERSION: Final = Int(0, 0xFFFF)
FEATURE: Final = Str(32, min_len=1, pattern=r"[a-z0-9][a-z0-9./_-]*")
GAME_ID: Final = Bytes(8, 64)
STEP: Final = Str(32, min_len=1, pattern=r"[a-z0-9][a-z0-9_./-]*")


# --- messages ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Message:
    """Base of every message.  ``TYPE`` is its ``"t"`` on the wire, ``SENDER`` who may send
    it (``None``: either side), ``KIND`` its family, ``BEFORE_AUTH`` whether it may travel
    before authentication has finished."""

    TYPE: ClassVar[str] = ""
    SENDER: ClassVar[Role | None] = None
    KIND: ClassVar[Kind] = Kind.CONTROL
    BEFORE_AUTH: ClassVar[bool] = False
    SCHEMA: ClassVar[Mapping[str, Spec]] = MappingProxyType({})


# Control: handshake (docs/protocol.md §3).


@dataclass(frozen=True, slots=True)
class Hello(Message):
    """The client's first message: which protocol versions and features it speaks."""

    TYPE = "hello"
    SENDER = Role.CLIENT
    BEFORE_AUTH = True
    SCHEMA = schema(
        {
            "version": VERSION,
            "min_version": VERSION,
            "features": ListOf(FEATURE, 32, unique=True),
            "software": Str(64),
        }
    )
    version: int = PROTOCOL_VERSION
    min_version: int = MIN_PROTOCOL_VERSION
    features: tuple[str, ...] = tuple(sorted(FEATURES))
    software: str = ""

    def __post_init__(self) -> None:
        if self.min_version > self.version:
            raise BadMessage("hello.min_version is above hello.version")


@dataclass(frozen=True, slots=True)
class Welcome(Message):
    """The host's answer to `Hello`: the version it chose, its nonce for the client's proof of
    identity, and what a joining player needs to know before authenticating."""

    TYPE = "welcome"
    SENDER = Role.HOST
    BEFORE_AUTH = True
    SCHEMA = schema(
        {
            "version": VERSION,
            "features": ListOf(FEATURE, 32, unique=True),
            "nonce": KEY,
            "table": NAME,
            "pin_required": Bool(),
            "state": Choice(TableState),
        }
    )
    version: int
    features: tuple[str, ...]
    nonce: bytes
    table: str
    pin_required: bool = False
    state: TableState = TableState.LOBBY


@dataclass(frozen=True, slots=True)
class Auth(Message):
    """The client proves it holds ``key``: ``sig`` signs the host's nonce bound to the host's
    certificate fingerprint (`localdurak.net.identity.auth_payload`)."""

    TYPE = "auth"
    SENDER = Role.CLIENT
    BEFORE_AUTH = True
    SCHEMA = schema(
        {
            "key": KEY,
            "sig": SIG,
            "name": NAME,
            "pin": Opt(Str(16, min_len=1, pattern=r"[0-9A-Za-z-]+")),
        }
    )
    key: bytes
    sig: bytes
    name: str
    pin: str | None = None


@dataclass(frozen=True, slots=True)
class Authed(Message):
    """Authentication succeeded.  ``player`` is the host's handle for this key; ``seat`` the
    seat it already holds (a reconnect) or ``None``; ``seq`` the table's latest event."""

    TYPE = "authed"
    SENDER = Role.HOST
    BEFORE_AUTH = True
    SCHEMA = schema({"player": Int(0, 0xFFFF), "seat": Opt(SEAT), "seq": SEQ})
    player: int
    seat: int | None
    seq: int


# Control: either side, any time.


@dataclass(frozen=True, slots=True)
class Ping(Message):
    TYPE = "ping"
    BEFORE_AUTH = True
    SCHEMA = schema({"nonce": Int(0, 2**32 - 1)})
    nonce: int


@dataclass(frozen=True, slots=True)
class Pong(Message):
    TYPE = "pong"
    BEFORE_AUTH = True
    SCHEMA = schema({"nonce": Int(0, 2**32 - 1)})
    nonce: int


REPLACED: Final = "you connected again"
"""A `Bye`'s reason when the host closes a seat's connection because the same key connected
again: a client that lost its link has closed that connection already, so the client that
reads it is a second process of the same identity that took its seat (it stops there,
rather than take the seat back and be displaced in turn, for ever)."""


@dataclass(frozen=True, slots=True)
class Bye(Message):
    """The sender is closing the connection on purpose (the seat is given up).  From the
    host, ``paused``: the host stops for now and will resume the table (``localdurak host
    --resume``); the seats are kept and the clients reconnect when it is back."""

    TYPE = "bye"
    BEFORE_AUTH = True
    SCHEMA = schema({"reason": Str(200), "paused": Bool()})
    reason: str = ""
    paused: bool = False


@dataclass(frozen=True, slots=True)
class Error(Message):
    """Something the peer sent was refused.  ``re`` names the command it answers (or
    ``None``); ``code`` the kind (`ErrorCode`); ``message`` says why, for a person; ``rule``
    the rule id of an illegal move."""

    TYPE = "error"
    BEFORE_AUTH = True
    SCHEMA = schema(
        {
            "code": Choice(ErrorCode),
            "message": Str(500),
            "re": Opt(ID),
            "rule": Opt(Str(16, pattern=RULE_ID.pattern)),
        }
    )
    code: ErrorCode
    message: str
    re: int | None = None
    rule: str | None = None

    @classmethod
    def from_exception(cls, error: ProtocolError, re: int | None = None) -> Error:
        # The message must itself pass the schema on the other side: no control characters
        # (an engine message with a newline would otherwise get the connection dropped).
        message = CONTROL_CHARS.sub(" ", error.message)[:500]
        rule = error.rule if error.rule and RULE_ID.fullmatch(error.rule) else None
        return cls(code=error.code, message=message, re=re, rule=rule)

    def exception(self) -> ProtocolError:
        """The `ProtocolError` subclass this error stands for, to raise on the receiving side."""
        return error_for_code(self.code)(self.message, rule=self.rule)


@dataclass(frozen=True, slots=True)
class Ack(Message):
    """The host accepted command ``re``; ``seq`` is the event it became (or ``None``)."""

    TYPE = "ack"
    SENDER = Role.HOST
    SCHEMA = schema({"re": ID, "seq": Opt(SEQ)})
    re: int
    seq: int | None = None


# Commands: lobby (docs/protocol.md §4).


@dataclass(frozen=True, slots=True)
class Sit(Message):
    """Take ``seat``, or any free seat when ``None``."""

    TYPE = "sit"
    SENDER = Role.CLIENT
    KIND = Kind.COMMAND
    SCHEMA = schema({"id": ID, "seat": Opt(SEAT)})
    id: int
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Stand(Message):
    """Leave the seat and watch."""

    TYPE = "stand"
    SENDER = Role.CLIENT
    KIND = Kind.COMMAND
    SCHEMA = schema({"id": ID})
    id: int


@dataclass(frozen=True, slots=True)
class Ready(Message):
    TYPE = "ready"
    SENDER = Role.CLIENT
    KIND = Kind.COMMAND
    SCHEMA = schema({"id": ID, "ready": Bool()})
    id: int
    ready: bool = True


@dataclass(frozen=True, slots=True)
class SetRules(Message):
    """The table's owner changes the rules (and the number of seats) before the game."""

    TYPE = "set_rules"
    SENDER = Role.CLIENT
    KIND = Kind.COMMAND
    SCHEMA = schema({"id": ID, "rules": RulesSpec(), "seats": Int(2, MAX_SEATS)})
    id: int
    rules: Rules
    seats: int


@dataclass(frozen=True, slots=True)
class AddBot(Message):
    TYPE = "add_bot"
    SENDER = Role.CLIENT
    KIND = Kind.COMMAND
    SCHEMA = schema({"id": ID, "seat": Opt(SEAT), "level": Choice(BotLevel)})
    id: int
    seat: int | None = None
    level: BotLevel = BotLevel.NORMAL


@dataclass(frozen=True, slots=True)
class RemoveBot(Message):
    TYPE = "remove_bot"
    SENDER = Role.CLIENT
    KIND = Kind.COMMAND
    SCHEMA = schema({"id": ID, "seat": SEAT})
    id: int
    seat: int


# Commands: game.


@dataclass(frozen=True, slots=True)
class Privacy(Message):
    """One card-privacy step (privacy.md), signed by the seat's identity key
    (`localdurak.protocol.signing`).  ``step`` names it (e.g.
    ``"commit"``, ``"shuffle"``, ``"strip"``, ``"open"``, ``"reveal"``); ``body`` is checked by
    the privacy protocol, here only for being plain msgpack."""

    TYPE = "privacy"
    SENDER = Role.CLIENT
    KIND = Kind.COMMAND
    SCHEMA = schema(
        {
            "id": ID,
            "game": GAME_ID,
            "n": ID,
            "step": STEP,
            "body": Plain(),
            "sig": SIG,
            "seat": Opt(SEAT),
            "seen": SEQ,
            "refused": Opt(SEQ),
        }
    )
    id: int
    game: bytes
    n: int
    step: str
    body: Any
    sig: bytes
    seat: int | None = None
    """Another seat's step, from the sender's copy of its relay (``None``: the sender's
    own): what a host that lost the last events of its log (a power cut) gets back from the
    players, who hold the same signed steps (docs/protocol.md §7)."""
    seen: int = 0
    """How many messages of the game's privacy log the seat had taken when it signed the
    step (signed: `localdurak.protocol.signing.action_payload`)."""
    refused: int | None = None
    """A step of the sender's own that the host refused, given back to a host that lost
    that refusal with its journal's last lines (a power cut): the length of the privacy
    log when it was refused, where the record places it (not signed: the host's word, as
    ever for a refusal; the audit judges the refusal there).  Never relayed, never applied."""

    def relayed(self, seq: int, seat: int) -> PrivacyEvent:
        """The step as the host relays it from ``seat``: unchanged, numbered ``seq``."""
        return PrivacyEvent(
            seq=seq,
            game=self.game,
            seat=seat,
            n=self.n,
            step=self.step,
            body=self.body,
            sig=self.sig,
            seen=self.seen,
        )


@dataclass(frozen=True, slots=True)
class Resume(Message):
    """Sent after `Authed` by a client that was here before: send me every event after
    ``last_seq`` (`Unavailable` if they are too old to replay: the client starts afresh)."""

    TYPE = "resume"
    SENDER = Role.CLIENT
    KIND = Kind.COMMAND
    SCHEMA = schema({"id": ID, "last_seq": SEQ})
    id: int
    last_seq: int


# Events (host -> every client), docs/protocol.md §2 and §5.


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat as the lobby shows it."""

    SCHEMA: ClassVar[dict[str, Spec]] = {
        "kind": Choice(SeatKind),
        "name": Str(NAME_MAX),
        "ready": Bool(),
        "connected": Bool(),
        "key": Opt(KEY),
        "level": Opt(Choice(BotLevel)),
    }
    kind: SeatKind = SeatKind.EMPTY
    name: str = ""
    ready: bool = False
    connected: bool = False
    key: bytes | None = None
    level: BotLevel | None = None


@dataclass(frozen=True, slots=True)
class Lobby(Message):
    """The whole lobby, sent on every change (it is small)."""

    TYPE = "lobby"
    SENDER = Role.HOST
    KIND = Kind.EVENT
    SCHEMA = schema(
        {
            "seq": SEQ,
            "table": NAME,
            "state": Choice(TableState),
            "rules": RulesSpec(),
            "seats": ListOf(StructSpec(SeatInfo), MAX_SEATS),
            "owner": SEAT,
            "games": Int(0, 0xFFFF),
        }
    )
    seq: int
    table: str
    state: TableState
    rules: Rules
    seats: tuple[SeatInfo, ...]
    owner: int = 0
    games: int = 0
    """How many games of the series have been played (R-F2)."""

    def __post_init__(self) -> None:
        if not 2 <= len(self.seats) <= MAX_SEATS:
            raise BadMessage(f"lobby.seats must list 2..{MAX_SEATS} seats")


@dataclass(frozen=True, slots=True)
class GameStarted(Message):
    """A game of the series begins.  ``keys`` are the seats' public keys, in seat order: every
    signed action and privacy step of this game is checked against them."""

    TYPE = "game_started"
    SENDER = Role.HOST
    KIND = Kind.EVENT
    SCHEMA = schema(
        {
            "seq": SEQ,
            "game": GAME_ID,
            "number": Int(0, 0xFFFF),
            "rules": RulesSpec(),
            "dealer": SEAT,
            "names": ListOf(NAME, MAX_SEATS),
            "keys": ListOf(KEY, MAX_SEATS, unique=True),
            "previous": Opt(ResultSpec()),
        }
    )
    seq: int
    game: bytes
    number: int
    rules: Rules
    dealer: int
    names: tuple[str, ...]
    keys: tuple[bytes, ...]
    previous: GameResult | None = None

    def __post_init__(self) -> None:
        n = len(self.keys)
        if not 2 <= n <= MAX_SEATS or len(self.names) != n or self.dealer >= n:
            raise BadMessage("game_started needs 2..6 seats, a name and key each, a dealer seat")


@dataclass(frozen=True, slots=True)
class PrivacyEvent(Message):
    """A card-privacy step relayed exactly as seat ``seat`` signed it."""

    TYPE = "privacy_event"
    SENDER = Role.HOST
    KIND = Kind.EVENT
    SCHEMA = schema(
        {
            "seq": SEQ,
            "game": GAME_ID,
            "seat": SEAT,
            "n": ID,
            "step": STEP,
            "body": Plain(),
            "sig": SIG,
            "seen": SEQ,
        }
    )
    seq: int
    game: bytes
    seat: int
    n: int
    step: str
    body: Any
    sig: bytes
    seen: int = 0

    def command(self, command_id: int = 0, *, seat: int | None = None) -> Privacy:
        """The step as its seat sent it (a resumed host rebuilding its game, or a player
        giving back what the host lost: ``seat`` the step's seat then)."""
        return Privacy(
            id=command_id,
            game=self.game,
            n=self.n,
            step=self.step,
            body=self.body,
            sig=self.sig,
            seat=seat,
            seen=self.seen,
        )


@dataclass(frozen=True, slots=True)
class Closing(Message):
    """R-S5: an action that would close the bout is held for the challenge window (``open``,
    ``window`` milliseconds), or the window is over (not ``open``: the action was relayed or
    refused just before).  Players may still challenge while it is open."""

    TYPE = "closing"
    SENDER = Role.HOST
    KIND = Kind.EVENT
    SCHEMA = schema({"seq": SEQ, "seat": SEAT, "open": Bool(), "window": Int(0, 60_000)})
    seq: int
    seat: int
    open: bool
    window: int = 0


@dataclass(frozen=True, slots=True)
class Presence(Message):
    """A seat's player dropped or came back; ``hold`` is how many seconds the host keeps the
    seat before the player forfeits (privacy.md "When a player drops out")."""

    TYPE = "presence"
    SENDER = Role.HOST
    KIND = Kind.EVENT
    SCHEMA = schema({"seq": SEQ, "seat": SEAT, "connected": Bool(), "hold": Int(0, 86400)})
    seq: int
    seat: int
    connected: bool
    hold: int = 0


@dataclass(frozen=True, slots=True)
class GameOver(Message):
    """The game ended (or was ended: ``forfeit`` names a seat that did not come back;
    ``aborted`` a seat that broke the card-privacy protocol — no durak, ``reason`` says what
    it did)."""

    TYPE = "game_over"
    SENDER = Role.HOST
    KIND = Kind.EVENT
    SCHEMA = schema(
        {
            "seq": SEQ,
            "game": GAME_ID,
            "result": ResultSpec(),
            "forfeit": Opt(SEAT),
            "score": ListOf(Int(0, 0xFFFF), MAX_SEATS),
            "aborted": Opt(SEAT),
            "reason": Str(500),
        }
    )
    seq: int
    game: bytes
    result: GameResult
    forfeit: int | None = None
    score: tuple[int, ...] = ()
    """Times each seat has been the durak in this series (R-F2)."""
    aborted: int | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class TableClosed(Message):
    TYPE = "table_closed"
    SENDER = Role.HOST
    KIND = Kind.EVENT
    SCHEMA = schema({"seq": SEQ, "reason": Str(200)})
    seq: int
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Notice(Message):
    """Trouble on the host's side that every screen shows: ``problem`` says what (the host
    cannot save: a full or read-only disk), "" that it is over."""

    TYPE = "notice"
    SENDER = Role.HOST
    KIND = Kind.EVENT
    SCHEMA = schema({"seq": SEQ, "problem": Str(200)})
    seq: int
    problem: str = ""


@dataclass(frozen=True, slots=True)
class Clock(Message):
    """The move clock (``--move-time``): the table waits for ``seat``, which has ``seconds``
    to act before it forfeits (as a dropped player after the hold); ``seat`` None: no clock
    runs now."""

    TYPE = "clock"
    SENDER = Role.HOST
    KIND = Kind.EVENT
    SCHEMA = schema({"seq": SEQ, "seat": Opt(SEAT), "seconds": Int(0, 86400)})
    seq: int
    seat: int | None = None
    seconds: int = 0


MESSAGE_TYPES: Final[dict[str, type[Message]]] = {
    cls.TYPE: cls
    for cls in (
        Hello,
        Welcome,
        Auth,
        Authed,
        Ping,
        Pong,
        Bye,
        Error,
        Ack,
        Sit,
        Stand,
        Ready,
        SetRules,
        AddBot,
        RemoveBot,
        Privacy,
        Resume,
        Lobby,
        GameStarted,
        PrivacyEvent,
        Presence,
        Closing,
        GameOver,
        TableClosed,
        Notice,
        Clock,
    )
}


def _set_schemas() -> None:
    # The dataclass decorator leaves plain class attributes alone; make sure every message's
    # SCHEMA names exactly its fields, so that a new field cannot be left unchecked.
    classes: list[Any] = [*MESSAGE_TYPES.values(), SeatInfo]
    for cls in classes:
        names = {f.name for f in dataclasses.fields(cls)}
        assert names == set(cls.SCHEMA), (cls.__name__, names ^ set(cls.SCHEMA))


_set_schemas()


def message_to_wire(message: Message) -> dict[str, Any]:
    """The msgpack map of ``message`` (``"t"`` and its fields)."""
    return {"t": message.TYPE, **dump_fields(message)}


def message_from_wire(data: Any) -> Message:
    """Validate one decoded frame and build its message; anything else raises `BadMessage`."""
    if not isinstance(data, dict):
        raise bad("a message", "a map", data)
    kind = data.get("t")
    if not isinstance(kind, str) or kind not in MESSAGE_TYPES:
        raise bad("message type 't'", "a known message type", kind)
    cls = MESSAGE_TYPES[kind]
    message: Message = load_fields(cls, data, kind)
    return message


def encode_message(message: Message, *, max_frame: int = MAX_FRAME) -> bytes:
    """One frame holding ``message``."""
    return encode_frame(message_to_wire(message), max_frame=max_frame)


def check_version(version: int, min_version: int, *, at_host: bool = True) -> int:
    """The version to speak with a peer that speaks ``min_version..version``; raises
    `VersionTooOld` / `VersionTooNew` (naming both ranges) when the ranges do not meet.

    The message says who must update from the side of the player who reads it:
    the host's refusal goes to the player (``at_host``), a client's own check is read by
    its own player."""
    ours = f"{MIN_PROTOCOL_VERSION}..{PROTOCOL_VERSION}"
    if version < MIN_PROTOCOL_VERSION:
        if at_host:
            raise VersionTooOld(
                f"your program's protocol version {version} is too old for the table's host "
                f"(it speaks {ours}): update Local Durak on your laptop"
            )
        raise VersionTooOld(
            f"the table's host speaks protocol version {version}, too old for this program "
            f"({ours}): the host must update Local Durak"
        )
    if min_version > PROTOCOL_VERSION:
        if at_host:
            raise VersionTooNew(
                f"your program's protocol versions {min_version}..{version} are too new for the "
                f"table's host (it speaks {ours}): the host must update Local Durak"
            )
        raise VersionTooNew(
            f"the table's host speaks protocol version {min_version}, too new for this program "
            f"({ours}): update Local Durak on this laptop"
        )
    return min(version, PROTOCOL_VERSION)
