"""Disk trouble is a message, not a crash or a hang.  On main before this, a record
folder on a small tmpfs gave, within seconds of the deal, ``OSError: [Errno 28]`` from the
journal's flush or a bot's save, a 6 KB ERROR line, and then no game_over and no word to
anyone (21 minutes observed).  Now a write that fails is told on every screen (a `Notice`:
"the host cannot save …"), the game goes on from memory, the host writes everything again
once the disk takes it, and the record is written then — also for a game that ended
meanwhile.  Before a table opens, a folder that cannot take a game is refused with a message.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from pathlib import Path
from typing import Any

import pytest

from localdurak.game.rules import Rules
from localdurak.net.client import Address, ClientSession, play_as_bot
from localdurak.net.host import CANNOT_SAVE, TableHost
from localdurak.net.identity import load_or_create
from tests.soak.common import check_record
from tests.support.hosts import loopback


def fill(disk: Path) -> Path:
    """Take every free byte of ``disk``."""
    filler = disk / "filler"
    # The suppress outside: closing the file flushes what is left, which fails too.
    with contextlib.suppress(OSError), open(filler, "wb") as f:
        while True:
            f.write(b"\0" * 65536)
            f.flush()
    return filler


async def until(cond: Any, timeout: float = 60, what: str = "") -> None:
    async with asyncio.timeout(timeout):
        while not cond():
            await asyncio.sleep(0.02)


@pytest.mark.parametrize("freed", ["mid-game", "after the game"])
async def test_a_full_disk_is_told_everywhere_the_game_goes_on_and_the_record_follows(
    small_disk: Path, tmp_path: Path, freed: str
) -> None:
    events: list[dict[str, Any]] = []
    host = TableHost(
        load_or_create(tmp_path / "host"),
        loopback(
            tmp_path,
            name="Disk",
            seats=2,
            bots=1,
            bot_level="random",
            rules=Rules(deck=36),
            record_dir=small_disk / "records",
            bot_delay=0.01,
        ),
        on_event=events.append,
    )
    await host.start()
    serving = asyncio.create_task(host.run())
    me = load_or_create(tmp_path / "me")
    session = ClientSession(
        me,
        "Me",
        Address("127.0.0.1", host.port, host.identity.fingerprint),
        state_dir=tmp_path / "saved",
    )
    await session.start()
    bot = asyncio.create_task(play_as_bot(session, "random", delay=0.01))
    try:
        await until(lambda: session.game is not None and session.game.hand_complete())
        filler = fill(small_disk)
        await until(lambda: host.store.broken, what="the host noticed")
        await until(lambda: session.problem is not None, what="the client was told")
        assert session.problem is not None and session.problem.startswith(CANNOT_SAVE)
        seq = host.seq
        await until(lambda: host.seq > seq + 5, what="the game goes on")  # from memory
        if freed == "after the game":
            await until(lambda: bool(host.results), 120)
            assert host.results[0]["record"] is None  # not yet: the disk is full
            assert host.store.broken
        filler.unlink()
        await asyncio.wait_for(serving, 180)
        over = host.results[0]
        record = over["record"] or next(e["record"] for e in events if e.get("event") == "recorded")
        check_record(record)
        assert any(e.get("event") == "disk" and e["problem"] is None for e in events)
        assert "forfeit" not in over
        assert session.host_problem is None  # told the trouble is over
    finally:
        bot.cancel()
        await session.close()
        if not serving.done():
            await host.close()


def test_a_table_whose_record_folder_cannot_take_a_game_is_refused(
    small_disk: Path, tmp_path: Path
) -> None:
    from tests.support.procs import env_for, localdurak

    fill(small_disk)
    out = subprocess.run(
        localdurak(
            "host",
            "--headless",
            "--port",
            "0",
            "--no-advertise",
            "--record-dir",
            str(small_disk / "records"),
        ),
        env=env_for(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 1, out
    assert "Traceback" not in out.stderr
    assert "cannot write" in out.stderr or "KB free" in out.stderr, out.stderr
