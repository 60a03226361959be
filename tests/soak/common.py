"""Shared bits of the soak suites: counts, process memory and descriptors, record checks."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.records import parse_record, replay

FULL = os.environ.get("LOCALDURAK_SOAK", "") == "full"
"""``LOCALDURAK_SOAK=full`` runs the tests at the issue's full counts (benchmarks/soak.py
passes them directly); CI runs the small ones."""


def rss_kib(pid: int | str = "self") -> int:
    """Resident memory of a process (VmRSS, KiB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise ValueError(f"no VmRSS for process {pid}")


def fds(pid: int | str = "self") -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def check_record(path: str | Path) -> dict[str, Any]:
    """The record audits clean, replays to its result, and every card is accounted for."""
    text = Path(path).read_text(encoding="utf-8")
    record: dict[str, Any] = json.loads(text)
    report = audit(record)
    assert report.clean, report.faults
    out = replay(parse_record(text))
    assert out["ok"], out["error"]
    assert out["result"] == record["result"]
    # The deck the protocol dealt is the rules' deck; at the end every card is in a hand,
    # on the table, in the discard pile or the stock.
    assert sorted(record["deck"]) == sorted(str(c) for c in report.deck or ())
    state = out["state"]
    on_table = sum(1 for pair in state["table"] for c in pair if c is not None)
    held = sum(len(h) for h in state["hands"])
    assert held + state["discard"] + state["stock"] + on_table == len(record["deck"])
    return record


def percentile(xs: list[float], p: float) -> float:
    s = sorted(xs)
    if not s:
        return float("nan")
    k = min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))
    return s[k]
