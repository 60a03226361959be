"""The card-privacy transcript as the game record carries it (records.md: an extra key,
``"privacy"``, that other readers ignore).  Plain dicts in and out; JSON-safe (bytes as hex).

    "privacy": {
      "format": "localdurak-privacy/3",
      "setup": {"seats": 3, "deck": 36, "hand": 6, "dealer": 2, "japanese": false,
                "lowest_trump": true, "rules": {...}},
      "log": [ every message the host accepted, in its order, as Message.to_json() ],
      "refused": [ {"seat": 1, "reason": "...", "message": {...} or null}, ... ]
    }
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .messages import Message, MessageError, message_from_json
from .schedule import ScheduleError, Setup

FORMAT = "localdurak-privacy/3"
"""/3: every shuffle stage carries its proof of shuffle (privacy/shuffle.py).  /2: step 2b
(seeds committed in the nonces, the deal order), stages without proofs — still read, its
shuffles judged with the revealed keys (`is_legacy`).  A /1 transcript deals from the last
shuffle stage as it stands and cannot be replayed by this protocol."""
LEGACY_FORMATS = frozenset({"localdurak-privacy/2"})


def is_legacy(d: Any) -> bool:
    """Whether a ``"privacy"`` value is of a format before proofs of shuffle."""
    return isinstance(d, Mapping) and d.get("format") in LEGACY_FORMATS


class TranscriptError(ValueError):
    """A ``"privacy"`` value that is not a transcript of this protocol."""


def transcript_to_dict(
    setup: Setup, log: Sequence[Message], refused: Sequence[Mapping[str, Any]] = ()
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "setup": setup.to_dict(),
        "log": [m.to_json() for m in log],
        "refused": [dict(r) for r in refused],
    }


def transcript_from_dict(d: Any) -> tuple[Setup, list[Message], list[dict[str, Any]]]:
    """(setup, accepted messages, refused attempts) from a record's ``"privacy"`` value."""
    if not isinstance(d, Mapping) or (d.get("format") != FORMAT and not is_legacy(d)):
        raise TranscriptError(f"the privacy transcript is not {FORMAT}")
    try:
        setup = Setup.from_dict(d["setup"])
        log = [message_from_json(m) for m in d["log"]]
    except (KeyError, TypeError, ScheduleError, MessageError) as e:
        raise TranscriptError(f"the privacy transcript is damaged: {e}") from None
    refused = d.get("refused", [])
    if not isinstance(refused, list) or not all(isinstance(r, Mapping) for r in refused):
        raise TranscriptError("the privacy transcript's 'refused' is not a list of objects")
    return setup, log, [dict(r) for r in refused]
