"""Hostile clients against a real host on loopback TLS (docs/protocol.md): garbage and oversized
frames, a wrong version, out-of-turn and illegal moves, a forged signature, a replayed
command, a stranger without the PIN — each refused with a clear error, and the host and the
game unharmed: the game completes and its record audits clean."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import struct
from pathlib import Path
from typing import Any

import msgpack
import pytest

from localdurak.game.actions import Action, Do
from localdurak.game.rules import Rules
from localdurak.net import transport as tr
from localdurak.net.client import Address, ClientSession, play_as_bot
from localdurak.net.host import HostOptions, TableHost
from localdurak.net.identity import Identity, load_or_create
from localdurak.protocol import messages as m
from localdurak.protocol.codec import encode_frame
from localdurak.protocol.errors import (
    AuthFailed,
    BadPin,
    ErrorCode,
    IllegalMove,
    NotYourTurn,
    TableFull,
)
from localdurak.protocol.privacy.audit import audit

PIN = "4711"


async def raw(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port, ssl=tr.client_context())


async def read_error(reader: asyncio.StreamReader) -> dict[str, Any]:
    """The next frame (the host's error), then the end of the stream."""
    head = await asyncio.wait_for(reader.readexactly(4), 5)
    body = await asyncio.wait_for(reader.readexactly(struct.unpack(">I", head)[0]), 5)
    frame: dict[str, Any] = msgpack.unpackb(body, raw=False)
    rest = await asyncio.wait_for(reader.read(), 5)
    assert rest == b""  # the host hung up
    return frame


async def stranger(port: int, fp: str, ident: Identity, pin: str | None) -> None:
    ch = await tr.connect("127.0.0.1", port, fingerprint=fp)
    await tr.client_handshake(ch, ident, name="Mallory", pin=pin)


async def test_hostile_clients_are_refused_and_the_game_goes_on(tmp_path: Path) -> None:
    ident = load_or_create(tmp_path / "host")
    records = tmp_path / "records"
    host = TableHost(
        ident,
        HostOptions(
            name="Hostile",
            seats=3,
            bots=1,
            rules=Rules(deck=24),
            record_dir=records,
            port=0,
            pin=PIN,
            advertise=False,
            host="127.0.0.1",
        ),
    )
    await host.start()
    run = asyncio.create_task(host.run())
    port, fp = host.port, ident.fingerprint

    # Before any game: garbage, an oversized frame, a wrong version.
    reader, writer = await raw(port)
    writer.write(b"\x00\x00\x00\x05GARBAGE!!")
    err = await read_error(reader)
    assert err["t"] == "error" and err["code"] == ErrorCode.BAD_FRAME
    reader, writer = await raw(port)
    writer.write(struct.pack(">I", 9 * 1024) + b"x" * 100)  # above the 8 KiB before auth
    err = await read_error(reader)
    assert err["code"] == ErrorCode.BAD_FRAME and "8192" in err["message"]
    reader, writer = await raw(port)
    writer.write(
        encode_frame(
            {"t": "hello", "version": 99, "min_version": 99, "features": [], "software": "future"}
        )
    )
    err = await read_error(reader)
    assert err["code"] == ErrorCode.TOO_NEW and "99" in err["message"]

    # A stranger without the PIN, then with a wrong one.
    mallory = load_or_create(tmp_path / "mallory")
    for pin, kind in ((None, BadPin), ("0000", BadPin)):
        try:
            await stranger(port, fp, mallory, pin)
        except kind as e:
            assert "PIN" in str(e)
        else:
            raise AssertionError("a stranger without the PIN got in")

    # Two honest players.
    sessions = []
    for name in ("alice", "bob"):
        s = ClientSession(
            load_or_create(tmp_path / name),
            name,
            Address("127.0.0.1", port, fp),
            pin=PIN,
            state_dir=tmp_path / name / "sessions",
        )
        await s.start()
        sessions.append(s)
    alice, bob = sessions
    bob_bot = asyncio.create_task(play_as_bot(bob, "random"))
    await alice.set_ready(True)
    while alice.game is None or not alice.game.hand_complete():
        await asyncio.wait_for(alice.wait_changed(), 10)
    # The table is full and playing: a stranger with the PIN gets no seat.
    try:
        await stranger(port, fp, load_or_create(tmp_path / "eve"), PIN)
    except TableFull as e:
        assert "started" in str(e)
    else:
        raise AssertionError("a stranger got a seat in a running game")

    # Bob stops playing, and the table waits (for alice or bob): what alice's engine sees is
    # what the host will judge her moves by.
    bob_bot.cancel()
    while True:
        try:
            await asyncio.wait_for(alice.wait_changed(), 0.5)
        except TimeoutError:
            break
    sg = alice.game
    assert sg is not None and alice.my_seat is not None and alice.channel is not None
    seat = alice.my_seat
    view = sg.view()
    assert view is not None
    # A card she may not attack or throw in with now (a throw-in of a rank on the table is
    # legal for any attacker).
    card = next((c for c in view.hand if Action.attack(seat, c) not in view.legal), view.hand[0])
    # Out of turn (or illegal): an attack when alice may not attack now, past her own engine.
    if seat != view.attacker and Action.attack(seat, card) not in view.legal:
        step: Any = sg.player.play(card, {"seat": seat, "do": "attack", "cards": [str(card)]})
        bad = sg.sign([step])
        try:
            await alice.send_raw(bad.command, wait=True, n=bad.n)
        except (NotYourTurn, IllegalMove) as e:
            # Not her turn, or (the others played on meanwhile) a throw-in the rules refuse.
            assert e.rule is not None and e.rule.startswith("R-")
        else:
            raise AssertionError("an out-of-turn move was accepted")
    else:
        step = sg.player.act({"seat": seat, "do": "pass"})
        bad = sg.sign([step])
        try:
            await alice.send_raw(bad.command, wait=True, n=bad.n)
        except IllegalMove as e:
            assert e.rule is not None and e.rule.startswith("R-")
        else:
            raise AssertionError("an illegal pass was accepted")
    # The refusal reached her seat: it no longer waits for the step's echo (SeatGame.refused).
    assert not sg.player.remembers(step)
    # An action in another seat's name.
    other = (seat + 1) % 3
    forged_body = sg.sign([sg.player.act({"seat": seat, "do": "take"})])
    forged = dataclasses.replace(forged_body, sig=bytes(64))
    assert alice.channel is not None
    try:
        await alice.send_raw(forged.command, wait=True)
    except AuthFailed as e:
        assert "signature" in str(e)
    else:
        raise AssertionError("a forged signature was accepted")
    assert other != seat
    # The forged step cost alice her connection (auth_failed closes): she comes back by
    # herself and the game goes on.
    while alice.reconnects == 0:
        await asyncio.wait_for(alice.wait_changed(), 15)
    # A replayed command id on the new connection: refused, the connection closed.
    assert alice.channel is not None
    ch = alice.channel
    again = alice.take_command_id()
    await ch.send(m.Ready(id=again, ready=True))
    ch.connection.last_command_id = None  # our own state machine would refuse to repeat it
    await ch.send(m.Ready(id=again, ready=True))
    while alice.reconnects < 2:
        await asyncio.wait_for(alice.wait_changed(), 15)
    codes = [e.code for e in alice.errors]
    assert ErrorCode.AUTH_FAILED in codes and ErrorCode.REPLAYED in codes

    bob_bot = asyncio.create_task(play_as_bot(bob, "random"))
    alice_bot = asyncio.create_task(play_as_bot(alice, "random"))
    await asyncio.wait_for(run, 120)
    for t in (alice_bot, bob_bot):
        t.cancel()
    for s in sessions:
        await s.close()
    (over,) = host.results
    record = json.loads(Path(over["record"]).read_text())
    report = audit(record)
    # Refused attempts name nobody.  Each refusal carries its signed step, which the audit
    # replays; the one whose signature was forged cannot be shown, only the gap it left in
    # alice's counters: the host's word, which the audit says it cannot check (not clean).
    assert report.guilty == (), report.faults
    (fault,) = report.faults
    assert "cannot be checked" in fault.what and f"seat {seat}'s #" in fault.what, fault
    assert isinstance(Action, type) and Do.PASS


def _loopback_table(tmp_path: Path, name: str, **options: Any) -> TableHost:
    """A table on loopback with advertising off: two seats, one a host bot, 24 cards, unless
    ``options`` say otherwise."""
    opts: dict[str, Any] = {"seats": 2, "bots": 1, "rules": Rules(deck=24), **options}
    return TableHost(
        load_or_create(tmp_path / "host"),
        HostOptions(
            name=name, record_dir=tmp_path / "r", port=0, advertise=False, host="127.0.0.1", **opts
        ),
    )


async def _table_with_pat(
    tmp_path: Path, rules: Rules, **options: Any
) -> tuple[TableHost, asyncio.Task[None], ClientSession]:
    """A two-seat table on loopback (a host bot at seat 0, advertising off), serving, and
    Pat's session to it, not started."""
    host = _loopback_table(tmp_path, rules=rules, **options)
    ident = host.identity
    await host.start()
    run = asyncio.create_task(host.run())
    s = ClientSession(
        load_or_create(tmp_path / "p"),
        "Pat",
        Address("127.0.0.1", host.port, ident.fingerprint),
        state_dir=tmp_path / "p" / "s",
    )
    return host, run, s


async def test_the_network_session_is_a_table_session_for_the_terminal_client(
    tmp_path: Path,
) -> None:
    from localdurak.net.api import AuditStatus, ConnectionState, EventKind, TableSession

    _, run, s = await _table_with_pat(tmp_path, Rules(deck=24), name="API", games=2)
    await s.start()
    assert isinstance(s, TableSession)
    assert s.connection is ConnectionState.CONNECTED and not s.offline and s.seat == 1
    ticks: list[int] = []
    s.subscribe(lambda: ticks.append(1))
    bot = asyncio.create_task(play_as_bot(s, "random"))
    await asyncio.wait_for(run, 120)
    bot.cancel()
    assert ticks and s.series.games == 2 and sum(s.series.durak) + s.series.draws == 2
    kinds = {e.kind for e in s.events}
    assert {EventKind.GAME_STARTED, EventKind.ACTION, EventKind.GAME_OVER} <= kinds
    assert kinds & {EventKind.BITO, EventKind.TOOK}
    for _ in range(100):  # the client audits the game itself, off the event loop
        if s.audit.status is not AuditStatus.PENDING:
            break
        await asyncio.sleep(0.1)
    assert s.audit.status is AuditStatus.CLEAN
    assert s.names[1] == "Pat" and s.game_number == 2
    await s.close()
    assert s.connection is ConnectionState.CLOSED


async def test_a_session_saved_at_an_earlier_table_of_the_same_host_starts_afresh(
    tmp_path: Path,
) -> None:
    ident = load_or_create(tmp_path / "host")
    me = load_or_create(tmp_path / "me")

    def table(name: str) -> TableHost:
        return TableHost(
            ident,
            HostOptions(
                name=name,
                seats=2,
                bots=1,
                rules=Rules(deck=24),
                record_dir=tmp_path / name,
                port=0,
                advertise=False,
                host="127.0.0.1",
                hold=1,
            ),
        )

    first = table("first")
    await first.start()
    run1 = asyncio.create_task(first.run())
    s1 = ClientSession(
        me, "Me", Address("127.0.0.1", first.port, ident.fingerprint), state_dir=tmp_path / "saved"
    )
    await s1.start()
    await s1.set_ready(True)
    while s1.game is None or not s1.game.hand_complete():
        await asyncio.wait_for(s1.wait_changed(), 10)
    s1.save()
    assert s1.task is not None and s1.channel is not None
    s1.task.cancel()  # the process dies: its saved seat stays on disk
    await s1.channel.close()
    await asyncio.wait_for(run1, 30)  # the seat forfeits after the hold; the table closes
    assert first.results[0]["forfeit"] == 1
    assert list((tmp_path / "saved").glob("*.session"))

    second = table("second")
    await second.start()
    run2 = asyncio.create_task(second.run())
    s2 = ClientSession(
        me, "Me", Address("127.0.0.1", second.port, ident.fingerprint), state_dir=tmp_path / "saved"
    )
    await s2.start()
    assert s2.game is None and s2.my_seat == 1  # the stale seat was dropped
    bot = asyncio.create_task(play_as_bot(s2, "random"))
    await asyncio.wait_for(run2, 60)
    bot.cancel()
    assert second.results and "forfeit" not in second.results[0]
    await s2.close()


async def test_a_player_who_drops_in_the_lobby_comes_back_and_the_series_goes_on(
    tmp_path: Path,
) -> None:
    host = _loopback_table(tmp_path, "Lobby", games=2)
    ident = host.identity
    await host.start()
    run = asyncio.create_task(host.run())
    s = ClientSession(
        load_or_create(tmp_path / "p"),
        "Pat",
        Address("127.0.0.1", host.port, ident.fingerprint),
        state_dir=tmp_path / "p" / "s",
    )
    await s.start()
    bot = asyncio.create_task(play_as_bot(s, "random"))
    while not s.results:
        await asyncio.wait_for(s.wait_changed(), 30)
    bot.cancel()
    # Between the games the connection drops: the seat is freed, the client comes back by
    # itself, is seated again and resumes without breaking its event sequence.
    assert s.channel is not None
    await s.channel.close()
    while s.reconnects == 0:
        await asyncio.wait_for(s.wait_changed(), 15)
    bot = asyncio.create_task(play_as_bot(s, "random"))
    await asyncio.wait_for(run, 60)
    bot.cancel()
    assert len(host.results) == 2 and len(s.results) == 2
    assert s.reconnects == 1  # once, and it stayed: no broken sequence after the resume
    await s.close()


async def test_the_journal_and_the_event_log_reach_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """flush per line survives a crashed host process; fsync (in a thread, coalesced) also
    survives a power cut.  Every file the host keeps for --resume is synced while it plays."""
    synced: set[str] = set()
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.add(os.path.basename(os.readlink(f"/proc/self/fd/{fd}")))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    host = _loopback_table(tmp_path, "Disk", bots=2)
    await host.start()
    await asyncio.wait_for(host.run(), 60)
    assert host.journal_path is not None
    assert {"events.bin", host.journal_path.name} <= synced


async def test_R_S5_every_player_sees_the_challenge_window_open_and_close(
    tmp_path: Path,
) -> None:
    """The host holds an action that would close the bout for the challenge window; a
    `closing` event tells every screen meanwhile that challenges are still taken."""
    host, run, s = await _table_with_pat(
        tmp_path, Rules(deck=24, cheating=True), name="Shulery", challenge_window=0.2
    )
    seen: list[bool] = []
    s.subscribe(lambda: seen.append(s.closing) if not seen or seen[-1] != s.closing else None)
    await s.start()
    bot = asyncio.create_task(play_as_bot(s, "random"))
    await asyncio.wait_for(run, 120)
    bot.cancel()
    opened = [e for e in host.events if isinstance(e, m.Closing) and e.open]
    assert opened and all(e.window == 200 for e in opened)
    assert True in seen and seen[-1] is False  # opened on screen, and closed again


async def test_a_command_whose_caller_gave_up_does_not_end_the_session(tmp_path: Path) -> None:
    """A bot or a screen task cancelled while its command waited for the host's answer: the
    answer comes anyway, and the session goes on (it used to end with InvalidStateError)."""
    host, run, s = await _table_with_pat(tmp_path, Rules(deck=24), name="Gave up")
    await s.start()
    for _ in range(3):
        waiting = asyncio.create_task(s.set_ready(False))
        for _ in range(3):
            await asyncio.sleep(0)  # the command is out; its answer is not in yet
        waiting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
    await asyncio.sleep(0.3)  # the answers arrive
    assert s.task is not None and not s.task.done()
    await s.set_ready(True)  # still answered: the game starts and is played out
    bot = asyncio.create_task(play_as_bot(s, "random"))
    await asyncio.wait_for(run, 120)
    bot.cancel()
    assert host.results


async def test_a_relayed_step_that_breaks_the_game_closes_the_session_with_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step our own checks refuse (a forged card, a bad strip, a forged signature) cannot be
    fixed by reconnecting: the host would replay it.  The session closes and says why."""
    from localdurak.protocol.errors import IllegalMove
    from localdurak.protocol.table.seat import SeatGame

    host, run, s = await _table_with_pat(tmp_path, Rules(deck=24), name="Broken")
    real = SeatGame.receive
    calls = [0]

    def receive(self: SeatGame, event: Any, **kw: Any) -> Any:
        if self.seat == s.my_seat:  # Pat's replica only (the host's bot runs here too)
            calls[0] += 1
            if calls[0] == 40:  # mid-deal or mid-game, as a bad step would come
                raise IllegalMove(
                    "card privacy: seat 0 played 9S from position 3 with a wrong proof"
                )
        return real(self, event, **kw)

    monkeypatch.setattr(SeatGame, "receive", receive)
    await s.start()
    bot = asyncio.create_task(play_as_bot(s, "random"))
    for _ in range(200):
        if s.closed:
            break
        await asyncio.sleep(0.05)
    bot.cancel()
    assert s.closed and "breaks the game" in (s.closed_reason or "")
    assert "wrong proof" in (s.closed_reason or "") and s.reconnects == 0
    await host.close("test over")
    run.cancel()


async def test_a_host_bot_refused_waits_for_the_table_to_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host bot whose step the host refuses rests a moment (`BOT_REST`) before it tries
    again; it used to retry at once, for ever, and the host's loop never yielded."""
    from localdurak.protocol.errors import NotYourTurn
    from localdurak.protocol.table.host import HostGame

    real = HostGame.receive
    refused = [0]

    def receive(self: HostGame, seat: int, cmd: Any) -> Any:
        if seat == 0 and cmd.step in ("play", "act"):
            refused[0] += 1
            raise NotYourTurn("not your turn (this test refuses every move of seat 0)")
        return real(self, seat, cmd)

    monkeypatch.setattr(HostGame, "receive", receive)
    host = _loopback_table(tmp_path, "Stubborn", bots=2)
    await host.start()
    run = asyncio.create_task(host.run())
    await asyncio.sleep(1.5)
    assert host.game is not None and host.game.privacy.t.deal_complete()
    # A try every 0.2 s at most (and one per new event), not a busy loop.
    assert 0 < refused[0] <= 15, refused[0]
    # Each refused step is forgotten by the bot's seat (SeatGame.refused), not kept to the end.
    bot = host.seats[0].bot
    assert bot is not None and bot.game is not None
    in_flight = bot.pending  # signed, neither relayed nor refused yet
    assert set(bot.game.unrelayed) <= {p.n for p in in_flight}
    assert len(bot.game.player.unechoed) <= sum(len(p.body) for p in in_flight)
    await host.close("test over")
    run.cancel()


class _StubChannel:
    """What `Peer` needs of a channel, recording what it is asked to do."""

    def __init__(self, backlog: int) -> None:
        self.backlog = backlog
        self.writes: list[list[m.Message]] = []
        self.closed = False
        self.how: str | None = None

    def write_now(self, messages: list[m.Message]) -> int:
        self.writes.append(list(messages))
        return self.backlog

    async def close(self) -> None:
        self.closed, self.how = True, "close"

    async def abort(self) -> None:
        self.closed, self.how = True, "abort"


async def test_a_player_who_stops_reading_is_dropped_not_buffered_for_ever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A laptop that froze mid-game: what the host writes to it piles up.  Past
    PEER_BACKLOG_MAX the host drops the connection (the player resumes once it reads again)
    instead of holding every later event for it in memory."""
    from localdurak.net import host as hostmod
    from localdurak.net import peer as peermod

    monkeypatch.setattr(peermod, "PEER_BACKLOG_MAX", 1000)
    ok = _StubChannel(backlog=10)
    stuck = _StubChannel(backlog=5000)
    peers = [hostmod.Peer(ch, b"k", n) for ch, n in ((ok, "Ok"), (stuck, "Stuck"))]  # type: ignore[arg-type]
    for i in range(3):  # pushed in one turn of the loop: one write each
        for p in peers:
            p.push(m.Presence(seq=i + 1, seat=0, connected=True))
    for p in peers:
        await asyncio.wait_for(p.finished(), 2)
    assert [len(w) for w in ok.writes] == [3] and not ok.closed
    assert [len(w) for w in stuck.writes] == [3] and stuck.how == "abort"


async def test_hanging_up_writes_what_was_pushed_first() -> None:
    from localdurak.net import host as hostmod

    ch = _StubChannel(backlog=0)
    p = hostmod.Peer(ch, b"k", "Leaving")  # type: ignore[arg-type]
    p.push(m.Error(code=ErrorCode.TABLE_FULL, message="full", re=1))
    p.hang_up()
    p.push(m.Presence(seq=1, seat=0, connected=True))  # after the last word: not sent
    await asyncio.wait_for(p.finished(), 2)
    assert [[type(x).__name__ for x in w] for w in ch.writes] == [["Error"]]
    assert ch.how == "close"
