"""Network figures: finding a table, dealing, action latency, bytes (benchmarks/net.py).

    sudo python benchmarks/net.py [--runs 10] [--probe full,quick,none] [--cold] [--json]
    python benchmarks/net.py --game [--players 2,3,4,5,6] [--deck 52] [--runs 3] [--host-seat]
        [--json]

``--game``: whole games over real TLS on loopback, every player a separate process (the
headless host and ``join --bot`` processes, ``LOCALDURAK_TRACE=late``: timing lines held
until the end; with ``--host-seat`` the host plays seat 0 itself, an in-process bot, as
``localdurak host``'s person does, so N players are N processes): for each table size,
"start game -> every hand decoded" (the host's ``game_started`` to the last hand decoded, one
monotonic clock for the machine); the CPU every process spent on it (``time.process_time``
from the game's start to its hand decoded; the host's to the last step it relayed before the
last hand) and the scalar multiplications, which the machine's load does not change: on a
machine with fewer cores than processes the wall time cannot be below all the CPU over the
cores; the action latency host -> all other clients
(the host relays an action; the last of the other players' clients has checked and applied
it — the actor's own client had it first: p50 and p99 over every action of the runs) and the
bytes per game (frames the host sent and received).  Targets: under
0.6 s for 6 processes x 52 cards with every stage proven and checked; under 10 ms p99 with
5 other clients.

Without ``--game``: how fast a table becomes visible on the LAN:

Makes a private LAN of network namespaces (tests/support/netns.py: a bridge, veth pairs, TEST-NET-1
addresses; nothing on a real interface), runs a browser in one namespace — as the lobby
does, browsing continuously — and, run after run, a host advertising a new table in
another.  It reports the time from the advertiser's start (zeroconf loaded, the call to
`Advertiser.start`) to the browser having the table resolved (name, TXT, address): the
median, min and max over the runs, for each way of making sure the name is free
(`localdurak.net.discovery.Probe`).  Target: median under 1.5 s.

Both processes stamp their lines with `time.monotonic()`, one clock for the whole machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.net.test_discovery import Proc  # noqa: E402
from tests.support import netns  # noqa: E402

PEER = REPO / "tests" / "support" / "mdns_peer.py"


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


def game_run(
    players: int, deck: int, home: Path, delay: float, host_seat: bool = False
) -> dict[str, float]:
    """One game: host + ``players`` bot clients; the deal time, latencies, bytes.
    ``host_seat``: the host plays seat 0 itself (an in-process bot, as `localdurak host`'s
    person plays in the host's process) and ``players`` − 1 clients join: ``players``
    processes."""
    joiners = players - 1 if host_seat else players
    from tests.support.procs import Proc as LineProc
    from tests.support.procs import env_for, localdurak

    env = env_for(home / "host", LOCALDURAK_TRACE="late", LOCALDURAK_NO_MDNS="1")
    host = LineProc(
        localdurak(
            "host",
            "--headless",
            "--name",
            "Bench",
            "--seats",
            str(players),
            "--deck",
            str(deck),
            "--port",
            "0",
            "--no-advertise",
            "--record-dir",
            str(home / "rec"),
            *(["--bots", "1", "--level", "random", "--bot-delay", str(delay)] if host_seat else []),
        ),
        env,
        "host",
    )
    clients: list[LineProc] = []
    try:
        listening = host.event("listening")
        for i in range(joiners):
            clients.append(
                LineProc(
                    localdurak(
                        "join",
                        "--address",
                        f"127.0.0.1:{listening['port']}",
                        "--fingerprint",
                        listening["fingerprint"],
                        "--bot",
                        "--level",
                        "random",
                        "--delay",
                        str(delay),
                        "--name",
                        f"p{i}",
                    ),
                    env_for(home / f"p{i}", LOCALDURAK_TRACE="late", LOCALDURAK_NO_MDNS="1"),
                    f"p{i}",
                )
            )
        start = host.event("trace_start", 300)["t"]  # timing lines come in bulk (cmd_host)
        size = host.event("bytes", 300)
        host.event("game_over", 60)
        host.wait(60)
        relays = {x["seq"]: x["t"] for x in host.seen if x.get("event") == "relay"}
        actor = {x["seq"]: x["seat"] for x in host.seen if x.get("event") == "relay"}
        dealt = []
        cpu: list[float] = []  # each client's CPU from the game's start to its hand decoded
        muls: list[int] = []  # and its scalar multiplications (the load does not change them)
        # The latency of an action is to the *other* clients (the target says "to all 5
        # other clients"): the actor's own client has it already.
        applied: dict[int, list[float]] = {}
        arrived: dict[int, list[float]] = {}
        # Shown, and its card's proof of being dealt checked too (a client checks that at the
        # table's next quiet moment: docs/protocol.md "What the players check").
        checked: dict[int, list[float]] = {}
        for c in clients:
            c.wait(60)
            while not c.lines.empty():
                c.seen.append(c.lines.get())
            seat = next(x["seat"] for x in c.seen if x.get("event") == "joined")
            began = next((x for x in c.seen if x.get("event") == "started"), None)
            for x in c.seen:
                if x.get("event") == "dealt" and not dealt[len(clients) :]:
                    dealt.append(x["t"])
                    if began is not None and "cpu" in x:
                        cpu.append(x["cpu"] - began["cpu"])
                        muls.append(x["mul"] - began["mul"])
                    break
            proved = {x["seq"]: x["t"] for x in c.seen if x.get("event") == "checked"}
            for x in c.seen:
                if x.get("event") == "applied" and actor.get(x["seq"]) != seat:
                    applied.setdefault(x["seq"], []).append(x["t"])
                    arrived.setdefault(x["seq"], []).append(x.get("t0", x["t"]))
                    checked.setdefault(x["seq"], []).append(proved.get(x["seq"], x["t"]))
        others = players - 1
        lat = [
            max(ts) - relays[seq]
            for seq, ts in applied.items()
            if seq in relays and len(ts) == others
        ]
        # The kind of each action, from the host's sequence of steps: the first after the deal,
        # the last of the game, one that ends a bout (a refill round of other steps follows
        # before the next action), or a plain attack / cover / throw-in.
        steps = sorted((x["seq"], x["step"]) for x in host.seen if x.get("event") == "step")
        acts = [i for i, (_, st) in enumerate(steps) if st in ("play", "act")]
        kinds: dict[int, str] = {}
        for j, i in enumerate(acts):
            seq = steps[i][0]
            if j == 0:
                kinds[seq] = "first"
            elif j == len(acts) - 1:
                kinds[seq] = "last"
            elif acts[j + 1] != i + 1:
                kinds[seq] = "bout_end"
            else:
                kinds[seq] = "plain"
        by_kind: dict[str, list[float]] = {}
        for seq, ts in applied.items():
            if seq in relays and len(ts) == others:
                by_kind.setdefault(kinds.get(seq, "?"), []).append(max(ts) - relays[seq])
        relay_times = sorted(relays.values())

        def busy(q: int) -> int:
            """How many other actions the host relayed within 10 ms of action ``q``."""
            t = relays[q]
            return sum(1 for u in relay_times if u != t and abs(u - t) < 0.010)

        # The host's CPU from the game's start to the last step it relayed before the last
        # hand was decoded (what it did for the deal).
        dealt += [x["t"] for x in host.seen if x.get("event") == "bot_dealt"]
        first = next(x for x in host.seen if x.get("event") == "trace_start")
        host_steps = [
            x
            for x in host.seen
            if x.get("event") in ("step", "bot_dealt") and "cpu" in x and x["t"] <= max(dealt)
        ]
        host_cpu = (host_steps[-1]["cpu"] - first["cpu"]) if host_steps and "cpu" in first else 0.0
        host_mul = (host_steps[-1]["mul"] - first["mul"]) if host_steps and "mul" in first else 0
        return {
            "deal_s": max(dealt) - start,
            "host_cpu_s": host_cpu,
            "muls": host_mul + sum(muls),
            "host_mul": host_mul,
            "busiest_mul": max(muls, default=0),
            "client_cpu_s": cpu,  # type: ignore[dict-item]
            "latencies": lat,  # type: ignore[dict-item]
            "checked": [  # type: ignore[dict-item]
                max(ts) - relays[seq]
                for seq, ts in checked.items()
                if seq in relays and len(ts) == others
            ],
            "by_kind": by_kind,  # type: ignore[dict-item]
            # Per action: (latency, kind, the last client's start of verification - relay,
            # the longest verification, other actions relayed within 10 ms): where the time
            # goes.
            "detail": [  # type: ignore[dict-item]
                (
                    max(applied[q]) - relays[q],
                    kinds.get(q, "?"),
                    max(arrived[q]) - relays[q],
                    max(a - b for a, b in zip(applied[q], arrived[q], strict=True)),
                    busy(q),
                )
                for q in applied
                if q in relays and len(applied[q]) == others
            ],
            "bytes": size["out"] + size["in"],
        }
    finally:
        for pr in [host, *clients]:
            pr.kill()


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return round(1000 * s[min(len(s) - 1, int(len(s) * q))], 2)


def games(args: argparse.Namespace) -> int:
    import tempfile

    out: dict[str, dict[str, float]] = {}
    load = os.getloadavg()
    for n in [int(x) for x in args.players.split(",")]:
        deals, lats, sizes, checks = [], [], [], []
        totals, busiest, hosts = [], [], []
        all_mul, host_mul, busiest_mul = [], [], []
        kinds: dict[str, list[float]] = {}
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as d:
                r = game_run(n, args.deck, Path(d), args.delay, args.host_seat)
            deals.append(r["deal_s"])
            clients_cpu: list[float] = r["client_cpu_s"]  # type: ignore[assignment]
            totals.append(r["host_cpu_s"] + sum(clients_cpu))
            busiest.append(max(clients_cpu, default=0.0))
            hosts.append(r["host_cpu_s"])
            all_mul.append(r["muls"])
            host_mul.append(r["host_mul"])
            busiest_mul.append(r["busiest_mul"])
            lats += r["latencies"]  # type: ignore[arg-type]
            checks += r["checked"]  # type: ignore[arg-type]
            for k, v in r["by_kind"].items():  # type: ignore[attr-defined]
                kinds.setdefault(k, []).extend(v)
            sizes.append(r["bytes"])
        lats.sort()
        out[str(n)] = {
            "deal_median_s": round(statistics.median(deals), 3),
            "deal_max_s": round(max(deals), 3),
            # CPU from the game's start to every hand decoded: every process (host and
            # players) together, the busiest player's, the host's (medians over the runs).
            "deal_cpu_all_s": round(statistics.median(totals), 3),
            "deal_cpu_busiest_player_s": round(statistics.median(busiest), 3),
            "deal_cpu_host_s": round(statistics.median(hosts), 3),
            # Scalar multiplications in the same span (all, the busiest player's, the host's).
            "deal_mul_all": int(statistics.median(all_mul)),
            "deal_mul_busiest_player": int(statistics.median(busiest_mul)),
            "deal_mul_host": int(statistics.median(host_mul)),
            "latency_p50_ms": round(1000 * lats[len(lats) // 2], 2),
            "latency_p99_ms": round(1000 * lats[min(len(lats) - 1, int(len(lats) * 0.99))], 2),
            "actions": len(lats),
            "checked_p50_ms": _pct(checks, 0.5),
            "checked_p99_ms": _pct(checks, 0.99),
            "by_kind": {  # type: ignore[dict-item]
                k: {"n": len(v), "p50_ms": _pct(v, 0.5), "p99_ms": _pct(v, 0.99)}
                for k, v in sorted(kinds.items())
            },
            "bytes_per_game": int(statistics.median(sizes)),
        }
    if args.json:
        print(json.dumps(out))
        return 0
    print(
        f"whole games over TLS on loopback, {args.deck} cards, {args.runs} run(s) per size, "
        f"bots think {args.delay:g} s; {os.cpu_count()} cores, load average "
        f"{load[0]:.2f} before, {os.getloadavg()[0]:.2f} after"
    )
    for n, r in out.items():
        procs = int(n) + (0 if args.host_seat else 1)
        who = "the host plays seat 0" if args.host_seat else "a headless host"
        print(
            f"  {n} players, {procs} processes ({who}): start game -> every hand decoded "
            f"median {r['deal_median_s']:.3f} s"
            f" (max {r['deal_max_s']:.3f}); action latency host -> all other clients p50 "
            f"{r['latency_p50_ms']:.2f} ms, p99 {r['latency_p99_ms']:.2f} ms "
            f"({r['actions']} actions); {r['bytes_per_game']} bytes per game"
        )
        print(
            f"    CPU start game -> every hand decoded: all {procs} processes "
            f"{1000 * r['deal_cpu_all_s']:.0f} ms (on {os.cpu_count()} cores at least "
            f"{1000 * r['deal_cpu_all_s'] / (os.cpu_count() or 1):.0f} ms of wall time), "
            f"busiest player {1000 * r['deal_cpu_busiest_player_s']:.0f} ms, "
            f"host {1000 * r['deal_cpu_host_s']:.0f} ms"
        )
        print(
            f"    scalar multiplications in it: all {r['deal_mul_all']}, busiest player "
            f"{r['deal_mul_busiest_player']}, host {r['deal_mul_host']}"
        )
        print(
            f"    with the played card's proof checked too (at a quiet moment): p50 "
            f"{r['checked_p50_ms']:.2f} ms, p99 {r['checked_p99_ms']:.2f} ms"
        )
        for k, v in r["by_kind"].items():  # type: ignore[attr-defined]
            print(f"    {k:9} n={v['n']:4} p50 {v['p50_ms']:.2f} ms, p99 {v['p99_ms']:.2f} ms")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", action="store_true", help="whole games: deal time, latency, bytes")
    p.add_argument("--players", default="2,3,4,5,6")
    p.add_argument("--deck", type=int, default=52)
    p.add_argument(
        "--delay",
        type=float,
        default=0.05,
        help="seconds each bot thinks before it acts (0: as fast as they can, which measures "
        "a saturated table, not the latency of one action)",
    )
    p.add_argument("--runs", type=int, default=None, help="runs (10; 3 with --game)")
    # reading: the target's "6 processes" are the 6 players' processes, the host's person
    # playing in the host's process as `localdurak host` has him (--host-seat); without it
    # the figures are for a headless host beside N joining processes (N + 1), as before.
    p.add_argument(
        "--host-seat",
        action="store_true",
        help="with --game: the host plays seat 0 in its own process (as `localdurak host` "
        "does), so N players are N processes; without it N clients join a headless host",
    )
    p.add_argument("--probe", default="full,quick,none", help="comma-separated Probe values")
    p.add_argument(
        "--cold", action="store_true", help="also measure a browser started with the host"
    )
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if args.game:
        args.runs = args.runs or 3
        return games(args)
    args.runs = args.runs or 10
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
