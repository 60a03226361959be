"""The soak suites at their full counts: hostile input, faults, load, endurance (tests/soak/).

    python benchmarks/soak.py [--json] [--only fuzz,faults,load,endurance,recovery] [--out FILE]

Every host runs on loopback with advertising off, or inside network namespaces this script
makes itself (the faults suite; needs root).  Prints each suite's figures; ``--json`` one JSON
object with all of them."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["LOCALDURAK_NO_MDNS"] = "1"

SUITES = ("fuzz", "faults", "load", "endurance", "recovery")


def run_suite(name: str, tmp: Path) -> dict[str, Any]:
    if name == "fuzz":
        from tests.soak.fuzz import run_fuzz

        return asyncio.run(run_fuzz(tmp, 100_000, hard_every=2_000, progress=True))
    if name == "recovery":
        from tests.soak.recovery import run_recovery

        return run_recovery(tmp, games=int(os.environ.get("LOCALDURAK_RECOVERY_GAMES", "40")))
    if name == "faults":
        from tests.soak.faults import run_faults

        return run_faults(
            tmp,
            client_kills=20,
            host_kills=3,
            link_cuts=6,
            lost_tails=3,
            disk_fills=2,
            delay=0.8,
            deck=52,
        )
    if name == "load":
        from tests.soak.load import run_load

        return asyncio.run(run_load(tmp, idle=50, games=6))
    if name == "endurance":
        from tests.soak.endurance import run_endurance

        return run_endurance(tmp, games=200)
    raise ValueError(name)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--only", default=",".join(SUITES))
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = ap.parse_args()
    figures: dict[str, Any] = {}
    for name in args.only.split(","):
        t0 = time.monotonic()
        with tempfile.TemporaryDirectory(prefix=f"soak-{name}-") as d:
            out = run_suite(name, Path(d))
        out["wall_seconds"] = round(time.monotonic() - t0, 1)
        figures[name] = out
        if not args.json:
            print(f"== {name}")
            for k, v in out.items():
                print(f"  {k}: {v}")
        sys.stdout.flush()
        if args.out is not None:
            args.out.write_text(json.dumps(figures, indent=1, default=str))
    if args.json:
        print(json.dumps(figures, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
