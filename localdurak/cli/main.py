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
COMMAND_MODULES: tuple[str, ...] = ("tables", "replay")


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
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        # No subcommand: the lobby (issue 5). Until it exists, the help.
        parser.print_help(sys.stdout)
        return 0
    return func(args)
