"""No traceback from any command, ever (cli.md "Exit status"): every subcommand that
``localdurak --help`` lists, run as a real process with generated arguments (its own options,
read from the parser, with odd values: bad ports, paths that are missing, files or read-only,
odd names, undecodable bytes) and generated environments (odd ``LOCALDURAK_HOME``, ``LANG``,
``LC_ALL``, ``PYTHONIOENCODING``), exits 0, 1 or 2 and prints no "Traceback".

Bounded: advertising and browsing off (``LOCALDURAK_NO_MDNS=1``), standard input not a
terminal, addresses only on loopback ports nobody listens on, and a command still running
after `BOUND_S` (a headless host waiting for players) gets SIGINT, which must end it cleanly
too.  ``LOCALDURAK_CLI_EXAMPLES`` sets how many generated runs (default 25: about half a
minute; each is a process)."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from localdurak.cli.main import COMMAND_MODULES, build_parser
from tests.support.procs import REPO

EXAMPLES = int(os.environ.get("LOCALDURAK_CLI_EXAMPLES", "25"))
BOUND_S = 4.0
"""Seconds a command may run before it is interrupted (SIGINT: it must still end cleanly)."""
GOLDEN = REPO / "tests" / "golden"


def _options() -> dict[str | None, list[tuple[str, bool, tuple[str, ...]]]]:
    """Each subcommand's options (None: the top level, the lobby's), and whether each takes a
    value; positionals as ``""``.  Read from the parser, so a new option is covered at once."""
    parser = build_parser()
    out: dict[str | None, list[tuple[str, bool, tuple[str, ...]]]] = {}
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in [(None, parser), *sub.choices.items()]:
        out[name] = [
            (
                a.option_strings[-1] if a.option_strings else "",
                a.nargs != 0,
                tuple(str(c) for c in a.choices or ()),
            )
            for a in p._actions
            if not isinstance(a, argparse._SubParsersAction | argparse._HelpAction)
        ]
    return out


OPTIONS = _options()
NAMES = sorted(n for n in OPTIONS if n is not None)


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """Paths the generated arguments and environments pick from."""
    base = tmp_path_factory.mktemp("odd")
    made = {
        "missing": base / "no" / "such" / "dir",
        "file": base / "a-file",
        "empty": base / "empty.json",
        "junk": base / "junk.json",
        "dir": base / "a-dir",
        "unicode": base / "Кухня 桌 ä",
        "readonly": base / "readonly",
        "record": next(GOLDEN.glob("*.record.json")),
    }
    made["file"].write_text("not a folder")
    made["empty"].write_bytes(b"")
    made["junk"].write_bytes(b'{"format": \xff\xfe [1, 2\x00')
    made["dir"].mkdir()
    made["unicode"].mkdir()
    made["readonly"].mkdir()
    # A read-only home with an identity in it (made first), as a read-only bind mount: root
    # ignores file modes.  Without root (no mount), the variant is just another folder.
    subprocess.run(
        [sys.executable, "-m", "localdurak", "identity"],
        env={**os.environ, "LOCALDURAK_HOME": str(made["readonly"]), "PYTHONPATH": str(REPO)},
        capture_output=True,
        timeout=60,
    )
    mounted = False
    if os.geteuid() == 0:
        r = subprocess.run(["mount", "--bind", "-o", "ro", str(made["readonly"]),
                            str(made["readonly"])], capture_output=True)  # fmt: skip
        mounted = r.returncode == 0
        if mounted:  # older mounts ignore "ro" on the first bind: make it read-only now
            subprocess.run(["mount", "-o", "remount,bind,ro", str(made["readonly"])])
    try:
        yield made
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(made["readonly"])], capture_output=True)


ODD_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=12,
)
VALUES = st.one_of(
    st.sampled_from(
        [
            "0",
            "-1",
            "1",
            "2",
            "7",
            "65535",
            "65536",
            "70000",
            "99999999999999999999",
            "1e9",
            "nan",
            "inf",
            "-inf",
            "0.0001",
            "",
            " ",
            "-",
            "--",
            "..",
            "/",
            "abc",
            "ru",
            "zh",
            "xx",
            "strong",
            "random",
            "podkidnoy",
            "perevodnoy",
            "duren",
            "36",
            "52",
            "127.0.0.1:1",
            "127.0.0.1:70000",
            "[::1]:1",
            "[::1",
            "localhost:0",
            ":1",
            "ab" * 32,
            "AB:CD",
            "Кухня",
            "桌子",
            "a\tb",
            "$(x)",
            "%s%n",
            "\u202etxet",
        ]
    ),
    st.integers(-(2**70), 2**70).map(str),
    ODD_TEXT,
)
PATHS = st.sampled_from(["missing", "file", "empty", "junk", "dir", "unicode", "readonly",
                         "record"])  # fmt: skip
LOCALES = st.sampled_from(
    [None, "C", "POSIX", "C.UTF-8", "en_US.UTF-8", "ru_RU.UTF-8", "uk_UA.KOI8-U",
     "pl_PL.ISO-8859-2", "zh_TW.Big5", "zh_Hant", "xx_YY.bogus", "", "de", "ru"]
)  # fmt: skip


BASE: dict[str | None, list[str | bytes]] = {
    "host": ["--headless", "--port", "0", "--seats", "2"],
    "join": ["--bot", "--address", "127.0.0.1:1", "--timeout", "0.5"],
    "replay": ["@record"],
    "audit": ["@record"],
    "tables": ["--timeout", "0.3"],
}
"""Arguments that make each command run for real (then the odd ones are added)."""


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[str | bytes], dict[str, str | None], str | None]:
    command = draw(st.sampled_from([None, *NAMES]))
    argv: list[str | bytes] = [] if command is None else [command]
    if draw(st.booleans()):  # a run that gets somewhere, before the odd options
        argv += BASE.get(command, [])
    options = OPTIONS[command]
    for option, takes_value, choices in draw(st.lists(st.sampled_from(options), max_size=4)):
        if option:
            argv.append(option)
        if takes_value or not option:
            kind = draw(st.sampled_from(["value", "value", "path", "bytes", "choice"]))
            if kind == "choice" and choices:
                argv.append(draw(st.sampled_from(choices)))
            elif kind == "path":
                argv.append("@" + draw(PATHS))  # resolved against `places` in the test
            elif kind == "bytes":  # not UTF-8: argv arrives with surrogate escapes
                argv.append(b"\xff\xfe" + draw(st.binary(max_size=4)).replace(b"\x00", b""))
            else:
                argv.append(draw(VALUES))
    env = {
        "LANG": draw(LOCALES),
        "LC_ALL": draw(LOCALES),
        "PYTHONIOENCODING": draw(st.sampled_from([None, None, "ascii", "latin-1", "utf-8"])),
    }
    home = draw(st.one_of(PATHS.map(lambda p: "@" + p), ODD_TEXT, st.just("~nobody-x/y")))
    return argv, env, home


def _resolve(value: str | bytes, places: dict[str, Path]) -> str | bytes:
    if isinstance(value, str) and value.startswith("@") and value[1:] in places:
        return str(places[value[1:]])
    return value


def run_cli(
    argv: list[str | bytes], env: dict[str, str | None], home: str | None, cwd: Path
) -> tuple[int, str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    full.update(
        PYTHONPATH=str(REPO),
        LOCALDURAK_NO_MDNS="1",
        HOME=str(cwd),  # an empty LOCALDURAK_HOME means the default folder: keep it here
        XDG_DATA_HOME=str(cwd / "xdg"),
    )
    full.pop("LOCALDURAK_HOME", None)
    if home is not None:
        full["LOCALDURAK_HOME"] = home
    for key, value in env.items():
        if value is not None:
            full[key] = value
    p = subprocess.Popen(
        [sys.executable, "-m", "localdurak", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=full,
        cwd=cwd,
    )
    try:
        out, _ = p.communicate(timeout=BOUND_S)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGINT)
        try:
            out, _ = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
            return -9, out.decode("utf-8", "replace") + "\n(did not end after SIGINT)"
    return p.returncode, out.decode("utf-8", "replace")


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
# Tracebacks found by this test, kept as examples (each was one before its fix).
@example(case=(["host", "--headless", "--port", "0", "--name", "x" * 300], {}, "@dir"))
@example(case=(["join", "--bot", "--address", "x" * 70 + ":1"], {}, "@dir"))
@example(case=(["join", "--bot", "--address", "127.0.0.1:1", "--fingerprint", "abc"], {}, "@dir"))
@example(case=(["replay", "/dev/zero"], {}, "@dir"))
@example(case=(["host", "--resume", "/dev/zero"], {}, "@dir"))
@example(case=(["rules", "--lang", "ru"], {"PYTHONIOENCODING": "ascii"}, "@dir"))
@example(case=(["host", "--headless", "--port", "0", "--name", b"\xff"], {}, "@dir"))
@example(case=([], {}, "@dir"))  # the lobby, no terminal
@given(case=runs())
def test_no_command_prints_a_traceback(
    case: tuple[list[str | bytes], dict[str, str | None], str | None],
    places: dict[str, Path],
    tmp_path: Path,
) -> None:
    argv, env, home = case
    argv = [_resolve(a, places) for a in argv]
    resolved_home = _resolve(home, places) if home is not None else None
    assert not isinstance(resolved_home, bytes)
    code, out = run_cli(argv, env, resolved_home, tmp_path)
    first = argv[0] if argv and isinstance(argv[0], str) else ""
    event(f"{first if first in OPTIONS else 'top'}: exit {code}")
    assert "Traceback" not in out, (argv, env, home, out[-3000:])
    assert code in (0, 1, 2), (argv, env, home, code, out[-3000:])


@pytest.mark.parametrize("command", [None, *COMMAND_MODULES, "identity"])
def test_every_command_s_help_in_every_odd_encoding(command: str | None, tmp_path: Path) -> None:
    """``--help`` of each subcommand, in Russian or Chinese, to an ASCII-only output."""
    argv: list[str | bytes] = ([] if command is None else [command]) + ["--help"]
    lang = "zh" if len(command or "") % 2 else "ru"
    code, out = run_cli([*argv, "--lang", lang], {"PYTHONIOENCODING": "ascii"}, None, tmp_path)
    assert code == 0 and "Traceback" not in out, out[-3000:]
    assert "?" in out  # the letters ASCII cannot hold, replaced
