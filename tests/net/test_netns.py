"""A whole game of four processes in four network namespaces (lan.md): the headless
host advertises the table with mDNS, three `join TABLE --bot` processes find it by name on
their own (no address given), play, and the record audits clean.  Namespaces only
(tests/support/netns.py): nothing reaches a real network.  CI runs as root, so this runs there."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.net.test_e2e import check_record
from tests.support import netns
from tests.support.procs import Proc, env_for

# A long run (the quick suite is `pytest -m "not slow"`; CI runs everything).
pytestmark = pytest.mark.slow


@pytest.fixture
def lan() -> Iterator[netns.NetnsLan]:
    reason = netns.unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    with netns.NetnsLan(4) as made:
        yield made


@pytest.mark.netns
def test_four_processes_in_four_namespaces_find_the_table_by_mdns_and_play(
    lan: netns.NetnsLan, tmp_path: Path
) -> None:
    procs: list[Proc] = []

    def start(i: int, home: str, *args: str) -> Proc:
        env = env_for(tmp_path / home)
        env.pop("LOCALDURAK_NO_MDNS", None)
        p = Proc(lan.command(i, [sys.executable, "-m", "localdurak", *args]), env, home)
        procs.append(p)
        return p

    try:
        host = start(
            0,
            "host",
            "host",
            "--headless",
            "--name",
            "Namespace table",
            "--seats",
            "3",
            "--deck",
            "24",
            "--port",
            "0",
            "--record-dir",
            str(tmp_path / "records"),
        )
        listening = host.event("listening")
        env = env_for(tmp_path / "looker")
        env.pop("LOCALDURAK_NO_MDNS", None)

        def tables(want: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
            """The table as `tables --json` in another namespace lists it, once ``want``
            holds (the TXT record changes as the table fills; a look may come early)."""
            seen: list[Any] = []
            for _ in range(6):
                out = subprocess.run(
                    lan.command(
                        1,
                        [
                            sys.executable,
                            "-m",
                            "localdurak",
                            "tables",
                            "--json",
                            "--timeout",
                            "1.5",
                        ],
                    ),
                    capture_output=True,
                    text=True,
                    env=env,
                    timeout=30,
                    check=True,
                )
                found = [t for t in json.loads(out.stdout) if t["name"] == "Namespace table"]
                seen.append(found)
                if found and want(found[0]):
                    return dict(found[0])
            raise AssertionError(f"the table never showed as wanted: {seen}")

        before = tables(lambda t: t["seats"] == [0, 3] and t["state"] == "lobby")
        assert before["fingerprint"] == listening["fingerprint"]
        clients = [
            start(
                i,
                f"p{i}",
                "join",
                "Namespace",
                "--bot",
                "--level",
                "random",
                "--name",
                f"p{i}",
                "--timeout",
                "20",
                "--delay",  # a game long enough to be seen while it is played
                "0.12",
            )
            for i in (1, 2, 3)
        ]
        for c in clients:
            joined = c.event("joined", 30)
            assert joined["address"].startswith(netns.SUBNET)  # found by mDNS, not given
            assert joined["address"].endswith(f":{listening['port']}")
        host.event("game_started", 30)
        # The TXT record was updated in place as the seats filled (lan.md).
        tables(lambda t: t["seats"] == [3, 3] and t["state"] == "playing")
        over = host.event("game_over", 120)
        assert host.wait(30) == 0
        for c in clients:
            assert c.wait(30) == 0
        check_record(over["record"])
    finally:
        for p in procs:
            p.kill()
