"""Benchmark of the card-privacy protocol (privacy.md "Costs to measure").

For N = 2..6 players and 24/36/52 cards, per phase (commit, shuffle, deal, lowest trump,
refill, play, reveal, audit): group operations (counted by localdurak.protocol.privacy.group),
CPU time of all parties together, sequential hops, bytes on the wire.  Then the headline:
6 players × 52 cards, from the first message to every hand decoded — all parties' CPU in one
process, the critical path, and the floor (group operations on the critical path ×
measured time of one).  Every shuffle stage carries its proof of shuffle, proven by its
shuffler and verified by every seat and the host (privacy.md "The proof of shuffle"); the figures
include them, and a table gives each proof's own cost (prove and verify, per deck size).

Phases are attributed by the message being handled: the work a message triggers counts in its
phase (seat 0's shuffle in "commit", the seeds and the first layer removals in "deal").
Times are CPU time of the running thread (``time.thread_time``), so other work on a shared
machine does not inflate them.  The critical path comes from a discrete-event replay in one
process: every party (each player,
the host's relay) has its own clock; a message is handled at max(its sender's clock when it was
sent, the handler's clock) plus the measured time of the handler.  The host verifies strip
proofs and shuffle points beside the relaying (``defer_verification``), on a clock of its own
that nothing waits for.  Network latency is zero here: the real-network figure adds
hops × round-trip time.

    python benchmarks/privacy.py            # the table of figures
    python benchmarks/privacy.py --json     # one JSON object
    python benchmarks/privacy.py --quick    # the deal only (no whole games)
"""

from __future__ import annotations

import argparse
import heapq
import json
import random
import statistics
import sys
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from localdurak.game.rules import Rules
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.privacy.events import HandDealt
from localdurak.protocol.privacy.group import GROUP
from localdurak.protocol.privacy.messages import Message
from localdurak.protocol.privacy.proofs import Context
from localdurak.protocol.privacy.schedule import Setup
from localdurak.protocol.privacy.shuffle import proof_size, shuffle_prove, shuffle_verify
from tests.support.privacy_sim import MemoryTable, play_engine_game, unwire, wire

OPS = ("mul", "mul_base", "add", "sub", "valid", "scalar_invert")
HOST = -1
VERIFIER = -2


def op_times(reps: int = 400) -> dict[str, float]:
    """Seconds per group operation, measured here."""
    rng = random.Random(1).randbytes
    k = GROUP.random_scalar(rng)
    p = GROUP.mul_base(k)
    q = GROUP.mul_base(GROUP.random_scalar(rng))
    fns = {
        "mul": lambda: GROUP.mul(k, p),
        "mul_base": lambda: GROUP.mul_base(k),
        "add": lambda: GROUP.add(p, q),
        "sub": lambda: GROUP.sub(p, q),
        "valid": lambda: GROUP.valid(p),
        "scalar_invert": lambda: GROUP.scalar_invert(k),
    }
    out = {}
    for name, fn in fns.items():
        best = float("inf")
        for _ in range(7):
            t0 = time.thread_time()
            for _ in range(reps):
                fn()
            best = min(best, (time.thread_time() - t0) / reps)
        out[name] = best
    GROUP.counts.clear()
    return out


def shuffle_proof_costs(deck: int, times: dict[str, float], reps: int = 5) -> dict[str, Any]:
    """One stage's proof of shuffle: prove and verify time (best of ``reps``, CPU of this
    thread) and group operations, beside the floor (operations × time of one)."""
    rng = random.Random(deck).randbytes
    k = GROUP.random_scalar(rng)
    y = GROUP.mul_base(k)
    ins = [GROUP.mul_base(GROUP.random_scalar(rng)) for _ in range(deck)]
    perm = list(range(deck))
    random.Random(deck + 1).shuffle(perm)
    outs = [GROUP.mul(k, ins[perm[i]]) for i in range(deck)]
    ctx = Context(b"\x00" * 32, 0, "shuffle/0")
    out: dict[str, Any] = {"cards": deck, "proof_bytes": proof_size(deck)}
    proof = b""
    for name in ("prove", "verify"):
        best = float("inf")
        ops: Counter[str] = Counter()
        for _ in range(reps):
            GROUP.counts.clear()
            t0 = time.thread_time()
            if name == "prove":
                proof = shuffle_prove(rng, k, y, ins, outs, perm, ctx)
            else:
                assert shuffle_verify(y, ins, outs, proof, ctx)
            best = min(best, time.thread_time() - t0)
            ops = Counter(GROUP.counts)
        out[name] = {
            "ms": round(best * 1e3, 2),
            "ops": {k: v for k, v in ops.items() if v},
            "floor_ms": round(sum(ops[k] * times[k] for k in OPS) * 1e3, 2),
        }
    GROUP.counts.clear()
    return out


