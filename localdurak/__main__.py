"""`python -m localdurak` is the same program as the `localdurak` command (`run`).

A Ctrl-C at any moment ends it cleanly, with no traceback (cli.md "Exit status"): while its
modules are still being imported (before `cli.main.main` can catch it), and after it has
finished (an interrupt during the interpreter's shutdown is ignored: the work is done)."""

import signal
import sys


def run() -> int:
    try:
        from localdurak.cli.main import main

        code = main()
    except KeyboardInterrupt:
        print("localdurak: interrupted", file=sys.stderr)
        code = 1
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return code


if __name__ == "__main__":
    raise SystemExit(run())
