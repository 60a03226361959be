"""A step relayed again (`recovery.relayed_before`): a resumed host relays again what it
rebuilt from its journal or got back from a player, and a seat ignores a step it has.  On
main before this the seat judged "has" by its counter alone, so a host that showed another
step under a counter the seat had taken — one the seat never signed, or a second step its
seat signed under one counter — was taken as the step the seat holds, silently: the seat's
replica and the host's record could then tell two different games.  Now the seat compares
the step with the one it holds under that counter; another one is no step it has, and its
own checks refuse it (a replay of a used counter), as any broken relay."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from unittest import mock

import pytest

from localdurak.game.rules import Rules
from localdurak.net.client import Address, ClientSession
from localdurak.net.identity import load_or_create
from localdurak.net.recovery import relayed_before
from localdurak.protocol.errors import Replayed
from localdurak.protocol.messages import PrivacyEvent
from tests.support.net_play import MemoryGame


def _played() -> MemoryGame:
    with mock.patch("os.urandom", random.Random(3).randbytes):
        g = MemoryGame(2, Rules(deck=24), seed=3)
        g.deal()
        for _ in range(4):
            assert g.step()
    return g


def _other_step(g: MemoryGame, ev: PrivacyEvent) -> PrivacyEvent:
    """Another step of ``ev``'s seat under ``ev``'s counter, signed by that seat's key (what
    a seat that equivocates signs, or a step of its refused under a counter used since)."""
    p = g.seats[ev.seat]
    n, p._n = p._n, ev.n
    try:
        signed = p.sign([p.player.act({"do": "pass", "seat": ev.seat})])
    finally:
        p._n = n
    assert signed.n == ev.n and signed.sig != ev.sig
    return signed.relayed(ev.seq + 1_000_000, ev.seat)


def test_a_seat_takes_only_the_step_it_holds_as_relayed_before() -> None:
    g = _played()
    seat = g.seats[0]
    ev = next(e for e in reversed(g.events) if e.seat == 1)
    again = dataclasses.replace(ev, seq=ev.seq + 1_000_000)  # a resumed host's relay
    assert relayed_before(seat, again, g.events)
    other = _other_step(g, ev)
    assert not relayed_before(seat, other, g.events)
    forged = dataclasses.replace(again, sig=bytes(64))  # not even its seat's signature
    assert not relayed_before(seat, forged, g.events)
    # reading: a step older than what the seat holds is judged by its counter alone (it
    # cannot compare it, and a resumed host relays again only what came lately).
    assert relayed_before(seat, other, [])
    # Not one it has: its own checks refuse it.
    with pytest.raises(Replayed):
        seat.receive(other)


def test_a_client_refuses_another_step_under_a_counter_it_took(tmp_path: Path) -> None:
    g = _played()
    session = ClientSession(
        load_or_create(tmp_path / "alice"),
        "alice",
        Address("127.0.0.1", 1, "00" * 32),
        state_dir=tmp_path / "sessions",
    )
    session.my_seat = 0
    session.game = g.seats[0]
    ev = next(e for e in reversed(g.events) if e.seat == 1)
    session._recent.extend(g.events)
    assert session._apply(dataclasses.replace(ev, seq=ev.seq + 1_000_000)) == []
    with pytest.raises(Replayed):
        session._apply(_other_step(g, ev))
