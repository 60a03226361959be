"""Discovery: TXT records, addresses, and real mDNS between network namespaces we create.

The mDNS tests run only inside private namespaces (tests/support/netns.py): never on a real
interface.  CI runs as root, so they run there; elsewhere they skip, saying why.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from localdurak.net import discovery as dm
from localdurak.protocol.messages import PROTOCOL_VERSION
from tests.support import netns

FP = "3fa2" + "0" * 60
PEER = Path(__file__).resolve().parents[1] / "support" / "mdns_peer.py"

# --- without a network -----------------------------------------------------------------


def txt(**over: bytes | None) -> dict[bytes, bytes | None]:
    base: dict[bytes, bytes | None] = {
        b"v": b"1",
        b"name": b"Anna's table",
        b"seats": b"2/4",
        b"state": b"lobby",
        b"rules": "perevodnoy 36 · trump show".encode(),
        b"fp": FP.encode(),
    }
    base.update({k.encode(): v for k, v in over.items()})
    return {k: v for k, v in base.items() if v is not None or k == b"x"}


def test_txt_record_round_trip() -> None:
    ad = dm.TableAd("Anna's table", FP, 47823, seats_taken=2, seats_total=4, rules="perevodnoy 36")
    props = {k.encode(): v.encode() for k, v in ad.txt().items()}
    info = dm.parse_txt("Anna's table (3fa2)", props, 47823, ["192.0.2.10"])
    assert (info.name, info.seats_taken, info.seats_total, info.fingerprint) == (
        "Anna's table",
        2,
        4,
        FP,
    )
    assert info.state is dm.TableStatus.LOBBY and info.compatible and not info.full
    assert info.min_version == info.max_version == PROTOCOL_VERSION
    assert all(len(k) + len(v) < 255 for k, v in props.items())


def test_a_table_with_a_pin_says_so_and_older_records_read_as_without() -> None:
    ad = dm.TableAd("Anna's table", FP, 47823, pin=True)
    props = {k.encode(): v.encode() for k, v in ad.txt().items()}
    assert props[b"pin"] == b"1"
    assert dm.parse_txt("x", props, 47823, []).pin
    assert dm.parse_txt("x", props, 47823, []).to_json()["pin"] is True
    assert b"pin" not in {k.encode() for k in dm.TableAd("T", FP, 1).txt()}
    assert not dm.parse_txt("x", txt(), 47823, []).pin
    assert not dm.parse_txt("x", txt(pin=b"yes"), 47823, []).pin


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"fp": b"zz"}, "fingerprint"),
        ({"seats": b"5/4"}, "out of range"),
        ({"seats": b"two"}, "N/M"),
        ({"state": b"sleeping"}, "state"),
        ({"v": b"x"}, "version"),
        ({"name": b"\x1b[2J"}, "control characters"),
        ({"name": b"\xff"}, "UTF-8"),
        ({"fp": None}, "no 'fp'"),
    ],
)
def test_foreign_txt_records_refused(change: dict[str, bytes | None], why: str) -> None:
    with pytest.raises(dm.DiscoveryError, match=why):
        dm.parse_txt("x", txt(**change), 1, [])


def test_newer_host_is_listed_but_marked_incompatible() -> None:
    info = dm.parse_txt("x", txt(v=b"7-9"), 1, ["192.0.2.10"])
    assert not info.compatible and info.to_json()["version"] == [7, 9]


def test_instance_names_carry_a_short_fingerprint_and_fit_dns() -> None:
    assert dm.instance_name("Anna's table", FP) == "Anna's table (3fa2)"
    long = dm.instance_name("Ж" * 60, FP)
    assert long.endswith(" (3fa2)") and len(long.encode()) <= 63


class FakeIP:
    def __init__(self, ip: Any) -> None:
        self.ip = ip


class FakeAdapter:
    def __init__(self, name: str, *ips: Any) -> None:
        self.name = self.nice_name = name
        self.ips = [FakeIP(i) for i in ips]


class BrokenAdapter:
    name = "weird0"

    @property
    def ips(self) -> list[Any]:
        raise OSError("adapter vanished")


def test_lan_addresses_skip_loopback_link_local_virtual_and_broken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    adapters = [
        FakeAdapter("lo", "127.0.0.1", ("::1", 0, 0)),
        FakeAdapter("wlan0", "192.0.2.10", "169.254.3.4", ("fe80::1", 0, 2), ("2001:db8::5", 0, 0)),
        FakeAdapter("docker0", "198.51.100.1"),
        FakeAdapter("virbr0", "198.51.100.2"),
        FakeAdapter("vboxnet0", "198.51.100.3"),
        BrokenAdapter(),
        FakeAdapter("eth1", "192.0.2.20"),
    ]
    monkeypatch.setattr(dm.ifaddr, "get_adapters", lambda: adapters)
    assert dm.lan_addresses() == ["192.0.2.10", "192.0.2.20"]
    assert dm.lan_addresses(ipv6=True) == ["192.0.2.10", "2001:db8::5", "192.0.2.20"]

    def boom() -> list[Any]:
        raise OSError("no netlink")

    monkeypatch.setattr(dm.ifaddr, "get_adapters", boom)
    assert dm.lan_addresses() == []


async def test_advertising_off_or_impossible_never_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(dm.NO_MDNS_ENV, raising=False)  # each case below sets its own
    ad = dm.TableAd("T", FP, 1234)
    async with dm.Advertiser(ad, enabled=False) as adv:
        assert not adv.active and adv.problem == "advertising is turned off"
        await adv.update(seats_taken=2)  # harmless
    async with dm.Advertiser(ad, addresses=[]) as adv:
        assert not adv.active and "--address HOST:1234" in (adv.problem or "")
    monkeypatch.setenv(dm.NO_MDNS_ENV, "1")
    async with dm.Advertiser(ad) as adv:
        assert not adv.active
    with pytest.raises(dm.DiscoveryUnavailable, match="--address"):
        async with dm.TableBrowser():
            pass


def test_tables_command_without_mdns_points_to_address(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from localdurak.cli.main import main

    monkeypatch.setenv(dm.NO_MDNS_ENV, "1")
    assert main(["tables", "--timeout", "0.1"]) == 1
    assert "--address" in capsys.readouterr().err
    assert main(["tables", "--timeout", "0"]) == 2


# --- real mDNS, inside namespaces -------------------------------------------------------


@pytest.fixture
def lan() -> Iterator[netns.NetnsLan]:
    reason = netns.unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    with netns.NetnsLan(3) as made:
        yield made


class Proc:
    """A process in a namespace whose JSON lines are read by a thread."""

    def __init__(self, popen: subprocess.Popen[str]) -> None:
        self.p = popen
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            if line.startswith("{"):
                self.lines.put(json.loads(line))

    def expect(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                err = self.p.stderr.read() if self.p.poll() is not None and self.p.stderr else ""
                raise AssertionError(f"timed out waiting for a line; stderr: {err[-2000:]}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if pred(line):
                return line

    def send(self, text: str) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(text + "\n")
        self.p.stdin.flush()

    def stop(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait(10)


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    started: list[Proc] = []
    yield started
    for p in started:
        p.stop()


def start(
    lan: netns.NetnsLan, procs: list[Proc], host: int, *args: str, stdin: bool = False
) -> Proc:
    p = Proc(lan.popen(host, netns.python(PEER, *args), stdin=subprocess.PIPE if stdin else None))
    procs.append(p)
    return p


def tables_with(pred: Callable[[list[dict[str, Any]]], bool]) -> Callable[[dict[str, Any]], bool]:
    return lambda line: line.get("event") == "tables" and pred(line["tables"])


@pytest.mark.netns
def test_table_found_updated_in_place_and_withdrawn(lan: netns.NetnsLan, procs: list[Proc]) -> None:
    browser = start(lan, procs, 1, "browse", "--address", lan.addresses[1], "--timeout", "30")
    browser.expect(lambda x: x["event"] == "start")
    waiter = start(
        lan, procs, 2, "browse", "--address", lan.addresses[2], "--wait-for", "Anna's table"
    )
    host = start(
        lan, procs, 0, "advertise", "--address", lan.addresses[0], "--fingerprint", FP, stdin=True
    )
    host.expect(lambda x: x["event"] == "registered" and x["active"])
    line = browser.expect(tables_with(lambda ts: len(ts) == 1))
    found = waiter.expect(lambda x: x["event"] == "found")  # TableBrowser.wait_for
    assert [t["instance"] for t in found["tables"]] == ["Anna's table (3fa2)"]
    t = line["tables"][0]
    assert t["instance"] == "Anna's table (3fa2)" and t["name"] == "Anna's table"
    assert t["addresses"] == [lan.addresses[0]] and t["port"] == 47823
    assert t["seats"] == [1, 4] and t["state"] == "lobby" and t["fingerprint"] == FP
    assert t["rules"] == "podkidnoy 36" and t["compatible"]

    host.send("seats 3")
    line = browser.expect(tables_with(lambda ts: len(ts) == 1 and ts[0]["seats"] == [3, 4]))
    assert line["tables"][0]["instance"] == "Anna's table (3fa2)"  # the same service, updated
    host.send("playing")
    browser.expect(tables_with(lambda ts: len(ts) == 1 and ts[0]["state"] == "playing"))

    assert host.p.stdin is not None
    host.p.stdin.close()  # the host exits: its goodbye withdraws the table at once
    host.expect(lambda x: x["event"] == "withdrawn")
    browser.expect(tables_with(lambda ts: ts == []), timeout=5)


@pytest.mark.netns
def test_a_seat_taken_as_the_table_is_announced_reaches_a_lobby_opened_then(
    lan: netns.NetnsLan, procs: list[Proc]
) -> None:
    # The host's own player sits down the moment the table is registered (0/4, then 1/4 at
    # once), and a friend opens his lobby right then.  His first answer says 1/4; the
    # registration's own announcements (still going out 225 and 450 ms later) must not bring
    # back the record they started with: a record he had not seen goes last in his cache and
    # wins, and the later 1/4 announcements, already known, changed nothing (lobby showed 0/3).
    browser = start(
        lan, procs, 1, "browse", "--address", lan.addresses[1], "--timeout", "2", "--go", stdin=True
    )
    browser.expect(lambda x: x["event"] == "start")
    host = start(
        lan,
        procs,
        0,
        "advertise",
        "--address",
        lan.addresses[0],
        "--fingerprint",
        FP,
        "--seats",
        "0",
        "--then-seats",
        "1",
        stdin=True,
    )
    registered = host.expect(lambda x: x["event"] == "registered" and x["active"])
    host.expect(lambda x: x["event"] == "updated")
    # The friend opens his lobby a tenth of a second after the table was registered: after
    # its first announcement, before the next two (this places the moment; it waits for
    # nothing).
    time.sleep(max(0.0, registered["t"] + 0.1 - time.monotonic()))
    browser.send("go")
    browser.expect(tables_with(lambda ts: len(ts) == 1))
    # Two seconds after the lobby opened, every announcement is long out: what it shows now
    # is what it keeps showing.
    done = browser.expect(lambda x: x["event"] == "done")
    assert [t["seats"] for t in done["tables"]] == [[1, 4]]


@pytest.mark.netns
def test_a_seat_count_going_back_to_one_shown_before_reaches_the_lobby(
    lan: netns.NetnsLan, procs: list[Proc]
) -> None:
    # 1/4, a friend sits down (2/4), he leaves (1/4 again): the record 1/4 is one the lobby's
    # cache still holds, so zeroconf's browser says nothing about it; the lobby kept 2/4.
    browser = start(lan, procs, 1, "browse", "--address", lan.addresses[1], "--timeout", "30")
    browser.expect(lambda x: x["event"] == "start")
    host = start(
        lan, procs, 0, "advertise", "--address", lan.addresses[0], "--fingerprint", FP, stdin=True
    )
    line = browser.expect(tables_with(lambda ts: len(ts) == 1 and ts[0]["seats"] == [1, 4]))
    for seats in (2, 1):
        # reading: zeroconf drops a packet identical to one it heard in the last 0.8 s (its
        # duplicate suppression), so a count that comes back within 0.8 s of the same
        # announcement reaches the lobby only at its next query; the changes here are a
        # second apart, as people's are (this places the moment; it waits for nothing).
        time.sleep(max(0.0, line["t"] + 1.0 - time.monotonic()))
        host.send(f"seats {seats}")
        line = browser.expect(tables_with(lambda ts, n=seats: [t["seats"] for t in ts] == [[n, 4]]))


@pytest.mark.netns
def test_same_name_on_one_device_gets_a_unique_instance(
    lan: netns.NetnsLan, procs: list[Proc]
) -> None:
    browser = start(lan, procs, 2, "browse", "--address", lan.addresses[2], "--timeout", "30")
    first = start(lan, procs, 0, "advertise", "--address", lan.addresses[0], stdin=True)
    assert first.expect(lambda x: x["event"] == "registered")["instance"] == "Anna's table (3fa2)"
    # The same device (the same key) runs a second host process, on another port.
    second = start(
        lan, procs, 1, "advertise", "--address", lan.addresses[1], "--port", "47824", stdin=True
    )
    assert (
        second.expect(lambda x: x["event"] == "registered")["instance"] == "Anna's table (3fa2) 2"
    )
    line = browser.expect(tables_with(lambda ts: len(ts) == 2))
    found = sorted((t["addresses"], t["port"]) for t in line["tables"])
    assert found == [([lan.addresses[0]], 47823), ([lan.addresses[1]], 47824)]


@pytest.mark.netns
def test_tables_command_lists_the_table(lan: netns.NetnsLan, procs: list[Proc]) -> None:
    host = start(
        lan, procs, 0, "advertise", "--address", lan.addresses[0], "--name", "Kitchen", stdin=True
    )
    host.expect(lambda x: x["event"] == "registered" and x["active"])
    cmd = lan.popen(1, [sys.executable, "-m", "localdurak", "tables", "--timeout", "1.5", "--json"])
    out, err = cmd.communicate(timeout=30)
    assert cmd.returncode == 0, err
    (table,) = json.loads(out)
    assert table["instance"] == "Kitchen (3fa2)" and table["addresses"] == [lan.addresses[0]]
    cmd = lan.popen(1, [sys.executable, "-m", "localdurak", "tables", "--timeout", "1.5"])
    out, err = cmd.communicate(timeout=30)
    assert (
        cmd.returncode == 0
        and f"Kitchen (3fa2)  1/4 seats  lobby  podkidnoy 36  {lan.addresses[0]}:47823" in out
    )


@pytest.mark.netns
def test_one_failing_address_does_not_stop_advertising(
    lan: netns.NetnsLan, procs: list[Proc]
) -> None:
    code = (
        "import asyncio\n"
        "from localdurak.net.discovery import Advertiser, TableAd\n"
        "async def main():\n"
        f"    addresses = ['{lan.addresses[0]}', '192.0.2.99']  # the second is on no interface\n"
        f"    async with Advertiser(TableAd('T', {FP!r}, 1), addresses=addresses) as a:\n"
        "        print(a.active, a.addresses, a.problem)\n"
        "asyncio.run(main())\n"
    )
    p = lan.popen(0, [sys.executable, "-c", code])
    out, err = p.communicate(timeout=30)
    assert out.strip() == f"True ['{lan.addresses[0]}'] None", err


def test_namespace_tests_skip_only_without_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(netns.sys, "platform", "linux")
    monkeypatch.setattr(netns.os, "geteuid", lambda: 1000)
    assert "root" in (netns.unavailable_reason() or "")
    monkeypatch.setattr(netns.os, "geteuid", lambda: 0)
    monkeypatch.setattr(netns.shutil, "which", lambda name: "/usr/sbin/ip")
    assert netns.unavailable_reason() is None
