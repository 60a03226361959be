"""protocol/ does no I/O (architecture.md): its wire modules import no networking, each in a
fresh interpreter (python-zeroconf's tests/test_circular_imports.py idea)."""

from __future__ import annotations

import subprocess
import sys

import pytest

IO_MODULES = ("asyncio", "socket", "ssl", "selectors", "subprocess", "zeroconf")


@pytest.mark.parametrize("module", ["codec", "messages", "connection"])
def test_protocol_module_imports_no_io(module: str) -> None:
    code = (
        f"import sys, localdurak.protocol.{module}\n"
        f"print(','.join(n for n in {IO_MODULES!r} if n in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
