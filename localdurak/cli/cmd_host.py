"""``localdurak host``: start a table on this laptop (cli.md).

The headless form prints one JSON object per line for each event and exits 0 after G games:

    localdurak host --headless --name NAME --seats N [--bots K] [rules options] [--games G]
                    [--record-dir DIR] [--port P] [--pin CODE] [--no-advertise]
    localdurak host --resume JOURNAL

Without ``--headless`` the person sits at seat 0 in the terminal client, which shows the
table's lobby (address, port, pairing codes, seats) until the first deal.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shlex
import signal
import sys
from pathlib import Path
from typing import Any

from localdurak.cli import loop
from localdurak.cli.i18n import _
from localdurak.cli.logs import setup_logging
from localdurak.cli.options import add_rules_options, client_parent, rules_from_args
from localdurak.cli.profiles import claim_seat
from localdurak.datadir import data_dir
from localdurak.game.bots import BOT_LEVELS
from localdurak.game.rules import RulesError
from localdurak.net.host import HostOptions, TableHost, resume_table
from localdurak.net.identity import IdentityError, load_or_create
from localdurak.net.transport import DEFAULT_PORT, PortInUse


def port_number(text: str) -> int:
    """A TCP port, 0..65535 (0: any free port); anything else is a usage error (exit 2)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("not a port number: {text!r}").format(text=text)
        ) from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(_("a port is 0..65535, not {port}").format(port=port))
    return port


def table_name(given: str | None) -> str:
    """The table's name as advertised and shown: printable, trimmed, at most 32 characters
    (the protocol's bound; a longer one was a traceback), or "Local Durak"."""
    from localdurak.protocol.messages import NAME_MAX

    text = "".join(ch for ch in given or "" if ch.isprintable()).strip()
    return text[:NAME_MAX].strip() or "Local Durak"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "host",
        parents=[client_parent()],
        help=_("start a table on this laptop"),
        description=_("Start a table, advertised on the local network."),
    )
    p.add_argument("--name", default=None, help=_("the table's name"))
    p.add_argument("--headless", action="store_true", help=_("no screen: JSON lines on stdout"))
    p.add_argument("--bots", type=int, default=0, metavar="K", help=_("bots taking seats at once"))
    p.add_argument("--level", choices=BOT_LEVELS, default="normal", help=_("the bots' level"))
    p.add_argument("--games", type=int, default=1, metavar="G", help=_("games in the series"))
    p.add_argument(
        "--record-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help=_(
            "where the games' records go (default: records/ in the data directory, as the "
            "lobby's tables)"
        ),
    )
    p.add_argument(
        "--port", type=port_number, default=DEFAULT_PORT, metavar="P", help=_("0: any free port")
    )
    p.add_argument("--pin", default=None, metavar="CODE", help=_("a PIN new players must give"))
    p.add_argument("--no-advertise", action="store_true", help=_("do not announce on mDNS"))
    p.add_argument("--hold", type=float, default=120.0, metavar="S", help=_("seat hold (seconds)"))
    p.add_argument(
        "--move-time",
        type=float,
        default=60.0,
        metavar="S",
        help=_("seconds the seat the table waits for has to act before it forfeits (0: no clock)"),
    )
    p.add_argument(
        "--challenge-window",
        type=float,
        default=2.0,
        metavar="S",
        help=_("seconds to challenge before a bout closes (R-S5)"),
    )
    p.add_argument(
        "--bot-delay",
        type=float,
        default=None,
        metavar="S",
        help=_("seconds a bot waits before it acts (default: 0 headless, 0.7 with a person)"),
    )
    p.add_argument(
        "--resume",
        type=Path,
        default=None,
        metavar="JOURNAL",
        help=_("pick up a table again from its journal"),
    )
    p.add_argument("--player", default=None, metavar="NAME", help=_("your name at the table"))
    add_rules_options(p)
    p.set_defaults(func=run)


