"""The card-privacy messages: every kind round-trips through msgpack and JSON; anything else
raises only MessageError (architecture.md: garbage raises only the protocol's own error)."""

from __future__ import annotations

import contextlib
from typing import Any

import msgpack
from hypothesis import example, given, settings
from hypothesis import strategies as st

from localdurak.protocol.privacy.audit import NotARecord, audit
from localdurak.protocol.privacy.messages import (
    Act,
    Answer,
    Commit,
    KeyReveal,
    Message,
    MessageError,
    Nonce,
    Play,
    Refill,
    Return,
    Shuffle,
    Strip,
    message_from_dict,
    message_from_json,
)
from localdurak.protocol.privacy.record import TranscriptError, transcript_from_dict

B32 = st.binary(min_size=32, max_size=32)
B64 = st.binary(min_size=64, max_size=64)
SEAT = st.integers(0, 5)
ACTION = st.fixed_dictionaries({"do": st.sampled_from(["attack", "pass"]), "seat": SEAT})

MESSAGES = st.one_of(
    st.builds(Nonce, SEAT, B32),
    st.builds(Commit, SEAT, B32, B64),
    st.builds(Shuffle, SEAT, st.lists(B32, max_size=5).map(tuple)),
    st.builds(
        Refill,
        SEAT,
        st.integers(1, 9),
        st.lists(SEAT, max_size=6).map(tuple),
        SEAT,
        st.lists(st.integers(0, 51), max_size=6).map(tuple),
    ),
    st.builds(
        Strip,
        SEAT,
        st.integers(0, 9),
        st.integers(-1, 5),
        st.lists(st.integers(0, 51), max_size=3).map(tuple),
        st.lists(B32, max_size=3).map(tuple),
        B64,
    ),
    st.builds(
        Return,
        SEAT,
        st.lists(st.integers(0, 51), max_size=3).map(tuple),
        st.lists(SEAT, max_size=3).map(tuple),
    ),
    st.builds(Answer, SEAT, st.integers(2, 14), st.integers(-1, 51), st.integers(-1, 51), B64),
    st.builds(
        Play,
        SEAT,
        st.integers(0, 99),
        st.integers(-1, 51),
        st.integers(0, 51),
        st.booleans(),
        ACTION,
        B64,
    ),
    st.builds(Act, SEAT, st.integers(0, 99), ACTION, B64),
    st.builds(KeyReveal, SEAT, B32),
)


@settings(max_examples=150)
@given(MESSAGES)
def test_every_message_round_trips_through_msgpack_and_json(msg: Message) -> None:
    packed = msgpack.packb(msg.to_dict(), use_bin_type=True)
    assert message_from_dict(msgpack.unpackb(packed, raw=False)) == msg
    assert message_from_json(msg.to_json()) == msg
    assert type(msg).from_dict(msg.to_dict()) == msg


GARBAGE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.binary(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=20,
)


@settings(max_examples=200)
@example({"format": []}, "nonce")  # found by CI: an unhashable format crashed the reader
@given(
    GARBAGE,
    st.sampled_from(
        [
            "nonce",
            "commit",
            "shuffle",
            "refill",
            "strip",
            "answer",
            "play",
            "act",
            "key",
            "return",
            "nope",
        ]
    ),
)
def test_garbage_raises_only_message_error(value: Any, kind: str) -> None:
    for candidate in (value, {"kind": kind, **(value if isinstance(value, dict) else {})}):
        with contextlib.suppress(MessageError):
            message_from_dict(candidate)
        with contextlib.suppress(MessageError):
            message_from_json(candidate)
        with contextlib.suppress(TranscriptError):
            transcript_from_dict(candidate)


@settings(max_examples=200)
@given(MESSAGES, st.data())
def test_a_valid_message_with_one_field_spoiled_raises_only_message_error(
    msg: Message, data: st.DataObject
) -> None:
    d = msg.to_dict()
    field = data.draw(st.sampled_from(sorted(d)))
    d[field] = data.draw(GARBAGE)
    try:
        back = message_from_dict(d)
    except MessageError:
        return
    assert back.to_dict()[field] == d[field] or field == "kind"


_RECORD: dict[str, Any] = {}


def _small_record() -> dict[str, Any]:
    if not _RECORD:
        from tests.support.privacy_play import table

        tab = table(2, 24, seed=12)
        tab.start()
        tab.reveal()
        _RECORD.update(tab.record())
    return _RECORD


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_audit_of_a_damaged_log_reports_or_refuses_never_crashes(data: st.DataObject) -> None:
    record = _small_record()
    log = list(record["privacy"]["log"])
    op = data.draw(st.sampled_from(["drop", "swap", "spoil"]))
    i = data.draw(st.integers(0, len(log) - 1))
    if op == "drop":
        del log[i]
    elif op == "swap":
        j = data.draw(st.integers(0, len(log) - 1))
        log[i], log[j] = log[j], log[i]
    else:
        entry = dict(log[i])
        field = data.draw(st.sampled_from(sorted(entry)))
        entry[field] = data.draw(GARBAGE)
        log[i] = entry
    damaged = dict(record, privacy=dict(record["privacy"], log=log))
    try:
        report = audit(damaged)
    except NotARecord:
        return
    if op == "drop":  # every message of a game is needed: a dropped one is noticed
        assert not report.clean
