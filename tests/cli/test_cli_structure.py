"""The client's rooms (README "Layout"): a controller that app, keys and lobby use, no import circle
among them, the lobby not reaching into the application's private parts, no duck-typing of the
session, the protocol's errors never caught by the client, and the network session's view
built once per change."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

from localdurak.net.client import Address, ClientSession
from localdurak.net.identity import Identity

CLI = Path(__file__).parent.parent.parent / "localdurak" / "cli"


def _imports(module: str) -> set[str]:
    """The localdurak.cli modules ``module`` imports, anywhere in it (also in functions and
    under TYPE_CHECKING: a circle there is a circle of ideas too)."""
    tree = ast.parse((CLI / f"{module}.py").read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            name = node.module
            if name == "localdurak.cli":
                out.update(a.name for a in node.names)
            elif name.startswith("localdurak.cli."):
                out.add(name.removeprefix("localdurak.cli.").split(".")[0])
    return out


def test_no_import_circle_among_app_keys_lobby_and_the_controller() -> None:
    assert "app" not in _imports("keys") and "app" not in _imports("lobby")
    assert not {"app", "keys", "lobby"} & _imports("controller")
    assert "controller" in _imports("keys") and "controller" in _imports("app")


def test_the_lobby_calls_nothing_private_of_the_application() -> None:
    tree = ast.parse((CLI / "lobby.py").read_text(encoding="utf-8"))
    private = [
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Attribute)
        and n.value.attr == "app"
        and n.attr.startswith("_")
    ]
    assert private == []


def test_the_client_neither_duck_types_the_session_nor_catches_protocol_errors() -> None:
    for path in CLI.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        calls = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id in ("getattr", "hasattr")
            and not (path.name == "main.py" or path.name == "logs.py")
        ]
        assert calls == [], f"{path.name} duck-types with getattr/hasattr"
        assert "ProtocolError" not in text, f"{path.name} catches the protocol's errors"
        assert "localdurak.protocol.errors" not in text, path.name


async def test_the_network_session_builds_its_view_once_per_change() -> None:
    session = ClientSession(Identity.ephemeral("Anna"), "Anna", Address("127.0.0.1", 9))
    assert session.view is None

    class Replica:
        builds = 0

        def view(self) -> object:
            Replica.builds += 1
            return object()

    session.game = Replica()  # type: ignore[assignment]
    first = session.view
    for _ in range(21):  # the screen reads it many times a frame
        assert session.view is first
    assert Replica.builds == 1
    session.notify()  # an event applied: a new view
    assert session.view is not first and Replica.builds == 2
    await asyncio.sleep(0)
