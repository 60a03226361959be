"""What a table keeps on disk (records.md journal; docs/protocol.md §7 resume).

`TableStore` owns the table's files: the event log (``events.bin``, every numbered event as
a frame, before anyone hears of it), the game's journal (JSON Lines, `protocol.records`),
the table's options (``table.json``) and the coalesced fsync of the two logs.  Each line is
flushed to the system before the event goes out, so a crash of the host's process loses
nothing; the fsync that follows guards against a power cut (at most `SYNC_PAUSE_S` of lines).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import json
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from localdurak.protocol.codec import MAX_FRAME, FrameDecoder, encode_frame
from localdurak.protocol.connection import encoded_frame
from localdurak.protocol.errors import RemoteProtocolError
from localdurak.protocol.messages import Message, message_from_wire, message_to_wire
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.records import JOURNAL_FORMAT, read_journal

SYNC_PAUSE_S = 0.05
"""The pause after each fsync of the journal and the event log (`TableStore.sync_soon`): at
most this long more of a table's lines wait for the disk when the power goes (a crash of the
host's own process loses none: each line is flushed to the system before anyone hears of it)."""
EVENTS_FILE = "events.bin"
STATE_FILE = "table.json"
LOCK_FILE = "host.lock"
"""Held (``flock``) by the process hosting the table: a second host of it, or a resume while
the first still runs, is refused before it writes anything.  The system lets go of it when
that process ends, however it ends."""
STATE_DIR = ".localdurak-table"
"""The table's state folder in its record folder (unless the host is told another)."""


RETRY_S = 2.0
"""After a failed write, how long until the store tries to write everything again."""


