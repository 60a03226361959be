"""A table host for in-process tests: its options on loopback, a host with one guest, and a
host with one player played by a bot."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localdurak.net.client import Address, ClientSession, play_as_bot
from localdurak.net.host import HostOptions, TableHost
from localdurak.net.identity import Identity, load_or_create


def loopback(tmp_path: Path, **options: Any) -> HostOptions:
    """`HostOptions` for a table on 127.0.0.1 at a free port, not advertised, its records in
    ``tmp_path / "records"``; ``options`` give the rest (name, seats, bots, rules…)."""
    where: dict[str, Any] = {
        "record_dir": tmp_path / "records",
        "port": 0,
        "advertise": False,
        "host": "127.0.0.1",
    }
    return HostOptions(**(where | options))


async def _serving(
    tmp_path: Path, options: dict[str, Any]
) -> tuple[Identity, TableHost, asyncio.Task[None]]:
    """A host of `loopback` ``options`` (its identity under ``tmp_path / "host"``), started and
    serving in this process."""
    identity = load_or_create(tmp_path / "host")
    host = TableHost(identity, loopback(tmp_path, **options))
    await host.start()
    return identity, host, asyncio.create_task(host.run())


def _client(tmp_path: Path, name: str, host: TableHost, identity: Identity) -> ClientSession:
    """A client ``name`` (its home under ``tmp_path / name``) for ``host``, not yet started."""
    return ClientSession(
        load_or_create(tmp_path / name),
        name,
        Address("127.0.0.1", host.port, identity.fingerprint),
        state_dir=tmp_path / name / "sessions",
    )


@asynccontextmanager
async def host_with_guest(
    tmp_path: Path, **options: Any
) -> AsyncIterator[tuple[TableHost, ClientSession]]:
    """A host of `loopback` ``options`` running in this process (its other seats its own
    bots) and one guest joined, not yet ready (the test says when); both are closed on the
    way out."""
    ident, host, run = await _serving(tmp_path, options)
    guest = _client(tmp_path, "guest", host, ident)
    try:
        await guest.start()
        yield host, guest
    finally:
        await guest.close()
        await host.close("test over")
        run.cancel()


async def until_hand_decoded(guest: ClientSession, timeout: float = 60.0) -> None:
    """Wait until the guest's game has dealt it a hand it has decoded."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while guest.game is None or not guest.game.hand_decoded():
        assert loop.time() < end, "no deal"
        await asyncio.sleep(0.01)


@dataclass
class PlayedTable:
    """A host serving, and its player "alice" played by a bot (`table_played_by_a_bot`)."""

    identity: Identity
    host: TableHost
    serving: asyncio.Task[None]
    session: ClientSession
    playing: asyncio.Task[Any]


async def table_played_by_a_bot(
    tmp_path: Path, *, play_delay: float, **options: Any
) -> PlayedTable:
    """A host of `loopback` ``options`` (its identity under ``tmp_path / "host"``) serving, and
    a client "alice" (under ``tmp_path / "alice"``) joined and played by a random bot that
    waits ``play_delay`` seconds between moves; the test stops and closes them."""
    identity, host, serving = await _serving(tmp_path, options)
    session = _client(tmp_path, "alice", host, identity)
    await session.start()
    playing = asyncio.create_task(play_as_bot(session, "random", delay=play_delay))
    return PlayedTable(identity, host, serving, session, playing)
