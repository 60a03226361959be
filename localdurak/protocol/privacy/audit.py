"""The audit of a game played under card privacy (privacy.md step 7, docs/privacy.md).

``audit(record)`` replays the record's ``"privacy"`` transcript with the same checks the host
made live (every proof, the schedule), then uses the revealed keys to check what no proof
could check during the game:

* each seat's shuffle is judged by its own proof of shuffle in the replay (so a withheld key
  hides nothing); in a record of format /2, which has no such proofs, by the keys: deck_j must
  be a permutation of k_j·deck_{j−1} (a substituted or duplicated card names the shuffler);
* every position decodes to a card of the deck, and the record's ``"deck"`` (if any) is that
  deck;
* every "not me" claim of R-F1 (lowest trump) and so every "I hold no trump": the claimed card
  must not be in that seat's hand;
* the attempts refused during the game are listed with their seat;
* the record's actions, replayed by the rules engine on the decoded deck, are legal, play
  exactly the cards proven in the protocol, and every refill batch is the one the rules call
  for (R-B12) with the right taker.

Cost: about 2·N·D scalar multiplications plus the proofs of the log.

One module of over 700 lines, on purpose: the checks above are one replay and share its
state (the transcript, the decoded deck, the engine); what reads on its own has left it (the
record-binding checks for binding.py, the report's types for verdict.py).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from ...game.actions import Action, Do, GameResult, IllegalAction
from ...game.cards import CARDS, Card
from ...game.engine import Game
from ...game.outcome import BoutEnded, Outcome, Over, Refilled, Returned, Taken, first
from ...game.rules import Rules
from ..errors import RemoteProtocolError
from ..signing import key_fingerprint
from .binding import check_identity, check_setup
from .cardpoints import CARD_POINTS
from .group import GROUP, InvalidPoint, Scalar
from .messages import (
    Act,
    Answer,
    Commit,
    KeyReveal,
    Message,
    MessageError,
    Play,
    Refill,
    Return,
    Shuffle,
    Strip,
    message_from_json,
)
from .proofs import dleq_verify, schnorr_verify
from .record import (
    FORMAT_4,
    WITHOUT_IDENTITY,
    Identity,
    RefusedStep,
    TranscriptError,
    identity_from_dict,
    is_legacy,
    transcript_from_dict,
)
from .schedule import Setup
from .transcript import Transcript, shuffle_digest, signed_action
from .verdict import AuditedSeat, AuditFault, AuditReport, NotARecord


def audit(record: Any, *, require_actions: bool = False) -> AuditReport:
    """Audit a game record (a dict as records.md describes, with a ``"privacy"`` key).

    ``require_actions``: a record whose log holds signed actions must carry them (``localdurak
    audit`` asks for it: deleting the actions must not skip the rules check).  Off by default
    for callers that audit a transcript without the engine's actions.
    """
    if not isinstance(record, Mapping) or "privacy" not in record:
        raise NotARecord("not a game record with a card-privacy transcript ('privacy')")
    try:
        setup, log, refused = transcript_from_dict(record["privacy"])
        identity = identity_from_dict(record["privacy"])
    except (ValueError, TranscriptError) as e:
        raise NotARecord(str(e)) from None

    faults: list[AuditFault] = []
    unchecked: list[str] = []
    seats: tuple[AuditedSeat, ...] = ()
    faults += check_setup(record, setup)
    identity_signed: set[int] = set()  # log messages in a step their seat identity-signed
    claims: list[RefusedStep] = []  # signed steps the host says it refused, to judge
    if identity is not None:
        faults += check_identity(record, setup, log, identity, identity_signed, claims)
        faults += _claims_placed(identity, claims)
        if not identity.ordered:
            unchecked.append(
                "the order of each seat's steps: in a record of this older format "
                f"({FORMAT_4}) where the host says a refused step came is its word, so a move "
                "it deleted and placed after a later step of its seat passes as refused"
            )
        seats = tuple(
            AuditedSeat(i, name, key_fingerprint(key))
            for i, (name, key) in enumerate(zip(identity.names, identity.keys, strict=True))
        )
    else:
        unchecked.append(
            f"who played: {WITHOUT_IDENTITY} (an older record, or one that lost them) cannot "
            "show it, nor its names, its signed setup, or that no signed step is missing"
        )
    for r in refused:
        # The host alone writes "refused", and refused messages were never relayed, so nothing
        # here proves who sent them (a host could name anybody): listed, but not a verdict on
        # the seat.  What the log proves names seats below.
        seat = r.get("seat")
        who = f"seat {seat}" if isinstance(seat, int) else "an unnamed sender"
        faults.append(
            AuditFault(
                None,
                f"the host refused a message from {who} during the game (its word): "
                f"{r.get('reason')}",
            )
        )

    t = Transcript(setup)
    t.legacy_shuffles = is_legacy(record["privacy"])
    if t.legacy_shuffles:
        unchecked.append(
            "the shuffles by their proofs: a transcript of this older format has none; each "
            "stage is judged with the revealed keys, so a key withheld hides a card substituted "
            "in that seat's stage"
        )
    t.keep_evidence = False
    t.audit_keys = _revealed_inverses(log)
    stopped = False
    # Each refused step judged where it came: its privacy messages on a copy of the
    # transcript as it stood then; a game action also by the rules engine (`_check_actions`).
    to_play: list[tuple[int, RefusedStep, Action]] = []
    for i, msg in enumerate([*log, None]):
        for env in claims:
            if env.at == i and not stopped:
                faults += _judge_refusal(t, env, identity, to_play)
        if msg is None:
            break
        if stopped and not isinstance(msg, KeyReveal):
            # The game cannot be followed past a bad message; the keys revealed after it (the
            # game was stopped) are still read, or every seat would be named for hiding its key.
            continue
        try:
            t.accept(msg)
        except RemoteProtocolError as e:
            # A refused message leaves the transcript as it was: judge it in that state.
            # A stage's first-version proof of shuffle is bound to its seat by nothing but the
            # identity signature over the step (its Schnorr signature covers the decks alone):
            # in a record with identities, a stage outside an identity-signed step is nobody's.
            unbound = isinstance(msg, Shuffle) and identity is not None and i not in identity_signed
            if e.seat is not None and (unbound or not _proven(t, msg)):
                # The host writes the log: a message in a seat's name without that seat's valid
                # signature (or a copy of one already in the log) could be anybody's.
                faults.append(
                    AuditFault(
                        None,
                        f"message {i} of the log, in seat {e.seat}'s name, accepted by the host: "
                        f"{e.reason} (nothing shows seat {e.seat} made it)",
                    )
                )
            else:
                faults.append(
                    AuditFault(e.seat, f"{e.reason} (message {i} of the log, accepted by the host)")
                )
            stopped = True
        except ValueError as e:  # a log out of order: the host's record is wrong
            faults.append(AuditFault(None, f"message {i} of the log cannot come here: {e}"))
            stopped = True
    # Every strip the log holds, verified (live, players verify only what they need), and
    # every batch complete: a missing layer removal means a game cut short or a record cut.
    incomplete = t.final_deck is None
    for batch in t.schedule.batches:
        for chunk in batch:
            if chunk.key not in t.stages:
                incomplete = True
                continue
            try:
                t.verify_chain(chunk)
            except RemoteProtocolError as e:
                # A wrong layer removal carries no valid proof: only its seat's identity
                # signature over the step (a record with the identity section) shows that
                # seat made it rather than the host that wrote the log; else reported, no
                # seat named.
                who = f"seat {e.seat}" if e.seat is not None else "someone"
                at = next(
                    (
                        i
                        for i, m in enumerate(log)
                        if isinstance(m, Strip)
                        and m.seat == e.seat
                        and (m.batch, m.owner) == (chunk.batch, chunk.owner)
                    ),
                    None,
                )
                if e.seat is not None and at in identity_signed:
                    faults.append(
                        AuditFault(e.seat, f"{e.reason} (message {at} of the log, signed by {who})")
                    )
                else:
                    faults.append(
                        AuditFault(
                            None, f"{who} (its name in the log, nothing proves it): {e.reason}"
                        )
                    )
            if not t.complete(chunk):
                incomplete = True
    try:
        t.ensure_public()
    except RemoteProtocolError as e:
        # The turned card decodes to no card: a shuffle or a layer removal was dishonest; with
        # every key revealed the shuffle check below names the seat.
        faults.append(AuditFault(None, f"the deal's public card cannot be read: {e.reason}"))
    if setup.lowest_trump and t.first_attacker is None:
        incomplete = True

    keys: list[Scalar] = []
    missing: list[int] = []
    for seat, k in enumerate(t.revealed):
        if k is None:
            # Withheld, or dropped from the record by whoever wrote it: the log cannot show
            # which, so the seat is not judged for it (a seat that stops is the host's to
            # forfeit, live).
            missing.append(seat)
            faults.append(
                AuditFault(
                    None,
                    f"seat {seat}'s key is not in the record (not revealed, or left out of "
                    "the record: the log does not show which)",
                )
            )
        else:
            keys.append(k)

    def report(deck: tuple[Card, ...] | None, checked: dict[str, int]) -> AuditReport:
        ended = _check_abort(record, faults)
        return AuditReport(
            _with_incomplete(faults + ended, incomplete),
            deck,
            checked,
            seats,
            tuple(unchecked),
            tuple(missing),
        )

    if len(keys) < setup.seats or t.shuffled is None:
        if missing:
            unchecked.append(
                "the shuffles, the deck, the claims, the actions against the rules and the "
                "result: without every key the deck cannot be decoded"
            )
        return report(None, {"messages": len(log)})

    # Shuffles: each stage's proof of shuffle was checked by the replay.  A /2 record has none:
    # deck_j = π_j(k_j · deck_{j-1}) as sets.
    prev = t.deck_points
    for j, deck in enumerate(t.decks if t.legacy_shuffles else ()):
        try:
            layered = {GROUP.mul(keys[j], p) for p in prev}
        except InvalidPoint:
            layered = set()  # the previous shuffler's fault, reported for it already
        if layered and layered != set(deck):
            faults.append(
                AuditFault(
                    j,
                    "its shuffle is not a permutation of the deck it received under its key: "
                    "a card was substituted or duplicated",
                )
            )
        prev = deck
    if t.final_deck is None:
        # The shuffles are judged even when the game stopped before every seed was revealed (a
        # seed withheld stalls the deal, like any silent seat; a game stopped for another fault
        # reveals no seed, so a missing one names nobody).  Each
        # logged seed was checked against its commitment, and the deal order derived from them
        # all, by the replay above (`Transcript._seed`).
        return report(None, {"messages": len(log)})

    # Decode every position with the product of all keys.
    total = keys[0]
    for k in keys[1:]:
        total = GROUP.scalar_mul(total, k)
    inv = GROUP.scalar_invert(total)
    decoded: list[Card | None] = []
    for p in t.final_deck:
        try:
            decoded.append(t.card_of(GROUP.mul(inv, p)))
        except InvalidPoint:
            decoded.append(None)
    deck_ok = all(c is not None for c in decoded) and len(set(decoded)) == len(decoded)
    if not deck_ok and not any("shuffle" in f.what for f in faults):
        faults.append(AuditFault(None, "the dealt deck does not decode to the cards of the deck"))

    # R-F1 claims: "not me" for the trump of rank r means the seat was not dealt that card.
    position_of = {c: p for p, c in enumerate(decoded) if c is not None}
    if t.trump_suit is not None:
        for claim in t.claims:
            card = Card.of(claim.rank, t.trump_suit)
            where = position_of.get(card)
            if where is not None and where < setup.dealt and setup.deal_owner(where) == claim.seat:
                faults.append(
                    AuditFault(
                        claim.seat,
                        f"claimed not to hold {card} (R-F1, lowest trump) but was dealt it: "
                        "a false 'no trump' claim",
                    )
                )

    # The record's own deck, if it has one, must be the deck the protocol dealt.
    rdeck = record.get("deck")
    if (
        "deck" in record
        and deck_ok
        and (not isinstance(rdeck, list) or rdeck != [str(c) for c in decoded])
    ):
        faults.append(AuditFault(None, "the record's deck is not the deck the protocol dealt"))

    cards = tuple(c for c in decoded if c is not None) if deck_ok else None
    signed = _signed_actions(t.log)
    if record.get("actions"):
        faults += _check_signed(record["actions"], signed)
        if cards is not None:
            # Names nobody: the host orders the seats' moves (`_check_actions`).
            faults += _check_actions(record, setup, t, cards, unchecked, to_play)
    elif signed and require_actions:
        # Deleting the actions must not skip the rules: the seats signed these moves.
        faults.append(
            AuditFault(
                None,
                f"the record has no actions though the seats signed {len(signed)}: "
                "the game cannot be checked against the rules",
            )
        )
    return report(cards, {"messages": len(log), "positions": len(decoded)})


def _signed_actions(log: Sequence[Message]) -> list[tuple[int, dict[str, Any]]]:
    """The game actions the seats signed, in the host's order: one per `Act`, one per `Play`
    except that the plays of one multi-card attack (consecutive, the same signed action) are
    one action."""
    out: list[tuple[int, dict[str, Any]]] = []
    run = 0
    for m in log:
        if isinstance(m, Act):
            out.append((m.seat, dict(m.action)))
            run = 0
        elif isinstance(m, Play):
            cards = m.action.get("cards")
            width = len(cards) if isinstance(cards, list) else 1
            if run and out[-1] == (m.seat, dict(m.action)) and run < width:
                run += 1
            else:
                out.append((m.seat, dict(m.action)))
                run = 1
    return out


def _check_signed(
    actions: Any, signed: Sequence[tuple[int, Mapping[str, Any]]]
) -> list[AuditFault]:
    """Promise 5: every action of the record is the one its seat signed, and no signed action
    is missing (the host orders, it does not forge)."""
    if not isinstance(actions, list):
        return [AuditFault(None, "the record's actions are not a list")]
    for i, (raw, (seat, mine)) in enumerate(zip(actions, signed, strict=False)):
        try:
            theirs = Action.from_dict(mine, seat=seat)
            ok = theirs.seat == seat and Action.from_dict(raw).to_dict() == theirs.to_dict()
        except (ValueError, TypeError):
            ok = False
        if not ok:
            return [AuditFault(None, f"action {i} of the record is not the one seat {seat} signed")]
    if len(actions) != len(signed):
        return [
            AuditFault(
                None,
                f"the record has {len(actions)} actions, the seats signed {len(signed)}",
            )
        ]
    return []


def _proven(t: Transcript, msg: Message) -> bool:
    """Whether ``msg`` (not yet accepted into ``t``) carries its seat's valid signature or proof
    for the state ``t`` holds, and is not a copy of a message already in the log: only then
    does a fault it causes prove its seat at fault."""
    if msg in t.log or t.game_id is None or not 0 <= msg.seat < t.n:
        return False
    try:
        if isinstance(msg, Commit):
            return schnorr_verify(GROUP.check(msg.key), msg.proof, t.ctx(msg.seat, "commit"))
        y = t.key_of(msg.seat)
        if isinstance(msg, Shuffle):
            digest = shuffle_digest(t.previous_stage(), msg.deck, msg.shuffle_proof)
            return schnorr_verify(y, msg.proof, t.ctx(msg.seat, "shuffle", (), digest))
        if isinstance(msg, Act):
            ctx = t.ctx(msg.seat, "act", (), signed_action(msg.index, msg.action))
            return schnorr_verify(y, msg.proof, ctx)
        if isinstance(msg, Play | Answer):
            if isinstance(msg, Play):
                step = "show" if msg.shown else "play"
                extra = signed_action(msg.index, msg.action)
            else:
                step = f"not-me/{msg.rank}" if msg.position < 0 else f"show-lowest/{msg.rank}"
                extra = b""
            if msg.position < 0:
                # A "not me" carries its signature first, its proofs after (notme.py).
                sig = msg.proof[:64] if isinstance(msg, Answer) else msg.proof
                return schnorr_verify(y, sig, t.ctx(msg.seat, step, (), extra))
            ctx = t.ctx(msg.seat, step, (msg.position,), extra)
            if msg.position in t.public:
                return schnorr_verify(y, msg.proof, ctx)
            if not 0 <= msg.card < 52:
                return False
            _, z = t.position_value(msg.position)
            return dleq_verify(y, CARD_POINTS[CARDS[msg.card]], z, msg.proof, ctx)
    except (ValueError, OverflowError):  # the protocol's errors, a position out of range
        return False
    return False


def _revealed_inverses(log: Sequence[Message]) -> dict[int, Scalar]:
    """The inverses of the keys revealed in the log that match their commitments: with them
    the audit checks layer removals directly instead of their proofs."""
    committed = {m.seat: m.key for m in log if isinstance(m, Commit)}
    out: dict[int, Scalar] = {}
    for m in log:
        if not isinstance(m, KeyReveal) or m.seat not in committed:
            continue
        try:
            k = GROUP.check_scalar(m.key)
        except ValueError:
            continue
        if GROUP.mul_base(k) == committed[m.seat]:
            out[m.seat] = GROUP.scalar_invert(k)
    return out


def _proven_seats(faults: Sequence[AuditFault]) -> frozenset[int]:
    return frozenset(f.seat for f in faults if f.seat is not None)


def _aborted_seat(record: Mapping[str, Any]) -> int | None:
    """The seat the record's ``"aborted"`` names; -1 when it names none readably; None when
    the record says the game was not aborted."""
    raw = record.get("aborted")
    if raw is None:
        return None
    seat = raw.get("seat") if isinstance(raw, Mapping) else None
    return seat if isinstance(seat, int) and not isinstance(seat, bool) and seat >= 0 else -1


def _check_abort(record: Mapping[str, Any], faults: Sequence[AuditFault]) -> list[AuditFault]:
    """The record's ``"aborted"`` (the host ended the game because a seat broke the protocol,
    and every screen said so) must name a seat the log proves at fault: written into an honest
    game, it is the host's word against a seat nothing shows did anything."""
    seat = _aborted_seat(record)
    if seat is None or seat in _proven_seats(faults):
        return []
    if seat < 0:
        return [AuditFault(None, "the record says the game was aborted, but not for which seat")]
    return [
        AuditFault(
            None,
            f"the record says the game was aborted because seat {seat} broke the card-privacy "
            f"protocol, but nothing in the log shows a fault of seat {seat} (the host's word)",
        )
    ]


