"""The host's memory after many connections at once, and whether it comes back.

    python benchmarks/net_memory.py [--connections 200] [--rounds 2] [--mode idle|refused]
                                    [--settle 15] [--json]

Starts a headless host (3 seats, advertising off, loopback) in its own process, then opens
``--connections`` TLS connections to it at once, ``--rounds`` times: ``idle`` ones hold the
TLS connection for 2 s without a word, then close; ``refused`` ones go through the handshake
(the table fills, the rest are refused ``table_full``).  Prints the host's resident memory
(VmRSS) at the start, after each round, and once it settles (polled up to ``--settle``
seconds for it to come within 5 MB of the start).  Linux (reads /proc).

``LOCALDURAK_MALLOC=default`` in the environment runs the host without its allocator
settings (`localdurak.net.transport._Memory`), for the "before": 45 → 107 MB after
200 + 200 idle connections, never back; with them, back to about the start."""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from localdurak.net import transport as tr  # noqa: E402
from localdurak.net.identity import Identity  # noqa: E402


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def _idle(port: int) -> str:
    try:
        _, w = await asyncio.open_connection("127.0.0.1", port, ssl=tr.client_context())
    except OSError as e:
        return type(e).__name__
    await asyncio.sleep(2)
    w.close()
    return "ok"


async def _refused(port: int, fingerprint: str) -> str:
    try:
        ch = await tr.connect("127.0.0.1", port, fingerprint=fingerprint, timeout=20)
        await tr.client_handshake(ch, Identity.ephemeral(), name="load")
        await asyncio.sleep(1)
        await ch.close()
        return "seated"
    except Exception as e:
        return type(e).__name__


async def measure(connections: int, rounds: int, mode: str, settle: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, LOCALDURAK_HOME=f"{tmp}/home", LOCALDURAK_NO_MDNS="1")
        env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
        host = subprocess.Popen(
            [
                *(sys.executable, "-m", "localdurak", "host", "--headless", "--seats", "3"),
                *("--port", "0", "--no-advertise", "--record-dir", f"{tmp}/records"),
            ],
            stdout=subprocess.PIPE,
            env=env,
            text=True,
            cwd=REPO,
        )
        try:
            assert host.stdout is not None
            listening = json.loads(host.stdout.readline())
            port, fingerprint = listening["port"], listening["fingerprint"]
            out: dict[str, Any] = {"start_mb": rss_mb(host.pid), "rounds": []}
            for _ in range(rounds):
                if mode == "idle":
                    got = await asyncio.gather(*(_idle(port) for _ in range(connections)))
                else:
                    got = await asyncio.gather(
                        *(_refused(port, fingerprint) for _ in range(connections))
                    )
                out["rounds"].append(
                    {"rss_mb": rss_mb(host.pid), "results": dict(collections.Counter(got))}
                )
            deadline = time.monotonic() + settle
            while True:
                now = rss_mb(host.pid)
                if now <= out["start_mb"] + 5 or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.25)
            out["settled_mb"] = now
            out["settle_s"] = round(settle - max(0.0, deadline - time.monotonic()), 2)
            return out
        finally:
            host.terminate()
            host.wait(30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--connections", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--mode", choices=("idle", "refused"), default="idle")
    ap.add_argument("--settle", type=float, default=15.0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    out = asyncio.run(measure(a.connections, a.rounds, a.mode, a.settle))
    if a.json:
        print(json.dumps(out))
        return
    print(f"host RSS at the start: {out['start_mb']:.1f} MB")
    for i, r in enumerate(out["rounds"]):
        print(
            f"after round {i + 1} ({a.connections} {a.mode}): {r['rss_mb']:.1f} MB {r['results']}"
        )
    print(f"settled ({out['settle_s']:g} s later): {out['settled_mb']:.1f} MB")


if __name__ == "__main__":
    main()
