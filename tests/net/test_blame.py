"""Blame goes to the cheater, never to the one who finds him, over real TLS on loopback: a seat
whose shuffle stage is no permutation of its input, a seat whose "not me" (R-F1) is false, a
seat whose layer removal is wrong — each is caught by the honest seats' own checks (the host
relays before it checks) and by the host's; the honest seats tell the host and stay; the host
ends the game as *aborted* — no durak, no forfeit, nobody's score changes — naming the
cheater alone on every client, in the record, in its audit and in `localdurak audit`."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from localdurak.cli.main import main
from localdurak.game.rules import Rules
from localdurak.net.api import EventKind
from localdurak.net.client import Address, ClientSession
from localdurak.net.host import TableHost
from localdurak.net.identity import load_or_create
from localdurak.protocol.privacy.audit import AuditReport, audit
from localdurak.protocol.privacy.group import GROUP, Point
from localdurak.protocol.privacy.messages import Answer, Shuffle, Strip
from localdurak.protocol.privacy.proofs import batch_dleq_prove
from localdurak.protocol.privacy.roles import Player
from localdurak.protocol.privacy.transcript import strip_step
from localdurak.protocol.signing import key_fingerprint
from tests.protocol.test_not_me import false_not_me
from tests.support.hosts import loopback


async def until(cond: Any, sessions: Sequence[ClientSession], timeout: float = 30) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("cheater", [0, 2])
async def test_a_dishonest_shuffler_is_named_and_the_game_aborted_nobody_is_the_durak(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    cheater: int,
) -> None:
    honest = Player._signed_shuffle

    def dishonest(
        self: Player, before: Sequence[Point], after: tuple[Point, ...], perm: Sequence[int]
    ) -> Shuffle:
        if self.seat == cheater:
            # A copy a·X of another slot (it would read that card): valid, distinct points.
            deck = list(after)
            deck[3] = GROUP.mul(GROUP.scalar_reduce(b"\x09" * 64), deck[7])
            after = tuple(deck)
        return honest(self, before, after, perm)

    monkeypatch.setattr(Player, "_signed_shuffle", dishonest)
    events, sessions, closed = await _abort_over_tls(tmp_path)
    report = _only_the_guilty_named(
        tmp_path, events, sessions, cheater, "proof of shuffle", monkeypatch, capsys
    )
    for seat, s in enumerate(sessions):
        # Nobody left the table on its own (the one game of the series is over, so the host
        # closes it).
        why = closed[seat]
        assert why is None or "series is over" in why, closed
        if seat != cheater and seat != (cheater + 1) % 3:
            # Its own checks found it (the next shuffler may not have checked it yet).
            assert s.cheat is not None and s.cheat[0] == cheater
    assert any(f.seat == cheater and "proof of shuffle" in f.what for f in report.faults)


async def _abort_over_tls(
    tmp_path: Path,
) -> tuple[list[dict[str, Any]], list[ClientSession], list[str | None]]:
    """A 3-seat table over loopback TLS played until its game ends (by the patched cheat):
    the host's events, the sessions (closed by now: what they saw stays) and why each was
    closed before the test closed it (None: it was not)."""
    events: list[dict[str, Any]] = []
    ident = load_or_create(tmp_path / "host")
    host = TableHost(
        ident,
        loopback(
            tmp_path,
            name="Blame",
            seats=3,
            rules=Rules(deck=36),
            hold=60,
        ),
        on_event=events.append,
    )
    await host.start()
    run = asyncio.create_task(host.run())
    sessions: list[ClientSession] = []
    try:
        for name in ("alice", "bob", "carol"):  # seats 0, 1, 2 in the order they join
            s = ClientSession(
                load_or_create(tmp_path / name),
                name,
                Address("127.0.0.1", host.port, ident.fingerprint),
                state_dir=tmp_path / name / "sessions",
            )
            await s.start()
            sessions.append(s)
        for s in sessions:
            await s.set_ready(True)
        await until(lambda: any(e.get("event") == "game_over" for e in events), sessions)
        for s in sessions:
            await until(lambda s=s: s.aborted is not None, sessions)
        return events, sessions, [s.closed_reason for s in sessions]
    finally:
        for s in sessions:
            await s.close()
        await host.close("test over")
        run.cancel()


def _only_the_guilty_named(
    tmp_path: Path,
    events: list[dict[str, Any]],
    sessions: Sequence[ClientSession],
    guilty: int,
    why: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> AuditReport:
    """The game ended as aborted naming ``guilty`` alone: at the host, on every client, in the
    record, in its audit and in `localdurak audit` (which marks the seat of the device that
    runs it)."""
    over = next(e for e in events if e.get("event") == "game_over")
    aborted = next(e for e in events if e.get("event") == "aborted")
    assert aborted["seat"] == guilty and why in aborted["reason"], aborted
    assert over["result"] == {"durak": [], "draw": False, "pogony": 0}
    assert over["aborted"]["seat"] == guilty and "forfeit" not in over
    assert over["score"] == [0, 0, 0]
    assert not any(e.get("event") == "forfeit" for e in events)
    for s in sessions:
        assert s.aborted is not None and s.aborted[0] == guilty
        ends = [e for e in s.events if e.kind is EventKind.GAME_OVER]
        assert ends and ends[-1].seat == guilty
        # What a client's own checks found (if anything) names the same seat, nobody else.
        assert s.cheat is None or s.cheat[0] == guilty
    record_path = Path(over["record"])
    record = json.loads(record_path.read_text())
    assert record["aborted"]["seat"] == guilty
    report = audit(record)
    assert report.guilty == (guilty,), report.faults
    assert all(f.seat == guilty for f in report.faults if f.seat is not None), report.faults
    # `localdurak audit RECORD`, run on an honest player's device: exit 1, the guilty seat
    # and only it named; every seat's identity fingerprint, this device's seat marked.
    honest = (guilty + 1) % 3
    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path / ("alice", "bob", "carol")[honest]))
    capsys.readouterr()
    assert main(["audit", str(record_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    named = {s for s in range(3) for line in out if line.startswith(f"seat {s}:")}
    faults = [line for line in out if "identity" not in line and line.startswith("seat ")]
    assert faults and all(line.startswith(f"seat {guilty}:") for line in faults), out
    assert named == {0, 1, 2}
    for seat, name in enumerate(("alice", "bob", "carol")):
        fp = key_fingerprint(load_or_create(tmp_path / name).public_key)
        (line,) = [x for x in out if x.startswith(f"seat {seat}: {name}, identity {fp}")]
        assert line.endswith("(this device: you)") == (seat == honest), line
    return report


async def test_a_false_not_me_over_the_network_aborts_naming_the_liar_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # R-F1: whichever seat holds the first trump asked for says "not me" instead of showing
    # it, with the best proof a liar can make (tests/protocol/test_not_me.py).
    honest_rf1 = Player._rf1
    liar: list[int] = []

    def lying(self: Player) -> list[Any]:
        out = honest_rf1(self)
        if out and isinstance(out[0], Answer) and out[0].position >= 0 and not liar:
            liar.append(self.seat)
            self._answered.add(out[0].rank)
            return [false_not_me(self, out[0])]
        return out

    monkeypatch.setattr(Player, "_rf1", lying)
    events, sessions, _ = await _abort_over_tls(tmp_path)
    assert liar, "nobody held a trump"
    report = _only_the_guilty_named(
        tmp_path, events, sessions, liar[0], "not me", monkeypatch, capsys
    )
    # The refused claim is kept in the log as the evidence, and its signed step in the record
    # with it: one fault naming a seat, the liar's, and no message in no signed step.
    assert [f.seat for f in report.faults if f.seat is not None] == [liar[0]], report.faults
    assert not any("in no step their seat signed" in f.what for f in report.faults), report.faults


@pytest.mark.parametrize("cheater", [1, 2])
async def test_a_bad_layer_removal_over_the_network_aborts_naming_the_stripper_alone(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    cheater: int,
) -> None:
    # reading: "a seat's strip/decode is bad" — over the network a bad decode cannot come
    # first: every layer removal is proven and checked before anyone decodes, so the bad
    # strip is what is caught (the decode's own DLEQ, `BadDecode`, is tested in
    # tests/protocol/test_bad_decode.py).
    # The cheater's first layer removal of the deal puts another (valid) point in one slot:
    # its proof cannot hold.  The host relays it before checking; the next seat of the
    # chunk's route checks the chain before stripping, the owner before decoding.
    honest_strip = Player._strip
    done: list[int] = []

    def bad(self: Player, chunk: Any, d: int) -> Strip:
        msg = honest_strip(self, chunk, d)
        if self.seat != cheater or done:
            return msg
        done.append(chunk.owner)
        outputs = list(msg.outputs)
        outputs[0] = GROUP.mul(GROUP.scalar_reduce(b"\x05" * 64), outputs[0])
        inputs = self.t.stages[chunk.key][d]
        ctx = self.t.ctx(self.seat, strip_step(chunk), chunk.positions)
        proof = batch_dleq_prove(os.urandom, self._k, self.key, tuple(outputs), inputs, ctx)
        return replace(msg, outputs=tuple(outputs), proof=proof)

    monkeypatch.setattr(Player, "_strip", bad)
    events, sessions, _ = await _abort_over_tls(tmp_path)
    assert done
    _only_the_guilty_named(
        tmp_path, events, sessions, cheater, "layer removal", monkeypatch, capsys
    )
