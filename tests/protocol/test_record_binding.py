"""Records bound to people, tamper-evident (docs/privacy.md "Who played"; docs/records.md "privacy",
docs/privacy.md "Who played").

Each attack rewrites a finished game's record as a host (who writes the record) could, and
the audit must show it at once, naming the host/record (``seat`` None) and no seat: nothing in
a rewritten record shows that a player did anything.  The games are real: a host replica and
seat replicas joined in memory, every step signed by the seat's identity key.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from localdurak.cli.main import main
from localdurak.game.rules import Rules
from localdurak.protocol.privacy import roles
from localdurak.protocol.privacy.audit import AuditReport, audit
from localdurak.protocol.privacy.shuffle import proof_size_v1
from localdurak.protocol.signing import key_fingerprint
from tests.support.net_play import MemoryGame
from tests.support.shuffle_v1 import shuffle_prove_v1

NAMES = ("Anna", "Boris", "Vera")


def played(seed: int = 3, names: tuple[str, ...] = NAMES) -> MemoryGame:
    g = MemoryGame(len(names), Rules(), seed=seed, names=names)
    g.deal()
    g.play_out()
    return g


@pytest.fixture(scope="module")
def game() -> MemoryGame:
    return played()


@pytest.fixture
def record(game: MemoryGame) -> dict[str, Any]:
    return copy.deepcopy(game.record())


def blames_the_record_only(report: AuditReport) -> None:
    """The verdict every rewrite must get: faults, none on a seat."""
    assert report.faults, "the rewrite went unnoticed"
    assert report.guilty == (), f"an honest seat was named: {report.faults}"
    assert all(f.seat is None for f in report.faults)


def drop_step(record: dict[str, Any], k: int) -> dict[str, Any]:
    """Delete signed step ``k`` and its privacy messages from the record, as a host that wrote
    the record without it would (the positions of the other steps renumbered)."""
    p = record["privacy"]
    ident = p["identity"]
    step = ident["steps"].pop(k)
    gone = set(step["at"])
    new_index: dict[int, int] = {}
    log = []
    for i, m in enumerate(p["log"]):
        if i not in gone:
            new_index[i] = len(log)
            log.append(m)
    p["log"] = log
    for s in ident["steps"]:
        s["at"] = [new_index[i] for i in s["at"]]
    return record


def test_an_untouched_record_is_clean_and_says_who_played(
    game: MemoryGame, record: dict[str, Any]
) -> None:
    report = audit(record, require_actions=True)
    assert report.clean, report.faults
    assert report.unchecked == ()
    assert [(s.seat, s.name) for s in report.seats] == list(enumerate(NAMES))
    assert [s.fingerprint for s in report.seats] == [key_fingerprint(k) for k in game.started.keys]
    assert record["privacy"]["format"] == "localdurak-privacy/6"


def test_result_rewritten(record: dict[str, Any]) -> None:
    durak = record["result"]["durak"]
    other = [s for s in range(3) if s not in durak][:1]
    record["result"] = {"durak": other, "draw": False, "pogony": 0}
    report = audit(record)
    blames_the_record_only(report)
    assert any("result" in f.what for f in report.faults)


def test_result_rewritten_to_a_draw(record: dict[str, Any]) -> None:
    record["result"] = {"durak": [], "draw": True, "pogony": 0}
    blames_the_record_only(audit(record))


def test_names_rewritten(record: dict[str, Any]) -> None:
    record["names"] = ["Anna", "Gleb", "Vera"]
    report = audit(record)
    blames_the_record_only(report)
    assert any("names" in f.what for f in report.faults)


def test_names_rewritten_in_the_signed_setup_too(record: dict[str, Any]) -> None:
    """Rewriting the identity section's names as well breaks every signature: each seat
    signed its steps under the names it was told."""
    record["names"] = record["privacy"]["identity"]["names"] = ["Anna", "Gleb", "Vera"]
    report = audit(record)
    blames_the_record_only(report)
    assert any("identity signature" in f.what for f in report.faults)


def test_rules_rewritten(record: dict[str, Any]) -> None:
    record["rules"] = {"variant": "perevodnoy"}
    report = audit(record)
    blames_the_record_only(report)
    assert any("rules" in f.what for f in report.faults)


def test_rules_rewritten_in_the_signed_setup_too(record: dict[str, Any]) -> None:
    record["rules"] = record["privacy"]["identity"]["rules"] = {"trump_show": True}
    blames_the_record_only(audit(record))


def test_seats_rewritten(record: dict[str, Any]) -> None:
    record["seats"] = 2
    blames_the_record_only(audit(record))


def _last_action_step(record: dict[str, Any]) -> int:
    steps = record["privacy"]["identity"]["steps"]
    return max(k for k, s in enumerate(steps) if s["step"] in ("play", "act"))


def test_last_signed_action_deleted(record: dict[str, Any]) -> None:
    """The host drops the game's last action (its step, its messages and the action): the
    seat's counters show the gap before its key reveal, and the result is no longer the one
    the actions lead to."""
    k = _last_action_step(record)
    seat = record["privacy"]["identity"]["steps"][k]["seat"]
    drop_step(record, k)
    record["actions"].pop()
    report = audit(record)
    blames_the_record_only(report)
    assert any(f"seat {seat} " in f.what and "not in the record" in f.what for f in report.faults)


def test_last_signed_action_deleted_with_everything_after_it(record: dict[str, Any]) -> None:
    """Cut the record after the last action's predecessor: the key reveals go too, so the
    audit cannot decode the deck — it says what it cannot check, and blames nobody."""
    k = _last_action_step(record)
    steps = record["privacy"]["identity"]["steps"]
    while len(steps) > k:
        drop_step(record, len(steps) - 1)
    record["actions"].pop()
    report = audit(record)
    blames_the_record_only(report)


def test_a_middle_step_deleted(record: dict[str, Any]) -> None:
    steps = record["privacy"]["identity"]["steps"]
    k = next(k for k, s in enumerate(steps) if s["step"] in ("play", "act"))
    seat, n = steps[k]["seat"], steps[k]["n"]
    drop_step(record, k)
    record["actions"].pop(0)
    report = audit(record)
    blames_the_record_only(report)
    assert any(f"#{n}" in f.what and f"seat {seat} " in f.what for f in report.faults)


def test_steps_reordered(record: dict[str, Any]) -> None:
    steps = record["privacy"]["identity"]["steps"]
    mine = [k for k, s in enumerate(steps) if s["seat"] == 1]
    steps[mine[0]], steps[mine[1]] = steps[mine[1]], steps[mine[0]]
    blames_the_record_only(audit(record))


def test_a_step_duplicated(record: dict[str, Any]) -> None:
    steps = record["privacy"]["identity"]["steps"]
    steps.append(copy.deepcopy(steps[5]))
    blames_the_record_only(audit(record))


def test_a_dropped_key_reveal_names_nobody(record: dict[str, Any]) -> None:
    """Once, dropping an honest seat's key reveal from the log named that seat.  Now the
    key is reported missing, and nobody is judged for it."""
    steps = record["privacy"]["identity"]["steps"]
    k = next(k for k, s in enumerate(steps) if s["step"] == "key" and s["seat"] == 2)
    drop_step(record, k)
    report = audit(record)
    blames_the_record_only(report)
    assert report.missing_keys == (2,)
    assert any("without every key" in u for u in report.unchecked)


def test_a_fabricated_game_under_the_players_names(game: MemoryGame) -> None:
    """The host plays a whole game alone under the real players' names.  It cannot sign with
    their identity keys: with its own keys the record is consistent, but the fingerprints the
    audit prints are not the players' (so nobody can say "this is the game I played"); with
    the players' real keys written in, no signature checks."""
    fake = played(seed=11)
    record = fake.record()
    report = audit(record)
    assert report.clean
    assert [s.name for s in report.seats] == list(NAMES)
    real = [key_fingerprint(k) for k in game.started.keys]
    assert all(s.fingerprint not in real for s in report.seats)
    # The same fabrication claiming the real players' identity keys.
    forged = copy.deepcopy(record)
    forged["privacy"]["identity"]["keys"] = [k.hex() for k in game.started.keys]
    report = audit(forged)
    blames_the_record_only(report)
    assert any("identity signature" in f.what for f in report.faults)
    assert [s.fingerprint for s in report.seats] == real


