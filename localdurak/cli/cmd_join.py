"""``localdurak join [TABLE] [--address HOST:PORT] [--bot [--level L]] [--name NAME]``
(cli.md): join a table found on the network (by part of its name) or by address.  Without
``--bot`` the person plays in the terminal client (with neither TABLE nor ``--address``: the
lobby's list to pick from); with ``--bot`` a bot plays the seat and the
command exits 0 when the table closes.

It prints one JSON object per line: ``joined`` (seat, table), ``game_over`` (result, score),
``closed``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import json
import os
import random
import signal
import sys
from typing import Any

from localdurak.cli import loop, pinning
from localdurak.cli.i18n import _
from localdurak.cli.logs import setup_logging
from localdurak.cli.net_words import net_reason
from localdurak.cli.options import client_parent
from localdurak.cli.profiles import claim_seat
from localdurak.game.bots import BOT_LEVELS
from localdurak.net.api import TableError
from localdurak.net.client import Address, ClientSession, play_as_bot
from localdurak.net.discovery import DiscoveryUnavailable, TableBrowser
from localdurak.net.identity import IdentityError, load_or_create, normalize_fingerprint
from localdurak.net.known_hosts import HostChanged


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "join",
        parents=[client_parent()],
        help=_("join a table on the network"),
        description=_("Join a table by (part of) its name, or by address."),
    )
    p.add_argument(
        "table", nargs="?", default=None, metavar="TABLE", help=_("(part of) the table's name")
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="HOST:PORT",
        help=_("the address the host's screen shows"),
    )
    p.add_argument("--fingerprint", default=None, help=_("the host's certificate fingerprint"))
    p.add_argument("--bot", action="store_true", help=_("a bot plays the seat"))
    p.add_argument("--level", choices=BOT_LEVELS, default="normal", help=_("the bot's level"))
    p.add_argument("--name", default=None, help=_("your name at the table"))
    p.add_argument("--pin", default=None, metavar="CODE", help=_("the table's PIN, if it asks"))
    p.add_argument("--timeout", type=float, default=10.0, help=_("seconds to look for the table"))
    p.add_argument("--delay", type=float, default=0.0, help=_("seconds the bot thinks per move"))
    p.set_defaults(func=run)


_timing: list[dict[str, Any]] = []


def _print(event: dict[str, Any]) -> None:
    print(json.dumps(event, ensure_ascii=False), flush=True)


def _print_late(event: dict[str, Any]) -> None:
    """Timing lines (``LOCALDURAK_TRACE``; they carry their own time stamps), unflushed.  With
    ``LOCALDURAK_TRACE=late`` (benchmarks/net.py) they wait in memory until the table closes,
    so that measuring puts no pipe writes on the path it measures."""
    if os.environ.get("LOCALDURAK_TRACE") == "late":
        _timing.append(event)
    else:
        print(json.dumps(event, ensure_ascii=False))


def _flush_timing() -> None:
    for event in _timing:
        print(json.dumps(event, ensure_ascii=False))
    _timing.clear()
    sys.stdout.flush()


class NoSuchTable(TimeoutError):
    """No table of that name came within the time; ``seen``: the names of those that did."""

    def __init__(self, seen: list[str]) -> None:
        super().__init__("no such table")
        self.seen = seen


async def find(table: str | None, timeout: float) -> tuple[Address, str]:
    """The first table whose name contains ``table`` (any table when None), and its name;
    `NoSuchTable` with the tables seen meanwhile."""
    async with TableBrowser() as browser:
        want = (table or "").casefold()
        try:
            tables = await browser.wait_for(
                lambda ts: any(want in t.name.casefold() and t.compatible for t in ts), timeout
            )
        except TimeoutError:
            raise NoSuchTable(sorted({t.name for t in browser.tables})) from None
        t = next(t for t in tables if want in t.name.casefold() and t.compatible)
        return Address(t.addresses[0], t.port, t.fingerprint, tuple(t.addresses[1:])), t.name


def run(args: argparse.Namespace) -> int:
    setup_logging()
    if not args.bot:
        from localdurak.cli.cmd_play import has_terminal, setup_language

        if not setup_language(args):
            return 2
        if not has_terminal("join"):
            return 2
        if args.table is None and args.address is None:
            # cli.md: with no TABLE, pick from the list: the lobby's live list of tables.
            from localdurak.cli.cmd_lobby import run_lobby

            return run_lobby(args)
    if not claim_seat("join", bot=args.bot):
        return 1
    try:
        identity = load_or_create()
    except IdentityError as e:
        print(f"localdurak join: {net_reason(str(e))}", file=sys.stderr)
        return 1
    name = ""
    if args.fingerprint is not None:
        try:
            normalize_fingerprint(args.fingerprint)
        except IdentityError as e:
            print(f"localdurak join: {net_reason(str(e))}", file=sys.stderr)
            return 2
    if args.address is not None:
        try:
            address = Address.parse(args.address, args.fingerprint)
        except ValueError as e:
            print(f"localdurak join: {net_reason(str(e))}", file=sys.stderr)
            return 2
    else:
        # Say what we wait for, at once: the look lasts up to --timeout.
        what = _("a table named {name!r}").format(name=args.table) if args.table else _("a table")
        print(
            "localdurak join: "
            + _("looking for {what} on this network (up to {n} s)…").format(
                what=what, n=f"{args.timeout:g}"
            ),
            file=sys.stderr,
            flush=True,
        )
        try:
            address, name = loop.run(find(args.table, args.timeout))
        except DiscoveryUnavailable as e:
            print(f"localdurak join: {net_reason(str(e))}", file=sys.stderr)
            return 1
        except NoSuchTable as e:
            seen = (
                _("tables seen: {names}").format(names=", ".join(e.seen))
                if e.seen
                else _("no table answered")
            )
            print(
                "localdurak join: "
                + _("no such table found ({seen}); try --address HOST:PORT").format(seen=seen),
                file=sys.stderr,
            )
            return 1
    try:
        # Trust on first use (docs/lan.md "Trust"); --fingerprint accepts a new one knowingly.
        pinning.pin(address, name, accept=args.fingerprint is not None)
    except HostChanged as e:
        print("localdurak join: " + pinning.changed_text(e), file=sys.stderr)
        return 1
    if args.bot:
        from localdurak.cli.settings import clean_name

        player = clean_name(args.name or "") or f"Bot {random.randrange(1000)}"
    else:
        from localdurak.cli import settings

        player = settings.player_name(args.name)
    return loop.run(_play(identity, player, address, args))


async def _play_person(session: ClientSession, ascii_only: bool = False) -> int:
    """A person at the table: the terminal client on the network session.  A table that
    wants a PIN (or another one) asks for it on the terminal, as long as the host lets us
    try."""
    from localdurak.cli.app import DurakApp
    from localdurak.cli.netplay import join_table

    while True:
        try:
            await join_table(session)
            break
        except TableError as e:
            moved = pinning.changed(session.address, e)
            if moved is not None:
                print("localdurak join: " + pinning.changed_text(moved), file=sys.stderr)
                return 1
            if not e.pin_wanted:
                print(f"localdurak join: {net_reason(e.reason)}", file=sys.stderr)
                return 1
            if not sys.stdin.isatty():
                reason = _("{reason}; give it with --pin").format(reason=net_reason(e.reason))
                print(f"localdurak join: {reason}", file=sys.stderr)
                return 1
            print(f"localdurak join: {net_reason(e.reason)}", file=sys.stderr)
            pin = await asyncio.to_thread(getpass.getpass, "PIN: ")
            session = ClientSession(session.identity, session.name, session.address, pin=pin)
    await pinning.remember_named(session)
    try:
        app = DurakApp(session=session, ascii_only=ascii_only)
        return await app.run_async()
    finally:
        await session.close()


async def _play(identity: Any, name: str, address: Address, args: argparse.Namespace) -> int:
    session = ClientSession(identity, name, address, pin=args.pin)
    if not args.bot:
        return await _play_person(session, args.ascii)
    if os.environ.get("LOCALDURAK_TRACE", "") not in ("", "0"):
        session.trace = _print_late
    try:
        await session.async_join()  # the bot says ready by itself, game after game
    except TableError as e:
        moved = pinning.changed(address, e)
        if moved is not None:
            print("localdurak join: " + pinning.changed_text(moved), file=sys.stderr)
            return 1
        # A script (join --bot) cannot be asked for the PIN: say how to give it.
        reason = net_reason(e.reason)
        if e.pin_wanted:
            reason = _("{reason}; give it with --pin").format(reason=reason)
        print(f"localdurak join: {reason}", file=sys.stderr)
        return 1
    await pinning.remember_named(session)
    _print(
        {"event": "joined", "seat": session.my_seat, "address": f"{address.host}:{address.port}"}
    )
    told = [0]

    def said(event: dict[str, Any]) -> None:
        if event.get("event") == "game_over":
            told[0] += 1
        _print(event)

    bot = asyncio.create_task(play_as_bot(session, args.level, delay=args.delay, on_event=said))
    # SIGINT/SIGTERM: leave for now, the seat saved (a restart the same way takes it back).
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    running = asyncio.create_task(session.async_run())
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if stop.is_set() and not running.done():
            session.save()
            await session.close()
            print(
                "localdurak join: "
                + _("stopped; the seat is saved: start again the same way to take it back"),
                file=sys.stderr,
            )
            return 0
        await running
    except TableError as e:
        print(f"localdurak join: {net_reason(e.reason)}", file=sys.stderr)
        return 1
    finally:
        stopping.cancel()
        bot.cancel()
        # The last game's end, when the table closed before the bot's loop saw it.
        for r in session.results[told[0] :]:
            said({"event": "game_over", "result": r.result.to_dict(), "score": list(r.score)})
        _flush_timing()
    _print({"event": "closed", "reason": session.closed_reason})
    return 0
