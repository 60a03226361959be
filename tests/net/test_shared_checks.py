"""A seat played in the host's process checks no shuffle stage the host has checked, nor the
host one it has (docs/privacy.md, "Who checks"; `host_bots.share_checks`): one machine checks
each stage once, where it checked it once for the table and again for every seat it plays."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from localdurak.game.rules import Rules
from localdurak.protocol.privacy import transcript
from tests.support.hosts import host_with_guest, until_hand_decoded


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
    async with host_with_guest(
        tmp_path,
        name="Shared",
        seats=3,
        bots=2,
        bot_level="random",
        rules=Rules(deck=36),
        bot_delay=0.05,
    ) as (_host, guest):
        await guest.set_ready(True)
        await until_hand_decoded(guest)
        seat = guest.my_seat
        assert seat is not None
        seen = sorted(checked)
    # The guest checks the two bots' stages; this process (host and bots) checks only the
    # guest's stage, once: not the bots' own, and not again for each bot.
    bots = [s for s in range(3) if s != seat]
    assert seen == sorted([*bots, seat]), (seat, seen)