# Timing lines (``LOCALDURAK_TRACE``) carry their own time stamps.  With
# ``LOCALDURAK_TRACE=late`` (benchmarks/net.py) they wait in memory and go out with the next
# ordinary line, so that measuring puts no pipe writes on the path it measures.
_TIMING = frozenset({"trace_start", "step", "relay", "bytes", "bot_dealt", "got", "fed"})
_timing: list[dict[str, Any]] = []


def _print(event: dict[str, Any]) -> None:
    if event.get("event") in _TIMING:
        if os.environ.get("LOCALDURAK_TRACE") == "late":
            _timing.append(event)  # as it is: made a line later, off the path it measures
        else:
            print(json.dumps(event, ensure_ascii=False), flush=event.get("event") != "relay")
        return
    _flush_timing()
    print(json.dumps(event, ensure_ascii=False), flush=True)


def _flush_timing() -> None:
    if _timing:
        print("\n".join(json.dumps(event, ensure_ascii=False) for event in _timing))
        _timing.clear()


def run(args: argparse.Namespace) -> int:
    setup_logging()
    try:
        identity = load_or_create()
    except IdentityError as e:
        _said(str(e))
        return 1
    if args.resume is not None:
        problem = _not_a_journal(args.resume)
        if problem is not None:
            _cannot_resume(args.resume, problem)
            return 1
        if not args.headless and _hosted_by_a_person(args.resume):
            # The table's own player comes back to his seat, on his screen.
            from localdurak.cli.cmd_play import has_terminal, setup_language

            if not setup_language(args) or not has_terminal("host"):
                return 2
            if not claim_seat("host"):  # the host's own player sits at seat 0
                return 1
            return loop.run(_resume_and_play(identity, args))
        try:
            host = resume_table(identity, args.resume, on_event=_print, record_dir=args.record_dir)
        except (OSError, ValueError) as e:
            _cannot_resume(args.resume, _why(e))
            return 1
    else:
        if args.seats is None:
            args.seats = 2
        try:
            rules = rules_from_args(args)
            rules.check_seats(args.seats)
        except RulesError as e:
            from localdurak.cli.words import rules_error_text

            print(f"localdurak host: {rules_error_text(e)}", file=sys.stderr)
            return 2
        if not 1 <= args.games <= 1000 or not 0 <= args.bots <= args.seats:
            print(
                "localdurak host: " + _("--games must be 1..1000, --bots 0..seats"), file=sys.stderr
            )
            return 2
        options = HostOptions(
            name=table_name(args.name),
            seats=args.seats,
            rules=rules,
            bots=args.bots,
            bot_level=args.level,
            games=args.games,
            record_dir=args.record_dir if args.record_dir is not None else data_dir() / "records",
            port=args.port,
            pin=args.pin,
            advertise=not args.no_advertise,
            hold=args.hold,
            move_time=max(0.0, args.move_time),
            challenge_window=args.challenge_window,
            # A person follows the bots' moves on screen; headless tables run at full speed.
            bot_delay=args.bot_delay
            if args.bot_delay is not None
            else 0.0
            if args.headless
            else 0.7,
        )
        if not args.headless:
            from localdurak.cli.cmd_play import has_terminal, setup_language

            if not setup_language(args) or not has_terminal("host"):
                return 2
            if not claim_seat("host"):  # the host's own player sits at seat 0
                return 1
            options.own_seat = True
            return loop.run(_host_and_play(identity, options, args))
        host = TableHost(identity, options, on_event=_print)
    return loop.run(_serve(host))


async def _host_and_play(identity: Any, options: HostOptions, args: argparse.Namespace) -> int:
    """`localdurak host` for people: the table, and the terminal client at seat 0 (a network
    session to our own table, so the host's player is checked like everyone else)."""
    from localdurak.cli import settings
    from localdurak.cli.netplay import host_and_sit

    try:
        hosting, session = await host_and_sit(identity, options, settings.player_name(args.player))
    except (OSError, ValueError) as e:
        _said(_why(e))
        return 1
    return await _play_hosted(hosting, session, args.ascii)


JOURNAL_MAX = 256 << 20
"""Larger than any journal (a 52-card game at six seats writes a few MB)."""


