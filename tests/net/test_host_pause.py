"""Stopping is pausing: a host stopped by SIGTERM or SIGINT mid-game writes what a
resume needs, tells every client "the host paused; it will resume", prints the exact
``--resume`` command and exits 0; the clients keep their seats, reconnect when the host is
back, and the game finishes with nobody forfeited.  On main before this, the host exited in
0.3 s with nothing said, the clients were told "the host stopped", exited and deleted their
saved seats, and ``--resume`` exited at once with the game unfinished and no record."""

from __future__ import annotations

import shlex
import signal
import time
from pathlib import Path

import pytest

from tests.net.test_e2e import host, join, mid_game
from tests.soak.common import check_record
from tests.support.procs import Proc, env_for, localdurak


def stderr_of(p: Proc, expected: str, timeout: float = 10) -> str:
    """The process's standard error once ``expected`` is in it (its reader thread may still
    be reading the last words after the process exited), or all of it after ``timeout``."""
    deadline = time.monotonic() + timeout
    while expected not in "".join(p.stderr) and time.monotonic() < deadline:
        time.sleep(0.05)
    return "".join(p.stderr)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_host_stopped_mid_game_pauses_and_resumes_with_every_seat_kept(
    sig: signal.Signals, tmp_path: Path, procs: list[Proc]
) -> None:
    h = host(tmp_path, procs, "--seats", "3", "--bots", "1", "--bot-delay", "0.02")
    listening = h.event("listening")
    alice = join(tmp_path, procs, listening, "alice", "--delay", "0.02")
    bob = join(tmp_path, procs, listening, "bob", "--delay", "0.02")
    started = h.event("game_started")
    mid_game(alice)
    h.p.send_signal(sig)
    paused = h.event("paused")
    assert paused["journal"] == started["journal"]
    assert h.wait(30) == 0
    command = f"localdurak host --resume {shlex.quote(started['journal'])}"
    assert paused["resume"] == command
    err = stderr_of(h, command)
    assert "Traceback" not in err
    assert command in err, err
    # The clients wait for the host (they keep their seats; nothing was said to close).
    time.sleep(1.0)  # a while with the host away: the clients must still be there after it
    for c in (alice, bob):
        assert c.p.poll() is None, "".join(c.stderr)
        assert not any(line.get("event") == "closed" for line in c.seen)
    h2 = Proc(localdurak("host", "--resume", started["journal"]), env_for(tmp_path / "host"), "h2")
    procs.append(h2)
    h2.event("resumed")
    assert h2.event("listening")["port"] == listening["port"]
    over = h2.event("game_over", 180)
    assert "forfeit" not in over, over
    assert h2.wait(30) == 0
    for c in (alice, bob):
        assert c.wait(30) == 0
        assert "Traceback" not in "".join(c.stderr)
    check_record(over["record"])


def test_a_host_stopped_in_its_lobby_before_any_game_closes_and_says_so(
    tmp_path: Path, procs: list[Proc]
) -> None:
    h = host(tmp_path, procs, "--seats", "3")
    h.event("listening")
    h.p.send_signal(signal.SIGTERM)
    assert h.wait(30) == 0
    assert "Traceback" not in "".join(h.stderr)
    assert "--resume" not in "".join(h.stderr)
