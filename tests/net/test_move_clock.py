"""The move clock (``--move-time``, docs/cli.md): the seat the table waits for has a
move time; every screen gets it (a `Clock` event: the countdown shows in its last 15 s), and
when it runs out the seat forfeits exactly as a dropped player does after the hold.  On main
before this a connected but silent player stalled the table for ever."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

from localdurak.game.rules import Rules
from localdurak.net.api import MoveClock
from localdurak.net.client import Address, ClientSession
from localdurak.net.host import TableHost
from localdurak.net.identity import load_or_create
from localdurak.protocol.privacy.audit import audit
from tests.support.hosts import loopback


async def _silent_at_a_clocked_table(
    tmp_path: Path, name: str, hold: float, events: list[dict[str, Any]]
) -> tuple[TableHost, asyncio.Task[None], ClientSession]:
    """A 2-seat table with a 1 s move clock and a host bot, running; a player ("Silent")
    seated and ready who never acts.  The host, its running task and the player."""
    host = TableHost(
        load_or_create(tmp_path / "host"),
        loopback(
            tmp_path,
            name=name,
            seats=2,
            bots=1,
            bot_level="random",
            rules=Rules(deck=24),
            move_time=1.0,
            hold=hold,
        ),
        on_event=events.append,
    )
    await host.start()
    serving = asyncio.create_task(host.run())
    silent = ClientSession(
        load_or_create(tmp_path / "silent"),
        "Silent",
        Address("127.0.0.1", host.port, host.identity.fingerprint),
        state_dir=tmp_path / "saved",
    )
    await silent.start()
    await silent.set_ready(True)
    return host, serving, silent


async def test_a_silent_player_forfeits_on_the_clock(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    host, serving, silent = await _silent_at_a_clocked_table(tmp_path, "Clock", 600, events)
    clocks: list[MoveClock] = []
    try:
        async with asyncio.timeout(60):
            while not host.results:
                if silent.move_clock is not None and silent.move_clock not in clocks:
                    clocks.append(silent.move_clock)
                await asyncio.wait_for(silent.wait_changed(), 60)
        await asyncio.wait_for(serving, 60)
    finally:
        await silent.close()
        if not serving.done():
            await host.close()
    me = silent.seat
    over = host.results[0]
    assert over["forfeit"] == me and over["result"]["durak"] == [me]
    assert any(e.get("event") == "move_time" and e["seat"] == me for e in events)
    assert any(c.seat == me for c in clocks)  # its screen had the clock
    assert silent.results and silent.results[0].forfeit == me
    # As for a dropped player: the others' keys are in; the audit reports only the silent
    # seat's key as missing and judges nobody for it.
    record = json.loads(Path(over["record"]).read_text())
    assert record["forfeit"] == me
    report = audit(record)
    assert report.guilty == ()
    assert all("key is not in the record" in f.what for f in report.faults)


async def test_no_clock_when_it_is_off(tmp_path: Path) -> None:
    host = TableHost(
        load_or_create(tmp_path / "host"),
        loopback(
            tmp_path,
            name="No clock",
            seats=2,
            bots=2,
            bot_level="random",
            rules=Rules(deck=24),
            move_time=0,
        ),
    )
    await asyncio.wait_for(host.run(), 120)
    from localdurak.protocol.messages import Clock

    assert not any(isinstance(e, Clock) for e in host.events)
    assert "forfeit" not in host.results[0]


async def test_a_player_who_drops_on_his_turn_is_held_not_clocked(tmp_path: Path) -> None:
    """The move clock is for a connected player who does not act; one who dropped has his
    hold (``--hold``: a seat being restored after the host's crash is away until it is
    back).  On main before this, the clock ran on against a dropped seat and forfeited it
    after the move time, sooner than its hold."""
    from localdurak.protocol.messages import Clock

    events: list[dict[str, Any]] = []
    host, serving, silent = await _silent_at_a_clocked_table(tmp_path, "Held", 3.0, events)
    try:
        async with asyncio.timeout(60):
            # Its turn, its clock on its screen: then it drops.
            while silent.move_clock is None or silent.move_clock.seat != silent.seat:
                await asyncio.wait_for(silent.wait_changed(), 60)
        me = silent.seat
        await silent.close()
        await asyncio.wait_for(serving, 60)
    finally:
        await silent.close()
        if not serving.done():
            await host.close()
    over = host.results[0]
    assert over["forfeit"] == me
    names = [e["event"] for e in events]
    assert "move_time" not in names, events  # forfeited by its hold, not by the clock
    assert names.index("away") < names.index("forfeit")
    away = next(k for k, e in enumerate(host.events) if getattr(e, "connected", None) is False)
    # Every screen was told that no clock runs for it any more.
    assert any(isinstance(e, Clock) and e.seat is None for e in host.events[away:])


async def _played_by_a_bot_to_the_end(guest: ClientSession) -> None:
    """The guest's seat played by a random bot until its game is over."""
    from localdurak.net.client import play_as_bot

    bot = asyncio.create_task(play_as_bot(guest, "random", delay=0.01))
    try:
        async with asyncio.timeout(120):
            while not guest.results:
                await asyncio.wait_for(guest.wait_changed(), 60)
    finally:
        bot.cancel()


