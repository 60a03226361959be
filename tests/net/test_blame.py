"""Blame goes to the cheater, never to the one who finds him (issue 11 item 2), over real TLS
on loopback: a seat whose shuffle stage is no permutation of its input is caught by the
honest seats' own checks (the host relays before it checks); they tell the host and stay;
the host checks it itself and ends the game as *aborted* — no durak, no forfeit, nobody's
score changes — naming the cheater on every screen, in the record, and in its audit."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from localdurak.game.rules import Rules
from localdurak.net.api import EventKind
from localdurak.net.client import Address, ClientSession
from localdurak.net.host import HostOptions, TableHost
from localdurak.net.identity import load_or_create
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.privacy.group import GROUP, Point
from localdurak.protocol.privacy.messages import Shuffle
from localdurak.protocol.privacy.roles import Player


async def until(cond: Any, sessions: Sequence[ClientSession], timeout: float = 30) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("cheater", [0, 2])
async def test_a_dishonest_shuffler_is_named_and_the_game_aborted_nobody_is_the_durak(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cheater: int
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
    events: list[dict[str, Any]] = []
    ident = load_or_create(tmp_path / "host")
    host = TableHost(
        ident,
        HostOptions(
            name="Blame",
            seats=3,
            rules=Rules(deck=36),
            record_dir=tmp_path / "records",
            port=0,
            advertise=False,
            host="127.0.0.1",
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
        over = next(e for e in events if e.get("event") == "game_over")
        aborted = next(e for e in events if e.get("event") == "aborted")
        assert aborted["seat"] == cheater and "proof of shuffle" in aborted["reason"]
        # No durak, no forfeit, nobody's score moved.
        assert over["result"] == {"durak": [], "draw": False, "pogony": 0}
        assert over["aborted"]["seat"] == cheater and "forfeit" not in over
        assert over["score"] == [0, 0, 0]
        assert not any(e.get("event") == "forfeit" for e in events)
        for seat, s in enumerate(sessions):
            await until(lambda s=s: s.aborted is not None, sessions)
            assert s.aborted is not None and s.aborted[0] == cheater
            # Every screen says who broke the protocol; nobody left the table on its own (the
            # one game of the series is over, so the host closes it).
            assert s.closed_reason is None or "series is over" in s.closed_reason
            ends = [e for e in s.events if e.kind is EventKind.GAME_OVER]
            assert ends and ends[-1].seat == cheater
            if seat != cheater and seat != (cheater + 1) % 3:
                # Its own checks found it (the next shuffler may not have checked it yet).
                assert s.cheat is not None and s.cheat[0] == cheater
        # The record: aborted, naming the cheater; its audit names the cheater alone.
        record = json.loads(Path(over["record"]).read_text())
        assert record["aborted"]["seat"] == cheater
        report = audit(record)
        assert report.guilty == (cheater,), report.faults
        assert any(f.seat == cheater and "proof of shuffle" in f.what for f in report.faults)
    finally:
        for s in sessions:
            await s.close()
        await host.close("test over")
        run.cancel()
