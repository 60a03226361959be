"""One seat's game (`SeatGame`): its privacy `Player` (its own key), and the engine on what
that seat may know (``Game.hidden`` from its own seat).  It checks every relayed message (the
seat's signature and counter, then the privacy proofs, then the rules) and answers with the
signed messages the protocol asks of it.  Human clients and bots use it alike (localdurak.net).

Sans-I/O (no sockets, no clocks, no random source but the one it is given).  The host's side is
table/host.py; what both share, table/common.py.

A `SeatGame` freezes to a msgpack snapshot (`protocol.snapshot`: no pickle, no code; without
its signing key, `SeatGame.freeze` / `thaw`): a client keeps it on disk after every event, so a
restarted client carries on with the same privacy key (privacy.md "When a player drops out").
Never rebuild a seat by replaying with a seeded random source: proof nonces would repeat for
different statements and leak the key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from localdurak.game.actions import Action, Do, GameResult, IllegalAction
from localdurak.game.cards import Card
from localdurak.game.engine import Game
from localdurak.game.outcome import (
    NOTHING,
    Outcome,
)
from localdurak.game.view import PlayerView
from localdurak.protocol import snapshot
from localdurak.protocol.errors import (
    AuthFailed,
    BadMessage,
    IllegalMove,
    LocalProtocolError,
    RemoteProtocolError,
)
from localdurak.protocol.messages import GameStarted, PrivacyEvent
from localdurak.protocol.privacy.events import CardTurned, FirstAttacker, HandDealt, KeysRevealed
from localdurak.protocol.privacy.group import RandomBytes
from localdurak.protocol.privacy.messages import Message as PMessage
from localdurak.protocol.privacy.messages import (
    Refill,
    Return,
)
from localdurak.protocol.privacy.roles import Player
from localdurak.protocol.privacy.transcript import DECK_TABLES
from localdurak.protocol.signing import action_payload, verify_action
from localdurak.protocol.table.common import (
    GAME_STEPS,
    Counters,
    Signed,
    Signer,
    action_of,
    begin_game,
    body_of,
    decode_body,
    refill_due,
    refusal,
    return_due,
    setup_for,
    signed_setup,
    step_of,
)


class SeatGame:
    """One seat's game: its privacy player and its engine, fed by the host's relayed events."""

    last_action: Action | None = None
    """The game action of the last event `receive` took (None for other steps): the
    client's table log reads it rather than decoding the step again."""
    last_outcome: Outcome = NOTHING
    """What that action caused (`Game.apply`'s outcome): the client's table log."""

    def __init__(
        self,
        started: GameStarted,
        seat: int,
        signer: Signer,
        rng: RandomBytes,
    ) -> None:
        if not 0 <= seat < len(started.keys):
            raise ValueError(f"seat {seat} is not at this table")
        if started.keys[seat] != signer.public_key:
            raise AuthFailed(f"seat {seat}'s key in game_started is not ours")
        self.started = started
        self.seat = seat
        self.signer = signer
        self.setup = setup_for(started)
        self.player = Player(self.setup, seat, rng)
        self.game: Game | None = None
        self.counters = Counters([-1] * len(started.keys))
        self._n = 0
        self._seen = 0
        """How many messages of the privacy log we have taken (every relayed step's, and the
        refills and returns our engine called for): what each step we sign says we had seen
        (`signing.action_payload`), so the host cannot show it taken before them."""
        self._unrelayed: dict[int, list[PMessage]] = {}
        """Our game actions signed and not relayed yet, by ``n`` (`refused`)."""
        self._hand0: tuple[Card, ...] | None = None
        self._turned: CardTurned | None = None
        self._first: FirstAttacker | None = None
        self._pending_draws: list[Card] = []
        self._due: list[tuple[Any, ...]] = []
        """Protocol work an applied action called for, not done yet (`flush`)."""
        self.revealed = False
        self.keys_revealed = False
        self.log_complete = True
        """Whether ``player.t.log`` holds every step of the game (not after a restart)."""
        self.changed = False
        """Set whenever the public state changed (for the session to wake its player)."""

    @property
    def game_id(self) -> bytes:
        return self.started.game

    @property
    def bound(self) -> bytes:
        """What our signatures bind besides the step (`signed_setup`)."""
        return signed_setup(self.started)

    @property
    def seats(self) -> int:
        return len(self.started.keys)

    def _sign(self, msgs: Sequence[PMessage]) -> Signed:
        step = step_of(msgs)
        body = body_of(msgs)
        n = self._n
        self._n += 1
        seen = self._seen
        sig = self.signer.sign(action_payload(self.bound, self.seat, n, step, body, seen=seen))
        if step in GAME_STEPS:
            self._unrelayed[n] = list(msgs)
        return Signed(self.game_id, n, step, body, sig, seen)

    def sign(self, msgs: Sequence[PMessage]) -> Signed:
        """Sign ``msgs`` as this seat's next step, as it is: no rules, no proofs checked (the
        seat's own moves go through `act`; this is for tools and tests that build a step by
        hand, a dishonest one included)."""
        return self._sign(msgs)

    @property
    def taken(self) -> int:
        """How many messages of the privacy log we have taken (what a step we signed now
        would say we had seen)."""
        return self._seen

    @property
    def unrelayed(self) -> tuple[int, ...]:
        """Our signed game steps (their numbers) not yet seen relayed nor refused."""
        return tuple(self._unrelayed)

    def refused(self, n: int) -> None:
        """The host refused our step ``n`` (a game action that lost a race, say): it will
        never be relayed, so the player stops waiting for its echo."""
        for m in self._unrelayed.pop(n, []):
            self.player.forget(m)

    def _send(self, msgs: Sequence[PMessage]) -> list[Signed]:
        return [self._sign([m]) for m in msgs]

    def start(self) -> list[Signed]:
        return self._send(self.player.start())

    # --- the player's side ------------------------------------------------------------------

    def view(self) -> PlayerView | None:
        return None if self.game is None else self.game.view(self.seat)

    def hand_decoded(self) -> bool:
        """Our hand of the deal is decoded (privacy.md step 3)."""
        return self._hand0 is not None

    def hand_complete(self) -> bool:
        """All cards of our hand are decoded (a refill may still be on its ring pass), and
        every other hand of the deal too: nobody plays before everybody holds his cards (the
        host refuses it: a seat whose hand is still on its way could not follow)."""
        g = self.game
        return (
            g is not None
            and self.player.t.deal_complete()
            and g.count(self.seat) == len(g.hand(self.seat))
        )

    def act(self, action: Action) -> Signed:
        """Our action, as its privacy messages with proofs, signed.  Checked by our own
        engine first (`IllegalAction`)."""
        g = self.game
        if g is None:
            raise IllegalAction("R-D1", "the cards are still being dealt")
        if action.seat != self.seat:
            raise ValueError(f"we are seat {self.seat}, not seat {action.seat}")
        g.check(action)
        form = action.to_dict()
        msgs: list[PMessage]
        try:
            if action.do is Do.ATTACK:
                msgs = [self.player.play(c, form) for c in action.cards]
            elif action.do in (Do.COVER, Do.TRANSFER, Do.SHOW):
                assert action.card is not None
                msgs = [self.player.play(action.card, form, shown=action.do is Do.SHOW)]
            else:
                msgs = [self.player.act(form)]
        except LocalProtocolError as e:
            # A card a successful challenge sent back to the hand (R-S3) has no proof of
            # holding in the card-privacy protocol yet (its position was played once).
            raise IllegalAction("R-S3", f"this card cannot be played again yet: {e}") from None
        return self._sign(msgs)

    # --- events from the host ---------------------------------------------------------------

    def receive(self, event: PrivacyEvent, *, defer: bool = False) -> list[Signed]:
        """One relayed privacy step: check the seat's signature and counter, then the step
        itself; returns the signed steps we send in answer.  Raises `ProtocolError` (the host
        relayed something a seat did not sign, or the protocol broke: `AuthFailed`,
        `Replayed`, `IllegalMove`).

        ``defer``: an action is applied to the engine at once, but the protocol work it calls
        for (the refill's layer removals, a return, our key at the end) waits for `flush`, so
        a client can show the action first; call `flush` before the next event.  The proof
        that a played card was dealt to its player waits too, for `verify_ahead` (the host
        has checked it; the table's next quiet moment checks it here, and the game cannot end
        for us before it is checked)."""
        early = self.flush() if self._due else []
        if event.game != self.game_id:
            raise BadMessage("a privacy step of another game")
        if not 0 <= event.seat < self.seats:
            raise BadMessage(f"a privacy step from seat {event.seat}, not at the table")
        msgs = decode_body(event.body, event.seat)
        # Our own steps we signed ourselves; the others' are checked.  So is a game action of
        # ours that we do not remember: restored from a save made before it (`adopt`), we
        # learn it from the host's replay, and only our own key can have signed it.
        adopt = (
            event.seat == self.seat
            and event.step in GAME_STEPS
            and not all(self.player.remembers(m) for m in msgs)
        )
        if event.seat != self.seat or adopt:
            verify_action(
                self.started.keys[event.seat],
                event.sig,
                game=self.bound,
                seat=event.seat,
                n=event.n,
                kind=event.step,
                body=event.body,
                seen=event.seen,
            )
        self.counters.check(event.seat, event.n)
        self.counters.advance(event.seat, event.n)
        if event.seat == self.seat:
            self._unrelayed.pop(event.n, None)
        if adopt:
            self._n = max(self._n, event.n + 1)
        if step_of(msgs) != event.step:
            raise BadMessage(f"step {event.step!r} carries {msgs[0].KIND!r} messages")
        out: list[PMessage] = []
        action: Action | None = None
        if event.step in GAME_STEPS:
            action = action_of(msgs)
        self.last_action = action
        self.last_outcome = NOTHING
        g = self.game
        if action is not None and g is None:
            raise IllegalMove("an action before the deal was complete")
        try:
            for m in msgs:
                # Signed by event.seat's identity key, checked above (our own need no check).
                out += self.player.receive(m, signed=True, adopt=adopt, defer=defer)
        except RemoteProtocolError as e:
            raise refusal(e, "card privacy") from None
        self._seen += len(msgs)
        if action is not None:
            assert g is not None
            try:
                outcome = self.last_outcome = g.apply(action)
            except IllegalAction as e:
                raise IllegalMove(f"the host relayed an illegal action: {e}", rule=e.rule) from None
            refill = refill_due(outcome)
            if refill is not None:
                self._due.append(("refill", *refill))
            back = return_due(outcome)
            if back is not None:
                self._due.append(("return", back))
            if g.result is not None and not self.revealed:
                self._due.append(("reveal",))
        self._drain()
        self.changed = True
        signed = early + self._send(out)
        if not defer:
            signed += self.flush()
        return signed

    def unverified_waiting(self) -> bool:
        """Whether a shuffle stage, a card proof or a strip of a dealt chunk waits for
        `verify_ahead` (before our hand is decoded only shuffle stages do: nothing else
        competes with the deal)."""
        t = self.player.t
        if self.player.shuffles_waiting():
            return True
        if not self.hand_decoded():
            return False
        return bool(t.deferred_plays) or t.next_unverified() is not None

    def verify_ahead(self) -> bool:
        """Verify, while the table is quiet, the shuffle stages `receive` deferred (all that
        wait, as one combination), or else one card proof it deferred, or else one
        strip of a dealt chunk that nobody has checked here yet (another seat's hand,
        usually): a play from it then costs one proof instead of its whole chain.  Returns
        whether more wait.  Raises `IllegalMove` naming the seat whose proof or strip is
        wrong, as `receive` would have at the play."""
        t = self.player.t
        try:
            if self.player.shuffles_waiting():
                self.player.verify_shuffles()  # every waiting stage, as one combination
            elif not self.hand_decoded():
                return False
            elif t.deferred_plays:
                t.verify_deferred(limit=1)
            else:
                item = t.next_unverified()
                if item is None:
                    return False
                t.verify_stage(*item)
        except RemoteProtocolError as e:
            raise refusal(e, "card privacy") from None
        return self.unverified_waiting()

    @property
    def work_due(self) -> bool:
        """Whether `flush` has protocol work to do."""
        return bool(self._due)

    def flush(self) -> list[Signed]:
        """The protocol work the last action called for (see `receive`)."""
        due, self._due = self._due, []
        out: list[PMessage] = []
        try:
            for item in due:
                if item[0] == "refill":
                    _, seats, taker, taken = item
                    batch = len(self.player.t.schedule.batches)
                    self.player.expect_refill(seats, None if taker < 0 else taker, taken)
                    table = self.player.t.on_table if taken is None else taken
                    cards = () if taker < 0 else tuple(int(c) for c in table)
                    out += self.player.receive(Refill(0, batch, tuple(seats), taker, cards))
                    self._seen += 1
                elif item[0] == "return":
                    back = item[1]
                    self.player.expect_return(*back)
                    out += self.player.receive(Return(0, *back))
                    self._seen += 1
                elif not self.revealed:
                    # Every card proof checked before the game is over for us.
                    self.player.t.verify_deferred()
                    self.revealed = True
                    out.append(self.player.reveal())
        except RemoteProtocolError as e:
            raise refusal(e, "card privacy") from None
        self._drain()
        return self._send(out)

    def _drain(self) -> None:
        while (e := self.player.next_event()) is not None:
            if isinstance(e, HandDealt):
                if e.batch == 0:
                    self._hand0 = e.cards
                else:
                    self._pending_draws += e.cards
            elif isinstance(e, CardTurned):
                self._turned = e
            elif isinstance(e, FirstAttacker):
                self._first = e
            elif isinstance(e, KeysRevealed):
                self.keys_revealed = True
        if self.game is None:
            self._maybe_begin()
        if self.game is not None and self._pending_draws:
            self.game.learn_draws(self.seat, self._pending_draws)
            self._pending_draws = []

    def _maybe_begin(self) -> None:
        """Build our engine once our hand, the trump and the first attacker are known."""
        if self._hand0 is None:
            return
        built = begin_game(
            self.started, self.setup, self.player.t, self._first, self.seat, self.player.cards()
        )
        if built is not None:
            self.game = built

    def reveal_now(self) -> list[Signed]:
        """The game was ended for us (a seat forfeited): reveal our key for the audit."""
        early = self.flush() if self._due else []
        if self.revealed:
            return early
        self.revealed = True
        return early + self._send([self.player.reveal()])

    def result(self) -> GameResult | None:
        return None if self.game is None else self.game.result

    def freeze(self) -> bytes:
        """Everything but the signing key and the source of randomness (a snapshot holds
        no code: `thaw` is given both again), for the client's file (0600, data dir)."""
        # The seat's copy of the privacy log is never read again (the host's transcript is the
        # record); leaving it out makes saving several times cheaper.
        # Nor is the seat engine's action log (the host's journal is the record).
        signer, self.signer = self.signer, None  # type: ignore[assignment]
        rng, self.player._rng = self.player._rng, None  # type: ignore[assignment]
        log, self.player.t.log = self.player.t.log, []
        # What we sent and have not seen relayed: our shuffle stage (9 KB at 52 cards) by its
        # digest, since the caller saves its signed copy too (a bot's pending steps, a
        # client's unacknowledged ones) and sends that again.
        sent, self.player._sent = self.player._sent, self.player.lean_sent()
        # A shuffle stage's proof, once verified, is never read by a seat again (the host's
        # transcript carries it into the record): half of a seat's snapshot was these proofs.
        # So are the proofs of strips it verified, and those of "not me" claims (R-F1) once
        # checked: a seat's snapshot stays within its 32 KB at 6 x 52.
        t = self.player.t
        proofs, strip_proofs, claims = t.shuffle_proofs, t.proofs, t.claims
        t.shuffle_proofs = [
            b"" if j in t.shuffles_verified else proof for j, proof in enumerate(proofs)
        ]
        t.proofs = {
            key: [b"" if (key, d) in t.verified else p for d, p in enumerate(chain)]
            for key, chain in strip_proofs.items()
        }
        t.claims = [dataclasses.replace(a, proof=b"") for a in claims]
        # And the intermediate decks and strip values no check will read again: a check reads
        # a step and the one before it, a strip or a deal the last one.
        decks, stages = t.decks, t.stages
        t.decks = _lean(decks, {j for j in range(len(decks)) if j not in t.shuffles_verified})
        t.stages = {
            key: _lean(chain, {d + 1 for d in range(len(chain) - 1) if (key, d) not in t.verified})
            for key, chain in stages.items()
        }
        actions: list[Action] = []
        if self.game is not None:
            actions, self.game.log = self.game.log, []
        # The deck's tables follow from the setup (`Transcript.__setstate__` makes them
        # again): a third of the objects a seat's save encoded.
        tables = {name: t.__dict__.pop(name) for name in DECK_TABLES}
        try:
            return snapshot.dumps(self, kind="seat", classes=SNAPSHOT_CLASSES)
        finally:
            t.__dict__.update(tables)
            self.signer = signer
            self.player._rng = rng
            self.player.t.log = log
            self.player._sent = sent
            t.shuffle_proofs, t.proofs, t.claims = proofs, strip_proofs, claims
            t.decks, t.stages = decks, stages
            if self.game is not None:
                self.game.log = actions

    @staticmethod
    def thaw(data: bytes, signer: Signer, rng: RandomBytes) -> SeatGame:
        """A seat from `freeze`; `snapshot.SnapshotError` (a ValueError) for an old pickle,
        another version's snapshot or a damaged one."""
        seat = snapshot.loads(data, kind="seat", classes=SNAPSHOT_CLASSES)
        if not isinstance(seat, SeatGame):
            raise ValueError("not a saved seat")
        seat.signer = signer
        seat.player._rng = rng
        seat.log_complete = False  # the privacy log was not saved: no audit of our own
        seat.__dict__.setdefault("_unrelayed", {})  # saved by a version without it
        seat.__dict__.setdefault("_seen", 0)  # likewise: a lower bound all the same
        return seat


SNAPSHOT_CLASSES: tuple[type[Any], ...] = (SeatGame, Signed, Counters)
"""This module's classes a saved seat holds (`protocol.snapshot`)."""


def _lean(steps: list[tuple[Any, ...]], unchecked: set[int]) -> list[tuple[Any, ...]]:
    """``steps`` with every step emptied that no check reads again: a check of step ``j``
    reads steps ``j - 1`` and ``j``; the last step is always read (the next strip, the deal)."""
    keep = {len(steps) - 1} | unchecked | {j - 1 for j in unchecked}
    return [step if j in keep else () for j, step in enumerate(steps)]
