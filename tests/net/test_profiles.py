"""One laptop, several seats: one identity sits at one seat.

Before this, two processes of one device identity (two `join`s sharing LOCALDURAK_HOME, e.g.
``join --bot`` twice to add two bots) took one seat from each other without end (478
"seated" lines in 50 s, both screens waiting for one more player for ever).  Now a second
process of the identity is refused at once with what to do (``--profile NAME``), ``join
--bot`` started again takes a profile of its own (every start adds a bot), and a copy of the
identity somewhere else (no lock can see it) takes the seat while the first one stops and
says why: never a flap.  Real processes on loopback, advertising off."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from localdurak import datadir
from localdurak.net import identity as ident
from tests.net.test_e2e import host
from tests.support.procs import REPO, Proc, env_for, join_bot, localdurak


@pytest.fixture(autouse=True)
def _default_profile() -> Iterator[None]:
    yield
    datadir.use_profile(None)


def bot(procs: list[Proc], home: Path, listening: dict[str, Any], name: str, *extra: str) -> Proc:
    """A bot process joining by address alone (it pins the table, or finds its saved seat)."""
    return join_bot(procs, home, listening, name, *extra, fingerprint=False, trace=False)


def seated(h: Proc) -> list[int]:
    """The seats of every "seated" line the host printed so far."""
    while not h.lines.empty():
        h.seen.append(h.lines.get())
    return [line["seat"] for line in h.seen if line.get("event") == "seated"]


def test_join_bot_started_three_times_on_one_home_adds_three_bots(
    tmp_path: Path, procs: list[Proc]
) -> None:
    h = host(tmp_path, procs, "--seats", "3", "--deck", "24")
    listening = h.event("listening")
    home = tmp_path / "laptop"
    bots = []
    for i in range(3):
        bots.append(bot(procs, home, listening, f"b{i}"))
        bots[-1].event("joined")  # one after the other: the first keeps the default identity
    seats = {h.event("seated")["seat"] for _ in range(3)}
    assert seats == {0, 1, 2}
    h.event("game_started", 30)
    over = h.event("game_over", 120)
    assert h.wait(30) == 0
    for b in bots:
        assert b.wait(30) == 0
        assert b.event("game_over", 5)["result"] == over["result"]
    # Exactly one "seated" a seat: nobody took anybody's seat.
    assert sorted(seated(h)) == [0, 1, 2]
    said = ["".join(b.stderr) for b in bots]
    assert "profile" not in said[0]
    assert "--profile bot-2" in said[1] and "--profile bot-3" in said[2]
    keys = {
        (home / d / "identity.cert.pem").read_bytes()
        for d in ("", "profiles/bot-2", "profiles/bot-3")
    }
    assert len(keys) == 3
    assert not any("Traceback" in s for s in said)


def test_a_second_process_of_one_profile_is_refused_at_once(
    tmp_path: Path, procs: list[Proc]
) -> None:
    h = host(tmp_path, procs, "--seats", "2")
    listening = h.event("listening")
    home = tmp_path / "laptop"
    first = bot(procs, home, listening, "first", "--profile", "kitchen")
    first.event("joined")
    h.event("seated")
    start = time.monotonic()
    second = bot(procs, home, listening, "second", "--profile", "kitchen")
    assert second.wait(20) == 1
    took = time.monotonic() - start
    said = "".join(second.stderr)
    assert f"process {first.p.pid}" in said, said
    assert "--profile NAME" in said and str(home / "profiles" / "kitchen") in said
    assert "Traceback" not in said
    assert took < 10, took  # at once: no connection was even made
    assert first.p.poll() is None  # the first plays on, undisturbed
    assert seated(h) == [0]


def test_a_copied_identity_takes_the_seat_and_the_first_stops_saying_why(
    tmp_path: Path, procs: list[Proc]
) -> None:
    """Two homes holding the same identity (a copied folder): no lock sees both, so the
    host's "you connected again" decides: the newer connection keeps the seat and the older
    process stops with the reason, instead of coming back for it."""
    h = host(tmp_path, procs, "--seats", "2")
    listening = h.event("listening")
    a_home, b_home = tmp_path / "a", tmp_path / "b"
    ident.load_or_create(a_home)
    b_home.mkdir()
    for f in (ident.KEY_FILE, ident.CERT_FILE):
        shutil.copy(a_home / f, b_home / f)
    a = bot(procs, a_home, listening, "anna")
    a.event("joined")
    h.event("seated")
    b = bot(procs, b_home, listening, "anna")
    b.event("joined")
    closed = a.event("closed", 20)
    assert "--profile NAME" in closed["reason"], closed
    assert a.wait(10) == 0
    assert "Traceback" not in "".join(a.stderr)
    assert b.p.poll() is None  # b keeps the seat
    # The seat changed hands once, and the older process is gone: it cannot come back for it.
    assert seated(h) == [0, 0]


def test_claim_refuses_a_folder_another_process_holds(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from localdurak.net.identity import claim; "
            "claim(Path(sys.argv[1])); print('held', flush=True); sys.stdin.read()",
            str(tmp_path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(ident.IdentityInUse) as e:
            ident.claim(tmp_path)
        assert e.value.pid == holder.pid
        assert "--profile NAME" in str(e.value)
    finally:
        holder.kill()
        holder.wait(10)
    # Gone (even killed): the folder is free again, and claiming twice in one process is fine.
    ident.claim(tmp_path)
    ident.claim(tmp_path)


def test_a_profile_is_a_folder_under_the_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path))
    assert datadir.data_dir() == tmp_path
    datadir.use_profile("kitchen-2")
    assert datadir.data_dir() == tmp_path / "profiles" / "kitchen-2"
    assert datadir.home_dir() == tmp_path
    for bad in ("", ".", "..", "../x", "a/b", ".hidden", "x" * 41, "a b", "\udcff"):
        assert not datadir.valid_profile(bad), bad
        with pytest.raises(ValueError):
            datadir.use_profile(bad)
    assert datadir.valid_profile("Кухня_1.b")


@pytest.mark.parametrize("bad", ["../x", ".x", "a/b", ""])
def test_a_bad_profile_name_is_a_usage_error(bad: str, tmp_path: Path) -> None:
    r = subprocess.run(
        localdurak("join", "--bot", "--address", "127.0.0.1:9", "--profile", bad),
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        timeout=30,
        cwd=REPO,
    )
    assert r.returncode == 2, r
    assert "profile" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "profiles").exists()


def _in_a_terminal(argv: list[str], env: dict[str, str], timeout: float = 30) -> tuple[int, str]:
    """Run ``argv`` on a pseudo-terminal of its own (the person's commands need one); its
    exit status and what it wrote.  A command that starts its screen instead of ending is
    killed at ``timeout`` (and the caller's assertion fails)."""
    import os
    import pty
    import select

    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=REPO)
    os.close(slave)
    out = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the other side closed: the process ended
                    chunk = b""
                out += chunk
                if not chunk and p.poll() is not None:
                    break
            elif p.poll() is not None:
                break
        if p.poll() is None:
            p.kill()
        return p.wait(10), out.decode("utf-8", "replace")
    finally:
        os.close(master)


def test_a_person_s_join_and_host_are_refused_while_the_identity_plays(
    tmp_path: Path, procs: list[Proc]
) -> None:
    h = host(tmp_path, procs, "--seats", "2")
    listening = h.event("listening")
    home = tmp_path / "laptop"
    first = bot(procs, home, listening, "first")
    first.event("joined")
    env = env_for(home, LOCALDURAK_NO_MDNS="1", LANG="C.UTF-8")
    address = f"127.0.0.1:{listening['port']}"
    for argv in (
        localdurak("join", "--address", address, "--name", "Anna"),
        localdurak("host", "--port", "0", "--no-advertise", "--player", "Anna"),
    ):
        code, out = _in_a_terminal(argv, env)
        assert code == 1, out
        assert f"process {first.p.pid}" in out and "--profile NAME" in out, out
        assert "Traceback" not in out
    assert first.p.poll() is None
    assert seated(h) == [0]
