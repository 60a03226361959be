"""Layering (README, Layout): imports flow cli -> net -> protocol -> game, and game/ and
protocol/ do no I/O.  Absolute and relative imports are both checked (``from ..net import x``
counts as ``localdurak.net``), and the pure layers call no ``open()``, ``input()``, ``print()``
and no path or file method.  Like python-zeroconf's test_circular_imports, every module is also
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
    # Files: the pure layers get bytes and text from their callers.
    "io",
    "pathlib",
    "shutil",
    "tempfile",
    "glob",
    "fcntl",
    "mmap",
    "sqlite3",
    "importlib.resources",
}
PURE = ("game", "protocol")
# Built-ins that do I/O, and the file methods of pathlib / io objects.
IO_CALLS = {"open", "input", "print", "breakpoint"}
IO_METHODS = {
    "open",
    "read_text",
    "write_text",
    "read_bytes",
    "write_bytes",
    "mkdir",
    "unlink",
    "touch",
    "iterdir",
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


def _package_of(path: Path) -> list[str]:
    """The package a module's relative imports start from (``localdurak.protocol`` for
    localdurak/protocol/codec.py and for localdurak/protocol/__init__.py)."""
    return list(path.relative_to(PACKAGE.parent).parent.parts)


def _imports(path: Path, where: Path | None = None) -> set[str]:
    """Every module ``path`` imports, relative imports resolved to absolute names as if the
    file sat at ``where`` (default: where it is); for ``from X import a`` both ``X`` and
    ``X.a`` (``a`` may be a submodule)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                assert node.module is not None
                base = node.module
            else:
                package = _package_of(where or path)
                up = node.level - 1
                assert up < len(package), f"{path}: relative import above the package"
                parts = package[: len(package) - up] if up else package
                base = ".".join([*parts, *([node.module] if node.module else [])])
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    return names


def _io_calls(path: Path) -> list[str]:
    """Calls in ``path`` that do I/O: ``open(...)``, ``print(...)``, ``x.read_text()``, …"""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id in IO_CALLS:
            found.append((node.lineno, f"{f.id}()"))
        elif isinstance(f, ast.Attribute) and f.attr in IO_METHODS:
            found.append((node.lineno, f".{f.attr}()"))
    return [f"line {line}: {call}" for line, call in sorted(found)]


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


@pytest.mark.parametrize("layer", PURE)
def test_pure_layers_do_no_file_io(layer: str) -> None:
    bad = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        bad.extend(f"{path.relative_to(PACKAGE.parent)} {c}" for c in _io_calls(path))
    assert not bad, "\n".join(bad)


def test_the_checks_see_relative_imports_and_file_io(tmp_path: Path) -> None:
    # The scanners themselves, on a module written here: a relative import reaching up into
    # net/ and a file read must both be found.
    fake = PACKAGE / "protocol" / "_layers_probe.py"
    source = "from ..net import host\nfrom . import codec\nopen('x').read()\nP.read_text()\n"
    copy = tmp_path / "probe.py"
    copy.write_text(source, encoding="utf-8")
    names = _imports(copy, where=fake)
    assert {"localdurak.net", "localdurak.net.host", "localdurak.protocol.codec"} <= names
    assert _breaks("localdurak.net.host", FORBIDDEN["protocol"])
    assert [c.split(": ")[1] for c in _io_calls(copy)] == ["open()", ".read_text()"]


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
