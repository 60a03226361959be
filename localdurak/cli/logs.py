"""Log messages go to standard error; ``LOCALDURAK_LOG=info`` (or debug) shows more."""

from __future__ import annotations

import logging
import os
import sys


def setup_logging() -> None:
    level = os.environ.get("LOCALDURAK_LOG", "warning").upper()
    logging.basicConfig(
        level=getattr(logging, level, logging.WARNING),
        stream=sys.stderr,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
