"""Suite 4, endurance: many bot games in a row at one host process.

The headless host (`localdurak host --headless --no-advertise`, loopback) with two bots of its
own and one `localdurak join --bot` process plays a series of ``games`` games.  After every
game the host process's resident memory and open descriptors are sampled from /proc; after
warm-up (the first tenth of the games) neither may grow beyond a fixed bound.  Every record is
then replayed (`localdurak replay`) and audited (`localdurak audit`) through the command line's
own entry point, and checked card by card (`check_record`)."""

from __future__ import annotations

import contextlib
import io
import time
from pathlib import Path
from typing import Any

from localdurak.cli.main import main as cli
from tests.soak.common import check_record, fds, rss_kib
from tests.support.procs import Proc, env_for, localdurak


def _cli(*argv: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return cli(list(argv))


def run_endurance(tmp: Path, games: int, *, deck: int = 36) -> dict[str, Any]:
    host = Proc(
        localdurak(
            "host",
            "--headless",
            "--name",
            "Endurance",
            "--port",
            "0",
            "--no-advertise",
            "--seats",
            "3",
            "--bots",
            "2",
            "--level",
            "random",
            "--games",
            str(games),
            "--deck",
            str(deck),
            "--record-dir",
            str(tmp / "records"),
        ),
        env_for(tmp / "host", LOCALDURAK_NO_MDNS="1"),
        "host",
    )
    client: Proc | None = None
    t0 = time.monotonic()
    rss: list[int] = []
    fd: list[int] = []
    overs: list[dict[str, Any]] = []
    try:
        listening = host.event("listening")
        client = Proc(
            localdurak(
                "join",
                "--address",
                f"127.0.0.1:{listening['port']}",
                "--fingerprint",
                listening["fingerprint"],
                "--bot",
                "--level",
                "random",
                "--name",
                "client",
            ),
            env_for(tmp / "client", LOCALDURAK_NO_MDNS="1"),
            "client",
        )
        for _ in range(games):
            overs.append(host.event("game_over", 120))
            rss.append(rss_kib(host.p.pid))
            fd.append(fds(host.p.pid))
        assert host.wait(60) == 0
        assert client.wait(60) == 0
    finally:
        host.kill()
        if client is not None:
            client.kill()
    play_seconds = time.monotonic() - t0
    t1 = time.monotonic()
    for over in overs:
        path = over["record"]
        assert _cli("replay", path) == 0, f"replay failed on {path}"
        assert _cli("audit", path) == 0, f"audit failed on {path}"
        check_record(path)
    warm = max(1, games // 10)
    return {
        "games": len(overs),
        "seconds_playing": round(play_seconds, 1),
        "seconds_per_game": round(play_seconds / max(1, len(overs)), 2),
        "seconds_replay_and_audit": round(time.monotonic() - t1, 1),
        "host_rss_kib_first": rss[0],
        "host_rss_kib_after_warmup": rss[warm - 1],
        "host_rss_kib_max": max(rss),
        "host_rss_kib_end": rss[-1],
        "host_fds_after_warmup": fd[warm - 1],
        "host_fds_max": max(fd),
        "host_fds_end": fd[-1],
        "records_replayed_and_audited": len(overs),
        "rss_growth_after_warmup_kib": max(rss[warm - 1 :]) - rss[warm - 1],
        "fd_growth_after_warmup": max(fd[warm - 1 :]) - fd[warm - 1],
    }
