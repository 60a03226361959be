"""`localdurak audit RECORD`: audit a finished game's card-privacy transcript (cli.md).

Exit 0 printing "clean"; exit 1 naming each seat that broke the protocol and how; exit 2 when
the file is not a game record with a card-privacy transcript (the reason on standard error).
Then who played each seat — the name and the device identity fingerprint its signatures
prove (a /4 record), so a player can say "this is the game I played" (the seat of this
device's identity, `localdurak identity`, is marked) — and what the audit
could not check in this record (an older format, a forfeit that is the host's word).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from localdurak.cli import record_file
from localdurak.cli.i18n import _
from localdurak.cli.options import client_parent

from ..protocol.privacy.audit import NotARecord, audit
from ..protocol.signing import key_fingerprint
from .cmd_identity import own_key

RECORD_FORMAT = "localdurak-record/1"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "audit",
        parents=[client_parent()],
        help=_("audit a finished game's card-privacy transcript"),
        description=_(
            "Check a game record's card-privacy transcript: every proof, every "
            "shuffle and every claim, with the keys revealed at the end."
        ),
    )
    p.add_argument(
        "record",
        metavar="RECORD",
        help=_("a game record (JSON) or its journal (.journal), as the host writes them"),
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        record = record_file.load(record_file.read(args.record), need="privacy")
    except OSError as e:
        print(
            "localdurak audit: "
            + _("cannot read {path}: {reason}").format(path=args.record, reason=e.strerror),
            file=sys.stderr,
        )
        return 2
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        print(
            "localdurak audit: "
            + _("{path} is not JSON: {reason}").format(path=args.record, reason=e),
            file=sys.stderr,
        )
        return 2
    except record_file.RecordError as e:
        print(f"localdurak audit: {args.record}: {record_file.said(e)}", file=sys.stderr)
        return 2
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        print(
            "localdurak audit: "
            + _("{path} is not a {format} game record").format(
                path=args.record, format=RECORD_FORMAT
            ),
            file=sys.stderr,
        )
        return 2
    try:
        # A game record: its actions must be there (deleting them must not skip the rules).
        report = audit(record, require_actions=True)
    except NotARecord as e:
        print(f"localdurak audit: {args.record}: {record_file.said(e)}", file=sys.stderr)
        return 2
    if report.clean:
        print("clean")
    for fault in report.faults:
        print(fault)
    mine = own_key()
    for seat in report.seats:
        line = _("seat {seat}: {name}, identity {fingerprint}").format(
            seat=seat.seat, name=seat.name, fingerprint=seat.fingerprint
        )
        if mine is not None and seat.fingerprint == key_fingerprint(mine):
            # The identity of this device (`localdurak identity`): the seat its owner played.
            line += " " + _("(this device: you)")
        print(line)
    for what in report.unchecked:
        print(_("not checked: {what}").format(what=what))
    return 0 if report.clean else 1