def _with_incomplete(faults: list[AuditFault], incomplete: bool) -> tuple[AuditFault, ...]:
    """An incomplete transcript is a fault of the record only when nothing else explains it
    (a game aborted for a named fault stops mid-batch)."""
    if incomplete and not faults:
        what = "the transcript is incomplete (a deal, refill or R-F1 step is missing)"
        faults = [AuditFault(None, what)]
    return tuple(faults)


def outcome_moves(outcome: Outcome) -> list[tuple[Any, ...]]:
    """The host's own privacy steps an action's outcome (`Game.apply`) calls for, in the form
    the audit compares: ``("refill", seats, taker or -1, the cards taken)`` when a bout ended
    and the game goes on (R-B12, R-B8; when it is over nobody draws), ``("return", cards,
    owners)`` when a caught cheat sent cards back (R-S3)."""
    moves: list[tuple[Any, ...]] = []
    if first(outcome, BoutEnded) is not None and first(outcome, Over) is None:
        refilled, taken = first(outcome, Refilled), first(outcome, Taken)
        seats = refilled.seats if refilled is not None else ()
        if taken is None:
            moves.append(("refill", seats, -1, frozenset()))
        else:
            moves.append(("refill", seats, taken.seat, frozenset(int(c) for c in taken.cards)))
    back = first(outcome, Returned)
    if back is not None:
        moves.append(("return", tuple(int(c) for c in back.cards), back.owners))
    return moves


