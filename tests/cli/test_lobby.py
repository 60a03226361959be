"""The terminal client over the network, headless (create_pipe_input, a fixed 80×24 output):
the host's waiting screen (its table's lobby: address, port, pairing codes, seats), and the
lobby's join and host paths, against hosts on loopback with advertising off (lan.md, ui.md)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput

from localdurak.cli import i18n
from localdurak.cli.app import DurakApp
from localdurak.cli.lobby import Lobby, NoTables, TableRow
from localdurak.cli.netplay import host_and_sit
from localdurak.game.rules import Rules, Variant
from localdurak.net.api import LobbySeat, LobbyView, SeatKind
from localdurak.net.client import Address, ClientSession
from localdurak.net.host import HostOptions, TableHost
from localdurak.net.identity import Identity, load_or_create, pairing_code
from localdurak.protocol.errors import Forbidden, Unavailable
from tests.support.cli_helpers import FixedOutput, StaticSession, check_golden, dealt, rendered


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


def _options(tmp_path: Path, seats: int, bots: int) -> HostOptions:
    return HostOptions(
        name="Kitchen",
        seats=seats,
        rules=Rules(),
        bots=bots,
        record_dir=tmp_path / "records",
        host="127.0.0.1",
        port=0,
        advertise=False,
        challenge_window=0.0,
    )


async def _until(app: DurakApp, text: str, timeout: float = 10.0) -> str:
    """The screen once it shows ``text``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    screen = ""
    while loop.time() < end:
        screen = await rendered(app.application, 2)
        if text in screen:
            return screen
    raise AssertionError(f"{text!r} never showed; the screen:\n{screen}")


