"""Soak suite 5, recovery: games crashed at a random moment, their files damaged at random,
resumed (docs/sessions.md, "Recovery").

Each round is an all-bot table (two host bots, 24 cards) played to a random point and then:

- crashed (its files as they stood: every line is flushed before anyone hears of it), with
  one damage drawn from the journal's (cut inside its first line, to 0 or 1 bytes, random
  bytes appended, a junk line in the middle), the event log's (cut mid-game, a flipped
  byte, its last frames gone) or none;
- or paused (what SIGINT and SIGTERM do) at that moment;

and before it is resumed, a resume while the host still runs is tried (it must be refused
and touch nothing) and one under another identity (refused with a message).  Then the game
is resumed and played to its end.  Counted: games finished, games lost (a resume refused
or a game that did not end), innocent players blamed (a forfeit or an abort: every seat is
an honest bot, so any is the host's fault)."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

from localdurak.game.rules import Rules
from localdurak.net.host import EVENTS_FILE, TableHost, resume_table
from localdurak.net.identity import load_or_create
from localdurak.net.table_store import TableInUse
from tests.net.test_recovery import EVENTS_DAMAGE, JOURNAL_DAMAGE, crash_image, until
from tests.soak.common import check_record
from tests.support.hosts import loopback


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


async def _paused(tmp: Path, actions: int) -> tuple[Any, Path, bool]:
    """A table paused mid-game (SIGINT/SIGTERM's way); whether a resume tried while it ran
    was refused without touching anything."""
    identity = load_or_create(tmp / "host")
    host = TableHost(
        identity,
        loopback(
            tmp,
            name="Soak",
            seats=2,
            bots=2,
            bot_level="random",
            rules=Rules(deck=24),
            record_dir=tmp / "records",
            bot_delay=0.01,
        ),
    )
    await host.start()
    serving = asyncio.create_task(host.run())
    refused = False
    try:
        await until(
            lambda: (
                host.game is not None
                and host.game.game is not None
                and len(host.game.game.log) >= actions
            )
        )
        journal = host.journal_path
        assert journal is not None
        before = _files(journal.parent)
        try:
            resume_table(identity, journal)
        except TableInUse:
            refused = _files(journal.parent) == before
        await host.pause()
    finally:
        serving.cancel()
    return identity, journal, refused


async def run_recovery_async(tmp: Path, games: int, seed: int = 1) -> dict[str, Any]:
    rng = random.Random(seed)
    kinds = [
        *(f"journal: {k}" for k in JOURNAL_DAMAGE),
        *(f"event log: {k}" for k in EVENTS_DAMAGE),
        "none",
        "paused",
    ]
    out: dict[str, Any] = {
        "games": games,
        "finished": 0,
        "lost": 0,
        "innocent_blamed": 0,
        "live_resume_refused_untouched": 0,
        "foreign_identity_refused": 0,
        "kinds": {},
    }
    t0 = time.monotonic()
    for r in range(games):
        kind = kinds[r % len(kinds)] if r < len(kinds) else rng.choice(kinds)
        out["kinds"][kind] = out["kinds"].get(kind, 0) + 1
        room = tmp / f"round-{r}"
        actions = rng.randint(3, 16)
        if kind == "paused":
            identity, journal, refused = await _paused(room, actions)
            out["live_resume_refused_untouched"] += int(refused)
        else:
            identity, journal, state_dir = await crash_image(room, actions=actions)
            if kind.startswith("journal: "):
                damage = JOURNAL_DAMAGE[kind.removeprefix("journal: ")]
                journal.write_bytes(damage(journal.read_bytes()))
            elif kind.startswith("event log: "):
                log = state_dir / EVENTS_FILE
                log.write_bytes(EVENTS_DAMAGE[kind.removeprefix("event log: ")](log.read_bytes()))
        try:
            resume_table(load_or_create(room / "stranger"), journal)
        except ValueError as e:
            out["foreign_identity_refused"] += int("another identity" in str(e))
        try:
            host = resume_table(identity, journal)
            await asyncio.wait_for(host.run(), 180)
            over = host.results[0]
            check_record(over["record"])
        except Exception as e:  # counted, with its reason
            out["lost"] += 1
            out.setdefault("losses", []).append(f"{kind}: {type(e).__name__}: {e}"[:300])
            continue
        if "forfeit" in over or "aborted" in over:
            out["innocent_blamed"] += 1
            out["lost"] += 1
        else:
            out["finished"] += 1
    out["seconds"] = round(time.monotonic() - t0, 1)
    return out


def run_recovery(tmp: Path, games: int, seed: int = 1) -> dict[str, Any]:
    return asyncio.run(run_recovery_async(tmp, games, seed))
