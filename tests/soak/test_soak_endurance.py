"""Soak suite 4: bot games in a row at one host process (tests/soak/endurance.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.soak.common import FULL
from tests.soak.endurance import run_endurance

# A long run (the quick suite is `pytest -m "not slow"`; CI runs everything).
pytestmark = pytest.mark.slow

GAMES = 200 if FULL else 5


def test_games_in_a_row_keep_memory_and_descriptors_bounded_every_record_clean(
    tmp_path: Path,
) -> None:
    out = run_endurance(tmp_path, GAMES, deck=36 if FULL else 24)
    assert out["games"] == GAMES
    assert out["records_replayed_and_audited"] == GAMES
    # Bounds after warm-up: memory within 30 MB (the event log kept for resumes grows a little
    # per game), descriptors not at all beyond a couple of transient ones.
    assert out["rss_growth_after_warmup_kib"] < 30_000, out
    assert out["fd_growth_after_warmup"] <= 2, out
