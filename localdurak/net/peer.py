"""A seat at the host's table and the connected player at it (docs/protocol.md §4).

`Peer` is one remote player's connection and what is queued for it; `SeatSlot` is a seat
of the table: empty, a person (his key, his `Peer` while connected, how long he has been
away) or one of the host's bots.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from localdurak.net.host_bots import BotSeat
from localdurak.net.transport import Channel, ConnectionClosed
from localdurak.protocol.errors import RemoteProtocolError
from localdurak.protocol.messages import BotLevel, Message, SeatInfo, SeatKind

log = logging.getLogger("localdurak.net.host")

PEER_BACKLOG_MAX = 16 << 20
"""Bytes written to a player's connection and not taken by it yet past which the host drops
the connection (`Peer`): far more than a whole game's events (about 2 MB at six seats)."""


class Peer:
    """A connected remote player: its channel and what is queued for it.

    What the host pushes goes out at the end of the event loop's current turn, in one write
    (one TLS record, one system call) for everything pushed meanwhile: a burst of events (the
    deal) is batched, and a single action reaches the socket without a task, a queue or a
    lock per player on its way (benchmarks/net.py).  `flush_now` writes at once what is
    queued: a game action goes to the other players before the host's bookkeeping after it
    (its move clock, its bots' replicas)."""

    def __init__(self, channel: Channel, key: bytes, name: str) -> None:
        self.channel = channel
        self.key = key
        self.name = name
        self.seat: int | None = None
        self.synced = False
        """True once the peer gets live events (after its first lobby or its resume)."""
        self.tasks: list[asyncio.Task[None]] = []
        self._queue: list[Message] = []
        self._flushing: asyncio.Handle | None = None
        self._hanging_up = False
        self._closing: asyncio.Task[None] | None = None

    def push(self, message: Message) -> None:
        if self._hanging_up:
            return  # said after the last word: the connection is going
        self._queue.append(message)
        self._flush_soon()

    def hang_up(self) -> None:
        """Close the connection once everything pushed before is written (a refusal that
        closes, leaving, a connection replaced by a newer one)."""
        self._hanging_up = True
        self._flush_soon()

    async def finished(self) -> None:
        """Wait until what was pushed is written and, after `hang_up`, the channel closed."""
        while self._flushing is not None:
            await asyncio.sleep(0)
        if self._closing is not None:
            await self._closing

    def flush_now(self) -> None:
        """Write what is queued now rather than at the end of the loop's turn."""
        if self._flushing is not None:
            self._flushing.cancel()
            self._flush()

    def _flush_soon(self) -> None:
        if self._flushing is None:
            self._flushing = asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flushing = None
        batch, self._queue = self._queue, []
        if self.channel.closed:
            return
        try:
            backlog = self.channel.write_now(batch) if batch else 0
        except (ConnectionClosed, RemoteProtocolError, OSError):
            return
        except Exception:  # a LocalProtocolError is our bug: log it, drop the peer
            log.exception("cannot send to %s", self.name)
            self._hanging_up = True
            backlog = 0
        if backlog > PEER_BACKLOG_MAX:
            # Not reading for a long while (a frozen laptop): it can resume once it does.
            log.warning("%s reads too slowly (%d bytes waiting): dropped", self.name, backlog)
            self._closing = asyncio.get_running_loop().create_task(self.channel.abort())
        elif self._hanging_up and self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self.channel.close())


@dataclass
class SeatSlot:
    kind: SeatKind = SeatKind.EMPTY
    name: str = ""
    key: bytes | None = None
    ready: bool = False
    peer: Peer | None = None
    bot: BotSeat | None = None
    away_since: float | None = None
    forfeit_timer: asyncio.TimerHandle | None = None

    @property
    def connected(self) -> bool:
        return self.kind is SeatKind.BOT or (self.peer is not None and not self.peer.channel.closed)

    def info(self) -> SeatInfo:
        return SeatInfo(
            kind=self.kind,
            name=self.name,
            ready=self.ready or self.kind is SeatKind.BOT,
            connected=self.connected,
            key=self.key,
            level=BotLevel(self.bot.level) if self.bot is not None else None,
        )
