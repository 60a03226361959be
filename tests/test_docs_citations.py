"""Every document and rule id the code cites is in the repository: each ``<name>.md`` named in
localdurak/, tests/, benchmarks/, docs/ or the README exists (a bare name in docs/ or at the
root, a path from the root), and each rule id (``R-B4c``, or ``R_B4c`` in a test's name) is a
rule of docs/rules.md, its lettered part included; each repository path cited in full
(``localdurak/net/host.py``, ``tests/golden/``) exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RULES = DOCS / "rules.md"

SCANNED = ("localdurak", "tests", "benchmarks", "docs")
SUFFIXES = {".py", ".po", ".md", ".txt", ".toml"}
# A .md name, with the path before it if any: ``docs/protocol.md``, ``records.md``.
CITATION = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+\.md)\b")
# ``R-B4c`` in prose, ``R_B4c`` in a test's name; the part letter only when no letter follows.
RULE_ID = re.compile(r"(?<![A-Za-z0-9])R[-_]([A-Z])(\d+)([a-z](?![A-Za-z]))?")
RULE_DEFINITION = re.compile(r"\*\*R-([A-Z]\d+)\*\*")
# A path from the repository's root: ``localdurak/game/engine.py``, ``tests/soak/``.
REPO_PATH = re.compile(
    r"(?<![\w./-])((?:localdurak|tests|benchmarks|docs)/(?:[\w.-]+/)*"
    r"(?:[\w.-]+\.(?:py|md|json|jsonl|txt|po|toml|rst)\b|(?=[\s`)]|$)))"
)
# Files of other projects named in docs/architecture.md (what we take from whom).
ELSEWHERE = {"tests/test_circular_imports.py", "tests/test_cli.py", "docs/client-protocol.rst"}


def _files() -> list[Path]:
    out = [ROOT / "README.md"]
    for top in SCANNED:
        out += [
            p
            for p in sorted((ROOT / top).rglob("*"))
            if p.is_file() and p.suffix in SUFFIXES and "__pycache__" not in p.parts
        ]
    return out


def _rules() -> dict[str, str]:
    """Each rule id of docs/rules.md and its text (up to the next rule or heading)."""
    text = RULES.read_text(encoding="utf-8")
    found = list(RULE_DEFINITION.finditer(text))
    rules = {}
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        heading = text.find("\n#", m.end())
        if heading != -1:
            end = min(end, heading)
        rules[m.group(1)] = text[m.end() : end]
    return rules


def _resolves(citation: str) -> bool:
    if citation.startswith("../"):
        return False  # outside the repository
    if "/" in citation:
        return (ROOT / citation.removeprefix("./")).is_file()
    return (DOCS / citation).is_file() or (ROOT / citation).is_file()


def test_every_cited_document_is_in_the_repository() -> None:
    missing = []
    for path in _files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            for m in CITATION.finditer(line):
                if not _resolves(m.group(1)):
                    missing.append(f"{path.relative_to(ROOT)}:{n}: {m.group(1)}")
    assert not missing, "cited documents that are not in the repository:\n" + "\n".join(missing)


def test_every_cited_repository_path_exists() -> None:
    missing = []
    for path in _files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            for m in REPO_PATH.finditer(line):
                cited = m.group(1)
                if cited in ELSEWHERE:
                    continue
                if not (ROOT / cited).exists():
                    missing.append(f"{path.relative_to(ROOT)}:{n}: {cited}")
    assert not missing, "cited paths that are not in the repository:\n" + "\n".join(missing)


def test_every_cited_rule_id_is_a_rule_of_the_rule_book() -> None:
    rules = _rules()
    bad = []
    for path in _files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            for m in RULE_ID.finditer(line):
                rule, part = m.group(1) + m.group(2), m.group(3)
                if rule not in rules:
                    bad.append(f"{path.relative_to(ROOT)}:{n}: R-{rule} is not in rules.md")
                elif part and f"({part})" not in rules[rule]:
                    bad.append(f"{path.relative_to(ROOT)}:{n}: R-{rule} has no part ({part})")
    assert not bad, "\n".join(bad)


def test_the_scanners_find_what_they_look_for() -> None:
    # Both patterns, on lines written here, so an empty scan cannot pass for a clean one.
    line = "see docs/protocol.md §5 and records.md; test_R_B4c_limits, R-B10a, R-S5."
    assert [m.group(1) for m in CITATION.finditer(line)] == ["docs/protocol.md", "records.md"]
    paths = "`localdurak/net/host.py`, tests/golden/ and the tag localdurak/schnorr/v1"
    assert [m.group(1) for m in REPO_PATH.finditer(paths)] == [
        "localdurak/net/host.py",
        "tests/golden/",
    ]
    ids = [m.group(1) + m.group(2) + (m.group(3) or "") for m in RULE_ID.finditer(line)]
    assert ids == ["B4c", "B10a", "S5"]
    assert "(c)" in _rules()["B4"] and len(_rules()) >= 40
    outside = "../shared/spec/" + "rules.md"  # split, or the scan would find it here
    assert not _resolves(outside) and _resolves("docs/rules.md")
