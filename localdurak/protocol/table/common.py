"""What the seat and host replicas share (table/seat.py, table/host.py): the privacy steps as
they travel (decoding a body, the step and action it carries), the setup and the signed setup
of a game, the counters of signed steps, the engine a party starts once the deal is public, and
what an action's outcome calls for (a refill, a return).  Sans-I/O.

Every game action travels as a privacy step: ``play`` (one `Play` per card: attack, cover,
transfer, show) or ``act`` (take, pass, challenge); the step's body is the list of privacy
messages, and the action itself (records.md form, with ``seat``) is bound into each proof.
The end of a bout needs no message: every party derives the refill from its own engine
(R-B12, ``Game.refill_schedule()``) at the same point of the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from localdurak.game.actions import Action, ActionFormatError, Do, GameResult
from localdurak.game.cards import Card, Suit
from localdurak.game.engine import Game
from localdurak.game.outcome import (
    BoutEnded,
    Outcome,
    Over,
    Refilled,
    Returned,
    Taken,
    first,
)
from localdurak.game.rules import Rules, Variant
from localdurak.protocol.errors import (
    AuthFailed,
    BadMessage,
    Cheated,
    CheatFound,
    IllegalMove,
    RemoteProtocolError,
    Replayed,
)
from localdurak.protocol.messages import GameStarted, Privacy, PrivacyEvent
from localdurak.protocol.privacy.events import FirstAttacker
from localdurak.protocol.privacy.messages import (
    Act,
    MessageError,
    Play,
    Refill,
    Return,
    message_from_dict,
)
from localdurak.protocol.privacy.messages import Message as PMessage
from localdurak.protocol.privacy.schedule import Setup
from localdurak.protocol.privacy.transcript import Transcript
from localdurak.protocol.signing import setup_digest

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


_BOUND: dict[int, tuple[GameStarted, bytes]] = {}
"""`signed_setup` of the games being played, by the id of their (frozen) `GameStarted`."""


def signed_setup(started: GameStarted) -> bytes:
    """The digest every signed step of this game binds (`signing.setup_digest`): the game as
    ``started`` announced it, so a step signs its seat's name, identity and the rules too.

    Computed once a game (75 us a time, and every step signed or checked asks for it: three
    times on the way of one action from a player through the host to another)."""
    known = _BOUND.get(id(started))
    if known is not None and known[0] is started:
        return known[1]
    digest = _setup_digest(started)
    if len(_BOUND) >= 64:
        _BOUND.clear()
    _BOUND[id(started)] = (started, digest)
    return digest


def _setup_digest(started: GameStarted) -> bytes:
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


def refusal(e: RemoteProtocolError, what: str) -> IllegalMove:
    """The wire's error for a card-privacy refusal: `CheatFound` when a seat's own proof
    failed (the game is aborted naming it: privacy.md "Blame goes to the cheater"), else
    `IllegalMove`."""
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
    seen: int = 0
    """How many messages of the privacy log its seat had taken when it signed it."""

    def command(self, command_id: int) -> Privacy:
        return Privacy(
            id=command_id,
            game=self.game,
            n=self.n,
            step=self.step,
            body=self.body,
            sig=self.sig,
            seen=self.seen,
        )

    def relayed(self, seq: int, seat: int) -> PrivacyEvent:
        """The step as the host relays it from ``seat`` (unchanged, numbered ``seq``)."""
        return self.command(0).relayed(seq, seat)


@dataclass
class Counters:
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
