"""An in-memory table: one `Host` and N `Player` objects joined by a message queue (h11-style
testing before any socket exists).  Used by the tests and benchmarks/privacy.py.

Every message crosses the link as its msgpack encoding (``to_dict`` → bytes → ``from_dict``),
so the codec is exercised and the bytes on the wire are counted.  ``tap`` sees every delivery.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import msgpack

from localdurak.game.actions import Action, Do, GameResult
from localdurak.game.cards import Card, beats
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from localdurak.protocol.privacy.events import Event
from localdurak.protocol.privacy.group import GROUP, RandomBytes
from localdurak.protocol.privacy.messages import Message, Shuffle, message_from_dict
from localdurak.protocol.privacy.proofs import schnorr_prove
from localdurak.protocol.privacy.roles import Host, Player
from localdurak.protocol.privacy.transcript import shuffle_digest
from localdurak.protocol.table.common import refill_due, return_due

Tap = Callable[[str, int, Message], None]
"""(direction "to_host" | "to_player", seat, message)."""


def wire(msg: Message) -> bytes:
    return bytes(msgpack.packb(msg.to_dict(), use_bin_type=True))


def unwire(data: bytes) -> Message:
    return message_from_dict(msgpack.unpackb(data, raw=False))


def resign_stage(player: Player, stage: Shuffle) -> Shuffle:
    """``stage`` with ``player``'s valid signature over its input and this output (a cheating
    client signs what it sends; its proof of shuffle stays what it was)."""
    ctx = player.t.ctx(
        player.seat,
        "shuffle",
        (),
        shuffle_digest(player.t.previous_stage(), stage.deck, stage.shuffle_proof),
    )
    sig = schnorr_prove(player._rng, player.secret, player.key, ctx)
    return Shuffle(stage.seat, stage.deck, sig, stage.shuffle_proof)


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
        self.players = [Player(setup, s, rngs[s]) for s in range(setup.seats)]
        # The host role runs on seat 0's machine and shares its verified proofs.
        self.host = Host(setup, defer_verification=defer_verification, own_seat=self.players[0])
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
                changed = self.tamper(seat, m)
                if changed is not m and isinstance(changed, Shuffle) and changed.proof == m.proof:
                    # A cheating client signs the stage it really sends; it cannot prove it a
                    # shuffle, so it sends whatever proof of shuffle the tamper left.
                    changed = resign_stage(self.players[seat], changed)
                if changed is not m:
                    # A cheating client: its own software knows what it really sent.
                    self.players[seat]._sent.append(changed)
                m = changed
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

    def end_bout(
        self, seats: Sequence[int], taker: int | None, taken: Sequence[int] | None = None
    ) -> None:
        for p in self.players:
            p.expect_refill(seats, taker, taken)
        self.to_players(self.host.refill(seats, taker, taken))
        self.run()

    def return_cards(self, cards: Sequence[int], owners: Sequence[int]) -> None:
        for p in self.players:
            p.expect_return(cards, owners)
        self.to_players(self.host.return_cards(cards, owners))
        self.run()

    def reveal(self) -> None:
        for p in self.players:
            self.to_host(p.seat, [p.reveal()])
        self.run()

    def record(self, game: Any = None) -> dict[str, Any]:
        """A game record (records.md) carrying the privacy transcript (and the engine's
        actions, given the game)."""
        return {
            "format": "localdurak-record/1",
            "rules": dict(self.setup.rules),
            "seats": self.setup.seats,
            "dealer": self.setup.dealer,
            "actions": [a.to_dict() for a in game.log] if game is not None else [],
            "privacy": self.host.transcript(),
        }


def play_scripted_game(tab: MemoryTable, max_bouts: int = 300) -> int:
    """A simple game of Durak through the protocol, to the end; returns the number of bouts.

    One attack card per bout; the defender covers with the lowest card that beats it, or
    takes; refills in R-B12 order.  It stands in for the engine's legal actions (tests and
    benchmarks); the protocol does not care which legal move is chosen."""
    n = tab.setup.seats
    hand_size = tab.setup.hand_size
    p0 = tab.players[0]
    trump = p0.t.trump_suit
    assert trump is not None and p0.t.first_attacker is not None
    attacker = p0.t.first_attacker.seat

    def order(c: Card) -> tuple[bool, int, int]:
        return (c.suit == trump, c.rank, c.suit)

    def cards(s: int) -> list[Card]:
        return tab.players[s].cards()

    def active() -> list[int]:
        left = tab.host.t.schedule.stock_left
        return [s for s in range(n) if cards(s) or left > 0]

    for bout in range(max_bouts):
        act = active()
        if len(act) <= 1:
            return bout
        while attacker not in act:
            attacker = (attacker + 1) % n
        defender = (attacker + 1) % n
        while defender not in act:
            defender = (defender + 1) % n
        attack = min(cards(attacker), key=order)
        tab.play(attacker, attack, {"do": "attack", "cards": [str(attack)]})
        covers = sorted(
            (c for c in cards(defender) if beats(c, attack, trump, tab.setup.japanese)), key=order
        )
        if covers:
            tab.play(
                defender, covers[0], {"do": "cover", "card": str(covers[0]), "on": str(attack)}
            )
            tab.act(attacker, {"do": "pass"})
            taker = None
        else:
            tab.act(defender, {"do": "take"})
            tab.act(attacker, {"do": "pass"})
            taker = defender
        # R-B12: the opener first, then clockwise, the defender last.
        draw_order = [attacker] + [
            (attacker + i) % n for i in range(1, n) if (attacker + i) % n != defender
        ]
        draw_order.append(defender)
        left = tab.host.t.schedule.stock_left
        seats: list[int] = []
        for s in draw_order:
            size = len(cards(s)) + (2 if s == defender and taker is not None else 0)
            need = max(0, hand_size - size)
            take = min(need, left)
            seats += [s] * take
            left -= take
        tab.end_bout(seats, taker)
        attacker = defender if taker is None else (defender + 1) % n
    raise AssertionError("the scripted game did not end")


def dealt_deck(tab: MemoryTable) -> list[Card]:
    """The whole deck in deal order, decoded with every seat's key: an omniscient driver's
    view (tests and benchmarks only; no party of the protocol can do this)."""
    deck = tab.host.t.final_deck
    assert deck is not None
    total = tab.players[0].secret
    for p in tab.players[1:]:
        total = GROUP.scalar_mul(total, p.secret)
    inv = GROUP.scalar_invert(total)
    cards = [tab.host.t.card_of(GROUP.mul(inv, x)) for x in deck]
    assert all(c is not None for c in cards)
    return [c for c in cards if c is not None]


class Chooser(Protocol):
    """What picks the engine's next action: ``random.Random(seed)`` in tests."""

    def choice(self, seq: Sequence[Action]) -> Action: ...

    def random(self) -> float: ...


