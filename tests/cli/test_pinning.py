"""Pinned hosts (docs/lan.md "Trust"): trust on first use keyed by the host device's
certificate fingerprint.  A table joined once is written to known_hosts.json; the same table
(address, or name on the same machine) coming back with another certificate is refused with a
message that says what changed and how to accept it knowingly (--fingerprint)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from localdurak.cli import i18n, pinning
from localdurak.game.rules import Rules
from localdurak.net.api import TableError
from localdurak.net.client import Address, ClientSession
from localdurak.net.host import HostOptions, TableHost
from localdurak.net.identity import Identity, load_or_create
from localdurak.net.known_hosts import FILE, HostChanged, KnownHosts


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LOCALDURAK_NO_MDNS", "1")
    i18n.set_language("en")
    yield


def _options(tmp_path: Path, port: int = 0) -> HostOptions:
    return HostOptions(
        name="Kitchen",
        seats=2,
        rules=Rules(),
        bots=1,
        record_dir=tmp_path / "records",
        host="127.0.0.1",
        port=port,
        advertise=False,
    )


async def _serve(identity: Identity, options: HostOptions) -> tuple[TableHost, asyncio.Task[None]]:
    host = TableHost(identity, options)
    await host.start()
    return host, asyncio.get_running_loop().create_task(host.run())


async def _stop(host: TableHost, serving: asyncio.Task[None]) -> None:
    await host.close("test over")
    serving.cancel()
    with pytest.raises((asyncio.CancelledError, Exception)):
        await serving


async def _join(address: Address, tmp_path: Path) -> ClientSession:
    session = ClientSession(Identity.ephemeral("Vera"), "Vera", address, state_dir=tmp_path)
    await session.async_join()
    return session


async def test_a_known_table_with_another_certificate_is_refused_and_can_be_accepted(
    tmp_path: Path,
) -> None:
    anna = load_or_create(tmp_path / "anna")
    host, serving = await _serve(anna, _options(tmp_path))
    port = host.port
    where = f"127.0.0.1:{port}"

    # First use: nothing known, the table is trusted and written down.
    address = Address("127.0.0.1", port)
    pinning.pin(address)
    assert address.fingerprint is None
    session = await _join(address, tmp_path)
    await pinning.remember_named(session)
    await session.close()
    files = list((tmp_path / "home").rglob(FILE))
    assert len(files) == 1
    saved = json.loads(files[0].read_text(encoding="utf-8"))
    assert [h["fingerprint"] for h in saved["hosts"]] == [anna.fingerprint]
    assert where in saved["hosts"][0]["addresses"] and saved["hosts"][0]["name"] == "Kitchen"
    await _stop(host, serving)

    # Another laptop (another certificate) now answers at the same address: refused, and
    # nothing was sent to it.
    boris = load_or_create(tmp_path / "boris")
    host, serving = await _serve(boris, _options(tmp_path, port))
    again = Address("127.0.0.1", port)
    pinning.pin(again)
    assert again.fingerprint == anna.fingerprint  # the remembered one is pinned
    with pytest.raises(TableError) as refused:
        await _join(again, tmp_path)
    moved = pinning.changed(again, refused.value, "Kitchen")
    assert moved is not None and moved.old == anna.fingerprint and moved.new == boris.fingerprint
    text = pinning.changed_text(moved)
    assert "another certificate" in text and anna.fingerprint[:16] in text
    assert f"--address {where} --fingerprint {boris.fingerprint}" in text

    # Advertised with the new fingerprint (mDNS): refused before connecting.
    with pytest.raises(HostChanged):
        pinning.pin(Address("127.0.0.1", port, boris.fingerprint), "Kitchen")

    # Accepted knowingly: the fingerprint given by the person replaces the old one.
    accepted = Address("127.0.0.1", port, boris.fingerprint)
    pinning.pin(accepted, "Kitchen", accept=True)
    session = await _join(accepted, tmp_path)
    pinning.remember(session)
    await session.close()
    known = KnownHosts.load(files[0].parent)
    assert known.for_address(where) is not None
    assert known.for_address(where).fingerprint == boris.fingerprint  # type: ignore[union-attr]
    pinning.pin(Address("127.0.0.1", port, boris.fingerprint), "Kitchen")  # trusted now
    await _stop(host, serving)


def test_the_same_table_name_on_the_same_machine_is_the_same_table(tmp_path: Path) -> None:
    known = KnownHosts(tmp_path / FILE)
    a, b = "a" * 64, "b" * 64
    known.remember(a, name="Kitchen", address="10.0.0.5:47823", now=1.0)
    with pytest.raises(HostChanged):
        known.check(where="10.0.0.5:50000", name="Kitchen", fingerprint=b)  # restarted port
    known.check(where="10.0.0.5:50000", name="Lounge", fingerprint=b)  # another table
    known.check(where="10.0.0.9:47823", name="Kitchen", fingerprint=b)  # another machine
    assert dataclasses.asdict(known.hosts[a])["confirmed"] is False
