"""The client session's state on disk: its seat (the game with its privacy key, the last
event, the steps not yet relayed) saved before anything is sent, synced soon after, found and
restored by a client started again (privacy.md "When a player drops out").

A seat has two files, written in turn, each one whole snapshot followed by its generation and
a checksum (`_sealed`): a save overwrites the older of the two in place, so the newer one is
whole whatever happens to the write, and the reader takes the newest whose checksum holds.
(One file with a temporary renamed over it stalled the loop: ext4 starts writing a file out
when it is renamed over another, 0.3 ms median, 4-12 ms at the 99th percentile, once 114 ms;
the save before a refill's strips is on the table's path.)"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import zlib
from pathlib import Path
from typing import Any

from localdurak.net.client_state import (
    SAVE_LATER_S,
    SYNC_PAUSE_S,
    SessionState,
)
from localdurak.net.table_store import fsync_paths
from localdurak.protocol import snapshot
from localdurak.protocol.table.clock import ClockView
from localdurak.protocol.table.common import Signed
from localdurak.protocol.table.seat import SNAPSHOT_CLASSES, SeatGame

log = logging.getLogger("localdurak.net.client")

_GEN = 8
"""Bytes of a save's generation (after its snapshot), then 4 of CRC-32 over both."""


def _slots(path: Path) -> tuple[Path, Path]:
    """A seat's two files: saves of odd generations (the first) go to the first, even to
    the second."""
    return path, path.with_name(path.name + ".b")


def _sealed(data: bytes, generation: int) -> bytes:
    body = data + generation.to_bytes(_GEN, "big")
    return body + zlib.crc32(body).to_bytes(4, "big")


def _unsealed(raw: bytes) -> tuple[int, bytes] | None:
    """A sealed save's generation and snapshot; None for anything else (a save torn by a
    crash, or one whole snapshot as the version before wrote it)."""
    if len(raw) < _GEN + 4 or zlib.crc32(raw[:-4]).to_bytes(4, "big") != raw[-4:]:
        return None
    return int.from_bytes(raw[-4 - _GEN : -4], "big"), raw[: -4 - _GEN]


