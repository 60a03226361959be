"""The table host's lobby: admitting a key to a seat, the owner's commands (bots, rules),
and starting the game once every seat is taken and ready (docs/protocol.md §4)."""

from __future__ import annotations

import asyncio
import logging
import random

from localdurak.net.host_bots import BotSeat
from localdurak.net.host_core import (
    HostCore,
    Phase,
)
from localdurak.net.peer import SeatSlot
from localdurak.protocol.messages import (
    REPLACED,
    AddBot,
    Auth,
    RemoveBot,
    SeatKind,
    SetRules,
)
from localdurak.protocol.table import lobby as rules

log = logging.getLogger("localdurak.net.host")


class HostLobby(HostCore):
    """Admission and the lobby (part of `TableHost`); the rules are
    `localdurak.protocol.table.lobby`'s."""

    def _known_key(self, key: bytes) -> bool:
        return rules.known_key(self.seats, key)

    def _new_player_id(self) -> int:
        self._next_player += 1
        return self._next_player % 0xFFFF

    def _admit(self, auth: Auth) -> int:
        """The seat this key takes: its own (a reconnect), or a free one in the lobby."""
        s = rules.held_seat(self.seats, auth.key)
        if s is not None:
            slot = self.seats[s]
            if slot.peer is not None and not slot.peer.channel.closed:
                # The same device again while its old connection lingers: the new one wins.
                old = slot.peer
                slot.peer = None
                asyncio.get_running_loop().create_task(old.channel.close(reason=REPLACED))
            return s
        s = rules.new_seat(self.seats, auth.key, self.state)
        slot = self.seats[s]
        slot.kind, slot.name, slot.key, slot.ready = SeatKind.HUMAN, auth.name, auth.key, False
        return s

    def _is_owner(self, seat: int) -> bool:
        """The table's owner (`rules.is_owner`): the host's own seat, with the host's key."""
        return rules.is_owner(
            self.seats, seat, own_seat=self.o.own_seat, host_key=self.identity.public_key
        )

    def _owner_command(self, seat: int, m: SetRules | AddBot | RemoveBot) -> int:
        """docs/protocol.md §4: the owner fills seats with bots, frees them, or changes the
        rules, in the lobby before the first game (a series keeps its table)."""
        rules.check_owner(self._is_owner(seat), self.state, self.game_number)
        if isinstance(m, AddBot):
            rules.check_add_bot(self.seats, m.seat)
            self._add_bot(m.level.value, m.seat)
        elif isinstance(m, RemoveBot):
            rules.check_remove_bot(self.seats, m.seat)
            self.seats[m.seat] = SeatSlot()
        else:
            rules.check_resize(self.seats, m.rules, m.seats)
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
        s = rules.bot_seat(self.seats, at, own_seat=self.o.own_seat)
        slot = self.seats[s]
        bot = BotSeat(
            level,
            random.Random(self.rng.getrandbits(64)),
            path=self.state_dir / f"bot-{s}.bin",
        )
        slot.kind, slot.bot, slot.ready = SeatKind.BOT, bot, True
        slot.name = f"Bot {s + 1}"
        slot.key = bot.key.public_key
        return s

    def _maybe_start(self) -> None:
        if self.phase is not Phase.LOBBY or self.game_number >= self.o.games:
            return
        if rules.all_ready(self.seats):
            self._start_game()
