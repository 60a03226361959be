"""The `localdurak` command line (../shared/spec/cli.md).

Each subcommand lives in its own module `localdurak.cli.cmd_<name>` with two functions:
``register(subparsers)`` adds its parser and sets ``func``; ``func(args) -> int`` runs it.
Exit status (cli.md): 0 success, 1 the thing failed, 2 bad usage or input.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence

# Modules that provide subcommands, in the order `--help` lists them.
COMMAND_MODULES: tuple[str, ...] = ("play", "tables", "rules")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="localdurak",
        description="Durak for friends on a local network.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"localdurak.cli.cmd_{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    # The lobby's own options, for `localdurak` with no subcommand.
    parser.add_argument("--name", help="your name at the table (remembered)")
    parser.add_argument("--ascii", action="store_true", help="letters instead of suit symbols")
    parser.add_argument("--lang", help="language: en, ru (default: from LANG)")
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        from localdurak.cli.cmd_lobby import run_lobby

        return run_lobby(args)
    return func(args)
