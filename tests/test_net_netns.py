"""A whole game of four processes in four network namespaces (issue 4 part 8): the headless
host advertises the table with mDNS, three `join TABLE --bot` processes find it by name on
their own (no address given), play, and the record audits clean.  Namespaces only
(tests/netns.py): nothing reaches a real network.  CI runs as root, so this runs there."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import netns
from tests.procs import Proc, env_for
from tests.test_net_e2e import check_record


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
            )
            for i in (1, 2, 3)
        ]
        for c in clients:
            joined = c.event("joined", 30)
            assert joined["address"].startswith(netns.SUBNET)  # found by mDNS, not given
            assert joined["address"].endswith(f":{listening['port']}")
        over = host.event("game_over", 120)
        assert host.wait(30) == 0
        for c in clients:
            assert c.wait(30) == 0
        check_record(over["record"])
    finally:
        for p in procs:
            p.kill()
