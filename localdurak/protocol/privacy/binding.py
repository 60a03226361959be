"""The record bound to the people who played (docs/privacy.md "Who played"):
the checks of a record against its signed setup and its identity-signed steps, for the audit
(privacy/audit.py).  A fault here is the host's or the record's: nothing in a record that fails
these checks shows a seat did anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...game.rules import Rules
from ..errors import AuthFailed, ProtocolError
from ..signing import setup_digest, verify_action
from .messages import Message, MessageError, Refill, Return, message_from_json
from .record import Identity, RefusedStep
from .schedule import Setup
from .verdict import AuditFault


def check_setup(record: Mapping[str, Any], setup: Setup) -> list[AuditFault]:
    """The record's ``seats``, ``dealer`` and ``rules`` are the transcript's setup, which every
    proof binds (the game id hashes it, step 0)."""
    faults: list[AuditFault] = []
    if "seats" in record and record["seats"] != setup.seats:
        faults.append(
            AuditFault(
                None, f"the record says {record['seats']!r} seats, the protocol {setup.seats}"
            )
        )
    if "dealer" in record and record["dealer"] != setup.dealer:
        faults.append(
            AuditFault(None, f"the record's dealer is not the protocol's (seat {setup.dealer})")
        )
    if "rules" in record and not same_rules(record["rules"], setup.rules):
        faults.append(AuditFault(None, "the record's rules are not the ones the game was dealt by"))
    return faults


def same_rules(a: Any, b: Any) -> bool:
    try:
        return isinstance(a, Mapping) and Rules.from_dict(a) == Rules.from_dict(b)
    except (ValueError, TypeError):
        return False


_MANY = 3
"""Faults of one kind listed one by one; beyond that, counted."""


def check_identity(
    record: Mapping[str, Any],
    setup: Setup,
    log: Sequence[Message],
    ident: Identity,
    signed: set[int] | None = None,
    refusals: list[RefusedStep] | None = None,
) -> list[AuditFault]:
    """A /3 record: every message a seat made is in a step that seat signed with its identity
    key, under the digest of the setup it was told (`signing.setup_digest`: the game, the
    rules, the dealer, every name and key); no signed step is missing (each seat's counters
    run from 0 without a gap, but for the steps the host refused); the record's names and
    setup are the signed ones.  A fault here is the host's or the record's: nothing in a
    record that fails these checks shows a seat did anything.

    ``signed`` (if given) receives the index of every message of the log that is in a step
    its seat signed with its identity key over the signed setup: such a message is proven to
    be that seat's, whatever its protocol proof says (a wrong layer removal has no valid
    proof, but its identity signature names its seat).

    Every refusal the host claims carries the step refused, signed by its seat (else the
    claim could hide a deleted move: the host's word alone); ``refusals`` (if given) receives
    each such step whose refusal the audit still has to judge by replaying it where it came
    (privacy/audit.py): one that was no replay of a counter already used."""
    faults: list[AuditFault] = []
    n = len(ident.keys)
    if n != setup.seats or ident.dealer != setup.dealer or not same_rules(ident.rules, setup.rules):
        faults.append(AuditFault(None, "the transcript's setup is not the one the seats signed"))
    if "names" in record and record["names"] != list(ident.names):
        faults.append(AuditFault(None, "the record's names are not the ones the seats signed"))
    if "seats" in record and record["seats"] != n:
        faults.append(AuditFault(None, "the record's seats are not the ones the seats signed"))
    if "rules" in record and not same_rules(record["rules"], ident.rules):
        faults.append(AuditFault(None, "the record's rules are not the ones the seats signed"))
    if record.get("previous") != ident.previous and ("previous" in record or ident.previous):
        faults.append(
            AuditFault(None, "the record's previous result is not the one the seats signed")
        )
    if n != setup.seats:
        return faults
    try:
        digest = setup_digest(
            game=ident.game,
            number=ident.number,
            rules=ident.rules,
            dealer=ident.dealer,
            names=ident.names,
            keys=ident.keys,
            previous=ident.previous,
        )
    except ProtocolError as e:  # text no UTF-8 holds (a lone surrogate), a number out of range
        faults.append(
            AuditFault(
                None,
                f"the identity section cannot be the setup any seat signed ({e}): the record "
                "was altered, and nothing shows a seat made any of its steps",
            )
        )
        return faults
    covered: list[int | None] = [None] * len(log)
    last = [-1] * n
    used: list[set[int]] = [set() for _ in range(n)]
    accepted: dict[tuple[int, int], tuple[str, list[Any], int]] = {}
    """(seat, n) -> the step, its body and its first message's place, of each accepted step."""
    forged: list[int] = []
    early: list[int] = []
    for k, st in enumerate(ident.steps):
        if not all(0 <= i < len(log) for i in st.at) or len(set(st.at)) != len(st.at):
            faults.append(AuditFault(None, f"signed step {k} names messages the log does not hold"))
            continue
        msgs = [log[i] for i in st.at]
        try:
            verify_action(
                ident.keys[st.seat],
                st.sig,
                game=digest,
                seat=st.seat,
                n=st.n,
                kind=st.step,
                body=[m.to_dict() for m in msgs],
                seen=st.seen,
                domain=ident.domain,
            )
        except AuthFailed:
            forged.append(k)
            continue
        if any(m.seat != st.seat or isinstance(m, Refill | Return) for m in msgs):
            faults.append(
                AuditFault(None, f"signed step {k} holds a message not in its seat's name")
            )
            continue
        for i in st.at:
            if covered[i] is not None:
                faults.append(AuditFault(None, f"message {i} of the log is in two signed steps"))
            covered[i] = k
            if signed is not None:
                signed.add(i)
        if st.n <= last[st.seat]:
            faults.append(
                AuditFault(
                    None,
                    f"seat {st.seat}'s signed steps are out of their order in the record "
                    f"(#{st.n} after #{last[st.seat]})",
                )
            )
        if st.n in used[st.seat]:
            faults.append(AuditFault(None, f"seat {st.seat}'s signed step #{st.n} is there twice"))
        if min(st.at) < st.seen:
            early.append(k)
        used[st.seat].add(st.n)
        accepted.setdefault((st.seat, st.n), (st.step, [m.to_dict() for m in msgs], min(st.at)))
        last[st.seat] = max(last[st.seat], st.n)
    if forged:
        first = ident.steps[forged[0]]
        faults.append(
            AuditFault(
                None,
                f"{len(forged)} step(s) of the record do not carry their seat's identity "
                f"signature over the signed setup (the first: step {forged[0]}, seat "
                f"{first.seat}'s #{first.n}): the record was altered or made up, and nothing "
                "shows those seats made them",
            )
        )
    if early:
        first = ident.steps[early[0]]
        faults.append(
            AuditFault(
                None,
                f"{len(early)} signed step(s) are placed in the log before what their seat had "
                f"seen when it signed them (the first: seat {first.seat}'s #{first.n}, a "
                f"{first.step} at message {min(first.at)}, signed having seen {first.seen}): "
                "the host's order was rewritten; nothing shows those seats did wrong",
            )
        )
    unsigned = [
        i for i, m in enumerate(log) if covered[i] is None and not isinstance(m, Refill | Return)
    ]
    if unsigned:
        m = log[unsigned[0]]
        faults.append(
            AuditFault(
                None,
                f"{len(unsigned)} message(s) of the log are in no step their seat signed (the "
                f"first: message {unsigned[0]}, in seat {m.seat}'s name)",
            )
        )
    claimed = list(ident.refused)
    journal = record.get("privacy_refused")  # a journal not yet made a record lists them apart
    if isinstance(journal, list):
        claimed += [
            (r[0], r[1])
            for r in journal
            if isinstance(r, list) and len(r) in (2, 3) and all(type(x) is int for x in r[:2])
        ]
    faults += _check_claims(ident, digest, used, accepted, refusals)
    for seat, (name, ns) in enumerate(zip(ident.names, used, strict=True)):
        refused = {r for s, r in claimed if s == seat}
        every = ns | refused
        if not every:
            continue
        gaps = sorted(set(range(max(every) + 1)) - every)
        if gaps:
            shown = ", ".join(f"#{g}" for g in gaps[:_MANY]) + (" …" if len(gaps) > _MANY else "")
            faults.append(
                AuditFault(
                    None,
                    f"seat {seat} ({name})'s signed step(s) {shown} are not in the record: "
                    "deleted, or the record was cut",
                )
            )
    return faults


def _check_claims(
    ident: Identity,
    digest: bytes,
    used: Sequence[set[int]],
    accepted: Mapping[tuple[int, int], tuple[str, list[Any], int]],
    refusals: list[RefusedStep] | None,
) -> list[AuditFault]:
    """Each refusal of the identity section: the step it refused is there, and signed by its
    seat under the signed setup.  A refusal without it is the host's word alone (a record
    written before refusals carried their steps, or one whose moves were deleted and called
    refused): it cannot be checked, so the record cannot be clean.

    A refused step under a counter the host accepted another step of that seat under is a
    replay (the same step: refused rightly) or an equivocation: the seat signed two different
    steps with one counter, which an honest seat never does once the first was accepted (it
    learns that from the relay, and a restarted seat from the host's replay).  Refused after
    the accepted one, it names the seat: its two signatures are the proof.  Placed before it,
    the host accepted a counter it had already refused (its rule, or its record, was broken):
    the record's fault, the seat not named (a seat restarted from an old save may sign again
    under a counter whose step was refused while it was down)."""
    faults: list[AuditFault] = []
    bare: list[tuple[int, int]] = []
    envelopes = ident.envelopes or (None,) * len(ident.refused)
    for (seat, n), env in zip(ident.refused, envelopes, strict=True):
        if env is None:
            if n not in used[seat]:
                bare.append((seat, n))
            # else: a step whose signature failed (a corrupt copy, or one made in the seat's
            # name) under a counter its seat then had a step accepted under: it explains no
            # gap, and hides none.
            continue
        try:
            verify_action(
                ident.keys[seat],
                env.sig,
                game=digest,
                seat=seat,
                n=n,
                kind=env.step,
                body=(body := [message_from_json(m).to_dict() for m in env.body]),
                seen=env.seen,
                domain=ident.domain,
            )
        except (ProtocolError, MessageError, ValueError, TypeError):
            faults.append(
                AuditFault(
                    None,
                    f"the host says it refused seat {seat}'s step #{n}, but the step the record "
                    "gives for it does not carry that seat's identity signature: the record was "
                    f"altered, and nothing shows seat {seat} sent it",
                )
            )
            continue
        other = accepted.get((seat, n))
        if other is not None and (other[0], other[1]) != (env.step, body):
            faults.append(_equivocation(seat, n, other, env))
        elif n not in used[seat] and refusals is not None:
            refusals.append(env)  # a replay of a used counter was refused rightly
    if bare:
        shown = ", ".join(f"seat {s}'s #{n}" for s, n in bare[:_MANY])
        more = " …" if len(bare) > _MANY else ""
        faults.append(
            AuditFault(
                None,
                f"the host says it refused {len(bare)} signed step(s) ({shown}{more}) but the "
                "record does not carry them: the refusals cannot be checked (a record of an "
                "older version, or one whose moves were deleted and called refused), so the "
                "record may have been altered",
            )
        )
    return faults


def _equivocation(
    seat: int, n: int, accepted: tuple[str, list[Any], int], env: RefusedStep
) -> AuditFault:
    """Seat ``seat`` signed two different steps under its counter ``n``: the host accepted
    one (``accepted``: its step, body and first message's place) and says it refused the other
    (``env``).  See `_check_claims`."""
    step, _, at = accepted
    if env.at > at:
        return AuditFault(
            seat,
            f"signed two different steps with its counter #{n}: the {step} the host accepted "
            f"(message {at} of the log) and a {env.step} it refused after it (both carry the "
            "seat's identity signature; a seat signs each counter once)",
        )
    return AuditFault(
        None,
        f"the host says it refused seat {seat}'s step #{n} ({env.step}) before it accepted "
        f"another step of that seat with the same counter (a {step}, message {at} of the log): "
        "a counter once taken is refused as a replay, so the record was altered (nothing shows "
        f"seat {seat} did wrong)",
    )
