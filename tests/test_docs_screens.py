"""docs/screens.md shows the golden screens as they are (LOCALDURAK_UPDATE_GOLDEN=1 rewrites
it from tests/golden/)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).parent.parent
SCREENS = [
    ("table", "The table (80×24): Anna defends; the ▶ line says what she can do"),
    ("help", "`?`: every key and the glossary"),
    ("game_over", "Game over: the durak in large letters, pogony, the evening's score, the audit"),
    ("lobby_tables", "The lobby (`localdurak`): tables found on the network, live"),
    ("lobby", "The lobby when no table is found: why, and what to do"),
    (
        "host_waiting",
        "`localdurak host` until the deal: where to join, the pairing codes, who is missing",
    ),
    ("table_ru", "The table in Russian (`--lang ru`)"),
    ("table_uk", "The table in Ukrainian (`--lang uk`)"),
    ("table_pl", "The table in Polish (`--lang pl`)"),
    ("table_zh-hant", "The table in Chinese, Traditional (`--lang zh`): two cells a character"),
    ("help_zh-hant", "`?` in Chinese: the glossary shows the Russian words, as seed 004 does"),
    ("host_form_uk", "The lobby's host form in Ukrainian"),
]


def render() -> str:
    parts = [
        "# Screens of the terminal client",
        "",
        "Text captures of the real layout at 80×24, taken by the headless tests",
        "(`tests/cli/test_app.py`, files under `tests/golden/`). Colour is not shown here:",
        "on a terminal, cards you may play are bright and the others dim, ♥♦ are red, and",
        "the selected card is also marked `[7♠]` so it reads without colour.",
        "",
    ]
    for name, title in SCREENS:
        text = (ROOT / "tests" / "golden" / f"{name}.txt").read_text(encoding="utf-8")
        parts += [f"## {title}", "", "```", text.rstrip("\n"), "```", ""]
    return "\n".join(parts)


def test_docs_screens_match_the_golden_screens() -> None:
    path = ROOT / "docs" / "screens.md"
    text = render()
    if os.environ.get("LOCALDURAK_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, "run with LOCALDURAK_UPDATE_GOLDEN=1"