def _check_actions(
    record: Mapping[str, Any],
    setup: Setup,
    t: Transcript,
    deck: tuple[Card, ...],
    unchecked: list[str],
    refused: Sequence[tuple[int, RefusedStep, Action]] = (),
) -> list[AuditFault]:
    """Replay the record's actions with the rules engine on the decoded deck: every action
    legal, the cards of the card-playing actions exactly the cards proven in the protocol, and
    every refill batch the one the rules call for (R-B12) with the right taker."""
    try:
        rules = Rules.from_dict(record.get("rules") or setup.rules)
        actions = [Action.from_dict(a) for a in record["actions"]]
        # A later game of a series: R-F2 picks the first attacker from the previous result.
        prev = record.get("previous")
        previous = GameResult.from_dict(prev) if isinstance(prev, Mapping) else None
        game = Game.deal(rules, setup.seats, setup.dealer, deck, previous=previous)
    except (ValueError, TypeError) as e:
        return [AuditFault(None, f"the record's rules or actions cannot be replayed: {e}")]
    first = t.first_attacker
    if setup.lowest_trump and first is not None and first.seat != game.attacker:
        # Everybody's engine started from the protocol's R-F1 answer; when a false "not me"
        # (named above) made it wrong, replaying from the true one would name the innocent seat
        # that attacked as the table expected.
        return [
            AuditFault(
                None,
                f"R-F1 gave the first attack to seat {first.seat}, the dealt cards to seat "
                f"{game.attacker}: the actions are not checked against the rules",
            )
        ]
    faults: list[AuditFault] = []
    played: list[tuple[int, int, bool]] = []
    bout_ends: list[tuple[Any, ...]] = []
    legal = True
    for i, action in enumerate([*actions, None]):
        for k, env, tried in refused:
            if k == i and legal:
                faults += _judge_refused_action(game, env, tried)
        if action is None:
            break
        try:
            outcome = game.apply(action)
        except ValueError as e:
            # Never the seat's fault alone: the host checks every action before it accepts it,
            # and it orders the seats' moves (each seat signs its own counter, nobody the order
            # across seats), so a host that swaps two seats' moves makes an honest move illegal.
            faults.append(
                AuditFault(
                    None,
                    f"action {i} of the record, seat {action.seat}'s, is illegal in the order the "
                    f"host accepted it: {e} (nothing shows seat {action.seat} did wrong)",
                )
            )
            legal = False
            break
        if action.do is Do.ATTACK:
            played += [(action.seat, int(c), False) for c in action.cards]
        elif action.do in (Do.COVER, Do.TRANSFER, Do.SHOW) and action.card is not None:
            played.append((action.seat, int(action.card), action.do is Do.SHOW))
        bout_ends += outcome_moves(outcome)
    proven = [(m.seat, m.card, m.shown) for m in t.log if isinstance(m, Play)]
    if proven != played:
        at = next((i for i, (a, b) in enumerate(zip(proven, played, strict=False)) if a != b), None)
        where = f"at card {at}" if at is not None else "in their number"
        faults.append(
            AuditFault(None, f"the record's card actions and the cards proven differ {where}")
        )
    moves: list[tuple[Any, ...]] = []
    for m in t.log:
        if isinstance(m, Refill):
            moves.append(("refill", m.seats, m.taker, frozenset(m.taken)))
        elif isinstance(m, Return):
            moves.append(("return", m.cards, m.owners))
    wrong = [k for k, move in enumerate(moves) if k >= len(bout_ends) or bout_ends[k] != move]
    if wrong:
        # The host's message (its seat field is 0 whoever hosts): the host/record's fault.  The
        # first one listed, the rest counted (after one, every later bout may differ).
        k = wrong[0]
        rules_ids = "R-B12, R-B8" if moves[k][0] == "refill" else "R-S3"
        more = f" (and {len(wrong) - 1} later one(s))" if len(wrong) > 1 else ""
        faults.append(
            AuditFault(
                None,
                f"the host's {moves[k][0]} {k + 1} does not follow the rules ({rules_ids}){more}",
            )
        )
    if legal and "result" in record:
        faults += _check_result(record, game, unchecked)
    return faults


