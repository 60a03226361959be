"""The `localdurak` command line (docs/cli.md).

Each subcommand lives in its own module `localdurak.cli.cmd_<name>` with two functions:
``register(subparsers)`` adds its parser and sets ``func``; ``func(args) -> int`` runs it.
Exit status (cli.md): 0 success, 1 the thing failed, 2 bad usage or input.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

from localdurak import datadir
from localdurak.cli import i18n
from localdurak.cli.i18n import _
from localdurak.cli.options import add_top_options

# Modules that provide subcommands, in the order `--help` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "host",
    "join",
    "play",
    "tables",
    "replay",
    "audit",
    "identity",
    "rules",
)


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help, with Chinese help texts wrapped by terminal cells (two a character)
    and between any two characters, not by characters at spaces."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        if text.isascii():
            return super()._split_lines(text, width)
        from localdurak.cli.table import wrap

        return wrap(text, width)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


def build_parser(only: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; ``only``: register just these subcommands (a faster start)."""
    parser = _Parser(
        prog="localdurak",
        description=_("Durak for friends on a local network."),
    )
    add_top_options(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES if only is None else only:
        module = importlib.import_module(f"localdurak.cli.cmd_{name}")
        module.register(subparsers)
    return parser


def _only(argv: Sequence[str]) -> list[str] | None:
    """The one subcommand ``argv`` names, so that only its module is imported (the first
    screen must come in under a second, benchmarks/client_start.py; `--help` and mistakes get
    every module)."""
    if any(a in ("-h", "--help") for a in argv):
        return None
    i = 0
    while i < len(argv) and argv[i].startswith("-"):  # the top options, before the command
        if argv[i] in ("--lang", "--name", "--profile"):
            i += 2
        elif argv[i] == "--ascii" or argv[i].startswith(("--lang=", "--name=", "--profile=")):
            i += 1
        else:
            return None
    if i >= len(argv):
        return [] if i == len(argv) else None
    return [argv[i]] if argv[i] in COMMAND_MODULES else None


def _player_name(args: argparse.Namespace) -> None:
    """``--name`` before the subcommand is the player's name: `host` calls it ``--player``
    (its own ``--name`` is the table's), every other screen ``--name``."""
    given = args.player_name
    if args.command == "host":
        if getattr(args, "player", None) is None:
            args.player = given
    elif getattr(args, "name", None) is None:
        args.name = given


def early_language(argv: Sequence[str]) -> None:
    """Speak the player's language from the first line on: ``--help`` and argparse's
    refusals are printed while the command line is parsed, so ``--lang`` (anywhere in it)
    or the system locale is read before the parser is built.  A language we have no
    catalog for is refused later, by the command, in the locale's language."""
    requested = None
    for i, a in enumerate(argv):
        if a == "--lang" and i + 1 < len(argv):
            requested = argv[i + 1]
        elif a.startswith("--lang="):
            requested = a.partition("=")[2]
    try:
        code = i18n.pick(requested)
    except i18n.CatalogError:
        code = i18n.pick(None)
    i18n.set_language(code)
    i18n.translate_argparse()


interrupted = False
"""Whether `main` ended on a Ctrl-C (`localdurak.__main__.run` then ends the process at once)."""


def _tolerant_output() -> None:
    """Text the output's encoding cannot hold (Russian help to an ASCII-only terminal or
    PYTHONIOENCODING, a name that came in as undecodable bytes) is printed with "?" in its
    place, not a UnicodeEncodeError traceback."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="replace")


def main(argv: Sequence[str] | None = None) -> int:
    _tolerant_output()
    args_list = list(sys.argv[1:] if argv is None else argv)
    early_language(args_list)
    parser = build_parser(_only(args_list))
    args = parser.parse_args(args_list)
    _player_name(args)
    datadir.use_profile(getattr(args, "profile", None))
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    try:
        if func is None:
            from localdurak.cli.cmd_lobby import run_lobby

            return run_lobby(args)
        return func(args)
    except KeyboardInterrupt:
        # Ctrl-C before a command set its own handler (connecting, reading files): no
        # traceback, ever.
        global interrupted
        interrupted = True
        print(_("localdurak: interrupted"), file=sys.stderr)
        return 1
