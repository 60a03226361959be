"""Helpers: a host's authority and N seats joined in memory (h11's ConnectionPair idea), with
random bots choosing from each seat's own view."""

from __future__ import annotations

import os
import random
from typing import Any

from localdurak.game.bots import make_bot
from localdurak.game.rules import Rules
from localdurak.net.identity import EphemeralKey
from localdurak.protocol.messages import GameStarted, PrivacyEvent
from localdurak.protocol.table.common import Signed
from localdurak.protocol.table.host import HostGame
from localdurak.protocol.table.seat import SeatGame


class MemoryGame:
    def __init__(
        self,
        n: int,
        rules: Rules,
        seed: int = 1,
        dealer: int | None = None,
        defer: bool = False,
        names: tuple[str, ...] | None = None,
    ) -> None:
        """``defer``: the seats take events as a network client does (`SeatGame.receive` with
        ``defer``, then `flush`), and never have a quiet moment for what they deferred;
        `most_deferred` is the most card proofs one seat had waiting."""
        self.defer = defer
        self.most_deferred = 0
        self.keys = [EphemeralKey() for _ in range(n)]
        self.started = GameStarted(
            seq=1,
            game=os.urandom(16),
            number=0,
            rules=rules,
            dealer=n - 1 if dealer is None else dealer,
            names=names if names is not None else tuple(f"p{i}" for i in range(n)),
            keys=tuple(k.public_key for k in self.keys),
        )
        self.host = HostGame(self.started)
        self.seats = [SeatGame(self.started, s, self.keys[s], os.urandom) for s in range(n)]
        self.rng = random.Random(seed)
        self.bots = [make_bot("random", self.rng) for _ in range(n)]
        self.queue: list[tuple[int, Signed]] = []
        self.seq = 1
        self.events: list[PrivacyEvent] = []
        self.actions: list[dict[str, Any]] = []
        """Every game action the host accepted, in its order (records.md form)."""

    def send(self, seat: int, signed: list[Signed]) -> None:
        self.queue += [(seat, s) for s in signed]

    def pump(self) -> None:
        while self.queue:
            self.pump_one()

    def pump_one(self) -> None:
        """The host takes the first queued step; every seat gets what it relays."""
        seat, signed = self.queue.pop(0)
        accepted = self.host.receive(seat, signed.command(0))
        if accepted.action is not None:
            self.actions.append(accepted.action.to_dict())
        for s, cmd in accepted.relay:
            self.seq += 1
            ev = cmd.relayed(self.seq, s)
            self.events.append(ev)
            for p in self.seats:
                if self.defer:
                    out = p.receive(ev, defer=True)
                    self.most_deferred = max(self.most_deferred, len(p.player.t.deferred_plays))
                    self.send(p.seat, out + p.flush())
                else:
                    self.send(p.seat, p.receive(ev))

    def deal(self) -> None:
        for p in self.seats:
            self.send(p.seat, p.start())
        self.pump()

    def step(self) -> bool:
        """One bot action; False when nobody may act."""
        for p in self.rng.sample(self.seats, len(self.seats)):
            if not p.hand_complete():
                continue
            view = p.view()
            assert view is not None
            action = self.bots[p.seat].choose(view)
            if action is None:
                continue
            self.send(p.seat, [p.act(action)])
            self.pump()
            return True
        return False

    def play_out(self, limit: int = 3000) -> None:
        assert self.host.game is not None
        for _ in range(limit):
            if self.host.game.result is not None:
                self.pump()
                return
            assert self.step(), "nobody can act"
        raise AssertionError("the game did not end")

    def record(self) -> dict[str, Any]:
        """The game record the host writes (records.md), with the host's transcript."""
        game = self.host.game
        record: dict[str, Any] = {
            "format": "localdurak-record/1",
            "rules": self.started.rules.non_defaults(),
            "seats": len(self.seats),
            "names": list(self.started.names),
            "dealer": self.started.dealer,
            "actions": list(self.actions),
        }
        if game is not None and game.result is not None:
            record["result"] = game.result.to_dict()
        record["privacy"] = self.host.transcript()
        return record
