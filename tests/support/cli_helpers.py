"""Headless terminal-client helpers: a fixed-size output, the screen as text, key strokes."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Callable, Sequence
from pathlib import Path

from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import DummyOutput

from localdurak.game.actions import Action, Do, IllegalAction
from localdurak.game.cards import deck_cards
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from localdurak.game.view import PlayerView
from localdurak.net.api import (
    ActionRefused,
    AuditStatus,
    AuditVerdict,
    ConnectionState,
    EventKind,
    LobbyView,
    MoveClock,
    SeriesScore,
    TableError,
    TableEvent,
)

GOLDEN = Path(__file__).parents[1] / "golden"
RIGHT = "\x1b[C"
ENTER = "\r"


class FixedOutput(DummyOutput):
    """A DummyOutput of a given size, so the layout renders as on an 80×24 terminal."""

    def __init__(self, rows: int = 24, columns: int = 80) -> None:
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


def screen_text(app: Application[int]) -> str:
    """What the last render put on the screen, one line per row, trailing blanks cut."""
    screen = app.renderer.last_rendered_screen
    assert screen is not None, "nothing rendered yet"
    size = app.output.get_size()
    rows = []
    for y in range(size.rows):
        row = screen.data_buffer[y]
        rows.append("".join(row[x].char for x in range(size.columns)).rstrip())
    return "\n".join(rows) + "\n"


async def rendered(app: Application[int], ticks: int = 5) -> str:
    """Let the application redraw, then read its screen."""
    for _ in range(ticks):
        app.invalidate()
        await asyncio.sleep(0.02)
    return screen_text(app)


def check_golden(name: str, text: str) -> None:
    """Compare with tests/golden/<name>.txt (``LOCALDURAK_UPDATE_GOLDEN=1`` rewrites it)."""
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("LOCALDURAK_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"screen differs from {path}"


def select_keys(index: int) -> str:
    """Keys that select hand card ``index``: its number, or 1 and → for the eleventh on."""
    if index < 10:
        return "1234567890"[index]
    return "1" + RIGHT * index


def keys_for(view: PlayerView) -> str:
    """The keys a simple player presses now: play the first card it may (attack, throw in,
    cover), else pass, else take."""
    acts = [a for a in view.legal if a.do is not Do.CHALLENGE]
    for a in acts:
        if a.do is Do.ATTACK and len(a.cards) == 1:
            return select_keys(view.hand.index(a.cards[0])) + ENTER
        if a.do is Do.COVER and a.card is not None:
            return select_keys(view.hand.index(a.card)) + ENTER
    if any(a.do is Do.PASS for a in acts):
        return "d"
    if any(a.do is Do.TAKE for a in acts):
        return "t"
    return ""


class FirstLegalBot:
    """A predictable bot: its first honest legal action (stable screens for golden files)."""

    name = "first"

    def choose(self, view: PlayerView) -> Action | None:
        for action in view.legal:
            if action.do is not Do.CHALLENGE:
                return action
        return None


def dealt(rules: Rules, seats: int, seed: int) -> Game:
    rng = random.Random(seed)
    deck = list(deck_cards(rules.deck))
    rng.shuffle(deck)
    return Game.deal(rules, seats, 0, deck)


def play_until(game: Game, seed: int, stop: Callable[[Game], bool], limit: int = 5000) -> Game:
    """Play random honest moves (seeded) until ``stop(game)`` holds."""
    rng = random.Random(seed)
    for _ in range(limit):
        if stop(game):
            return game
        if game.result is not None:
            break
        moves = [
            a for s in range(game.seats) for a in game.legal_actions(s) if a.do is not Do.CHALLENGE
        ]
        game.apply(rng.choice(moves))
    raise AssertionError("the state never came")


def events_of(game: Game, rules: Rules, seats: int, seed: int) -> list[TableEvent]:
    """The log of ``game`` as a table session tells it (replayed on a fresh deal)."""
    replay = dealt(rules, seats, seed)
    out = [TableEvent(EventKind.GAME_STARTED, game=1)]
    for a in game.log:
        opens = not replay.table
        bout = replay.bout_number
        d = replay.defender
        discard = replay.discard_count
        replay.apply(a)
        out.append(TableEvent(EventKind.ACTION, a.seat, a, opens=opens))
        if replay.bout_number != bout or replay.result is not None:
            kind = EventKind.BITO if replay.discard_count > discard else EventKind.TOOK
            out.append(TableEvent(kind, d))
    if game.result is not None:
        out.append(TableEvent(EventKind.GAME_OVER, result=game.result, game=1))
    return out


class StaticSession:
    """A `TableSession` frozen at one state of a game: golden screens need no timing."""

    def __init__(
        self,
        game: Game,
        names: Sequence[str],
        events: Sequence[TableEvent] = (),
        *,
        seat: int = 0,
        series: SeriesScore | None = None,
        table_name: str = "Kitchen table",
        game_number: int = 3,
    ) -> None:
        self.game = game
        self.seat = seat
        self.names = tuple(names)
        self.table_name = table_name
        self.offline = False
        self.game_number = game_number
        self.events = list(events)
        self.connection = ConnectionState.CONNECTED
        self.offline_seats: tuple[int, ...] = ()
        self.series = series or SeriesScore(durak=(0,) * game.seats)
        self.audit = AuditVerdict(AuditStatus.CLEAN)
        self.closing = False
        self.aborted: tuple[int, str] | None = None
        self.problem: str | None = None
        self.move_clock: MoveClock | None = None
        self.seat_hold = 120.0
        self.lobby_view: LobbyView | None = None
        self.pairing_code = ""
        self.acted: list[Action] = []

    @property
    def view(self) -> PlayerView:
        return self.game.view(self.seat)

    def hold_left(self, seat: int) -> float | None:
        return None

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        return lambda: None

    async def async_wait_update(self) -> None:
        await asyncio.Event().wait()

    async def async_act(self, action: Action) -> None:
        try:
            self.game.check(action)
        except IllegalAction as e:
            raise ActionRefused(e.reason, e.rule) from None
        self.acted.append(action)

    async def async_next_game(self) -> None:
        raise ActionRefused("a frozen table")

    async def async_leave(self) -> None:
        self.connection = ConnectionState.CLOSED

    async def async_ready(self, ready: bool = True) -> None:
        raise TableError("a frozen table")

    async def async_add_bot(self, level: str = "normal") -> None:
        raise TableError("a frozen table")

    async def async_remove_bot(self, seat: int) -> None:
        raise TableError("a frozen table")