async def test_every_screen_restarts_the_clock_from_the_action_without_a_clock_event(
    tmp_path: Path,
) -> None:
    """A game action restarts the move clock on every screen by itself (docs/protocol.md §5,
    "The move clock"): the host sends the game's first `Clock` and no other, and after every
    event the player's screen names the seat the host's own clock runs for, counted afresh
    at the game actions.  (The host sent a `Clock` after every action: one more event per
    action for every player to read and handle.)"""
    from localdurak.protocol.messages import Clock, PrivacyEvent
    from tests.support.hosts import host_with_guest

    async with host_with_guest(
        tmp_path,
        name="Derived",
        seats=3,
        bots=2,
        bot_level="random",
        rules=Rules(deck=24),
        move_time=60.0,
    ) as (host, guest):
        hosts: list[tuple[int, int | None]] = []
        screens: dict[int, MoveClock | None] = {}
        update, handle = host._update_clock, guest._handle

        def host_clock(*, acted: bool = False) -> None:
            update(acted=acted)
            running = host._clock_for
            hosts.append((host.seq, None if running is None else running[0]))

        async def screen(m: Any) -> None:
            await handle(m)
            if guest.last_seq is not None:
                screens[guest.last_seq] = guest.move_clock

        host._update_clock = host_clock  # type: ignore[method-assign]
        guest._handle = screen  # type: ignore[method-assign]
        await _played_by_a_bot_to_the_end(guest)
    actions = [
        e.seq for e in host.events if isinstance(e, PrivacyEvent) and e.step in ("play", "act")
    ]
    clocks = [e for e in host.events if isinstance(e, Clock)]
    assert len(actions) > 10 and len(clocks) == 1 and clocks[0].seconds == 60
    assert clocks[0].seq < actions[0]
    checked = [(seq, seat) for seq, seat in hosts if seq in screens]
    assert len(checked) >= len(actions)
    for seq, seat in checked:
        shown = screens[seq]
        assert (None if shown is None else shown.seat) == seat, (seq, seat, shown)
    # Counted afresh: each game action's deadline is later than the one before it.
    deadlines = [c.deadline for a in actions if (c := screens.get(a)) is not None]
    assert len(deadlines) >= len(actions) - 1
    assert all(b > a for a, b in itertools.pairwise(deadlines))


async def test_no_clock_runs_while_an_action_is_held_for_challenges(tmp_path: Path) -> None:
    """R-S5: in cheating mode an action that closes the bout is held for the challenge window.
    The seat acted in time, so no move clock runs meanwhile, on the host or on any screen;
    before this a seat that closed a bout in its last `window` seconds was forfeited on the
    move clock while the table held its action (found by a reviewer attacking the clock)."""
    from localdurak.protocol.messages import Closing
    from tests.support.hosts import host_with_guest

    events: list[dict[str, Any]] = []
    async with host_with_guest(
        tmp_path,
        name="Window",
        seats=2,
        bots=1,
        bot_level="random",
        rules=Rules(deck=24, cheating=True),
        move_time=1.0,
        challenge_window=2.5,
        hold=30.0,
    ) as (host, guest):
        on_event, handle = host.on_event, guest._handle
        held_screens: list[MoveClock | None] = []

        def spy(e: dict[str, Any]) -> None:
            events.append(e)
            on_event(e)

        async def screen(m: Any) -> None:
            await handle(m)
            if isinstance(m, Closing) and m.open:
                held_screens.append(guest.move_clock)

        host.on_event = spy
        guest._handle = screen  # type: ignore[method-assign]
        await _played_by_a_bot_to_the_end(guest)
    kinds = [e.get("event") for e in events]
    assert kinds.count("challenge_window") >= 2, kinds  # each held for 2.5 s > the move time
    assert "move_time" not in kinds and "forfeit" not in kinds, kinds
    assert held_screens and all(c is None for c in held_screens), held_screens
    assert guest.results[0].forfeit is None, guest.results
