"""The network's reasons in the player's language: a broken connection, the host's refusals,
the lobby's "cannot look for tables" (localdurak/cli/net_words.py).

Every reason the network layer words for a player (the host's refusals, the connection's
breaks, the version and certificate checks, the offline table's) is read from the source, its
placeholders filled in, and must come out in each language; a real refusal from a real host
and a real unreachable address reach the screen in Russian."""

from __future__ import annotations

import ast
import asyncio
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input

from localdurak.cli import i18n
from localdurak.cli.app import DurakApp
from localdurak.cli.lobby import Lobby, NoTables
from localdurak.cli.net_words import net_reason, net_sentence
from localdurak.game.rules import Rules
from localdurak.net import transport
from localdurak.net.api import TableError
from localdurak.net.client import Address, ClientSession
from localdurak.net.host import CANNOT_SAVE, PAUSED_TEXT, HostOptions, TableHost
from localdurak.net.identity import Identity, load_or_create
from tests.support.cli_helpers import FixedOutput, rendered

ROOT = Path(__file__).resolve().parents[2] / "localdurak"
LANGUAGES = ["ru", "uk", "pl", "zh_Hant"]

# The exceptions whose text a player reads (a refusal of the table, the connection, the
# versions, the certificate); the protocol's own violations (BadMessage, Cheated, ...) are a
# program's fault, shown as they are.
SAID_BY = {
    "TableFull",
    "Unavailable",
    "BadPin",
    "TooManyAttempts",
    "Forbidden",
    "NotYourTurn",
    "ConnectionClosed",
    "VersionTooOld",
    "VersionTooNew",
    "FingerprintMismatch",
    "DiscoveryUnavailable",
    "ActionRefused",
    "TableError",
    "SessionClosed",
}
# A placeholder whose value the sentence names (the rest take "7", a number or a word).
SAMPLES = {"what": "wrong PIN", "kind.TYPE": "'hello'", "e.reason": "the game is over"}


@pytest.fixture(autouse=True)
def _english_after() -> Iterator[None]:
    yield
    i18n.set_language("en")


