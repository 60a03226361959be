"""Security review of card privacy: malformed or early messages raise only the protocol's own
errors (a `RemoteProtocolError` naming the sender, recorded by the host), change nothing, and
never crash a state machine; the host's own bad calls leave its transcript as it was."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import random
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from localdurak.protocol.errors import LocalProtocolError, RemoteProtocolError
from localdurak.protocol.privacy.cardpoints import CARD_POINTS
from localdurak.protocol.privacy.messages import (
    KINDS,
    Act,
    KeyReveal,
    MessageError,
    Play,
    Return,
    Strip,
    message_from_dict,
)
from localdurak.protocol.privacy.roles import Host, Player
from localdurak.protocol.privacy.schedule import Setup
from localdurak.protocol.privacy.transcript import Transcript
from tests.support.privacy_play import table


def snapshot(t: Transcript) -> tuple[Any, ...]:
    s = t.schedule
    return (
        len(t.log),
        s.stock_left,
        len(s.batches),
        dict(s.holder),
        list(t.on_table),
        dict(t.taken),
        set(t.discarded),
        list(t.last_index),
    )


def test_review_an_action_that_is_not_json_is_refused_not_a_crash() -> None:
    tab = table(3, 36, seed=31)
    tab.start()
    bad = Act(1, 0, {"do": b"\xff"}, bytes(64))
    before = snapshot(tab.host.t)
    with pytest.raises(RemoteProtocolError) as e:
        tab.host.receive(1, bad)
    assert e.value.seat == 1 and tab.host.refused[-1]["seat"] == 1
    assert snapshot(tab.host.t) == before
    # A player handed it by a host: the same refusal, not a TypeError.
    with pytest.raises(RemoteProtocolError):
        tab.players[2].receive(bad)
    # And off the wire it is not a message at all.
    data = msgpack.unpackb(msgpack.packb(bad.to_dict(), use_bin_type=True), raw=False)
    with pytest.raises(MessageError):
        message_from_dict(data)


def test_review_messages_before_their_step_are_the_senders_fault() -> None:
    setup = Setup(3, 36, 6, 2)
    host = Host(setup)
    early = [
        Act(1, 0, {"do": "pass"}, bytes(64)),  # before the game id
        KeyReveal(1, (5).to_bytes(32, "little")),  # before its commitment
    ]
    for msg in early:
        with pytest.raises(RemoteProtocolError) as e:
            host.receive(1, msg)
        assert e.value.seat == 1
    assert [r["seat"] for r in host.refused] == [1, 1]
    player = Player(setup, 0, random.Random(1).randbytes)
    for msg in early:
        with pytest.raises(RemoteProtocolError):
            player.receive(msg)


def test_review_playing_a_refill_card_before_it_is_dealt_is_the_players_fault() -> None:
    tab = table(3, 36, seed=32)
    tab.start()
    host = tab.host
    # The host schedules a refill but the ring pass has not run yet (the queue is held).
    for p in tab.players:
        p.expect_refill([1], None)
    host.refill([1], None)
    (position,) = host.t.schedule.batches[1][0].positions
    forged = Play(1, 0, position, 4, False, {"do": "attack", "cards": ["6S"]}, bytes(64))
    before = snapshot(host.t)
    with pytest.raises(RemoteProtocolError) as e:
        host.receive(1, forged)
    assert e.value.seat == 1
    assert snapshot(host.t) == before


def test_review_a_bad_refill_or_return_from_the_host_changes_nothing() -> None:
    tab = table(3, 36, seed=33)
    tab.start()
    host = tab.host
    before = snapshot(host.t)
    with pytest.raises(LocalProtocolError):
        host.refill([0, 7], None)  # seat 7 is not at the table
    assert snapshot(host.t) == before
    card = tab.players[0].cards()[0]
    tab.play(0, card, {"do": "attack", "cards": [str(card)]})
    before = snapshot(host.t)
    with pytest.raises(LocalProtocolError):
        host.return_cards([int(card), int(card)], [0, 1])  # one card back to two hands
    assert snapshot(host.t) == before
    # The transcript refuses the same Return from a record (the audit) without a ValueError.
    t = copy.deepcopy(host.t)
    with pytest.raises(RemoteProtocolError):
        t.accept(Return(0, (int(card), int(card)), (0, 1)))
    # The game goes on: a good refill is still the next stock card.
    for p in tab.players:
        p.expect_refill([0], 0, [int(card)])
    tab.to_players(host.refill([0], 0, [int(card)]))
    tab.run()
    assert tab.players[0].t.schedule.stock_left == host.t.schedule.stock_left == 17


_VALUES = st.one_of(
    st.integers(-(2**31), 2**31 - 1),
    st.binary(max_size=40),
    st.text(max_size=5),
    st.booleans(),
    st.none(),
    st.lists(st.integers(-3, 60), max_size=5),
    st.lists(st.sampled_from(CARD_POINTS[:4]), max_size=4),
    st.dictionaries(st.text(max_size=4), st.integers() | st.binary(max_size=3), max_size=3),
)


_TYPED: dict[str, Any] = {
    "index": st.integers(-2, 3),
    "rank": st.integers(5, 15),
    "position": st.integers(-2, 40),
    "card": st.integers(-1, 53),
    "batch": st.integers(-1, 2),
    "owner": st.integers(-2, 3),
    "taker": st.integers(-2, 3),
    "shown": st.booleans(),
    "proof": st.binary(min_size=64, max_size=64),
    "key": st.binary(min_size=32, max_size=32) | st.sampled_from(CARD_POINTS[:2]),
    "nonce": st.binary(min_size=32, max_size=32),
    "action": st.dictionaries(
        st.sampled_from(["do", "seat", "card", "cards"]),
        st.text(max_size=3) | st.binary(max_size=2) | st.integers(0, 3),
        max_size=3,
    ),
}


def _value(name: str) -> Any:
    """Mostly a value of the field's type (to reach the state machines), sometimes anything."""
    typed = _TYPED.get(name)
    return _VALUES if typed is None else st.one_of(typed, typed, typed, _VALUES)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_review_random_messages_after_the_deal_raise_only_protocol_errors(
    data: st.DataObject,
) -> None:
    # A table after the deal, or one that has not started (nothing may come yet).
    tab = _dealt() if data.draw(st.booleans(), label="dealt") else table(3, 36, seed=35)
    host = tab.host
    kind = data.draw(st.sampled_from(sorted(KINDS)))
    seat = data.draw(st.integers(0, 2))
    # Every field of that kind, each a random value of a random type (most are refused by
    # the decoder; the rest reach the state machines).
    names = [f.name for f in dataclasses.fields(KINDS[kind]) if f.name != "seat"]
    raw = {"kind": kind, "seat": seat, **{n: data.draw(_value(n), label=n) for n in names}}
    try:
        msg = message_from_dict(raw)
    except MessageError:
        return
    before = snapshot(host.t)
    try:
        host.receive(seat, msg)
    except RemoteProtocolError:
        assert snapshot(host.t) == before
    for p in tab.players:
        with contextlib.suppress(RemoteProtocolError):
            p.receive(msg)


_DEALT: list[Any] = []


def _dealt() -> Any:
    if not _DEALT:
        tab = table(3, 36, seed=34)
        tab.start()
        _DEALT.append(tab)
    return copy.deepcopy(_DEALT[0])


def test_review_a_deeply_nested_or_huge_message_is_a_message_error() -> None:
    deep: Any = 0
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(MessageError):
        message_from_dict(
            {"kind": "act", "seat": 0, "index": 0, "action": {"do": deep}, "proof": bytes(64)}
        )
    tab = table(3, 36, seed=36)
    tab.start()
    huge = Return(0, tuple(range(10**5)), tuple([0] * 10**5))
    with pytest.raises(RemoteProtocolError):
        tab.players[1].receive(huge)
    with pytest.raises(RemoteProtocolError):
        tab.host.receive(1, Strip(1, 0, 0, tuple(range(10**5)), (), b""))
