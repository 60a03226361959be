"""All-bot tables never freeze: a bot whose wait between
moves (``--bot-delay``) ended with nothing else arriving lost its turn for good, and the table
stopped with a host bot to attack or pass.  These play whole series of all-bot games at every
delay and seat count and fail on any game that stops progressing."""

from __future__ import annotations

import asyncio
import itertools
import os
from pathlib import Path

import pytest

from localdurak.game.rules import Rules
from localdurak.net.host import HostOptions, TableHost
from localdurak.net.identity import Identity, load_or_create

STALL_S = 5.0
"""No event for this long while a game is being played: the table froze (a bot's move takes
milliseconds; the longest pause of a bot game is the delay between moves)."""


async def play_series(
    identity: Identity, root: Path, seats: int, delay: float, games: int, deck: int = 24
) -> TableHost:
    host = TableHost(
        identity,
        HostOptions(
            name="Bots",
            seats=seats,
            bots=seats,
            bot_level="random",
            rules=Rules(deck=deck),
            games=games,
            record_dir=root,
            port=0,
            advertise=False,
            host="127.0.0.1",
            bot_delay=delay,
            challenge_window=0,
        ),
    )
    task = asyncio.create_task(host.run())
    seen = -1
    while not task.done():
        done, _ = await asyncio.wait({task}, timeout=STALL_S)
        if done:
            break
        if host.seq == seen:
            task.cancel()
            raise AssertionError(
                f"the table froze: {seats} seats, delay {delay}, game {host.game_number + 1}"
                f" of {games}, no event for {STALL_S} s after seq {host.seq}"
            )
        seen = host.seq
    await task
    assert len(host.results) == games
    return host


DELAYS = (0.0, 0.001, 0.005, 0.02)


@pytest.mark.parametrize(("seats", "delay"), list(itertools.product((2, 3), DELAYS)))
async def test_all_bot_tables_finish_every_game(seats: int, delay: float, tmp_path: Path) -> None:
    identity = load_or_create(tmp_path / "home")
    await play_series(identity, tmp_path / "records", seats, delay, games=3 if seats == 2 else 2)


@pytest.mark.slow
@pytest.mark.parametrize("seats", (2, 3, 4, 5, 6))
async def test_thousands_of_all_bot_games_never_freeze(seats: int, tmp_path: Path) -> None:
    """The big form: ``LOCALDURAK_BOT_GAMES`` games per seat count and delay, every delay of
    `DELAYS`; 52 cards at five and six seats.  CI plays every seat count and delay within its
    15 minutes: 2 games a series (a game after a game) up to four seats, 1 at five and six,
    whose 52-card games take the longest; ``LOCALDURAK_BOT_GAMES=500 pytest -m slow --timeout 0
    tests/net/test_host_bots_progress.py`` plays the thousands (5 seat counts × 4 delays ×
    500)."""
    games = int(os.environ.get("LOCALDURAK_BOT_GAMES", "2" if seats <= 4 else "1"))
    identity = load_or_create(tmp_path / "home")
    for delay in DELAYS:
        await play_series(
            identity, tmp_path / f"r{delay}", seats, delay, games, deck=52 if seats > 4 else 36
        )
