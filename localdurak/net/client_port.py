"""The client session's port (`localdurak.net.api.TableSession`): what the terminal client
and the bots read (the view, cached until the next change; the lobby; the events; the
connection; the move clock) and the commands they give; the protocol's errors become
`TableError`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence

from localdurak.game.actions import Action, IllegalAction
from localdurak.game.rules import Rules
from localdurak.game.view import PlayerView
from localdurak.net.api import (
    ActionRefused,
    AuditVerdict,
    ConnectionState,
    LobbySeat,
    LobbyView,
    MoveClock,
    SeatKind,
    SeriesScore,
    TableError,
    TableEvent,
)
from localdurak.net.client_state import (
    SessionState,
)
from localdurak.net.identity import pairing_code as code_of
from localdurak.net.transport import (
    FingerprintMismatch,
)
from localdurak.protocol.errors import (
    BadPin,
    ProtocolError,
    RemoteProtocolError,
    Unavailable,
)
from localdurak.protocol.messages import (
    AddBot,
    BotLevel,
    Ready,
    RemoveBot,
    SetRules,
)

log = logging.getLogger("localdurak.net.client")


class SessionPort(SessionState):
    """The `TableSession` port (part of `ClientSession`)."""

    @property
    def view(self) -> PlayerView | None:
        """The seat's view with its legal actions, built once per change: the screen reads
        it many times a frame.  A change is what the session tells its listeners
        (`notify`, after every message applied) or a new game."""
        g = self.game
        if g is None:
            return None
        key = (id(g), self._changes)
        if self._view_key != key:
            self._view_cache, self._view_key = g.view(), key
        return self._view_cache

    @property
    def seat(self) -> int:
        """Our seat (-1 until the host gave us one)."""
        return -1 if self.my_seat is None else self.my_seat

    @property
    def names(self) -> tuple[str, ...]:
        if self.game is not None:
            return self.game.started.names
        if self.lobby is not None:
            return tuple(s.name for s in self.lobby.seats)
        return ()

    @property
    def table_name(self) -> str:
        """The table's name as its host says it; until then the name known from before a
        reconnect (`known_table`); the address only for a table never heard from."""
        if self.lobby is not None:
            return self.lobby.table
        return self.known_table or self.address.host

    @property
    def offline(self) -> bool:
        return False

    @property
    def game_number(self) -> int:
        return 0 if self.game is None else self.game.started.number + 1

    @property
    def events(self) -> Sequence[TableEvent]:
        return self._events

    @property
    def connection(self) -> ConnectionState:
        if self.closed:
            return ConnectionState.CLOSED
        if self.paused is not None:
            # Until we are back at the resumed table (the old channel may not be closed yet
            # when the host's paused Bye arrives: the friend's screen said "connected").
            return ConnectionState.PAUSED
        if self.channel is None or self.channel.closed:
            return ConnectionState.RECONNECTING
        return ConnectionState.CONNECTED

    @property
    def offline_seats(self) -> tuple[int, ...]:
        return tuple(sorted(self._away))

    @property
    def seat_hold(self) -> float:
        """The host's seat hold as its `Presence` events tell it, else our own patience."""
        return float(self._host_hold or self.hold)

    def hold_left(self, seat: int) -> float | None:
        until = self._held_until.get(seat)
        if until is None or seat not in self._away:
            return None
        return max(0.0, until - asyncio.get_running_loop().time())

    @property
    def series(self) -> SeriesScore:
        return self._series

    @property
    def audit(self) -> AuditVerdict:
        return self._audit

    @property
    def closing(self) -> bool:
        """R-S5: the host holds an action that closes the bout (its `Closing` event)."""
        return self._closing

    @property
    def problem(self) -> str | None:
        return self.host_problem or self.save_problem

    @property
    def move_clock(self) -> MoveClock | None:
        return self._clock

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    async def async_wait_update(self) -> None:
        await self.wait_changed()

    async def async_act(self, action: Action) -> None:
        try:
            await self.act(action)
        except IllegalAction as e:
            raise ActionRefused(e.reason, e.rule) from None
        except RemoteProtocolError as e:
            raise ActionRefused(e.message, e.rule or "") from None
        except (ConnectionError, OSError) as e:
            raise ActionRefused(f"the table cannot be reached: {e}") from None

    async def async_next_game(self) -> None:
        await self.set_ready(True)

    async def async_leave(self) -> None:
        await self.close()

    @property
    def lobby_view(self) -> LobbyView | None:
        lobby = self.lobby
        if lobby is None:
            return None
        mine = self.identity.public_key
        # At the host's own seat the peer is ourselves: each guest's code is shown there.
        at_host = self.channel is not None and self.channel.peer_key == mine
        seats = tuple(
            LobbySeat(
                SeatKind(s.kind.value),
                s.name,
                s.ready,
                s.connected,
                code_of(mine, s.key)
                if at_host and s.kind.value == "human" and s.key and s.key != mine
                else "",
            )
            for s in lobby.seats
        )
        return LobbyView(lobby.table, lobby.rules, seats, lobby.games, lobby.owner)

    @property
    def pairing_code(self) -> str:
        peer = None if self.channel is None else self.channel.peer_key
        mine = self.identity.public_key
        return "" if peer is None or peer == mine else code_of(mine, peer)

    async def async_join(self, *, ready: bool = False) -> None:
        """Connect (and say ready when ``ready``: the headless forms); `TableError` with
        the reason when the table refuses us or cannot be reached (the session closed)."""
        try:
            await self.start()
            if ready:
                await self.set_ready(True)
        except BaseException as e:
            with contextlib.suppress(Exception):
                await self.close()
            if isinstance(e, (ProtocolError, ConnectionError, OSError, TimeoutError)):
                reason = str(e) or type(e).__name__
                shown = e.actual if isinstance(e, FingerprintMismatch) else None
                raise TableError(
                    reason, pin_wanted=isinstance(e, BadPin), fingerprint_shown=shown
                ) from None
            raise

    async def async_run(self) -> None:
        """Keep the seat until the table closes; `TableError` with the reason when the
        session fails."""
        try:
            await self.run_until_closed()
        except (ProtocolError, ConnectionError) as e:
            raise TableError(str(e) or type(e).__name__) from None

    async def async_ready(self, ready: bool = True) -> None:
        await self._port(self.set_ready(ready))

    async def async_add_bot(self, level: str = "normal") -> None:
        await self._port(self.add_bot(level))

    async def async_remove_bot(self, seat: int) -> None:
        await self._port(self.remove_bot(seat))

    async def _port(self, command: Awaitable[None]) -> None:
        try:
            await command
        except (ProtocolError, ConnectionError) as e:
            raise TableError(str(e) or type(e).__name__) from None

    def notify(self) -> None:
        """The session changed (an event applied, a connection's state): the view is built
        afresh on its next read, and every listener and waiter hears it."""
        self._changes += 1
        self._changed.set()
        for callback in list(self._listeners):
            try:
                callback()
            except Exception:
                log.exception("a listener failed")

    @property
    def closed(self) -> bool:
        return self.closed_reason is not None

    async def wait_changed(self) -> None:
        """Wait until something changed (an event applied, the connection, the table)."""
        await self._changed.wait()
        self._changed.clear()

    async def act(self, action: Action) -> None:
        """Play ``action``; raises the host's refusal (`IllegalMove`, `NotYourTurn`, ...)."""
        if self.game is None:
            raise Unavailable("no game is being played")
        signed = self.game.act(action)
        await self._send_signed([signed], wait=True)

    async def set_ready(self, ready: bool = True) -> None:
        await self._command(lambda i: Ready(id=i, ready=ready), wait=True)

    async def add_bot(self, level: str = "normal", seat: int | None = None) -> None:
        """A bot at ``seat`` (the first free seat by default)."""
        bot = BotLevel(level)
        await self._command(lambda i: AddBot(id=i, seat=seat, level=bot), wait=True)

    async def remove_bot(self, seat: int) -> None:
        await self._command(lambda i: RemoveBot(id=i, seat=seat), wait=True)

    async def set_rules(self, rules: Rules, seats: int) -> None:
        await self._command(lambda i: SetRules(id=i, rules=rules, seats=seats), wait=True)

    async def close(self) -> None:
        if self.closed_reason is None:
            self.closed_reason = "you left the table"
        if self.channel is not None:
            await self.channel.close(reason="leaving")
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
        self.notify()
