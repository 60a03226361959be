"""Network play as people see it: two real terminals (a private tmux server) in two network
namespaces on a private bridge (tests/support/netns.py: 192.0.2.0/24, nothing leaves the machine).

``localdurak host`` runs in one namespace, the ``localdurak`` lobby in the other; the lobby
finds the table over mDNS, Enter joins it, both screens show the same pairing code, a bot
(``join --bot``) takes the last seat, and the two people play until a bout ends — keys go in
with send-keys, the screens come back with capture-pane (ui.md, lan.md).  And on three laptops:
the host quits mid-game, resumes with the line its screen printed, and both friends are back
at their seats."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.net.test_disk_trouble import fill
from tests.support.netns import REPO, NetnsLan, unavailable_reason

TMUX = shutil.which("tmux") or "/usr/bin/tmux"
SOCKET = f"localdurak-net-{os.getpid()}"
"""A private tmux server (-L): it holds only this test's sessions."""

pytestmark = [
    pytest.mark.skipif(not Path(TMUX).exists(), reason="tmux is not installed"),
    pytest.mark.skipif(unavailable_reason() is not None, reason=str(unavailable_reason())),
    pytest.mark.slow,  # namespaces and a real terminal: the quick suite skips it
]

CODE = re.compile(r"[0-9A-F]{4}-[0-9A-F]{4}")
BOUT_OVER = ("Bito —", "picks up", "you pick up the cards")


def _tmux(*args: str) -> str:
    return subprocess.run(
        [TMUX, "-L", SOCKET, *args], check=True, capture_output=True, text=True, timeout=10
    ).stdout


@pytest.fixture
def lan() -> Iterator[NetnsLan]:
    with NetnsLan(2) as lan:
        yield lan


@pytest.fixture
def lan3() -> Iterator[NetnsLan]:
    with NetnsLan(3) as lan:
        yield lan


@pytest.fixture
def tmux() -> Iterator[None]:
    yield
    subprocess.run([TMUX, "-L", SOCKET, "kill-server"], capture_output=True, timeout=10)


def _command(lan: NetnsLan, host: int, home: Path, args: str) -> str:
    """The shell command that runs ``localdurak ARGS`` inside namespace ``host``."""
    inner = (
        f"cd {shlex.quote(str(REPO))} && env -u LOCALDURAK_NO_MDNS "
        f"LOCALDURAK_HOME={shlex.quote(str(home))} LANG=C.UTF-8 "
        f"PYTHONPATH={shlex.quote(str(REPO))} "
        f"{shlex.quote(sys.executable)} -m localdurak {args}; echo EXIT=$?; sleep 30"
    )
    return shlex.join(lan.command(host, ["sh", "-c", inner]))


def _start(lan: NetnsLan, host: int, name: str, home: Path, args: str) -> Callable[[], str]:
    """``localdurak ARGS`` in a 80×24 terminal inside namespace ``host``; its screen reader."""
    _tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", _command(lan, host, home, args))
    return lambda: _tmux("capture-pane", "-p", "-t", name)


