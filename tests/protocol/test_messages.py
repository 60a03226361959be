"""Messages: schemas, round trips, refusals (docs/protocol.md §2)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from localdurak.game.actions import GameResult
from localdurak.game.rules import Rules
from localdurak.protocol import messages as m
from localdurak.protocol import schema as sc
from localdurak.protocol.codec import MAX_FRAME, FrameDecoder
from localdurak.protocol.errors import (
    BadMessage,
    ErrorCode,
    IllegalMove,
    ProtocolError,
    VersionTooNew,
    VersionTooOld,
)

KEY = bytes(range(32))
SIG = bytes(64)
GAME = b"g" * 16

EXAMPLES: list[m.Message] = [
    m.Hello(software="localdurak 0.1"),
    m.Welcome(
        version=1, features=("resume/1",), nonce=KEY, table="Anna's table", pin_required=True
    ),
    m.Auth(key=KEY, sig=SIG, name="Бора", pin="1234"),
    m.Authed(player=3, seat=None, seq=17),
    m.Ping(nonce=5),
    m.Pong(nonce=5),
    m.Bye(reason="going home"),
    m.Error(code=ErrorCode.ILLEGAL_MOVE, message="R-B5: too low", re=9, rule="R-B5"),
    m.Ack(re=9, seq=18),
    m.Sit(id=1, seat=2),
    m.Stand(id=2),
    m.Ready(id=3, ready=False),
    m.SetRules(id=4, rules=Rules(variant="perevodnoy", trump_show=True), seats=3),
    m.AddBot(id=5, seat=None, level=m.BotLevel.RANDOM),
    m.RemoveBot(id=6, seat=1),
    m.Privacy(id=8, game=GAME, n=4, step="shuffle", body={"deck": [KEY] * 36}, sig=SIG),
    m.Resume(id=9, last_seq=100),
    m.Lobby(
        seq=1,
        table="Anna's table",
        state=m.TableState.LOBBY,
        rules=Rules(),
        seats=(m.SeatInfo(m.SeatKind.HUMAN, "Anna", True, True, KEY), m.SeatInfo()),
    ),
    m.GameStarted(
        seq=2,
        game=GAME,
        number=0,
        rules=Rules(deck=52),
        dealer=1,
        names=("A", "B"),
        keys=(KEY, bytes(32)),
    ),
    m.PrivacyEvent(seq=4, game=GAME, seat=1, n=0, step="commit", body={"y": KEY}, sig=SIG),
    m.Presence(seq=5, seat=1, connected=False, hold=120),
    m.Closing(seq=5, seat=0, open=True, window=2000),
    m.GameOver(seq=6, game=GAME, result=GameResult((1,), False), forfeit=None, score=(0, 1)),
    m.TableClosed(seq=8, reason="host quit"),
    m.Notice(seq=9, problem="the host cannot save: No space left on device"),
    m.Clock(seq=10, seat=1, seconds=60),
]


def test_every_message_type_has_an_example() -> None:
    assert {type(x) for x in EXAMPLES} == set(m.MESSAGE_TYPES.values())


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda x: x.TYPE)
def test_examples_round_trip_through_frames(message: m.Message) -> None:
    d = FrameDecoder(MAX_FRAME)
    d.receive_data(m.encode_message(message))
    frame = d.next_frame()
    assert frame is not None and frame["t"] == message.TYPE
    assert m.message_from_wire(frame) == message


# --- a strategy for every schema, so that every message type is round-tripped ------------

plain: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.text(max_size=10)
    | st.binary(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)
RULES = [{}, {"variant": "duren"}, {"variant": "perevodnoy", "deck": 52, "trump_show": True}]
RESULTS = [{"durak": [1], "draw": False, "pogony": 0}, {"durak": [], "draw": True, "pogony": 0}]


def strategy(spec: sc.Spec) -> st.SearchStrategy[Any]:
    if isinstance(spec, sc.Int):
        return st.integers(spec.lo, spec.hi)
    if isinstance(spec, sc.Bool):
        return st.booleans()
    if isinstance(spec, sc.Str):
        if spec.pattern is not None:
            base = st.from_regex(spec.pattern, fullmatch=True)
        else:
            base = st.text(st.characters(codec="utf-8"), max_size=spec.max_len)
        return base.filter(lambda s: spec.min_len <= len(s) <= spec.max_len).filter(
            lambda s: not sc.CONTROL_CHARS.search(s)
        )
    if isinstance(spec, sc.Bytes):
        return st.binary(min_size=spec.min_len, max_size=spec.max_len)
    if isinstance(spec, sc.Choice):
        return st.sampled_from([e.value for e in spec.enum])
    if isinstance(spec, sc.Opt):
        return st.none() | strategy(spec.inner)
    if isinstance(spec, sc.ListOf):
        return st.lists(strategy(spec.inner), max_size=min(spec.max_items, 6), unique=spec.unique)
    if isinstance(spec, sc.Plain):
        return st.dictionaries(st.text(max_size=6), plain, max_size=3) if spec.mapping else plain
    if isinstance(spec, m.RulesSpec):
        return st.sampled_from(RULES)
    if isinstance(spec, m.ResultSpec):
        return st.sampled_from(RESULTS)
    if isinstance(spec, sc.StructSpec):
        return st.fixed_dictionaries({k: strategy(v) for k, v in spec.cls.SCHEMA.items()})
    raise AssertionError(spec)


def wire_maps(cls: type[m.Message]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"t": st.just(cls.TYPE), **{k: strategy(v) for k, v in cls.SCHEMA.items()}}
    )


any_wire = st.sampled_from(sorted(m.MESSAGE_TYPES)).flatmap(lambda t: wire_maps(m.MESSAGE_TYPES[t]))


@given(any_wire)
@settings(
    max_examples=400, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
def test_generated_messages_round_trip_or_are_refused_as_bad_messages(wire: dict[str, Any]) -> None:
    try:
        message = m.message_from_wire(wire)
    except BadMessage:
        return  # e.g. a game_started whose names and keys differ in number
    again = m.message_from_wire(m.message_to_wire(message))
    assert again == message
    d = FrameDecoder(MAX_FRAME)
    d.receive_data(m.encode_message(message))
    assert m.message_from_wire(d.next_frame()) == message


@given(any_wire, st.text(max_size=8), plain)
@settings(
    max_examples=300, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
def test_tampered_messages_raise_only_bad_message(
    wire: dict[str, Any], key: str, value: Any
) -> None:
    tampered = dict(wire)
    tampered[key] = value
    try:
        m.message_from_wire(tampered)
    except ProtocolError as e:
        assert e.code is ErrorCode.BAD_MESSAGE


@pytest.mark.parametrize(
    ("wire", "why"),
    [
        ([], "must be a map"),
        ({"t": "launch_missiles"}, "known message type"),
        ({"t": "ping"}, "missing the field 'nonce'"),
        ({"t": "ping", "nonce": 1, "extra": 2}, "unknown field"),
        ({"t": "ping", "nonce": -1}, "between 0 and"),
        ({"t": "ping", "nonce": True}, "whole number"),
        ({"t": "sit", "id": 1, "seat": 6}, "between 0 and 5"),
        ({"t": "auth", "key": b"short", "sig": SIG, "name": "x"}, "32 bytes"),
        ({"t": "auth", "key": KEY, "sig": SIG, "name": "\x1b[2Jevil"}, "control characters"),
        ({"t": "auth", "key": KEY, "sig": SIG, "name": "x" * 33}, "1..32 characters"),
        ({"t": "auth", "key": KEY, "sig": SIG, "name": ""}, "1..32 characters"),
        ({"t": "auth", "key": KEY, "sig": SIG, "name": "a\u202eb"}, "control characters"),
        ({"t": "set_rules", "id": 1, "rules": {"deck": 40}, "seats": 2}, "R-C1"),
        (
            {"t": "set_rules", "id": 1, "rules": {"colour": "red"}, "seats": 2},
            "unknown table option",
        ),
        (
            {"t": "hello", "version": 1, "min_version": 2, "features": [], "software": ""},
            "min_version",
        ),
        (
            {"t": "hello", "version": 1, "min_version": 1, "features": ["a", "a"], "software": ""},
            "without repeats",
        ),
        (
            {
                "t": "hello",
                "version": 1,
                "min_version": 1,
                "features": ["Bad Feature"],
                "software": "",
            },
            "of the form",
        ),
        (
            {
                "t": "privacy",
                "id": 1,
                "game": GAME,
                "n": 0,
                "step": "x",
                "body": [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]],
                "sig": SIG,
            },
            "nested",
        ),
        ({"t": "error", "code": "meltdown", "message": "x"}, "one of"),
    ],
)
def test_refusals_say_what_is_wrong(wire: Any, why: str) -> None:
    with pytest.raises(BadMessage, match=why):
        m.message_from_wire(wire)


def test_error_messages_carry_their_exception_type() -> None:
    err = m.Error.from_exception(IllegalMove("R-B5: the cover is too low", rule="R-B5"), re=4)
    back = m.message_from_wire(m.message_to_wire(err))
    assert isinstance(back, m.Error)
    exc = back.exception()
    assert isinstance(exc, IllegalMove) and exc.rule == "R-B5" and back.re == 4


def test_version_negotiation_names_too_old_and_too_new() -> None:
    assert m.check_version(m.PROTOCOL_VERSION, m.MIN_PROTOCOL_VERSION) == m.PROTOCOL_VERSION
    assert m.check_version(m.PROTOCOL_VERSION + 5, m.MIN_PROTOCOL_VERSION) == m.PROTOCOL_VERSION
    with pytest.raises(VersionTooOld, match="too old"):
        m.check_version(m.MIN_PROTOCOL_VERSION - 1, 0)
    with pytest.raises(VersionTooNew, match="too new"):
        m.check_version(m.PROTOCOL_VERSION + 2, m.PROTOCOL_VERSION + 1)
