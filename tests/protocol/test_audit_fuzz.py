"""The audit never crashes (privacy.md "The record and the audit"): a finished game's record
mutated at random — fields dropped, values retyped, points and scalars flipped, entries reordered,
duplicated or dropped — is audited with a verdict (`AuditReport`) or refused as no record
(`NotARecord`), and ``localdurak audit`` exits 0, 1 or 2 with a message, never a traceback.

The quick suite mutates a CI-sized number of records; the ``slow`` test thousands.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from localdurak.cli.main import main
from localdurak.game.rules import Rules
from localdurak.protocol.privacy.audit import AuditReport, NotARecord, audit
from tests.support.net_play import MemoryGame

HEX = "0123456789abcdef"


@pytest.fixture(scope="module")
def base() -> dict[str, Any]:
    # The seats' randomness seeded too (the shuffle, the game id), so every run fuzzes the same
    # game and the counts below do not depend on which deal a run happened to get.
    with mock.patch("os.urandom", random.Random(5).randbytes):
        g = MemoryGame(2, Rules(deck=24), seed=5, names=("Anna", "Boris"))
        g.deal()
        g.play_out()
    record = g.record()
    assert audit(record, require_actions=True).clean
    return record


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in the JSON tree (the root excluded)."""
    out: list[tuple[Any, ...]] = []
    if isinstance(node, dict):
        for k, v in node.items():
            out.append((*path, k))
            out += _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.append((*path, i))
            out += _paths(v, (*path, i))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        node = node[p]
    return node


def _points(record: dict[str, Any]) -> list[str]:
    """Hex strings of the size of a point or scalar (32 bytes): what a flip swaps in."""
    return [
        v
        for p in _paths(record)
        if isinstance(v := _get(record, p), str) and len(v) == 64 and all(c in HEX for c in v)
    ]


def _copy(node: Any) -> Any:
    """A copy of a JSON tree (what `copy.deepcopy` gives, in a fraction of its time)."""
    if isinstance(node, dict):
        return {k: _copy(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_copy(v) for v in node]
    return node


_TREES: dict[int, tuple[dict[str, Any], list[tuple[Any, ...]], list[tuple[Any, ...]]]] = {}


def _base_paths(record: dict[str, Any]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """`_paths` of an unmutated record and those in its privacy section, walked once per
    record (walking and copying the tree took half of the fuzz's time, the audit the rest)."""
    known = _TREES.get(id(record))
    if known is None or known[0] is not record:
        paths = _paths(record)
        known = _TREES[id(record)] = (
            record,
            paths,
            [p for p in paths if p[:1] == ("privacy",)],
        )
    return known[1], known[2]


def mutate(record: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    r = _copy(record)
    for n in range(rng.choice((1, 1, 1, 2, 3))):
        if n == 0:
            paths, inner = _base_paths(record)  # r is still a copy of record
        else:
            paths = _paths(r)
            inner = [p for p in paths if p[:1] == ("privacy",)]
        if not paths:
            break
        # Aim at the privacy transcript and its identity section most of the time: that is
        # where the audit's work (and its crashes) lie.
        path = rng.choice(inner if inner and rng.random() < 0.85 else paths)
        parent = _get(r, path[:-1])
        key = path[-1]
        value = parent[key]
        kind = rng.randrange(9)
        if kind == 0:  # a field dropped, an entry deleted
            del parent[key]
        elif kind == 1:  # retyped
            parent[key] = rng.choice(
                [None, True, 0, -1, 2**70, 1.5, "x", "", [], {}, [value], {"v": value}]
            )
        elif kind == 2 and isinstance(value, str) and value:  # a hex digit (a point) flipped
            i = rng.randrange(len(value))
            c = HEX[(HEX.index(value[i]) + 1) % 16] if value[i] in HEX else "0"
            parent[key] = value[:i] + c + value[i + 1 :]
        elif kind == 3 and isinstance(value, str):  # another valid point or scalar
            points = _points(r)
            if points:
                parent[key] = rng.choice(points)
        elif kind == 4 and isinstance(value, int) and not isinstance(value, bool):
            parent[key] = value + rng.choice((-1, 1, 2, 51, -100))
        elif kind == 5 and isinstance(value, list) and len(value) > 1:  # reordered
            i, j = rng.sample(range(len(value)), 2)
            value[i], value[j] = value[j], value[i]
        elif kind == 6 and isinstance(value, list) and value:  # duplicated
            i = rng.randrange(len(value))
            value.insert(rng.randrange(len(value) + 1), _copy(value[i]))
        elif kind == 7 and isinstance(value, list) and value:  # an entry dropped
            del value[rng.randrange(len(value))]
        elif kind == 8 and isinstance(value, bool):
            parent[key] = not value
        else:
            parent[key] = rng.choice([None, "", 0])
    return r


def check(record: dict[str, Any]) -> str:
    """The audit's verdict on ``record``: it may refuse it, never crash."""
    try:
        report = audit(record, require_actions=True)
    except NotARecord as e:
        assert str(e)
        return "not a record"
    assert isinstance(report, AuditReport)
    for f in report.faults:
        assert isinstance(f.what, str) and f.what
    return "clean" if report.clean else "faults"


def run(base: dict[str, Any], count: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    seen: dict[str, int] = {}
    for i in range(count):
        mutated = mutate(base, rng)
        try:
            verdict = check(mutated)
        except Exception as e:  # the failing record, for the bug report
            raise AssertionError(f"mutation {i} (seed {seed}) crashed the audit: {e!r}") from e
        seen[verdict] = seen.get(verdict, 0) + 1
    return seen


def test_mutated_records_get_a_verdict_never_a_crash(base: dict[str, Any]) -> None:
    seen = run(base, 250, seed=1)
    # The mutations reach every verdict (a fuzz that only hits "not a record" tests little).
    assert seen.get("faults", 0) > 50 and seen.get("not a record", 0) > 10, seen


@pytest.mark.slow
def test_thousands_of_mutated_records_get_a_verdict(base: dict[str, Any]) -> None:
    """``LOCALDURAK_AUDIT_MUTATIONS`` records (3,000 by hand; CI's 15 minutes take 1,500)."""
    count = int(os.environ.get("LOCALDURAK_AUDIT_MUTATIONS", "1500"))
    seen = run(base, count, seed=2)
    assert seen.get("faults", 0) > count // 5, seen


def test_the_cli_answers_every_mutated_record_with_an_exit_code(
    tmp_path: Path, base: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(3)
    path = tmp_path / "game.json"
    codes: set[int] = set()
    for _ in range(40):
        path.write_text(json.dumps(mutate(base, rng)))
        code = main(["audit", str(path)])
        out = capsys.readouterr()
        assert code in (0, 1, 2)
        assert "Traceback" not in out.out + out.err
        assert (out.out if code < 2 else out.err).strip()  # a message every time
        codes.add(code)
    assert codes >= {1, 2}
