"""What hurt a player at the table (leaving asked first, a number that points, readable messages),
headless: the question before leaving, a number that only points, the chosen attack card kept, keys
for cards 11 and 12, the key line's priorities on a small screen, auto-pass's human moment, the ▶
line while the defender takes, a held seat's countdown, Escape closing the help, the lobby's own
help and the host form's table name."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput

from localdurak.cli import i18n
from localdurak.cli.app import DurakApp
from localdurak.cli.lobby import Lobby, NoTables
from localdurak.cli.table import info_line, key_line
from localdurak.cli.words import status_text, waiting_for
from localdurak.game.actions import Action, Do
from localdurak.game.engine import Game
from localdurak.game.rules import Rules, ThrowInOrder
from tests.support.cli_helpers import (
    FixedOutput,
    StaticSession,
    dealt,
    events_of,
    play_until,
    rendered,
)

NAMES = ["Anna", "Boris", "Cyril", "Dasha"]
DOWN = "\x1b[B"


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


def state(
    stop: Callable[[Game], bool], rules: Rules | None = None, seats: int = 3
) -> StaticSession:
    rules = rules or Rules()
    for seed in range(400):
        game = dealt(rules, seats, seed)
        try:
            play_until(game, seed, stop)
        except AssertionError:
            continue
        return StaticSession(game, NAMES[:seats], events_of(game, rules, seats, seed))
    raise AssertionError("no seed reached the state")


async def start(app: DurakApp) -> asyncio.Task[int]:
    task = asyncio.get_running_loop().create_task(app.run_async())
    await rendered(app.application)
    return task


def in_game(g: Game) -> bool:
    return g.result is None and g.phase == "bout" and bool(g.legal_actions(0))


# --- the question before leaving -------------------------------------------------


async def test_q_mid_game_asks_and_n_stays(pipe: PipeInput) -> None:
    session = state(in_game)
    session.offline = True  # an offline game: "Leave the game?"
    app = DurakApp(session=session, input=pipe, output=FixedOutput())
    task = await start(app)
    pipe.send_text("q")
    text = await rendered(app.application)
    assert "Leave the game? y/n" in text and not task.done()
    pipe.send_text("t")  # nothing is played while the question waits
    pipe.send_text("n")
    text = await rendered(app.application)
    assert "Leave the game?" not in text and not task.done() and session.acted == []
    # Ctrl-C asks too; a second Ctrl-C leaves.
    pipe.send_text("\x03")
    assert "Leave the game? y/n" in await rendered(app.application)
    pipe.send_text("\x03")
    assert await asyncio.wait_for(task, 5) == 0


async def test_a_player_is_told_how_long_his_seat_is_held(pipe: PipeInput) -> None:
    session = state(in_game)
    session.seat_hold = 90.0
    app = DurakApp(session=session, input=pipe, output=FixedOutput())
    task = await start(app)
    pipe.send_text("q")
    assert "Leave the table? Your seat is held 90 s. y/n" in await rendered(app.application)
    pipe.send_text("y")
    assert await asyncio.wait_for(task, 5) == 0


class _Hosting:
    closed = False

    async def stop(self, reason: str = "") -> None:
        """Stopping is pausing; this table has nothing to resume."""
        self.closed = True


async def test_the_host_is_asked_before_closing_the_table(pipe: PipeInput) -> None:
    session = state(in_game)
    hosting = _Hosting()
    app = DurakApp(session=session, hosting=hosting, input=pipe, output=FixedOutput())  # type: ignore[arg-type]
    task = await start(app)
    pipe.send_text("q")
    assert "Leave and close the table? y/n" in await rendered(app.application)
    assert not hosting.closed
    pipe.send_text("y")
    assert await asyncio.wait_for(task, 5) == 0
    assert hosting.closed


# --- pointing at a table card; the chosen attack card stays chosen ----------


async def test_the_chosen_attack_card_survives_picking_the_hand_card(pipe: PipeInput) -> None:
    """↓ to an attack card, then the number of a hand card, Enter: that attack card is
    covered — not the first one the card beats (it was: ↓ to Q♠, 5, Enter covered 8♠)."""

    def two_choices(g: Game) -> bool:
        if g.defender != 0 or g.phase != "bout" or len(g.view(0).uncovered) < 2:
            return False
        covers = [a for a in g.legal_actions(0) if a.do is Do.COVER]
        # A card that covers two of them: the default would be the first.
        return any(sum(1 for b in covers if b.card == a.card) >= 2 for a in covers)

    session = state(two_choices, seats=4)
    v = session.view
    covers = [a for a in v.legal if a.do is Do.COVER]
    card = next(a.card for a in covers if sum(1 for b in covers if b.card == a.card) >= 2)
    targets = [a.on for a in covers if a.card == card]
    wanted = targets[-1]
    assert card is not None and wanted != targets[0]
    app = DurakApp(session=session, input=pipe, output=FixedOutput())
    task = await start(app)
    for _ in range(len(v.uncovered)):
        if app.effective_target() == wanted:
            break
        pipe.send_text(DOWN)
        await rendered(app.application)
    assert app.effective_target() == wanted
    pipe.send_text("1234567890-="[v.hand.index(card)])
    await rendered(app.application)
    pipe.send_text("\r")
    await rendered(app.application)
    assert session.acted == [Action.cover(0, card, wanted)]
    task.cancel()


async def test_a_number_in_cover_pick_points_and_enter_covers(pipe: PipeInput) -> None:
    session = state(lambda g: g.defender == 0 and g.phase == "bout" and bool(g.view(0).uncovered))
    app = DurakApp(session=session, input=pipe, output=FixedOutput())
    task = await start(app)
    pipe.send_text("\t")
    text = await rendered(app.application)
    assert "Enter covers" in text
    pipe.send_text("1")
    await rendered(app.application)
    assert session.acted == [] and app.ui.focus_table
    task.cancel()


# --- item 11 -----------------------------------------------------------------------------


async def test_cards_11_and_12_have_keys(pipe: PipeInput) -> None:
    session = state(lambda g: g.result is None and len(g.view(0).hand) >= 12 and in_game(g))
    app = DurakApp(session=session, input=pipe, output=FixedOutput())
    task = await start(app)
    text = await rendered(app.application)
    assert " -  " in text and " =" in text  # the keys under the eleventh and twelfth cards
    pipe.send_text("-")
    await rendered(app.application)
    assert app.ui.selected == 10
    pipe.send_text("=")
    await rendered(app.application)
    assert app.ui.selected == 11
    task.cancel()


def test_key_line_at_60_columns_keeps_take_while_defending() -> None:
    session = state(lambda g: g.defender == 0 and g.phase == "bout" and bool(g.view(0).uncovered))
    line = "".join(f[1] for f in key_line(session.view, 58, False))
    assert "t take" in line and "? help" in line and "q quit" in line
    attacker = state(lambda g: g.attacker == 0 and not g.table and g.phase == "bout" and in_game(g))
    line = "".join(f[1] for f in key_line(attacker.view, 58, False))
    assert "Enter play" in line and "t take" not in line


def test_while_the_defender_takes_done_is_not_bito() -> None:
    def taking(g: Game) -> bool:
        return (
            g.phase == "taking"
            and g.attacker == 0
            and any(a.do is Do.PASS for a in g.legal_actions(0))
        )

    session = state(taking)
    text = status_text(session.view, session.names)
    assert "Bito" not in text and "d done" in text


def test_a_held_seat_counts_down_in_the_status_line() -> None:
    session = state(lambda g: g.attacker == 1 and not g.table and g.phase == "bout")
    v = session.view
    assert waiting_for(v) == [1]
    text = status_text(v, session.names, held={1: 105.4})
    assert "Boris is offline: the seat is held 1:45 more." in text


def test_you_are_marked_is_not_cut_at_80_columns() -> None:
    game = dealt(Rules(cheating=True), 3, 1)
    view = replace(game.view(0), marked=(0,))  # seat 0 marked (R-S3)
    rows = "".join(f[1] for f in info_line(view, width=78)).split("\n")
    assert "you are marked: honest play only" in "\n".join(rows)
    assert all(len(r) <= 78 for r in rows)


async def test_auto_pass_waits_a_human_moment_at_a_network_table(pipe: PipeInput) -> None:
    def only_pass(g: Game) -> bool:
        v = g.view(0)
        return (
            g.result is None
            and v.legal == (Action.pass_(0),)
            and 0 in waiting_for(v)
            and g.rules.throw_in_order is not ThrowInOrder.FIRST_WORD
            and g.attacker == 0
        )

    session = state(only_pass)
    assert not session.offline
    app = DurakApp(session=session, input=pipe, output=FixedOutput())
    loop = asyncio.get_running_loop()
    began = loop.time()
    task = await start(app)
    await asyncio.sleep(0.5)
    assert session.acted == []  # not at once: its speed would tell he holds no such card
    while not session.acted and loop.time() - began < 15:
        await asyncio.sleep(0.05)
    assert session.acted == [Action.pass_(0)]
    assert loop.time() - began >= 0.8
    task.cancel()


async def test_escape_closes_the_help_after_a_form_of_the_lobby(pipe: PipeInput) -> None:
    lobby = Lobby("Anna", NoTables(), bot_delay=0)
    app = DurakApp(lobby=lobby, input=pipe, output=FixedOutput())
    task = await start(app)
    pipe.send_text("a")  # the address form takes the keyboard
    await rendered(app.application)
    pipe.send_text("\x1b")
    await asyncio.sleep(0.7)  # a lone Escape (not the start of a key sequence)
    pipe.send_text("?")
    text = await rendered(app.application)
    # The lobby's help lists the lobby's keys, not the table's.
    assert "host a table" in text and "take the cards" not in text
    pipe.send_text("\x1b")
    await asyncio.sleep(0.7)
    assert not app.ui.show_help
    pipe.send_text("q")
    assert await asyncio.wait_for(task, 5) == 0


async def test_the_host_form_has_a_table_name(pipe: PipeInput) -> None:
    lobby = Lobby("Anna", NoTables(), bot_delay=0)
    app = DurakApp(lobby=lobby, input=pipe, output=FixedOutput())
    task = await start(app)
    pipe.send_text("h")
    text = await rendered(app.application)
    assert "table name" in text and "Anna's table" in text
    pipe.send_text("\x1b[A\r")  # up to the name, Enter types it
    await rendered(app.application)
    assert app.screen == "table_name"
    pipe.send_text("\x15Kitchen\r")  # Ctrl-U clears the field
    text = await rendered(app.application)
    assert app.screen == "host" and "Kitchen" in text
    assert lobby.form.table_name == "Kitchen"
    task.cancel()


# --- the game-over screen of a network table ---------------------------------------------


async def test_game_over_before_the_audit_and_at_a_closed_table(pipe: PipeInput) -> None:
    """Seen playing over the network: "Score after 0 games" over an empty line while the
    host audits the game (the series counts it after), and "n next game" offered once the
    table closed (a series of one game is over)."""
    from localdurak.net.api import AuditStatus, AuditVerdict, ConnectionState

    session = state(lambda g: g.result is not None)
    session.audit = AuditVerdict(AuditStatus.PENDING)  # the series is not counted yet
    app = DurakApp(session=session, input=pipe, output=FixedOutput())
    task = await start(app)
    text = await rendered(app.application)
    assert "The score comes once the game is audited." in text
    assert "Score after 0 games" not in text
    assert "n next game" in text  # the table is still open
    session.connection = ConnectionState.CLOSED
    app.application.invalidate()
    text = await rendered(app.application)
    assert "The table is closed. q to leave." in text
    assert "next game" not in text and "q leave" in text
    pipe.send_text("q")
    assert await asyncio.wait_for(task, 10) == 0
