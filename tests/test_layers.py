"""Layering (architecture.md): imports flow cli -> net -> protocol -> game, and game/ and
protocol/ do no I/O.  Like python-zeroconf's test_circular_imports, every module is also
imported on its own in a fresh interpreter, so an import cycle cannot hide behind import order.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "localdurak"

# What a pure layer may not import: I/O, clocks, ambient randomness, the layers above it.
IO_MODULES = {
    "asyncio",
    "socket",
    "ssl",
    "selectors",
    "subprocess",
    "threading",
    "os",
    "time",
    "random",
    "secrets",
    "zeroconf",
    "prompt_toolkit",
}
FORBIDDEN = {
    "game": IO_MODULES | {"localdurak.protocol", "localdurak.net", "localdurak.cli"},
    "protocol": IO_MODULES | {"localdurak.net", "localdurak.cli"},
    "net": {"localdurak.cli", "prompt_toolkit"},
}


def _modules() -> list[str]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts[-1] == "__main__":
            continue
        out.append(".".join(parts))
    return out


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _breaks(name: str, forbidden: set[str]) -> bool:
    return any(name == f or name.startswith(f + ".") for f in forbidden)


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_flow_one_way(layer: str) -> None:
    bad = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for name in _imports(path):
            if _breaks(name, FORBIDDEN[layer]):
                bad.append(f"{path.relative_to(PACKAGE.parent)} imports {name}")
    assert not bad, "\n".join(bad)


def test_every_module_imports_alone() -> None:
    # One fresh interpreter per module, started together so the test stays quick.
    procs = {
        module: subprocess.Popen(
            [sys.executable, "-c", f"import {module}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for module in _modules()
    }
    failed = []
    for module, proc in procs.items():
        _, err = proc.communicate(timeout=120)
        if proc.returncode != 0:
            failed.append(f"{module}:\n{err}")
    assert not failed, "\n".join(failed)
