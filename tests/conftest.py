"""The suite on two workers (`pytest -n 2`, the README's test command), with the tests whose
verdict depends on time run alone.

Most tests only wait for a condition, and a busy neighbour makes them slower, not wrong. A few
measure or race the clock on purpose — a dead link noticed within 15 s, a seat held for a
few seconds and then forfeited, latency within twice the quiet figure, links cut and processes
stopped in the fault soak — and beside another worker's processes on a 2-core machine those
seats were marked away (the fault soak failed so in CI's fresh clone, and passed alone).  A
test marked ``alone`` waits until the other worker's current test ends, and no other test
starts until it is done: a shared lock for every test, an exclusive one for the ``alone``
tests, and a turnstile so that a waiting ``alone`` test is not starved by a stream of shared
holders.  Run serially (no ``-n``) nothing changes."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.procs import Proc

ROOT = Path(__file__).resolve().parent.parent

# The modules whose tests run alone, and why (their timers or their figures).
ALONE = {
    "tests/soak/test_soak_faults.py": "links cut for seconds, processes stopped: holds expire",
    "tests/soak/test_soak_load.py": "latency under load within twice the quiet figure",
    "tests/soak/test_soak_endurance.py": "memory and descriptors of games in a row",
    "tests/net/test_dead_link.py": "a cut link noticed within 15 s on both sides",
    "tests/net/test_move_clock.py": "a silent seat forfeits on the move clock",
    "tests/net/test_host_memory.py": "the host's memory after 400 connections",
    "tests/net/test_host_pause.py": "seats held while the host is stopped",
    "tests/net/test_netns.py": "mDNS discovery within its announcement times",
    "tests/net/test_discovery.py": "mDNS announcements 225 ms apart",
    "tests/game/test_bots_notice.py": "a bot notices a cheat within its window",
}


def _lock_dir(uid: str) -> Path:
    return Path(tempfile.gettempdir()) / f"localdurak-pytest-{uid}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "alone: runs with no other test beside it on another worker (conftest.py)"
    )
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        # The controller names the run, so that its workers share one lock and other runs
        # on this machine (another checkout's) do not.
        if getattr(config.option, "testrunuid", None) is None:
            config.option.testrunuid = uuid.uuid4().hex
        _lock_dir(config.option.testrunuid).mkdir(exist_ok=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    uid = getattr(config.option, "testrunuid", None)
    if uid is not None and not hasattr(config, "workerinput"):
        shutil.rmtree(_lock_dir(uid), ignore_errors=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        try:
            rel = item.path.relative_to(ROOT).as_posix()
        except ValueError:
            continue
        if rel in ALONE:
            item.add_marker(pytest.mark.alone)


@contextmanager
def _turn(uid: str, alone: bool) -> Iterator[None]:
    where = _lock_dir(uid)
    where.mkdir(exist_ok=True)
    with open(where / "gate", "a") as gate, open(where / "run", "a") as run:
        if alone:
            fcntl.flock(gate, fcntl.LOCK_EX)  # no new test starts from now
            fcntl.flock(run, fcntl.LOCK_EX)  # the running one has ended
        else:
            fcntl.flock(gate, fcntl.LOCK_SH)  # no alone test is waiting or running
            fcntl.flock(run, fcntl.LOCK_SH)
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(run, fcntl.LOCK_UN)
            fcntl.flock(gate, fcntl.LOCK_UN)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    uid = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if uid is None:
        yield
        return
    with _turn(uid, item.get_closest_marker("alone") is not None):
        yield


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    """Processes a test starts (`tests.support.procs.Proc`): killed when it ends."""
    started: list[Proc] = []
    yield started
    for p in started:
        p.kill()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs of its own, to fill and free (root: CI runs as root, as for the
    namespace tests).  Mounted before the test starts its processes, so a namespace's copy
    of the mounts has it too."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], check=True)
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
