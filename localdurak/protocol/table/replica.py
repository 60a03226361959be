"""One game of the series as each party keeps it: the bridge between the wire messages
(docs/protocol.md §5), the card-privacy protocol (privacy.md) and the rules engine.

Sans-I/O (no sockets, no clocks, no random source but the one it is given); used by the asyncio
host and client sessions (localdurak.net).

- `SeatGame` — one seat: its privacy `Player` (its own key), and the engine on what that seat
  may know (``Game.hidden`` from its own seat).  It checks every relayed message (the seat's
  signature and counter, then the privacy proofs, then the rules) and answers with the signed
  messages the protocol asks of it.  Human clients and bots use it alike.
- `HostGame` — the host's authority: the privacy `Host` (no secret) and the engine on public
  information (``Game.hidden`` with ``viewer=None``).  It accepts a seat's command or refuses
  it with a `ProtocolError` for the sender alone.

Every game action travels as a privacy step: ``play`` (one `Play` per card: attack, cover,
transfer, show) or ``act`` (take, pass, challenge); the step's body is the list of privacy
messages, and the action itself (records.md form, with ``seat``) is bound into each proof.
The end of a bout needs no message: every party derives the refill from its own engine
(R-B12, ``Game.refill_schedule()``) at the same point of the log.

A `SeatGame` freezes to a msgpack snapshot (`protocol.snapshot`: no pickle, no code; without
its signing key, `SeatGame.freeze` / `thaw`): a client keeps
it on disk after every event, so a restarted client carries on with the same privacy key
(privacy.md "When a player drops out").  Never rebuild a seat by replaying with a seeded
random source: proof nonces would repeat for different statements and leak the key.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from localdurak.game.actions import Action, ActionFormatError, Do, GameResult, IllegalAction
from localdurak.game.cards import Card, Suit
from localdurak.game.engine import Game
from localdurak.game.outcome import (
    NOTHING,
    BoutEnded,
    Outcome,
    Over,
    Refilled,
    Returned,
    Taken,
    first,
)
from localdurak.game.rules import Rules, Variant
from localdurak.game.view import PlayerView
from localdurak.protocol import snapshot
from localdurak.protocol.errors import (
    AuthFailed,
    BadMessage,
    Cheated,
    CheatFound,
    IllegalMove,
    LocalProtocolError,
    NotYourTurn,
    RemoteProtocolError,
    Replayed,
)
from localdurak.protocol.messages import GameStarted, Privacy, PrivacyEvent
from localdurak.protocol.privacy.events import CardTurned, FirstAttacker, HandDealt, KeysRevealed
from localdurak.protocol.privacy.group import RandomBytes
from localdurak.protocol.privacy.messages import (
    Act,
    MessageError,
    Play,
    Refill,
    Return,
    message_from_dict,
)
from localdurak.protocol.privacy.messages import Message as PMessage
from localdurak.protocol.privacy.record import with_identity
from localdurak.protocol.privacy.roles import Host, Player
from localdurak.protocol.privacy.schedule import Setup
from localdurak.protocol.privacy.transcript import Transcript
from localdurak.protocol.signing import action_payload, setup_digest, verify_action

GAME_STEPS = ("play", "act")
"""Privacy steps that carry a game action."""

MAX_BODY_MESSAGES = 6
"""A body holds one privacy message, or one `Play` per card of a multi-card attack."""


class Signer(Protocol):
    """A seat's signing key: a device `Identity`, or an in-process bot's key."""

    @property
    def public_key(self) -> bytes: ...

    def sign(self, data: bytes) -> bytes: ...


# --- helpers shared by both roles ------------------------------------------------------------


def signed_setup(started: GameStarted) -> bytes:
    """The digest every signed step of this game binds (`signing.setup_digest`): the game as
    ``started`` announced it, so a step signs its seat's name, identity and the rules too."""
    return setup_digest(
        game=started.game,
        number=started.number,
        rules=started.rules.non_defaults(),
        dealer=started.dealer,
        names=started.names,
        keys=started.keys,
        previous=started.previous.to_dict() if started.previous is not None else None,
    )


def setup_for(started: GameStarted) -> Setup:
    """The privacy setup of a game: R-F1 (lowest trump) runs for a first game or after a draw,
    never in Dureń (R-P1)."""
    return Setup.from_rules(
        started.rules,
        len(started.keys),
        started.dealer,
        lowest_trump=needs_lowest_trump(started.rules, started.previous),
    )


