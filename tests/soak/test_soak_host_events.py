"""The host keeps in memory only the events a returning player may still need (found by the
endurance suite: over 200 games the host's memory grew by 88 MB, every game's events kept for
resumes up to REPLAY_KEEP)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from localdurak.game.rules import Rules
from localdurak.net.host import HostOptions, TableHost
from localdurak.net.identity import load_or_create
from localdurak.protocol.messages import GameOver, GameStarted


async def test_a_new_game_drops_the_events_of_the_games_before_the_last_game_over(
    tmp_path: Path,
) -> None:
    host = TableHost(
        load_or_create(tmp_path / "host"),
        HostOptions(
            name="Series",
            seats=2,
            bots=2,
            bot_level="random",
            rules=Rules(deck=24),
            games=3,
            record_dir=tmp_path / "records",
            port=0,
            advertise=False,
            host="127.0.0.1",
            seed=3,
        ),
    )
    await asyncio.wait_for(host.run(), 120)
    assert len(host.results) == 3
    started = [e.number for e in host.events if isinstance(e, GameStarted)]
    overs = [e for e in host.events if isinstance(e, GameOver)]
    # Kept: the previous game's end (a player who missed it gets it on resume) and the last
    # game; the first game's events are gone, and the counter still says where they were.
    assert started == [2], started
    assert len(overs) == 2
    assert host.first_seq == host.events[0].seq > 1
    assert host.seq == host.events[-1].seq
