"""Resume mistakes are refused with a message, before anything is written (docs/sessions.md).

On main before this: ``--resume`` under another ``LOCALDURAK_HOME`` (another certificate)
started without a word, every client refused it, and they were forfeited and blamed;
``--resume`` while the original host still ran rewrote that live table's journal and
appended to its files before refusing; ``--resume J --record-dir OTHER`` ignored OTHER;
resuming a finished game said nothing about it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from localdurak.game.rules import Rules
from localdurak.net.host import TableHost, resume_table
from localdurak.net.identity import load_or_create
from localdurak.net.table_store import TableInUse
from tests.net.test_recovery import crash_image, until
from tests.support.hosts import loopback


def snapshot_of(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


async def test_a_resume_under_another_identity_is_refused_and_touches_nothing(
    tmp_path: Path,
) -> None:
    _, journal, _ = await crash_image(tmp_path)
    before = snapshot_of(journal.parent)
    stranger = load_or_create(tmp_path / "another-home")
    with pytest.raises(ValueError, match="another identity"):
        resume_table(stranger, journal)
    assert snapshot_of(journal.parent) == before


async def test_a_resume_while_the_host_still_runs_touches_nothing_and_says_so(
    tmp_path: Path,
) -> None:
    identity = load_or_create(tmp_path / "host")
    host = TableHost(
        identity,
        loopback(
            tmp_path,
            name="Live",
            seats=2,
            bots=2,
            bot_level="random",
            rules=Rules(deck=24),
            bot_delay=0.05,
        ),
    )
    await host.start()
    serving = asyncio.create_task(host.run())
    try:
        await until(lambda: host.game is not None and host.journal_path is not None)
        journal = host.journal_path
        assert journal is not None
        before = snapshot_of(journal.parent)  # nothing runs on the loop until the end
        with pytest.raises(TableInUse, match="being hosted right now"):
            resume_table(identity, journal)
        assert snapshot_of(journal.parent) == before
    finally:
        await host.close()
        serving.cancel()


async def test_a_resume_with_another_record_folder_is_refused(tmp_path: Path) -> None:
    identity, journal, _ = await crash_image(tmp_path)
    before = snapshot_of(journal.parent)
    with pytest.raises(ValueError, match="--record-dir"):
        resume_table(identity, journal, record_dir=tmp_path / "elsewhere")
    assert snapshot_of(journal.parent) == before
    # The table's own folder, named again, is fine.
    resume_table(identity, journal, record_dir=journal.parent).store.unlock()


@pytest.mark.parametrize("games", [1, 2])
async def test_resuming_a_finished_game_says_so(tmp_path: Path, games: int) -> None:
    identity = load_or_create(tmp_path / "host")
    host = TableHost(
        identity,
        loopback(
            tmp_path,
            name="Done",
            seats=2,
            bots=2,
            bot_level="random",
            rules=Rules(deck=24),
            games=games,
        ),
    )
    await host.start()
    serving = asyncio.create_task(host.run())
    try:
        await until(lambda: bool(host.results), 120)
        first = Path(host.results[0]["record"]).with_suffix(".journal")
        if games == 2:
            await until(lambda: host.journal_path != first, 60)
            await host.pause()  # the second game to come back to
        else:
            await asyncio.wait_for(serving, 60)  # the series is over, the table closed
    finally:
        await host.close()
        serving.cancel()
    with pytest.raises(ValueError, match="that game is over" if games == 2 else "series is over"):
        resume_table(identity, first)
