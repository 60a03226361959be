"""Who may give back a refusal to a resumed host (docs/protocol.md §7).

The resumed host admits a player to give back steps (and refusals) when his `Resume`'s
``last_seq`` falls in the gap after what its log kept (`_resume_peer`): the player's own
word.  After a clean pause (nothing lost: the state's ``paused_at`` is the log's last event)
a cheater who says he saw one event more is not admitted; and a refusal is taken only while
its player gives back in the gathering: mid-game, a "refusal" of a step he never sent is
refused, never recorded."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import shutil
from pathlib import Path
from typing import Any

from localdurak.game.actions import Action, Do
from localdurak.game.rules import Rules
from localdurak.net.host import EVENTS_FILE, TableHost, resume_table
from tests.support.hosts import table_played_by_a_bot


async def _soon(cond: object, timeout: float = 60) -> None:
    async with asyncio.timeout(timeout):
        while not cond():  # type: ignore[operator]
            await asyncio.sleep(0)


async def test_a_clean_resume_admits_a_lying_player_to_give_back_refusals_for_ever(
    tmp_path: Path,
) -> None:
    table = await table_played_by_a_bot(
        tmp_path,
        play_delay=0.05,
        name="Liar",
        seats=2,
        bots=1,
        bot_level="random",
        rules=Rules(deck=36),
        bot_delay=0.05,
        hold=60,
    )
    identity, host, serving = table.identity, table.host, table.serving
    session, playing = table.session, table.playing
    resumed: TableHost | None = None
    running: asyncio.Task[Any] | None = None
    events: list[dict[str, Any]] = []
    try:
        await _soon(
            lambda: (
                host.game is not None
                and host.game.game is not None
                and len(host.game.game.log) >= 4
                and host.game.game.result is None
                and session.last_seq is not None
            )
        )
        await host.pause()  # a clean pause: nothing is lost
        serving.cancel()
        assert session.last_seq is not None
        session.last_seq += 1  # the lie: "I saw one event more than your log kept"
        journal = host.journal_path
        assert journal is not None
        resumed = resume_table(identity, journal, on_event=events.append)
        await resumed.start()
        running = asyncio.create_task(resumed.run())
        g = resumed.game
        assert g is not None and g.game is not None
        seat = session.my_seat
        assert seat is not None
        # The gathering is over and play goes on: steps taken after it.
        steps_then = len(g.steps)
        await _soon(lambda: not resumed._gathering and len(g.steps) > steps_then + 2)  # type: ignore[union-attr]
        # Not admitted as one who saw what the host lost: it lost nothing (a clean pause).
        assert not any(e.get("event") == "lost_tail" for e in events), events
        assert seat not in resumed._restoring
        # Mid-game now: a "refusal" of a step he never sent, at the log's end.
        sg = session.game
        assert sg is not None and session.channel is not None
        invented = sg.sign([sg.player.act(Action(seat, Do.TAKE).to_dict())])
        sg.refused(invented.n)
        at = len(g.privacy.t.log)
        cmd = dataclasses.replace(invented.command(session._take_id()), refused=at)
        await session.channel.send(cmd)
        with contextlib.suppress(TimeoutError):  # a fixed host never says it: 3 s then
            await _soon(lambda: any(e.get("event") == "refusal_back" for e in events), 3)
    finally:
        playing.cancel()
        await session.close()
        if running is not None:
            running.cancel()
        if resumed is not None:
            await resumed.close()
        await host.close()
    taken = [e for e in events if e.get("event") == "refusal_back"]
    assert not taken, f"an invented refusal taken mid-game after a clean resume: {taken}"


async def test_after_the_gathering_a_player_who_gave_back_gives_back_no_refusal(
    tmp_path: Path,
) -> None:
    """A resume that did lose the journal's tail (the old host's files cut back): the player
    who saw what it lost gives back in the gathering; once it is over he is no longer
    admitted (``_restoring`` cleared), and a "refusal" of a step he never sent, mid-game, is
    refused (`forbidden`), never recorded."""
    table = await table_played_by_a_bot(
        tmp_path,
        play_delay=0.05,
        name="Late refusal",
        seats=2,
        bots=1,
        bot_level="random",
        rules=Rules(deck=36),
        bot_delay=0.05,
        hold=60,
    )
    identity, host, serving = table.identity, table.host, table.serving
    session, playing = table.session, table.playing
    records = tmp_path / "records"
    resumed: TableHost | None = None
    running: asyncio.Task[Any] | None = None
    events: list[dict[str, Any]] = []
    try:
        await _soon(
            lambda: (
                host.game is not None
                and host.game.game is not None
                and len(host.game.game.log) >= 4
                and host.game.game.result is None
                and session.last_seq is not None
            )
        )
        events_at = (host.state_dir / EVENTS_FILE).stat().st_size
        image = tmp_path / "image"
        shutil.copytree(records, image)  # the files as a power cut leaves them
        g0 = host.game
        assert g0 is not None
        steps_at = len(g0.steps)
        await _soon(lambda: len(g0.steps) > steps_at + 1)  # steps the cut will take
        await host.pause()
        serving.cancel()
        shutil.rmtree(records)
        image.rename(records)
        log_file = host.state_dir / EVENTS_FILE
        log_file.write_bytes(log_file.read_bytes()[:events_at])
        journal = host.journal_path
        assert journal is not None
        resumed = resume_table(identity, journal, on_event=events.append)
        await resumed.start()
        running = asyncio.create_task(resumed.run())
        g = resumed.game
        assert g is not None and g.game is not None
        seat = session.my_seat
        assert seat is not None
        await _soon(lambda: any(e.get("event") == "lost_tail" for e in events))
        steps_then = len(g.steps)
        await _soon(lambda: not resumed._gathering and len(g.steps) > steps_then + 2)  # type: ignore[union-attr]
        assert seat not in resumed._restoring  # the gathering is over
        sg = session.game
        assert sg is not None and session.channel is not None
        invented = sg.sign([sg.player.act(Action(seat, Do.TAKE).to_dict())])
        sg.refused(invented.n)
        at = len(g.privacy.t.log)
        cmd = dataclasses.replace(invented.command(session._take_id()), refused=at)
        await session.channel.send(cmd)
        with contextlib.suppress(TimeoutError):  # the host never says it: 3 s then
            await _soon(
                lambda: any(
                    e.get("event") == "refusal_back" and e.get("n") == invented.n for e in events
                ),
                3,
            )
        assert g.refusal(seat, invented.n) is None
    finally:
        playing.cancel()
        await session.close()
        if running is not None:
            running.cancel()
        if resumed is not None:
            await resumed.close()
        await host.close()
    taken = [e for e in events if e.get("event") == "refusal_back" and e.get("n") == invented.n]
    assert not taken, f"a refusal taken mid-game after the gathering: {taken}"
