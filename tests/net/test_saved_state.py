"""Saved state is a versioned msgpack snapshot, never a pickle: a seat's
game, a host bot's seat and a client's session; each file one whole snapshot replaced
atomically (never an append log that grows: ~4.5 MB per bot per 52-card game before), an old
pickle refused with a message and never loaded, and the table's state folder as large after
the third game of a series as after the first."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pickle
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest

from localdurak.game.outcome import BoutEnded, first
from localdurak.game.rules import Rules
from localdurak.net.client import Address, ClientSession
from localdurak.net.host import EVENTS_FILE, HostOptions, TableHost, read_frames
from localdurak.net.host_bots import BotSeat
from localdurak.net.identity import EphemeralKey, load_or_create
from localdurak.protocol import snapshot
from localdurak.protocol.messages import GameOver, GameStarted
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.privacy.transcript import DECK_TABLES
from localdurak.protocol.table import seat as seat_module
from localdurak.protocol.table.seat import SNAPSHOT_CLASSES, SeatGame
from tests.support.hosts import loopback
from tests.support.net_play import MemoryGame


class _Boom:
    """Unpickling this runs code: it writes a file (what an attacker's pickle would do)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> Any:
        return (Path.write_text, (self.marker, "ran"))


def _evil_pickle(marker: Path, framed: bool) -> bytes:
    blob = pickle.dumps(_Boom(marker), protocol=pickle.HIGHEST_PROTOCOL)
    return (len(blob).to_bytes(4, "big") + blob) if framed else blob


def test_a_seat_mid_game_round_trips_and_plays_on() -> None:
    g = MemoryGame(3, Rules(deck=36), seed=3)
    g.deal()
    for _ in range(10):
        g.step()
    s = 1
    data = g.seats[s].freeze()
    assert not snapshot.is_pickle(data)
    head, _ = msgpack.unpackb(data, raw=False, strict_map_key=False)
    assert head["format"] == snapshot.FORMAT and head["version"] == snapshot.VERSION
    restored = SeatGame.thaw(data, g.keys[s], os.urandom)
    assert restored.view() == g.seats[s].view()
    g.seats[s] = restored
    g.play_out()
    assert g.host.game is not None and g.host.game.result is not None
    assert all(p.result() == g.host.game.result for p in g.seats)


def test_a_seat_s_save_leaves_out_the_deck_s_tables_and_reads_them_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The deck's cards, their points and the card of each point follow from the setup: a
    seat's save leaves them out (a third of the objects it encoded at every save), a seat
    thawed from it has them as before, and a save that holds them (as the version before
    wrote it) reads as well."""
    g = MemoryGame(3, Rules(deck=36), seed=4)
    g.deal()
    for _ in range(6):
        g.step()
    seat = g.seats[0]
    t = seat.player.t
    tables = {name: getattr(t, name) for name in DECK_TABLES}
    data = seat.freeze()
    assert {name: getattr(t, name) for name in DECK_TABLES} == tables  # put back

    head, tree = msgpack.unpackb(data, raw=False, strict_map_key=False)
    fields: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, list) and node:
            if node[0] == snapshot.OBJ and head["classes"][node[1]] == "Transcript":
                fields.extend(node[2::2])
            for x in node[1:]:
                walk(x)

    walk(tree)
    assert "schedule" in fields and not set(DECK_TABLES) & set(fields)
    monkeypatch.setattr(seat_module, "DECK_TABLES", ())  # saved as the version before did
    older = seat.freeze()
    monkeypatch.undo()
    assert len(older) > len(data)
    for saved in (data, older):
        back = SeatGame.thaw(saved, g.keys[0], os.urandom).player.t
        assert {name: getattr(back, name) for name in DECK_TABLES} == tables
    g.seats[0] = SeatGame.thaw(data, g.keys[0], os.urandom)
    g.play_out()
    assert g.host.game is not None and g.host.game.result is not None
    assert all(p.result() == g.host.game.result for p in g.seats)


def test_a_seat_saved_before_its_stage_is_relayed_keeps_no_copy_and_knows_its_echo() -> None:
    """A seat saved between sending its shuffle stage and seeing it relayed: the snapshot
    holds the stage by its digest alone (its signed copy is saved by the caller: 9 KB at 52
    cards, once), the restored seat takes the host's echo as its own, and the game plays
    out and audits clean."""
    g = MemoryGame(4, Rules(deck=52), seed=11)
    for p in g.seats:
        g.send(p.seat, p.start())
    s = 2
    while not (g.queue[0][0] == s and g.queue[0][1].step == "shuffle"):
        g.pump_one()
    stage = g.queue[0][1].body[0]["deck"]
    data = g.seats[s].freeze()
    assert not any(point in data for point in stage)  # not one of the stage's 52 points
    g.seats[s] = SeatGame.thaw(data, g.keys[s], os.urandom)
    g.pump()  # its stage comes back relayed: no "a message in our name we did not send"
    assert g.seats[s].hand_complete()
    g.play_out()
    assert g.host.game is not None and g.host.game.result is not None
    assert all(p.result() == g.host.game.result for p in g.seats)
    assert audit(g.record()).clean


def test_a_seat_s_last_outcome_comes_back_as_the_same_events() -> None:
    """The events of the engine's outcome (NamedTuples) are saved by their fields' names, the
    form a frozen dataclass had, and read back as equal events of the same kind."""
    g = MemoryGame(2, Rules(deck=36), seed=5)
    g.deal()
    seat = g.seats[0]
    for _ in range(200):
        if first(seat.last_outcome, BoutEnded) is not None:
            break
        assert g.step()
    ended = seat.last_outcome
    assert first(ended, BoutEnded) is not None
    restored = SeatGame.thaw(seat.freeze(), g.keys[0], os.urandom)
    assert restored.last_outcome == ended
    assert [type(e) for e in restored.last_outcome] == [type(e) for e in ended]


@pytest.mark.parametrize("framed", [False, True])
def test_an_old_pickle_is_refused_with_a_message_and_never_loaded(
    tmp_path: Path, framed: bool
) -> None:
    marker = tmp_path / "ran"
    path = tmp_path / "bot-1.bin"
    path.write_bytes(_evil_pickle(marker, framed))
    bot = BotSeat("random", random.Random(1), EphemeralKey(), path=path)
    with pytest.raises(snapshot.SnapshotError, match="older version"):
        bot.load()
    with pytest.raises(snapshot.SnapshotError, match="older version"):
        SeatGame.thaw(_evil_pickle(marker, framed), EphemeralKey(), os.urandom)
    assert not marker.exists()


async def test_a_client_with_an_old_pickled_seat_says_so_and_starts_afresh(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "ran"
    me = load_or_create(tmp_path / "me")
    session = ClientSession(
        me, "Me", Address("127.0.0.1", 1, "ab" * 32), state_dir=tmp_path / "saved"
    )
    path = session.saved_path()
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_bytes(_evil_pickle(marker, True))
    session.restore()
    assert session.game is None and session.last_seq is None
    assert session.save_problem is not None and "older version" in session.save_problem
    assert not marker.exists()


def test_a_seat_is_saved_to_two_files_in_turn_and_a_torn_save_leaves_the_one_before(
    tmp_path: Path,
) -> None:
    """Each save overwrites the older of the seat's two files in place (no rename over the
    last, which stalled the loop on ext4): the newest is read back, and a save a crash tore
    leaves the one before it, which the next save does not overwrite."""
    me = load_or_create(tmp_path / "me")

    def session() -> ClientSession:
        return ClientSession(
            me, "Me", Address("127.0.0.1", 1, "ab" * 32), state_dir=tmp_path / "saved"
        )

    s = session()
    s.my_seat = 1
    for seq in (10, 11, 12):
        s.last_seq = seq
        s.save()
    first = s.saved_path()
    assert first is not None
    second = first.with_name(first.name + ".b")
    assert first.is_file() and second.is_file()
    assert sorted(p.name for p in first.parent.iterdir()) == [first.name, second.name]
    back = session()
    back.restore()
    assert back.last_seq == 12 and back.my_seat == 1
    raw = first.read_bytes()  # the third save went to the first file again
    first.write_bytes(raw[: len(raw) // 2])
    back = session()
    back.restore()
    assert back.last_seq == 11 and back.save_problem is None
    kept = second.read_bytes()
    back.last_seq = 13
    back.save()
    assert second.read_bytes() == kept
    again = session()
    again.restore()
    assert again.last_seq == 13


async def test_a_save_before_a_step_is_sent_stands_for_the_save_after_an_action(
    tmp_path: Path,
) -> None:
    """The save after a game action waits for a quiet moment (`SAVE_LATER_S`); a save made
    meanwhile before a step is sent (a refill's strips) holds all it would, so it is not
    made again half a second later, amid the next bout's first actions."""
    from localdurak.net.client_state import SAVE_LATER_S

    s = ClientSession(
        load_or_create(tmp_path / "me"),
        "Me",
        Address("127.0.0.1", 1, "ab" * 32),
        state_dir=tmp_path / "saved",
    )
    s.my_seat, s.last_seq = 1, 10
    s._save_later()  # after our action
    s.last_seq = 11
    s.save()  # before our strips
    await asyncio.sleep(SAVE_LATER_S + 0.2)
    first = s.saved_path()
    assert first is not None
    assert first.is_file() and not first.with_name(first.name + ".b").exists()  # one save
    back = ClientSession(
        load_or_create(tmp_path / "me"),
        "Me",
        Address("127.0.0.1", 1, "ab" * 32),
        state_dir=tmp_path / "saved",
    )
    back.restore()
    assert back.last_seq == 11


def test_a_seat_saved_by_the_version_before_is_read_and_kept_until_a_newer_save(
    tmp_path: Path,
) -> None:
    me = load_or_create(tmp_path / "me")

    def session() -> ClientSession:
        return ClientSession(
            me, "Me", Address("127.0.0.1", 1, "ab" * 32), state_dir=tmp_path / "saved"
        )

    path = session().saved_path()
    assert path is not None
    path.parent.mkdir(parents=True)
    old = {"fingerprint": "ab" * 32, "seat": 2, "last_seq": 5, "game": None, "pending": []}
    old |= {"address": ["127.0.0.1", 1], "table": None}
    path.write_bytes(snapshot.dumps(old, kind="session", classes=SNAPSHOT_CLASSES))
    s = session()
    s.restore()
    assert s.last_seq == 5 and s.my_seat == 2
    s.last_seq = 6
    s.save()  # to the second file: the one the version before wrote stays whole meanwhile
    assert snapshot.loads(path.read_bytes(), kind="session", classes=SNAPSHOT_CLASSES) == old
    back = session()
    back.restore()
    assert back.last_seq == 6


def test_a_snapshot_names_no_code_and_no_foreign_class() -> None:
    for bad in ("posix.system", "os.system", "subprocess.Popen", "builtins.eval"):
        head = {"format": snapshot.FORMAT, "version": 1, "kind": "seat", "classes": [bad]}
        data = msgpack.packb([head, [snapshot.OBJ, 0]], use_bin_type=True)
        with pytest.raises(snapshot.SnapshotError):
            snapshot.loads(data, kind="seat")
    data = msgpack.packb(
        [
            {"format": snapshot.FORMAT, "version": 1, "kind": "seat", "classes": []},
            [snapshot.FUNC, "os.system"],
        ],
        use_bin_type=True,
    )
    with pytest.raises(snapshot.SnapshotError, match="not a function"):
        snapshot.loads(data, kind="seat")
    with pytest.raises(snapshot.SnapshotError, match="no code"):
        snapshot.dumps({"f": os.system}, kind="seat")
    newer = msgpack.packb(
        [{"format": snapshot.FORMAT, "version": 99, "kind": "seat", "classes": []}, None]
    )
    with pytest.raises(snapshot.SnapshotError, match="another version"):
        snapshot.loads(newer, kind="seat")


def test_shared_and_cyclic_references_come_back_shared() -> None:
    a: list[Any] = [1]
    a.append(a)
    d = {"x": a, "y": a, (1, 2): {3, 4}, "big": 2**200, "neg": -(2**70)}
    out = snapshot.loads(snapshot.dumps(d, kind="t"), kind="t")
    assert out["x"] is out["y"] and out["x"][1] is out["x"]
    assert out[(1, 2)] == {3, 4} and out["big"] == 2**200 and out["neg"] == -(2**70)


def test_a_tuple_saved_again_reads_back_as_it_is_now() -> None:
    """A tuple of scalars is encoded once and its node taken again at the next save; one that
    holds anything mutable is encoded afresh, so a change inside it is saved."""
    inner = [1]
    t = (inner, (2, 3), ((4,), b"x"))
    first = snapshot.loads(snapshot.dumps({"t": t}, kind="t"), kind="t")
    inner.append(5)
    again = snapshot.loads(snapshot.dumps({"t": t, "u": t[1], "v": t[2]}, kind="t"), kind="t")
    assert first["t"] == ([1], (2, 3), ((4,), b"x"))
    assert again["t"] == ([1, 5], (2, 3), ((4,), b"x"))
    assert again["u"] is again["t"][1] and again["v"] is again["t"][2]
    assert snapshot.dumps({"t": t[2]}, kind="t") == snapshot.dumps({"t": ((4,), b"x")}, kind="t")


SEAT_MAX = 32 * 1024
"""The most a seat's snapshot may be at any moment of a game: the goal of 32 KB a seat (at
seed 7, 4 x 36: 25 KB; 6 x 52: 21 KB, 28 KB before the bot's own shuffle stage was saved
once instead of twice, as sent and as pending)."""


@contextlib.contextmanager
def _biggest_bot_save() -> Iterator[list[int]]:
    """The largest bot snapshot written meanwhile (``[bytes]``), by wrapping `BotSeat.save`."""
    biggest = [0]
    saving = BotSeat.save

    def save(self: BotSeat) -> None:
        saving(self)
        assert self.path is not None
        biggest[0] = max(biggest[0], self.path.stat().st_size)

    BotSeat.save = save  # type: ignore[method-assign]
    try:
        yield biggest
    finally:
        BotSeat.save = saving  # type: ignore[method-assign]


@pytest.mark.slow
async def test_a_seat_stays_within_32_kb_at_every_moment_of_a_52_card_game_at_six(
    tmp_path: Path,
) -> None:
    host = TableHost(
        load_or_create(tmp_path / "home"),
        loopback(
            tmp_path, name="Six", seats=6, bots=6, bot_level="random", rules=Rules(deck=52), seed=7
        ),
    )
    with _biggest_bot_save() as biggest:
        await asyncio.wait_for(host.run(), 300)
    assert len(host.results) == 1
    assert 0 < biggest[0] <= SEAT_MAX, biggest[0]


async def test_the_state_folder_stays_flat_across_a_series(tmp_path: Path) -> None:
    """Three games of a series: after each, the bots' snapshots and the event log are about
    as large as after the first (the old append logs grew by megabytes a game)."""
    sizes: list[int] = []
    host = TableHost(
        load_or_create(tmp_path / "home"),
        HostOptions(
            name="Flat",
            seats=4,
            bots=4,
            bot_level="random",
            rules=Rules(deck=36),
            games=3,
            record_dir=tmp_path / "records",
            port=0,
            advertise=False,
            host="127.0.0.1",
            seed=7,
        ),
        on_event=lambda e: (
            sizes.append(_folder(host.state_dir)) if e.get("event") == "game_over" else None
        ),
    )
    with _biggest_bot_save() as biggest:
        await asyncio.wait_for(host.run(), 300)
    assert len(host.results) == 3 and len(sizes) == 3
    assert biggest[0] <= SEAT_MAX, biggest[0]
    # The event log holds the last game only (from the game before's end): it does not
    # accumulate the series (before: every event of every game, for --resume).
    frames = read_frames(host.state_dir / EVENTS_FILE)
    assert [type(e) for e in frames].count(GameStarted) == 1
    assert isinstance(frames[0], GameOver)
    bots = sum(p.stat().st_size for p in host.state_dir.glob("bot-*.bin"))
    assert bots <= 4 * SEAT_MAX, bots
    assert not list(host.state_dir.glob("*.tmp"))


def _folder(path: Path) -> int:
    return sum(p.stat().st_size for p in path.iterdir() if p.is_file())


def test_the_table_state_is_on_the_disk_before_write_state_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's state (the bots' keys, a pause's ``paused_at``) is fsynced and so is its
    folder: written without it, a power cut could leave the rename and lose the contents,
    and the resumed host then admitted give-backs as after a crash, or had no bots' keys."""
    from localdurak.net import table_store

    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.path.realpath(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(table_store.os, "fsync", fsync)
    store = table_store.TableStore(tmp_path / "state", tmp_path / "records")
    store.state_dir.mkdir()
    store.write_state({"paused_at": 7})
    state = (store.state_dir / table_store.STATE_FILE).resolve()
    assert str(state.with_suffix(".tmp")) in synced  # the contents, before the rename
    assert str(store.state_dir.resolve()) in synced  # the rename
    assert json.loads(state.read_text()) == {"paused_at": 7}


def _with_head(data: bytes, **head: Any) -> bytes:
    old, tree = msgpack.unpackb(data, raw=False, strict_map_key=False)
    return bytes(msgpack.packb([{**old, **head}, tree], use_bin_type=True))


def test_a_seat_saved_as_version_1_is_read_and_another_version_is_refused() -> None:
    """Version 2 leaves the deck's tables out of a seat's transcript: a version that reads
    only 1 would take it for whole and break at its first card, so the number changed.  A
    version 1 save (the tables in it) is still read and plays on; a version this one does
    not read, or a version that is no number, is refused with a message."""
    g = MemoryGame(2, Rules(deck=24), seed=5)
    g.deal()
    data = g.seats[0].freeze()
    assert msgpack.unpackb(data, raw=False, strict_map_key=False)[0]["version"] == 2
    back = SeatGame.thaw(_with_head(data, version=1), g.keys[0], os.urandom)
    assert back.view() == g.seats[0].view()
    for bad in (3, 0, True, "2", None):
        with pytest.raises(snapshot.SnapshotError, match="another version"):
            SeatGame.thaw(_with_head(data, version=bad), g.keys[0], os.urandom)


def test_a_save_with_only_some_of_the_deck_s_tables_is_made_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A save that holds ``deck`` but not ``_in_deck`` (a reviewer's damaged save; it was
    read and the seat broke at its first card with an AttributeError): the tables are made
    again from the setup, and the seat plays on to the same result."""
    from localdurak.protocol.table import seat as seat_module

    g = MemoryGame(2, Rules(deck=24), seed=3)
    g.deal()
    monkeypatch.setattr(seat_module, "DECK_TABLES", ("_in_deck",))
    data = g.seats[0].freeze()
    monkeypatch.undo()
    g.seats[0] = SeatGame.thaw(data, g.keys[0], os.urandom)
    g.play_out()
    assert g.host.game is not None and g.host.game.result is not None
    assert all(p.result() == g.host.game.result for p in g.seats)
