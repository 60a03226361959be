"""`LocalTable`: an offline table on this laptop — one person and bots (``localdurak play``).

It runs the engine with full information (`Game.deal`, a deck shuffled by the
`random.Random` it is given), lets the bots play from their own seats' views with a small
delay so that a person can follow, plays a series of games (R-F2, R-D5), and in the cheating
mode holds back the action that would close a bout for a challenge window (R-S5).  The
person's seat sees only its `PlayerView` (R-T4), exactly as over the network.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Sequence

from localdurak.game.actions import Action, Do, GameResult, IllegalAction
from localdurak.game.bots import NOTICE_SECONDS, Bot, make_bot
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
    table_events,
)
from localdurak.protocol.table.policy import waits_for_challenges

_reaction = random.SystemRandom()
"""The bots' reaction times: apart from the table's generator, whose draws decide the
deals (``play --seed`` replays the same games)."""

BOT_NAMES = ("Boris", "Cyril", "Dasha", "Egor", "Fedya")
"""Default names of the bots at an offline table, seats 1.. in order."""


class LocalTable:
    """An offline `TableSession` (localdurak.net.api): seat ``seat`` is the person, every
    other seat a bot.  Use as an async context manager, or call `start` and `async_leave`."""

    def __init__(
        self,
        rules: Rules,
        names: Sequence[str],
        *,
        rng: random.Random,
        seat: int = 0,
        bot_level: str = "normal",
        delay: float = 0.7,
        challenge_window: float = 2.0,
        table_name: str = "",
    ) -> None:
        rules.check_seats(len(names))
        if not 0 <= seat < len(names):
            raise ValueError(f"seat {seat} is not one of the {len(names)} seats")
        self.rules = rules
        self._names = tuple(names)
        self._seat = seat
        self._rng = rng
        self.delay = delay
        self.challenge_window = challenge_window
        self._table_name = table_name
        self.bots: dict[int, Bot] = {
            s: make_bot(bot_level, random.Random(rng.getrandbits(64)), clock=time.perf_counter)
            for s in range(len(names))
            if s != seat
        }
        """The bots at the table, by seat (a caller may seat its own; `notify` then)."""
        self._game: Game | None = None
        self._view: PlayerView | None = None
        self._game_number = 0
        self._events: list[TableEvent] = []
        self._series = SeriesScore(durak=(0,) * len(names))
        self._listeners: list[Callable[[], None]] = []
        self._changed = asyncio.Event()
        self._poke = asyncio.Event()
        self._connection = ConnectionState.OFFLINE
        self._held: Action | None = None
        self._hold_task: asyncio.Task[None] | None = None
        self._hold_cancel = asyncio.Event()
        self._driver: asyncio.Task[None] | None = None
        self._version = 0
        self.error: Exception | None = None
        """What stopped the table, if it stopped by itself (a bug)."""

    # --- TableSession: state ------------------------------------------------------------

    @property
    def seat(self) -> int:
        return self._seat

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    @property
    def table_name(self) -> str:
        return self._table_name

    @property
    def offline(self) -> bool:
        return True

    @property
    def view(self) -> PlayerView | None:
        if self._view is None and self._game is not None:
            self._view = self._game.view(self._seat)
        return self._view

    @property
    def game_number(self) -> int:
        return self._game_number

    @property
    def events(self) -> Sequence[TableEvent]:
        return self._events

    @property
    def connection(self) -> ConnectionState:
        return self._connection

    @property
    def offline_seats(self) -> tuple[int, ...]:
        return ()

    @property
    def seat_hold(self) -> float:
        return 0.0

    @property
    def lobby_view(self) -> LobbyView | None:
        return None

    @property
    def pairing_code(self) -> str:
        return ""

    async def async_ready(self, ready: bool = True) -> None:
        return None  # nothing to wait for: the offline game deals at once

    async def async_add_bot(self, level: str = "normal") -> None:
        raise TableError("an offline game has no lobby: its bots are chosen when it starts")

    async def async_remove_bot(self, seat: int) -> None:
        raise TableError("an offline game has no lobby: its bots are chosen when it starts")

    def hold_left(self, seat: int) -> float | None:
        return None

    @property
    def series(self) -> SeriesScore:
        return self._series

    @property
    def audit(self) -> AuditVerdict:
        return AuditVerdict(AuditStatus.OFFLINE)

    @property
    def closing(self) -> bool:
        return self._held is not None

    @property
    def problem(self) -> str | None:
        return None  # an offline table saves nothing

    @property
    def move_clock(self) -> MoveClock | None:
        return None  # no clock offline: the bots are quick and the person is at home

    @property
    def aborted(self) -> tuple[int, str] | None:
        return None  # every card is dealt on this laptop: nobody can break card privacy

    @property
    def game(self) -> Game:
        """The full-information game (for tests; the client never reads it)."""
        assert self._game is not None, "start the table first"
        return self._game

    # --- TableSession: listening --------------------------------------------------------

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        self._listeners.append(callback)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(callback)

        return unsubscribe

    async def async_wait_update(self) -> None:
        self._changed.clear()
        await self._changed.wait()

    def notify(self) -> None:
        """The table changed: the view is built afresh on its next read, the bots look again,
        and every listener and waiter hears it (also after a caller changes `bots`)."""
        self._version += 1
        self._view = None
        self._changed.set()
        self._poke.set()
        for callback in list(self._listeners):
            callback()

    # --- lifecycle ------------------------------------------------------------------------

    async def __aenter__(self) -> LocalTable:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.async_leave()

    def start(self) -> None:
        """Deal the first game and let the bots play (needs a running event loop)."""
        if self._driver is not None:
            return
        self._deal(None)
        self._driver = asyncio.get_running_loop().create_task(self._drive())

    async def async_leave(self) -> None:
        self._connection = ConnectionState.CLOSED
        for task in (self._driver, self._hold_task):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._driver = self._hold_task = None
        self.notify()

    def _deal(self, previous: GameResult | None) -> None:
        n = len(self._names)
        deck = list(deck_cards(self.rules.deck))
        self._rng.shuffle(deck)
        # R-D5: the previous durak deals; a first game (or one after a draw): a random seat.
        dealer = Game.series_dealer(previous, self._rng.randrange(n))
        self._game = Game.deal(self.rules, n, dealer, deck, previous=previous)
        self._game_number += 1
        self._events.append(TableEvent(EventKind.GAME_STARTED, game=self._game_number))
        self.notify()

    # --- acting ---------------------------------------------------------------------------

    async def async_act(self, action: Action) -> None:
        if action.seat != self._seat:
            raise ActionRefused(f"you play seat {self._seat}, not seat {action.seat}")
        self._submit(action)

    async def async_next_game(self) -> None:
        if self._connection is ConnectionState.CLOSED:
            raise ActionRefused("the table is closed")
        game = self.game
        if game.result is None:
            raise ActionRefused("the game is not over yet")
        self._deal(game.result)

    def _submit(self, action: Action) -> None:
        """Check ``action`` and apply it, or hold it for the challenge window (R-S5)."""
        if self._connection is ConnectionState.CLOSED:
            raise ActionRefused("the table is closed")
        game = self.game
        if self._held is not None and action.do is not Do.CHALLENGE:
            raise ActionRefused("wait a moment: the bout is closing (challenges only now)")
        try:
            game.check(action)
        except IllegalAction as e:
            raise ActionRefused(e.reason, e.rule) from None
        if waits_for_challenges(self.rules, game, action):
            self._held = action
            self._hold_cancel.clear()
            self._hold_task = asyncio.get_running_loop().create_task(self._hold(action))
            self.notify()
            return
        self._apply(action)

    async def _hold(self, action: Action) -> None:
        # R-S5: a challenge that arrives within the window is applied first; a caught cheat
        # changes the table, so the held action is dropped (its player acts again).
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._hold_cancel.wait(), self.challenge_window)
        self._held = None
        self._hold_task = None
        if not self._hold_cancel.is_set() and self.game.can_apply(action):
            self._apply(action)
        else:
            self.notify()

    def _apply(self, action: Action) -> None:
        game = self.game
        events = table_events(action, game.apply(action))
        self._events += events
        if events[0].caught and self._held is not None:
            self._hold_cancel.set()  # R-S5: the held action is dropped
        if game.result is not None:
            self._series = self._series.add(game.result, len(self._names))
            self._events.append(
                TableEvent(EventKind.GAME_OVER, result=game.result, game=self._game_number)
            )
        self.notify()

    # --- the bots ---------------------------------------------------------------------------

    def _bot_action(self) -> Action | None:
        """Ask every bot still in the game (each with its own view: a bot keeps memory and
        should see every change) and pick the move a host would take first: a challenge, or
        one of the answers at random (they race, like messages reaching a host)."""
        game = self.game
        answers: list[Action] = []
        for s, bot in self.bots.items():
            if s in game.out:
                continue
            action = bot.choose(game.view(s))
            if action is not None:
                answers.append(action)
        if answers:
            challenges = [a for a in answers if a.do is Do.CHALLENGE]
            return self._rng.choice(challenges or answers)
        # Nobody wants to act: make sure the table never waits for a bot forever.
        if any(a.do is not Do.CHALLENGE for a in game.legal_actions(self._seat)):
            return None
        for s in self.bots:
            for a in game.legal_actions(s):
                if a.do in (Do.PASS, Do.TAKE):
                    return a
        return None

    async def _drive(self) -> None:
        try:
            await self._drive_loop()
        except Exception as e:
            # Never leave the person waiting for a table that stopped: say so.
            self.error = e
            self._connection = ConnectionState.CLOSED
            self.notify()
            raise

    async def _drive_loop(self) -> None:
        while True:
            game = self.game
            action = None
            if game.result is None and self._held is None:
                action = self._bot_action()
            if action is None:
                self._poke.clear()
                await self._poke.wait()
                continue
            version = self._version
            wait = self.delay
            if action.do is Do.CHALLENGE and self.delay > 0:
                # A person's moment to see the cheat, never the instant it lies there
                # (R-S5: bots notice a cheat as a person would; a table nobody watches does not
                # wait).
                wait = max(wait, _reaction.uniform(*NOTICE_SECONDS))
            await asyncio.sleep(wait)
            if self._version != version or self._held is not None:
                continue  # the table changed meanwhile: ask again
            try:
                self._submit(action)
            except ActionRefused:
                # A bot's cheat the rules refuse (a marked bot, R-S3): it passes or takes.
                fallback = next(
                    (a for a in game.legal_actions(action.seat) if a.do in (Do.PASS, Do.TAKE)),
                    None,
                )
                if fallback is None:
                    raise
                self._submit(fallback)
