"""A table host for in-process tests: its options on loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from localdurak.net.host import HostOptions


def loopback(tmp_path: Path, **options: Any) -> HostOptions:
    """`HostOptions` for a table on 127.0.0.1 at a free port, not advertised, its records in
    ``tmp_path / "records"``; ``options`` give the rest (name, seats, bots, rules…)."""
    where: dict[str, Any] = {
        "record_dir": tmp_path / "records",
        "port": 0,
        "advertise": False,
        "host": "127.0.0.1",
    }
    return HostOptions(**(where | options))
