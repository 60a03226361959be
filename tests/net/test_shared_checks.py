"""A seat played in the host's process checks no shuffle stage the host has checked, nor the
host one it has (docs/privacy.md, "Who checks"; `host_bots.share_checks`): one machine checks
each stage once, where it checked it once for the table and again for every seat it plays."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from localdurak.game.rules import Rules
from localdurak.net.client import Address, ClientSession
from localdurak.net.host import TableHost
from localdurak.net.identity import load_or_create
from localdurak.protocol.privacy import transcript
from tests.support.hosts import loopback


async def test_the_host_and_its_bots_check_each_stage_once_the_guest_every_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[int] = []  # the shuffler of every stage checked, once per check

    one, many = transcript.shuffle_verify, transcript.shuffle_verify_many

    def count_one(y: bytes, inputs: Any, outputs: Any, proof: bytes, ctx: Any) -> bool:
        checked.append(ctx.seat)
        return one(y, inputs, outputs, proof, ctx)

    def count_many(stages: Sequence[Any]) -> bool:
        ok = many(stages)
        if ok:  # a failed combination is followed by each stage alone, counted there
            checked.extend(st[4].seat for st in stages)
        return ok

    monkeypatch.setattr(transcript, "shuffle_verify", count_one)
    monkeypatch.setattr(transcript, "shuffle_verify_many", count_many)
    ident = load_or_create(tmp_path / "host")
    host = TableHost(
        ident,
        loopback(
            tmp_path,
            name="Shared",
            seats=3,
            bots=2,
            bot_level="random",
            rules=Rules(deck=36),
            bot_delay=0.05,
        ),
    )
    await host.start()
    run = asyncio.create_task(host.run())
    guest = ClientSession(
        load_or_create(tmp_path / "guest"),
        "guest",
        Address("127.0.0.1", host.port, ident.fingerprint),
        state_dir=tmp_path / "guest" / "sessions",
    )
    try:
        await guest.start()
        await guest.set_ready(True)
        loop = asyncio.get_running_loop()
        end = loop.time() + 60
        while guest.game is None or not guest.game.hand_decoded():
            assert loop.time() < end, "no deal"
            await asyncio.sleep(0.01)
        seat = guest.my_seat
        assert seat is not None
        seen = sorted(checked)
    finally:
        await guest.close()
        await host.close("test over")
        run.cancel()
    # The guest checks the two bots' stages; this process (host and bots) checks only the
    # guest's stage, once: not the bots' own, and not again for each bot.
    bots = [s for s in range(3) if s != seat]
    assert seen == sorted([*bots, seat]), (seat, seen)
