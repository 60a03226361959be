"""Soak suite 2: kill -9 and restarts of clients and the host, link cuts, a power cut's lost
tail, a disk filled then freed, in one game (tests/soak/faults.py).  Needs root and
``ip netns`` (CI runs as root)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.soak.common import FULL
from tests.soak.faults import run_faults
from tests.support import netns

# A long run (the quick suite is `pytest -m "not slow"`; CI runs everything).
pytestmark = pytest.mark.slow

COUNTS = (
    {"client_kills": 20, "host_kills": 3, "link_cuts": 6, "lost_tails": 3, "disk_fills": 2}
    if FULL
    else {"client_kills": 3, "host_kills": 1, "link_cuts": 1, "lost_tails": 1, "disk_fills": 1}
)


@pytest.mark.netns
def test_kills_restarts_and_link_cuts_lose_nothing(tmp_path: Path) -> None:
    reason = netns.unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    # The CI-sized game must outlast its five faults: with 24 cards and bots thinking 0.1 s it
    # could end before the last one, now that the table runs faster.
    out = run_faults(tmp_path, **COUNTS, delay=0.8 if FULL else 0.25, deck=52 if FULL else 36)
    assert out["client_kills"] == COUNTS["client_kills"], out
    assert out["host_kills"] == COUNTS["host_kills"], out
    assert out["link_cuts"] == COUNTS["link_cuts"], out
    assert out["lost_tails"] == COUNTS["lost_tails"], out
    assert out["disk_fills"] == COUNTS["disk_fills"], out
    assert out["audit"] == "clean" and out["cards_accounted_for"] == out["deck"]
