"""One identity, one seat (docs/cli.md "Profiles"): the commands that sit at a table claim
the identity first (`identity.claim`), and a second process of the same identity is refused
at once with what to do, instead of taking the first one's seat back and forth for ever.
``join --bot`` started again on the same laptop takes a profile of its own instead
(``bot-2``, ``bot-3``, …): every such start adds a bot."""

from __future__ import annotations

import sys

from localdurak import datadir
from localdurak.cli.i18n import _
from localdurak.net.identity import IdentityInUse, claim

BOT_PROFILES = 64
"""How many ``bot-N`` profiles ``join --bot`` tries before it gives up."""


def in_use_text(e: IdentityInUse) -> str:
    return _(
        "another localdurak (process {pid}) already plays with the identity in {folder}: "
        "one identity sits at one seat. To take another seat from this laptop, give this one "
        "an identity of its own: --profile NAME (kept in {home})"
    ).format(
        pid=e.pid if e.pid is not None else "?",
        folder=e.directory,
        home=datadir.home_dir() / datadir.PROFILES / "NAME",
    )


def claim_seat(command: str, *, bot: bool = False) -> bool:
    """Claim the identity of the profile in use for this process; on refusal say why and
    what to do, and return False.  ``bot`` (``join --bot`` without ``--profile``): take the
    first free ``bot-N`` profile instead of refusing."""
    try:
        claim()
        return True
    except IdentityInUse as e:
        first = e
    if not bot or datadir.profile() is not None:
        print(f"localdurak {command}: " + in_use_text(first), file=sys.stderr)
        return False
    for n in range(2, BOT_PROFILES + 2):
        name = f"bot-{n}"
        datadir.use_profile(name)
        try:
            claim()
        except IdentityInUse:
            continue
        print(
            f"localdurak {command}: "
            + _(
                "the identity in {folder} plays already (process {pid}): this bot takes its "
                "own, the profile {name} (started again with --profile {name}, it finds its "
                "seat)"
            ).format(folder=first.directory, pid=first.pid or "?", name=name),
            file=sys.stderr,
            flush=True,
        )
        return True
    datadir.use_profile(None)
    print(f"localdurak {command}: " + in_use_text(first), file=sys.stderr)
    return False
