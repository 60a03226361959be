"""A forging host alters an honest seat's proof of shuffle in the record.  A stage's
Schnorr signature (its privacy key) covers a second-version proof with its decks
(`transcript.shuffle_digest`), so the altered proof is nobody's and the audit names no seat;
a first-version stage's signature covers the decks alone, and there the identity signature
over the step is what binds the proof to its seat.  The verdict a rewrite must get: faults,
none on a seat (as in tests/protocol/test_record_binding.py)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from localdurak.game.rules import Rules
from localdurak.protocol.privacy.audit import audit
from tests.support.net_play import MemoryGame


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    g = MemoryGame(3, Rules(), seed=3, names=("Anna", "Boris", "Vera"))
    g.deal()
    g.play_out()
    return g.record()


@pytest.mark.parametrize("how", ["one bit flipped", "cut short", "first-version size"])
def test_a_host_altered_proof_of_shuffle_names_no_seat(record: dict[str, Any], how: str) -> None:
    r = copy.deepcopy(record)
    assert audit(r, require_actions=True).clean
    stage = [m for m in r["privacy"]["log"] if m["kind"] == "shuffle"][1]
    proof = bytearray(bytes.fromhex(stage["shuffle_proof"]))
    n = (len(proof) // 32 - 7) // 2
    if how == "one bit flipped":
        proof[-1] ^= 1
    elif how == "cut short":
        proof = proof[:-32]
    else:
        proof = proof + bytes(32 * (2 * n - 2))  # (4n + 5)·32 bytes: judged as a v1 proof
    stage["shuffle_proof"] = bytes(proof).hex()
    report = audit(r, require_actions=True)
    assert report.faults, "the rewrite went unnoticed"
    assert report.guilty == (), f"an honest seat was named: {report.faults}"


def test_a_host_altered_first_version_proof_in_a_v5_record_names_no_seat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A /5 record (first-version proofs: the Schnorr signature over the decks alone): only
    # the identity signature binds the proof to its seat.
    from localdurak.protocol.privacy import roles
    from tests.support.shuffle_v1 import shuffle_prove_v1

    monkeypatch.setattr(roles, "shuffle_prove", shuffle_prove_v1)
    g = MemoryGame(3, Rules(), seed=3, names=("Anna", "Boris", "Vera"))
    g.deal()
    g.play_out()
    r = copy.deepcopy(g.record())
    r["privacy"]["format"] = "localdurak-privacy/5"
    assert audit(r, require_actions=True).clean
    stage = [m for m in r["privacy"]["log"] if m["kind"] == "shuffle"][1]
    proof = bytearray(bytes.fromhex(stage["shuffle_proof"]))
    proof[-1] ^= 1
    stage["shuffle_proof"] = bytes(proof).hex()
    report = audit(r, require_actions=True)
    assert report.faults, "the rewrite went unnoticed"
    assert report.guilty == (), f"an honest seat was named: {report.faults}"


def test_a_record_relabelled_first_version_names_no_seat_in_an_audit_of_that_version(
    record: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host writes "localdurak-privacy/5" on a record of second-version proofs.  An audit
    that knows only first-version proofs (simulated here: it signs and checks stages under the
    first-version digest, and reads no second-version proof) finds the stages' signatures
    wrong, which names nobody, instead of pinning a proof it cannot read on its shuffler."""
    from localdurak.protocol.privacy import audit as audit_module
    from localdurak.protocol.privacy import shuffle, transcript

    r = copy.deepcopy(record)
    r["privacy"]["format"] = "localdurak-privacy/5"
    first_digest = transcript.shuffle_digest

    def decks_only(before: Any, after: Any, proof: bytes = b"") -> bytes:
        return first_digest(before, after)

    def first_version_only(y: Any, ins: Any, outs: Any, proof: bytes, ctx: Any) -> bool:
        return len(proof) != shuffle.proof_size(len(ins)) and shuffle.shuffle_verify(
            y, ins, outs, proof, ctx
        )

    monkeypatch.setattr(transcript, "shuffle_digest", decks_only)
    monkeypatch.setattr(audit_module, "shuffle_digest", decks_only)
    monkeypatch.setattr(transcript, "shuffle_verify", first_version_only)
    monkeypatch.setattr(transcript, "shuffle_verify_many", lambda stages: False)
    report = audit(r, require_actions=True)
    assert report.faults, "an audit of the older version took the record as clean"
    assert report.guilty == (), f"an honest seat was named: {report.faults}"
