"""The table host's lobby: admitting a key to a seat, the owner's commands (bots, rules),
and starting the game once every seat is taken and ready (docs/protocol.md §4)."""

from __future__ import annotations

import asyncio
import logging
import random

from localdurak.game.rules import RulesError
from localdurak.net.host_bots import BotSeat
from localdurak.net.host_core import (
    HostCore,
    Phase,
)
from localdurak.net.peer import SeatSlot
from localdurak.protocol.errors import (
    BadMessage,
    Forbidden,
    TableFull,
    Unavailable,
)
from localdurak.protocol.messages import (
    REPLACED,
    AddBot,
    Auth,
    RemoveBot,
    SeatKind,
    SetRules,
    TableState,
)

log = logging.getLogger("localdurak.net.host")


class HostLobby(HostCore):
    """Admission and the lobby (part of `TableHost`)."""

    def _known_key(self, key: bytes) -> bool:
        return any(s.key == key and s.kind is SeatKind.HUMAN for s in self.seats)

    def _new_player_id(self) -> int:
        self._next_player += 1
        return self._next_player % 0xFFFF

    def _admit(self, auth: Auth) -> int:
        """The seat this key takes: its own (a reconnect), or a free one in the lobby."""
        for s, slot in enumerate(self.seats):
            if slot.key == auth.key and slot.kind is SeatKind.HUMAN:
                if slot.peer is not None and not slot.peer.channel.closed:
                    # The same device again while its old connection lingers: the new one wins.
                    old = slot.peer
                    slot.peer = None
                    asyncio.get_running_loop().create_task(old.channel.close(reason=REPLACED))
                return s
        if self.state is not TableState.LOBBY:
            raise TableFull("the game has started and no seat is held for you")
        if any(s.key == auth.key for s in self.seats):
            raise TableFull("this key already plays at the table")
        for s, slot in enumerate(self.seats):
            if slot.kind is SeatKind.EMPTY:
                slot.kind, slot.name, slot.key, slot.ready = (
                    SeatKind.HUMAN,
                    auth.name,
                    auth.key,
                    False,
                )
                return s
        raise TableFull("every seat at this table is taken")

    def _is_owner(self, seat: int) -> bool:
        """The table's owner: the person at the host's own seat (0), signed in with the host's
        own key.  A headless table has none."""
        return self.o.own_seat and seat == 0 and self.seats[0].key == self.identity.public_key

    def _owner_command(self, seat: int, m: SetRules | AddBot | RemoveBot) -> int:
        """docs/protocol.md §4: the owner fills seats with bots, frees them, or changes the
        rules, in the lobby before the first game (a series keeps its table)."""
        if not self._is_owner(seat):
            raise Forbidden("only the table's owner (the host's own seat) may change the table")
        if self.state is not TableState.LOBBY or self.game_number > 0:
            raise Unavailable("the table can change only before its first game")
        if isinstance(m, AddBot):
            if m.seat is not None and not (
                0 <= m.seat < len(self.seats) and self.seats[m.seat].kind is SeatKind.EMPTY
            ):
                raise TableFull(f"seat {m.seat + 1} is not free")
            self._add_bot(m.level.value, m.seat)
        elif isinstance(m, RemoveBot):
            if not 0 <= m.seat < len(self.seats) or self.seats[m.seat].kind is not SeatKind.BOT:
                raise BadMessage(f"there is no bot at seat {m.seat + 1}")
            self.seats[m.seat] = SeatSlot()
        else:
            try:
                m.rules.check_seats(m.seats)
            except RulesError as e:
                raise BadMessage(str(e)) from None
            taken = [i for i, slot in enumerate(self.seats) if slot.kind is not SeatKind.EMPTY]
            if taken and max(taken) >= m.seats:
                raise Unavailable(
                    f"seat {max(taken) + 1} is taken: free it before the table gets smaller"
                )
            self.o.rules, self.o.seats = m.rules, m.seats
            self.seats = self.seats[: m.seats] + [
                SeatSlot() for _ in range(m.seats - len(self.seats))
            ]
            self.score = [0] * m.seats
            # The players said ready to other rules: they say it again to these.
            for i, slot in enumerate(self.seats):
                if slot.kind is SeatKind.HUMAN and i != seat:
                    slot.ready = False
        self._broadcast_lobby()
        self._readvertise()
        self._maybe_start()
        return self.seq

    def _add_bot(self, level: str, at: int | None = None) -> int:
        for s, slot in enumerate(self.seats):
            if at is not None and s != at:
                continue
            if slot.kind is SeatKind.EMPTY and not (s == 0 and self.o.own_seat):
                bot = BotSeat(
                    level,
                    random.Random(self.rng.getrandbits(64)),
                    path=self.state_dir / f"bot-{s}.bin",
                )
                slot.kind, slot.bot, slot.ready = SeatKind.BOT, bot, True
                slot.name = f"Bot {s + 1}"
                slot.key = bot.key.public_key
                return s
        raise TableFull("no free seat for a bot")

    def _maybe_start(self) -> None:
        if self.phase is not Phase.LOBBY or self.game_number >= self.o.games:
            return
        if all(
            s.kind is not SeatKind.EMPTY and (s.ready or s.kind is SeatKind.BOT) and s.connected
            for s in self.seats
        ):
            self._start_game()