def phase_of(msg: Message, setup: Setup) -> str:
    kind = msg.KIND
    if kind in ("nonce", "commit"):
        return "commit"
    if kind == "shuffle":
        return "shuffle"
    if kind == "seed":  # the last seed orders the deck and starts the deal's layer removals
        return "deal"
    if kind == "strip":
        return "deal" if msg.batch == 0 else "refill"  # type: ignore[union-attr]
    if kind == "refill":
        return "refill"
    if kind == "answer":
        return "lowest_trump"
    if kind in ("play", "act"):
        return "play"
    return "reveal"


class Stat:
    def __init__(self) -> None:
        self.cpu = 0.0
        self.ops: Counter[str] = Counter()
        self.bytes = 0
        self.messages = 0
        self.hops = 0

    def as_dict(self, times: dict[str, float]) -> dict[str, Any]:
        return {
            "cpu_ms": round(self.cpu * 1e3, 2),
            "ops": {k: v for k, v in self.ops.items() if v},
            "ops_floor_ms": round(sum(self.ops[k] * times[k] for k in OPS) * 1e3, 2),
            "hops": self.hops,
            "bytes": self.bytes,
            "messages": self.messages,
        }


class TimedTable(MemoryTable):
    """The in-memory table, delivering in time order with one clock per party."""

    def __init__(self, setup: Setup, seed: int, times: dict[str, float]) -> None:
        rngs = [random.Random(seed * 100 + s).randbytes for s in range(setup.seats)]
        super().__init__(setup, rngs, defer_verification=True)
        self.times = times
        self.clock: dict[int, float] = {s: 0.0 for s in range(setup.seats)}
        self.clock[HOST] = self.clock[VERIFIER] = 0.0
        self.floor: dict[int, Counter[str]] = {k: Counter() for k in self.clock}
        """The group operations on the longest chain of work ending at each party's clock."""
        self.heap: list[tuple[float, int, str, int, bytes, Counter[str], int]] = []
        self.seq = 0
        self.phases: dict[str, Stat] = {}
        self.hop_base: dict[str, int] = {}
        self.decoded_at: dict[int, tuple[float, Counter[str], int]] = {}
        self.cpu_until_decoded = 0.0
        self.ops_until_decoded: Counter[str] = Counter()
        self.cpu_total = 0.0

    def stat(self, phase: str) -> Stat:
        return self.phases.setdefault(phase, Stat())

    def push(
        self, direction: str, seat: int, msg: Message, ready: float, floor: float, depth: int
    ) -> None:
        data = wire(msg)
        self.seq += 1
        heapq.heappush(self.heap, (ready, self.seq, direction, seat, data, floor, depth))

    def _timed(
        self, node: int, ready: float, floor: float, fn: Any
    ) -> tuple[Any, float, Counter[str]]:
        before = Counter(GROUP.counts)
        t0 = time.thread_time()
        result = fn()
        dt = time.thread_time() - t0
        ops = Counter(GROUP.counts)
        ops.subtract(before)
        start = max(self.clock[node], ready)
        base_floor = floor if ready >= self.clock[node] else self.floor[node]
        self.clock[node] = start + dt
        self.floor[node] = base_floor + ops
        self.cpu_total += dt
        return result, dt, ops

    def run_timed(self) -> None:
        while self.heap:
            ready, _, direction, seat, data, floor, depth = heapq.heappop(self.heap)
            msg = unwire(data)
            phase = phase_of(msg, self.setup)
            st = self.stat(phase)
            st.bytes += len(data)
            st.messages += 1
            base = self.hop_base.setdefault(phase, depth)
            st.hops = max(st.hops, depth + 1 - base)
            if direction == "to_host":
                out, dt, ops = self._timed(
                    HOST, ready, floor, partial(self.host.receive, seat, msg)
                )
                st.cpu += dt
                st.ops.update(ops)
                self._account(dt, ops)
                for dest, m in out:
                    self.push("to_player", dest, m, self.clock[HOST], self.floor[HOST], depth + 1)
                # Verification beside the relaying, on the host's second clock.
                _, vdt, vops = self._timed(
                    VERIFIER, self.clock[HOST], Counter(), self.host.verify_pending
                )
                st.cpu += vdt
                st.ops.update(vops)
                self._account(vdt, vops)
            else:
                player = self.players[seat]
                out, dt, ops = self._timed(seat, ready, floor, partial(player.receive, msg))
                st.cpu += dt
                st.ops.update(ops)
                self._account(dt, ops)
                for m in out:
                    self.push("to_host", seat, m, self.clock[seat], self.floor[seat], depth + 1)
                while (e := player.next_event()) is not None:
                    if isinstance(e, HandDealt) and e.batch == 0:
                        self.decoded_at[seat] = (self.clock[seat], self.floor[seat], depth + 1)

    def _account(self, dt: float, ops: Counter[str]) -> None:
        if len(self.decoded_at) < self.setup.seats:
            self.cpu_until_decoded += dt
            self.ops_until_decoded.update(ops)

    def start_timed(self) -> None:
        for p in self.players:
            for m in p.start():
                self.push("to_host", p.seat, m, 0.0, Counter(), 0)
        self.run_timed()

    # The scripted game calls these; route them through the timed loop.
    def run(self) -> None:
        while self.queue:
            direction, seat, data = self.queue.popleft()
            t = max(self.clock.values())
            self.push(direction, seat, unwire(data), t, Counter(), 10_000)
        self.run_timed()


