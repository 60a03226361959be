"""The event loop every command runs on: uvloop where it is installed, else asyncio's own.

uvloop is libuv's loop and a TLS layer written in Cython, with asyncio's interface: net/ is
the same code on either loop.  On it, a player's client spends less CPU taking a relayed step
from the socket to its own code than on asyncio's loop, whose TLS layer is Python; with every
seat of a table on one laptop woken by the same step, that CPU is most of how long the last
seat waits (benchmarks/net.py --game, docs/architecture.md).  ``LOCALDURAK_LOOP=asyncio``
runs a command on asyncio's own loop instead (to compare the two, or to rule the loop out when
something goes wrong).  uvloop is not made for Windows: there, asyncio's loop is used."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger("localdurak.cli")


def uvloop_wanted() -> bool:
    """Whether commands run on uvloop: installed, and not turned off by the environment
    (``LOCALDURAK_LOOP``: ``asyncio``, or ``uvloop``, the default; anything else is a typo,
    said in the log, and the default stands)."""
    wanted = os.environ.get("LOCALDURAK_LOOP", "").strip().lower()
    if wanted == "asyncio":
        return False
    if wanted not in ("", "uvloop"):
        log.warning("LOCALDURAK_LOOP=%r is neither asyncio nor uvloop: uvloop is used", wanted)
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return False
    return True


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run`, on uvloop where it may be used (`uvloop_wanted`)."""
    if uvloop_wanted():
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)
