"""How fast a table becomes visible on the LAN (issue 4, benchmarks/net.py, first version).

    sudo python benchmarks/net.py [--runs 10] [--probe full,quick,none] [--cold] [--json]

Makes a private LAN of network namespaces (tests/netns.py: a bridge, veth pairs, TEST-NET-1
addresses; nothing on a real interface), runs a browser in one namespace — as the lobby
does, browsing continuously — and, run after run, a host advertising a new table in
another.  It reports the time from the advertiser's start (zeroconf loaded, the call to
`Advertiser.start`) to the browser having the table resolved (name, TXT, address): the
median, min and max over the runs, for each way of making sure the name is free
(`localdurak.net.discovery.Probe`).  Target (issue 4): median under 1.5 s.

Both processes stamp their lines with `time.monotonic()`, one clock for the whole machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests import netns  # noqa: E402
from tests.test_net_discovery import Proc  # noqa: E402

PEER = REPO / "tests" / "mdns_peer.py"


def measure(lan: netns.NetnsLan, browser: Proc, probe: str, run: int) -> float:
    name = f"Bench {probe} {run}"
    host = Proc(
        lan.popen(
            0,
            netns.python(
                PEER, "advertise", "--address", lan.addresses[0], "--name", name, "--probe", probe
            ),
            stdin=-1,
        )
    )
    try:
        started = host.expect(lambda x: x["event"] == "start", timeout=20)["t"]
        seen = browser.expect(
            lambda x: x.get("event") == "tables" and any(t["name"] == name for t in x["tables"]),
            timeout=20,
        )["t"]
        assert host.p.stdin is not None
        host.p.stdin.close()  # withdraw, so the next run starts from an empty list
        host.expect(lambda x: x["event"] == "withdrawn", timeout=10)
        browser.expect(
            lambda x: (
                x.get("event") == "tables" and not any(t["name"] == name for t in x["tables"])
            ),
            timeout=10,
        )
        return float(seen - started)
    finally:
        host.stop()


def measure_cold(lan: netns.NetnsLan, run: int) -> float:
    """Host and browser start together, as when someone runs `localdurak tables` while the
    host starts: the browser's first query finds nothing and the announcement brings it."""
    name = f"Cold {run}"
    browser = Proc(
        lan.popen(1, netns.python(PEER, "browse", "--address", lan.addresses[1], "--timeout", "20"))
    )
    host = Proc(
        lan.popen(
            0,
            netns.python(PEER, "advertise", "--address", lan.addresses[0], "--name", name),
            stdin=-1,
        )
    )
    try:
        started = host.expect(lambda x: x["event"] == "start", timeout=20)["t"]
        seen = browser.expect(
            lambda x: x.get("event") == "tables" and any(t["name"] == name for t in x["tables"]),
            timeout=20,
        )["t"]
        return float(seen - started)
    finally:
        assert host.p.stdin is not None
        host.p.stdin.close()
        host.p.wait(10)
        host.stop()
        browser.stop()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--probe", default="full,quick,none", help="comma-separated Probe values")
    p.add_argument(
        "--cold", action="store_true", help="also measure a browser started with the host"
    )
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    reason = netns.unavailable_reason()
    if reason is not None:
        print(f"benchmarks/net.py: {reason}", file=sys.stderr)
        return 1
    results: dict[str, list[float]] = {}
    with netns.NetnsLan(2) as lan:
        browser = Proc(
            lan.popen(
                1, netns.python(PEER, "browse", "--address", lan.addresses[1], "--timeout", "3600")
            )
        )
        try:
            browser.expect(lambda x: x["event"] == "start", timeout=20)
            time.sleep(0.5)
            for probe in args.probe.split(","):
                results[probe] = [measure(lan, browser, probe, i) for i in range(args.runs)]
        finally:
            browser.stop()
        if args.cold:
            results["quick, cold browser"] = [measure_cold(lan, i) for i in range(args.runs)]
    summary = {
        probe: {
            "median_s": round(statistics.median(xs), 3),
            "min_s": round(min(xs), 3),
            "max_s": round(max(xs), 3),
            "runs": len(xs),
        }
        for probe, xs in results.items()
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print("advertising start -> table resolved by a browser in another namespace")
        for probe, s in summary.items():
            print(
                f"  probe={probe:<6} median {s['median_s']:.3f} s  "
                f"(min {s['min_s']:.3f}, max {s['max_s']:.3f}, {s['runs']} runs)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
