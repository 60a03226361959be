"""The public state of one game under card privacy (docs/privacy.md): `Transcript`.

It keeps the accepted messages, the shuffle stages, every chunk's strip stages, plays and claims.
``accept(msg)`` checks a message against it (the schedule, the proofs) and raises
`RemoteProtocolError` naming the seat at fault.  Every role keeps one (privacy/roles.py); the
audit replays a game record's log into a fresh one (privacy/audit.py).

Nothing here reads a clock, a socket or a random source it was not given.

Its length (over 700 lines) is one state machine: every message kind's check reads and
writes the same stages, chunks and claims, and the deferred checks come back to them; the
pieces that stand alone (the group, proofs, schedule, messages, events) are modules already.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn

from ...game.cards import CARDS, Card, Suit, deck_cards
from ..errors import Cheated, LocalProtocolError, RemoteProtocolError
from .cardpoints import CARD_POINTS
from .events import FirstAttacker
from .group import GROUP, InvalidPoint, InvalidScalar, Point, Scalar
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
    canonical,
)
from .notme import PROOF_BYTES as NOT_ME_BYTES
from .notme import not_me_verify
from .proofs import (
    Context,
    batch_dleq_verify,
    dleq_verify,
    schnorr_verify,
)
from .schedule import JAPANESE_TRUMP, PUBLIC, Chunk, Schedule, ScheduleError, Setup
from .shuffle import proof_size, shuffle_verify, shuffle_verify_many

NONCE_BYTES = 32
SEED_BYTES = 32
_GAME_ID = b"localdurak/game-id/v1"
_SEED_COMMIT = b"localdurak/seed-commit/v1"
_DEAL_ORDER = b"localdurak/deal-order/v1"


def strip_step(chunk: Chunk) -> str:
    return f"strip/{chunk.batch}/{chunk.owner}"


_CARD_ACTIONS = frozenset({"attack", "cover", "transfer", "show"})
"""The actions (records.md ``do``) that put a card on the table or show it: `Play` only."""


def _is_card_action(action: Mapping[str, Any]) -> bool:
    do = action.get("do")
    return isinstance(do, str) and do in _CARD_ACTIONS


def _names(action: Mapping[str, Any], card: Card) -> bool:
    """Whether a signed action (records.md form) plays or shows ``card``."""
    if not _is_card_action(action):
        return False
    cards = action.get("cards")
    return action.get("card") == str(card) or (isinstance(cards, list) and str(card) in cards)


def shuffle_digest(before: Sequence[Point], after: Sequence[Point], proof: bytes = b"") -> bytes:
    """What a shuffle stage's signature binds: its input stage, its output stage and, for a
    second-version proof of shuffle, the proof, so that the host cannot alter the proof of a
    signed stage and pin the failure on its shuffler.  (A first-version stage's signature
    covers the decks alone: in its records only the identity signature over the step binds
    the proof to its seat, and the audit asks for it.)  A proof of the other size is hashed
    as first-version: it cannot match what a second-version shuffler signed."""
    n = len(before)
    if n > 1 and len(proof) == proof_size(n):
        return hashlib.sha512(
            b"localdurak/shuffle/v2"
            + n.to_bytes(2, "little")
            + b"".join(before)
            + b"".join(after)
            + proof
        ).digest()
    return hashlib.sha512(
        b"localdurak/shuffle/v1"
        + len(before).to_bytes(2, "little")
        + b"".join(before)
        + b"".join(after)
    ).digest()


def seed_commitment(seat: int, seed: bytes) -> bytes:
    """Step 0: the nonce a seat sends is H(domain ‖ seat ‖ seed) of the seed it reveals after
    the last shuffle (the seat is bound in, so nobody can send another seat's commitment)."""
    return hashlib.sha256(_SEED_COMMIT + seat.to_bytes(1, "little") + seed).digest()


def deal_order(game_id: bytes, seeds: Sequence[bytes], size: int) -> tuple[int, ...]:
    """The public permutation from the shuffled deck to the dealt deck: dealt position p holds
    shuffled position ``order[p]``.  A Fisher–Yates shuffle driven by a SHA-512 stream keyed by
    H(every seed in seat order, game id): known to nobody before the last seed is revealed,
    which is after every shuffle stage is fixed (docs/privacy.md, step 2b)."""
    key = hashlib.sha512(
        _DEAL_ORDER + game_id + b"".join(len(x).to_bytes(1, "little") + x for x in seeds)
    ).digest()
    stream = b""
    counter = 0
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        if len(stream) < 8:
            stream += hashlib.sha512(key + counter.to_bytes(8, "little")).digest()
            counter += 1
        # 8 bytes per draw: the modulo bias is below 2^-56.
        j = int.from_bytes(stream[:8], "little") % (i + 1)
        stream = stream[8:]
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def signed_action(index: int, action: Mapping[str, Any]) -> bytes:
    try:
        return canonical({"index": index, "action": dict(action)})
    except (TypeError, ValueError, RecursionError):
        # Bytes, a set, a nesting too deep: nothing JSON can sign.  In `Transcript.accept` this
        # becomes the sender's fault, never a TypeError that escapes the state machine.
        raise LocalProtocolError("the action is not a JSON object, it cannot be signed") from None


class BadDecode(Cheated):
    """Our own layer removed, a position of our hand is no card of the deck (or a card twice):
    some stage or layer removal was dishonest — which, the keys tell (the audit).  Carries the
    evidence, a DLEQ that the position's value is ``k·value`` under our committed key, so the
    seat that saw it proves it without revealing its key (`check_bad_decode`)."""

    def __init__(self, position: int, value: Point, proof: bytes) -> None:
        super().__init__(
            None,
            f"our card at position {position} is not a card of the deck: a shuffle or a layer "
            "removal was dishonest (the audit, with the keys, names the seat)",
        )
        self.position = position
        self.value = value
        self.proof = proof


def check_bad_decode(t: Transcript, seat: int, position: int, value: Point, proof: bytes) -> bool:
    """Whether ``seat`` proved that its layer over ``position`` hides ``value`` and that
    ``value`` is no card of the deck (its claim of a bad decode holds)."""
    try:
        if t.schedule.holder.get(position) != seat or t.card_of(value) is not None:
            return False
        _, z = t.position_value(position)
        ctx = t.ctx(seat, f"bad-decode/{position}", (position,))
        return dleq_verify(t.key_of(seat), value, z, proof, ctx)
    except (RemoteProtocolError, LocalProtocolError):
        return False


# --- the public state -----------------------------------------------------------------------


@contextmanager
def blamed(seat: int, kind: str) -> Iterator[None]:
    """A check of ``seat``'s ``kind`` message that fails is that seat's fault."""
    try:
        yield
    except (InvalidPoint, InvalidScalar) as e:
        raise RemoteProtocolError(seat, f"{kind}: {e}") from None
    except LocalProtocolError as e:
        # Only a message can drive the transcript: a check that cannot run yet (no game id,
        # no commitment, a position still on its ring pass) is the sender's fault.
        raise RemoteProtocolError(seat, f"{kind} out of its step: {e}") from None


DECK_TABLES = ("deck", "deck_points", "_in_deck")
"""A transcript's tables that follow from its setup alone (`Transcript._deck_tables`)."""


class Transcript:
    """The public state of one game under card privacy, built from accepted messages."""

    _checked_upto: tuple[int, int] = (0, 0)
    """`next_unverified`'s cursor: (batch, chunk) before which all is verified."""
    deferred_plays: list[tuple[int, int, Card, Context, bytes]]
    """Card proofs `accept` was asked to defer: (seat, position, card, context, proof)."""

    def _deck_tables(self, setup: Setup) -> None:
        """The deck's cards, their points and the card of each point (`DECK_TABLES`)."""
        self.deck = deck_cards(setup.deck_size)
        self.deck_points: tuple[Point, ...] = tuple(CARD_POINTS[c] for c in self.deck)
        self._in_deck = {CARD_POINTS[c]: c for c in self.deck}

    def __setstate__(self, state: dict[str, Any]) -> None:
        state.setdefault("deferred_plays", [])  # saved by a version that deferred nothing
        # Saved by a version before proofs of shuffle: its stages were checked as they came.
        state.setdefault("shuffle_proofs", [b""] * len(state.get("decks", ())))
        state.setdefault("shuffles_verified", set(range(len(state.get("decks", ())))))
        state.setdefault("legacy_shuffles", False)
        state.setdefault("keep_evidence", True)
        self.__dict__.update(state)
        if any(name not in state for name in DECK_TABLES):
            # A seat's save leaves them out; all of them again (they follow from the setup),
            # so that a save with only some of them is whole too.
            self._deck_tables(self.setup)

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        n = setup.seats
        self.schedule = Schedule(setup)
        self._deck_tables(setup)
        self.nonces: list[bytes | None] = [None] * n
        self.game_id: bytes | None = None
        self.keys: list[Point | None] = [None] * n
        self.decks: list[tuple[Point, ...]] = []
        """Every shuffle stage, in seat order."""
        self.shuffle_proofs: list[bytes] = []
        """Each stage's proof of shuffle (privacy/shuffle.py)."""
        self.shuffles_verified: set[int] = set()
        """The stages whose proof of shuffle is checked (or that are our own)."""
        self.keep_evidence = True
        """Keep a signed stage whose proof of shuffle fails in the log (the record), as the
        evidence against its seat; the audit, which replays that log, does not."""
        self.legacy_shuffles = False
        """A record of format /2 (no proofs of shuffle): the audit judges stages by the keys."""
        self.seeds: list[bytes | None] = [None] * n
        self.order: tuple[int, ...] | None = None
        """`deal_order` of the revealed seeds: dealt position p is shuffled position order[p]."""
        self.dealt: tuple[Point, ...] | None = None
        self.stages: dict[tuple[int, int], list[tuple[Point, ...]]] = {}
        self.proofs: dict[tuple[int, int], list[bytes]] = {}
        self.verified: set[tuple[tuple[int, int], int]] = set()
        self.deferred_plays = []
        self.public: dict[int, Card] = {}
        """Positions everybody has seen decoded: the turned card (R-D2/R-D3)."""
        self.trump_suit: Suit | None = JAPANESE_TRUMP if setup.japanese else None
        self.turned: Card | None = None
        self.first_attacker: FirstAttacker | None = None
        self.rf1_plan: list[int] = []
        self.rf1_fallback: FirstAttacker | None = None
        self.rf1_step = 0
        self.answers: dict[int, Answer] = {}
        self.claims: list[Answer] = []
        self.played_positions: set[int] = set()
        """Dealt positions whose card has been played (each at most once)."""
        self.on_table: list[Card] = []
        """Cards played since the last bout ended."""
        self.discarded: set[Card] = set()
        self.taken: dict[Card, int] = {}
        """Cards a defender took (R-B8): public, in that seat's hand, played again by name."""
        self.shown_cards: set[Card] = set()
        self.last_index = [-1] * n
        self.revealed: list[Scalar | None] = [None] * n
        self.log: list[Message] = []
        self.audit_keys: dict[int, Scalar] = {}
        """The audit only: inverses of revealed keys, to check layer removals directly."""
        if setup.japanese:
            self._plan_rf1()  # R-D4: diamonds are trump from the start

    # --- queries ------------------------------------------------------------------------

    @property
    def n(self) -> int:
        return self.setup.seats

    @property
    def shuffled(self) -> tuple[Point, ...] | None:
        """The last shuffle stage, once every seat has shuffled."""
        return self.decks[-1] if len(self.decks) == self.n else None

    @property
    def final_deck(self) -> tuple[Point, ...] | None:
        """The deck the schedule deals from (deck positions in deal order): the last shuffle
        stage in the order every revealed seed fixes.  None until the last seed is in."""
        return self.dealt

    def all_committed(self) -> bool:
        return all(k is not None for k in self.keys)

    def key_of(self, seat: int) -> Point:
        y = self.keys[seat]
        if y is None:
            raise LocalProtocolError(f"seat {seat} has not committed yet")
        return y

    def done_strips(self, chunk: Chunk) -> int:
        return len(self.stages[chunk.key]) - 1

    def complete(self, chunk: Chunk) -> bool:
        return chunk.key in self.stages and self.done_strips(chunk) == len(chunk.route)

    def final_values(self, chunk: Chunk) -> tuple[Point, ...]:
        return self.stages[chunk.key][-1]

    def card_of(self, point: Point) -> Card | None:
        return self._in_deck.get(point)

    def ctx(
        self, seat: int, step: str, positions: tuple[int, ...] = (), extra: bytes = b""
    ) -> Context:
        if self.game_id is None:
            raise LocalProtocolError("no game id yet")
        return Context(self.game_id, seat, step, positions, extra)

    # --- accepting messages -------------------------------------------------------------

    def accept(
        self,
        msg: Message,
        *,
        verify: bool = True,
        signed: bool = False,
        defer: bool = False,
        defer_shuffle: bool = False,
    ) -> Chunk | None:
        """Check ``msg`` against the game so far and record it.  Returns the chunk a Strip
        advanced.  ``verify`` False skips proofs (a seat's own messages).

        ``signed``: the message came under its sender's identity signature, already checked
        (a relayed step, `localdurak.protocol.signing.verify_action`).  Then a proof that says no
        more than who sent it — the Schnorr proof of an act, or of a play of a public or
        taken card — is left to the audit, which checks every proof of the transcript: it
        would only repeat the signature's check on every player's path to the screen.  Proofs
        about cards and keys are checked here whatever ``signed`` says.

        ``defer``: the proof that a played or shown card was dealt to its player at that
        position waits in `deferred_plays` for `verify_deferred` (a player checks it once the
        table is quiet, right after showing the play; the host, which refuses a bad play to
        its sender, never defers).

        ``defer_shuffle``: a shuffle stage's proof of shuffle waits for `verify_shuffles` (the
        next shuffler proves its own stage first, then checks this one while the stages after
        it are made; nothing is dealt before every stage is checked, see `_seed`)."""
        if not 0 <= msg.seat < self.n:
            raise RemoteProtocolError(None, f"a message from seat {msg.seat}, not at the table")
        chunk: Chunk | None = None
        with blamed(msg.seat, msg.KIND):
            if isinstance(msg, Nonce):
                self._nonce(msg)
            elif isinstance(msg, Commit):
                self._commit(msg, verify)
            elif isinstance(msg, Shuffle):
                self._shuffle(msg, verify, defer_shuffle)
            elif isinstance(msg, Seed):
                self._seed(msg)
            elif isinstance(msg, Refill):
                self._refill(msg)
            elif isinstance(msg, Return):
                self._return(msg)
            elif isinstance(msg, Strip):
                chunk = self._strip(msg)
            elif isinstance(msg, Answer):
                self._answer(msg, verify)
            elif isinstance(msg, Play):
                self._play(msg, verify, signed, defer)
            elif isinstance(msg, Act):
                self._act(msg, verify and not signed)
            elif isinstance(msg, KeyReveal):
                self._key(msg)
            else:  # pragma: no cover - the Message union is closed
                raise RemoteProtocolError(None, "not a card-privacy message")
        self.log.append(msg)
        return chunk

    def _nonce(self, msg: Nonce) -> None:
        if self.nonces[msg.seat] is not None:
            raise RemoteProtocolError(msg.seat, "sent a second nonce")
        if len(msg.nonce) != NONCE_BYTES:
            raise RemoteProtocolError(msg.seat, f"a nonce is {NONCE_BYTES} bytes")
        self.nonces[msg.seat] = msg.nonce
        if all(x is not None for x in self.nonces):
            # Step 0: game id = H(setup (seats, dealer, rules), every nonce in seat order).
            self.game_id = GROUP.scalar_from_hash(
                _GAME_ID, self.setup.digest(), *(x for x in self.nonces if x is not None)
            )

    def _commit(self, msg: Commit, verify: bool) -> None:
        if self.game_id is None:
            raise RemoteProtocolError(msg.seat, "committed before every nonce was in")
        if self.keys[msg.seat] is not None:
            raise RemoteProtocolError(msg.seat, "committed twice")
        y = GROUP.check(msg.key, "the committed key")
        if verify and not schnorr_verify(y, msg.proof, self.ctx(msg.seat, "commit")):
            raise RemoteProtocolError(msg.seat, "the proof of knowledge of its key is wrong")
        self.keys[msg.seat] = y

    def previous_stage(self) -> tuple[Point, ...]:
        """The stage the next shuffler starts from: the last one, or the canonical deck."""
        return self.decks[-1] if self.decks else self.deck_points

    def _shuffle(self, msg: Shuffle, verify: bool, defer: bool = False) -> None:
        j = len(self.decks)
        if not self.all_committed():
            raise RemoteProtocolError(msg.seat, "shuffled before every key was committed")
        if msg.seat != j:
            raise RemoteProtocolError(msg.seat, f"shuffled out of turn (seat {j} shuffles now)")
        if len(msg.deck) != self.setup.deck_size:
            raise RemoteProtocolError(
                msg.seat, f"its shuffled deck has {len(msg.deck)} cards, not {self.setup.deck_size}"
            )
        if any(len(p) != 32 for p in msg.deck):
            raise RemoteProtocolError(msg.seat, "its shuffled deck holds something not a point")
        # Signed by its shuffler over the input in our transcript and its output: a stage the
        # host forged, or one made from another input than ours (the host equivocating), is
        # refused here instead of pinning a substitution on an honest shuffler; and a signed
        # stage whose proof of shuffle fails is evidence against the seat that signed it.
        ctx = self.ctx(
            msg.seat,
            "shuffle",
            (),
            shuffle_digest(self.previous_stage(), msg.deck, msg.shuffle_proof),
        )
        if verify and not schnorr_verify(self.key_of(msg.seat), msg.proof, ctx):
            raise RemoteProtocolError(
                msg.seat, "its shuffle is not signed by its key over the deck it was given"
            )
        self.decks.append(msg.deck)
        self.shuffle_proofs.append(msg.shuffle_proof)
        if len(set(msg.deck)) != len(msg.deck):
            self._refuse_stage(msg, j, Cheated(msg.seat, "its shuffled deck holds a card twice"))
        if not verify or self.legacy_shuffles:
            self.shuffles_verified.add(j)  # our own stage; or the audit judges it by the keys
        elif not defer:
            self._verify_shuffle_logged(msg, j)

    def _verify_shuffle_logged(self, msg: Shuffle, j: int) -> None:
        try:
            self.verify_shuffle(j)
        except RemoteProtocolError as e:
            self._refuse_stage(msg, j, e)

    def _refuse_stage(self, msg: Shuffle, j: int, e: RemoteProtocolError) -> NoReturn:
        """Refuse stage ``j``, which its seat signed: it leaves the stages as they were, but
        stays in the log as the evidence that names its seat (the audit replays it and names
        the same seat); the game stops here."""
        del self.decks[j:], self.shuffle_proofs[j:]
        if self.keep_evidence:
            self.log.append(msg)
        raise e

    def verify_shuffle(self, j: int) -> None:
        """Check stage ``j``'s proof of shuffle (privacy/shuffle.py) against the stage before
        it and seat j's committed key; `RemoteProtocolError` names seat j if it fails.  The
        points of the stage are validated on the way (each goes through a multiplication)."""
        if j in self.shuffles_verified:
            return
        before = self.decks[j - 1] if j else self.deck_points
        ok = shuffle_verify(
            self.key_of(j), before, self.decks[j], self.shuffle_proofs[j], self.shuffle_ctx(j)
        )
        if not ok:
            raise Cheated(
                j,
                "its shuffle stage is not a permutation of the deck it received under its "
                "committed key (the proof of shuffle fails)",
            )
        self.shuffles_verified.add(j)

    def shuffle_ctx(self, j: int) -> Context:
        """What stage j's proof of shuffle is bound to: the game, seat j, stage j (the
        statement adds the key and both decks)."""
        return self.ctx(j, f"shuffle/{j}")

    def unverified_shuffles(self) -> list[int]:
        return [j for j in range(len(self.decks)) if j not in self.shuffles_verified]

    def verify_shuffles(self, upto: int | None = None) -> None:
        """Check every stage not checked yet (below ``upto``, if given), in order (the first
        bad one is named).  Several at once are checked as one combination
        (`shuffle_verify_many`: consecutive stages share a deck, about a fifth fewer
        multiplications); only if it fails is each checked alone, to name the first bad."""
        todo = [j for j in self.unverified_shuffles() if upto is None or j < upto]
        if len(todo) > 1 and shuffle_verify_many(
            [
                (
                    self.key_of(j),
                    self.decks[j - 1] if j else self.deck_points,
                    self.decks[j],
                    self.shuffle_proofs[j],
                    self.shuffle_ctx(j),
                )
                for j in todo
            ]
        ):
            self.shuffles_verified.update(todo)
            return
        for j in todo:
            self.verify_shuffle(j)

    def _seed(self, msg: Seed) -> None:
        nonce = self.nonces[msg.seat]
        if self.shuffled is None or nonce is None:
            # Before every stage is fixed a seed would tell the shufflers still to come where
            # their positions are dealt: exactly what the seeds must hide from them.
            raise RemoteProtocolError(msg.seat, "revealed its seed before the last shuffle")
        if self.seeds[msg.seat] is not None:
            raise RemoteProtocolError(msg.seat, "revealed its seed twice")
        if len(msg.seed) != SEED_BYTES or seed_commitment(msg.seat, msg.seed) != nonce:
            raise RemoteProtocolError(
                msg.seat, "revealed a seed that is not the one its nonce committed to"
            )
        self.seeds[msg.seat] = msg.seed
        seeds = [x for x in self.seeds if x is not None]
        if len(seeds) == self.n:
            assert self.game_id is not None
            # Nothing is dealt from a stage that is not proven (a seat verifies them all
            # before revealing its seed; the host, before relaying the seeds).
            self.verify_shuffles()
            self.order = deal_order(self.game_id, seeds, self.setup.deck_size)
            stage = self.decks[-1]
            self.dealt = tuple(stage[i] for i in self.order)
            self._open_batch(0)

    def _open_batch(self, batch: int) -> None:
        deck = self.final_deck
        assert deck is not None
        for chunk in self.schedule.batches[batch]:
            self.stages[chunk.key] = [tuple(deck[p] for p in chunk.positions)]
            self.proofs[chunk.key] = []

    def _refill(self, msg: Refill) -> None:
        if self.final_deck is None:
            raise RemoteProtocolError(None, "a refill before the deal")
        if msg.batch != len(self.schedule.batches):
            raise RemoteProtocolError(None, f"refill batch {msg.batch} is out of order")
        if not -1 <= msg.taker < self.n:
            raise RemoteProtocolError(None, f"seat {msg.taker} cannot take")
        taken = set(msg.taken)
        if not taken <= set(self.on_table) or (msg.taker < 0 and taken):
            raise RemoteProtocolError(None, "a refill takes cards that are not on the table")
        try:
            self.schedule.refill(msg.seats)
        except ScheduleError as e:
            raise RemoteProtocolError(None, str(e)) from None
        # The bout is over: the table goes to the taker (R-B8; R-P5: only the uncovered cards)
        # and the rest to the discard (R-B10a).
        for card in self.on_table:
            if card in taken:
                self.taken[card] = msg.taker
            else:
                self.discarded.add(card)
        self.on_table = []
        self._open_batch(msg.batch)

    def _return(self, msg: Return) -> None:
        """R-S3: cards go back from the table to the hands they came from, public there."""
        if (
            len(msg.cards) != len(msg.owners)
            or len(set(msg.cards)) != len(msg.cards)  # one card cannot go back to two hands
            or not set(msg.cards) <= set(self.on_table)
        ):
            raise RemoteProtocolError(None, "returns cards that are not on the table")
        if not all(0 <= o < self.n for o in msg.owners):
            raise RemoteProtocolError(None, "returns a card to a seat not at the table")
        for card, owner in zip(msg.cards, msg.owners, strict=True):
            self.on_table.remove(CARDS[card])
            self.taken[CARDS[card]] = owner

    def _strip(self, msg: Strip) -> Chunk:
        chunk = self.schedule.chunk(msg.batch, msg.owner)
        if chunk is None or chunk.key not in self.stages or chunk.positions != msg.positions:
            raise RemoteProtocolError(
                msg.seat,
                f"a layer removal for positions {list(msg.positions)} that the schedule does "
                "not name (refused: no decryption oracle)",
            )
        d = self.done_strips(chunk)
        if d >= len(chunk.route) or chunk.route[d] != msg.seat:
            raise RemoteProtocolError(msg.seat, "removed a layer out of turn")
        if len(msg.outputs) != len(chunk.positions) or any(len(p) != 32 for p in msg.outputs):
            raise RemoteProtocolError(msg.seat, "a layer removal of the wrong size")
        self.stages[chunk.key].append(msg.outputs)
        self.proofs[chunk.key].append(msg.proof)
        return chunk

    def mark_verified(self, chunk: Chunk, d: int) -> None:
        self.verified.add((chunk.key, d))

    def verify_stage(self, chunk: Chunk, d: int) -> None:
        """Check strip number ``d`` of ``chunk`` (its proof against the stage before it)."""
        if (chunk.key, d) in self.verified:
            return
        seat = chunk.route[d]
        stages = self.stages[chunk.key]
        kinv = self.audit_keys.get(seat)
        if kinv is not None:
            # The audit knows the key: check the removal itself (cheaper than the proof).
            try:
                ok = all(GROUP.mul(kinv, x) == y for x, y in zip(*stages[d : d + 2], strict=True))
            except InvalidPoint:
                ok = False
        else:
            ok = batch_dleq_verify(
                self.key_of(seat),
                stages[d + 1],
                stages[d],
                self.proofs[chunk.key][d],
                self.ctx(seat, strip_step(chunk), chunk.positions),
            )
        if not ok:
            raise Cheated(
                seat, f"its layer removal for positions {list(chunk.positions)} has a wrong proof"
            )
        self.verified.add((chunk.key, d))

    def deal_complete(self) -> bool:
        """Every chunk of the deal (batch 0) has all its strips: every hand can be read."""
        batches = self.schedule.batches
        return bool(batches) and all(self.complete(c) for c in batches[0])

    def next_unverified(self) -> tuple[Chunk, int] | None:
        """A strip of a complete chunk not verified yet (the earliest), or None.  A player
        verifies these while the table is quiet
        (`localdurak.protocol.table.seat.SeatGame.verify_ahead`) instead of at the first play
        from the chunk, which is on everybody's path to the
        screen; what they prove is the same."""
        batches = self.schedule.batches
        # Chunks before the cursor are complete with every strip verified, for good (strips
        # are only added, and so are verified strips): the scan, run between every two events
        # of a quiet table, starts past them.
        b, c = self._checked_upto
        advancing = True
        while b < len(batches):
            batch = batches[b]
            while c < len(batch):
                chunk = batch[c]
                if self.complete(chunk):
                    for d in range(len(chunk.route)):
                        if (chunk.key, d) not in self.verified:
                            return chunk, d
                    if advancing:
                        self._checked_upto = (b, c + 1)
                else:
                    advancing = False
                c += 1
            b, c = b + 1, 0
            if advancing:
                self._checked_upto = (b, 0)
        return None

    def verify_chain(self, chunk: Chunk, upto: int | None = None) -> None:
        """Check the first ``upto`` strips of ``chunk`` (all done so far by default)."""
        for d in range(self.done_strips(chunk) if upto is None else upto):
            self.verify_stage(chunk, d)

    def decode_public(self, chunk: Chunk) -> None:
        """A complete public chunk: its values are card points, everybody reads them."""
        self.verify_chain(chunk)
        for p, point in zip(chunk.positions, self.final_values(chunk), strict=True):
            card = self.card_of(point)
            if card is None or card in self.public.values():
                raise RemoteProtocolError(
                    None, f"the turned card (position {p}) is not a card: a shuffle was dishonest"
                )
            self.public[p] = card
            if p == self.setup.turned_position and chunk.batch == 0:
                self.turned = card
                if self.trump_suit is None:
                    self.trump_suit = card.suit
        self._plan_rf1()

    # --- R-F1 ---------------------------------------------------------------------------

    def _plan_rf1(self) -> None:
        """Which trump ranks to ask about, in order, and who attacks if nobody shows one."""
        s = self.setup
        if self.trump_suit is None or self.rf1_fallback is not None:
            return
        left = (s.dealer + 1) % s.seats
        fallback = FirstAttacker(left, None)  # R-F1 (chosen): nobody holds a trump
        plan: list[int] = []
        for rank in s.trump_ranks():
            card = Card.of(rank, self.trump_suit)
            if card == self.turned:
                if s.trump_in_stock:
                    continue  # R-D2: under the stock, in nobody's hand
                fallback = FirstAttacker(s.dealer, None)  # R-D3: shown, in the dealer's hand
                break
            plan.append(rank)
        self.rf1_plan = plan
        self.rf1_fallback = fallback
        if s.lowest_trump and not plan:
            self.first_attacker = fallback

    def rf1_rank(self) -> int | None:
        """The trump rank being asked about now, None when R-F1 is settled or not started."""
        if (
            not self.setup.lowest_trump
            or self.first_attacker is not None
            or self.rf1_fallback is None
            or self.rf1_step >= len(self.rf1_plan)
        ):
            return None
        return self.rf1_plan[self.rf1_step]

    def position_value(self, position: int) -> tuple[Chunk, Point]:
        """The position's value with only its holder's layer left (verified chain)."""
        chunk = self.schedule.chunk_of(position)
        if chunk is None or chunk.owner == PUBLIC or not self.complete(chunk):
            raise LocalProtocolError(f"position {position} is not dealt to a hand yet")
        self.verify_chain(chunk)
        return chunk, self.final_values(chunk)[chunk.positions.index(position)]

    def ensure_public(self) -> None:
        """Read the deal's public chunk if it is complete and not read yet (the host may
        verify it later than the players)."""
        for chunk in self.schedule.batches[0]:
            if (
                chunk.owner == PUBLIC
                and self.complete(chunk)
                and chunk.positions[0] not in self.public
            ):
                self.decode_public(chunk)

    def _answer(self, msg: Answer, verify: bool) -> None:
        self.ensure_public()
        rank = self.rf1_rank()
        if rank is None or msg.rank != rank:
            raise RemoteProtocolError(msg.seat, f"an R-F1 answer about rank {msg.rank} out of turn")
        if msg.seat in self.answers:
            raise RemoteProtocolError(msg.seat, "answered twice")
        assert self.trump_suit is not None
        card = Card.of(rank, self.trump_suit)
        if msg.position < 0:
            if verify:
                try:
                    self._check_not_me(msg.seat, rank, card, msg.proof)
                except Cheated:
                    # Signed by its seat: the false claim stays in the log as the evidence that
                    # names it (the audit replays it), and the game stops here.
                    if self.keep_evidence:
                        self.log.append(msg)
                    raise
        else:
            if msg.card != card:
                raise RemoteProtocolError(msg.seat, f"showed {CARDS[msg.card % 52]} for {card}")
            self._check_holding(
                msg.seat, msg.position, card, f"show-lowest/{rank}", b"", msg.proof, verify
            )
        self.answers[msg.seat] = msg
        if len(self.answers) == self.n:
            shows = [a for a in self.answers.values() if a.position >= 0]
            self.claims.extend(a for a in self.answers.values() if a.position < 0)
            self.answers = {}
            if shows:
                self.first_attacker = FirstAttacker(shows[0].seat, card)
            else:
                self.rf1_step += 1
                if self.rf1_step >= len(self.rf1_plan):
                    self.first_attacker = self.rf1_fallback

    def hidden_deal_positions(self, seat: int) -> tuple[int, ...]:
        """The positions the deal gave ``seat`` face down (its chunk of batch 0)."""
        chunk = self.schedule.chunk(0, seat) if self.schedule.batches else None
        return () if chunk is None else chunk.positions

    def _check_not_me(self, seat: int, rank: int, card: Card, proof: bytes) -> None:
        """R-F1 "not me" (notme.py): the seat's Schnorr signature of the claim (so a
        false one is evidence against it), then, for every position the deal gave it face
        down, a proof that its layer there hides no ``card`` (privacy/notme.py).  A record of
        format /2 has the signature alone (the audit checks the claim with the keys)."""
        y = self.key_of(seat)
        if not schnorr_verify(y, proof[:64], self.ctx(seat, f"not-me/{rank}")):
            raise RemoteProtocolError(seat, "its 'not me' claim is not signed by its key")
        if self.legacy_shuffles:
            return
        positions = self.hidden_deal_positions(seat)
        if len(proof) != 64 + NOT_ME_BYTES * len(positions):
            raise Cheated(seat, f"its 'not me' for {card} does not prove every card it holds")
        m = CARD_POINTS[card]
        chunk = self.schedule.chunk(0, seat)
        if chunk is None or not self.complete(chunk):
            raise RemoteProtocolError(seat, "a 'not me' before its hand was dealt")
        # The values as the chunk's strips left them, their chain not checked here: a wrong
        # removal is still found (ahead of the plays, or at the first play from the chunk)
        # and names its stripper; checking every chain now would put every hand's strips on
        # the way to the first attack.
        values = dict(zip(chunk.positions, self.final_values(chunk), strict=True))
        for i, p in enumerate(positions):
            z = values[p]
            part = proof[64 + i * NOT_ME_BYTES : 64 + (i + 1) * NOT_ME_BYTES]
            if not not_me_verify(y, m, z, part, self.ctx(seat, f"not-me/{rank}", (p,))):
                raise Cheated(
                    seat,
                    f"claimed not to hold {card} (R-F1, lowest trump) but cannot prove it for "
                    f"position {p}: a false 'not me'",
                )

    def claimed_not_to_hold(self, seat: int, card: Card) -> bool:
        """Whether ``seat`` signed an R-F1 "not me" for ``card``."""
        t = self.trump_suit
        return t is not None and any(
            a.seat == seat and Card.of(a.rank, t) == card for a in self.claims
        )

    # --- play and show ------------------------------------------------------------------

    def _check_holding(
        self,
        seat: int,
        position: int,
        card: Card,
        step: str,
        extra: bytes,
        proof: bytes,
        verify: bool,
        signed: bool = False,
        defer: bool = False,
    ) -> None:
        """That ``seat`` holds ``card`` at ``position`` (step 5): dealt to it, not played.
        Position -1: a card the seat took from the table, public since (the proof signs).
        ``defer``: the proof of a hidden position waits for `verify_deferred`."""
        if card not in self.deck:
            raise RemoteProtocolError(seat, f"{card} is not in this deck")
        if position == -1:
            if self.taken.get(card) != seat:
                raise RemoteProtocolError(seat, f"played {card}, which it did not take")
            ok = (
                not verify
                or signed
                or schnorr_verify(self.key_of(seat), proof, self.ctx(seat, step, (), extra))
            )
            if not ok:
                raise RemoteProtocolError(seat, f"its play of {card} is not signed by its key")
            return
        if self.schedule.holder.get(position) != seat:
            raise RemoteProtocolError(
                seat, f"played {card} from position {position}, which was not dealt to it"
            )
        if position in self.hidden_deal_positions(seat) and self.claimed_not_to_hold(seat, card):
            # A card dealt before its R-F1 "not me" for it (notme.py): the signed claim
            # was false.  (One drawn later may be played: the claim was about the deal.)
            raise Cheated(
                seat,
                f"played {card}, which it claimed not to hold (R-F1, lowest trump): "
                "a false 'not me'",
            )
        if card in self.on_table or card in self.discarded or card in self.taken:
            raise RemoteProtocolError(seat, f"played {card}, which was already played")
        if position in self.played_positions:
            raise RemoteProtocolError(seat, f"played position {position} a second time")
        ctx = self.ctx(seat, step, (position,), extra)
        self.ensure_public()
        if position in self.public:
            if self.public[position] != card:
                raise RemoteProtocolError(
                    seat, f"played {card} for the face-up {self.public[position]}"
                )
            if verify and not signed and not schnorr_verify(self.key_of(seat), proof, ctx):
                raise RemoteProtocolError(seat, f"its play of {card} is not signed by its key")
            return
        if not verify:
            return
        if defer:
            self.deferred_plays.append((seat, position, card, ctx, proof))
            return
        self._check_dealt(seat, position, card, ctx, proof)

    def _check_dealt(
        self, seat: int, position: int, card: Card, ctx: Context, proof: bytes
    ) -> None:
        _, z = self.position_value(position)
        if not dleq_verify(self.key_of(seat), CARD_POINTS[card], z, proof, ctx):
            raise Cheated(
                seat,
                f"played {card} from position {position} with a wrong proof: "
                "not the card it was dealt there",
            )

    def verify_deferred(self, limit: int | None = None) -> bool:
        """Check up to ``limit`` (all by default) of the card proofs `accept` deferred, the
        oldest first; returns whether more wait.  Raises `RemoteProtocolError` naming the seat
        whose proof is wrong."""
        done = 0
        while self.deferred_plays and (limit is None or done < limit):
            seat, position, card, ctx, proof = self.deferred_plays.pop(0)
            with blamed(seat, "play"):
                self._check_dealt(seat, position, card, ctx, proof)
            done += 1
        return bool(self.deferred_plays)

    def _index(self, seat: int, index: int) -> None:
        if index <= self.last_index[seat]:
            raise RemoteProtocolError(seat, f"an action numbered {index} again (a replay)")

    def _play(self, msg: Play, verify: bool, signed: bool = False, defer: bool = False) -> None:
        self._index(msg.seat, msg.index)
        if not 0 <= msg.card < 52:
            raise RemoteProtocolError(msg.seat, f"{msg.card} is not a card")
        card = CARDS[msg.card]
        step = "show" if msg.shown else "play"
        self._check_holding(
            msg.seat,
            msg.position,
            card,
            step,
            signed_action(msg.index, msg.action),
            msg.proof,
            verify,
            signed,
            defer,
        )
        if not _names(msg.action, card):
            # The proof signs the action, and the engines apply the action: a proof for one card
            # under an action that plays another would let a seat play a card it does not hold.
            raise RemoteProtocolError(msg.seat, f"its signed action does not name {card}")
        self.last_index[msg.seat] = msg.index
        if msg.shown:
            self.shown_cards.add(card)
            return
        if msg.position == -1:
            del self.taken[card]
        else:
            self.played_positions.add(msg.position)
        self.on_table.append(card)

    def _act(self, msg: Act, verify: bool) -> None:
        self._index(msg.seat, msg.index)
        if _is_card_action(msg.action):
            raise RemoteProtocolError(
                msg.seat, f"a {msg.action.get('do')} needs its card played with a proof, not an act"
            )
        ctx = self.ctx(msg.seat, "act", (), signed_action(msg.index, msg.action))
        if verify and not schnorr_verify(self.key_of(msg.seat), msg.proof, ctx):
            raise RemoteProtocolError(msg.seat, "its action is not signed by its key")
        self.last_index[msg.seat] = msg.index

    def _key(self, msg: KeyReveal) -> None:
        if self.revealed[msg.seat] is not None:
            raise RemoteProtocolError(msg.seat, "revealed its key twice")
        k = GROUP.check_scalar(msg.key, "the revealed key")
        if GROUP.mul_base(k) != self.key_of(msg.seat):
            raise RemoteProtocolError(
                msg.seat, "revealed a key that is not the one it committed to"
            )
        self.revealed[msg.seat] = k


# --- the player ---------------------------------------------------------------------------
