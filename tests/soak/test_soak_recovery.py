"""Soak suite 5: games crashed or paused at random moments, their journals and event logs
damaged at random, resume mistakes tried, then resumed (tests/soak/recovery.py).  CI plays
a few rounds; ``LOCALDURAK_SOAK=full`` (or benchmarks/soak.py) the full count."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.soak.common import FULL
from tests.soak.recovery import run_recovery_async

pytestmark = pytest.mark.slow

GAMES = int(os.environ.get("LOCALDURAK_RECOVERY_GAMES", "40" if FULL else "3"))
"""CI's three rounds are the first three kinds; the full count draws every kind, paused
tables (SIGINT/SIGTERM's way) among them."""


async def test_crashed_damaged_and_paused_games_all_finish_and_nobody_is_blamed(
    tmp_path: Path,
) -> None:
    out = await run_recovery_async(tmp_path, GAMES)
    assert out["lost"] == 0 and out["innocent_blamed"] == 0, out
    assert out["finished"] == GAMES, out
    assert out["live_resume_refused_untouched"] == out["kinds"].get("paused", 0), out
    assert out["foreign_identity_refused"] == GAMES, out
