"""Whole games over real TLS on loopback, each player a separate process (docs/sessions.md):
the headless host (`localdurak host --headless`) and `localdurak join --bot` processes; the
records replay and audit clean; a client killed mid-game and started again carries on.

Every host here runs with advertising off (mDNS only inside namespaces: test_net_netns.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from localdurak.net.host import EVENTS_FILE, read_frames
from localdurak.protocol.codec import encode_frame
from localdurak.protocol.messages import PrivacyEvent, message_to_wire
from localdurak.protocol.privacy.audit import audit
from tests.soak.common import check_record
from tests.support.procs import Proc, env_for, join_bot, localdurak


def host(tmp_path: Path, procs: list[Proc], *args: str, home: str = "host") -> Proc:
    p = Proc(
        localdurak(
            "host",
            "--headless",
            "--name",
            "Test table",
            "--port",
            "0",
            "--no-advertise",
            "--record-dir",
            str(tmp_path / "records"),
            *args,
        ),
        env_for(tmp_path / home),
        "host",
    )
    procs.append(p)
    return p


def join(
    tmp_path: Path, procs: list[Proc], listening: dict[str, Any], name: str, *args: str
) -> Proc:
    """A bot process joining by address and fingerprint, its home ``tmp_path / name``."""
    return join_bot(procs, tmp_path / name, listening, name, *args)


def mid_game(client: Proc, actions: int = 12) -> None:
    """Wait until ``client`` has applied some actions of the game: it is being played."""
    for _ in range(actions):
        client.event("applied", 60)


def test_whole_headless_game_host_and_two_bot_processes(tmp_path: Path, procs: list[Proc]) -> None:
    h = host(tmp_path, procs, "--seats", "3", "--bots", "1", "--games", "2", "--deck", "24")
    listening = h.event("listening")
    assert len(listening["fingerprint"]) == 64
    clients = [join(tmp_path, procs, listening, f"p{i}") for i in range(2)]
    seated = {h.event("seated")["seat"] for _ in range(3)}
    assert seated == {0, 1, 2}
    overs = [h.event("game_over", 90) for _ in range(2)]
    assert h.wait(30) == 0
    for c in clients:
        assert c.wait(30) == 0
    for over in overs:
        check_record(over["record"])
    assert overs[1]["score"] == [
        sum(1 for o in overs if s in o["result"]["durak"]) for s in range(3)
    ]


@pytest.mark.slow  # processes killed and restarted
def test_a_client_killed_mid_game_starts_again_and_the_game_completes(
    tmp_path: Path, procs: list[Proc]
) -> None:
    h = host(tmp_path, procs, "--seats", "3", "--bots", "1", "--hold", "60")
    listening = h.event("listening")
    a = join(tmp_path, procs, listening, "alice", "--delay", "0.03")
    join(tmp_path, procs, listening, "bob", "--delay", "0.03")
    h.event("game_started")
    mid_game(a)
    a.kill()  # kill -9
    away = h.event("away")
    a2 = join(tmp_path, procs, listening, "alice", "--delay", "0.03")
    assert h.event("back")["seat"] == away["seat"]
    over = h.event("game_over", 120)
    assert "forfeit" not in over
    assert h.wait(30) == 0
    assert a2.wait(30) == 0
    record = check_record(over["record"])
    assert len(record["actions"]) > 0


@pytest.mark.slow  # processes killed and restarted
def test_the_host_killed_mid_game_resumes_from_its_journal_and_the_game_completes(
    tmp_path: Path, procs: list[Proc]
) -> None:
    h = host(tmp_path, procs, "--seats", "3", "--bots", "1", "--bot-delay", "0.02")
    listening = h.event("listening")
    alice = join(tmp_path, procs, listening, "alice", "--delay", "0.02")
    join(tmp_path, procs, listening, "bob", "--delay", "0.02")
    started = h.event("game_started")
    mid_game(alice)
    h.kill()  # kill -9
    h2 = Proc(localdurak("host", "--resume", started["journal"]), env_for(tmp_path / "host"), "h2")
    procs.append(h2)
    resumed = h2.event("resumed")
    assert resumed["seq"] > 0
    again = h2.event("listening")
    assert again["port"] == listening["port"]
    assert again["fingerprint"] == listening["fingerprint"]
    over = h2.event("game_over", 120)
    assert h2.wait(30) == 0
    check_record(over["record"])


@pytest.mark.slow  # processes killed and restarted
def test_a_player_who_does_not_come_back_forfeits_he_is_the_durak(
    tmp_path: Path, procs: list[Proc]
) -> None:
    h = host(tmp_path, procs, "--seats", "3", "--bots", "1", "--hold", "2", "--bot-delay", "0.02")
    listening = h.event("listening")
    a = join(tmp_path, procs, listening, "alice", "--delay", "0.02")
    b = join(tmp_path, procs, listening, "bob", "--delay", "0.02")
    h.event("game_started")
    mid_game(a)
    a.kill()
    away = h.event("away")
    assert away["hold"] == 2
    forfeit = h.event("forfeit", 20)
    assert forfeit["seat"] == away["seat"]
    over = h.event("game_over", 30)
    assert over["forfeit"] == away["seat"]
    assert over["result"] == {"durak": [away["seat"]], "draw": False, "pogony": 0}
    assert h.wait(30) == 0
    assert b.wait(30) == 0
    record = json.loads(Path(over["record"]).read_text())
    assert record["forfeit"] == away["seat"]
    # The others revealed their keys; the audit reports only the absent seat's key as missing,
    # judging nobody for it (privacy.md "The record and the audit": the log cannot show the key was
    # withheld), and says what it cannot check without it.
    report = audit(record)
    assert report.missing_keys == (away["seat"],) and report.guilty == ()
    assert all("key is not in the record" in f.what for f in report.faults)
    assert any("without every key" in u for u in report.unchecked)
    assert [s.name for s in report.seats] == record["names"]


def test_R_S5_cheating_mode_holds_the_closing_action_for_the_challenge_window(
    tmp_path: Path, procs: list[Proc]
) -> None:
    h = host(
        tmp_path,
        procs,
        "--seats",
        "2",
        "--bots",
        "1",
        "--cheating",
        "--challenge-window",
        "0.05",
        "--deck",
        "24",
    )
    listening = h.event("listening")
    join(tmp_path, procs, listening, "alice")
    over = h.event("game_over", 120)
    windows = [x for x in h.seen if x.get("event") == "challenge_window"]
    assert windows and all(w["seconds"] == 0.05 for w in windows)
    assert h.wait(30) == 0
    check_record(over["record"])


@pytest.mark.slow  # processes killed and restarted
def test_a_client_that_lost_its_saved_seat_cannot_take_it_back_the_seat_forfeits(
    tmp_path: Path, procs: list[Proc]
) -> None:
    h = host(tmp_path, procs, "--seats", "2", "--bots", "1", "--hold", "3", "--bot-delay", "0.03")
    listening = h.event("listening")
    a = join(tmp_path, procs, listening, "alice", "--delay", "0.03")
    h.event("game_started")
    mid_game(a)
    a.kill()
    away = h.event("away")
    for saved in (tmp_path / "alice" / "sessions").glob("*"):
        saved.unlink()  # the seat's privacy key is gone with it
    a2 = join(tmp_path, procs, listening, "alice")
    over = h.event("game_over", 30)
    assert over["forfeit"] == away["seat"]
    assert h.wait(30) == 0
    assert a2.wait(30) == 0


def test_a_host_that_crashed_before_writing_the_record_writes_it_when_it_resumes(
    tmp_path: Path, procs: list[Proc]
) -> None:
    """The record is written (its audit in a thread) before the game's end is told; a host
    that dies in between finds every key in when it resumes, and ends the game then."""
    h = host(tmp_path, procs, "--seats", "2", "--bots", "2", "--deck", "24")
    started = h.event("game_started")
    over = h.event("game_over", 60)
    assert h.wait(30) == 0
    first = check_record(over["record"])
    # As if the host had died just before telling the game's end: the event log stops at the
    # last key, and there is no record yet.
    journal = Path(started["journal"])
    header = json.loads(journal.read_text(encoding="utf-8").splitlines()[0])
    events_path = Path(header["table"]["state"]) / EVENTS_FILE
    events = read_frames(events_path)
    last = max(i for i, ev in enumerate(events) if isinstance(ev, PrivacyEvent))
    events_path.write_bytes(
        b"".join(encode_frame(message_to_wire(ev)) for ev in events[: last + 1])
    )
    Path(over["record"]).unlink()

    h2 = Proc(localdurak("host", "--resume", str(journal)), env_for(tmp_path / "host"), "h2")
    procs.append(h2)
    h2.event("resumed")
    again = h2.event("game_over", 60)
    assert again["result"] == over["result"]
    assert h2.wait(30) == 0
    record = check_record(again["record"])
    assert record["actions"] == first["actions"] and record["deck"] == first["deck"]


def test_a_script_without_the_pin_is_told_to_give_it(tmp_path: Path, procs: list[Proc]) -> None:
    """`localdurak join` for a person asks for the PIN on a terminal; a script (`join --bot`:
    a person's join without a terminal stops before joining, tests/cli/test_cli_newcomer.py)
    is told how to give it, and the table is unharmed."""
    h = host(tmp_path, procs, "--seats", "2", "--pin", "4821")
    listening = h.event("listening")
    address = f"127.0.0.1:{listening['port']}"
    p = Proc(
        localdurak("join", "--bot", "--address", address, "--name", "Vera"),
        env_for(tmp_path / "vera"),
        "vera",
    )
    procs.append(p)
    assert p.wait(30) == 1
    for _ in range(50):  # the reader thread may still be reading its last words
        if "--pin" in "".join(p.stderr):
            break
        time.sleep(0.05)
    # The host's refusal in the player's words (cli/net_words.py): the table asks for a PIN.
    assert "asks for a PIN" in "".join(p.stderr) and "--pin" in "".join(p.stderr)
    bot = join(tmp_path, procs, listening, "bob", "--pin", "4821")
    assert h.event("seated")["name"] == "bob"
    bot.kill()