def measure(
    n: int, deck: int, times: dict[str, float], *, game: bool, seed: int = 1
) -> dict[str, Any]:
    rules = Rules(deck=deck)
    setup = Setup.from_rules(rules, n, n - 1)
    GROUP.counts.clear()
    tab = TimedTable(setup, seed, times)
    tab.start_timed()
    last = max(tab.decoded_at.values(), key=lambda v: v[0])
    t_dec = last[0]
    hops = max(v[2] for v in tab.decoded_at.values())
    out: dict[str, Any] = {
        "players": n,
        "cards": deck,
        "to_every_hand_decoded": {
            "cpu_all_parties_ms": round(tab.cpu_until_decoded * 1e3, 2),
            "critical_path_ms": round(t_dec * 1e3, 2),
            "critical_path_ops": {k: v for k, v in last[1].items() if v},
            "ops": {k: v for k, v in tab.ops_until_decoded.items() if v},
            "hops": hops,
        },
    }
    if game:
        tab.hop_base.clear()
        play_engine_game(tab, rules, random.Random(seed))
        for p in tab.players:
            tab.to_host(p.seat, [p.reveal()])
        tab.run()
        record = tab.record()
        GROUP.counts.clear()
        t0 = time.thread_time()
        report = audit(json.loads(json.dumps(record)))
        st = tab.stat("audit")
        st.cpu = time.thread_time() - t0
        st.ops.update(GROUP.counts)
        st.bytes = len(json.dumps(record["privacy"]))
        assert report.clean, report.faults
    out["phases"] = {k: v.as_dict(times) for k, v in tab.phases.items()}
    return out


