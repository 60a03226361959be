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

Run as a script, it compares a benchmark whose workload code moved between the two trees (the
privacy protocol's package, the CLI that net.py drives): each tree runs its *own* script with
the same arguments, the two alternating round after round, and every number of the JSON both
print is shown side by side (the median over the rounds), then the numbers only one of them
has (new measurements, such as the proof of shuffle, are not a regression):

    python benchmarks/compare.py REF [--rounds R] [--keys REGEX] -- SCRIPT ARG...
    python benchmarks/compare.py c54a234 --keys headline -- benchmarks/privacy.py --quick --json
    python benchmarks/compare.py c54a234 -- benchmarks/net.py --game --players 2 --runs 1 --json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import chain
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


def flatten(node: Any, prefix: str = "") -> dict[str, float]:
    """The numbers of a JSON value by path ("a.b.0.c"; a list item that names ``players`` and
    ``cards`` is named by them, "6x52")."""
    out: dict[str, float] = {}
    if isinstance(node, bool):
        return out
    if isinstance(node, int | float):
        out[prefix] = float(node)
    elif isinstance(node, dict):
        for k, v in node.items():
            out |= flatten(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            label = str(i)
            if isinstance(v, dict) and "players" in v and "cards" in v:
                label = f"{v['players']}x{v['cards']}"
            out |= flatten(v, f"{prefix}.{label}" if prefix else label)
    return out


def run_script(tree: Path, script: list[str]) -> dict[str, float]:
    """``script`` (a path inside ``tree`` and its arguments) run by ``tree``; its JSON's numbers."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run(
        [sys.executable, str(tree / script[0]), *script[1:]],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"{script[0]} in {tree} failed: {done.stderr.strip()[-2000:]}")
    line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    try:
        return flatten(json.loads(line))
    except json.JSONDecodeError:
        raise SystemExit(f"{script[0]} in {tree} printed no JSON (pass --json)") from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="before (REF) and after, each tree's own script")
    ap.add_argument("ref", help="a git revision (or a directory holding a code tree)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--after", metavar="REF", help="compare with REF instead of this tree")
    ap.add_argument("--keys", default="", help="show only the numbers whose path matches")
    ap.add_argument("script", nargs="+", help="-- SCRIPT ARG... (the script prints JSON)")
    args = ap.parse_args(argv)
    keys = re.compile(args.keys)
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    with checkout(args.ref) as tree, checkout(args.after or str(ROOT)) as after:
        trees = {"before": tree, "after": after}
        for r in range(args.rounds):
            order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
            for name in order:
                runs[name].append(run_script(trees[name], args.script))
    med = {
        name: {k: statistics.median(x[k] for x in rs if k in x) for k in dict.fromkeys(chain(*rs))}
        for name, rs in runs.items()
    }
    print(f"before: {describe(args.ref)}")
    print(f"after:  {describe(args.after) if args.after else current()}")
    print(f"{' '.join(args.script)}: {args.rounds} rounds, alternating; medians")
    both = [k for k in med["after"] if k in med["before"] and keys.search(k)]
    width = max((len(k) for k in med["after"] | med["before"]), default=10)
    print(f"  {'':<{width}} {'before':>12} {'after':>12}  after/before")
    for k in both:
        b, a = med["before"][k], med["after"][k]
        print(f"  {k:<{width}} {b:>12.6g} {a:>12.6g}  {ratio(a, b):>8.3f}")
    for name, other in (("after", "before"), ("before", "after")):
        only = [k for k in med[name] if k not in med[other] and keys.search(k)]
        if only:
            print(f"  only {name}:")
            for k in only:
                print(f"  {k:<{width}} {med[name][k]:>12.6g}")
    return 0


__all__ = ["ROOT", "Worker", "checkout", "current", "describe", "flatten", "ratio", "serve"]

if __name__ == "__main__":
    raise SystemExit(main())
