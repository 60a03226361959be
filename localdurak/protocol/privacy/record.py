"""The card-privacy transcript as the game record carries it (records.md: an extra key,
``"privacy"``, that other readers ignore).  Plain dicts in and out; JSON-safe (bytes as hex).

    "privacy": {
      "format": "localdurak-privacy/5",
      "setup": {"seats": 3, "deck": 36, "hand": 6, "dealer": 2, "japanese": false,
                "lowest_trump": true, "rules": {...}},
      "log": [ every message the host accepted, in its order, as Message.to_json() ],
      "refused": [ {"seat": 1, "reason": "...", "message": {...} or null}, ... ],
      "identity": {
        "game": "<hex>", "number": 0, "rules": {...}, "dealer": 2,
        "names": ["Anna", ...], "keys": ["<hex identity key>", ...], "previous": null,
        "steps": [ {"seat": 1, "n": 0, "step": "nonce", "sig": "<hex>", "at": [0], "seen": 0},
                   ... ],
        "refused": [[seat, n, {"step": "play", "sig": "<hex>", "body": [...], "at": 140,
                               "seen": 138}], ...]
      }
    }

``identity`` (/5, /4) binds the transcript to the people who played: the game as the host
announced it (`GameStarted`), each seat's device identity key, and every signed step the host
accepted — its seat, its counter ``n``, its signature, and the positions in ``log`` of the
privacy messages it carried (its body is those messages' ``to_dict()``) — plus the counters
of the steps the host refused, which explain the gaps, each with the step itself as its seat
signed it (its name, signature and body) and ``at``, the length of the log when it came: the
audit checks the refusal was justified (privacy/binding.py, privacy/audit.py).  In /5 the seats
signed under the rule that the host takes a seat's steps in the order of its counter, so a
refused step must come after its seat's lower counters and before its higher ones; and each
step signs ``seen``, how many messages of the log its seat had taken, so no step (accepted or
refused) can come before them; a /4
record (signed under the older domain) cannot show that, and its audit says so.  A refusal of
an older record is a bare ``[seat, n]``: the audit says it cannot be checked.  A transcript
without the section is still read, and its audit says what it cannot check: a /3 one (what
the privacy `Host` alone keeps, as the in-memory tests do) or a /2 one (no proofs of shuffle
either).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..signing import ACTION_DOMAIN, UNORDERED_DOMAIN
from .messages import Message, MessageError, message_from_json
from .schedule import ScheduleError, Setup

FORMAT = "localdurak-privacy/6"
"""/6: a /3 transcript with its identity section (who played, their signatures, the signed
setup), its steps signed under `signing.ACTION_DOMAIN` (the host takes a seat's steps in the
order of its counter), its shuffle stages proven by second-version proofs of shuffle (the
chain's links proven as one combination, privacy/shuffle.py): what the host writes."""
FORMAT_5 = "localdurak-privacy/5"
"""/5: the same with first-version proofs of shuffle: read and checked as before (the verifier
judges either version); the new format only keeps an older audit, which knows the first
version alone, from blaming an honest shuffler for a proof it cannot read."""
FORMAT_4 = "localdurak-privacy/4"
"""/4: the same, signed under `signing.UNORDERED_DOMAIN`: still read, but where the host says a
refused step came is its word (`Identity.ordered`)."""
FORMAT_3 = "localdurak-privacy/3"
"""/3: every shuffle stage carries its proof of shuffle (privacy/shuffle.py), no identity
section: what the privacy `Host` alone keeps (`transcript_to_dict`)."""
LEGACY_FORMATS = frozenset({"localdurak-privacy/2"})
"""/2: step 2b (seeds committed in the nonces, the deal order), stages without proofs — still
read, its shuffles judged with the revealed keys (`is_legacy`).  A /1 transcript deals from the
last shuffle stage as it stands and cannot be replayed by this protocol."""
OLDEST = "localdurak-privacy/1"
"""Refused by name (`transcript_from_dict`), so its audit says why."""
IDENTITY_FORMATS = frozenset({FORMAT, FORMAT_5, FORMAT_4})
"""The formats with an identity section."""
FORMATS = frozenset({FORMAT, FORMAT_5, FORMAT_4, FORMAT_3}) | LEGACY_FORMATS
WITHOUT_IDENTITY = "a transcript without identity signatures"


def is_legacy(d: Any) -> bool:
    """Whether a ``"privacy"`` value is of a format before proofs of shuffle."""
    return (
        isinstance(d, Mapping) and isinstance(fmt := d.get("format"), str) and fmt in LEGACY_FORMATS
    )


class TranscriptError(ValueError):
    """A ``"privacy"`` value that is not a transcript of this protocol."""


@dataclass(frozen=True, slots=True)
class SignedStep:
    """One step a seat signed with its identity key, as the host accepted it."""

    seat: int
    n: int
    step: str
    sig: bytes
    at: tuple[int, ...]
    """Positions in the log of the privacy messages the step carried, in order."""
    seen: int = 0
    """How many messages of the log its seat had taken when it signed it (/5: signed)."""


@dataclass(frozen=True, slots=True)
class RefusedStep:
    """A signed step the host says it refused, as its seat sent it (records.md)."""

    seat: int
    n: int
    step: str
    sig: bytes
    body: tuple[Any, ...]
    """The step's privacy messages (``Message.to_json()``; their ``to_dict()`` is what the
    seat signed)."""
    at: int
    """The length of the log when it came: where its refusal is judged."""
    seen: int = 0
    """How many messages of the log its seat had taken when it signed it (/5: signed)."""
    back: bool = False
    """Given back by its seat to a host that resumed without it (the journal's tail lost):
    the seat's word, or the host's, that an earlier host refused it (``"back": true``)."""


@dataclass(frozen=True, slots=True)
class Identity:
    """The record's ``identity`` section (/3)."""

    game: bytes
    number: int
    rules: dict[str, Any]
    dealer: int
    names: tuple[str, ...]
    keys: tuple[bytes, ...]
    previous: dict[str, Any] | None
    steps: tuple[SignedStep, ...]
    refused: tuple[tuple[int, int], ...]
    envelopes: tuple[RefusedStep | None, ...] = ()
    """Per refusal (same order as ``refused``): the step refused, None for a bare claim."""
    ordered: bool = True
    """Signed under `signing.ACTION_DOMAIN` (/5): the host took each seat's steps in the order
    of its counter, so where a refused step came is bounded by its seat's other steps.  False
    for /4 (`signing.UNORDERED_DOMAIN`)."""

    @property
    def domain(self) -> bytes:
        """The domain its seats signed under."""
        return ACTION_DOMAIN if self.ordered else UNORDERED_DOMAIN


def refusal_to_json(seat: int, n: int, envelope: Mapping[str, Any] | None) -> list[Any]:
    """One ``identity.refused`` entry: ``[seat, n]``, with the refused step if there is one
    (``envelope``: its ``step``, ``sig`` (bytes), ``body``, ``at`` and ``seen``)."""
    if envelope is None:
        return [seat, n]
    out = {
        "step": envelope["step"],
        "sig": bytes(envelope["sig"]).hex(),
        "body": list(envelope["body"]),
        "at": envelope["at"],
    }
    if "seen" in envelope:  # (a step journaled before steps signed it has none: 0)
        out["seen"] = envelope["seen"]
    if envelope.get("back"):  # given back by its seat after a resume (`RefusedStep.back`)
        out["back"] = True
    return [seat, n, out]


def transcript_to_dict(
    setup: Setup, log: Sequence[Message], refused: Sequence[Mapping[str, Any]] = ()
) -> dict[str, Any]:
    """The transcript alone (/3): what the privacy `Host` keeps; `with_identity` makes it /4."""
    return {
        "format": FORMAT_3,
        "setup": setup.to_dict(),
        "log": [m.to_json() for m in log],
        "refused": [dict(r) for r in refused],
    }


def with_identity(
    transcript: Mapping[str, Any],
    *,
    game: bytes,
    number: int,
    rules: Mapping[str, Any],
    dealer: int,
    names: Sequence[str],
    keys: Sequence[bytes],
    previous: Mapping[str, Any] | None,
    steps: Sequence[Mapping[str, Any]],
    refused: Sequence[tuple[Any, ...]],
) -> dict[str, Any]:
    """A /3 transcript with its ``identity`` section: a /4 one."""
    return {
        **transcript,
        "format": FORMAT,
        "identity": {
            "game": game.hex(),
            "number": number,
            "rules": dict(rules),
            "dealer": dealer,
            "names": list(names),
            "keys": [k.hex() for k in keys],
            "previous": dict(previous) if previous is not None else None,
            "steps": [
                {
                    "seat": s["seat"],
                    "n": s["n"],
                    "step": s["step"],
                    "sig": bytes(s["sig"]).hex(),
                    "at": list(s["at"]),
                    "seen": s.get("seen", 0),
                }
                for s in steps
            ],
            # (seat, n) or (seat, n, the refused step): see `refusal_to_json`.
            "refused": [refusal_to_json(r[0], r[1], r[2] if len(r) > 2 else None) for r in refused],
        },
    }


def transcript_from_dict(d: Any) -> tuple[Setup, list[Message], list[dict[str, Any]]]:
    """(setup, accepted messages, refused attempts) from a record's ``"privacy"`` value."""
    if isinstance(d, Mapping) and d.get("format") == OLDEST:
        raise TranscriptError(
            f"a {OLDEST} transcript (dealt from the last shuffle stage, before the deal order "
            "of the seeds) cannot be replayed by this version: nothing in it can be checked "
            f"(this version reads {FORMAT}, {FORMAT_5}, {FORMAT_4}, {FORMAT_3} and "
            "localdurak-privacy/2)"
        )
    # A format that is a list or a dict is no format (and no set member: unhashable).
    if (
        not isinstance(d, Mapping)
        or not isinstance(d.get("format"), str)
        or d["format"] not in FORMATS
    ):
        raise TranscriptError(
            f"the privacy transcript is not {FORMAT} (nor {FORMAT_5}, {FORMAT_4}, {FORMAT_3} or "
            "localdurak-privacy/2)"
        )
    try:
        setup = Setup.from_dict(d["setup"])
        log = [message_from_json(m) for m in d["log"]]
    # OverflowError: a number of the setup that is Infinity (JSON as Python reads it).
    except (KeyError, TypeError, ValueError, OverflowError, ScheduleError, MessageError) as e:
        raise TranscriptError(f"the privacy transcript is damaged: {e}") from None
    refused = d.get("refused", [])
    if not isinstance(refused, list) or not all(isinstance(r, Mapping) for r in refused):
        raise TranscriptError("the privacy transcript's 'refused' is not a list of objects")
    return setup, log, [dict(r) for r in refused]


def _int(v: Any, what: str, lo: int = 0, hi: int = 2**53) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise TranscriptError(f"the identity section's {what} is not a number in {lo}..{hi}")
    return v


def _hex(v: Any, what: str, size: int | None = None) -> bytes:
    try:
        b = bytes.fromhex(v) if isinstance(v, str) else None
    except ValueError:
        b = None
    if b is None or (size is not None and len(b) != size):
        raise TranscriptError(f"the identity section's {what} is not hex bytes")
    return b


def identity_from_dict(d: Any) -> Identity | None:
    """The ``identity`` section of a record's ``"privacy"`` value; None for a /3 or /2
    transcript.  A /5 or /4 transcript without a well-formed one raises `TranscriptError`."""
    if not isinstance(d, Mapping) or d.get("format") not in IDENTITY_FORMATS:
        return None
    raw = d.get("identity")
    if not isinstance(raw, Mapping):
        raise TranscriptError(f"a {d['format']} transcript without its identity section")
    names = raw.get("names")
    keys = raw.get("keys")
    if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
        raise TranscriptError("the identity section's names are not a list of names")
    if not isinstance(keys, list) or len(keys) != len(names):
        raise TranscriptError("the identity section has not one key per name")
    rules = raw.get("rules")
    previous = raw.get("previous")
    if not isinstance(rules, Mapping) or not (previous is None or isinstance(previous, Mapping)):
        raise TranscriptError("the identity section's rules or previous result are not objects")
    steps_raw = raw.get("steps")
    refused_raw = raw.get("refused", [])
    if not isinstance(steps_raw, list) or not isinstance(refused_raw, list):
        raise TranscriptError("the identity section's steps or refusals are not lists")
    n = len(names)
    # /4 signed no ``seen``: one written there is nobody's.
    ordered = d["format"] in (FORMAT, FORMAT_5)
    steps: list[SignedStep] = []
    for i, s in enumerate(steps_raw):
        if not isinstance(s, Mapping):
            raise TranscriptError(f"signed step {i} is not an object")
        at = s.get("at")
        step = s.get("step")
        if not isinstance(at, list) or not at or not isinstance(step, str):
            raise TranscriptError(f"signed step {i} has no step name or no messages")
        steps.append(
            SignedStep(
                _int(s.get("seat"), f"step {i}'s seat", 0, max(n - 1, 0)),
                _int(s.get("n"), f"step {i}'s counter"),
                step,
                _hex(s.get("sig"), f"step {i}'s signature", 64),
                tuple(_int(x, f"step {i}'s message position") for x in at),
                _int(s.get("seen", 0), f"step {i}'s messages seen") if ordered else 0,
            )
        )
    refused: list[tuple[int, int]] = []
    envelopes: list[RefusedStep | None] = []
    for i, r in enumerate(refused_raw):
        if not isinstance(r, list) or len(r) not in (2, 3):
            raise TranscriptError(f"refused step {i} is not [seat, n] or [seat, n, its step]")
        seat_n = (_int(r[0], "refused seat", 0, max(n - 1, 0)), _int(r[1], "refused counter"))
        refused.append(seat_n)
        envelopes.append(_envelope(r[2], i, *seat_n, ordered) if len(r) == 3 else None)
    return Identity(
        game=_hex(raw.get("game"), "game id"),
        number=_int(raw.get("number"), "game number"),
        rules=dict(rules),
        dealer=_int(raw.get("dealer"), "dealer", 0, max(n - 1, 0)),
        names=tuple(names),
        keys=tuple(_hex(k, f"key {i}", 32) for i, k in enumerate(keys)),
        previous=dict(previous) if previous is not None else None,
        steps=tuple(steps),
        refused=tuple(refused),
        envelopes=tuple(envelopes),
        ordered=ordered,
    )


def _envelope(e: Any, i: int, seat: int, n: int, ordered: bool) -> RefusedStep:
    if not isinstance(e, Mapping):
        raise TranscriptError(f"refused step {i}'s step is not an object")
    body = e.get("body")
    step = e.get("step")
    if not isinstance(body, list) or not isinstance(step, str):
        raise TranscriptError(f"refused step {i} has no step name or no body")
    return RefusedStep(
        seat,
        n,
        step,
        _hex(e.get("sig"), f"refused step {i}'s signature", 64),
        tuple(body),
        _int(e.get("at"), f"refused step {i}'s place in the log"),
        _int(e.get("seen", 0), f"refused step {i}'s messages seen") if ordered else 0,
        e.get("back") is True,
    )
