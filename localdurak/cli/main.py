"""The `localdurak` command line (../shared/spec/cli.md).

Each subcommand lives in its own module `localdurak.cli.cmd_<name>` with two functions:
``register(subparsers)`` adds its parser and sets ``func``; ``func(args) -> int`` runs it.
Exit status (cli.md): 0 success, 1 the thing failed, 2 bad usage or input.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

# Modules that provide subcommands, in the order `--help` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "host",
    "join",
    "play",
    "tables",
    "replay",
    "audit",
    "rules",
)


def build_parser(only: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; ``only``: register just these subcommands (a faster start)."""
    parser = argparse.ArgumentParser(
        prog="localdurak",
        description="Durak for friends on a local network.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES if only is None else only:
        module = importlib.import_module(f"localdurak.cli.cmd_{name}")
        module.register(subparsers)
    return parser


def _only(argv: Sequence[str]) -> list[str] | None:
    """The one subcommand ``argv`` names, so that only its module is imported (the first
    screen must come in under a second, issue 5; `--help` and mistakes get every module)."""
    if any(a in ("-h", "--help") for a in argv):
        return None
    words = [a for a in argv if not a.startswith("-")]
    if not words:
        return [] if not argv or all(a.startswith("--") for a in argv) else None
    return [words[0]] if words[0] in COMMAND_MODULES and words[0] == argv[0] else None


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_only(args_list))
    # The lobby's own options, for `localdurak` with no subcommand.
    parser.add_argument("--name", help="your name at the table (remembered)")
    parser.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")
    parser.add_argument("--lang", help="language: en, ru, uk, pl, zh (default: from the system locale)")
    args = parser.parse_args(args_list)
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        from localdurak.cli.cmd_lobby import run_lobby

        return run_lobby(args)
    return func(args)
