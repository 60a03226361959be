"""The card-privacy protocol's two roles, each a sans-I/O state machine (docs/privacy.md).

* `Player` — one seat.  Holds the seat's key; ``receive(msg)`` returns the messages to send
  (to the host); ``next_event()`` gives what the application must know (privacy/events.py).
* `Host` — sequences and relays: ``receive(sender, msg)`` returns ``(seat, msg)`` pairs to
  deliver; it verifies every proof (at once, or in ``verify_pending`` beside the relaying) and
  records refused messages.  It holds no secret: the host's own seat is a `Player` like the
  others.

Both keep a `Transcript` (privacy/transcript.py).  Messages come in only through ``receive``;
nothing here reads a clock, a socket or a random source it was not given.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgpack

from ...game.cards import CARDS, Card
from ..errors import LocalProtocolError, RemoteProtocolError
from .cardpoints import CARD_POINTS
from .events import (
    Acted,
    CardPlayed,
    CardTurned,
    Event,
    GameStarted,
    HandDealt,
    KeysRevealed,
    TrumpCardDrawn,
)
from .group import GROUP, InvalidPoint, Point, RandomBytes, Scalar
from .messages import (
    Act,
    Answer,
    Commit,
    KeyReveal,
    Message,
    Nonce,
    Play,
    Refill,
    Return,
    Seed,
    Shuffle,
    Strip,
)
from .notme import not_me_prove
from .proofs import batch_dleq_prove, dleq_prove, schnorr_prove
from .record import transcript_to_dict
from .schedule import PUBLIC, Chunk, Setup
from .shuffle import shuffle_prove
from .transcript import (
    SEED_BYTES,
    BadDecode,
    Transcript,
    seed_commitment,
    shuffle_digest,
    signed_action,
    strip_step,
)


@dataclass(frozen=True, slots=True)
class Echo:
    """A message we sent, kept by its digest alone until its echo comes (`Player.lean_sent`):
    a saved seat held its own shuffle stage twice, here and in the steps it had signed and
    not seen relayed, about 9 KB each at 52 cards."""

    digest: bytes

    @staticmethod
    def of(msg: Message) -> Echo:
        return Echo(hashlib.sha256(msgpack.packb(msg.to_dict(), use_bin_type=True)).digest())


class Player:
    """One seat of the protocol: keeps the seat's key and hand, answers the host."""

    def __init__(self, setup: Setup, seat: int, rng: RandomBytes) -> None:
        if not 0 <= seat < setup.seats:
            raise LocalProtocolError(f"seat {seat} is not at the table")
        self.setup = setup
        self.seat = seat
        self.t = Transcript(setup)
        self._rng = rng
        # Fresh keys every game (the audit reveals them); scalar_reduce(64 bytes), never zero.
        self._k = GROUP.random_scalar(rng)
        self._kinv = GROUP.scalar_invert(self._k)
        self.key = GROUP.mul_base(self._k)
        self.hand: dict[int, Card] = {}
        """position -> card this seat holds (decoded or face-up), not yet played."""
        self._events: deque[Event] = deque()
        self._expected_refills: deque[tuple[tuple[int, ...], int, frozenset[int] | None]] = deque()
        self._next_index = 0
        self._started = False
        self._answered: set[int] = set()
        self._reported_first = False
        self._dealt_batches: set[int] = set()
        self._sent: list[Message | Echo] = []
        self._expected_returns: deque[tuple[tuple[int, ...], tuple[int, ...]]] = deque()
        self._seed = b""

    # --- the application's side --------------------------------------------------------

    def start(self) -> list[Message]:
        """Step 0: our nonce for the game id: the commitment to our secret seed (step 2b)."""
        if self._started:
            raise LocalProtocolError("the protocol has already started")
        self._started = True
        self._seed = self._rng(SEED_BYTES)
        return self._send([Nonce(self.seat, seed_commitment(self.seat, self._seed))])

    def next_event(self) -> Event | None:
        return self._events.popleft() if self._events else None

    def shuffles_waiting(self) -> bool:
        """Whether shuffle stages wait for their check (`verify_shuffles`, at a quiet moment
        of a caller that receives with ``defer``)."""
        return bool(self.t.unverified_shuffles())

    def verify_shuffles(self) -> None:
        """Check every shuffle stage that waits, as one combination; `Cheated` names the
        first bad stage's shuffler."""
        self.t.verify_shuffles()

    def cards(self) -> list[Card]:
        """Every card in our hand: dealt and drawn (decoded or face-up) and taken."""
        taken = [c for c, s in self.t.taken.items() if s == self.seat]
        return [*self.hand.values(), *taken]

    def expect_refill(
        self, seats: Sequence[int], taker: int | None = None, taken: Sequence[int] | None = None
    ) -> None:
        """The bout is over: our own engine's refill schedule (``Game.refill_schedule()``),
        who took (None: beaten off) and which cards (None: the whole table, R-B8).  A Refill
        from the host that differs is refused (no decryption oracle)."""
        self._expected_refills.append(
            (
                tuple(seats),
                -1 if taker is None else taker,
                None if taken is None else frozenset(taken),
            )
        )

    def expect_return(self, cards: Sequence[int], owners: Sequence[int]) -> None:
        """R-S3: our own engine put these cards from the table back into these hands."""
        self._expected_returns.append((tuple(int(c) for c in cards), tuple(owners)))

    def play(self, card: Card, action: Mapping[str, Any], *, shown: bool = False) -> Play:
        """Step 5: play (or show) ``card`` from our hand, signing ``action`` with the proof."""
        positions = [p for p, c in self.hand.items() if c == card]
        if positions:
            p = positions[0]
        elif self.t.taken.get(card) == self.seat:
            p = -1
        else:
            raise LocalProtocolError(f"{card} is not in our hand")
        index = self._next_index
        self._next_index += 1
        step = "show" if shown else "play"
        ctx = self.t.ctx(self.seat, step, (p,) if p >= 0 else (), signed_action(index, action))
        if p < 0 or p in self.t.public:
            proof = schnorr_prove(self._rng, self._k, self.key, ctx)
        else:
            _, z = self.t.position_value(p)
            proof = dleq_prove(self._rng, self._k, self.key, CARD_POINTS[card], z, ctx)
        play = Play(self.seat, index, p, int(card), shown, dict(action), proof)
        self._sent.append(play)
        return play

    def act(self, action: Mapping[str, Any]) -> Act:
        """An action without a card, signed."""
        index = self._next_index
        self._next_index += 1
        ctx = self.t.ctx(self.seat, "act", (), signed_action(index, action))
        act = Act(self.seat, index, dict(action), schnorr_prove(self._rng, self._k, self.key, ctx))
        self._sent.append(act)
        return act

    def reveal(self) -> KeyReveal:
        """Step 7: the game is over (or aborted): publish our key for the audit."""
        reveal = KeyReveal(self.seat, self._k)
        self._sent.append(reveal)
        return reveal

    # --- messages from the host -----------------------------------------------------------

    def _send(self, msgs: list[Message]) -> list[Message]:
        self._sent.extend(msgs)
        return msgs

    def receive(
        self, msg: Message, *, signed: bool = False, adopt: bool = False, defer: bool = False
    ) -> list[Message]:
        """Take one message relayed by the host; return the messages we send in reply.
        ``signed``: its sender's identity signature was checked (`Transcript.accept`).
        ``adopt``: a play or act of ours that we do not remember sending (we were restored
        from a save older than it), whose identity signature by our own key the caller has
        checked: it is ours, checked as any other seat's, and our action numbers go on
        after it.  ``defer``: see `Transcript.accept`."""
        return self._send(self._receive(msg, signed, adopt, defer))

    def remembers(self, msg: Message) -> bool:
        """``msg`` is one we sent and have not seen relayed yet."""
        return self._sent_at(msg) is not None

    def forget(self, msg: Message) -> None:
        """``msg`` was refused by the host: it will never be relayed."""
        at = self._sent_at(msg)
        if at is not None:
            del self._sent[at]

    @property
    def unechoed(self) -> tuple[Message | Echo, ...]:
        """What we sent and have not seen relayed yet, oldest first (an `Echo` for what a
        seat restored from its save holds by digest)."""
        return tuple(self._sent)

    def _sent_at(self, msg: Message) -> int | None:
        """Where ``msg`` is among what we sent and have not seen relayed (as itself, or as its
        `Echo` in a seat restored from its save), or None."""
        for k, m in enumerate(self._sent):
            if m == msg:
                return k
        if any(isinstance(m, Echo) for m in self._sent):
            echo = Echo.of(msg)
            for k, m in enumerate(self._sent):
                if m == echo:
                    return k
        return None

    def lean_sent(self) -> list[Message | Echo]:
        """What we sent and have not seen relayed, for a save: our game actions as they are
        (the seat's list of unrelayed steps holds the same objects), every other message by
        its `Echo` (the seat's signed copy of it is saved beside it)."""
        return [m if isinstance(m, Play | Act | Echo) else Echo.of(m) for m in self._sent]

    @property
    def secret(self) -> Scalar:
        """This seat's secret key k for the game (every seat reveals it at the end, for the
        audit): for tools and tests that prove something as this seat."""
        return self._k

    @property
    def secret_inverse(self) -> Scalar:
        """k⁻¹, what removes this seat's layer (see `secret`)."""
        return self._kinv

    @property
    def seed(self) -> bytes:
        """The secret seed our step 0 committed to (revealed after the last shuffle)."""
        return self._seed

    def _receive(
        self, msg: Message, signed: bool = False, adopt: bool = False, defer: bool = False
    ) -> list[Message]:
        own = msg.seat == self.seat and not isinstance(msg, Refill | Return)
        at = self._sent_at(msg) if own else None
        if own and adopt and isinstance(msg, Play | Act) and at is None:
            own = False  # verified below like another seat's step
            self._next_index = max(self._next_index, msg.index + 1)
        elif own:
            # Our own message, echoed in the host's order: it must be one we sent (the host
            # cannot speak for us), and then it needs no verification.
            if at is None:
                raise RemoteProtocolError(
                    None, f"the host relayed a {msg.KIND} message in our name that we did not send"
                )
            del self._sent[at]
        if isinstance(msg, Refill):
            self._check_refill(msg)
        elif isinstance(msg, Return):
            expected = self._expected_returns.popleft() if self._expected_returns else None
            if expected != (tuple(msg.cards), tuple(msg.owners)):
                raise RemoteProtocolError(
                    None, "the host returned cards to hands that our own engine did not (R-S3)"
                )
        # The stage before ours: we prove our own stage first and check this one after sending
        # it (`verify_shuffles`), so the checks of stage j overlap the making of stage j+1.
        # ``defer`` (a caller that checks at quiet moments, `Player.shuffles_waiting`): every
        # stage waits for one, or for the step that needs it checked (our own stage needs
        # every earlier one but the last, our seed all of them); stages that waited together
        # are checked as one combination (`Transcript.verify_shuffles`).
        next_ours = isinstance(msg, Shuffle) and msg.seat == self.seat - 1
        chunk = self.t.accept(
            msg,
            verify=not own,
            signed=signed,
            defer=defer,
            defer_shuffle=next_ours or (defer and isinstance(msg, Shuffle)),
        )
        out: list[Message] = []
        if isinstance(msg, Nonce):
            if self.t.game_id is not None:
                self._events.append(GameStarted(self.t.game_id))
                ctx = self.t.ctx(self.seat, "commit")
                out.append(
                    Commit(self.seat, self.key, schnorr_prove(self._rng, self._k, self.key, ctx))
                )
        elif isinstance(msg, Commit):
            if self.t.all_committed() and self.seat == 0:
                out.append(self._shuffle(self.t.deck_points))
        elif isinstance(msg, Shuffle):
            if next_ours:
                # Every stage before the one we shuffle, checked before we take this step.
                self.t.verify_shuffles(upto=msg.seat)
                out.append(self._shuffle(msg.deck))
            elif not defer:
                self.t.verify_shuffles()  # the stage we deferred, and this one
            if self.t.shuffled is not None:
                # Step 2b: every stage is fixed and proven, our seed may be known now.
                self.t.verify_shuffles()
                out.append(Seed(self.seat, self._seed))
        elif isinstance(msg, Seed):
            if self.t.final_deck is not None:
                out += self._begin_batch(0)
        elif isinstance(msg, Refill):
            out += self._begin_batch(msg.batch)
            sched = self.t.schedule
            if sched.turned_batch == msg.batch and self.setup.turned_position is not None:
                # R-B12: the face-up trump card (R-D2) is the last card drawn; it is public.
                p = self.setup.turned_position
                card = self.t.public[p]
                self._events.append(TrumpCardDrawn(sched.holder[p], card))
                if sched.holder[p] == self.seat:
                    self.hand[p] = card
        elif isinstance(msg, Strip):
            assert chunk is not None
            if own:
                self.t.mark_verified(chunk, self.t.done_strips(chunk) - 1)
            out += self._after_strip(chunk)
        elif isinstance(msg, Answer):
            out += self._rf1()
        elif isinstance(msg, Play):
            card = CARDS[msg.card]
            if msg.seat == self.seat and not msg.shown:
                self.hand.pop(msg.position, None)
            self._events.append(CardPlayed(msg.seat, card, msg.shown, msg.action))
        elif isinstance(msg, Act):
            self._events.append(Acted(msg.seat, msg.action))
        elif isinstance(msg, KeyReveal) and all(k is not None for k in self.t.revealed):
            self._events.append(KeysRevealed())
        return out

    def _check_refill(self, msg: Refill) -> None:
        expected = self._expected_refills[0] if self._expected_refills else None
        if expected is not None and expected[2] is None:
            table = frozenset(self.t.on_table) if expected[1] >= 0 else frozenset()
            expected = (expected[0], expected[1], table)
        if expected != (tuple(msg.seats), msg.taker, frozenset(msg.taken)):
            raise RemoteProtocolError(
                None,  # the host's message: its seat field does not name who hosts
                f"the host asked for a refill to seats {list(msg.seats)} that our own engine "
                "did not schedule (refused: no decryption oracle)",
            )
        self._expected_refills.popleft()

    # --- steps ----------------------------------------------------------------------------

    def _shuffle(self, deck: Sequence[Point]) -> Shuffle:
        """Step 2: deck_j = π_j(k_j·deck_{j−1}); the multiplication validates every point."""
        prev = self.seat - 1
        try:
            layered = [GROUP.mul(self._k, p, "a card of the shuffled deck") for p in deck]
        except InvalidPoint as e:
            raise RemoteProtocolError(prev if prev >= 0 else None, str(e)) from None
        # Fisher–Yates with our random source; 8 random bytes per draw keeps the bias < 2^-56.
        # perm[i] is the input position stage slot i holds.
        perm = list(range(len(layered)))
        for i in range(len(layered) - 1, 0, -1):
            j = int.from_bytes(self._rng(8), "little") % (i + 1)
            layered[i], layered[j] = layered[j], layered[i]
            perm[i], perm[j] = perm[j], perm[i]
        return self._signed_shuffle(deck, tuple(layered), perm)

    def _signed_shuffle(
        self, before: Sequence[Point], after: tuple[Point, ...], perm: Sequence[int]
    ) -> Shuffle:
        proof = shuffle_prove(
            self._rng, self._k, self.key, before, after, perm, self.t.shuffle_ctx(self.seat)
        )
        ctx = self.t.ctx(self.seat, "shuffle", (), shuffle_digest(before, after, proof))
        signature = schnorr_prove(self._rng, self._k, self.key, ctx)
        return Shuffle(self.seat, after, signature, proof)

    def _begin_batch(self, batch: int) -> list[Message]:
        out: list[Message] = []
        for chunk in self.t.schedule.batches[batch]:
            out += self._after_strip(chunk)
        return out

    def _after_strip(self, chunk: Chunk) -> list[Message]:
        """Whatever the chunk's new stage asks of us: strip it (our turn in its route),
        decode it (ours, complete), or read it (public, complete)."""
        d = self.t.done_strips(chunk)
        if d < len(chunk.route):
            if chunk.route[d] != self.seat:
                return []
            # No decryption oracle: the values we strip are the schedule's positions taken from
            # the transcript, and every earlier strip of them is verified first.
            self.t.verify_chain(chunk)
            return [self._strip(chunk, d)]
        if chunk.owner == self.seat:
            self.t.verify_chain(chunk)
            self._decode(chunk)
        elif chunk.owner == PUBLIC:
            self.t.decode_public(chunk)
            assert self.t.turned is not None
            holder = None if self.setup.trump_in_stock else self.setup.dealer
            self._events.append(CardTurned(self.t.turned, holder))
            if holder == self.seat:
                (p,) = chunk.positions
                self.hand[p] = self.t.turned
        return self._rf1()

    def _strip(self, chunk: Chunk, d: int) -> Strip:
        inputs = self.t.stages[chunk.key][d]
        source = chunk.route[d - 1] if d else self.setup.seats - 1
        try:
            outputs = tuple(GROUP.mul(self._kinv, x, "a dealt card") for x in inputs)
        except InvalidPoint as e:
            raise RemoteProtocolError(source, str(e)) from None
        ctx = self.t.ctx(self.seat, strip_step(chunk), chunk.positions)
        proof = batch_dleq_prove(self._rng, self._k, self.key, outputs, inputs, ctx)
        return Strip(self.seat, chunk.batch, chunk.owner, chunk.positions, outputs, proof)

    def _decode(self, chunk: Chunk) -> None:
        """Our own chunk, every other layer removed: remove ours and look the card up."""
        cards: list[Card] = []
        for p, z in zip(chunk.positions, self.t.final_values(chunk), strict=True):
            try:
                value = GROUP.mul(self._kinv, z)
            except InvalidPoint as e:  # cannot pass a verified chain; named if it ever did
                raise RemoteProtocolError(chunk.route[-1], str(e)) from None
            card = self.t.card_of(value)
            if card is None or card in self.hand.values() or card in self.t.public.values():
                # Cannot happen after the proofs of shuffle and of every layer removal (all
                # checked by now); a last guard.  We prove what we saw without our key: a
                # DLEQ that z = k·value (privacy.md "Blame goes to the cheater"), so nobody can
                # blame us for it.
                ctx = self.t.ctx(self.seat, f"bad-decode/{p}", (p,))
                proof = dleq_prove(self._rng, self._k, self.key, value, z, ctx)
                raise BadDecode(p, value, proof)
            self.hand[p] = card
            cards.append(card)
        self._dealt_batches.add(chunk.batch)
        self._events.append(HandDealt(chunk.batch, tuple(cards)))

    def _rf1(self) -> list[Message]:
        """R-F1: answer the rank asked about now, once our hand and the trump are known."""
        t = self.t
        if t.first_attacker is not None and not self._reported_first:
            self._reported_first = True
            self._events.append(t.first_attacker)
            return []
        rank = t.rf1_rank()
        if rank is None or rank in self._answered or 0 not in self._dealt_batches:
            return []
        self._answered.add(rank)
        assert t.trump_suit is not None
        card = Card.of(rank, t.trump_suit)
        held = [p for p, c in self.hand.items() if c == card]
        if held:
            (p,) = held
            _, z = t.position_value(p)
            ctx = t.ctx(self.seat, f"show-lowest/{rank}", (p,))
            proof = dleq_prove(self._rng, self._k, self.key, CARD_POINTS[card], z, ctx)
            return [Answer(self.seat, rank, p, int(card), proof)]
        # "Not me": signed, and proven for every card the deal gave us face down
        # (privacy/notme.py).
        ctx = t.ctx(self.seat, f"not-me/{rank}")
        parts = [schnorr_prove(self._rng, self._k, self.key, ctx)]
        m = CARD_POINTS[card]
        km = GROUP.mul(self._k, m)
        for q in t.hidden_deal_positions(self.seat):
            _, z = t.position_value(q)
            qctx = t.ctx(self.seat, f"not-me/{rank}", (q,))
            parts.append(not_me_prove(self._rng, self._k, self.key, km, m, z, qctx))
        return [Answer(self.seat, rank, -1, -1, b"".join(parts))]


