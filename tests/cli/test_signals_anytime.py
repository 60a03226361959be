"""A signal at any moment ends a command cleanly: SIGINT or SIGTERM at a spread of moments
into ``join --bot`` (importing, connecting, the handshake, seated) gives exit 0, 1 or 2 and no
traceback.  Before: SIGTERM before the command's own handler killed it (exit 143), and a
Ctrl-C caught while a module was being imported still ended the process by SIGINT (CPython
remembered it as unhandled: exit -2).  Each run waits until the interpreter is up (its SIGINT
handler installed, read from /proc), then signals after a generated delay from 0.2 s (the
program's first line runs within some 50 ms of that) to 1.2 s."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.net.test_e2e import host
from tests.support.procs import REPO, Proc, env_for, localdurak

RUNS = 8
SIGINT_BIT = 1 << (signal.SIGINT - 1)


def _interpreter_up(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True  # gone already: nothing more to wait for
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & SIGINT_BIT)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_signal_at_any_moment_of_join_ends_it_cleanly(tmp_path: Path, procs: list[Proc]) -> None:
    h = host(tmp_path, procs, "--seats", "6")
    port = h.event("listening")["port"]
    rng = random.Random(15)
    for i in range(RUNS):
        sig = (signal.SIGINT, signal.SIGTERM)[i % 2]
        p = subprocess.Popen(
            localdurak("join", "--bot", "--address", f"127.0.0.1:{port}", "--profile", f"p{i}"),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env_for(tmp_path / "laptop"),
            cwd=REPO,
        )
        deadline = time.monotonic() + 30
        while not _interpreter_up(p.pid):
            assert time.monotonic() < deadline, "the program never started"
            time.sleep(0.005)
        time.sleep(rng.uniform(0.2, 1.2))  # the moment is what is generated, not a wait
        p.send_signal(sig)
        out, _ = p.communicate(timeout=30)
        text = out.decode("utf-8", "replace")
        assert p.returncode in (0, 1, 2), (sig, p.returncode, text)
        assert "Traceback" not in text, text
