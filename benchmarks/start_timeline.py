"""Where the start of a game goes: one game's timeline, every process.

    python benchmarks/start_timeline.py [--players 6] [--deck 52] [--json]

Plays one whole game as ``benchmarks/net.py --game --host-seat`` does (the headless host with
seat 0 an in-process bot, ``players`` − 1 ``join --bot`` processes, TLS on loopback,
``LOCALDURAK_TRACE=late``) and prints, from the host's ``game_started`` to the last hand
decoded, every card-privacy step: when the host took it from its seat (``got``), relayed it
(``step``), had its own seats' part of it done (``fed``: the sockets are written only after
that), and at each client when it was taken up, checked and answered, and the answer saved
and written; the quiet-moment checks (``ahead``) between.  Times are milliseconds from the
game's start on the machine's one monotonic clock; the last lines say, per process, how much
of the span it spent busy (handling steps and quiet-moment checks) and its CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support.procs import Proc, env_for, localdurak  # noqa: E402


class CpuSampler:
    """The machine's CPU time (/proc/stat: busy and idle, all cores) sampled every few
    milliseconds with the monotonic clock, so the idle time within any span can be read
    afterwards: idle cores while the start waits are waiting nobody needed to do."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._hz = os.sysconf("SC_CLK_TCK")

    def _read(self) -> tuple[float, float, float]:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        idle = v[3] + v[4]
        return (time.monotonic(), (sum(v[:8]) - idle) / self._hz, idle / self._hz)

    def _run(self) -> None:
        while not self._stop.wait(0.005):
            self.samples.append(self._read())

    def __enter__(self) -> CpuSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def between(self, t0: float, t1: float) -> tuple[float, float]:
        """(busy, idle) CPU seconds of all cores from ``t0`` to ``t1`` (nearest samples)."""
        a = min(self.samples, key=lambda s: abs(s[0] - t0))
        b = min(self.samples, key=lambda s: abs(s[0] - t1))
        return (b[1] - a[1], b[2] - a[2])


def one_game(
    players: int, deck: int, home: Path
) -> tuple[list[dict[str, Any]], dict[int, list[dict[str, Any]]]]:
    env = env_for(home / "host", LOCALDURAK_TRACE="late", LOCALDURAK_NO_MDNS="1")
    host = Proc(
        localdurak(
            "host", "--headless", "--name", "Bench", "--seats", str(players),
            "--deck", str(deck), "--port", "0", "--no-advertise",
            "--record-dir", str(home / "rec"),
            "--bots", "1", "--level", "random", "--bot-delay", "0.05",
        ),
        env,
        "host",
    )  # fmt: skip
    clients: list[Proc] = []
    try:
        listening = host.event("listening")
        for i in range(players - 1):
            clients.append(
                Proc(
                    localdurak(
                        "join", "--address", f"127.0.0.1:{listening['port']}",
                        "--fingerprint", listening["fingerprint"], "--bot",
                        "--level", "random", "--delay", "0.05", "--name", f"p{i}",
                    ),
                    env_for(home / f"p{i}", LOCALDURAK_TRACE="late", LOCALDURAK_NO_MDNS="1"),
                    f"p{i}",
                )
            )  # fmt: skip
        host.event("game_over", 300)
        host.wait(60)
        seats: dict[int, list[dict[str, Any]]] = {}
        for c in clients:
            c.wait(60)
            while not c.lines.empty():
                c.seen.append(c.lines.get())
            seat = next(x["seat"] for x in c.seen if x.get("event") == "joined")
            seats[seat] = c.seen
        while not host.lines.empty():
            host.seen.append(host.lines.get())
        return host.seen, seats
    finally:
        for p in [host, *clients]:
            p.kill()