# --- the host -------------------------------------------------------------------------------

Outgoing = tuple[int, Message]
"""(destination seat, message)."""


class Host:
    """Sequences, relays and verifies; keeps the transcript the game record carries.

    Collected steps (nonces, commitments, seeds, each R-F1 rank, keys) are broadcast only when every
    seat has sent its part, so nobody answers after seeing the others.  Shuffle stages go to
    everybody (each checks every stage has D distinct points); everything is relayed to
    everybody, the sender included: the host's order is the game's order."""

    def __init__(
        self,
        setup: Setup,
        *,
        defer_verification: bool = False,
        own_seat: Player | None = None,
    ) -> None:
        self.setup = setup
        self.t = Transcript(setup)
        self.defer = defer_verification
        if own_seat is not None:
            # The host's own seat runs on the same machine: a proof either of them has checked
            # (against the same relayed values) is not checked twice.
            self.t.verified = own_seat.t.verified
            self.t.shuffles_verified = own_seat.t.shuffles_verified
        self.refused: list[dict[str, Any]] = []
        self._pending: list[tuple[Chunk, int] | tuple[None, int]] = []
        self._held: list[Message] = []

    def _everyone(self, msg: Message) -> list[Outgoing]:
        return [(s, msg) for s in range(self.setup.seats)]

    def receive(self, sender: int, msg: Message) -> list[Outgoing]:
        """Take one message from seat ``sender``; return what to deliver to whom."""
        try:
            if msg.seat != sender:
                raise RemoteProtocolError(sender, f"sent a message in the name of seat {msg.seat}")
            if isinstance(msg, Refill | Return):
                raise RemoteProtocolError(sender, "only the host ends a bout or returns cards")
            out = self._receive(msg)
            if not self.defer:
                self.verify_pending()
            return out
        except RemoteProtocolError as e:
            if not e.recorded:
                self.refused.append({"seat": e.seat, "reason": e.reason, "message": msg.to_json()})
            raise

    def _receive(self, msg: Message) -> list[Outgoing]:
        t = self.t
        rank_before = (t.rf1_step, t.first_attacker)
        chunk = t.accept(msg, defer_shuffle=self.defer)
        if isinstance(msg, Nonce | Commit | Seed | KeyReveal | Answer):
            self._held.append(msg)
            done = (
                (isinstance(msg, Nonce) and t.game_id is not None)
                or (isinstance(msg, Seed) and t.final_deck is not None)
                or (isinstance(msg, Commit) and t.all_committed())
                or (isinstance(msg, KeyReveal) and all(k is not None for k in t.revealed))
                or (isinstance(msg, Answer) and (t.rf1_step, t.first_attacker) != rank_before)
            )
            if not done:
                return []
            held, self._held = self._held, []
            return [(s, m) for m in held for s in range(self.setup.seats)]
        if isinstance(msg, Shuffle):
            self._pending.append((None, len(t.decks) - 1))
            return self._everyone(msg)
        if isinstance(msg, Strip):
            assert chunk is not None
            self._pending.append((chunk, t.done_strips(chunk) - 1))
            return self._everyone(msg)
        return self._everyone(msg)

    def refill(
        self, seats: Sequence[int], taker: int | None = None, taken: Sequence[int] | None = None
    ) -> list[Outgoing]:
        """End a bout and start its refill batch (R-B12), from the host's own engine:
        ``seats`` one per card drawn, ``taker`` the defender who took (None: beaten off),
        ``taken`` the cards he took (None: the whole table; R-P5 takes only the uncovered)."""
        if taker is None:
            cards: tuple[int, ...] = ()
        elif taken is None:
            cards = tuple(self.t.on_table)
        else:
            cards = tuple(int(c) for c in taken)
        msg = Refill(
            0, len(self.t.schedule.batches), tuple(seats), -1 if taker is None else taker, cards
        )
        try:
            self.t.accept(msg)
        except RemoteProtocolError as e:
            raise LocalProtocolError(str(e)) from None
        return self._everyone(msg)

    def return_cards(self, cards: Sequence[int], owners: Sequence[int]) -> list[Outgoing]:
        """R-S3, from the host's own engine: cards go back from the table to these hands."""
        msg = Return(0, tuple(int(c) for c in cards), tuple(owners))
        try:
            self.t.accept(msg)
        except RemoteProtocolError as e:
            raise LocalProtocolError(str(e)) from None
        return self._everyone(msg)

    @property
    def pending(self) -> int:
        """How many relayed steps wait for `verify_pending`."""
        return len(self._pending)

    def verify_pending(self, limit: int | None = None) -> None:
        """Verify what was relayed unverified: strip proofs, and each shuffle's proof of
        shuffle (so a bad stage is pinned on its shuffler before anything is dealt).  At most
        ``limit`` steps (all by default), so that a host can do it between commands."""
        t = self.t
        done = 0
        while self._pending and (limit is None or done < limit):
            done += 1
            chunk, d = self._pending.pop(0)
            try:
                if chunk is None:
                    # Its proof (which validates every point of the stage), with every other
                    # stage relayed meanwhile, as one combination (`verify_shuffles`).
                    while self._pending and self._pending[0][0] is None:
                        self._pending.pop(0)
                    t.verify_shuffles()
                else:
                    t.verify_stage(chunk, d)
                    if (
                        t.complete(chunk)
                        and chunk.owner == PUBLIC
                        and chunk.positions[0] not in t.public
                    ):
                        t.decode_public(chunk)
            except InvalidPoint as e:
                self.refused.append({"seat": d, "reason": str(e), "message": None})
                err = RemoteProtocolError(d, str(e))
                err.recorded = True
                raise err from None
            except RemoteProtocolError as e:
                self.refused.append({"seat": e.seat, "reason": e.reason, "message": None})
                e.recorded = True
                raise

    def transcript(self) -> dict[str, Any]:
        """The game record's ``"privacy"`` value (see localdurak.protocol.privacy.record)."""
        return transcript_to_dict(self.setup, self.t.log, self.refused)