def _claims_placed(ident: Identity, claims: list[RefusedStep]) -> list[AuditFault]:
    """Where the record says each refused step came must fit its seat's counter: after the
    seat's steps with a lower one (the host's counter then refuses those, a refused step
    advancing it too), and — in a record signed under `signing.ACTION_DOMAIN` (/5) — before
    its steps with a higher one: the seats signed under the rule that the host takes a seat's
    steps in the order of its counter (one connection delivers them so, a resend goes in that
    order), so a step placed after one its seat signed later did not come there; the host put
    it there (a move deleted and called refused where any step would have been refused, by its
    counter).  And a step placed before what its seat had seen when it signed it (its signed
    ``seen``) did not come there either.  Any misplacement is the record's: dropped from
    ``claims``, not judged.

    In a /4 record (the older domain, no such rule) a step placed after a later one of its
    seat may have come late (a resend after a reconnect) and been refused by the counter
    rightly: dropped from ``claims``, not judged.  reading: that is the host's word about when
    it came, so a /4 record cannot show a move deleted and placed so; the audit says so
    (`audit`'s "not checked")."""
    faults: list[AuditFault] = []
    for env in list(claims):
        if env.at < env.seen:
            claims.remove(env)
            faults.append(
                AuditFault(
                    None,
                    f"the host says seat {env.seat}'s step #{env.n} ({env.step}) came at message "
                    f"{env.at} of the log and was refused, but the seat signed it having seen "
                    f"{env.seen} messages: it did not come there — the record was altered (a "
                    f"move deleted and called refused?); nothing shows seat {env.seat} did wrong",
                )
            )
            continue
        before = [max(s.at) for s in ident.steps if s.seat == env.seat and s.n < env.n]
        after = [min(s.at) for s in ident.steps if s.seat == env.seat and s.n > env.n]
        if before and env.at <= max(before):
            claims.remove(env)
            faults.append(
                AuditFault(
                    None,
                    f"the host says it refused seat {env.seat}'s step #{env.n} at message "
                    f"{env.at} of the log, before a step of that seat with a lower counter it "
                    "accepted (which its counter would have refused then): the record was altered",
                )
            )
        elif after and env.at > min(after):
            claims.remove(env)
            if ident.ordered:
                n = min(s.n for s in ident.steps if s.seat == env.seat and s.n > env.n)
                faults.append(
                    AuditFault(
                        None,
                        f"the host says seat {env.seat}'s step #{env.n} ({env.step}) came at "
                        f"message {env.at} of the log and was refused, after that seat's step "
                        f"#{n} (message {min(after)}), which the seat signed later: a seat's "
                        "steps are taken in the order of its counter, so it did not come there "
                        "— the record was altered (a move deleted and called refused?); nothing "
                        f"shows seat {env.seat} did wrong",
                    )
                )
    return faults


