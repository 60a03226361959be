"""What the client remembers between runs (the player's name), in the user's data directory.

``LOCALDURAK_HOME`` overrides the directory (tests), as for the device identity."""

from __future__ import annotations

import contextlib
import getpass
import json
from pathlib import Path
from typing import Any

from localdurak.datadir import data_dir as data_dir

NAME_MAX = 24


def _path() -> Path:
    return data_dir() / "client.json"


def load() -> dict[str, Any]:
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save(**changes: Any) -> None:
    """Remember ``changes``; a read-only home only loses the memory, never the game."""
    data = load()
    data.update(changes)
    with contextlib.suppress(OSError):
        path = _path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


def clean_name(name: str) -> str:
    """A player's name as shown at the table: printable, trimmed, at most 24 characters."""
    text = "".join(ch for ch in name if ch.isprintable()).strip()
    return text[:NAME_MAX]


def player_name(override: str | None = None) -> str:
    """``override`` (``--name``, remembered for next time), else the remembered name, else the
    login name."""
    if override:
        name = clean_name(override)
        if name:
            save(name=name)
            return name
    remembered = load().get("name")
    if isinstance(remembered, str) and clean_name(remembered):
        return clean_name(remembered)
    try:
        login = getpass.getuser()
    except Exception:
        login = ""
    return clean_name(login.capitalize()) or "Player"