def needs_lowest_trump(rules: Rules, previous: GameResult | None) -> bool:
    if rules.variant is Variant.DUREN:
        return False
    return previous is None or previous.draw or not previous.durak


def series_first_attacker(
    rules: Rules, seats: int, dealer: int, trump: Suit, previous: GameResult | None
) -> int:
    """R-F2 / R-P1: the first attacker of a game that does not run R-F1 (the engine's rule,
    asked of an empty table; it looks at no hand when R-F2 or R-P1 decides)."""
    probe = Game(rules, seats, dealer, trump)
    return probe._first_attacker(previous)


def decode_body(body: Any, seat: int) -> list[PMessage]:
    """The privacy messages of a step's body; each must be in the name of ``seat``."""
    if not isinstance(body, list) or not 1 <= len(body) <= MAX_BODY_MESSAGES:
        raise BadMessage(f"a privacy body is a list of 1..{MAX_BODY_MESSAGES} messages")
    try:
        msgs = [message_from_dict(m) for m in body]
    except MessageError as e:
        raise BadMessage(f"privacy message: {e}") from None
    for m in msgs:
        if m.seat != seat:
            raise AuthFailed(f"seat {seat} sent a privacy message in the name of seat {m.seat}")
        if isinstance(m, Refill | Return):
            raise BadMessage("only the host's own engine ends a bout or returns cards")
    return msgs


def step_of(msgs: Sequence[PMessage]) -> str:
    kind = msgs[0].KIND
    if any(kind != m.KIND for m in msgs):
        raise BadMessage("a privacy body mixes message kinds")
    if len(msgs) > 1 and kind != "play":
        raise BadMessage(f"only plays come several to a body, not {kind!r}")
    return kind


def action_of(msgs: Sequence[PMessage]) -> Action:
    """The game action a ``play`` or ``act`` body carries, checked against its cards."""
    first = msgs[0]
    if not isinstance(first, Play | Act):
        raise BadMessage("not a game action")
    try:
        action = Action.from_dict(first.action)
    except ActionFormatError as e:
        raise BadMessage(f"the action: {e}") from None
    if action.seat != first.seat:
        raise AuthFailed(f"seat {first.seat} sent an action for seat {action.seat}")
    if any(dict(m.action) != dict(first.action) for m in msgs if isinstance(m, Play | Act)):
        raise BadMessage("the plays of one action carry different actions")
    if isinstance(first, Act):
        if action.do not in (Do.TAKE, Do.PASS, Do.CHALLENGE):
            raise BadMessage(f"a {action.do} needs its card played with a proof")
        return action
    plays = [m for m in msgs if isinstance(m, Play)]
    cards = [Card(p.card) if 0 <= p.card < 52 else None for p in plays]
    if action.do is Do.ATTACK:
        wanted = list(action.cards)
    elif action.do in (Do.COVER, Do.TRANSFER, Do.SHOW):
        wanted = [action.card] if action.card is not None else []
    else:
        raise BadMessage(f"a {action.do} plays no card")
    if cards != wanted:
        raise BadMessage("the cards played are not the cards of the action")
    shown = action.do is Do.SHOW
    if any(p.shown != shown for p in plays):
        raise BadMessage("a shown card must be shown, a played card played")
    return action


def body_of(msgs: Sequence[PMessage]) -> list[dict[str, Any]]:
    return [m.to_dict() for m in msgs]


def refill_due(outcome: Outcome) -> tuple[tuple[int, ...], int, tuple[int, ...] | None] | None:
    """The refill batch an action's outcome calls for (R-B12), or None: a bout ended and the
    game goes on (when it is over nobody draws).  The seats, one per card drawn; the taker's
    seat (-1: beaten off); the cards he took when not the whole table (R-P5 takes only the
    uncovered ones; None: the whole table, R-B8, in the order the transcript has them)."""
    ended = first(outcome, BoutEnded)
    if ended is None or first(outcome, Over) is not None:
        return None
    refilled = first(outcome, Refilled)
    taken = first(outcome, Taken)
    seats = refilled.seats if refilled is not None else ()
    if taken is None:
        return seats, -1, None
    return seats, taken.seat, None if taken.whole else tuple(int(c) for c in taken.cards)


def return_due(outcome: Outcome) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """R-S3: the cards a successful challenge sent back to the hands they came from (in card
    order), and those hands; or None."""
    back = first(outcome, Returned)
    if back is None:
        return None
    return tuple(int(c) for c in back.cards), back.owners


