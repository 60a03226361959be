"""Suite 2, faults: kill -9 and restart clients and the host, cut links, during one game.

A private LAN of network namespaces (tests/support/netns.py): the headless host in the first (with a
bot of its own), a `join --bot` process in each of the two others, advertising off.  While
one game runs, a shuffled schedule of faults:

- a client killed with SIGKILL and started again with the same home: the host reports it
  ``away`` then ``back``; the restarted client resumes its saved seat;
- the host killed with SIGKILL and started again with ``host --resume JOURNAL``: it listens on
  the same port with the same certificate, the clients reconnect by themselves;
- a client's link taken down (``ip link set eth0 down`` in its namespace) for a moment, then
  up again;
- a power cut's lost tail: the host killed with SIGKILL, its event log and journal without
  their last 1-3 relayed steps (ones a client is known to have had), then resumed: the
  clients give those steps back (tests/net/test_lost_tail.py);
- the disk filled, then freed: the record folder is on a small tmpfs of its own; it is
  filled until the host says it cannot save, then the space is freed and the host says it
  saves again.

At the end: the game completed (no forfeit), the record audits clean (nobody blamed),
replays to its result, and every card is accounted for (`check_record`)."""

from __future__ import annotations

import queue
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.net.test_disk_trouble import fill
from tests.net.test_lost_tail import lose_the_last_steps
from tests.soak.common import check_record
from tests.support import netns
from tests.support.procs import Proc, env_for


@contextmanager
def record_folder(tmp: Path, *, small: bool) -> Iterator[Path]:
    """The table's record folder; ``small``: on a small disk of its own (a tmpfs: root, as
    for the namespaces), to fill and free."""
    if not small:
        yield tmp / "records"
        return
    disk = tmp / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk)], check=True)
    try:
        yield disk / "records"
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def applied(p: Proc) -> int | None:
    """The last event client ``p`` traced as applied (its lines read so far and queued)."""
    while True:
        try:
            p.seen.append(p.lines.get_nowait())
        except queue.Empty:
            break
    seqs = [int(x["seq"]) for x in p.seen if x.get("event") == "applied"]
    return max(seqs) if seqs else None


def _until(host: Proc, event: str, seats: set[int], timeout: float) -> None:
    """Read the host's lines until ``event`` was said of every seat of ``seats`` (lines of
    other seats pass: a link cut may make a client reconnect at any time after it)."""
    left = set(seats)

    def said(line: dict[str, Any]) -> bool:
        if line.get("event") == event:
            left.discard(line.get("seat"))
        return not left

    host.expect(said, timeout)


