"""Helpers for the card-privacy tests: seeded tables; the scripted game lives in
tests.support.privacy_sim (the benchmarks use it too)."""

from __future__ import annotations

import random
from typing import Any

from localdurak.protocol.privacy.schedule import Setup
from localdurak.protocol.privacy.transcript import Transcript, deal_order
from tests.support.privacy_sim import MemoryTable, play_scripted_game


def rngs(n: int, seed: int) -> list[Any]:
    return [random.Random(seed * 100 + s).randbytes for s in range(n)]


def table(n: int, deck: int, *, seed: int = 1, dealer: int | None = None, **kw: Any) -> MemoryTable:
    setup = Setup(
        n, deck, 6, n - 1 if dealer is None else dealer, japanese=kw.pop("japanese", False)
    )
    return MemoryTable(setup, rngs(n, seed), **kw)


def order_of(n: int, deck: int, **kw: Any) -> tuple[int, ...]:
    """The deal order (step 2b) a `table` with these arguments will use: its seeds come from
    the seeded random sources, so a test can aim a cheat at a dealt position, which a real
    shuffler cannot (it shuffles before any seed is revealed)."""
    kw.pop("tamper", None)
    tab = table(n, deck, **kw)
    t = Transcript(tab.setup)
    for p in tab.players:
        for msg in p.start():
            t.accept(msg)
    assert t.game_id is not None
    return deal_order(t.game_id, [p.seed for p in tab.players], deck)


def slot_dealt_at(position: int, n: int, deck: int, **kw: Any) -> int:
    """The shuffle-stage slot that a `table` with these arguments deals at ``position``."""
    return order_of(n, deck, **kw)[position]


__all__ = ["order_of", "play_scripted_game", "rngs", "slot_dealt_at", "table"]
