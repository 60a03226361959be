"""The event loop the commands run on (localdurak/cli/loop.py): uvloop where installed, asyncio's
own under ``LOCALDURAK_LOOP=asyncio`` or without uvloop."""

from __future__ import annotations

import asyncio
import sys

import pytest

from localdurak.cli import loop


async def _loop_module() -> str:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop()).__module__


def test_commands_run_on_uvloop_where_it_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("uvloop", reason="uvloop is not made for this platform")
    monkeypatch.delenv("LOCALDURAK_LOOP", raising=False)
    assert loop.uvloop_wanted()
    assert loop.run(_loop_module()).startswith("uvloop")


@pytest.mark.parametrize("value", ["asyncio", " ASYNCIO "])
def test_the_environment_picks_asyncios_loop(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("LOCALDURAK_LOOP", value)
    assert not loop.uvloop_wanted()
    assert loop.run(_loop_module()).startswith("asyncio")


def test_without_uvloop_asyncios_loop_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOCALDURAK_LOOP", raising=False)
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop raises ImportError
    assert not loop.uvloop_wanted()
    assert loop.run(_loop_module()).startswith("asyncio")


def test_a_commands_result_and_its_exception_come_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOCALDURAK_LOOP", raising=False)

    async def fails() -> int:
        await asyncio.sleep(0)
        raise KeyboardInterrupt

    async def seven() -> int:
        await asyncio.sleep(0)
        return 7

    assert loop.run(seven()) == 7
    with pytest.raises(KeyboardInterrupt):
        loop.run(fails())


def test_every_command_starts_its_loop_through_loop_run() -> None:
    # A command started with asyncio.run would be the one left on the slower loop.
    from pathlib import Path

    cli = Path(loop.__file__).parent
    starts = [
        f"{p.name}:{n}"
        for p in sorted(cli.glob("*.py"))
        if p.name != "loop.py"
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if "asyncio.run(" in line or "uvloop.run(" in line
    ]
    assert starts == []


def test_a_misspelt_loop_is_said_and_the_default_stands(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("uvloop", reason="uvloop is not made for this platform")
    monkeypatch.setenv("LOCALDURAK_LOOP", "asyncoi")
    with caplog.at_level("WARNING", logger="localdurak.cli"):
        assert loop.uvloop_wanted()
    assert "'asyncoi' is neither asyncio nor uvloop" in caplog.text
    monkeypatch.setenv("LOCALDURAK_LOOP", "uvloop")
    caplog.clear()
    assert loop.uvloop_wanted() and caplog.text == ""
