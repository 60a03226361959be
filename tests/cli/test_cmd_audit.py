"""`localdurak audit RECORD` (cli.md): 0 clean, 1 naming the cheater, 2 not a record."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from localdurak.cli.main import main
from localdurak.protocol.errors import RemoteProtocolError
from localdurak.protocol.privacy.group import GROUP
from localdurak.protocol.privacy.messages import Message, Shuffle
from tests.support.privacy_play import slot_dealt_at, table


def write(tmp_path: Path, record: object) -> str:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    return str(path)


def test_audit_clean_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tab = table(2, 24, seed=3)
    tab.start()
    tab.reveal()
    assert main(["audit", write(tmp_path, tab.record())]) == 0
    out = capsys.readouterr().out.splitlines()
    # An in-memory table's transcript has no identity section: the audit says so.
    assert out[0] == "clean"
    assert out[1:] == [x for x in out[1:] if x.startswith("not checked: who played")] != []


def test_audit_names_the_cheating_seat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stranger = GROUP.hash_to_group(b"not a card", b"")

    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Shuffle) and sender == 2:
            deck = list(msg.deck)
            deck[bottom] = stranger  # lands at the bottom of the stock: the deal goes through
            return replace(msg, deck=tuple(deck))
        return msg

    bottom = slot_dealt_at(35, 3, 36, seed=4)
    tab = table(3, 36, seed=4, tamper=tamper)
    with pytest.raises(RemoteProtocolError):
        tab.start()  # refused at once: the proof of shuffle fails
    tab.queue.clear()
    tab.reveal()
    assert main(["audit", write(tmp_path, tab.record())]) == 1
    out = capsys.readouterr().out
    assert "seat 2" in out and "shuffle" in out


@pytest.mark.parametrize(
    "content",
    ["not json at all", json.dumps({"format": "something else"}), json.dumps([1, 2])],
)
def test_audit_refuses_what_is_not_a_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    path = tmp_path / "x.json"
    path.write_text(content)
    assert main(["audit", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err


def test_audit_refuses_a_record_without_privacy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = {"format": "localdurak-record/1", "seats": 2, "dealer": 0, "actions": []}
    assert main(["audit", write(tmp_path, record)]) == 2
    assert "privacy" in capsys.readouterr().err
    broken = dict(record, privacy={"format": "localdurak-privacy/2", "setup": {}, "log": []})
    assert main(["audit", write(tmp_path, broken)]) == 2
    capsys.readouterr()
    # A transcript of the protocol before step 2b (no seeds) is not replayed as this one.
    old = dict(record, privacy={"format": "localdurak-privacy/1", "setup": {}, "log": []})
    assert main(["audit", write(tmp_path, old)]) == 2
    assert "localdurak-privacy/3" in capsys.readouterr().err


def test_identity_shows_the_fingerprint_the_audit_prints_for_this_devices_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from localdurak.net.identity import load_or_create
    from localdurak.protocol.signing import key_fingerprint

    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path / "home"))
    assert main(["identity"]) == 0
    out = capsys.readouterr().out
    me = load_or_create(tmp_path / "home")  # the one `identity` made on first use
    assert f"your identity: {key_fingerprint(me.public_key)}" in out
    assert f"certificate fingerprint: {me.fingerprint}" in out
    assert main(["identity"]) == 0  # the same identity, not a new one
    assert capsys.readouterr().out == out
    # Another profile is another identity.
    assert main(["identity", "--profile", "second"]) == 0
    assert key_fingerprint(me.public_key) not in capsys.readouterr().out