def test_identity_section_removed_is_said(record: dict[str, Any]) -> None:
    """Dropping the identity section (a /4 record) does not make a record pass as one that
    never had it: it is not a record of this format."""
    del record["privacy"]["identity"]
    with pytest.raises(ValueError, match="identity"):
        audit(record)


def test_an_older_record_says_what_it_cannot_check(record: dict[str, Any]) -> None:
    """A transcript without the identity section (as privacy/3 was written) still audits; the
    report says it cannot show who played."""
    del record["privacy"]["identity"]
    record["privacy"]["format"] = "localdurak-privacy/3"
    report = audit(record)
    assert report.clean
    assert report.seats == ()
    assert any("who played" in u for u in report.unchecked)


def test_the_cli_prints_who_played(
    tmp_path: Path, game: MemoryGame, record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert main(["audit", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "clean"
    for seat, (name, key) in enumerate(zip(NAMES, game.started.keys, strict=True)):
        assert f"seat {seat}: {name}, identity {key_fingerprint(key)}" in out
    record["result"] = {"durak": [], "draw": True, "pogony": 0}
    path.write_text(json.dumps(record))
    assert main(["audit", str(path)]) == 1
    out = capsys.readouterr().out
    assert "result" in out and "identity" in out


def test_a_record_with_first_version_proofs_of_shuffle_still_audits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A game recorded before the proofs of shuffle proved the chain's links as one
    # combination (localdurak-privacy/5): every check still runs on it, and it is clean.
    monkeypatch.setattr(roles, "shuffle_prove", shuffle_prove_v1)
    old = copy.deepcopy(played(seed=4).record())
    old["privacy"]["format"] = "localdurak-privacy/5"
    stages = [m for m in old["privacy"]["log"] if m["kind"] == "shuffle"]
    assert stages and all(
        len(bytes.fromhex(m["shuffle_proof"])) == proof_size_v1(36) for m in stages
    )
    report = audit(old, require_actions=True)
    assert report.clean, report.faults
    assert report.unchecked == ()
