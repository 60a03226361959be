"""`localdurak replay RECORD [--json]`, run as a real command (records.md exit statuses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parents[1] / "golden"
ROOT = Path(__file__).parents[2]


def run(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "localdurak", "replay", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=ROOT,
        timeout=60,
        encoding="utf-8",
        env=None if env is None else {**os.environ, **env},
    )


def test_json_ok_exit_0() -> None:
    p = run(str(GOLDEN / "hand-podkidnoy-24-draw.record.json"), "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["ok"] is True and out["applied"] == 23 and out["error"] is None
    assert out["result"] == {"durak": [], "draw": True, "pogony": 0}
    assert p.stdout.count("\n") == 1  # one JSON object


def test_json_illegal_action_exit_1() -> None:
    p = run(str(GOLDEN / "hand-podkidnoy-first-bout-five.record.json"), "--json")
    assert p.returncode == 1
    out = json.loads(p.stdout)
    assert (out["ok"], out["applied"]) == (False, 13)
    assert out["error"].startswith("R-B3")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{not json", "not JSON"),
        ('{"format": "localdurak-record/9"}', "format"),
        (
            (GOLDEN / "hand-podkidnoy-24-draw.record.json")
            .read_text(encoding="utf-8")
            .replace('"do": "pass"', '"do": "fold"', 1),
            "unknown action 'fold'",
        ),
        (
            (GOLDEN / "hand-podkidnoy-24-draw.record.json")
            .read_text(encoding="utf-8")
            .replace('"9S", "TS"', '"9S", "9S"', 1),
            "9S twice",
        ),
    ],
)
@pytest.mark.parametrize("as_json", [True, False])
def test_not_a_valid_record_exit_2(tmp_path: Path, text: str, says: str, as_json: bool) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    p = run(str(path), *(["--json"] if as_json else []))
    assert p.returncode == 2
    assert p.stdout == ""
    assert "not a valid record" in p.stderr and says in p.stderr


def test_missing_file_exit_2(tmp_path: Path) -> None:
    p = run(str(tmp_path / "nope.json"), "--json")
    assert (p.returncode, p.stdout) == (2, "")
    assert "cannot read" in p.stderr


def test_reads_stdin() -> None:
    text = (GOLDEN / "hand-podkidnoy-24-draw.record.json").read_text(encoding="utf-8")
    p = run("-", "--json", stdin=text)
    assert p.returncode == 0 and json.loads(p.stdout)["applied"] == 23


def test_account_for_people() -> None:
    """Without --json: the game bout by bout, refills in the order drawn, the result."""
    p = run(str(GOLDEN / "hand-podkidnoy-24-draw.record.json"), "--ascii")
    assert p.returncode == 0, p.stderr
    text = p.stdout
    assert "Trump: H, the 9H under the stock" in text
    assert "Bout 1: Ann attacks Bob (stock 12)" in text
    assert "Ann leads 9S 9D 9C" in text
    assert "Bob covers 9S with 10S" in text
    assert "Bito: 6 cards to the discard pile" in text
    # R-B12: the opener Bob draws first, then Ann, the trump card 9H last of all.
    assert "Refill: Bob draws JC KH AH, Ann draws JH QH 9H (stock 0 left)" in text
    assert "Ann is out\n  Bob is out" in text
    assert text.rstrip().endswith("Result: a draw, nobody is the durak.")


def test_account_take_transfer_show_refused() -> None:
    p = run(str(GOLDEN / "hand-perevodnoy-show-refill.record.json"), "--ascii")
    assert p.returncode == 1
    assert "seat 1 transfers with 7C: seat 2 defends" in p.stdout
    assert "seat 2 shows the trump 7H and transfers: seat 0 defends" in p.stdout
    assert "Refill: seat 1 draws 6S, seat 0 draws 6D 6C 8D (stock 14 left)" in p.stdout
    assert "Action 8 refused: seat 2 attack with 9C." in p.stdout
    assert "Why: R-B1" in p.stdout
    p = run(str(GOLDEN / "hand-podkidnoy-first-bout-five.record.json"), "--ascii")
    assert "Bob takes (Beru)" in p.stdout
    assert "Bob picks up 6S 6D 6C 7S 7D 7C 8D 6H AH" in p.stdout


def test_account_challenges_and_pogony() -> None:
    p = run(str(GOLDEN / "hand-cheating-challenges.record.json"), "--ascii")
    assert "seat 0 challenges 7S: it was honest; seat 0 must play honestly" in p.stdout
    assert "seat 0 challenges 8D: a cheat! The cards go back; seat 1 must play" in p.stdout
    p = run(str(GOLDEN / "cheating-2p.record.json"), "--ascii")
    # The cheater of J♠ is named (R-S3) although he was marked a moment before.
    assert "seat 0 challenges JS: a cheat! The cards go back; seat 1 was marked already" in (
        p.stdout
    )
    p = run(str(GOLDEN / "pogony.record.json"))
    assert p.returncode == 0
    assert "Result: seat 0 is the durak, with 2 pogony (6s on the shoulders, R-B15)." in p.stdout
    p = run(str(GOLDEN / "teams-2v2.record.json"))
    assert "Result: seat 1 and seat 3 are the durak." in p.stdout


def test_account_duren_partial_defence() -> None:
    """R-P5: the covered pair is discarded, the rest picked up; the taker draws nothing."""
    p = run(str(GOLDEN / "duren-3p-partial.record.json"), "--ascii")
    assert p.returncode == 0
    assert (
        "  seat 0 covers JC with 7S\n  seat 0 takes (Beru)\n"
        "  2 covered cards to the discard pile\n  seat 0 picks up 10C 10S\n"
        "  Refill: seat 2 draws 9S AD 8S (stock 9 left)\n"
    ) in p.stdout
    assert p.stdout.rstrip().endswith("Result: seat 1 is the dureń.")


def test_a_terminal_without_suit_symbols_gets_escapes() -> None:
    """An ASCII-only stdout: escapes instead of a crash, and the JSON stays valid."""
    record = str(GOLDEN / "hand-podkidnoy-first-bout-five.record.json")
    p = run(record, "--json", env={"PYTHONIOENCODING": "ascii"})
    assert p.returncode == 1
    assert json.loads(p.stdout)["error"].startswith("R-B3: 9♠")
    p = run(record, env={"PYTHONIOENCODING": "ascii"})
    assert p.returncode == 1 and "Ann attack with 9\\u2660." in p.stdout
