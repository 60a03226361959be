"""Processes that print JSON lines (the headless host and `join --bot`), read by a thread."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def localdurak(*args: str) -> list[str]:
    return [sys.executable, "-m", "localdurak", *args]


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["LOCALDURAK_HOME"] = str(home)
    env.update(extra)
    return env


class Proc:
    def __init__(self, argv: Sequence[str], env: dict[str, str], name: str = "") -> None:
        self.name = name
        self.p = subprocess.Popen(
            list(argv),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=env,
        )
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            if line.startswith("{"):
                self.lines.put(json.loads(line))

    def _read_err(self) -> None:
        assert self.p.stderr is not None
        for line in self.p.stderr:
            self.stderr.append(line)

    def expect(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"{self.name}: timed out; seen {self.seen[-5:]}; stderr "
                    f"{''.join(self.stderr)[-3000:]}"
                )
            try:
                line = self.lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                if self.p.poll() is not None and self.lines.empty():
                    time.sleep(0.2)
                    if self.lines.empty():
                        raise AssertionError(
                            f"{self.name} exited {self.p.returncode}; seen {self.seen[-5:]}; "
                            f"stderr {''.join(self.stderr)[-3000:]}"
                        ) from None
                continue
            self.seen.append(line)
            if pred(line):
                return line

    def event(self, name: str, timeout: float = 30) -> dict[str, Any]:
        return self.expect(lambda line: line.get("event") == name, timeout)

    def wait(self, timeout: float = 60) -> int:
        return self.p.wait(timeout)

    def kill(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait(10)


def join_bot(
    procs: list[Proc],
    home: Path,
    listening: dict[str, Any],
    name: str,
    *extra: str,
    fingerprint: bool = True,
    trace: bool = True,
) -> Proc:
    """``localdurak join --bot --level random`` at the table a headless host's ``listening``
    line names, as ``name`` with its home in ``home`` (started, and added to ``procs``).
    ``fingerprint``: the host's is given (without it, the join pins the table on first sight
    or finds its saved seat); ``trace``: "applied" lines per action, so a test can tell the
    game is on."""
    argv = ["join", "--address", f"127.0.0.1:{listening['port']}"]
    if fingerprint:
        argv += ["--fingerprint", listening["fingerprint"]]
    argv += ["--bot", "--level", "random", "--name", name, *extra]
    env = env_for(home, PYTHONUNBUFFERED="1", **({"LOCALDURAK_TRACE": "1"} if trace else {}))
    p = Proc(localdurak(*argv), env, name)
    procs.append(p)
    return p
