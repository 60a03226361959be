"""`localdurak play` argument checks and `localdurak rules` (cli.md)."""

from __future__ import annotations

import pytest

from localdurak.cli import i18n
from localdurak.cli.main import main


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path))
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LANGUAGE", raising=False)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)


def test_rules_in_english_and_russian(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert "Podkidnoy" in out and "Perevodnoy" in out and "Dureń" in out and "Beru" in out
    assert main(["rules", "perevodnoy", "--lang", "ru"]) == 0
    out = capsys.readouterr().out
    assert "Переводной" in out and "Подкидной" not in out.split("Словарь")[0]
    assert "Погоны" in out
    i18n.set_language("en")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["play", "--bots", "9"], "--bots must be 1..5"),
        (["play", "--teams", "2v2"], "R-T1"),
        (["play", "--variant", "podkidnoy", "--trump-show"], "R-B7"),
        (["play", "--seats", "4", "--bots", "2"], "disagree"),
        (["play", "--bots", "5", "--deck", "24"], "R-D1"),
        (["play", "--lang", "xx"], "no catalog"),
    ],
)
def test_play_refuses_impossible_tables(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert words in capsys.readouterr().err
    i18n.set_language("en")


def test_name_is_remembered(tmp_path: object) -> None:
    from localdurak.cli import settings

    assert settings.player_name("  Anna\x07 ") == "Anna"
    assert settings.player_name(None) == "Anna"
    settings.save(name="Борис")
    assert settings.player_name() == "Борис"
