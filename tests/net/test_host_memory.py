"""The host's memory comes back after many connections at once (benchmarks/net_memory.py).

Before the fix a host went from 46.7 to 108.6 MB after 200 + 200 connections and stayed
there: asyncio's TLS read buffers (256 KiB a connection) were carved from glibc's heap once
its mmap threshold had risen, and not given back (tracemalloc saw no Python object outlive
its connection).  ``LOCALDURAK_MEMORY_CONNECTIONS`` sets the count (default 200, twice)."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from benchmarks.net_memory import measure

CONNECTIONS = int(os.environ.get("LOCALDURAK_MEMORY_CONNECTIONS", "200"))
SETTLED_WITHIN_MB = 12.0
"""Of the start, once settled (the "before" stayed ~60 MB above it)."""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; glibc's malloc")
def test_the_hosts_memory_comes_back_after_400_connections_at_once() -> None:
    out = asyncio.run(measure(CONNECTIONS, 2, "idle", settle=20.0))
    print(out)
    assert all(r["results"] == {"ok": CONNECTIONS} for r in out["rounds"]), out
    grew = max(r["rss_mb"] for r in out["rounds"]) - out["start_mb"]
    assert out["settled_mb"] - out["start_mb"] <= SETTLED_WITHIN_MB, out
    assert grew > 0, out  # the connections did reach the host
