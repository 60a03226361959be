"""`python -m localdurak` is the same program as the `localdurak` command (`run`).

A Ctrl-C or SIGTERM at any moment ends it cleanly, with no traceback (cli.md "Exit status"):
while its modules are still being imported (before `cli.main.main` can catch it), and after
it has finished (a signal during the interpreter's shutdown is ignored: the work is done).
reading: "any moment" starts with this module's first line; a signal in the interpreter's
own start before it (some 50 ms) is Python's to handle.

An interrupt caught while a module was being imported still made CPython 3.11 end the
process by SIGINT at exit (exit status -2, after "interrupted" was said: it remembers the
interrupt as unhandled); an interrupted run therefore ends with `os._exit` once its output
is flushed: nothing is left to do."""

import contextlib
import os
import signal
import sys
from types import FrameType


def _stopped(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run() -> int:
    # SIGTERM before a command sets its own handler (the host's and join's pause) ends the
    # run as Ctrl-C does, rather than kill it mid-line.
    signal.signal(signal.SIGTERM, _stopped)
    interrupted = False
    try:
        from localdurak.cli import main as cli

        code = cli.main()
        interrupted = cli.interrupted
    except KeyboardInterrupt:
        print("localdurak: interrupted", file=sys.stderr)
        code, interrupted = 1, True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if interrupted:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
    return code


if __name__ == "__main__":
    raise SystemExit(run())
