"""Where this user's Local Durak files live (identity, remembered name, saved seats).

``$LOCALDURAK_HOME`` overrides it (tests, or several players on one laptop).  A profile
(``--profile NAME``, `use_profile`) is a separate set of those files, an identity of its own,
in ``profiles/NAME`` under it: one laptop can sit at several seats of a table, one profile a
seat (docs/cli.md "Profiles").  Kept apart from both `net.identity` and `cli.settings` so that
the client can read it without loading the cryptography the identity needs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PROFILES = "profiles"
PROFILE_MAX = 40

_profile: str | None = None


def valid_profile(name: str) -> bool:
    """Whether ``name`` can name a profile (a folder under ``profiles``): 1 to 40 letters,
    digits, ``-``, ``_`` or ``.``, not starting with ``.``."""
    if not 0 < len(name) <= PROFILE_MAX or name.startswith("."):
        return False
    if not all(c.isalnum() or c in "-_." for c in name):
        return False
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from an undecodable command line
        return False
    return True


def use_profile(name: str | None) -> None:
    """From now on `data_dir` is the profile ``name``'s (None: the default one)."""
    global _profile
    if name is not None and not valid_profile(name):
        raise ValueError(f"not a profile name: {name!r}")
    _profile = name


def profile() -> str | None:
    """The profile in use (None: the default one)."""
    return _profile


def home_dir() -> Path:
    """``$LOCALDURAK_HOME`` if set, else the platform's per-user data directory: the
    default profile's folder, which holds the others' (``profiles/NAME``)."""
    override = os.environ.get("LOCALDURAK_HOME")
    try:
        if override:
            return Path(override).expanduser()
        home = Path.home()
    except RuntimeError:  # "~nobody/…", or no home directory at all: taken as written
        return Path(override or ".localdurak")
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / "localdurak"


def data_dir() -> Path:
    """The folder of the profile in use: `home_dir`, or ``profiles/NAME`` under it."""
    base = home_dir()
    return base if _profile is None else base / PROFILES / _profile
