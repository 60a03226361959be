"""Time from starting `localdurak play` in a real terminal (tmux) to its first screen.

    python benchmarks/client_start.py [--runs 10]

Starts the client in a detached 80x24 tmux session, polls capture-pane until the ▶ status
line shows, and prints the median and the spread.  The target: "the first screen
appears in under a second"."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def once(tmux: str, home: str, seed: int) -> float:
    # A private tmux server per run (-L): nobody else's sessions, a fresh server each time.
    socket = f"ld-start-{os.getpid()}-{seed}"
    name = "client"
    cmd = f"LOCALDURAK_HOME={home} {sys.executable} -m localdurak play --seed {seed}; sleep 30"
    start = time.monotonic()
    subprocess.run(
        [tmux, "-L", socket, "new-session", "-d", "-s", name, "-x", "80", "-y", "24", cmd],
        check=True,
    )
    try:
        while True:
            screen = subprocess.run(
                [tmux, "-L", socket, "capture-pane", "-p", "-t", name],
                capture_output=True,
                text=True,
            ).stdout
            if "▶" in screen:
                return time.monotonic() - start
            if time.monotonic() - start > 20:
                raise RuntimeError("no first screen within 20 s")
            time.sleep(0.005)
    finally:
        subprocess.run([tmux, "-L", socket, "kill-server"], capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    tmux = shutil.which("tmux")
    if tmux is None:
        print("tmux is needed", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as home:
        times = [once(tmux, home, seed) for seed in range(args.runs)]
    print(
        f"localdurak play, start to first screen over {args.runs} runs: "
        f"median {statistics.median(times):.3f} s, min {min(times):.3f} s, "
        f"max {max(times):.3f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