def _unjustified(env: RefusedStep, why: str) -> AuditFault:
    if env.back:
        # Given back to a resumed host that had lost it (records.md "back"): the host took it
        # on the seat's word without judging it, so an unjustified one shows no forgery; the
        # seat's word (a refusal it never had) or the host's (one it invented) is wrong.
        return AuditFault(
            None,
            f"seat {env.seat}'s signed step #{env.n} ({env.step}) was given back to a resumed "
            f"host as refused by an earlier one, but {why}: the seat's word or the host's is "
            "wrong (no earlier host refused it so); nothing shows who",
        )
    return AuditFault(
        None,
        f"the host says it refused seat {env.seat}'s signed step #{env.n} ({env.step}), but "
        f"{why}: the refusal was not justified, so the record was altered (a move deleted and "
        f"called refused?); nothing shows seat {env.seat} did wrong",
    )


def _judge_refusal(
    t: Transcript,
    env: RefusedStep,
    ident: Identity | None,
    to_play: list[tuple[int, RefusedStep, Action]],
) -> list[AuditFault]:
    """A refused step replayed on a copy of the transcript where it came: refused by the
    protocol, it was justified; accepted, it is a fault (the record's), unless it is a game
    action, which the rules engine judges next (``to_play``)."""
    try:
        msgs = [message_from_json(m) for m in env.body]
    except (MessageError, ValueError, TypeError):
        return []  # no privacy message: rightly refused
    if (
        not msgs
        or any(m.seat != env.seat or isinstance(m, Refill | Return) for m in msgs)
        or any(env.step != m.KIND for m in msgs)
        or (len(msgs) > 1 and env.step != "play")
    ):
        return []
    action: Action | None = None
    if env.step in ("play", "act"):
        first = msgs[0]
        if not isinstance(first, Play | Act) or not t.deal_complete():
            return []  # not an action, or the cards were still being dealt
        try:
            action = Action.from_dict(first.action)
        except (ValueError, TypeError):
            return []
        if action.seat != env.seat or any(
            isinstance(m, Play | Act) and dict(m.action) != dict(first.action) for m in msgs
        ):
            return []
    trial = copy.deepcopy(t)
    trial.keep_evidence = False
    try:
        for m in msgs:
            trial.accept(m)
    except (RemoteProtocolError, ValueError):
        return []  # the protocol refuses it there: the host was right
    if action is None:
        return [_unjustified(env, "the card-privacy protocol accepts it where it came")]
    steps = ident.steps if ident is not None else ()
    k = sum(1 for s in steps if s.step in ("play", "act") and min(s.at) < env.at)
    to_play.append((k, env, action))
    return []