def _refusal(e: RemoteProtocolError, what: str) -> IllegalMove:
    """The wire's error for a card-privacy refusal: `CheatFound` when a seat's own proof
    failed (issue 11 item 2: the game is aborted naming it), else `IllegalMove`."""
    cls = CheatFound if isinstance(e, Cheated) else IllegalMove
    return cls(f"{what}: {e}", seat=e.seat)


@dataclass
class Signed:
    """One signed privacy step ready to send: what `Privacy` carries without its ``id``."""

    game: bytes
    n: int
    step: str
    body: list[dict[str, Any]]
    sig: bytes

    def command(self, command_id: int) -> Privacy:
        return Privacy(
            id=command_id, game=self.game, n=self.n, step=self.step, body=self.body, sig=self.sig
        )

    def relayed(self, seq: int, seat: int) -> PrivacyEvent:
        """The step as the host relays it from ``seat`` (unchanged, numbered ``seq``)."""
        return self.command(0).relayed(seq, seat)


@dataclass
class _Counters:
    """Each seat's signed-message counter ``n`` (docs/protocol.md §5) must increase, so a
    replayed or reordered message is refused.  Gaps are allowed: a command the host refused
    (an action that lost a race with another seat's) used its number and is never relayed."""

    last: list[int] = field(default_factory=list)

    def check(self, seat: int, n: int) -> None:
        if n <= self.last[seat]:
            raise Replayed(f"seat {seat}'s message #{n} again (a replay): #{self.last[seat]} came")

    def advance(self, seat: int, n: int) -> None:
        self.last[seat] = max(self.last[seat], n)


# --- one seat --------------------------------------------------------------------------------


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
        self.counters = _Counters([-1] * len(started.keys))
        self._n = 0
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
        sig = self.signer.sign(action_payload(self.bound, self.seat, n, step, body))
        if step in GAME_STEPS:
            self._unrelayed[n] = list(msgs)
        return Signed(self.game_id, n, step, body, sig)

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
            raise _refusal(e, "card privacy") from None
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
        """Whether a card proof or a strip of a dealt chunk waits for `verify_ahead`."""
        t = self.player.t
        return bool(t.deferred_plays) or t.next_unverified() is not None

    def verify_ahead(self) -> bool:
        """Verify, while the table is quiet, one card proof `receive` deferred, or else one
        strip of a dealt chunk that nobody has checked here yet (another seat's hand,
        usually): a play from it then costs one proof instead of its whole chain.  Returns
        whether more wait.  Raises `IllegalMove` naming the seat whose proof or strip is
        wrong, as `receive` would have at the play."""
        t = self.player.t
        try:
            if t.deferred_plays:
                t.verify_deferred(limit=1)
            else:
                item = t.next_unverified()
                if item is None:
                    return False
                t.verify_stage(*item)
        except RemoteProtocolError as e:
            raise _refusal(e, "card privacy") from None
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
                elif item[0] == "return":
                    back = item[1]
                    self.player.expect_return(*back)
                    out += self.player.receive(Return(0, *back))
                elif not self.revealed:
                    # Every card proof checked before the game is over for us.
                    self.player.t.verify_deferred()
                    self.revealed = True
                    out.append(self.player.reveal())
        except RemoteProtocolError as e:
            raise _refusal(e, "card privacy") from None
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
        actions: list[Action] = []
        if self.game is not None:
            actions, self.game.log = self.game.log, []
        try:
            return snapshot.dumps(self, kind="seat", classes=SNAPSHOT_CLASSES)
        finally:
            self.signer = signer
            self.player._rng = rng
            self.player.t.log = log
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
        return seat


def begin_game(
    started: GameStarted,
    setup: Setup,
    t: Transcript,
    first: FirstAttacker | None,
    viewer: int | None,
    own: Sequence[Card],
) -> Game | None:
    """The engine for ``viewer`` once the deal's public facts are in, else None."""
    if t.trump_suit is None:
        return None
    if setup.lowest_trump:
        first = first or t.first_attacker
        if first is None:
            return None
        first_seat = first.seat
    else:
        first_seat = series_first_attacker(
            started.rules, setup.seats, setup.dealer, t.trump_suit, started.previous
        )
    shown: dict[int, list[Card]] = {}
    trump_card: Card | None = None
    if t.turned is not None:
        if setup.trump_in_stock:
            trump_card = t.turned
        else:
            shown.setdefault(setup.dealer, []).append(t.turned)  # R-D3
    if (
        setup.lowest_trump
        and first is not None
        and first.card is not None
        and first.card not in shown.get(first.seat, [])
    ):
        shown.setdefault(first.seat, []).append(first.card)  # R-F1, shown to all
    return Game.hidden(
        started.rules,
        setup.seats,
        setup.dealer,
        trump_card=trump_card,
        trump_suit=t.trump_suit,
        first_attacker=first_seat,
        viewer=viewer,
        own_cards=list(own) if viewer is not None else [],
        shown=shown,
        previous=started.previous,
    )