def _bounded(
    seconds: float,
) -> Callable[[Callable[..., Awaitable[None]]], Callable[..., Awaitable[None]]]:
    """A test over real sockets that must end within ``seconds``: a step that never answers
    fails there, with its line, instead of holding a worker until the suite's timeout (one
    of these hung once in a full CI run and was not seen again in a dozen runs under load)."""

    def wrap(test: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
        @functools.wraps(test)
        async def run(*args: Any, **kwargs: Any) -> None:
            async with asyncio.timeout(seconds):
                await test(*args, **kwargs)

        return run

    return wrap


async def _quit(app: DurakApp, pipe: PipeInput, task: asyncio.Task[int]) -> int:
    """`q`, and `y` to the question it asks mid-game."""
    pipe.send_text("q")
    for _ in range(100):
        if task.done():
            break
        if app.ui.confirm:
            pipe.send_text("y")
            break
        await asyncio.sleep(0.02)
    return await asyncio.wait_for(task, 10)


@_bounded(60)
async def test_host_screen_shows_its_lobby_until_the_deal(pipe: PipeInput, tmp_path: Path) -> None:
    identity = load_or_create()
    hosting, session = await host_and_sit(identity, _options(tmp_path, 3, 1), "Anna")
    app = DurakApp(session=session, hosting=hosting, input=pipe, output=FixedOutput())
    task = asyncio.get_running_loop().create_task(app.run_async())
    text = await _until(app, "Waiting for")
    assert "Table Kitchen" in text and f":{hosting.port}" in text
    assert "Anna (you)" in text and "not ready" in text and "bot" in text
    assert "then press r" in text and "r ready" in text
    assert "(free)" in text and "Waiting for: Anna, 1 more player" in text
    assert "Dealing" not in text

    # A friend joins: his name, and the code he must see on his own screen.
    vera = Identity.ephemeral("Vera")
    friend = ClientSession(vera, "Vera", Address("127.0.0.1", hosting.port), state_dir=tmp_path)
    await friend.start()
    code = pairing_code(identity.public_key, vera.public_key)
    text = await _until(app, "Vera")
    assert f"code {code}" in text and "not ready" in text and "Waiting for: Anna, Vera" in text
    assert friend.pairing_code == code  # the joining screen shows the same code

    # No deal until every player has compared the codes and said ready, the host's own
    # player too (docs/ui.md "The lobby").
    await friend.set_ready(True)
    text = await _until(app, "Waiting for: Anna")
    assert "you: Anna" not in text
    pipe.send_text("r")
    text = await _until(app, "you: Anna")
    assert "Table Kitchen" not in text and "Waiting for:" not in text
    pipe.send_text("?")  # the codes stay readable after the deal, in the help
    text = await _until(app, "Pairing codes")
    assert f"Vera: code {code}" in text and f":{hosting.port}" in text
    pipe.send_text(" ")
    await _until(app, "you: Anna")
    assert await _quit(app, pipe, task) == 0
    assert hosting.serving.done()
    await friend.close()


@_bounded(60)
async def test_lobby_enter_joins_a_found_table(pipe: PipeInput, tmp_path: Path) -> None:
    host = TableHost(load_or_create(tmp_path / "host"), _options(tmp_path, 2, 1))
    await host.start()
    serving = asyncio.get_running_loop().create_task(host.run())

    class Found(NoTables):
        def tables(self) -> list[TableRow]:
            where = Address("127.0.0.1", host.port, host.identity.fingerprint)
            return [TableRow("Kitchen", "", 1, 2, "podkidnoy 36", "lobby", where)]

    lobby = Lobby("Anna", Found(), bot_delay=0)
    app = DurakApp(lobby=lobby, input=pipe, output=FixedOutput())
    task = asyncio.get_running_loop().create_task(app.run_async())
    await _until(app, "Kitchen")
    pipe.send_text("\r")
    # Seated: the code to compare, and no deal before Anna's r (docs/ui.md "The lobby").
    text = await _until(app, "then press r")
    code = pairing_code(host.identity.public_key, load_or_create().public_key)
    assert f"Code to compare with the host: {code}" in text and "you: Anna" not in text
    pipe.send_text("r")
    text = await _until(app, "you: Anna")  # dealt: the table screen
    assert "Kitchen" in text and "not in this version" not in text
    assert app.screen == "table"
    session = app.session
    assert isinstance(session, ClientSession) and session.channel is not None
    pipe.send_text("?")  # the code to compare with the host's screen, also after the deal
    code = pairing_code(host.identity.public_key, session.identity.public_key)
    text = await _until(app, "Pairing codes")
    assert f"Code to compare with the host: {code}" in text
    pipe.send_text(" ")
    await _until(app, "you: Anna")

    # The connection drops: the session reconnects by itself, the table stays on screen.
    session.channel.cut()
    loop = asyncio.get_running_loop()
    end = loop.time() + 10
    while session.reconnects == 0 and loop.time() < end:
        await asyncio.sleep(0.02)
    assert session.reconnects == 1
    text = await _until(app, "you: Anna")
    assert "Traceback" not in text

    # The host goes away: a banner says so, not a crash; q goes back to the lobby.
    await host.close("test over")
    serving.cancel()
    text = await _until(app, "The table is closed. q to leave.")
    assert "you: Anna" in text
    pipe.send_text("q")
    await _until(app, "Tables on this network")
    assert await _quit(app, pipe, task) == 0


async def test_lobby_address_form_says_why_it_cannot_join(pipe: PipeInput) -> None:
    lobby = Lobby("Anna", NoTables(), bot_delay=0)
    app = DurakApp(lobby=lobby, input=pipe, output=FixedOutput())
    task = asyncio.get_running_loop().create_task(app.run_async())
    await _until(app, "Tables on this network")
    pipe.send_text("a")
    await _until(app, "HOST:PORT")
    pipe.send_text("127.0.0.1:9\r")  # nobody listens on the discard port
    text = await _until(app, "Cannot join 127.0.0.1:9")
    assert "Tables on this network" in text
    assert await _quit(app, pipe, task) == 0


async def test_lobby_hosts_a_table_and_shows_its_lobby(pipe: PipeInput) -> None:
    lobby = Lobby("Anna", NoTables(), bot_delay=0, port=0)
    app = DurakApp(lobby=lobby, input=pipe, output=FixedOutput())
    task = asyncio.get_running_loop().create_task(app.run_async())
    await _until(app, "Tables on this network")
    pipe.send_text("h")
    await _until(app, "Host a table")
    pipe.send_text("\r")  # 3 seats, 1 bot: it waits for one friend
    text = await _until(app, "Waiting for: Anna, 1 more player")
    assert "Table Anna's table" in text and "Anna (you)" in text
    hosting = app.hosting
    assert hosting is not None and f":{hosting.port}" in text
    pipe.send_text("q")  # leaving closes the table
    await _until(app, "Tables on this network")
    assert app.hosting is None and hosting.serving.done()
    assert await _quit(app, pipe, task) == 0


class WaitingSession(StaticSession):
    """A network seat before the first deal: the table's lobby, fixed codes (a golden
    screen)."""

    def __init__(self, lobby: LobbyView, pairing_code: str = "") -> None:
        super().__init__(dealt(Rules(), 4, 1), ["Anna", "Boris", "Vera", ""], seat=0)
        self.lobby_view = lobby
        self.pairing_code = pairing_code

    @property
    def view(self) -> None:  # type: ignore[override]
        return None


async def test_golden_host_waiting_screen(pipe: PipeInput) -> None:
    from types import SimpleNamespace

    anna, vera = bytes(range(32)), bytes(range(1, 33))
    lobby = LobbyView(
        "Kitchen",
        Rules(),
        (
            LobbySeat(SeatKind.HUMAN, "Anna", True, True),
            LobbySeat(SeatKind.BOT, "Boris", True, True),
            LobbySeat(SeatKind.HUMAN, "Vera", False, True, pairing_code(anna, vera)),
            LobbySeat(),
        ),
    )
    session = WaitingSession(lobby)

    class FakeHosting(SimpleNamespace):
        pin = None

        async def stop(self, reason: str = "") -> None:
            self.closed = reason or "closed"

    hosting = FakeHosting(port=47823, addresses=["192.168.1.20"])
    app = DurakApp(session=session, hosting=hosting, input=pipe, output=FixedOutput())  # type: ignore[arg-type]
    task = asyncio.get_running_loop().create_task(app.run_async())
    text = await rendered(app.application)
    assert "192.168.1.20:47823" in text and f"code {pairing_code(anna, vera)}" in text
    assert "Waiting for: Vera, 1 more player" in text and "q leave" in text
    check_golden("host_waiting", text)
    assert await _quit(app, pipe, task) == 0
    assert hosting.closed  # leaving closes the table we host


async def test_the_owner_seats_and_frees_bots_others_may_not(
    pipe: PipeInput, tmp_path: Path
) -> None:
    """docs/protocol.md §4: the host's own player fills seats with bots (`b`) and frees them
    (`x`) before the first deal; a guest asking the same is refused, and nothing changes."""
    identity = load_or_create()
    hosting, session = await host_and_sit(identity, _options(tmp_path, 4, 0), "Anna")
    app = DurakApp(session=session, hosting=hosting, input=pipe, output=FixedOutput())
    task = asyncio.get_running_loop().create_task(app.run_async())
    text = await _until(app, "3 more players")
    assert "b add a bot" in text and "x remove a bot" in text

    vera = Identity.ephemeral("Vera")
    guest = ClientSession(vera, "Vera", Address("127.0.0.1", hosting.port), state_dir=tmp_path)
    await guest.start()
    await _until(app, "Vera")
    with pytest.raises(Forbidden, match="owner"):
        await guest.add_bot()
    with pytest.raises(Forbidden):
        await guest.set_rules(Rules(variant=Variant.PEREVODNOY), 3)
    assert [str(s.kind.value) for s in hosting.host.lobby.seats] == [
        "human",
        "human",
        "empty",
        "empty",
    ]
    assert guest.lobby is not None and guest.lobby.rules == Rules()

    pipe.send_text("b")
    text = await _until(app, "2. Vera")
    text = await _until(app, "1 more player")
    assert "bot" in text
    pipe.send_text("x")  # the bot leaves again
    await _until(app, "2 more players")
    with pytest.raises(Forbidden):
        await guest.remove_bot(2)

    # The owner changes the rules: the guest's ready is asked again; a seat still taken
    # cannot go.
    await guest.set_ready(True)
    await session.add_bot("random", seat=3)
    with pytest.raises(Unavailable, match="seat 4 is taken"):
        await session.set_rules(Rules(), 2)
    await session.remove_bot(3)
    await session.set_rules(Rules(variant=Variant.PEREVODNOY), 3)
    await _until(app, "1 more player")
    assert guest.lobby is not None and guest.lobby.rules.variant is Variant.PEREVODNOY
    assert len(guest.lobby.seats) == 3 and not guest.lobby.seats[1].ready

    pipe.send_text("b")  # the last seat: a bot, then Vera's and Anna's ready deal
    await _until(app, "Waiting for: Anna, Vera")
    await guest.set_ready(True)
    await _until(app, "Waiting for: Anna")
    pipe.send_text("r")
    await _until(app, "you: Anna")
    with pytest.raises(Unavailable, match="before its first game"):
        await session.add_bot()
    await guest.close()
    assert await _quit(app, pipe, task) == 0


async def test_lobby_asks_for_the_pin_of_a_table_that_wants_one(
    pipe: PipeInput, tmp_path: Path
) -> None:
    """A table advertised with a PIN: Enter asks for it; a wrong one asks again (the host
    refuses it); the right one seats us."""
    options = _options(tmp_path, 2, 0)
    options.pin = "4821"
    host = TableHost(load_or_create(tmp_path / "host"), options)
    assert host.advertisement.pin and host.advertisement.txt()["pin"] == "1"
    await host.start()
    serving = asyncio.get_running_loop().create_task(host.run())

    class Found(NoTables):
        def tables(self) -> list[TableRow]:
            where = Address("127.0.0.1", host.port, host.identity.fingerprint)
            return [TableRow("Kitchen", "", 0, 2, "podkidnoy 36", "lobby", where, pin=True)]

    app = DurakApp(lobby=Lobby("Anna", Found(), bot_delay=0), input=pipe, output=FixedOutput())
    task = asyncio.get_running_loop().create_task(app.run_async())
    text = await _until(app, "Kitchen")
    assert "PIN" in text
    pipe.send_text("\r")
    text = await _until(app, "Kitchen asks for a PIN")
    assert app.screen == "pin"
    pipe.send_text("1111\r")
    text = await _until(app, "Wrong PIN: try again.")
    assert "1111" not in text  # typed, not shown
    pipe.send_text("4821\r")
    text = await _until(app, "Waiting for: Anna, 1 more player")
    assert app.screen == "table"
    pipe.send_text("q")
    await _until(app, "Tables on this network")
    assert await _quit(app, pipe, task) == 0
    await host.close("test over")
    serving.cancel()


async def test_lobby_hosts_a_table_with_a_pin_and_shows_it(pipe: PipeInput) -> None:
    lobby = Lobby("Anna", NoTables(), bot_delay=0, port=0)
    app = DurakApp(lobby=lobby, input=pipe, output=FixedOutput())
    task = asyncio.get_running_loop().create_task(app.run_async())
    await _until(app, "Tables on this network")
    pipe.send_text("h")
    await _until(app, "Host a table")
    pipe.send_text("\x1b[A\x1b[A")  # up from seats: the table name, then the last field, the PIN
    pipe.send_text("\x1b[C")  # right: yes
    text = await _until(app, "pin")
    pipe.send_text("\r")
    text = await _until(app, "Waiting for: Anna, 1 more player")
    hosting = app.hosting
    assert hosting is not None and hosting.host.o.pin is not None
    assert f"PIN: {hosting.host.o.pin}" in text and len(hosting.host.o.pin) == 4
    assert hosting.host.advertisement.pin
    pipe.send_text("q")
    await _until(app, "Tables on this network")
    assert await _quit(app, pipe, task) == 0


async def test_the_lobby_says_why_it_cannot_host_in_the_language(pipe: PipeInput) -> None:
    """The lobby's host form on a port another program holds: the reason in Russian (the
    port in use), not the system's English."""
    import socket

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        i18n.set_language("ru")
        lobby = Lobby("Anna", NoTables(), bot_delay=0, port=taken.getsockname()[1])
        app = DurakApp(lobby=lobby, input=pipe, output=FixedOutput())
        task = asyncio.get_running_loop().create_task(app.run_async())
        await _until(app, "Столы в этой сети")
        pipe.send_text("h")
        await _until(app, i18n._("Host a table"))
        pipe.send_text("\r")
        text = await _until(app, "Не удалось открыть стол")
        flat = " ".join(text.split())
        assert "порт уже занят" in flat and "in use" not in flat, text
        assert app.hosting is None
        pipe.send_text("\x1b")  # back to the lobby
        await _until(app, "Столы в этой сети")
        assert await _quit(app, pipe, task) == 0
    finally:
        taken.close()
