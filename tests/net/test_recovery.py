"""Recovery uses everything that survived (docs/sessions.md, "Recovery").  A host keeps each
game twice, as the event log (``events.bin``) and as the journal; a resume rebuilds the
table from whatever of the two is whole, as far as the signed steps check out.

On main before this: a journal cut inside its first line, or to 0-1 bytes, gave "the journal
is empty" (the event log was intact); 500 random bytes appended or a junk line in the
middle gave a decode error; an event log cut mid-game left the host behind its bots; one
flipped byte in it was refused.  Each lost the game.

A crash is taken as the files stood at a moment of the game (every line is flushed before
anyone hears of it, so a crashed process leaves exactly that), copied while the table's
loop is between two events."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from localdurak.game.rules import Rules
from localdurak.net.host import EVENTS_FILE, TableHost, resume_table
from localdurak.net.identity import Identity, load_or_create
from localdurak.protocol.messages import Notice
from localdurak.protocol.records import journal_append
from tests.soak.common import check_record
from tests.support.hosts import loopback


async def until(cond: Callable[[], bool], timeout: float = 60) -> None:
    async with asyncio.timeout(timeout):
        while not cond():
            await asyncio.sleep(0.01)


async def crash_image(tmp_path: Path, actions: int = 8) -> tuple[Identity, Path, Path]:
    """An all-bot table (two host bots, 24 cards) played until ``actions`` game actions
    are in, then "crashed": its files as they stood then, the table gone.  The host's
    identity, the journal and the table's state folder."""
    identity = load_or_create(tmp_path / "host")
    records = tmp_path / "records"
    host = TableHost(
        identity,
        loopback(
            tmp_path,
            name="Recovery",
            seats=2,
            bots=2,
            bot_level="random",
            rules=Rules(deck=24),
            record_dir=records,
            bot_delay=0.01,
        ),
    )
    await host.start()
    serving = asyncio.create_task(host.run())
    try:
        await until(
            lambda: (
                host.game is not None and len(host.game.game.log) >= actions
                if host.game is not None and host.game.game is not None
                else False
            )
        )
        journal = host.journal_path
        assert journal is not None
        image = tmp_path / "image"
        shutil.copytree(records, image)  # nothing runs on the loop meanwhile
    finally:
        await host.close()
        serving.cancel()
    shutil.rmtree(records)
    image.rename(records)
    return identity, journal, host.state_dir


async def resume_to_the_end(identity: Identity, journal: Path) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    host = resume_table(identity, journal, on_event=events.append)
    await host.start()
    # It can save: whatever "cannot save" the old host told is over, on every screen.
    assert any(isinstance(e, Notice) and e.problem == "" for e in host.events)
    await asyncio.wait_for(host.run(), 120)
    assert host.results, events
    over = host.results[0]
    assert "forfeit" not in over and "aborted" not in over, over
    record = check_record(over["record"])
    assert record["host_resumed"], "the record says the host resumed"
    return events


def _first_line_end(data: bytes) -> int:
    return data.index(b"\n")


JOURNAL_DAMAGE: dict[str, Callable[[bytes], bytes]] = {
    "cut inside its first line": lambda d: d[: _first_line_end(d) // 2],
    "cut to 0 bytes": lambda d: b"",
    "cut to 1 byte": lambda d: d[:1],
    "500 random bytes appended": lambda d: d + random.Random(5).randbytes(500),
    "a junk line in the middle": lambda d: _junk_in_the_middle(d),
}


def _junk_in_the_middle(data: bytes) -> bytes:
    lines = data.split(b"\n")
    mid = len(lines) // 2
    return b"\n".join([*lines[:mid], b'{"set": {"deck": [junk \xff', *lines[mid:]])


@pytest.mark.parametrize("damage", list(JOURNAL_DAMAGE))
async def test_a_damaged_journal_is_rebuilt_from_the_event_log(tmp_path: Path, damage: str) -> None:
    identity, journal, _ = await crash_image(tmp_path)
    journal.write_bytes(JOURNAL_DAMAGE[damage](journal.read_bytes()))
    await resume_to_the_end(identity, journal)


EVENTS_DAMAGE: dict[str, Callable[[bytes], bytes]] = {
    "cut mid-game": lambda d: d[: len(d) * 2 // 3],
    "one byte flipped": lambda d: _flipped(d, len(d) * 2 // 3),
    "its last frames gone": lambda d: d[: len(d) - 1500],
}


def _flipped(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1 :]


@pytest.mark.parametrize("damage", list(EVENTS_DAMAGE))
async def test_a_damaged_event_log_is_rebuilt_from_the_journal(tmp_path: Path, damage: str) -> None:
    identity, journal, state_dir = await crash_image(tmp_path, actions=12)
    log = state_dir / EVENTS_FILE
    log.write_bytes(EVENTS_DAMAGE[damage](log.read_bytes()))
    events = await resume_to_the_end(identity, journal)
    assert any(e.get("event") == "damaged" for e in events), events
    assert any(e.get("event") == "from_journal" for e in events), events


async def test_a_journal_beside_another_games_table_is_refused_with_a_message(
    tmp_path: Path,
) -> None:
    identity, journal, _ = await crash_image(tmp_path)
    other = journal.with_name("game-other.journal")
    other.write_bytes(b"")
    with pytest.raises(ValueError, match="another game"):
        resume_table(identity, other)


async def test_a_refused_step_keeps_its_envelope_through_journal_rewrites(tmp_path: Path) -> None:
    """A journal written again from memory (every resume; a disk freed again) keeps each
    refused step as its seat signed it, so a second resume and the record still show it.
    On main before this the rewrite kept a bare [seat, n]: after a disk freed and a power
    cut the fault soak's record failed its audit ("the refusals cannot be checked")."""
    from localdurak.net.host_resume import refused_in_journal

    identity, journal, _ = await crash_image(tmp_path)
    host = resume_table(identity, journal)
    g = host.game
    assert g is not None
    step = g.steps[-1]
    seat, n = step["seat"], g.counters.last[step["seat"]] + 1
    # A refusal as the live host journals it (its signed step, at the log's length then).
    envelope = {"step": step["step"], "sig": step["sig"].hex(), "body": [], "at": 0}
    host.store.journal_line(journal_append("privacy_refused", [seat, n, envelope]))
    for _ in range(2):  # a resume, then a rebuild from memory (as after disk trouble)
        host.store.unlock()
        host = resume_table(identity, journal)
        assert host.game is not None
        assert host.game.refusal(seat, n) == [seat, n, envelope]
        host._rewrite_all()
        assert [seat, n, envelope] in refused_in_journal(journal)
    host.store.unlock()


async def test_every_resume_of_a_game_is_in_its_record(tmp_path: Path) -> None:
    """records.md: ``host_resumed`` has one item per time the host was resumed during the
    game.  A resume writes the journal again from memory; on main before this it kept only
    its own note, and after six resumes in the fault soak the record told of the last."""
    identity, journal, _ = await crash_image(tmp_path)
    for _ in range(2):  # resumed, and gone again before it played on
        host = resume_table(identity, journal)
        host.store.unlock()
    events = await resume_to_the_end(identity, journal)
    over = next(e for e in events if e.get("event") == "game_over")
    record = json.loads(Path(over["record"]).read_text())
    assert len(record["host_resumed"]) == 3, record["host_resumed"]