def _cheats(game: Game, seat: int) -> list[Action]:
    """Cheating mode (R-S1): card plays the engine allows though the legal list omits them."""
    out: list[Action] = []
    for c in game.hand(seat):
        out.append(Action(seat, Do.ATTACK, (c,)))
        out.append(Action(seat, Do.TRANSFER, card=c))
        out += [Action(seat, Do.COVER, card=c, on=a) for a, cov in game.table if cov is None]
    return [a for a in out if game.can_apply(a)]


def play_engine_game(
    tab: MemoryTable,
    rules: Rules,
    rng: Chooser,
    max_steps: int = 3000,
    *,
    previous: GameResult | None = None,
) -> Game:
    """Play a whole game with the rules engine choosing random legal actions, every action
    going through the protocol: cards played or shown with their proofs, other actions
    signed, each bout's end and refill (``Game.refill_schedule()``) as one batch.  After every
    bout each seat's protocol hand must equal the engine's.  ``previous``: a later game's
    previous result (R-F2; the setup then has no R-F1 step)."""
    n = tab.setup.seats
    game = Game.deal(rules, n, tab.setup.dealer, dealt_deck(tab), previous=previous)
    first = tab.host.t.first_attacker
    if tab.setup.lowest_trump:
        assert first is not None and first.seat == game.attacker, (first, game.attacker)
    for _ in range(max_steps):
        if game.result is not None:
            return game
        everything = [a for s in range(n) for a in game.legal_actions(s)]
        if rules.cheating and rng.random() < 0.2:
            everything = [a for s in range(n) for a in _cheats(game, s)] or everything
        action = rng.choice(everything)
        record = action.to_dict()
        if action.do in (Do.ATTACK,):
            for card in action.cards:
                tab.play(action.seat, card, record)
        elif action.do in (Do.COVER, Do.TRANSFER, Do.SHOW):
            assert action.card is not None
            tab.play(action.seat, action.card, record, shown=action.do is Do.SHOW)
        else:
            tab.act(action.seat, record)
        outcome = game.apply(action)
        refill = refill_due(outcome)  # as the host does it: only while the game goes on
        if refill is not None:
            seats, taker, taken = refill
            tab.end_bout(seats, None if taker < 0 else taker, taken)
        elif action.do is Do.CHALLENGE:
            back = return_due(outcome)
            if back is not None:
                tab.return_cards(*back)
            for s in range(n):
                mine = sorted(tab.players[s].cards())
                assert mine == sorted(game.hand(s)), (s, mine, game.hand(s))
    raise AssertionError("the game did not end")
