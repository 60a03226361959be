"""``localdurak identity``: this device's identity, as other commands show it (cli.md).

A player compares it with what ``localdurak audit RECORD`` prints beside his seat ("this is
the game I played": the record's signatures are his); the host's certificate fingerprint is
what ``join --fingerprint`` takes and what clients pin.  The identity is the one ``join`` and
``host`` use (``--profile`` picks another), made on first use as they would make it.

reading: "show a player his own fingerprint somewhere" — here, and `localdurak audit` marks
the seat of this device's identity; the lobby and game-over screens (golden 80×24 screens in
five languages) are left as they are.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from localdurak.cli.i18n import _
from localdurak.cli.net_words import net_reason
from localdurak.cli.options import client_parent
from localdurak.datadir import data_dir
from localdurak.net.identity import CERT_FILE, KEY_FILE, IdentityError, load_or_create
from localdurak.protocol.signing import key_fingerprint


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "identity",
        parents=[client_parent()],
        help=_("show this device's identity fingerprint (to find your seat in an audit)"),
        description=_(
            "Show this device's identity: the fingerprint that `localdurak audit` prints "
            "beside the seat you played, and the certificate fingerprint players pin when "
            "you host."
        ),
    )
    p.set_defaults(func=run)


def own_key() -> bytes | None:
    """This device's identity public key if it has one already (nothing is created), else
    None; for `localdurak audit` to mark the seat this device played."""
    d = data_dir()
    if not ((d / KEY_FILE).exists() and (d / CERT_FILE).exists()):
        return None
    try:
        return load_or_create(d).public_key
    except (IdentityError, OSError):
        return None


def run(args: argparse.Namespace) -> int:
    try:
        identity = load_or_create()
    except IdentityError as e:
        print(f"localdurak identity: {net_reason(str(e))}", file=sys.stderr)
        return 1
    print(
        _("your identity: {fingerprint}").format(fingerprint=key_fingerprint(identity.public_key))
    )
    print(_("  (localdurak audit prints it beside the seat you played)"))
    print(_("certificate fingerprint: {fingerprint}").format(fingerprint=identity.fingerprint))
    print(_("  (what players pin when you host: join --fingerprint)"))
    return 0
