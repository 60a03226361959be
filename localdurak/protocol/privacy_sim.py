"""An in-memory table: one `Host` and N `Player` objects joined by a message queue (h11-style
testing before any socket exists).  Used by the tests and benchmarks/privacy.py.

Every message crosses the link as its msgpack encoding (``to_dict`` → bytes → ``from_dict``),
so the codec is exercised and the bytes on the wire are counted.  ``tap`` sees every delivery.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgpack

from ..game.cards import Card
from .group import RandomBytes
from .privacy import Event, Host, Player
from .privacy_messages import Message, message_from_dict

Tap = Callable[[str, int, Message], None]
"""(direction "to_host" | "to_player", seat, message)."""


def wire(msg: Message) -> bytes:
    return bytes(msgpack.packb(msg.to_dict(), use_bin_type=True))


def unwire(data: bytes) -> Message:
    return message_from_dict(msgpack.unpackb(data, raw=False))


class MemoryTable:
    """Host and players in one process; ``run()`` delivers until nothing is left to send."""

    def __init__(
        self,
        setup: Any,
        rngs: Sequence[RandomBytes],
        *,
        defer_verification: bool = False,
        tap: Tap | None = None,
        tamper: Callable[[int, Message], Message] | None = None,
    ) -> None:
        self.setup = setup
        self.host = Host(setup, defer_verification=defer_verification)
        self.players = [Player(setup, s, rngs[s]) for s in range(setup.seats)]
        self.queue: deque[tuple[str, int, bytes]] = deque()
        self.events: list[list[Event]] = [[] for _ in range(setup.seats)]
        self.tap = tap
        self.tamper = tamper
        """Tests: rewrite a message a seat sends (a cheating client)."""
        self.bytes_to_host = 0
        self.bytes_to_players = 0
        self.messages = 0

    def to_host(self, seat: int, msgs: Sequence[Message]) -> None:
        for m in msgs:
            if self.tamper is not None:
                m = self.tamper(seat, m)
            self.queue.append(("to_host", seat, wire(m)))

    def to_players(self, outgoing: Sequence[tuple[int, Message]]) -> None:
        for seat, m in outgoing:
            self.queue.append(("to_player", seat, wire(m)))

    def step(self) -> None:
        direction, seat, data = self.queue.popleft()
        msg = unwire(data)
        self.messages += 1
        if self.tap is not None:
            self.tap(direction, seat, msg)
        if direction == "to_host":
            self.bytes_to_host += len(data)
            self.to_players(self.host.receive(seat, msg))
        else:
            self.bytes_to_players += len(data)
            player = self.players[seat]
            self.to_host(seat, player.receive(msg))
            while (e := player.next_event()) is not None:
                self.events[seat].append(e)

    def run(self) -> None:
        while self.queue:
            self.step()

    def start(self) -> None:
        for p in self.players:
            self.to_host(p.seat, p.start())
        self.run()

    def play(
        self, seat: int, card: Card, action: Mapping[str, Any], *, shown: bool = False
    ) -> None:
        self.to_host(seat, [self.players[seat].play(card, action, shown=shown)])
        self.run()

    def act(self, seat: int, action: Mapping[str, Any]) -> None:
        self.to_host(seat, [self.players[seat].act(action)])
        self.run()

    def end_bout(self, seats: Sequence[int], taker: int | None) -> None:
        for p in self.players:
            p.expect_refill(seats, taker)
        self.to_players(self.host.refill(seats, taker))
        self.run()

    def reveal(self) -> None:
        for p in self.players:
            self.to_host(p.seat, [p.reveal()])
        self.run()

    def record(self) -> dict[str, Any]:
        """A game record (records.md) carrying the privacy transcript."""
        return {
            "format": "localdurak-record/1",
            "rules": dict(self.setup.rules),
            "seats": self.setup.seats,
            "dealer": self.setup.dealer,
            "actions": [],
            "privacy": self.host.transcript(),
        }