def _wait(capture: Callable[[], str], text: str, timeout: float = 15.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = capture()
        if text in screen:
            return screen
        time.sleep(0.05)
    raise AssertionError(f"{text!r} never appeared; the screen:\n{screen}")


def test_host_and_lobby_in_two_namespaces_play_a_bout(
    lan: NetnsLan, tmux: None, tmp_path: Path
) -> None:
    host_screen = _start(
        lan,
        0,
        "host",
        tmp_path / "anna",
        f"host --name Kitchen --seats 3 --player Anna --record-dir {tmp_path / 'records'}",
    )
    # The host's screen: its table's lobby, not "Dealing…".
    screen = _wait(host_screen, "Waiting for:")
    assert "Table Kitchen" in screen and f"{lan.addresses[0]}:" in screen
    assert "Anna (you)" in screen and "(free)" in screen and "Dealing" not in screen
    port = re.search(re.escape(lan.addresses[0]) + r":(\d+)", screen)
    assert port is not None

    guest_screen = _start(lan, 1, "guest", tmp_path / "vera", "--name Vera")
    screen = _wait(guest_screen, "Kitchen")  # found over mDNS across the bridge
    # The host's own player sat down as the table was announced: its seat is counted (the
    # registration's announcements of 0/3 are stopped by the update, net/discovery.py).
    screen = _wait(guest_screen, "1/3 seats")
    # ... and keeps it: the old record came back 225 and 450 ms after the table's first
    # announcement; a second later every announcement is out (this is how long the claim is
    # checked; it waits for nothing).
    time.sleep(1.0)
    assert "1/3 seats" in guest_screen(), guest_screen()
    _tmux("send-keys", "-t", "guest", "Enter")
    screen = _wait(guest_screen, "Code to compare with the host:")
    guest_code = CODE.search(screen.split("Code to compare with the host:")[1])
    assert guest_code is not None
    screen = _wait(host_screen, "Vera")
    assert f"code {guest_code.group()}" in screen  # the same code on both screens
    # The codes compared, both say ready (docs/ui.md "The lobby"); the bot is ready by itself.
    _tmux("send-keys", "-t", "guest", "r")
    _tmux("send-keys", "-t", "host", "r")
    _wait(host_screen, "Waiting for: 1 more player")

    # The third seat: a bot over the network, in the host's namespace.
    argv = ["join", "--bot", "--name", "Boris", "--address", f"127.0.0.1:{port.group(1)}"]
    bot = subprocess.Popen(
        lan.command(0, [sys.executable, "-m", "localdurak", *argv]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env={**os.environ, "LOCALDURAK_HOME": str(tmp_path / "boris"), "PYTHONPATH": str(REPO)},
    )
    try:
        _wait(host_screen, "you: Anna", 30)
        _wait(guest_screen, "you: Vera", 30)
        # The people play: each sends the first card (attack, throw in or cover), done, take,
        # until a bout is over on both screens.
        deadline = time.monotonic() + 40
        screens = ("", "")
        while time.monotonic() < deadline:
            for name in ("host", "guest"):
                for keys in (["1", "Enter"], ["d"], ["t"]):
                    _tmux("send-keys", "-t", name, *keys)
                    time.sleep(0.25)
            screens = (host_screen(), guest_screen())
            for s in screens:
                assert "Traceback" not in s and "EXIT=" not in s, s
            if all(any(w in s for w in BOUT_OVER) for s in screens):
                break
        else:
            raise AssertionError("no bout ended; the screens:\n" + "\n".join(screens))
        for s in screens:
            assert "▶" in s
        _tmux("send-keys", "-t", "guest", "q")  # back to the lobby, once asked
        _wait(guest_screen, "Your seat is held")
        _tmux("send-keys", "-t", "guest", "y")
        _wait(guest_screen, "Tables on this network")
        _tmux("send-keys", "-t", "guest", "q")
        _wait(guest_screen, "EXIT=0")
        _tmux("send-keys", "-t", "host", "q")
        _wait(host_screen, "Leave and close the table? y/n")
        _tmux("send-keys", "-t", "host", "y")
        _wait(host_screen, "EXIT=0")
    finally:
        bot.kill()
        bot.communicate(timeout=10)


def _log(screen: str) -> list[str]:
    """The two log lines of a table screen (under the rule, above the keys)."""
    lines = screen.splitlines()
    rule = max(i for i, line in enumerate(lines) if "────" in line and line[:1] in "│|")
    return lines[rule + 1 : rule + 3]


def _play_until(screens: dict[str, Callable[[], str]], done: Callable[[str], bool]) -> None:
    """Everyone sends the first card (attack, throw in or cover), done, take, until
    ``done(screen)`` holds on every screen."""
    deadline = time.monotonic() + 60
    shown: dict[str, str] = {}
    while time.monotonic() < deadline:
        for name in screens:
            for keys in (["1", "Enter"], ["d"], ["t"]):
                _tmux("send-keys", "-t", name, *keys)
                time.sleep(0.15)
        shown = {name: capture() for name, capture in screens.items()}
        for s in shown.values():
            assert "Traceback" not in s and "EXIT=" not in s, s
        if all(done(s) for s in shown.values()):
            return
    raise AssertionError("the game did not go on; the screens:\n" + "\n".join(shown.values()))


# What a table screen says, in the client's language (the catalogues' words).
SAYS = {
    "en": {
        "code": "Code to compare with the host:",
        "you": "you: ",
        "paused": "The host paused; it will resume. Your seat is kept.",
        "reconnecting": "Connection lost — reconnecting…",
        "cannot save": "The host cannot save (the disk is full): this game can no longer be"
        " resumed after a crash",
    },
    "ru": {
        "code": "Код для сверки с хозяином стола:",
        "you": "вы: ",
        "paused": "Хозяин стола приостановил игру и продолжит её. Ваше место сохранено.",
        "reconnecting": "Связь потеряна — переподключаемся…",
        "cannot save": "Хозяин стола не может сохранять (диск заполнен): после сбоя эту партию"
        " уже не продолжить",
    },
}
NAMES = {"host": "Anna", "vera": "Vera", "boris": "Boris"}


def _three_laptops(
    lan: NetnsLan, tmp_path: Path, records: Path, langs: dict[str, str]
) -> dict[str, Callable[[], str]]:
    """Anna hosts in namespace 0, Vera and Boris join from namespaces 1 and 2 (each client
    in its language), the codes are compared, the game starts and a few moves are made.
    Every screen's reader, by name."""
    host_screen = _start(
        lan,
        0,
        "host",
        tmp_path / "anna",
        f"host --name Kitchen --seats 3 --player Anna --record-dir {records}",
    )
    screen = _wait(host_screen, "Waiting for:")
    port = re.search(re.escape(lan.addresses[0]) + r":(\d+)", screen)
    assert port is not None
    address = f"{lan.addresses[0]}:{port.group(1)}"
    friends = {
        name: _start(
            lan,
            k,
            name,
            tmp_path / name,
            ("" if langs[name] == "en" else f"--lang {langs[name]} ")
            + f"join --address {address} --name {NAMES[name]}",
        )
        for k, name in ((1, "vera"), (2, "boris"))
    }
    for name, capture in friends.items():
        _wait(capture, SAYS[langs[name]]["code"], 20)
        _tmux("send-keys", "-t", name, "r")
    _wait(host_screen, "Boris")
    _wait(host_screen, "Vera")
    _tmux("send-keys", "-t", "host", "r")
    everyone = {"host": host_screen, **friends}
    for name, capture in everyone.items():
        _wait(capture, SAYS[langs[name]]["you"] + NAMES[name], 30)
    # A few moves, so that the game is under way.
    first = _log(host_screen())
    _play_until(everyone, lambda s: _seated(s) and _log(s) != first)
    return everyone


def _seated(screen: str) -> bool:
    """A table screen (its title names the player), in any of the languages."""
    return any(says["you"] in screen for says in SAYS.values())


def _pause_and_resume(
    lan: NetnsLan,
    tmp_path: Path,
    records: Path,
    everyone: dict[str, Callable[[], str]],
    langs: dict[str, str],
) -> None:
    """Anna presses q and confirms; both friends are told the host paused and keep their
    seats; Anna runs the ``--resume`` line her screen printed; both friends are back at
    their seats with the hands they had, and the game goes on."""
    host_screen = everyone["host"]
    friends = {name: capture for name, capture in everyone.items() if name != "host"}
    _tmux("send-keys", "-t", "host", "q")
    _wait(host_screen, "Leave and close the table? y/n")
    _tmux("send-keys", "-t", "host", "y")
    for name, capture in friends.items():
        assert "Traceback" not in _wait(capture, SAYS[langs[name]]["paused"], 20)
    hands = {name: _hand(capture()) for name, capture in friends.items()}
    _wait(host_screen, "EXIT=0", 20)
    joined = _tmux("capture-pane", "-p", "-J", "-t", "host")  # the resume line, unwrapped
    resume = re.search(r"localdurak host --resume (\S+)", joined)
    assert resume is not None, joined
    (journal,) = records.glob("*.journal")
    assert resume.group(1) == str(journal)

    _tmux(
        "respawn-pane", "-k", "-t", "host",
        _command(lan, 0, tmp_path / "anna", f"host --resume {resume.group(1)}"),
    )  # fmt: skip
    _wait(host_screen, "you: Anna", 30)
    for name, capture in friends.items():
        says = SAYS[langs[name]]
        deadline = time.monotonic() + 30
        screen = capture()
        while says["paused"] in screen or says["reconnecting"] in screen:
            assert time.monotonic() < deadline, screen
            time.sleep(0.1)
            screen = capture()
        assert says["you"] + NAMES[name] in screen and "Traceback" not in screen, screen
        assert _hand(screen) == hands[name], screen  # his seat, his hand
    # The game goes on: moves are made and every screen shows them.
    back = {name: _log(capture()) for name, capture in everyone.items()}
    _play_until(everyone, lambda s: _seated(s) and _log(s) not in back.values())


def test_the_host_quits_mid_game_and_resumes_with_two_friends_at_their_seats(
    lan3: NetnsLan, tmux: None, tmp_path: Path
) -> None:
    """Three laptops: Anna hosts, Vera and Boris join from their own.  Mid-game Anna stops
    the table and resumes it (`_pause_and_resume`); then everyone leaves cleanly."""
    langs = {"host": "en", "vera": "en", "boris": "en"}
    records = tmp_path / "records"
    everyone = _three_laptops(lan3, tmp_path, records, langs)
    _pause_and_resume(lan3, tmp_path, records, everyone, langs)
    for name in ("vera", "boris"):
        _tmux("send-keys", "-t", name, "q")
        _wait(everyone[name], "Your seat is held")
        _tmux("send-keys", "-t", name, "y")
        _wait(everyone[name], "EXIT=")
    _tmux("send-keys", "-t", "host", "q")
    _wait(everyone["host"], "Leave and close the table? y/n")
    _tmux("send-keys", "-t", "host", "y")
    assert "Traceback" not in _wait(everyone["host"], "EXIT=0", 20)


def _hand(screen: str) -> str:
    """The hand row of a table screen (the row above the numbers "1    2")."""
    lines = screen.splitlines()
    numbers = next(i for i, line in enumerate(lines) if "1    2" in line)
    return lines[numbers - 1].strip()


def _said(screen: str) -> str:
    """The screen's words as one line (a long banner wraps onto a second row)."""
    rows = (row.strip().strip("│|").strip() for row in screen.splitlines())
    return " ".join(" ".join(rows).split())


def test_the_disk_fills_under_a_live_game_every_friend_is_told_and_it_resumes(
    lan3: NetnsLan, tmux: None, tmp_path: Path, small_disk: Path
) -> None:
    """Three laptops, Vera's client in Russian.  Mid-game the host's record folder fills up:
    every screen says, in its own language, that the host cannot save, and the game goes on
    from memory.  Space is freed: the words go away once the host has written everything
    again.  Then Anna stops the table and resumes it (`_pause_and_resume`): both friends
    are back at their seats with their hands, nothing was lost while the disk was full."""
    langs = {"host": "en", "vera": "ru", "boris": "en"}
    records = small_disk / "records"
    everyone = _three_laptops(lan3, tmp_path, records, langs)

    filler = fill(small_disk)
    # The next writes fail: every screen says so in its language, and play goes on.
    told = {says["cannot save"] for says in SAYS.values()}
    _play_until(everyone, lambda s: any(t in _said(s) for t in told))
    for name, capture in everyone.items():
        assert SAYS[langs[name]]["cannot save"] in _said(capture()), name

    filler.unlink()
    # The host writes everything again once the disk takes it; the words go away.
    _play_until(everyone, lambda s: not any(t in _said(s) for t in told))

    _pause_and_resume(lan3, tmp_path, records, everyone, langs)
