"""A host that leaves mid-game pauses its table: the friend's screen says so
and keeps his seat (no "The table is closed"), and the host's player learns how to resume."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput

from localdurak.cli import i18n
from localdurak.cli.app import DurakApp, paused_text
from localdurak.game.rules import Rules
from localdurak.net.api import ConnectionState
from localdurak.net.client import Address, ClientSession
from localdurak.net.host import HostOptions, TableHost
from localdurak.net.identity import Identity, load_or_create
from tests.support.cli_helpers import FixedOutput, rendered


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LOCALDURAK_NO_MDNS", "1")
    i18n.set_language("en")
    yield


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp:
        yield inp


async def test_the_friend_sees_a_paused_table_and_keeps_his_seat(
    pipe: PipeInput, tmp_path: Path
) -> None:
    options = HostOptions(
        name="Kitchen",
        seats=2,
        rules=Rules(),
        bots=1,
        record_dir=tmp_path / "records",
        host="127.0.0.1",
        port=0,
        advertise=False,
        bot_delay=0.2,
    )
    host = TableHost(load_or_create(tmp_path / "host"), options)
    await host.start()
    serving = asyncio.get_running_loop().create_task(host.run())
    vera = ClientSession(
        Identity.ephemeral("Vera"), "Vera", Address("127.0.0.1", host.port), state_dir=tmp_path
    )
    await vera.async_join(ready=True)
    app = DurakApp(session=vera, input=pipe, output=FixedOutput())
    task = asyncio.get_running_loop().create_task(app.run_async())
    loop = asyncio.get_running_loop()
    end = loop.time() + 20
    while vera.view is None and loop.time() < end:
        await asyncio.sleep(0.05)
    assert vera.view is not None  # dealt
    journal = await host.stop("the host left")
    serving.cancel()
    assert journal is not None  # a game to come back to: paused, not closed
    assert "--resume" in paused_text(journal)
    end = loop.time() + 10
    text = ""
    while loop.time() < end:
        text = await rendered(app.application)
        if vera.connection is ConnectionState.PAUSED and "paused" in text:
            break
    assert vera.connection is ConnectionState.PAUSED, vera.connection
    assert "The host paused" in text and "The table is closed" not in text
    assert not vera.closed
    task.cancel()
    await vera.close()


async def test_a_seat_back_at_a_resumed_table_keeps_its_name(tmp_path: Path) -> None:
    """After the host resumes, the seat that comes back (the host's own player, a client
    started again) reads the table's name at once, not "127.0.0.1" until a lobby comes."""
    from localdurak.net.host import resume_table

    options = HostOptions(
        name="Kitchen",
        seats=2,
        rules=Rules(),
        bots=1,
        record_dir=tmp_path / "records",
        host="127.0.0.1",
        port=0,
        advertise=False,
        bot_delay=0.2,
    )
    identity = load_or_create(tmp_path / "host")
    host = TableHost(identity, options)
    await host.start()
    serving = asyncio.get_running_loop().create_task(host.run())
    vera_id = Identity.ephemeral("Vera")
    vera = ClientSession(vera_id, "Vera", Address("127.0.0.1", host.port), state_dir=tmp_path)
    await vera.async_join(ready=True)
    loop = asyncio.get_running_loop()
    end = loop.time() + 20
    while vera.view is None and loop.time() < end:
        await asyncio.sleep(0.05)
    assert vera.view is not None and vera.table_name == "Kitchen"
    vera.save()
    address = Address("127.0.0.1", host.port, vera.address.fingerprint)
    journal = await host.stop("the host left")
    serving.cancel()
    await vera.close()
    assert journal is not None
    again = resume_table(identity, journal)
    await again.start()
    serving = loop.create_task(again.run())
    back = ClientSession(vera_id, "Vera", address, state_dir=tmp_path)
    assert back.table_name == "127.0.0.1"  # never heard of: the address
    await back.start()  # connected; nothing of the table read yet but its welcome
    assert back.table_name == "Kitchen"
    await back.close()
    await again.close()
    serving.cancel()