def _judge_refused_action(game: Game, env: RefusedStep, action: Action) -> list[AuditFault]:
    """A refused game action, its privacy messages valid where it came, on the rules engine
    (with every hand known) as the game stood then."""
    try:
        game.check(action)
    except (IllegalAction, ValueError):
        return []
    return [_unjustified(env, "its move was legal where it came (the rules engine accepts it)")]


def _check_result(record: Mapping[str, Any], game: Game, unchecked: list[str]) -> list[AuditFault]:
    """The record's ``result`` is the one the signed actions lead to (R-B14, R-T3, R-B15); a
    game the actions leave unfinished may only have ended by a forfeit (the host's word); a
    forfeit in a game they finish is made up."""
    raw = record["result"]
    try:
        claimed = GameResult.from_dict(raw) if isinstance(raw, Mapping) else None
    except (ValueError, TypeError):
        claimed = None
    if claimed is None:
        return [AuditFault(None, "the record's result cannot be read")]
    forfeit = record.get("forfeit")
    if game.result is not None:
        if claimed != game.result:
            return [
                AuditFault(
                    None,
                    f"the record's result ({_result_text(claimed)}) is not the one the signed "
                    f"actions lead to ({_result_text(game.result)})",
                )
            ]
        if forfeit is not None:
            # A seat written down as having stopped playing in a game it played to the end.
            return [
                AuditFault(
                    None,
                    f"the record says seat {forfeit!r} forfeited, but the signed actions finish "
                    "the game",
                )
            ]
        return []
    if isinstance(forfeit, int) and not isinstance(forfeit, bool) and claimed.durak == (forfeit,):
        unchecked.append(
            f"the forfeit: the host says seat {forfeit} stopped playing (a silence leaves nothing "
            "in the log)"
        )
        return []
    return [
        AuditFault(
            None,
            f"the record's result ({_result_text(claimed)}) but the signed actions do not finish "
            "the game (a signed action missing, or a result made up)",
        )
    ]


def _result_text(r: GameResult) -> str:
    if r.draw:
        return "a draw"
    return "durak " + ", ".join(f"seat {s}" for s in r.durak) if r.durak else "no durak"


def describe(report: AuditReport) -> str:
    if report.clean:
        return "clean"
    return "\n".join(str(f) for f in report.faults)


__all__ = [
    "CARDS",
    "AuditFault",
    "AuditReport",
    "AuditedSeat",
    "NotARecord",
    "audit",
    "describe",
]
