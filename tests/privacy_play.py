"""Helpers for the card-privacy tests: seeded tables; the scripted game lives in
localdurak.protocol.privacy_sim (the benchmarks use it too)."""

from __future__ import annotations

import random
from typing import Any

from localdurak.protocol.privacy_sim import MemoryTable, play_scripted_game
from localdurak.protocol.schedule import Setup


def rngs(n: int, seed: int) -> list[Any]:
    return [random.Random(seed * 100 + s).randbytes for s in range(n)]


def table(n: int, deck: int, *, seed: int = 1, dealer: int | None = None, **kw: Any) -> MemoryTable:
    setup = Setup(
        n, deck, 6, n - 1 if dealer is None else dealer, japanese=kw.pop("japanese", False)
    )
    return MemoryTable(setup, rngs(n, seed), **kw)


__all__ = ["play_scripted_game", "rngs", "table"]