def _render(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
            else:
                assert isinstance(part, ast.FormattedValue)
                source = ast.unparse(part.value)
                value = SAMPLES.get(source, "7")
                out.append(repr(value) if part.conversion == ord("r") and value == "7" else value)
        return "".join(out)
    return None


@functools.cache
def said_reasons() -> frozenset[str]:
    """Every reason a player can read, as the code words it, from net/ and protocol/ (and
    the closing words of the host)."""
    reasons = {PAUSED_TEXT, CANNOT_SAVE, f"{CANNOT_SAVE}: No space left on device"}
    for path in [
        *(ROOT / "net").glob("*.py"),
        *(ROOT / "protocol").glob("*.py"),
        *(ROOT / "protocol" / "table").glob("*.py"),  # the lobby rules (table/lobby.py)
    ]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            f = node.func
            name = (
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
            text = _render(node.args[0]) if name in SAID_BY else None
            if name == "close" and path.name.startswith("host"):
                text = _render(node.args[0])
            if text:
                reasons.add(text)
    return frozenset(reasons)


def test_the_reasons_a_player_reads_are_found_in_the_source() -> None:
    reasons = said_reasons()
    assert len(reasons) > 35
    assert "every seat at this table is taken" in reasons
    assert "the connection broke while sending: 7" in reasons
    assert "the series is over" in reasons


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_reason_a_player_reads_is_in_the_language(code: str) -> None:
    i18n.set_language(code)
    english = [r for r in sorted(said_reasons()) if net_reason(r) == r]
    assert not english, f"{code}: these stay English: {english}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_reason_inside_a_reason_is_said_too(code: str) -> None:
    # The ▶ line when the table cannot be reached mid-game (the empty reason of a reset
    # connection has words since last session: transport._why).
    broke = f"the connection broke while sending: {transport._why(ConnectionResetError())}"
    text = f"the table cannot be reached: {broke}"
    i18n.set_language("en")
    other = {
        w
        for w in ("reached", "broke", "sending", "reset")
        if w in net_reason(text)  # the English words, to be gone in the language
    }
    i18n.set_language(code)
    said = net_sentence(text)
    assert not any(w in said for w in other), said
    assert said[:1] == said[:1].upper()
    # Names and numbers stay: an address, seconds, attempts.
    assert "192.0.2.7:47823" in net_reason("no answer from 192.0.2.7:47823 within 10 s")
    assert "2" in net_reason("this table wrong PIN: ask the host for it (2 attempt(s) left)")


def test_english_reads_as_before_where_it_was_good() -> None:
    i18n.set_language("en")
    for text in ("every seat at this table is taken", "the connection broke: the peer left: x"):
        assert net_reason(text).startswith(text.split(":")[0])
    # ... and better where the host's sentence was broken ("this table wrong PIN").
    assert net_reason("this table wrong PIN: ask the host for it (1 attempt(s) left)") == (
        "wrong PIN: ask the host for it (1 attempt left)"
    )
    assert net_reason("something nobody knows") == "something nobody knows"


def _options(tmp_path: Path) -> HostOptions:
    return HostOptions(
        name="Kitchen",
        seats=2,
        rules=Rules(),
        bots=1,
        record_dir=tmp_path / "records",
        host="127.0.0.1",
        port=0,
        advertise=False,
        challenge_window=0.0,
    )


async def test_a_full_tables_refusal_from_a_real_host_in_russian(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path / "home"))
    host = TableHost(load_or_create(tmp_path / "host"), _options(tmp_path))
    await host.start()
    serving = asyncio.get_running_loop().create_task(host.run())
    where = Address("127.0.0.1", host.port)
    vera = ClientSession(Identity.ephemeral("Vera"), "Vera", where, state_dir=tmp_path / "v")
    await vera.start()  # the last free seat
    late = ClientSession(Identity.ephemeral("Ivan"), "Ivan", where, state_dir=tmp_path / "i")
    with pytest.raises(TableError) as refused:
        await late.async_join()
    i18n.set_language("ru")
    assert net_sentence(refused.value.reason) == "Все места за этим столом заняты"
    await vera.close()
    await host.close()
    await asyncio.wait_for(serving, 10)


async def test_the_lobby_says_why_an_address_cannot_be_joined_in_russian(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LOCALDURAK_NO_MDNS", "1")
    i18n.set_language("ru")
    with create_pipe_input() as pipe:
        lobby = Lobby("Anna", NoTables(), bot_delay=0)
        app = DurakApp(lobby=lobby, input=pipe, output=FixedOutput())
        task = asyncio.get_running_loop().create_task(app.run_async())
        want = "там никто не отвечает"
        loop = asyncio.get_running_loop()
        end = loop.time() + 10
        screen = ""
        sent = False
        while loop.time() < end and want not in screen:
            screen = await rendered(app.application, 2)
            if not sent and "HOST:PORT" not in screen:
                pipe.send_text("a")
                await rendered(app.application, 2)
                pipe.send_text("127.0.0.1:9\r")  # nobody listens on the discard port
                sent = True
        # The table's name stands alone ("за стол «…»", never declined); the line wraps
        # inside the box after "к", before the address.
        flat = re.sub(r"\s*│\n│\s*", " ", screen)
        assert "Не удалось сесть за стол «127.0.0.1:9»: не удалось подключиться к 127.0.0.1:9" in (
            flat
        ), screen
        assert want in screen and "Connect call" not in screen and "refused" not in screen
        pipe.send_text("q")
        await asyncio.wait_for(task, 10)


def test_a_script_without_the_pin_is_told_in_russian(tmp_path: Path) -> None:
    """`join --bot --lang ru` at a table with a PIN: the host's refusal and the hint, both in
    Russian, on standard error (exit 1)."""
    import time

    from tests.net.test_e2e import host
    from tests.support.procs import Proc, env_for, localdurak

    procs: list[Proc] = []
    try:
        h = host(tmp_path, procs, "--seats", "2", "--pin", "4821")
        listening = h.event("listening")
        p = Proc(
            localdurak(
                "join", "--bot", "--lang", "ru", "--address", f"127.0.0.1:{listening['port']}"
            ),
            env_for(tmp_path / "vera"),
            "vera",
        )
        procs.append(p)
        assert p.wait(30) == 1
        for _ in range(50):  # the reader thread may still be reading its last words
            if "--pin" in "".join(p.stderr):
                break
            time.sleep(0.05)
        err = "".join(p.stderr)
        assert "этот стол просит PIN: спросите его у хозяина стола" in err, err
        assert "укажите его через --pin" in err and "ask the host" not in err, err
    finally:
        for q in procs:
            q.kill()


# The host's own refusals at its command line (`localdurak host`, `--resume`), the port it
# cannot listen on, this device's identity: raised as plain exceptions, said by the CLI.
HOST_SAYS = {
    "host": {"ValueError", "OSError", "FileNotFoundError", "TableInUse"},
    "table_store": {"ValueError", "OSError", "FileNotFoundError", "TableInUse"},
    "transport": {"PortInUse"},
    "identity": {"IdentityError"},
}
# Where a sentence continues only when there is more to say (its value is said apart).
HOST_SAMPLES = {"where": "", "then": ""}


@functools.cache
def host_refusals() -> frozenset[str]:
    """Every sentence `localdurak host` (and join, identity) prints from those exceptions, as
    the code words it (an OSError's reason is its second argument)."""
    out: set[str] = set()
    SAMPLES.update(HOST_SAMPLES)
    try:
        for path in sorted((ROOT / "net").glob("*.py")):
            kinds = HOST_SAYS.get("host" if path.stem.startswith("host") else path.stem, set())
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                f = node.func
                name = f.id if isinstance(f, ast.Name) else ""
                if name not in kinds:
                    continue
                args = node.args
                text = _render(args[1] if "Error" in name and len(args) > 1 else args[0])
                if text:
                    out.add(text)
    finally:
        for key in HOST_SAMPLES:
            SAMPLES.pop(key)
    return frozenset(out)


def test_the_hosts_own_refusals_are_found_in_the_source() -> None:
    said = host_refusals()
    assert "the table's event log is empty or damaged from its start" in said
    assert "no such journal" in said
    assert any(s.startswith("cannot listen on ") for s in said)
    assert any("Ed25519 key" in s for s in said)


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_refusal_of_the_host_command_is_in_the_language(code: str) -> None:
    i18n.set_language(code)
    english = [r for r in sorted(host_refusals()) if net_reason(r) == r]
    assert not english, f"{code}: these stay English: {english}"
    # The operating system's words inside them too (its strerror is English everywhere).
    for why in ("Address already in use", "Permission denied", "No such file or directory"):
        said = net_reason(f"cannot listen on 0.0.0.0:47823: {why}; choose another port with --port")
        assert why not in said and "0.0.0.0:47823" in said, said