def timeline(host: list[dict[str, Any]], seats: dict[int, list[dict[str, Any]]]) -> dict[str, Any]:
    start = next(x for x in host if x.get("event") == "trace_start")
    t00: float = start["t"]
    dealt = [x["t"] for x in host if x.get("event") == "bot_dealt"]
    dealt += [next(x["t"] for x in s if x.get("event") == "dealt") for s in seats.values()]
    end: float = max(dealt)

    def ms(t: float) -> float:
        return round(1000 * (t - t00), 1)

    rows: list[tuple[float, str, str]] = []
    for x in host:
        if not t00 <= x.get("t", 0) <= end:
            continue
        e = x.get("event")
        if e == "got":
            rows.append((x["t"], "host", f"got {x['step']} from seat {x['seat']}"))
        elif e == "step":
            rows.append((x["t"], "host", f"relays #{x['seq']} {x['step']} of seat {x['seat']}"))
        elif e == "fed":
            rows.append((x["t"], "host", f"#{x['seq']} fed to its own seat (sockets next)"))
        elif e == "bot_dealt":
            rows.append((x["t"], "host", f"seat {x['seat']} (its bot): hand decoded"))
    busy: dict[str, float] = {}
    cpu: dict[str, float] = {}
    split: dict[str, dict[str, float]] = {}
    """Per client, its CPU in: taking steps up (checks, its own steps made), saving and
    sending its answers, quiet-moment checks; the rest (`other`) is receiving (TLS, decoding)
    and the event loop."""
    for seat, lines in sorted(seats.items()):
        who = f"seat {seat}"
        began = next(x for x in lines if x.get("event") == "started")
        mine = next(x["t"] for x in lines if x.get("event") == "dealt")  # its hand decoded
        for x in lines:
            e = x.get("event")
            if e == "ev" and x["t0"] <= end:
                sent = ",".join(x["sent"]) or "-"
                rows.append(
                    (
                        x["t0"],
                        who,
                        f"#{x['seq']} {x['step']} of seat {x['seat']}: checked +"
                        f"{1000 * (x['t1'] - x['t0']):.1f} (CPU {1000 * (x['c1'] - x['c0']):.1f})"
                        f", sent {sent} +{1000 * (x['t'] - x['t1']):.1f} "
                        f"(CPU {1000 * (x['c'] - x['c1']):.1f}) ms",
                    )
                )
                busy[who] = busy.get(who, 0.0) + x["t"] - x["t0"]
                part = "saving and sending" if x["sent"] else "checking"
                parts = split.setdefault(who, {}) if x["t"] <= mine else {}
                parts["checking"] = parts.get("checking", 0.0) + x["c1"] - x["c0"]
                parts[part] = parts.get(part, 0.0) + (x["c"] - x["c1"] if x["sent"] else 0.0)
            elif e == "ahead" and x["t0"] <= end:
                rows.append(
                    (
                        x["t0"],
                        who,
                        f"quiet-moment check {1000 * (x['t'] - x['t0']):.1f} "
                        f"(CPU {1000 * (x['c'] - x['c0']):.1f}) ms",
                    )
                )
                busy[who] = busy.get(who, 0.0) + x["t"] - x["t0"]
                parts = split.setdefault(who, {}) if x["t"] <= mine else {}
                parts["quiet checks"] = parts.get("quiet checks", 0.0) + x["c"] - x["c0"]
            elif e == "dealt":
                rows.append((x["t"], who, "hand decoded"))
                cpu[who] = round(1000 * (x["cpu"] - began["cpu"]))
                parts = split.setdefault(who, {})
                parts["other"] = x["cpu"] - began["cpu"] - sum(parts.values())
    rows.sort()
    host_steps = [x for x in host if x.get("event") in ("step", "bot_dealt") and x["t"] <= end]
    cpu["host"] = round(1000 * (host_steps[-1]["cpu"] - start["cpu"])) if host_steps else 0
    return {
        "t0": t00,
        "t1": end,
        "span_ms": ms(end),
        "rows": [(ms(t), who, what) for t, who, what in rows],
        "busy_ms": {k: round(1000 * v) for k, v in busy.items()},
        "cpu_ms": cpu,
        "client_cpu_ms": {w: {k: round(1000 * v) for k, v in p.items()} for w, p in split.items()},
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=6)
    p.add_argument("--deck", type=int, default=52)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as d, CpuSampler() as cpu:
        host, seats = one_game(args.players, args.deck, Path(d))
    out = timeline(host, seats)
    busy, idle = cpu.between(out["t0"], out["t1"])
    out["machine_busy_ms"], out["machine_idle_ms"] = round(1000 * busy), round(1000 * idle)
    del out["t0"], out["t1"]
    out["load"] = [round(load, 2), round(os.getloadavg()[0], 2)]
    if args.json:
        print(json.dumps(out))
        return 0
    for t, who, what in out["rows"]:
        print(f"{t:8.1f}  {who:7}  {what}")
    print(f"start game -> every hand decoded {out['span_ms']} ms; load {out['load']}")
    print(f"busy (handling steps, quiet-moment checks) per client, ms: {out['busy_ms']}")
    print(f"CPU per process, ms: {out['cpu_ms']} (all {sum(out['cpu_ms'].values())})")
    for who, parts in out["client_cpu_ms"].items():
        print(f"  {who}: CPU ms {parts}")
    print(
        f"the machine's {os.cpu_count()} cores in that span: busy {out['machine_busy_ms']} ms "
        f"(ours and every other process's), idle {out['machine_idle_ms']} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
