"""Suite 2, faults: kill -9 and restart clients and the host, cut links, during one game.

A private LAN of network namespaces (tests/support/netns.py): the headless host in the first (with a
bot of its own), a `join --bot` process in each of the two others, advertising off.  While
one game runs, a shuffled schedule of faults:

- a client killed with SIGKILL and started again with the same home: the host reports it
  ``away`` then ``back``; the restarted client resumes its saved seat;
- the host killed with SIGKILL and started again with ``host --resume JOURNAL``: it listens on
  the same port with the same certificate, the clients reconnect by themselves;
- a client's link taken down (``ip link set eth0 down`` in its namespace) for a moment, then
  up again.

At the end: the game completed (no forfeit), the record audits clean, replays to its result,
and every card is accounted for (`check_record`)."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.soak.common import check_record
from tests.support import netns
from tests.support.procs import Proc, env_for


def run_faults(
    tmp: Path,
    *,
    client_kills: int,
    host_kills: int,
    link_cuts: int,
    seed: int = 1,
    delay: float = 0.3,
    deck: int = 52,
) -> dict[str, Any]:
    rng = random.Random(seed)
    schedule = ["client"] * client_kills + ["host"] * host_kills + ["link"] * link_cuts
    rng.shuffle(schedule)
    procs: list[Proc] = []
    done: dict[str, int] = {"client": 0, "host": 0, "link": 0}
    away_seconds: list[float] = []
    host_down_seconds: list[float] = []
    t0 = time.monotonic()
    with netns.NetnsLan(3) as lan:

        def start(i: int, home: str, *args: str) -> Proc:
            argv = lan.command(i, [sys.executable, "-m", "localdurak", *args])
            p = Proc(argv, env_for(tmp / home, LOCALDURAK_NO_MDNS="1"), home)
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
                str(tmp / "records"),
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
            time.sleep(1.0)
            for fault in schedule:
                if any(x.get("event") == "game_over" for x in host.seen):
                    break
                if fault == "client":
                    i = rng.choice([1, 2])
                    clients[i].kill()
                    t = time.monotonic()
                    away = host.event("away", 30)
                    assert away["seat"] == seat_of[i], (away, seat_of)
                    clients[i] = join(i)
                    back = host.event("back", 60)
                    assert back["seat"] == away["seat"]
                    away_seconds.append(time.monotonic() - t)
                elif fault == "host":
                    host.kill()
                    t = time.monotonic()
                    host = start(0, "host", "host", "--resume", started["journal"])
                    assert host.event("resumed", 60)["seq"] > 0
                    again = host.event("listening", 30)
                    assert again["port"] == listening["port"]
                    assert again["fingerprint"] == listening["fingerprint"]
                    host.event("back", 60)
                    host.event("back", 60)
                    host_down_seconds.append(time.monotonic() - t)
                else:
                    i = rng.choice([1, 2])
                    ns = lan.hosts[i]
                    subprocess.run(["ip", "-n", ns, "link", "set", "eth0", "down"], check=True)
                    time.sleep(rng.uniform(0.5, 2.0))
                    subprocess.run(["ip", "-n", ns, "link", "set", "eth0", "up"], check=True)
                done[fault] += 1
                time.sleep(rng.uniform(0.2, 1.0))  # let the game move on between faults
            over = host.event("game_over", 300)
            assert "forfeit" not in over, over
            assert host.wait(60) == 0
            for c in clients.values():
                assert c.wait(60) == 0
        finally:
            for p in procs:
                p.kill()
    record = check_record(over["record"])
    return {
        "client_kills": done["client"],
        "host_kills": done["host"],
        "link_cuts": done["link"],
        "seconds": round(time.monotonic() - t0, 1),
        "actions": len(record["actions"]),
        "deck": len(record["deck"]),
        "client_back_seconds_max": round(max(away_seconds), 2) if away_seconds else None,
        "host_back_seconds_max": round(max(host_down_seconds), 2) if host_down_seconds else None,
        "audit": "clean",
        "cards_accounted_for": len(record["deck"]),
    }