class TableStore:
    """The files of one table: its state directory and the current game's journal.

    Disk trouble is a message, not a crash: a write that fails (ENOSPC, EROFS,
    EIO) marks the store broken (`problem`, told through `on_problem`), incremental writing
    stops — the table goes on from memory, which holds everything — and every `RETRY_S` the
    host's ``rebuild`` writes all its files again from memory, until that works."""

    def __init__(self, state_dir: Path, record_dir: Path) -> None:
        self.state_dir = state_dir
        self.record_dir = record_dir
        self.journal_path: Path | None = None
        self.replaying = False
        """True while a resume rebuilds the table from these files: nothing is written."""
        self._journal: Any = None
        self._events_file: Any = None
        self._sync: asyncio.Task[None] | None = None
        self._sync_again = False
        self.snapshots: Callable[[], list[Path]] = list
        """The saved seats of the table's bots: synced before the logs each time."""
        self.problem: str | None = None
        """Why the table cannot save now (None: it can)."""
        self.on_problem: Callable[[str | None], None] = lambda problem: None
        self.rebuild: Callable[[], None] = lambda: None
        """Write every file again from memory (the host's); raises OSError while it cannot."""
        self._retry: asyncio.TimerHandle | None = None
        self._lock: int | None = None
        self.bytes_written = 0
        """Bytes the store wrote (the event log, the journals, the table's state)."""

    # --- one host per table -------------------------------------------------------------------

    def lock(self) -> None:
        """Hold the table's lock (`LOCK_FILE`) or raise `TableInUse`: another process hosts
        it.  Nothing of the table is written before this."""
        if self._lock is not None:
            return
        path = self.state_dir / LOCK_FILE
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                pid = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            except OSError:
                pid = ""
            os.close(fd)
            raise TableInUse(
                f"this table is being hosted right now (process {pid or '?'}): nothing was "
                "touched; stop that host first (Ctrl-C pauses it), then resume"
            ) from None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock = fd

    def unlock(self) -> None:
        if self._lock is not None:
            with contextlib.suppress(OSError):
                os.close(self._lock)
            self._lock = None

    # --- disk trouble ------------------------------------------------------------------------

    def failed(self, e: OSError) -> None:
        """A write failed: stop writing (memory holds it all), say so once, retry later."""
        for f in (self._journal, self._events_file):
            if f is not None:
                with contextlib.suppress(OSError, ValueError):
                    f.close()
        self._journal = self._events_file = None
        if self.problem is None:
            self.problem = e.strerror or str(e)
            self.on_problem(self.problem)
        self._retry_later()

    def _retry_later(self) -> None:
        if self._retry is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._retry = loop.call_later(RETRY_S, self.try_again)

    def try_again(self) -> None:
        """Write everything again (`rebuild`); the trouble is over if that works."""
        if self._retry is not None:
            self._retry.cancel()
        self._retry = None
        if self.problem is None:
            return
        try:
            self.rebuild()
        except OSError as e:
            self.failed(e)
            return
        self.problem = None
        self.on_problem(None)

    @property
    def broken(self) -> bool:
        return self.problem is not None

    # --- the event log -----------------------------------------------------------------------

    def open_events(self, resumed: bool, events: list[Message]) -> None:
        """Open the event log: appended to after a resume, else a new one with ``events``
        (and the bots' saved seats of an old table forgotten)."""
        if self._events_file is not None:
            return
        try:
            if not resumed:
                for old in [*self.state_dir.glob("bot-*.bin"), *self.state_dir.glob("*.tmp")]:
                    old.unlink()
            mode = "ab" if resumed else "wb"
            self._events_file = open(self.state_dir / EVENTS_FILE, mode)  # noqa: SIM115
            if not resumed:
                for e in events:
                    self._events_file.write(encode_frame(message_to_wire(e)))
                self._events_file.flush()
        except OSError as e:
            self.failed(e)

    def restart_events(self, events: list[Message]) -> None:
        """The event log again with only ``events`` (the last game's end and the lobby
        since: all a resume needs), at the start of each game of a series and after disk
        trouble: the state folder does not grow from game to game.  Atomic: a crash leaves
        the old log or the new.  Raises OSError (the caller decides)."""
        if self.replaying:
            return
        path = self.state_dir / EVENTS_FILE
        tmp = path.with_name(path.name + ".tmp")
        data = b"".join(encoded_frame(e) for e in events)
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        self.bytes_written += len(data)
        old, self._events_file = self._events_file, None
        if old is not None:
            with contextlib.suppress(OSError, ValueError):
                old.close()
        os.replace(tmp, path)
        self._events_file = open(path, "ab")  # noqa: SIM115

    def reopen_events(self, events: list[Message]) -> None:
        """A resumed table's event log, written whole again from memory (`restart_events`)."""
        if self._events_file is not None:
            return
        try:
            self.restart_events(events)
        except OSError as e:
            self.failed(e)

    def new_game(self, events: list[Message]) -> None:
        """A game starts: the event log restarts (`restart_events`) unless broken."""
        if self.broken or self._events_file is None:
            return
        try:
            self.restart_events(events)
        except OSError as e:
            self.failed(e)

    def append_event(self, event: Message) -> None:
        if self._events_file is not None and not self.replaying:
            # Before anyone hears of it: a host that crashes after this line resumes with it.
            frame = encoded_frame(event)
            try:
                self._events_file.write(frame)
                self._events_file.flush()
            except OSError as e:
                self.failed(e)
                return
            self.bytes_written += len(frame)
            self.sync_soon()

    # --- the journal -------------------------------------------------------------------------

    def open_journal(self, path: Path, header: str) -> None:
        self.journal_path = path
        if self._journal is not None:
            with contextlib.suppress(OSError, ValueError):
                fsync_all([self._journal.fileno()])
                self._journal.close()
            self._journal = None
        if self.broken:
            return  # written whole by the rebuild, once the disk takes it
        try:
            self._journal = open(path, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as e:
            self.failed(e)
            return
        self.journal_line(header)

    def journal_line(self, line: str) -> None:
        """Append ``line`` (one journal line or several, written and flushed at once)."""
        if line and self._journal is not None and not self.replaying:
            try:
                self._journal.write(line)
                self._journal.flush()
            except OSError as e:
                self.failed(e)
                return
            self.bytes_written += len(line)
            self.sync_soon()

    def rewrite_journal(self, lines: list[str], path: Path | None = None) -> None:
        """A journal again, whole (the rebuilt game after a crash, or after disk trouble);
        appending goes on from there when it is the current game's.  Raises OSError."""
        path = path or self.journal_path
        assert path is not None
        data = "".join(lines)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        self.bytes_written += len(data)
        if path == self.journal_path:
            if self._journal is not None:
                with contextlib.suppress(OSError, ValueError):
                    self._journal.close()
            self._journal = open(path, "a", encoding="utf-8")  # noqa: SIM115

    async def write_record(self) -> tuple[Path | None, list[str] | None]:
        """The finished game's record beside its journal (in a thread: the audit takes a
        while), and the deck in deal order when the audit decoded it."""
        if self.journal_path is None:
            return None, None
        return await asyncio.to_thread(write_record_file, self.journal_path)

    # --- the table's options -----------------------------------------------------------------

    def write_state(self, state: dict[str, Any]) -> None:
        """What `resume` needs besides the event log: the table's options and the bots' keys.
        On the disk before it returns (fsynced, renamed, its folder fsynced): written only at
        a game's start, a pause and a game's end, and a power cut that took it would take the
        bots' keys (no resume) or a pause's ``paused_at``.  Raises OSError (the caller
        decides)."""
        path = self.state_dir / STATE_FILE
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(state, f)
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(path)
        fsync_paths([path])

    # --- the disk ----------------------------------------------------------------------------

    def sync_soon(self) -> None:
        """Get the journal and the event log onto the disk, off the event loop.  ``flush``
        per line already hands every line to the system before anyone hears of it, which
        is all a crash of the host's process needs; ``fsync`` is for a laptop that loses
        power or a system that crashes.  Coalesced: one sync at a time, and after it a pause
        of `SYNC_PAUSE_S` that gathers the lines of the next one; a busy table syncs at most
        about 1/`SYNC_PAUSE_S` times a second instead of once an action."""
        if self._sync is not None:
            self._sync_again = True
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not serving (a resume rebuilding the table): nothing new to sync
        self._sync = loop.create_task(self._sync_files(), name="fsync")

    async def _sync_files(self) -> None:
        try:
            while True:
                self._sync_again = False
                fds = [f.fileno() for f in (self._journal, self._events_file) if f is not None]
                # The bots' seats first: on disk, a bot's seat is never older than the events
                # of the steps it signed (a newer one resends what the log lacks).
                await asyncio.to_thread(fsync_paths, self.snapshots())
                await asyncio.to_thread(fsync_all, fds)
                await asyncio.sleep(SYNC_PAUSE_S)
                if not self._sync_again:
                    return
        finally:
            self._sync = None

    async def close(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if self._sync is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._sync, 2)
        for f in (self._journal, self._events_file):
            if f is not None:
                with contextlib.suppress(OSError, ValueError):
                    fsync_all([f.fileno()])
                    f.close()
        self._journal = self._events_file = None
        self.unlock()


class TableInUse(OSError):
    """Another process hosts this table (`TableStore.lock`)."""


def read_frames(path: Path) -> list[Message]:
    """The events of an event log as far as its frames read (`read_event_log`)."""
    return read_event_log(path)[0]


def read_event_log(path: Path) -> tuple[list[Message], bool]:
    """The events of an event log as far as its frames read, and whether all of it read.

    A torn last frame (a crash inside a write) or a damaged one (a flipped byte, junk, a cut)
    ends the reading: nothing after it is trusted, since a frame's length may be the damaged
    part.  What the log lacks then, a resume takes from the journal (`journal_steps`) and
    from the players' own copies of the signed steps (docs/sessions.md)."""
    data = path.read_bytes() if path.exists() else b""
    out: list[Message] = []
    decoder = FrameDecoder(MAX_FRAME)
    decoder.receive_data(data)
    whole = True
    while True:
        try:
            frame = decoder.next_frame()
            if frame is None:
                whole = decoder.buffered == 0
                break
            out.append(message_from_wire(frame))
        except (RemoteProtocolError, ValueError, TypeError, KeyError):
            whole = False
            break
    return out, whole


def journal_objects(path: Path) -> list[dict[str, Any]]:
    """Every line of a journal that reads as a JSON object, in order; a line damaged (a cut,
    junk, bytes that are not text) is skipped, not fatal: a resume rebuilds the journal
    from the event log, and takes from it only the signed steps that check out."""
    try:
        data = path.read_bytes()
    except OSError:
        return []
    out: list[dict[str, Any]] = []
    for raw in data.split(b"\n"):
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def journal_head(path: Path) -> dict[str, Any] | None:
    """The journal's header (its first line) or None when that line is damaged or gone."""
    objs = journal_objects(path)
    if objs and objs[0].get("journal") == JOURNAL_FORMAT:
        return objs[0]
    return None


def journal_steps(path: Path) -> tuple[list[Any], list[Any]]:
    """The journal's ``privacy_log`` items and its ``privacy_signed`` steps (each signed step
    the host accepted, in its order: seat, counter, step, signature, positions in the log),
    from the lines that read; a resume feeds the steps its event log lacks through the same
    checks as live, as far as they check out."""
    log: list[Any] = []
    steps: list[Any] = []
    for obj in journal_objects(path):
        appended = obj.get("append")
        if not isinstance(appended, dict) or len(appended) != 1:
            continue
        ((key, item),) = appended.items()
        if key == "privacy_log":
            log.append(item)
        elif key == "privacy_signed":
            steps.append(item)
    return log, steps


def write_record_file(journal_path: Path) -> tuple[Path, list[str] | None]:
    """The finished game's record beside its journal, audited (records.md); its path, and
    the deck in deal order when the audit could decode it.  Pure work on files: a thread."""
    record = read_journal(journal_path.read_text(encoding="utf-8"))
    record.pop("privacy_log", None)
    record.pop("privacy_signed", None)
    _merge_refused(record, record.pop("privacy_refused", []))
    report = audit(record)
    deck = [str(c) for c in report.deck] if report.deck is not None else None
    if deck is not None:
        record["deck"] = deck
    record["audit"] = "clean" if report.clean else [str(f) for f in report.faults]
    ordered: dict[str, Any] = {
        k: record[k]
        for k in ("format", "rules", "seats", "names", "dealer", "previous", "deck", "actions")
        if k in record
    }
    ordered.update((k, v) for k, v in record.items() if k not in ordered)
    path = journal_path.with_suffix(".json")
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(ordered, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path, deck


def _merge_refused(record: dict[str, Any], refused: Any) -> None:
    """The refused steps the journal lists (every one since the game began, across restarts)
    into the record's identity section (records.md ``privacy.identity.refused``)."""
    privacy = record.get("privacy")
    ident = privacy.get("identity") if isinstance(privacy, dict) else None
    if not isinstance(ident, dict) or not isinstance(refused, list):
        return
    have = ident.setdefault("refused", [])
    for r in refused:
        if not isinstance(r, list) or len(r) < 2:
            continue
        same = [i for i, h in enumerate(have) if isinstance(h, list) and h[:2] == r[:2]]
        if not same:
            have.append(r)
        elif len(r) > len(have[same[0]]):  # the journal's entry carries the refused step
            have[same[0]] = r


def fsync_all(fds: list[int]) -> None:
    for fd in fds:
        # A file closed meanwhile (the last game's journal) was synced before it closed.
        with contextlib.suppress(OSError):
            os.fsync(fd)


def table_state(journal: Path) -> tuple[Path, dict[str, Any]]:
    """The state directory of ``journal``'s table and what it saved there (``table.json``);
    ``journal`` may be the finished record beside it.  OSError or ValueError when unreadable.

    A journal whose first line is damaged or gone (cut inside it, to 0 or 1 bytes) is still
    found: the table's state folder beside it (`STATE_DIR`) names it as its current game's
    journal, and the resume rebuilds the journal from the event log."""
    if journal.suffix == ".json" and journal.with_suffix(".journal").exists():
        journal = journal.with_suffix(".journal")  # the record's journal beside it
    if not journal.exists():
        raise FileNotFoundError(errno.ENOENT, "no such journal", str(journal))
    head = journal_head(journal)
    table = head.get("table") if head is not None else None
    if isinstance(table, dict) and isinstance(table.get("state"), str):
        state_dir = Path(table["state"])
    elif head is None:
        state_dir = journal.parent / STATE_DIR
    else:
        raise ValueError("this journal does not say where its table keeps its state")
    try:
        state = json.loads((state_dir / STATE_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        if head is None:
            raise ValueError(
                "the journal's first line is damaged and no table's state is beside it"
            ) from None
        raise
    if not isinstance(state, dict):
        raise ValueError("the table's saved state is not an object")
    if head is None and not same_file(state.get("journal"), journal):
        raise ValueError(
            "the journal's first line is damaged, and the table beside it is playing "
            f"another game ({state.get('journal')})"
        )
    return state_dir, state


def same_file(a: Any, b: Path) -> bool:
    """Whether ``a`` (a path as saved, or None) names the file ``b``."""
    if not isinstance(a, str):
        return False
    try:
        return Path(a).resolve() == b.resolve()
    except OSError:
        return False


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` at once (a temporary file renamed over it, 0600): a reader
    or a crash sees the old whole file or the new one.  Its fsync is the caller's, coalesced
    (`fsync_paths`): one per save would cost ~10 ms each on the table's loop."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    os.replace(tmp, path)


def fsync_paths(paths: Iterable[Path]) -> None:
    """Get the files and their folders onto the disk (after `write_atomic`); a file gone
    meanwhile is skipped."""
    dirs: set[Path] = set()
    for p in paths:
        with contextlib.suppress(OSError):
            fd = os.open(p, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            dirs.add(p.parent)
    for d in dirs:
        with contextlib.suppress(OSError):
            fd = os.open(d, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def check_room(folder: Path, need: int) -> None:
    """Raise OSError (saying what, for a person) unless ``folder`` takes a file and has
    ``need`` bytes free: a table checks before a game that it can save it."""
    probe = folder / f".write-check-{os.getpid()}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.close(fd)
        probe.unlink()
    except OSError as e:
        raise OSError(e.errno, f"cannot write in {folder}: {e.strerror}") from None
    free = shutil.disk_usage(folder).free
    if free < need:
        raise OSError(
            errno.ENOSPC,
            f"{folder} has {free // 1024} KB free; a game here needs about {need // 1024} KB",
        )
