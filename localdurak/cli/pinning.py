"""Pinned hosts for the client (lan.md: "remembers hosts it has played with"; lan.md
"Trust"): trust on first use, keyed by the host device's certificate fingerprint.

Before joining, `pin` gives a typed address the fingerprint remembered for it, and refuses a
known table whose advertised fingerprint changed; after joining, `remember` writes
``known_hosts.json``.  A changed table is refused with `changed_text`, which says what
changed and how to accept the new certificate knowingly (``--fingerprint``: a person who
gives the fingerprint has checked it, and the new one replaces the old).
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from localdurak.cli.i18n import _
from localdurak.net.api import TableError
from localdurak.net.client import Address, ClientSession
from localdurak.net.known_hosts import HostChanged, KnownHosts


def where(address: Address) -> str:
    return f"{address.host}:{address.port}"


def pin(address: Address, name: str = "", *, accept: bool = False) -> None:
    """Pin the remembered fingerprint on a typed address; `HostChanged` when the table
    known there comes with another one (``accept``: the person gave it, knowingly)."""
    if accept:
        return
    known = KnownHosts.load()
    if address.fingerprint is None:
        host = known.for_address(where(address))
        if host is not None:
            address.fingerprint = host.fingerprint
        return
    known.check(where=where(address), name=name, fingerprint=address.fingerprint)


def changed(address: Address, error: TableError, name: str = "") -> HostChanged | None:
    """The `HostChanged` behind a join refused for a pinned fingerprint (else None)."""
    if error.fingerprint_shown is None or address.fingerprint is None:
        return None
    return HostChanged(
        name or address.host, where(address), address.fingerprint, error.fingerprint_shown
    )


async def remember_named(session: ClientSession, timeout: float = 2.0) -> None:
    """`remember`, once the table has said its name (its lobby comes just after joining)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while session.lobby_view is None and loop.time() < end and not session.closed:
        await asyncio.sleep(0.05)
    remember(session)


def remember(session: ClientSession) -> None:
    """The table just joined, trusted from now on (its fingerprint, name and address)."""
    fingerprint = session.address.fingerprint
    if fingerprint is None:
        return
    with contextlib.suppress(OSError):  # a convenience, not a reason to refuse the game
        KnownHosts.load().remember(
            fingerprint, name=session.table_name, address=where(session.address), now=time.time()
        )


def changed_text(e: HostChanged) -> str:
    """What changed, and how to accept it knowingly."""
    return _(
        "{name} at {where} shows another certificate than the one this device trusted: it "
        "was {old}…, now {new}…. If its host set up his laptop again, compare the pairing "
        "code on both screens, then accept it knowingly with: localdurak join --address "
        "{where} --fingerprint {full}. Otherwise someone may be in between: do not join."
    ).format(name=e.name, where=e.where, old=e.old[:16], new=e.new[:16], full=e.new)
