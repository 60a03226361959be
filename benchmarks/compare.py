"""Before and after, side by side, from one run: the plumbing the benchmarks' ``--compare REF``
options share.

`checkout` puts a git revision into a temporary detached worktree (removed afterwards).  A
`Worker` is a long-lived subprocess that runs one benchmark script with ``PYTHONPATH`` set to
one code tree and answers measurement requests, one JSON line each way; the benchmark asks
the "before" and the "after" worker in turn, round after round and in alternating order, so
that a busy moment of the shared machine hits both alike.  Only one worker runs at a time.

The workload is the same for both: the requests name the same scenario, the same seeds and
the same games, and the code that plays them is the calling script's own, only the package
under test (``localdurak``) comes from the other tree.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def checkout(ref: str, repo: Path = ROOT) -> Iterator[Path]:
    """``ref`` checked out into a temporary detached git worktree of ``repo`` (a directory
    that holds a ``localdurak`` package is used as it is)."""
    if (Path(ref) / "localdurak" / "__init__.py").is_file():
        yield Path(ref)
        return
    tmp = Path(tempfile.mkdtemp(prefix="localdurak-compare-"))
    tree = tmp / "tree"
    git = ["git", "-C", str(repo)]
    done = subprocess.run(
        [*git, "worktree", "add", "--detach", "--quiet", str(tree), ref],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        shutil.rmtree(tmp, ignore_errors=True)
        raise SystemExit(f"cannot check out {ref!r}: {done.stderr.strip()}")
    try:
        yield tree
    finally:
        subprocess.run([*git, "worktree", "remove", "--force", str(tree)], capture_output=True)
        subprocess.run([*git, "worktree", "prune"], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def describe(ref: str, repo: Path = ROOT) -> str:
    """``ref`` as a short commit id and subject, for the report."""
    if Path(ref).is_dir():
        return f"the code tree in {ref}"
    done = subprocess.run(
        ["git", "-C", str(repo), "log", "-1", "--format=%h %s", ref],
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()[:72] if done.returncode == 0 else ref


def current(repo: Path = ROOT) -> str:
    """The calling tree: its commit, and whether it has uncommitted changes."""
    head = describe("HEAD", repo)
    dirty = subprocess.run(
        ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return f"{head} (with uncommitted changes)" if dirty else head


class Worker:
    """``python script --worker`` with ``localdurak`` imported from ``tree``."""

    def __init__(self, script: Path, tree: Path, *args: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
        self.tree = tree
        self._proc = subprocess.Popen(
            [sys.executable, str(script), "--worker", *args],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        hello = self._read()
        where = Path(hello["localdurak"]).resolve()
        if tree.resolve() not in where.parents:
            self.close()
            raise SystemExit(f"the worker for {tree} imported localdurak from {where}")

    def _read(self) -> dict[str, Any]:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            raise SystemExit(f"the benchmark worker for {self.tree} stopped")
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            raise SystemExit(f"the benchmark worker for {self.tree}: {reply['error']}")
        return reply

    def ask(self, **request: Any) -> dict[str, Any]:
        assert self._proc.stdin is not None
        self._proc.stdin.write(json.dumps(request) + "\n")
        self._proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait(timeout=30)


def serve(handle: Callable[[dict[str, Any]], dict[str, Any]], out: TextIO = sys.stdout) -> int:
    """The worker's side: say where ``localdurak`` came from, then answer each request line
    with ``handle``'s reply (or ``{"error": ...}``), until stdin closes."""
    import localdurak

    print(json.dumps({"localdurak": localdurak.__file__}), file=out, flush=True)
    for line in sys.stdin:
        try:
            reply = handle(json.loads(line))
        except Exception as e:  # reported to the parent, which stops with the message
            reply = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), file=out, flush=True)
    return 0


def ratio(after: float, before: float) -> float:
    return round(after / before, 3) if before else float("nan")


__all__ = ["ROOT", "Worker", "checkout", "current", "describe", "ratio", "serve"]
