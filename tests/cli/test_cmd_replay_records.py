"""A second reading of records.md against `localdurak replay --json`, on records written by
hand here (not by the engine): every expected value below is worked out from the rule book."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from localdurak.protocol.records import parse_record, replay

ROOT = Path(__file__).parents[2]

# 24 cards, 3 players, dealer 2: seat 0 gets deck[0], deck[3] ...  Every club is in the stock,
# so nobody holds a trump and the dealer's left, seat 0, attacks first (R-F1).
S0 = ["9S", "9H", "9D", "TS", "TH", "TD"]
S1 = ["JS", "JH", "JD", "QS", "QH", "QD"]
S2 = ["KS", "KH", "KD", "AS", "AH", "AD"]
DEAL24 = [c for trio in zip(S0, S1, S2, strict=True) for c in trio]
DECK24 = [*DEAL24, "9C", "TC", "JC", "QC", "KC", "AC"]


def record(actions: list[dict[str, Any]], **over: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "format": "localdurak-record/1",
        "rules": {"deck": 24},
        "seats": 3,
        "dealer": 2,
        "deck": DECK24,
        "actions": actions,
    }
    rec.update(over)
    return rec


def a(seat: int, do: str, *cards: str, on: str | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {"seat": seat, "do": do}
    if do == "attack":
        d["cards"] = list(cards)
    elif cards:
        d["card"] = cards[0]
    if on is not None:
        d["on"] = on
    return d


def run(rec: dict[str, Any] | str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "r.json"
    path.write_text(rec if isinstance(rec, str) else json.dumps(rec), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "localdurak", "replay", str(path), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        encoding="utf-8",
    )


def out_of(rec: dict[str, Any]) -> dict[str, Any]:
    return replay(parse_record(json.dumps(rec)))


def test_records_state_at_the_deal() -> None:
    out = out_of(record([]))
    st = out["state"]
    assert st["trump"] == "C" and st["trump_card"] == "9C"
    assert st["stock"] == 6  # the trump card counts (records.md)
    assert st["hands"] == [S0, S1, S2]  # already in hand order (ties S H D C)
    assert (st["attacker"], st["defender"], st["phase"]) == (0, 1, "bout")
    assert st["table"] == [] and st["out"] == [] and st["marked"] == [] and st["discard"] == 0
    # before the opening only the main attacker acts: one attack per single card
    assert sorted(x["cards"][0] for x in out["legal"]["0"]) == sorted(S0)
    assert all(x == {"do": "attack", "cards": x["cards"]} for x in out["legal"]["0"])
    assert out["legal"]["1"] == [] and out["legal"]["2"] == []
    assert out["result"] is None


def test_records_stock_and_trump_card_once_drawn(tmp_path: Path) -> None:
    acts = [
        a(0, "attack", "9S", "9H", "9D"),
        a(1, "cover", "JS", on="9S"),
        a(1, "cover", "JH", on="9H"),
        a(1, "cover", "JD", on="9D"),
        a(0, "pass"),
        a(2, "pass"),
    ]
    p = run(record(acts), tmp_path)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    st = out["state"]
    # R-B12: seat 0 (opener) draws TC JC QC, seat 2 is full, seat 1 (defender) KC AC 9C
    assert st["stock"] == 0 and st["trump_card"] is None and st["discard"] == 6
    assert st["hands"] == [
        ["TS", "TH", "TD", "TC", "JC", "QC"],
        ["QS", "QH", "QD", "9C", "KC", "AC"],
        S2,
    ]
    assert (st["attacker"], st["defender"]) == (1, 2)  # R-B11


def test_records_legal_cover_per_card_and_on_and_explicit_passes(tmp_path: Path) -> None:
    acts = [a(0, "attack", "9S", "9H"), a(2, "pass")]
    out = out_of(record(acts))
    covers = {(x["card"], x["on"]) for x in out["legal"]["1"] if x["do"] == "cover"}
    assert covers == {("JS", "9S"), ("QS", "9S"), ("JH", "9H"), ("QH", "9H")}
    assert {"do": "take"} in out["legal"]["1"]
    assert sorted(x["do"] for x in out["legal"]["2"]) == []  # passed, nothing until a change
    assert {"do": "attack", "cards": ["9D"]} in out["legal"]["0"]
    # a second pass is refused: ok false, state just before it, exit 1
    p = run(record([*acts, a(2, "pass")]), tmp_path)
    assert p.returncode == 1
    bad = json.loads(p.stdout)
    assert (bad["ok"], bad["applied"]) == (False, 2) and bad["error"].startswith("R-B9")
    assert bad["state"]["table"] == [["9S", None], ["9H", None]]


def test_records_cheating_legal_is_honest_and_marked_in_order() -> None:
    rules = {"deck": 24, "cheating": True}
    acts = [a(0, "attack", "9S"), a(2, "attack", "AS")]  # AS: a rank not on the table
    out = out_of(record(acts, rules=rules))
    legal1 = out["legal"]["1"]
    challenges = {x["card"] for x in legal1 if x["do"] == "challenge"}
    assert challenges == {"9S", "AS"}
    # honest covers only: nothing beats AS honestly in seat 1's hand (no trump)
    assert {x["on"] for x in legal1 if x["do"] == "cover"} == {"9S"}
    assert {x["card"] for x in out["legal"]["2"] if x["do"] == "challenge"} == {"9S"}
    acts += [a(1, "challenge", "9S"), a(0, "challenge", "AS")]
    out = out_of(record(acts, rules=rules))
    assert out["ok"] and out["state"]["marked"] == [1, 2]
    assert out["state"]["table"] == [["9S", None]]


def test_records_duren_leads_listed_sorted() -> None:
    # Dureń, 2 players, 36 cards, hand 5: seat 0 (dealer's left) leads.
    s0, s1 = ["7H", "7D", "6S", "8S", "8C"], ["9D", "TD", "JD", "QD", "KD"]
    deal = [c for pair in zip(s0, s1, strict=True) for c in pair]
    rest = [
        f"{r}{s}"
        for s in "SHDC"
        for r in "6789TJQKA"
        if f"{r}{s}" not in deal and f"{r}{s}" != "AC"
    ]
    rec = {
        "format": "localdurak-record/1",
        "rules": {"variant": "duren"},
        "seats": 2,
        "dealer": 1,
        "deck": [*deal, "AC", *rest],
        "actions": [],
    }
    out = out_of(rec)
    leads = [x["cards"] for x in out["legal"]["0"]]
    assert all(x["do"] == "attack" for x in out["legal"]["0"])
    # each lead sorted in hand order (non-trumps by rank, ties S H D C, then trumps)
    assert ["7H", "7D", "8C"] in leads and ["6S", "7H", "7D"] in leads
    assert ["7H", "7D", "8S", "8C"] in leads  # a red pair and a black pair (8C a trump)
    assert ["8C", "7H", "7D"] not in leads  # the trump goes last
    assert ["6S", "8S"] not in leads  # not a pair
    assert len(leads) == len({tuple(x) for x in leads})


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{", "not JSON"),
        (json.dumps(record([], format="localdurak-record/2")), "format"),
        (json.dumps(record([], rules={"deck": 24, "colour": 1})), "unknown"),
        (json.dumps(record([], rules={"deck": 24, "trump_show": True})), "R-B7"),
        (json.dumps(record([], deck=DECK24[:-1])), "deck"),
        (json.dumps(record([a(3, "pass")])), "seat"),
        (json.dumps(record([{"seat": 0, "do": "bluff"}])), "bluff"),
        (json.dumps(record([{"seat": 0, "do": "cover", "card": "JS"}])), "on"),
        (json.dumps(record([a(0, "attack", "1S")])), "1S"),
        (json.dumps(record([], dealer=3)), "dealer"),
        (
            json.dumps(record([], rules={"variant": "duren", "next_first_attack": "from_durak"})),
            "next_first_attack",
        ),
    ],
)
def test_records_not_a_valid_record_exit_2(text: str, says: str, tmp_path: Path) -> None:
    p = run(text, tmp_path)
    assert p.returncode == 2 and p.stdout == ""
    assert says in p.stderr
