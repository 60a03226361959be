"""Headless terminal-client helpers: a fixed-size output, the screen as text, key strokes."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import DummyOutput

from localdurak.game.actions import Do
from localdurak.game.view import PlayerView

GOLDEN = Path(__file__).parent / "golden"
RIGHT = "\x1b[C"
ENTER = "\r"


class FixedOutput(DummyOutput):
    """A DummyOutput of a given size, so the layout renders as on an 80×24 terminal."""

    def __init__(self, rows: int = 24, columns: int = 80) -> None:
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


def screen_text(app: Application[int]) -> str:
    """What the last render put on the screen, one line per row, trailing blanks cut."""
    screen = app.renderer.last_rendered_screen
    assert screen is not None, "nothing rendered yet"
    size = app.output.get_size()
    rows = []
    for y in range(size.rows):
        row = screen.data_buffer[y]
        rows.append("".join(row[x].char for x in range(size.columns)).rstrip())
    return "\n".join(rows) + "\n"


async def rendered(app: Application[int], ticks: int = 5) -> str:
    """Let the application redraw, then read its screen."""
    for _ in range(ticks):
        app.invalidate()
        await asyncio.sleep(0.02)
    return screen_text(app)


def check_golden(name: str, text: str) -> None:
    """Compare with tests/golden/<name>.txt (``LOCALDURAK_UPDATE_GOLDEN=1`` rewrites it)."""
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("LOCALDURAK_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"screen differs from {path}"


def select_keys(index: int) -> str:
    """Keys that select hand card ``index``: its number, or 1 and → for the eleventh on."""
    if index < 10:
        return "1234567890"[index]
    return "1" + RIGHT * index


def keys_for(view: PlayerView) -> str:
    """The keys a simple player presses now: play the first card it may (attack, throw in,
    cover), else pass, else take."""
    acts = [a for a in view.legal if a.do is not Do.CHALLENGE]
    for a in acts:
        if a.do is Do.ATTACK and len(a.cards) == 1:
            return select_keys(view.hand.index(a.cards[0])) + ENTER
        if a.do is Do.COVER and a.card is not None:
            return select_keys(view.hand.index(a.card)) + ENTER
    if any(a.do is Do.PASS for a in acts):
        return "d"
    if any(a.do is Do.TAKE for a in acts):
        return "t"
    return ""
