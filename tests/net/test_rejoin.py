"""A client that stops keeps its saved seat and finds it again when started the same way
: ``join --bot --address`` with no ``--fingerprint``, killed (-9, TERM or INT) and
started again with the same arguments, takes its seat back and plays on; nobody forfeits.
On main before this it printed "joined seat 2", never played, was forfeited at the hold
and blamed by the audit (its saved seat was keyed by a fingerprint it was not given), and
SIGINT printed a KeyboardInterrupt traceback."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from tests.net.test_e2e import host, mid_game
from tests.soak.common import check_record
from tests.support.procs import Proc, join_bot


def join_by_address(
    tmp_path: Path, procs: list[Proc], listening: dict[str, Any], name: str
) -> Proc:
    """A bot process joining by address alone, as a person restarts it."""
    return join_bot(procs, tmp_path / name, listening, name, "--delay", "0.02", fingerprint=False)


@pytest.mark.parametrize("how", ["kill", signal.SIGTERM, signal.SIGINT])
def test_a_restarted_join_bot_takes_its_seat_back_without_a_fingerprint(
    how: Any, tmp_path: Path, procs: list[Proc]
) -> None:
    h = host(tmp_path, procs, "--seats", "3", "--bots", "1", "--hold", "60")
    listening = h.event("listening")
    a = join_by_address(tmp_path, procs, listening, "alice")
    join_by_address(tmp_path, procs, listening, "bob")
    h.event("game_started")
    mid_game(a)
    if how == "kill":
        a.kill()
    else:
        a.p.send_signal(how)
        assert a.wait(30) == 0
        assert "Traceback" not in "".join(a.stderr)
    away = h.event("away")
    a2 = join_by_address(tmp_path, procs, listening, "alice")
    assert h.event("back", 30)["seat"] == away["seat"]
    over = h.event("game_over", 120)
    assert "forfeit" not in over, over
    assert h.wait(30) == 0
    assert a2.wait(30) == 0
    assert a2.event("game_over", 10)["result"] == over["result"]
    check_record(over["record"])
