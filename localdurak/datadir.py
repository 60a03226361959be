"""Where this user's Local Durak files live (identity, remembered name, saved seats).

``$LOCALDURAK_HOME`` overrides it (tests, or several players on one laptop).  Kept apart
from both `net.identity` and `cli.settings` so that the client can read it without loading
the cryptography the identity needs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def data_dir() -> Path:
    """``$LOCALDURAK_HOME`` if set, else the platform's per-user data directory."""
    override = os.environ.get("LOCALDURAK_HOME")
    if override:
        return Path(override).expanduser()
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / "localdurak"
