"""The terminal client, headless: create_pipe_input() and a fixed 80×24 DummyOutput.

A whole game against bots is played by key presses; the main screens are compared with
text snapshots under tests/golden/ (LOCALDURAK_UPDATE_GOLDEN=1 rewrites them)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput

from localdurak.cli import i18n
from localdurak.cli import lobby as lobby_module
from localdurak.cli.app import DurakApp
from localdurak.cli.lobby import Lobby, NoTables
from localdurak.game.actions import Action, Do
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from localdurak.net.api import SeriesScore
from localdurak.net.local import LocalTable
from localdurak.protocol.messages import PROTOCOL_VERSION
from tests.support.cli_helpers import (
    FirstLegalBot,
    FixedOutput,
    StaticSession,
    check_golden,
    dealt,
    events_of,
    keys_for,
    play_until,
    rendered,
)

NAMES = ["Anna", "Boris", "Cyril"]


@pytest.fixture(autouse=True)
def _english(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> Iterator[None]:
    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path))
    i18n.set_language("en")
    yield
    i18n.set_language("en")


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp:
        yield inp


class Running:
    def __init__(self, app: DurakApp, table: LocalTable | None, inp: PipeInput) -> None:
        self.app, self.table, self.inp = app, table, inp
        self.task: asyncio.Task[int] = asyncio.get_running_loop().create_task(app.run_async())

    async def screen(self) -> str:
        return await rendered(self.app.application)

    async def settle(self) -> None:
        """Wait until the table waits for the person (the bots have moved)."""
        assert self.table is not None
        for _ in range(500):
            await asyncio.sleep(0.01)
            v = self.table.view
            if v is not None and (v.result is not None or v.legal) and not self.table.closing:
                await asyncio.sleep(0.05)
                return

    async def quit(self) -> int:
        """`q`, and `y` to the question it asks mid-game."""
        self.app.ui.show_help = False
        self.inp.send_text("q")
        for _ in range(100):
            if self.task.done():
                break
            if self.app.ui.confirm:
                self.inp.send_text("y")
                break
            await asyncio.sleep(0.02)
        return await asyncio.wait_for(self.task, 5)


def _table(
    rules: Rules | None = None, seed: int = 7, names: list[str] = NAMES, *, pin: bool = True
) -> LocalTable:
    t = LocalTable(rules or Rules(), names, rng=random.Random(seed), delay=0, challenge_window=0.05)
    if pin:
        # Predictable bots, so that the person's first screen is always the same.
        t.bots = {s: FirstLegalBot() for s in t.bots}
    return t


FOUR = ["Anna", "Boris", "Cyril", "Dasha"]


def defending_state(seed: int = 0) -> StaticSession:
    """Four players; Anna (seat 0) defends with one pair covered and cards still to beat."""
    rules = Rules()
    game = dealt(rules, 4, seed)

    def stop(g: Game) -> bool:
        covered = [c for _, c in g.table if c is not None]
        return (
            g.defender == 0
            and g.phase == "bout"
            and len(covered) >= 1
            and len(g.table) - len(covered) >= 2
            and g.bout_number >= 2
            and any(a.do is Do.COVER for a in g.legal_actions(0))
        )

    play_until(game, seed, stop)
    return StaticSession(game, FOUR, events_of(game, rules, 4, seed))


def finished_state(seed: int = 274) -> StaticSession:
    """A finished 3-player game (seeded random moves, so the bots' growth cannot change it):
    Boris is the durak, with three pogony."""
    rules = Rules()
    game = dealt(rules, 3, seed)
    play_until(game, seed, lambda g: g.result is not None)
    assert game.result is not None and game.result.durak == (1,) and game.result.pogony == 3
    return StaticSession(
        game,
        NAMES,
        events_of(game, rules, 3, seed),
        series=SeriesScore(games=3, draws=0, durak=(1, 2, 0)),
    )


@pytest.fixture
async def static(pipe: PipeInput) -> AsyncIterator[Running]:
    app = DurakApp(session=defending_state(), input=pipe, output=FixedOutput())
    r = Running(app, None, pipe)
    yield r
    if not r.task.done():
        await r.quit()


@pytest.fixture
async def running(pipe: PipeInput) -> AsyncIterator[Running]:
    table = _table()
    async with table:
        app = DurakApp(session=table, input=pipe, output=FixedOutput())
        r = Running(app, table, pipe)
        yield r
        if not r.task.done():
            await r.quit()


async def play_out(r: Running, limit: int = 3000) -> None:
    """Press keys like a simple player until the game is over."""
    assert r.table is not None
    for _ in range(limit):
        v = r.table.view
        assert v is not None
        if v.result is not None:
            return
        keys = "" if r.table.closing else keys_for(v)
        if keys:
            r.inp.send_text(keys)
        await asyncio.sleep(0.01)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(variant="perevodnoy", trump_show=True),
        Rules(variant="duren"),
        Rules(cheating=True),
    ],
    ids=["podkidnoy", "perevodnoy", "duren", "cheating"],
)
async def test_whole_game_against_bots_by_key_presses(pipe: PipeInput, rules: Rules) -> None:
    table = _table(rules, pin=False, seed=3)  # the real (normal) bots
    async with table:
        app = DurakApp(session=table, input=pipe, output=FixedOutput())
        await _whole_game(Running(app, table, pipe))


async def _whole_game(running: Running) -> None:
    await play_out(running)
    assert running.table is not None
    result = running.table.view.result  # type: ignore[union-attr]
    assert result is not None
    # Every action of seat 0 came from a key press, through the client.
    mine = [a for a in running.table.game.log if a.seat == 0]
    assert any(a.do is Do.ATTACK for a in mine)
    assert any(a.do in (Do.COVER, Do.TAKE, Do.PASS) for a in mine)  # Dureń has no pass
    text = await running.screen()
    assert "Score after 1 game " in text
    assert "offline game — no audit" in text
    assert "n next game" in text
    running.inp.send_text("n")
    for _ in range(100):
        await asyncio.sleep(0.01)
        if running.table.game_number == 2:
            break
    assert running.table.game_number == 2
    assert await running.quit() == 0


async def test_golden_table_screen(static: Running) -> None:
    text = await static.screen()
    assert "▶ You defend: cover" in text
    check_golden("table", text)


async def test_enter_covers_the_chosen_attack_card(static: Running) -> None:
    session = static.app.session
    assert isinstance(session, StaticSession)
    v = session.view
    covers = [a for a in v.legal if a.do is Do.COVER]
    assert covers
    # Select the card of a legal cover, point at its attack card with ↑↓, press Enter.
    cover = covers[-1]
    assert cover.card is not None
    static.inp.send_text(keys_for_card(v.hand.index(cover.card)))
    for _ in range(len(v.uncovered)):
        await static.screen()
        if static.app.effective_target() == cover.on:
            break
        static.inp.send_text("\x1b[B")
    await static.screen()
    assert static.app.effective_target() == cover.on
    static.inp.send_text("\r")
    await static.screen()
    assert session.acted == [cover]


def keys_for_card(index: int) -> str:
    return "1234567890"[index] if index < 10 else "1" + "\x1b[C" * index


async def test_golden_help_screen(static: Running) -> None:
    running = static
    running.inp.send_text("?")
    text = await running.screen()
    for word in ("Beru", "Bito", "Kozyr", "Pogony", "Enter", "challenge"):
        assert word in text
    check_golden("help", text)
    running.inp.send_text("x")  # any key closes the help
    assert "Help" not in await running.screen()


async def test_golden_game_over_screen(pipe: PipeInput) -> None:
    app = DurakApp(session=finished_state(), input=pipe, output=FixedOutput())
    r = Running(app, None, pipe)
    text = await r.screen()
    assert "Boris — durak!" in text and "with pogony: 3" in text
    assert "Score after 3 games" in text
    check_golden("game_over", text)
    await r.quit()


async def test_refused_action_shows_its_reason(running: Running) -> None:
    await running.settle()
    v = running.table.view  # type: ignore[union-attr]
    assert v is not None and v.seat == 0
    # Take when we are not the defender: the ▶ line says why, the game goes on.
    running.inp.send_text("t")
    text = await running.screen()
    status = next(line for line in text.splitlines() if "▶" in line)
    assert "defender" in status or "take" in status.lower()
    assert running.table.view is not None and running.table.view.result is None  # type: ignore[union-attr]


async def test_refused_action_says_its_rule_in_russian(pipe: PipeInput) -> None:
    """The engine words its refusals in English; a Russian screen shows the rule's own
    sentence instead, with its id."""
    i18n.set_language("ru")
    try:
        table = _table()
        async with table:
            app = DurakApp(session=table, input=pipe, output=FixedOutput())
            r = Running(app, table, pipe)
            await r.settle()
            r.inp.send_text("t")  # take, when we are not the defender (R-B8)
            text = await r.screen()
            status = next(line for line in text.splitlines() if "▶" in line)
            # The rule's sentence, never its id.
            assert "Берёт только отбивающийся" in status and "R-B8" not in status
            assert "defender" not in status
            await r.quit()
    finally:
        i18n.set_language("en")


async def test_resize_to_80x24_and_wider(running: Running) -> None:
    await running.settle()
    out = running.app.application.output
    assert isinstance(out, FixedOutput)
    for rows, cols in ((24, 80), (30, 120), (24, 80)):
        out.size = type(out.size)(rows=rows, columns=cols)
        text = await running.screen()
        lines = text.splitlines()
        assert len(lines) == rows
        assert lines[0].startswith("┌") and lines[-1].startswith("└")
        assert all(len(line) <= cols for line in lines)
        assert any("▶" in line for line in lines)


async def test_ascii_mode_has_no_suit_symbols(pipe: PipeInput) -> None:
    table = _table()
    async with table:
        app = DurakApp(session=table, ascii_only=True, input=pipe, output=FixedOutput())
        r = Running(app, table, pipe)
        await r.settle()
        text = await r.screen()
        assert all(ord(ch) < 128 for ch in text), [ch for ch in text if ord(ch) >= 128]
        assert ">" in text
        await r.quit()


async def test_R_S5_cheating_mode_offers_challenge_and_no_hint(pipe: PipeInput) -> None:
    table = _table(Rules(cheating=True))
    async with table:
        app = DurakApp(session=table, input=pipe, output=FixedOutput())
        r = Running(app, table, pipe)
        await r.settle()
        text = await r.screen()
        assert "c challenge" in text
        # Nothing on the screen tells a cheat from an honest card: no such word at all.
        body = text.splitlines()[1:]  # the title names the table's rules
        assert not any("cheat" in line.lower() for line in body)
        await r.quit()


async def test_russian_table_screen(pipe: PipeInput) -> None:
    i18n.set_language("ru")
    app = DurakApp(session=defending_state(), input=pipe, output=FixedOutput())
    r = Running(app, None, pipe)
    text = await r.screen()
    assert "Козырь" in text and "Вы отбиваетесь" in text
    check_golden("table_ru", text)
    await r.quit()


async def test_golden_lobby_screen(pipe: PipeInput, monkeypatch: pytest.MonkeyPatch) -> None:
    levels: list[str] = []
    real_table = lobby_module.LocalTable

    def table(*args: Any, bot_level: str = "normal", **kw: Any) -> LocalTable:
        levels.append(bot_level)
        return real_table(*args, bot_level=bot_level, **kw)

    monkeypatch.setattr(lobby_module, "LocalTable", table)
    lobby = Lobby("Anna", NoTables(), bot_delay=0)
    app = DurakApp(lobby=lobby, input=pipe, output=FixedOutput())
    r = Running(app, None, pipe)
    text = await r.screen()
    assert "h host a table" in text and "b play against bots" in text
    check_golden("lobby", text)
    # h: the host form, with every option of rules.md section O.
    pipe.send_text("h")
    text = await r.screen()
    for option in ("variant", "throw in order", "partial defence", "cheating", "japanese"):
        assert option in text
    # An impossible combination is explained: 2v2 teams with 3 seats (R-T1).
    pipe.send_text("\x1b[B" * 5 + "\x1b[C")  # seats, bots, variant, deck, hand size, teams
    text = await r.screen()
    assert "R-T1" in text
    pipe.send_text("\x1b")  # back to the lobby
    await asyncio.sleep(0.1)
    pipe.send_text("b")  # play against bots
    await asyncio.sleep(0.2)
    assert app.session is not None and app.session.view is not None
    assert app.session.names[0] == "Anna"
    assert levels == ["strong"]  # the default opponent, as `play` seats
    pipe.send_text("q")  # leave the table: back in the lobby, once asked
    await r.screen()
    assert "Leave the game? y/n" in await r.screen()
    pipe.send_text("y")
    for _ in range(50):
        await asyncio.sleep(0.01)
        if app.session is None:
            break
    assert app.session is None and "h host a table" in await r.screen()
    assert await r.quit() == 0


async def test_mouse_click_selects_then_plays() -> None:
    table = _table()
    with create_pipe_input() as pipe:
        async with table:
            app = DurakApp(session=table, input=pipe, output=FixedOutput())
            r = Running(app, table, pipe)
            await r.settle()
            v = table.view
            assert v is not None
            attack = next((a for a in v.legal if a.do is Do.ATTACK), None)
            if attack is None:
                await r.quit()
                pytest.skip("seat 0 does not attack first with this seed")
            i = v.hand.index(attack.cards[0])
            app.click_hand(i)
            assert app.ui.selected == i
            app.click_hand(i)
            await asyncio.sleep(0.05)
            assert Action.attack(0, attack.cards[0]) in table.game.log
            await r.quit()


class FakeBrowser:
    """Stands in for discovery's TableBrowser: two updates, then quiet."""

    def __init__(self) -> None:
        from localdurak.net.discovery import TableInfo, TableStatus

        def info(name: str, taken: int, state: TableStatus) -> TableInfo:
            return TableInfo(
                instance=f"{name} (3fa2)",
                name=name,
                fingerprint="3fa2" + "0" * 60,
                port=45123,
                addresses=("10.0.0.7",),
                seats_taken=taken,
                seats_total=4,
                state=state,
                rules="podkidnoy 36",
                min_version=PROTOCOL_VERSION,
                max_version=PROTOCOL_VERSION,
            )

        self.lists = [
            [info("Kitchen table", 1, TableStatus.LOBBY)],
            [
                info("Kitchen table", 3, TableStatus.LOBBY),
                info("Students' room", 4, TableStatus.PLAYING),
            ],
        ]
        self.go = asyncio.Event()

    async def __aenter__(self) -> FakeBrowser:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def updates(self) -> AsyncIterator[list[object]]:
        yield self.lists[0]
        await self.go.wait()
        yield self.lists[1]
        await asyncio.Event().wait()


async def test_lobby_lists_tables_live(pipe: PipeInput) -> None:
    from localdurak.cli.lobby import MdnsTables

    browser = FakeBrowser()
    lobby = Lobby("Anna", MdnsTables(lambda: browser), bot_delay=0)
    app = DurakApp(lobby=lobby, input=pipe, output=FixedOutput())
    r = Running(app, None, pipe)
    text = await r.screen()
    assert "Kitchen table" in text and "1/4 seats" in text and "10.0.0.7:45123" in text
    browser.go.set()
    text = await r.screen()
    assert "3/4 seats" in text and "Students' room" in text and "playing" in text
    check_golden("lobby_tables", text)
    # Enter joins the row's advertised address, pinned to its fingerprint (joining itself is
    # tested against a real host in tests/cli/test_lobby.py; this address is not on this machine).
    row = lobby.source.tables()[1]
    assert row.address.host == "10.0.0.7" and row.address.port == 45123
    assert row.address.fingerprint == "3fa2" + "0" * 60
    assert await r.quit() == 0


async def test_lobby_without_multicast_says_why(pipe: PipeInput) -> None:
    from localdurak.cli.lobby import MdnsTables

    class Broken:
        async def __aenter__(self) -> None:
            raise OSError("cannot look for tables on the local network (no multicast)")

        async def __aexit__(self, *exc: object) -> None:
            return None

    lobby = Lobby("Anna", MdnsTables(Broken), bot_delay=0)
    app = DurakApp(lobby=lobby, input=pipe, output=FixedOutput())
    r = Running(app, None, pipe)
    text = await r.screen()
    assert "no multicast" in text and "No tables found yet" in text
    assert await r.quit() == 0


def _static_state(rules: Rules, seats: int, stop: Callable[[Game], bool]) -> StaticSession:
    for seed in range(300):
        game = dealt(rules, seats, seed)
        try:
            play_until(game, seed, stop)
        except AssertionError:
            continue
        return StaticSession(game, FOUR[:seats], events_of(game, rules, seats, seed))
    raise AssertionError("no seed reached the state")


async def test_R_B6_transfer_with_p(pipe: PipeInput) -> None:
    rules = Rules(variant="perevodnoy")
    session = _static_state(
        rules, 3, lambda g: any(a.do is Do.TRANSFER for a in g.legal_actions(0))
    )
    app = DurakApp(session=session, input=pipe, output=FixedOutput())
    r = Running(app, None, pipe)
    text = await r.screen()
    assert "transfer (p)" in text
    transfer = next(a for a in session.view.legal if a.do is Do.TRANSFER)
    assert transfer.card is not None
    pipe.send_text(keys_for_card(session.view.hand.index(transfer.card)) + "p")
    await r.screen()
    assert session.acted == [transfer]
    await r.quit()


async def test_R_S2_challenge_by_c_and_a_number(pipe: PipeInput) -> None:
    rules = Rules(cheating=True)
    session = _static_state(
        rules,
        3,
        lambda g: (
            g.defender == 1
            and len(g.table) >= 1
            and any(a.do is Do.CHALLENGE for a in g.legal_actions(0))
        ),
    )
    app = DurakApp(session=session, input=pipe, output=FixedOutput())
    r = Running(app, None, pipe)
    pipe.send_text("c")
    text = await r.screen()
    assert "Challenge which card?" in text
    # Number the cards on the table as the screen does; challenge one we may.
    on = [c for pair in session.view.table for c in pair if c is not None]
    target = next(a.card for a in session.view.legal if a.do is Do.CHALLENGE)
    assert target is not None
    pipe.send_text(str(on.index(target) + 1))
    await r.screen()
    # The number points at the card; Enter challenges it (R-S5).
    assert session.acted == [] and r.app.ui.challenge
    pipe.send_text("\r")
    await r.screen()
    assert session.acted == [Action.challenge(0, target)]
    await r.quit()


async def test_reconnect_shows_a_banner_not_a_crash(pipe: PipeInput) -> None:
    from localdurak.net.api import ConnectionState

    session = defending_state()
    session.connection = ConnectionState.RECONNECTING
    app = DurakApp(session=session, input=pipe, output=FixedOutput())
    r = Running(app, None, pipe)
    text = await r.screen()
    assert "Connection lost — reconnecting…" in text and "▶" in text
    session.connection = ConnectionState.CONNECTED
    session.offline_seats = (2,)
    text = await r.screen()
    assert "Waiting for Cyril to reconnect" in text and "offline" in text
    await r.quit()


def test_key_line_keeps_help_and_quit_when_narrow() -> None:
    from localdurak.cli.table import key_line

    view = defending_state().view
    for width in (80, 60, 40, 30):
        text = "".join(t[1] for t in key_line(view, width, cheating=True))
        assert len(text) <= width
        assert "? help" in text and "q quit" in text
    wide = "".join(t[1] for t in key_line(view, 120, cheating=True))
    assert "c challenge" in wide and "↑↓ target" in wide


async def test_small_terminal_keeps_the_hand_and_the_status(pipe: PipeInput) -> None:
    session = defending_state()
    app = DurakApp(session=session, input=pipe, output=FixedOutput(rows=16, columns=60))
    r = Running(app, None, pipe)
    text = await r.screen()
    lines = text.splitlines()
    assert len(lines) == 16 and all(len(line) <= 60 for line in lines)
    assert any("▶ You defend" in line for line in lines)
    first = session.view.hand[0].pretty()
    assert any(f"[{first}]" in line for line in lines)  # the selected card, in the hand row
    await r.quit()


async def test_R_P2_duren_lead_of_several_marked_with_space(pipe: PipeInput) -> None:
    rules = Rules(variant="duren")
    session = _static_state(
        rules,
        2,
        lambda g: (
            g.attacker == 0
            and not g.table
            and any(a.do is Do.ATTACK and len(a.cards) == 2 for a in g.legal_actions(0))
        ),
    )
    app = DurakApp(session=session, input=pipe, output=FixedOutput())
    r = Running(app, None, pipe)
    lead = next(a for a in session.view.legal if a.do is Do.ATTACK and len(a.cards) == 2)
    hand = session.view.hand
    for card in lead.cards:
        pipe.send_text(keys_for_card(hand.index(card)) + " ")
    text = await r.screen()
    assert text.count("•") == 2  # both marked, visibly
    pipe.send_text("\r")
    await r.screen()
    assert session.acted == [lead]
    await r.quit()


async def test_lobby_name_and_address_forms(pipe: PipeInput) -> None:
    from localdurak.cli import settings

    lobby = Lobby("Anna", NoTables(), bot_delay=0)
    app = DurakApp(lobby=lobby, input=pipe, output=FixedOutput())
    r = Running(app, None, pipe)
    await r.screen()
    pipe.send_text("n")
    await r.screen()
    pipe.send_text("\x7f" * 4 + "Vera\r")
    text = await r.screen()
    assert lobby.name == "Vera" and "Your name: Vera" in text
    assert settings.player_name() == "Vera"  # remembered for next time
    pipe.send_text("a")
    await r.screen()
    pipe.send_text("192.168.1.20:port\r")  # a mistake: the reason, and still the lobby
    text = await r.screen()
    assert "Cannot join: '192.168.1.20:port'" in text and "the port must be a" in text
    assert await r.quit() == 0


async def test_click_a_table_card_to_cover_it(static: Running) -> None:
    session = static.app.session
    assert isinstance(session, StaticSession)
    v = session.view
    cover = next(a for a in v.legal if a.do is Do.COVER)
    assert cover.card is not None and cover.on is not None
    static.app.click_hand(v.hand.index(cover.card))  # select
    on = [c for pair in v.table for c in pair if c is not None]
    static.app.click_table(on.index(cover.on))
    await static.screen()
    assert session.acted == [cover]


async def test_help_from_the_lobby_and_back(pipe: PipeInput) -> None:
    app = DurakApp(lobby=Lobby("Anna", NoTables()), input=pipe, output=FixedOutput())
    r = Running(app, None, pipe)
    await r.screen()
    pipe.send_text("?")
    assert "Glossary" in await r.screen()
    pipe.send_text(" ")
    assert "Tables on this network" in await r.screen()
    assert await r.quit() == 0
