"""Soak suite 1: hostile input at a live host during a game (tests/soak/fuzz.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.soak.common import FULL
from tests.soak.fuzz import EXPECTED, run_fuzz

# A long run (the quick suite is `pytest -m "not slow"`; CI runs everything).
pytestmark = pytest.mark.slow

MESSAGES = 100_000 if FULL else 600


async def test_hostile_frames_and_messages_change_nothing_and_get_clear_errors(
    tmp_path: Path,
) -> None:
    out = await run_fuzz(tmp_path, MESSAGES, hard_every=max(150, MESSAGES // 50))
    assert out["messages"] >= MESSAGES
    assert out["host_errors"] == []  # no handler of the host failed
    assert out["unanswered"] == [] and out["wrong"] == [], (out["unanswered"], out["wrong"])
    # Every kind was sent and got one of its refusals; the state checks ran between moves.
    assert set(out["kinds"]) == set(EXPECTED)
    for code in ("bad_frame", "bad_message", "too_new", "auth_failed", "forbidden"):
        assert out["codes"].get(code, 0) > 0, (code, out["codes"])
    for code in ("table_full", "unavailable", "tls"):
        assert out["codes"].get(code, 0) > 0, (code, out["codes"])
    assert out["codes"].get("not_your_turn", 0) + out["codes"].get("illegal_move", 0) > 0
    assert out["bursts_with_state_unchanged"] >= 5
    assert out["games"] >= 1 and out["records_clean"] == out["games"]
    # Memory and descriptors bounded: after warm-up they grow by less than a fixed bound.
    assert out["rss_kib_end"] - out["rss_kib_after_warmup"] < 40_000
    assert out["fds_end"] - out["fds_after_warmup"] <= 4