def _write_in_place(path: Path, data: bytes) -> None:
    """``data`` over ``path`` (0600), no rename and no truncation to zero (both make ext4
    write the file out at once)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        view = memoryview(data)
        done = 0
        while done < len(data):
            done += os.pwrite(fd, view[done:], done)
        os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


class SessionSaved(SessionState):
    """The seat saved on disk (part of `ClientSession`)."""

    def _path(self, fingerprint: str | None = None) -> Path | None:
        fp = fingerprint or self.address.fingerprint
        if fp is None:
            return None
        key = self.identity.public_key.hex()[:16]
        return self._state_dir / f"{fp[:32]}-{key}.session"

    def _save(self) -> None:
        """The session as one snapshot (`protocol.snapshot`: msgpack, no code), over the older
        of the seat's two files (`_slots`): each is one seat's state, never a growing log.
        Written before this returns (a step is sent only once it is saved); its fsync follows
        off the loop, coalesced (`_sync_soon`)."""
        job = self._snapshot()
        if job is not None:
            error = self._put(job)
            if error is None and self._save_timer is not None:
                # It holds all that a save after a game action would (`_save_later`): one
                # save fewer, half a second later, amid the next bout's first actions.
                self._save_timer.cancel()
                self._save_timer = None
            self._written(job, error)

    def _save_soon(self) -> None:
        """The snapshot taken now, on the loop; the file written by a thread, in order with
        every other save.  For the save after a game action (`_save_later`), which nothing
        waits for: an action arriving meanwhile would wait for it (benchmarks/net.py)."""
        job = self._snapshot()
        if job is None:
            return

        async def write() -> None:
            self._written(job, await asyncio.to_thread(self._put, job))

        task = asyncio.get_running_loop().create_task(write())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _snapshot(self) -> tuple[int, Path, bytes] | None:
        """The next save: its number, its file and its bytes."""
        path = self._path()
        if path is None:
            return None
        saved = {
            "fingerprint": self.address.fingerprint or "",
            "seat": self.my_seat,
            "last_seq": self.last_seq,
            "game": self.game.freeze() if self.game is not None else None,
            "pending": list(self._pending),
            "refused": [list(r) for r in self._refused],
            "address": [self.address.host, self.address.port],
            "table": self.known_table,
            # The move time the host told: a seat restarted from this save restarts the move
            # clock from the game actions replayed to it as before (`ClockView`).
            "clock_seconds": self._clock_view.seconds,
        }
        data = snapshot.dumps(saved, kind="session", classes=SNAPSHOT_CLASSES)
        self._save_number += 1
        return self._save_number, path, data

    def _put(self, job: tuple[int, Path, bytes]) -> OSError | None:
        """Write a save (on the loop or in a thread): a save older than the one on disk, or
        than a `_forget`, is not written."""
        number, path, data = job
        with self._save_lock:
            if number <= self._saved_number:
                return None
            try:
                self._state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
                if self._generation is None:
                    self._generation = _newest_generation(path)
                generation = self._generation + 1
                # The older file: the newest save stays whole if this write is torn.
                _write_in_place(_slots(path)[1 - generation % 2], _sealed(data, generation))
            except OSError as e:
                return e
            self._generation = generation
            self._saved_number = number
        return None

    def _written(self, job: tuple[int, Path, bytes], error: OSError | None) -> None:
        _, path, data = job
        if error is not None:
            # The game goes on from memory; the next save tries again.
            if self.save_problem is None:
                log.warning("cannot save the seat in %s: %s", path, error)
            self.save_problem = f"cannot save this seat ({error.strerror or error})"
            self.notify()
            return
        if self.save_problem is not None:
            self.save_problem = None
            self.notify()
        self.bytes_saved += len(data)
        self._sync_soon(path)

    def _sync_soon(self, path: Path) -> None:
        if self._syncing is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return

        async def sync() -> None:
            try:
                await asyncio.sleep(SYNC_PAUSE_S)
                await asyncio.to_thread(fsync_paths, _slots(path))
            finally:
                self._syncing = None

        self._syncing = loop.create_task(sync())

    def _save_later(self) -> None:
        if self._save_timer is None:
            self._save_timer = asyncio.get_running_loop().call_later(SAVE_LATER_S, self._save_now)

    def _save_now(self) -> None:
        self._save_timer = None
        if not self.closed:
            self._save_soon()

    def _read_saved(self, path: Path) -> dict[str, Any] | None:
        """The newest of the seat's saves that reads (`_slots`); else the file as the version
        before wrote it (one snapshot, or an old pickle: refused with the reason)."""
        sealed: list[tuple[int, bytes]] = []
        unsealed: list[tuple[Path, bytes]] = []
        for p in _slots(path):
            try:
                raw = p.read_bytes()
            except FileNotFoundError:
                continue
            except OSError as e:
                log.warning("cannot read the saved session %s: %s", p, e)
                self.save_problem = f"the saved seat {p.name} was not loaded: {e}"
                continue
            got = _unsealed(raw)
            if got is None:
                unsealed.append((p, raw))
            else:
                sealed.append(got)
        for _, data in sorted(sealed, key=lambda g: g[0], reverse=True):
            try:
                saved = snapshot.loads(data, kind="session", classes=SNAPSHOT_CLASSES)
            except snapshot.SnapshotError as e:
                log.warning("cannot read a saved session of %s: %s", path, e)
                continue
            if isinstance(saved, dict):
                return saved
        for p, raw in unsealed:
            try:
                saved = snapshot.loads(raw, kind="session", classes=SNAPSHOT_CLASSES)
            except snapshot.SnapshotError as e:
                log.warning("cannot read the saved session %s: %s", p, e)
                self.save_problem = f"the saved seat {p.name} was not loaded: {e}"
                continue
            if isinstance(saved, dict):
                return saved
        return None

    def _find_saved(self) -> None:
        """Started again the way it was started (an address, no fingerprint): the seat saved
        for this identity at this address tells the table's fingerprint, which is pinned."""
        key = self.identity.public_key.hex()[:16]
        try:
            paths = sorted(
                self._state_dir.glob(f"*-{key}.session"),
                key=lambda p: p.stat().st_mtime,
                reverse=True,
            )
        except OSError:
            return
        for path in paths:
            saved = self._read_saved(path)
            if saved is None or not saved.get("fingerprint"):
                continue
            if saved.get("address") == [self.address.host, self.address.port]:
                self.address.fingerprint = saved["fingerprint"]
                return

    def saved_path(self) -> Path | None:
        """Where this seat is saved (None while the host's fingerprint is not known)."""
        return self._path()

    def restore(self) -> None:
        """Take up the seat saved on disk, if any (`start` does it); a saved seat that cannot
        be read is said in `save_problem` and the session starts afresh."""
        self._restore()

    def _restore(self) -> None:
        if self.address.fingerprint is None:
            self._find_saved()
        path = self._path()
        if path is None:
            return
        saved = self._read_saved(path)
        if saved is None or saved.get("fingerprint") != self.address.fingerprint:
            return
        self.my_seat = saved["seat"]
        self.last_seq = saved["last_seq"]
        if isinstance(saved.get("table"), str) and saved["table"]:
            self.known_table = saved["table"]
        self._pending = list(saved["pending"])
        seconds = saved.get("clock_seconds")
        if type(seconds) is int and seconds > 0:
            self._clock_view = ClockView(seconds)
        self._refused.clear()
        for r in saved.get("refused", []):
            if isinstance(r, list) and len(r) == 2 and isinstance(r[0], Signed):
                at = r[1]
                if type(at) is int:
                    self._refused.append((r[0], at))
        if saved["game"] is not None:
            try:
                self.game = SeatGame.thaw(saved["game"], self.identity, os.urandom)
            except (snapshot.SnapshotError, ValueError) as e:
                log.warning("cannot read the saved seat's game: %s", e)
                self.my_seat, self.last_seq, self._pending = None, None, []
                return
        self._restored = True

    def _forget(self) -> None:
        if self._save_timer is not None:
            self._save_timer.cancel()
            self._save_timer = None
        path = self._path()
        if path is not None:
            with self._save_lock:
                # A save still being written by a thread is older: it is not written now.
                self._save_number += 1
                self._saved_number = self._save_number
                self._generation = 0
                # (and a temporary file of the version before, renamed over its one file)
                for p in (*_slots(path), path.with_name(path.name + ".tmp")):
                    with contextlib.suppress(OSError):
                        p.unlink()

    def save(self) -> None:
        """Save the session now (the bot loop calls it after acting)."""
        self._save()


def _newest_generation(path: Path) -> int:
    """The generation of the newest save in the seat's files (`_slots`): 0 when there is none;
    1 when the first file holds one snapshot as the version before wrote it, so that it is not
    the one overwritten next."""
    found = []
    for p in _slots(path):
        try:
            got = _unsealed(p.read_bytes())
        except OSError:
            got = None
        found.append(0 if got is None else got[0])
    if not any(found) and path.exists():
        return 1
    return max(found)
