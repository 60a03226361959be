"""A game's record as the records folder holds it: the finished record (one JSON object) or
the live game's journal (JSON Lines, records.md journal), both read by `audit` and `replay`."""

from __future__ import annotations

import json
import sys
from typing import Any

from localdurak.cli.i18n import _
from localdurak.protocol.records import JOURNAL_FORMAT, RecordError, read_journal

MAX_BYTES = 64 << 20
"""More than any game's record or journal (a 52-card game at six seats is a few MB): a bigger
file (or /dev/zero) is refused before it fills the memory."""


def read(path: str) -> bytes:
    """The bytes of the record at ``path`` (``-``: standard input); an `OSError` with the
    reason (``strerror``) when unreadable or too large to be a record."""
    if path == "-":
        data = sys.stdin.buffer.read(MAX_BYTES + 1)
    else:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise OSError(0, f"larger than {MAX_BYTES >> 20} MB: not a game record")
    return data


def is_journal(data: bytes) -> bool:
    """Whether ``data`` starts with a journal's header line."""
    first = data.split(b"\n", 1)[0]
    try:
        head = json.loads(first)
    except (ValueError, RecursionError):  # no JSON, no UTF-8, a number too long to read
        return False
    return isinstance(head, dict) and head.get("journal") == JOURNAL_FORMAT


UNFINISHED = (
    "the journal of a game that has not ended: its deck and card-privacy transcript are "
    "written when the game ends"
)


def said(e: Exception) -> str:
    """Why a file is not a record, in the player's language where a player meets it (a
    journal of a game not over, a file without the transcript); the format's own details
    (which field is wrong) stay as the checks word them, like a protocol violation's."""
    text = str(e)
    if text == UNFINISHED:
        return _(
            "the journal of a game that has not ended: its deck and card-privacy transcript "
            "are written when the game ends"
        )
    if text == "not a game record with a card-privacy transcript ('privacy')":
        return _("not a game record with a card-privacy transcript")
    if text == "not JSON: nested too deeply":
        return _("not JSON: nested too deeply")
    prefix = "not JSON this program reads: "
    if text.startswith(prefix):
        return _("not JSON this program reads: {reason}").format(reason=text[len(prefix) :])
    return text


def load(data: bytes, *, need: str = "deck") -> Any:
    """The record object of a record or a journal; `RecordError` when a journal is not that of
    a finished game yet (it lacks ``need``), a JSON error for a file that is no JSON."""
    if is_journal(data):
        record = read_journal(data)
        # The host's raw log of the card-privacy messages: the record keeps the transcript.
        record.pop("privacy_log", None)
        if need not in record:
            raise RecordError(UNFINISHED)
        return record
    text = data.decode("utf-8")
    try:
        return json.loads(text)
    except RecursionError:
        raise RecordError("not JSON: nested too deeply") from None
    except json.JSONDecodeError:
        raise
    except ValueError as e:  # a number with more digits than Python converts
        raise RecordError(f"not JSON this program reads: {e}") from None


__all__ = ["MAX_BYTES", "RecordError", "is_journal", "load", "read", "said"]
