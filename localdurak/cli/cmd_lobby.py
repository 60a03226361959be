"""``localdurak`` with no subcommand: the lobby (cli.md)."""

from __future__ import annotations

import argparse

from localdurak.cli import loop, settings


def run_lobby(args: argparse.Namespace) -> int:
    from localdurak.cli.cmd_play import has_terminal, setup_language

    if not setup_language(args) or not has_terminal(args.command or ""):
        return 2
    return loop.run(_lobby(settings.player_name(args.name), args.ascii))


async def _lobby(name: str, ascii_only: bool) -> int:
    from localdurak.cli.app import DurakApp
    from localdurak.cli.lobby import Lobby

    app = DurakApp(lobby=Lobby(name), ascii_only=ascii_only)
    return await app.run_async()