# --- the host's authority ---------------------------------------------------------------------


@dataclass
class Accepted:
    """What the host relays for one accepted command: the signed steps (in order) and the
    privacy messages it accepted into the transcript (for the journal)."""

    relay: list[tuple[int, Privacy]]
    """(seat, command) pairs to relay as `PrivacyEvent`, in order."""
    action: Action | None = None
    refill: Refill | None = None


class HostGame:
    """The host's authority over one game: verifies, orders, relays; holds no secret."""

    def __init__(self, started: GameStarted) -> None:
        self.started = started
        self.setup = setup_for(started)
        # Strip proofs are verified beside the relaying (`verify_idle`), not before it: the
        # host is on every step's path, and each player verifies what it strips or decodes
        # anyway; a play is still checked on the spot (its chunk's chain is verified then).
        self.privacy = Host(self.setup, defer_verification=True)
        self.game: Game | None = None
        self.counters = _Counters([-1] * len(started.keys))
        self._waiting: dict[int, tuple[int, Privacy]] = {}
        """id(privacy message) -> (seat, command): held by the privacy host, not relayed yet."""
        self.accepted_log: list[PMessage] = []
        self.received: dict[tuple[int, int], bytes] = {}
        """(seat, n) -> signature of each accepted command (an identical resend is ignored)."""
        self.cheat: Cheated | None = None
        """The first check of the host's that proved a seat cheated (`verify_idle`)."""
        self.steps: list[dict[str, Any]] = []
        """Every accepted signed step in the host's order, for the record (records.md
        ``privacy.identity.steps``): its seat, counter, step, signature, and the positions of
        its privacy messages in the transcript's log."""
        self.refused_steps: list[tuple[int, int]] = []
        """(seat, n) of each signed step refused after its signature and counter checked: the
        gaps in a seat's counters that the record explains."""

    @property
    def seats(self) -> int:
        return len(self.started.keys)

    @property
    def bound(self) -> bytes:
        """What the seats' signatures bind besides the step (`signed_setup`)."""
        return signed_setup(self.started)

    def duplicate(self, seat: int, cmd: Privacy) -> bool:
        """An identical resend of a command already accepted (a reconnecting client)."""
        return self.received.get((seat, cmd.n)) == cmd.sig

    def receive(self, seat: int, cmd: Privacy) -> Accepted:
        """Accept seat ``seat``'s signed step or raise the `ProtocolError` to send back."""
        try:
            if cmd.game != self.started.game:
                raise BadMessage("a privacy step for another game")
            verify_action(
                self.started.keys[seat],
                cmd.sig,
                game=self.bound,
                seat=seat,
                n=cmd.n,
                kind=cmd.step,
                body=cmd.body,
            )
            # The counter before anything else: a replayed command is refused as a replay.
            self.counters.check(seat, cmd.n)
            self.counters.advance(seat, cmd.n)
            return self._receive(seat, cmd)
        except BaseException:
            self.refuse(seat, cmd.n)
            raise

    def refuse(self, seat: int, n: int) -> None:
        """Note that seat ``seat``'s command ``n`` was refused: the record explains the gap it
        leaves in the seat's counters (the host's word, `with_identity`)."""
        steps = getattr(self, "refused_steps", None)
        if steps is None:  # a game saved before the record carried refusals
            steps = self.refused_steps = []
        if (seat, n) not in steps and (seat, n) not in self.received:
            steps.append((seat, n))

    def _receive(self, seat: int, cmd: Privacy) -> Accepted:
        msgs = decode_body(cmd.body, seat)
        if step_of(msgs) != cmd.step:
            raise BadMessage(f"step {cmd.step!r} carries {msgs[0].KIND!r} messages")
        action: Action | None = None
        g = self.game
        if cmd.step in GAME_STEPS:
            action = action_of(msgs)
            if g is None or not self.privacy.t.deal_complete():
                # Not before every hand of the deal is complete: a seat whose hand is still
                # on its ring pass has no engine yet to follow the play with.
                raise NotYourTurn("the cards are still being dealt")
            if g.result is not None:
                raise NotYourTurn("the game is over")
            try:
                g.check(action)
            except IllegalAction as e:
                # Not his turn when nothing is open to him; the host's engine does not know
                # the hands, though, so the main attacker, who may open with any card of his,
                # lists nothing either (unless a card of his was shown): his is a wrong move.
                if (
                    not g.legal_actions(seat)
                    and seat != g.attacker
                    and action.do is not Do.CHALLENGE
                ):
                    raise NotYourTurn(f"not your turn: {e.reason}", rule=e.rule) from None
                raise IllegalMove(str(e), rule=e.rule) from None
        # Card privacy: every message checked before any is accepted (a multi-card attack is
        # all or nothing), then accepted for real.
        if len(msgs) > 1:
            trial = copy.deepcopy(self.privacy)
            try:
                for m in msgs:
                    trial.receive(seat, m)
            except RemoteProtocolError as e:
                self.privacy.refused.extend(trial.refused[len(self.privacy.refused) :])
                raise _refusal(e, "card privacy refused it") from None
        out: list[tuple[int, PMessage]] = []
        at: list[int] = []
        try:
            for m in msgs:
                # Every proof, even one that only says who sent it: the record keeps the
                # transcript without the identity signatures, so its audit could not tell a
                # seat's bad proof from the host's forgery (the players may skip these,
                # `SeatGame.receive`).
                out += self.privacy.receive(seat, m)
                self.accepted_log.append(m)
                at.append(len(self.privacy.t.log) - 1)
        except RemoteProtocolError as e:
            raise _refusal(e, "card privacy refused it") from None
        self.received[(seat, cmd.n)] = cmd.sig
        self.steps.append({"seat": seat, "n": cmd.n, "step": cmd.step, "sig": cmd.sig, "at": at})
        for m in msgs:
            self._waiting[id(m)] = (seat, cmd)
        relay: list[tuple[int, Privacy]] = []
        seen: set[int] = set()
        for _, m in out:
            entry = self._waiting.pop(id(m), None)
            if entry is not None and id(entry[1]) not in seen:
                seen.add(id(entry[1]))
                relay.append(entry)
        result = Accepted(relay, action)
        if action is not None:
            assert g is not None
            outcome = g.apply(action)
            refill = refill_due(outcome)
            if refill is not None:
                seats, taker, taken = refill
                self.privacy.refill(seats, None if taker < 0 else taker, taken)
                last = self.privacy.t.log[-1]
                assert isinstance(last, Refill)
                result.refill = last
                self.accepted_log.append(last)
            back = return_due(outcome)
            if back is not None:
                self.privacy.return_cards(*back)
                self.accepted_log.append(self.privacy.t.log[-1])
        if self.game is None:
            t = self.privacy.t
            if t.final_deck is not None and t.trump_suit is None and t.schedule.batches:
                t.ensure_public()  # the trump card, once its chunk is complete (verified)
            self.game = begin_game(self.started, self.setup, t, None, None, [])
        return result

    @property
    def idle_work(self) -> bool:
        """Whether relayed steps wait for `verify_idle`."""
        return self.privacy.pending > 0

    def verify_idle(self, limit: int | None = None) -> str | None:
        """Verify what was relayed unverified (at most ``limit`` steps); the fault (recorded
        in the transcript's refusals, so the audit names the seat) or None.  A fault that
        proves a seat cheated stays in `cheat` (the host aborts the game naming it)."""
        try:
            self.privacy.verify_pending(limit)
        except RemoteProtocolError as e:
            if isinstance(e, Cheated) and e.seat is not None and self.cheat is None:
                self.cheat = e
            return str(e)
        return None

    def all_revealed(self) -> bool:
        return all(k is not None for k in self.privacy.t.revealed)

    def transcript(self) -> dict[str, Any]:
        """The record's ``"privacy"`` value: the transcript, and what binds it to the people
        who played (`localdurak.protocol.privacy.record.with_identity`)."""
        self.verify_idle()  # everything verified before the record is written
        st = self.started
        return with_identity(
            self.privacy.transcript(),
            game=st.game,
            number=st.number,
            rules=st.rules.non_defaults(),
            dealer=st.dealer,
            names=st.names,
            keys=st.keys,
            previous=st.previous.to_dict() if st.previous is not None else None,
            steps=getattr(self, "steps", []),
            refused=getattr(self, "refused_steps", []),
        )


SNAPSHOT_CLASSES: tuple[type[Any], ...] = (SeatGame, Signed, _Counters)
"""This module's classes a saved seat holds (`protocol.snapshot`)."""
