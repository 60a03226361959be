"""``localdurak tables [--timeout S] [--json]``: list the tables on the local network (cli.md)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from localdurak.cli import loop
from localdurak.cli.i18n import _
from localdurak.cli.net_words import net_reason
from localdurak.cli.options import client_parent
from localdurak.net.discovery import DiscoveryUnavailable, TableInfo, browse


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "tables",
        parents=[client_parent()],
        help=_("list the tables on the local network"),
        description=_("Look for Local Durak tables on the local network (mDNS) and list them."),
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=2.0,
        metavar="S",
        help=_("seconds to listen for tables (default 2)"),
    )
    p.add_argument("--json", action="store_true", help=_("print a JSON list, one object per table"))
    p.set_defaults(func=run)


def _line(t: TableInfo) -> str:
    where = ", ".join(f"{a}:{t.port}" for a in t.addresses)
    seats = _("{a}/{b} seats").format(a=t.seats_taken, b=t.seats_total)
    states = {"lobby": _("lobby"), "playing": _("playing")}
    state = states.get(t.state.value, t.state.value)
    note = (
        ""
        if t.compatible
        else "  " + _("(needs protocol {a}-{b})").format(a=t.min_version, b=t.max_version)
    )
    return f"{t.instance}  {seats}  {state}  {t.rules}  {where}{note}"


def run(args: argparse.Namespace) -> int:
    if not 0 < args.timeout <= 600:
        print(
            "localdurak tables: " + _("--timeout must be between 0 and 600 seconds"),
            file=sys.stderr,
        )
        return 2
    try:
        tables = loop.run(browse(args.timeout))
    except DiscoveryUnavailable as e:
        print(f"localdurak tables: {net_reason(str(e))}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([t.to_json() for t in tables], ensure_ascii=False))
        return 0
    if not tables:
        print(
            _(
                "No tables found on the local network. If the host is running, multicast may "
                "be blocked here: join with --address HOST:PORT (the host's screen shows it)."
            )
        )
        return 0
    for t in tables:
        print(_line(t))
    return 0