def _why(e: BaseException) -> str:
    """What an exception says, for `net_reason`: an OSError's reason without its number and
    the path the message names already ("[Errno 2] no such journal: 'x'")."""
    if isinstance(e, OSError) and e.strerror and not isinstance(e, PortInUse):
        return e.strerror
    return str(e)


def _said(reason: str) -> None:
    """A refusal on standard error, in the player's language (the network's and the
    table's words through `net_reason`; one it does not know stays as it is)."""
    from localdurak.cli.net_words import net_reason

    print(f"localdurak host: {net_reason(reason)}", file=sys.stderr)


def _cannot_resume(journal: Path, reason: str) -> None:
    from localdurak.cli.net_words import net_reason

    print(
        "localdurak host: "
        + _("cannot resume {journal}: {reason}").format(journal=journal, reason=net_reason(reason)),
        file=sys.stderr,
    )


def _not_a_journal(path: Path) -> str | None:
    """Why ``path`` cannot be a journal to resume, before anything reads it (a device such
    as /dev/zero would be read for ever), or None."""
    import stat

    try:
        st = os.stat(path)
    except OSError as e:
        return e.strerror or str(e)
    if not stat.S_ISREG(st.st_mode):
        return _("not a file")
    if st.st_size > JOURNAL_MAX:
        return _("too large to be a journal")
    return None


def _hosted_by_a_person(journal: Path) -> bool:
    """Whether the table of ``journal`` had the host's own player at seat 0 (``localdurak
    host`` without --headless); unreadable: no (the headless resume says why)."""
    from localdurak.net.host import table_state

    try:
        _, state = table_state(journal)
    except (OSError, ValueError):
        return False
    return bool(state.get("own_seat"))


async def _resume_and_play(identity: Any, args: argparse.Namespace) -> int:
    """``localdurak host --resume JOURNAL`` for the table's own player: the table up again,
    and its player at seat 0 again, his game brought back from his saved seat."""
    from localdurak.cli import settings
    from localdurak.cli.netplay import resume_hosting, sit_at_own_table

    try:
        hosting = await resume_hosting(identity, args.resume, args.record_dir)
    except (OSError, ValueError) as e:
        _cannot_resume(args.resume, _why(e))
        return 1
    try:
        session = await sit_at_own_table(identity, hosting, settings.player_name(args.player))
    except (ConnectionError, OSError) as e:
        _said(_why(e))
        return 1
    return await _play_hosted(hosting, session, args.ascii)


async def _play_hosted(hosting: Any, session: Any, ascii_only: bool) -> int:
    """The host's own player at his table until he leaves it; leaving pauses a game to come
    back to (the command that resumes it is printed) and closes any other table."""
    from localdurak.cli.app import DurakApp, paused_text

    app = DurakApp(session=session, hosting=hosting, ascii_only=ascii_only)
    try:
        return await app.run_async()
    finally:
        await session.close()
        journal = app.paused_journal
        if app.hosting is not None:  # not left by q: the hosted table is still up
            journal = await hosting.stop("the host left")
        print("localdurak host: " + paused_text(journal), file=sys.stderr)


def _said_paused(journal: Path | None) -> None:
    """The exact command that carries a paused table on (nothing when it closed)."""
    if journal is not None:
        print(
            "localdurak host: "
            + _("paused; carry the table on with:")
            + f"\n  localdurak host --resume {shlex.quote(str(journal))}",
            file=sys.stderr,
        )


async def _serve(host: TableHost) -> int:
    """Serve the table; SIGINT or SIGTERM pauses it (stopping is pausing) — what a
    resume needs is on disk, every client is told and keeps its seat — and prints the
    command that carries it on; a table with nothing to resume closes."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await host.start()
    except OSError as e:
        _said(_why(e))
        await host.close()
        return 1
    running = asyncio.create_task(host.run())
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if stop.is_set() and not running.done():
            _said_paused(await host.stop("the host stopped"))
        await running
    finally:
        stopping.cancel()
        _flush_timing()
        sys.stdout.flush()
    return 0
