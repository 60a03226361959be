"""The offline table's bots at the `strong` level (docs/bots.md): `play --level strong` seats
StrongBots with a wall clock, and they play until the person must act."""

from __future__ import annotations

import asyncio
import random

from localdurak.game.bots import StrongBot
from localdurak.game.rules import Rules
from localdurak.net.local import LocalTable


async def test_strong_bots_sit_at_an_offline_table_and_play() -> None:
    names = ["Anna", "Boris", "Cyril"]
    async with LocalTable(Rules(), names, rng=random.Random(3), bot_level="strong", delay=0) as t:
        bots = list(t.bots.values())
        assert len(bots) == 2 and all(isinstance(b, StrongBot) for b in bots)
        assert all(isinstance(b, StrongBot) and b.clock is not None for b in bots)
        for _ in range(600):
            await asyncio.sleep(0.01)
            v = t.view
            assert v is not None
            if v.result is not None or (v.legal and not t.closing):
                break
        else:
            raise AssertionError("the strong bots never let the person play")
