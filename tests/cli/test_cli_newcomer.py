"""What a newcomer tripped on at the command line: options before
the subcommand, `audit`/`replay` on a journal from the records folder, `play --seats 9`, and
no traceback when standard input is not a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from localdurak.cli import i18n
from localdurak.cli.main import main
from localdurak.game.actions import Action
from localdurak.game.rules import Rules
from localdurak.protocol.records import journal_action, journal_header, journal_set
from tests.support.privacy_play import table

ROOT = Path(__file__).parent.parent.parent


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path))
    monkeypatch.setenv("LANG", "C.UTF-8")
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    yield
    i18n.set_language("en")


@pytest.mark.parametrize(
    "argv",
    [["--lang", "ru", "rules"], ["--lang=ru", "rules"], ["rules", "--lang", "ru"]],
)
def test_options_before_the_subcommand_count(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 0
    assert "Правила" in capsys.readouterr().out


def test_name_ascii_and_lang_before_the_subcommand_reach_it() -> None:
    from localdurak.cli.main import _only, _player_name, build_parser

    for argv, want in (
        (["--name", "Vera", "play"], ("name", "Vera")),
        (["--name", "Vera", "host"], ("player", "Vera")),
        (["--ascii", "join", "Kitchen"], ("ascii", True)),
        (["--lang", "ru", "host", "--name", "Kitchen"], ("lang", "ru")),
    ):
        args = build_parser(_only(argv)).parse_args(argv)
        _player_name(args)
        assert getattr(args, want[0]) == want[1], argv
    # The subcommand's own --name for host stays the table's.
    args = build_parser().parse_args(["--name", "Vera", "host", "--name", "Kitchen"])
    _player_name(args)
    assert (args.name, args.player) == ("Kitchen", "Vera")


def test_play_seats_9_names_the_seats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seats", "9"]) == 2
    err = capsys.readouterr().err
    assert "--seats must be 2..6" in err and "--bots" not in err


@pytest.mark.parametrize(
    "argv",
    [["play"], ["join", "--address", "127.0.0.1:9"], ["host", "--port", "0", "--no-advertise"], []],
)
def test_no_traceback_when_stdin_is_not_a_terminal(tmp_path: Path, argv: list[str]) -> None:
    env = dict(os.environ, LOCALDURAK_HOME=str(tmp_path), PYTHONPATH=str(ROOT), LANG="C.UTF-8")
    env["LOCALDURAK_NO_MDNS"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "localdurak", *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2
    assert "standard input is not a terminal" in done.stderr


def _journal(record: dict[str, Any], *, finished: bool = True) -> str:
    """The journal the host writes for ``record``'s game (records.md journal): the header,
    one line per action, and when the game has ended the deck and the transcript."""
    lines = [
        journal_header(
            Rules.from_dict(record.get("rules", {})),
            record["seats"],
            record["dealer"],
            names=record.get("names"),
        )
    ]
    lines += [journal_action(Action.from_dict(a)) for a in record["actions"]]
    if finished:
        lines += [journal_set(key, record[key]) for key in ("deck", "privacy") if key in record]
    return "".join(lines)


def _golden(name: str) -> Path:
    return next((ROOT / "tests").rglob(name))


def test_audit_and_replay_read_a_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tab = table(2, 24, seed=3)
    tab.start()
    tab.reveal()
    path = tmp_path / "game-1.journal"
    path.write_text(_journal(tab.record()))
    assert main(["audit", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "clean"
    record_path = _golden("hand-podkidnoy-24-draw.record.json")
    record = json.loads(record_path.read_text(encoding="utf-8"))
    path.write_text(_journal(record))
    assert main(["replay", str(path), "--json"]) == 0
    from_journal = capsys.readouterr().out
    assert main(["replay", str(record_path), "--json"]) == 0
    assert from_journal == capsys.readouterr().out
    # A journal whose game has not ended says so plainly (no "Extra data: line 2").
    path.write_text(_journal(record, finished=False))
    for command in ("audit", "replay"):
        assert main([command, str(path)]) == 2
        err = capsys.readouterr().err
        assert "has not ended" in err and "Extra data" not in err