def run_faults(
    tmp: Path,
    *,
    client_kills: int,
    host_kills: int,
    link_cuts: int,
    lost_tails: int = 0,
    disk_fills: int = 0,
    seed: int = 1,
    delay: float = 0.3,
    deck: int = 52,
) -> dict[str, Any]:
    rng = random.Random(seed)
    schedule = (
        ["client"] * client_kills
        + ["host"] * host_kills
        + ["link"] * link_cuts
        + ["tail"] * lost_tails
        + ["disk"] * disk_fills
    )
    rng.shuffle(schedule)
    procs: list[Proc] = []
    done: dict[str, int] = {"client": 0, "host": 0, "link": 0, "tail": 0, "disk": 0}
    away_seconds: list[float] = []
    host_down_seconds: list[float] = []
    t0 = time.monotonic()
    with record_folder(tmp, small=disk_fills > 0) as records, netns.NetnsLan(3) as lan:
        disk = records.parent

        def start(i: int, home: str, *args: str) -> Proc:
            argv = lan.command(i, [sys.executable, "-m", "localdurak", *args])
            # The clients trace each step they apply (a lost tail cuts only what one had).
            trace = {} if i == 0 else {"LOCALDURAK_TRACE": "1", "PYTHONUNBUFFERED": "1"}
            p = Proc(argv, env_for(tmp / home, LOCALDURAK_NO_MDNS="1", **trace), home)
            procs.append(p)
            return p

        try:
            host = start(
                0,
                "host",
                "host",
                "--headless",
                "--name",
                "Faults",
                "--port",
                "0",
                "--no-advertise",
                "--seats",
                "3",
                "--bots",
                "1",
                "--level",
                "random",
                "--deck",
                str(deck),
                "--bot-delay",
                str(delay),
                "--record-dir",
                str(records),
            )
            listening = host.event("listening")
            address = f"{lan.addresses[0]}:{listening['port']}"

            def join(i: int) -> Proc:
                name = f"p{i}"
                return start(
                    i,
                    name,
                    "join",
                    "--address",
                    address,
                    "--fingerprint",
                    listening["fingerprint"],
                    "--bot",
                    "--level",
                    "random",
                    "--name",
                    name,
                    "--delay",
                    str(delay),
                )

            clients = {1: join(1), 2: join(2)}
            started = host.event("game_started", 60)
            seat_of: dict[int, int] = {}
            for line in host.seen:
                if line.get("event") == "seated" and not line.get("bot"):
                    seat_of[int(str(line["name"])[1:])] = line["seat"]
            for _ in range(4):  # the deal done, the game being played
                clients[1].event("applied", 60)
            for fault in schedule:
                if any(x.get("event") == "game_over" for x in host.seen):
                    break
                if fault == "client":
                    i = rng.choice([1, 2])
                    clients[i].kill()
                    t = time.monotonic()
                    # Its seat's lines: a link cut before may have made the other client
                    # reconnect meanwhile (its own away and back lines, in any order).
                    _until(host, "away", {seat_of[i]}, 30)
                    clients[i] = join(i)
                    _until(host, "back", {seat_of[i]}, 60)
                    away_seconds.append(time.monotonic() - t)
                elif fault in ("host", "tail"):
                    # A client's last applied event before the kill: the host logged it.
                    seen = max((s for c in clients.values() if (s := applied(c))), default=None)
                    host.kill()
                    t = time.monotonic()
                    if fault == "tail":
                        assert seen is not None, "no client applied a step yet"
                        journal = Path(started["journal"])
                        lose_the_last_steps(
                            journal.parent / ".localdurak-table", journal, rng.randint(1, 3), seen
                        )
                    host = start(0, "host", "host", "--resume", started["journal"])
                    assert host.event("resumed", 60)["seq"] > 0
                    again = host.event("listening", 30)
                    assert again["port"] == listening["port"]
                    assert again["fingerprint"] == listening["fingerprint"]
                    _until(host, "back", set(seat_of.values()), 60)  # both players back
                    host_down_seconds.append(time.monotonic() - t)
                elif fault == "disk":
                    filler = fill(disk)
                    host.expect(
                        lambda x: (
                            (x.get("event") == "disk" and bool(x.get("problem")))
                            or x.get("event") == "game_over"
                        ),
                        60,
                    )
                    filler.unlink()
                    if not any(x.get("event") == "game_over" for x in host.seen):
                        host.expect(
                            lambda x: x.get("event") == "disk" and x.get("problem") is None, 60
                        )
                else:
                    i = rng.choice([1, 2])
                    ns = lan.hosts[i]
                    subprocess.run(["ip", "-n", ns, "link", "set", "eth0", "down"], check=True)
                    time.sleep(rng.uniform(0.5, 2.0))
                    subprocess.run(["ip", "-n", ns, "link", "set", "eth0", "up"], check=True)
                done[fault] += 1
                time.sleep(rng.uniform(0.2, 1.0))  # let the game move on between faults
            over = next((x for x in host.seen if x.get("event") == "game_over"), None)
            over = over or host.event("game_over", 300)
            assert "forfeit" not in over, over
            assert host.wait(60) == 0
            for c in clients.values():
                assert c.wait(60) == 0
        finally:
            for p in procs:
                p.kill()
        record = check_record(over["record"])  # (on the small disk, still mounted)
        for p in procs:
            applied(p)  # every line read
    hosts = [p for p in procs if p.name == "host"]
    return {
        "client_kills": done["client"],
        "host_kills": done["host"],
        "link_cuts": done["link"],
        "lost_tails": done["tail"],
        # Players who had seen what a resumed host lost, and gave it back.
        "gave_back": sum(x.get("event") == "lost_tail" for h in hosts for x in h.seen),
        "disk_fills": done["disk"],
        "seconds": round(time.monotonic() - t0, 1),
        "actions": len(record["actions"]),
        "deck": len(record["deck"]),
        "client_back_seconds_max": round(max(away_seconds), 2) if away_seconds else None,
        "host_back_seconds_max": round(max(host_down_seconds), 2) if host_down_seconds else None,
        "audit": "clean",
        "cards_accounted_for": len(record["deck"]),
    }