def finish_floor(d: dict[str, Any], times: dict[str, float]) -> None:
    """The floors, from the operation counts and the (final) time of one operation."""
    cp = sum(d["critical_path_ops"].get(k, 0) * times[k] for k in OPS) * 1e3
    total = sum(d["ops"].get(k, 0) * times[k] for k in OPS) * 1e3
    d["floor_critical_path_ms"] = round(cp, 2)
    d["ratio_to_floor"] = round(d["critical_path_ms"] / cp, 2)
    d["ops_floor_all_parties_ms"] = round(total, 2)
    d["cpu_ratio_to_floor"] = round(d["cpu_all_parties_ms"] / total, 2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--quick", action="store_true", help="the deal only, no whole games")
    ap.add_argument("--repeat", type=int, default=5, help="runs of the headline case")
    args = ap.parse_args(argv)
    # The machine is shared with other work: the time of one operation is its best over
    # several runs, before and after the measurements.
    times = op_times()
    proofs = [shuffle_proof_costs(d, times) for d in (24, 36, 52)]
    matrix = [(n, d) for n in range(2, 7) for d in (24, 36, 52) if n * 6 <= d]
    rows = [measure(n, d, times, game=not args.quick) for n, d in matrix]
    # The machine is shared: keep the best run, and say what the median was.
    heads = [
        measure(6, 52, times, game=False, seed=s)["to_every_hand_decoded"]
        for s in range(args.repeat)
    ]
    after = op_times()
    times.update({k: min(v, after[k]) for k, v in times.items()})  # the floors read it late
    for r in [*rows, *({"to_every_hand_decoded": h} for h in heads)]:
        finish_floor(r["to_every_hand_decoded"], times)
    head = dict(min(heads, key=lambda h: h["cpu_all_parties_ms"]))
    head["median_cpu_all_parties_ms"] = statistics.median(h["cpu_all_parties_ms"] for h in heads)
    head["median_critical_path_ms"] = statistics.median(h["critical_path_ms"] for h in heads)
    # With every stage proven and verified by every seat and the host.
    target = {"cpu_all_parties_ms": 1500}
    result = {
        "op_us": {k: round(v * 1e6, 2) for k, v in times.items()},
        "shuffle_proof": proofs,
        "headline_6x52": head,
        "target": target,
        "meets_target": head["cpu_all_parties_ms"] < 1500,
        "matrix": rows,
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print("one operation (µs): " + ", ".join(f"{k} {v}" for k, v in result["op_us"].items()))
    print()
    print("proof of shuffle, one stage (best of 5; floor = its group ops × time of one):")
    for pr in proofs:
        for name in ("prove", "verify"):
            d = pr[name]
            o = d["ops"]
            print(
                f"  {pr['cards']:>2} cards {name:<7}{d['ms']:7.1f} ms (floor {d['floor_ms']:.1f})"
                f"   mul {o.get('mul', 0):>4}  base {o.get('mul_base', 0):>4}"
                f"  add/sub {o.get('add', 0) + o.get('sub', 0):>4}   {pr['proof_bytes']} bytes"
            )
    print()
    h = head
    print(
        f"6 players × 52 cards, first message → every hand decoded (best of {args.repeat}; "
        f"median CPU {h['median_cpu_all_parties_ms']:.1f} ms, "
        f"median critical path {h['median_critical_path_ms']:.1f} ms):"
    )
    print(
        f"  all parties' CPU      {h['cpu_all_parties_ms']:8.1f} ms   (target < 1500; "
        f"floor: its group ops × time of one = {h['ops_floor_all_parties_ms']:.1f} ms, "
        f"ratio {h['cpu_all_parties_ms'] / h['ops_floor_all_parties_ms']:.2f})"
    )
    print(
        f"  critical path         {h['critical_path_ms']:8.1f} ms   ("
        f"floor {h['floor_critical_path_ms']:.1f} ms, ratio {h['ratio_to_floor']})"
    )
    print(f"  sequential hops       {h['hops']:8d}      (each adds a network latency)")
    print(f"  group ops             {h['ops']}")
    print()
    print(
        f"{'N':>2} {'D':>3}  {'phase':<13}{'cpu ms':>9}{'mul':>7}{'base':>6}{'add/sub':>8}"
        f"{'valid':>6}{'hops':>6}{'bytes':>9}"
    )
    for r in rows:
        for phase in (
            "commit",
            "shuffle",
            "deal",
            "lowest_trump",
            "refill",
            "play",
            "reveal",
            "audit",
        ):
            p = r["phases"].get(phase)
            if p is None:
                continue
            o = p["ops"]
            addsub = o.get("add", 0) + o.get("sub", 0)
            print(
                f"{r['players']:>2} {r['cards']:>3}  {phase:<13}{p['cpu_ms']:>9.1f}"
                f"{o.get('mul', 0):>7}{o.get('mul_base', 0):>6}{addsub:>8}"
                f"{o.get('valid', 0):>6}{p['hops']:>6}{p['bytes']:>9}"
            )
        d = r["to_every_hand_decoded"]
        print(
            f"{r['players']:>2} {r['cards']:>3}  {'→ hands':<13}{d['cpu_all_parties_ms']:>9.1f}"
            f"   critical path {d['critical_path_ms']:.1f} ms "
            f"(floor {d['floor_critical_path_ms']:.1f}), {d['hops']} hops"
        )
    print()
    print("meets the target (all parties' CPU < 1500 ms):", result["meets_target"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
