"""Log messages go to standard error; ``LOCALDURAK_LOG=info`` (or debug) shows more."""

from __future__ import annotations

import logging
import os
import sys


def setup_logging() -> None:
    name = os.environ.get("LOCALDURAK_LOG", "warning").upper()
    level = getattr(logging, name, logging.WARNING) if name.isidentifier() else logging.WARNING
    logging.basicConfig(
        level=level if isinstance(level, int) else logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
