"""``localdurak play [--bots K] [rules options] [--name N] [--ascii] [--lang L]``: an offline
game on this laptop against K bots (cli.md)."""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

from localdurak.cli import i18n, loop, settings
from localdurak.cli.i18n import _
from localdurak.cli.options import add_rules_options, client_parent, rules_from_args
from localdurak.game.bots import BOT_LEVELS
from localdurak.game.rules import RulesError


def add_client_options(parser: argparse.ArgumentParser) -> None:
    """The player's name (``--lang`` and ``--ascii`` come with `client_parent`)."""
    parser.add_argument("--name", help=_("your name at the table (remembered)"))


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "play",
        parents=[client_parent()],
        help=_("an offline game on this laptop against bots"),
        description=_("Play Durak on this laptop against 1 to 5 bots."),
    )
    p.add_argument("--bots", type=int, default=None, metavar="K", help=_("bots, 1..5 (default 2)"))
    p.add_argument("--level", choices=BOT_LEVELS, default="strong", help=_("the bots' level"))
    p.add_argument("--seed", type=int, default=None, help=_("shuffle with this seed (replays)"))
    p.add_argument(
        "--speed", type=float, default=0.7, metavar="S", help=_("seconds between bot moves")
    )
    add_client_options(p)
    add_rules_options(p)
    p.set_defaults(func=run)


def setup_language(args: argparse.Namespace) -> bool:
    try:
        i18n.set_language(i18n.pick(args.lang))
    except i18n.CatalogError as e:
        print(f"localdurak: {e}", file=sys.stderr)
        return False
    return True


def has_terminal(command: str) -> bool:
    """Whether standard input is a terminal, which the game's screen reads its keys from;
    if not, say so on standard error (no traceback)."""
    if sys.stdin.isatty():
        return True
    print(
        (f"localdurak {command}: " if command else "localdurak: ")
        + i18n._(
            "standard input is not a terminal, and the game's screen needs one "
            "(for scripts: host --headless, join --bot)"
        ),
        file=sys.stderr,
    )
    return False


def run(args: argparse.Namespace) -> int:
    if not setup_language(args):
        return 2
    bots = args.bots
    if args.seats is not None and not 2 <= args.seats <= 6:
        print(
            "localdurak play: "
            + _("--seats must be 2..6 (you and 1 to 5 bots), not {n}").format(n=args.seats),
            file=sys.stderr,
        )
        return 2
    if bots is None:
        bots = 2 if args.seats is None else args.seats - 1
    elif args.seats is not None and args.seats != bots + 1:
        print(
            "localdurak play: "
            + _(
                "--seats {seats} and --bots {bots} disagree (you and {bots} bots make {n} players)"
            ).format(seats=args.seats, bots=bots, n=bots + 1),
            file=sys.stderr,
        )
        return 2
    if not 1 <= bots <= 5:
        print("localdurak play: " + _("--bots must be 1..5"), file=sys.stderr)
        return 2
    try:
        rules = rules_from_args(args)
        rules.check_seats(bots + 1)
    except RulesError as e:
        from localdurak.cli.words import rules_error_text

        print(f"localdurak play: {rules_error_text(e)}", file=sys.stderr)
        return 2
    if not has_terminal("play"):
        return 2
    from localdurak.net.local import BOT_NAMES

    name = settings.player_name(args.name)
    rng = random.Random(args.seed)
    names = [name, *BOT_NAMES[:bots]]
    return loop.run(_play(rules, names, rng, args))


async def _play(rules: Any, names: list[str], rng: random.Random, args: argparse.Namespace) -> int:
    from localdurak.cli.app import DurakApp
    from localdurak.net.local import LocalTable

    table = LocalTable(
        rules,
        names,
        rng=rng,
        bot_level=args.level,
        delay=max(0.0, args.speed),
        table_name=i18n._("Offline table"),
    )
    async with table:
        app = DurakApp(session=table, ascii_only=args.ascii)
        return await app.run_async()
