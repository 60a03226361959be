"""Golden records (tests/golden/): whole games of every variant, replayed action by action.

Each ``NAME.record.json`` has ``NAME.steps.jsonl``: the `localdurak replay --json` object after
0, 1, 2 ... actions.  Those written by tests/golden/generate.py only pin what our engine does,
so below, key positions of several are checked against rules.md by hand (the expectations are
literal, worked out from the record's deck), and the ``hand-*`` records, written by hand, have
their states written out in full.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from localdurak.game.cards import Card
from localdurak.protocol.records import Record, parse_record, replay, replay_steps

GOLDEN = Path(__file__).parents[1] / "golden"
NAMES = sorted(p.name.removesuffix(".record.json") for p in GOLDEN.glob("*.record.json"))


def load(name: str) -> Record:
    return parse_record((GOLDEN / f"{name}.record.json").read_text(encoding="utf-8"))


def steps(name: str) -> list[dict[str, Any]]:
    return list(replay_steps(load(name)))


def test_there_are_goldens_for_every_variant() -> None:
    variants = {load(n).rules.variant.value for n in NAMES}
    assert variants == {"podkidnoy", "perevodnoy", "duren"}
    assert len(NAMES) >= 30
    assert sum(not json.loads(_last_line(n))["ok"] for n in NAMES) >= 4


def _last_line(name: str) -> str:
    return (GOLDEN / f"{name}.steps.jsonl").read_text(encoding="utf-8").splitlines()[-1]


@pytest.mark.parametrize("name", NAMES)
def test_golden_action_by_action(name: str) -> None:
    record = load(name)
    expected = (GOLDEN / f"{name}.steps.jsonl").read_text(encoding="utf-8").splitlines()
    got = list(replay_steps(record))
    assert len(got) == len(expected), f"{name}: {len(got)} steps, golden has {len(expected)}"
    for i, (g, line) in enumerate(zip(got, expected, strict=True)):
        e = json.loads(line)
        if g != e:
            action = record.actions[i - 1].to_dict() if i else "the deal"
            diff = {k: (e.get(k), g.get(k)) for k in e if e.get(k) != g.get(k)}
            pytest.fail(f"{name}: after {i} actions (last: {action}) golden != ours: {diff}")
    # replay() (the --json command) ends where the steps end.
    assert replay(record) == got[-1]


def test_golden_records_round_trip() -> None:
    for name in NAMES:
        text = (GOLDEN / f"{name}.record.json").read_text(encoding="utf-8")
        assert load(name).to_json() == text, name


# --- hand-written records: states worked out by hand from rules.md --------------------------


def test_hand_first_bout_five_take_and_refill() -> None:
    """2 players, dealer 1: seat 0 is dealt the even cards (R-D1), 9H is turned (R-D2);
    seat 0 holds 6H, the lowest trump, and attacks first (R-F1).  The first bout reaches five
    attack cards (R-B4b), so the take ends it at once (R-B10b); the taker draws nothing, seat 0
    draws 5 from the top (R-B12).  Ten of four suits are led together (R-B1); a 9 is refused
    because no 9 is on the table (R-B3)."""
    s = steps("hand-podkidnoy-first-bout-five")
    deal = s[0]
    assert deal["state"]["hands"] == [
        ["6S", "6D", "6C", "7D", "TC", "6H"],
        ["7S", "7C", "8D", "QC", "KS", "AH"],
    ]
    assert (deal["state"]["trump"], deal["state"]["trump_card"]) == ("H", "9H")
    assert (deal["state"]["attacker"], deal["state"]["defender"]) == (0, 1)
    assert deal["legal"]["1"] == []
    assert sorted(a["cards"][0] for a in deal["legal"]["0"]) == sorted(
        ["6S", "6D", "6C", "7D", "TC", "6H"]
    )
    after_fifth = s[9]["legal"]  # 6H thrown in as the fifth card: only take remains
    assert after_fifth == {"0": [{"do": "pass"}], "1": [{"do": "take"}]}
    after_take = s[10]["state"]
    assert after_take["table"] == [] and after_take["phase"] == "bout"
    assert after_take["hands"][0] == ["9S", "9C", "TS", "TD", "TC", "TH"]
    assert len(after_take["hands"][1]) == 11
    assert (after_take["stock"], after_take["attacker"], after_take["defender"]) == (19, 0, 1)
    assert s[-1] == {
        "ok": False,
        "applied": 13,
        "error": s[-1]["error"],
        "state": {
            "trump": "H",
            "trump_card": "9H",
            "stock": 19,
            "discard": 0,
            "hands": [["9S", "9C"], ["6S", "6D", "6C", "7S", "7D", "7C", "8D", "6H", "AH"]],
            "table": [["TC", "QC"], ["TS", "KS"], ["TD", None], ["TH", None]],
            "attacker": 0,
            "defender": 1,
            "phase": "bout",
            "out": [],
            "marked": [],
        },
        "legal": {
            "0": [{"do": "pass"}],
            "1": [
                {"do": "cover", "card": "6H", "on": "TD"},
                {"do": "cover", "card": "AH", "on": "TD"},
                {"do": "cover", "card": "AH", "on": "TH"},
                {"do": "take"},
            ],
        },
        "result": None,
    }
    assert s[-1]["error"].startswith("R-B3")


def test_hand_transfer_show_and_refill_order() -> None:
    """3 players, perevodnoy with trump show, dealer 2: seat 0 holds 6H, the lowest trump
    (R-F1), and leads 7S at seat 1, who transfers with 7C (R-B6) to seat 2, who shows 7H
    (R-B7, it stays in his hand) back to seat 0.  Seat 0 opened the bout and is its final
    defender, so he draws last (R-B12): seat 1 draws 6S first, then seat 0 6D 6C 8D."""
    s = steps("hand-perevodnoy-show-refill")
    shown = s[3]["state"]
    assert shown["table"] == [["7S", None], ["7C", None]]
    assert (shown["attacker"], shown["defender"]) == (2, 0)
    assert "7H" in shown["hands"][2]
    assert s[-1]["state"] == {
        "trump": "H",
        "trump_card": "TH",
        "stock": 14,
        "discard": 4,
        "hands": [
            ["6D", "6C", "8D", "TD", "QS", "6H"],
            ["6S", "8S", "8C", "9D", "KC", "AS"],
            ["9C", "JD", "QD", "KD", "AD", "7H"],
        ],
        "table": [],
        "attacker": 0,
        "defender": 1,
        "phase": "bout",
        "out": [],
        "marked": [],
    }
    # R-B11: after a successful defence the defender (seat 0) attacks; only he may lead (R-B1).
    assert (s[-1]["ok"], s[-1]["applied"]) == (False, 7)
    assert s[-1]["legal"]["1"] == [] and s[-1]["legal"]["2"] == []
    assert len(s[-1]["legal"]["0"]) == 6


def test_hand_challenges_both_ways() -> None:
    """Cheating mode: seat 0 challenges an honest cover and is marked (R-S4); seat 1 covers
    6C with 8D (a cheat, R-S1), is caught, 8D goes back (R-S3) and seat 1 is marked; a marked
    seat 0 may no longer throw in a rank that is not on the table."""
    s = steps("hand-cheating-challenges")
    assert s[3]["state"]["marked"] == [0]
    assert s[3]["state"]["table"] == [["6S", "7S"]]
    assert s[5]["state"]["table"] == [["6S", "7S"], ["6C", "8D"]]
    caught = s[6]["state"]
    assert caught["table"] == [["6S", "7S"], ["6C", None]]
    assert caught["marked"] == [0, 1]
    assert "8D" in caught["hands"][1]
    last = s[-1]
    assert (last["ok"], last["applied"]) == (False, 7)
    assert last["state"]["hands"] == [["6D", "7D", "TC", "6H"], ["8D", "QC", "KS", "AH"]]
    # Honest actions only (records.md); challenges of the other seat's cards on the table.
    assert [a for a in last["legal"]["0"] if a["do"] != "challenge"] == [
        {"do": "attack", "cards": ["6D"]},
        {"do": "attack", "cards": ["7D"]},
        {"do": "attack", "cards": ["6H"]},
        {"do": "pass"},
    ]
    assert {"do": "challenge", "card": "7C"} in last["legal"]["0"]
    assert [a for a in last["legal"]["1"] if a["do"] != "challenge"] == [{"do": "take"}]
    assert {a["card"] for a in last["legal"]["1"] if a["do"] == "challenge"} == {"6S", "6C"}


def test_hand_24_cards_both_out_in_the_last_bout_is_a_draw() -> None:
    """24 cards, 2 players: three-card leads, the stock runs out in the second refill (the
    trump card 9H drawn last, R-B12), and in the last bout Ann covers Bob's last card with her
    last card: the bout ends at once (R-B13) and both are out together: a draw (R-B14)."""
    s = steps("hand-podkidnoy-24-draw")
    refill2 = s[10]["state"]
    # Hand order: non-trumps by rank, then trumps by rank (records.md).
    assert refill2["hands"] == [
        ["JS", "JD", "9H", "TH", "JH", "QH"],
        ["JC", "AS", "AD", "AC", "KH", "AH"],
    ]
    assert (refill2["stock"], refill2["trump_card"]) == (0, None)
    assert s[-1] == {
        "ok": True,
        "applied": 23,
        "error": None,
        "state": {
            "trump": "H",
            "trump_card": None,
            "stock": 0,
            "discard": 24,
            "hands": [[], []],
            "table": [],
            "attacker": None,
            "defender": None,
            "phase": "over",
            "out": [0, 1],
            "marked": [],
        },
        "legal": {"0": [], "1": []},
        "result": {"durak": [], "draw": True, "pogony": 0},
    }


# --- engine-written goldens: key positions worked out by hand from the record ---------------


def dealt(record: Record) -> list[list[Card]]:
    """R-D1 by hand: one card at a time, clockwise from the dealer's left."""
    hands: list[list[Card]] = [[] for _ in range(record.seats)]
    n = record.seats * record.rules.hand_size
    for i, card in enumerate(record.deck[:n]):
        hands[(record.dealer + 1 + i) % record.seats].append(card)
    return hands


def test_key_positions_podkidnoy_2p_36() -> None:
    """Dealer 0, so seat 1 gets the first card (R-D1); KS is turned (R-D2), spades are trump;
    seat 0 holds TS and AS, seat 1 no spade: seat 0 attacks first (R-F1).  Bout 1: seat 1
    takes TS, seat 0 draws 8D, the top of the stock (R-B12), and attacks again (R-B11)."""
    s = steps("podkidnoy-2p-36")
    st = s[0]["state"]
    assert (st["trump"], st["trump_card"], st["stock"]) == ("S", "KS", 24)
    assert st["hands"] == [
        ["7C", "TD", "QD", "KD", "TS", "AS"],
        ["7H", "9H", "JH", "JD", "QH", "QC"],
    ]
    assert (st["attacker"], st["defender"]) == (0, 1)
    st = s[4]["state"]
    assert "8D" in st["hands"][0] and "TS" in st["hands"][1]
    assert (len(st["hands"][0]), len(st["hands"][1]), st["stock"]) == (6, 7, 23)
    assert (st["attacker"], st["defender"], st["table"]) == (0, 1, [])


def test_key_positions_r_d3_no_card_left() -> None:
    """4 players on 24 cards: every card is dealt (R-D3).  The dealer's last card, 9H, makes
    hearts trump; nothing is turned (trump_card null) and the stock is empty; seat 2 holds
    9H, the lowest trump, and attacks seat 3 (R-F1, R-F3)."""
    st = steps("podkidnoy-4p-24-no-stock")[0]["state"]
    assert (st["trump"], st["trump_card"], st["stock"]) == ("H", None, 0)
    assert st["hands"] == [
        ["QC", "KS", "KC", "AC", "TH", "AH"],
        ["TC", "JS", "KD", "AS", "AD", "JH"],
        ["9D", "TS", "JC", "QD", "9H", "QH"],
        ["9S", "9C", "TD", "JD", "QS", "KH"],
    ]
    assert (st["attacker"], st["defender"]) == (2, 3)


def test_key_positions_japanese() -> None:
    """R-D4: diamonds are trump, no card is turned, the stock is the other 24 cards; seat 1
    holds 7D and QD, seat 0 no diamond: seat 1 attacks first.  R-B5 Japanese: a spade is never
    covered by anything but a higher spade, trumps included."""
    s = steps("japanese-2p")
    st = s[0]["state"]
    assert (st["trump"], st["trump_card"], st["stock"]) == ("D", None, 24)
    assert (st["attacker"], st["defender"]) == (1, 0)
    covers_on_spades = [
        a
        for step in s
        for acts in step["legal"].values()
        for a in acts
        if a["do"] == "cover" and a["on"].endswith("S")
    ]
    assert covers_on_spades, "the game never covers a spade"
    for a in covers_on_spades:
        assert a["card"].endswith("S") and _rank(a["card"]) > _rank(a["on"]), a


def _rank(text: str) -> int:
    return Card.parse(text).rank


def test_key_positions_series() -> None:
    """R-F2 at_durak: the previous durak (seat 2) is attacked by the opponent on his right
    (seat 1).  R-F2 from_durak with teams: the durak is the losing team's lowest seat (1),
    the player on his left (seat 2) attacks first, at seat 3; R-D5: seat 1 deals."""
    st = steps("series-at-durak")[0]["state"]
    assert (st["attacker"], st["defender"]) == (1, 2)
    record = load("series-from-durak")
    assert record.dealer == 1
    st = steps("series-from-durak")[0]["state"]
    assert (st["attacker"], st["defender"]) == (2, 3)


def test_key_positions_duren() -> None:
    """R-P1: hands of 5, the player on the dealer's left (seat 0, dealer 1) leads first;
    TC, the eleventh card, is turned: clubs are trump."""
    st = steps("duren-2p-pairs")[0]["state"]
    assert (st["trump"], st["trump_card"], st["stock"]) == ("C", "TC", 26)
    assert st["hands"] == [["8S", "8D", "QD", "KD", "JC"], ["6D", "7S", "9S", "TH", "JH"]]
    assert (st["attacker"], st["defender"]) == (0, 1)


def test_key_positions_pogony() -> None:
    """Spades are trump (TS, the 19th card, is turned).  In the last bout seat 1 leads 6H,
    seat 0 takes and seat 1 throws in 6C, his last card: seat 0 is the durak, and both sixes
    of that bout, neither a trump, are on his shoulders (R-B15): 2 pogony."""
    s = steps("pogony")
    assert s[0]["state"]["trump_card"] == "TS"
    assert s[-1]["result"] == {"durak": [0], "draw": False, "pogony": 2}
    assert s[-1]["state"]["phase"] == "over"


# --- rules checked in every golden by a small independent reading of rules.md ---------------


@pytest.mark.parametrize("name", NAMES)
def test_R_D1_R_D2_deal_in_every_golden(name: str) -> None:
    record = load(name)
    st = steps(name)[0]["state"]
    n = record.seats * record.rules.hand_size
    trump_card = None if record.rules.japanese or n == len(record.deck) else record.deck[n]
    trump = "D" if record.rules.japanese else (trump_card or record.deck[n - 1]).suit.letter
    assert st["trump"] == trump
    assert st["trump_card"] == (None if trump_card is None else str(trump_card))
    assert st["stock"] == len(record.deck) - n
    assert [sorted(h) for h in st["hands"]] == [sorted(map(str, h)) for h in dealt(record)]


def _stock_order(record: Record) -> list[str]:
    """The order the stock is drawn in: from the top, the trump card last (R-D2, R-D4)."""
    n = record.seats * record.rules.hand_size
    rest = [str(c) for c in record.deck[n:]]
    if record.rules.japanese or not rest:
        return rest
    return rest[1:] + rest[:1]


@pytest.mark.parametrize("name", NAMES)
def test_R_B11_R_B12_refills_and_next_attacker_in_every_golden(name: str) -> None:
    """R-B12: after a bout the opener draws first, then the others clockwise from him, the
    final defender last, each up to the hand size, from the top of the stock.  R-B11: after a
    successful defence the defender attacks next, after a take the player on his left."""
    record = load(name)
    s = steps(name)
    seats, hand_size = record.seats, record.rules.hand_size
    stock = _stock_order(record)
    drawn_so_far = checked_next = 0
    opener = None
    for i, action in enumerate(record.actions[: len(s) - 1], 1):
        before, after = s[i - 1]["state"], s[i]["state"]
        if not s[i]["ok"]:
            break
        if not before["table"] and action.do.value == "attack":
            opener = action.seat
        if action.do.value == "challenge" or not before["table"] or after["table"]:
            continue
        # The bout ended with this action.
        assert opener is not None
        defender = before["defender"]
        played = {str(c) for c in action.cards} | (
            {str(action.card)} if action.card is not None and action.do.value != "show" else set()
        )
        table = {c for pair in before["table"] for c in pair if c} | played
        took = after["discard"] == before["discard"] or bool(table & set(after["hands"][defender]))
        draws: dict[int, list[str]] = {}
        for seat in range(seats):
            old = set(before["hands"][seat]) - (played if seat == action.seat else set())
            if seat == defender and took:
                old |= table & set(after["hands"][seat])
            new = set(after["hands"][seat])
            assert old <= new, f"{name} step {i}: seat {seat} lost cards in the refill"
            draws[seat] = sorted(new - old, key=stock.index)
        order = [(opener + k) % seats for k in range(seats)]
        order = [x for x in order if x != defender] + [defender]
        sequence = [c for seat in order for c in draws[seat]]
        assert sequence == stock[drawn_so_far : drawn_so_far + len(sequence)], (
            f"{name} step {i}: drew {sequence} in the order {order}"
        )
        drawn_so_far += len(sequence)
        assert after["stock"] == len(stock) - drawn_so_far
        if after["stock"]:
            assert all(len(after["hands"][x]) >= hand_size for x in range(seats)), name
        if after["phase"] == "over":
            continue
        active = [x for x in range(seats) if x not in after["out"]]
        if record.rules.teams.value == "none":
            nxt = defender if not took else (defender + 1) % seats
            while nxt not in active:
                nxt = (nxt + 1) % seats
            assert after["attacker"] == nxt, f"{name} step {i}: R-B11"
            checked_next += 1
    if stock and s[-1]["state"]["phase"] == "over":
        assert drawn_so_far == len(stock), f"{name}: the stock was never drawn"
    if record.rules.teams.value == "none" and len(record.actions) > 30:
        assert checked_next > 0


def test_key_positions_tie_last_defender_loses() -> None:
    """R-B14 tie = last_defender_loses: in the last bout seat 1 leads 9S and throws in 9C and
    QD, his last cards; seat 0 covers QD with AD, his last card (R-B13): both are out in the
    same bout, so the defender, seat 0, is the durak; hearts are trump and 9 is the lowest
    rank of 24 cards, so 9S and 9C are two pogony (R-B15)."""
    s = steps("tie-last-defender-loses")
    assert s[0]["state"]["trump"] == "H"
    before_last = s[-2]["state"]
    assert before_last["table"] == [["9S", "KH"], ["9C", "QC"], ["QD", None]]
    assert before_last["hands"] == [["AD"], []]
    assert (before_last["attacker"], before_last["defender"]) == (1, 0)
    assert s[-1]["result"] == {"durak": [0], "draw": False, "pogony": 2}
    assert s[-1]["state"]["out"] == [0, 1]


def test_key_positions_duren_partial_defence() -> None:
    """R-P5: seat 0 covers only JC of the lead TC JC TS and takes: the covered pair is
    discarded (6 -> 8), he takes TC and TS, and loses his turn: seat 1, on his left, leads
    next (R-P4)."""
    s = steps("duren-3p-partial")
    before, after = s[12]["state"], s[13]["state"]
    assert before["table"] == [["TC", None], ["JC", "7S"], ["TS", None]]
    assert (before["discard"], after["discard"]) == (6, 8)
    assert {"TC", "TS"} <= set(after["hands"][0]) and "JC" not in after["hands"][0]
    assert (after["attacker"], after["defender"]) == (1, 2)


def test_key_positions_draw() -> None:
    """R-B14 tie = draw: the last two players run out in the same bout."""
    s = steps("draw")
    assert s[-1]["result"] == {"durak": [], "draw": True, "pogony": 0}
    assert s[-1]["state"]["hands"] == [[], []]
    assert sorted(s[-1]["state"]["out"]) == [0, 1]


@pytest.mark.parametrize("name", NAMES)
def test_R_B4_limits_and_card_count_in_every_golden(name: str) -> None:
    """R-B4 (also in cheating mode): at most 6 attack cards, 5 until the first successful
    defence (first_bout_five), 5 in Dureń (R-P3); never more uncovered attack cards than the
    defender holds; and every card is somewhere: hands, table, stock or discard."""
    record = load(name)
    rules = record.rules
    for i, step in enumerate(steps(name)):
        st = step["state"]
        cards = sum(map(len, st["hands"])) + st["stock"] + st["discard"]
        cards += sum(1 + (cover is not None) for _, cover in st["table"])
        assert cards == len(record.deck), f"{name} step {i}"
        if not st["table"]:
            continue
        if rules.variant.value == "duren":
            limit = 5
        else:
            limit = 5 if rules.first_bout_five and st["discard"] == 0 else 6
        assert len(st["table"]) <= limit, f"{name} step {i}: R-B4a/b"
        uncovered = sum(cover is None for _, cover in st["table"])
        assert uncovered <= len(st["hands"][st["defender"]]), f"{name} step {i}: R-B4c"


def test_hand_perevodnoy_two_players_transfer_back() -> None:
    """2 players, perevodnoy: seat 0 (6C, the lowest club; AC turned) leads 8S; seat 1
    transfers with 8D and the bout comes back to seat 0, now the defender, with seat 1 as
    main attacker (R-B6).  Once 8S is covered, seat 0 may no longer transfer with 8H."""
    s = steps("hand-perevodnoy-2p-transfer-back")
    st = s[2]["state"]
    assert st["table"] == [["8S", None], ["8D", None]]
    assert (st["attacker"], st["defender"]) == (1, 0)
    assert {"do": "transfer", "card": "8H"} in s[2]["legal"]["0"]
    assert s[-1] == {
        "ok": False,
        "applied": 3,
        "error": s[-1]["error"],
        "state": {
            "trump": "C",
            "trump_card": "AC",
            "stock": 24,
            "discard": 0,
            "hands": [["8H", "TS", "AS", "6C"], ["9H", "JH", "QD", "KD", "8C"]],
            "table": [["8S", "9S"], ["8D", None]],
            "attacker": 1,
            "defender": 0,
            "phase": "bout",
            "out": [],
            "marked": [],
        },
        "legal": {
            "0": [{"do": "cover", "card": "6C", "on": "8D"}, {"do": "take"}],
            "1": [
                {"do": "attack", "cards": ["9H"]},
                {"do": "attack", "cards": ["8C"]},
                {"do": "pass"},
            ],
        },
        "result": None,
    }
    assert s[-1]["error"].startswith("R-B6")


def test_hand_duren_pairs_are_one_colour() -> None:
    """Dureń, leads in pairs (R-P2): seat 0, on the dealer's left, leads first (R-P1) the red
    pair 9H 9D and one more card, 7S; all covered, the cards are discarded and seat 1 leads
    next (R-P4) after the refill, attacker first (R-P6).  6C 6H is one rank in two colours:
    not a pair, refused; seat 1's legal leads are his five single cards."""
    s = steps("hand-duren-pairs-colour")
    leads = [a["cards"] for a in s[0]["legal"]["0"]]
    assert ["9H", "9D"] in leads and ["9H", "9D", "7S"] in leads and ["9H", "9D", "KC"] in leads
    assert ["9H", "9S"] not in leads and ["9D", "9S"] not in leads
    assert s[0]["legal"]["1"] == []
    last = s[-1]
    assert (last["ok"], last["applied"]) == (False, 4)
    assert last["error"].startswith("R-P2")
    st = last["state"]
    assert st["hands"] == [["7H", "7D", "8H", "KC", "9S"], ["6H", "6C", "8D", "8C", "QC"]]
    assert (st["stock"], st["discard"], st["attacker"], st["defender"]) == (20, 6, 1, 0)
    assert last["legal"] == {
        "0": [],
        "1": [{"do": "attack", "cards": [c]} for c in ("6H", "6C", "8D", "8C", "QC")],
    }


def _team(record: Record, seat: int) -> int:
    """R-T1: even/odd seats in 2v2 and 3v3, {0,3} {1,4} {2,5} in pairs."""
    teams = record.rules.teams.value
    if teams == "pairs":
        return seat % 3
    return seat % 2 if teams in ("2v2", "3v3") else seat


@pytest.mark.parametrize("name", NAMES)
def test_R_B2_R_B3_R_T2_who_may_throw_in_in_every_golden(name: str) -> None:
    """Who may add cards to a bout: only opponents of the defender (R-T2), only his two
    nearest active opponents besides the main attacker with throw_in = neighbours (R-B2), and
    with throw_in_order = first_word only after the main attacker's Done since the table last
    changed (R-B3).  Checked on the legal lists and on the actions played."""
    record = load(name)
    if record.rules.variant.value == "duren":
        return
    s = steps(name)
    done_since_change = False
    for i, step in enumerate(s):
        st = step["state"]
        action = record.actions[i] if i < len(record.actions) else None
        if not st["table"] or st["phase"] == "over":
            done_since_change = False
        else:
            d, main = st["defender"], st["attacker"]
            active = [x for x in range(record.seats) if x not in st["out"]]
            opponents = [x for x in active if _team(record, x) != _team(record, d)]
            allowed = set(opponents)
            if record.rules.throw_in.value == "neighbours":
                n = record.seats
                left = next(x for k in range(1, n) if (x := (d + k) % n) in opponents)
                right = next(x for k in range(1, n) if (x := (d - k) % n) in opponents)
                allowed = {main, left, right}
            for seat_text, acts in step["legal"].items():
                seat = int(seat_text)
                if any(a["do"] == "attack" for a in acts):
                    assert seat in allowed, f"{name} step {i}: seat {seat} may throw in"
                    if record.rules.throw_in_order.value == "first_word" and seat != main:
                        # R-B9: a main attacker without cards has passed (said Done)
                        done = done_since_change or not st["hands"][main]
                        assert done, f"{name} step {i}: R-B3 first_word"
            if action is not None and action.do.value == "attack" and step["ok"]:
                assert action.seat in allowed, f"{name} action {i + 1}"
        if action is None:
            break
        if action.do.value == "pass" and st["table"] and action.seat == st["attacker"]:
            done_since_change = True
        elif action.do.value != "pass":
            done_since_change = False


@pytest.mark.parametrize("name", NAMES)
def test_R_B14_R_B15_result_in_every_golden(name: str) -> None:
    """The durak is the one player (team) still holding cards (R-B14, R-T3); nobody holding
    cards is a draw, or with tie = last_defender_loses the last defender (his team) loses.
    Pogony: the last bout's attack cards of the lowest rank, not trumps, if the durak (team)
    defended it (R-B15)."""
    record = load(name)
    s = steps(name)
    final = s[-1]
    if final["result"] is None:
        return
    result, st = final["result"], final["state"]
    before = s[-2]["state"]
    last = record.actions[-1]
    defender = before["defender"]
    holding = {_team(record, x) for x in range(record.seats) if st["hands"][x]}
    if holding:
        (team,) = holding
        assert not result["draw"]
        assert result["durak"] == [x for x in range(record.seats) if _team(record, x) == team]
    elif record.rules.tie.value == "draw":
        assert result == {"durak": [], "draw": True, "pogony": 0}
    else:
        team = _team(record, defender)
        assert result["durak"] == [x for x in range(record.seats) if _team(record, x) == team]
    attacks = [a for a, _ in before["table"]]
    if last.do.value == "attack":
        attacks += [str(c) for c in last.cards]
    elif last.do.value == "transfer":
        attacks.append(str(last.card))
    low = {24: 9, 36: 6, 52: 2}[record.rules.deck]
    trump = st["trump"]
    expected = sum(Card.parse(c).rank == low and not c.endswith(trump) for c in attacks)
    if defender not in result["durak"]:
        expected = 0
    assert result["pogony"] == expected, name


@pytest.mark.parametrize("name", [n for n in NAMES if "cheating" in n])
def test_R_S3_R_S4_challenges_in_cheating_goldens(name: str) -> None:
    """A caught cheat takes the bout back to just before the action that played it: table,
    hands, roles and phase as they were then, the cheater marked (R-S3).  A challenged honest
    card moves nothing and marks the challenger (R-S4).  A player is marked at most once."""
    record = load(name)
    s = steps(name)
    caught = honest = 0
    bout_start = 0
    for i, action in enumerate(record.actions):
        before, after = s[i]["state"], s[i + 1]["state"]
        if not before["table"]:
            bout_start = i
        assert len(set(after["marked"])) == len(after["marked"])
        if action.do.value != "challenge" or not s[i + 1]["ok"]:
            continue
        card = str(action.card)
        keys = ("table", "hands", "attacker", "defender", "phase")
        if after["table"] == before["table"] and after["hands"] == before["hands"]:
            honest += 1
            if action.seat not in before["marked"]:
                assert after["marked"] == [*before["marked"], action.seat]
            continue
        caught += 1
        # The action that put the challenged card on the table, in this bout.
        j = max(
            k
            for k in range(bout_start, i)
            if card in {str(c) for c in record.actions[k].cards}
            or (record.actions[k].card is not None and str(record.actions[k].card) == card)
        )
        cheater = record.actions[j].seat
        assert {k: after[k] for k in keys} == {k: s[j]["state"][k] for k in keys}, (
            f"{name}: challenge at action {i + 1} of the card played at action {j + 1}"
        )
        if cheater not in before["marked"]:
            assert after["marked"] == [*before["marked"], cheater]
    assert caught and honest, f"{name}: a golden for R-S3 and R-S4 needs both"


@pytest.mark.parametrize("name", NAMES)
def test_R_B10_no_bout_outlives_its_end_in_every_golden(name: str) -> None:
    """R-B10: a bout ends at once when R-B4 allows no further card: every attack card
    covered and the limit reached, or the defender without cards (R-B13); while taking, the
    limit reached or as many uncovered cards as the defender holds.  So no state shows such a
    bout still open."""
    record = load(name)
    if record.rules.variant.value == "duren":
        return
    for i, step in enumerate(steps(name)):
        st = step["state"]
        if not st["table"] or not step["ok"]:
            continue
        limit = 5 if record.rules.first_bout_five and st["discard"] == 0 else 6
        held = len(st["hands"][st["defender"]])
        uncovered = sum(c is None for _, c in st["table"])
        full = len(st["table"]) >= limit
        if st["phase"] == "bout":
            assert not (uncovered == 0 and (full or held == 0)), f"{name} step {i}"
        else:
            assert not (full or uncovered >= held), f"{name} step {i}"


@pytest.mark.parametrize("name", [n for n in NAMES if "perevodnoy" in n])
def test_R_B6_R_B7_transfers_in_perevodnoy_goldens(name: str) -> None:
    """A transfer (or a trump shown) passes the bout to the next active opponent on the
    transferring defender's left, who must hold at least as many cards as there are attack
    cards; the transferring player becomes the main attacker; a shown trump stays in his
    hand (R-B6, R-B7, R-T2)."""
    record = load(name)
    s = steps(name)
    seen = 0
    for i, action in enumerate(record.actions):
        if action.do.value not in ("transfer", "show") or not s[i + 1]["ok"]:
            continue
        before, after = s[i]["state"], s[i + 1]["state"]
        if not after["table"]:
            continue  # the bout ended at once (cannot happen after a transfer)
        seen += 1
        d = action.seat
        assert before["defender"] == d and all(c is None for _, c in before["table"])
        n = record.seats
        new = next(
            x
            for k in range(1, n)
            if (x := (d + k) % n) not in after["out"] and _team(record, x) != _team(record, d)
        )
        assert (after["attacker"], after["defender"]) == (d, new), f"{name} action {i + 1}"
        assert len(after["hands"][new]) >= len(after["table"])
        card = str(action.card)
        if action.do.value == "show":
            assert card in after["hands"][d] and len(after["table"]) == len(before["table"])
        else:
            assert [a for a, _ in after["table"]] == [*(a for a, _ in before["table"]), card]
    assert seen


def test_R_B6_no_transfer_in_the_first_bout_when_off() -> None:
    """transfer_first_bout = false: nothing may be transferred until the first bout ends."""
    s = steps("perevodnoy-4p-no-first-transfer")
    first_bout_over = next(i for i in range(1, len(s)) if not s[i]["state"]["table"])
    for step in s[:first_bout_over]:
        assert all(
            a["do"] not in ("transfer", "show") for acts in step["legal"].values() for a in acts
        )
    assert any(
        a["do"] == "transfer"
        for step in s[first_bout_over:]
        for acts in step["legal"].values()
        for a in acts
    )


@pytest.mark.parametrize("name", NAMES)
def test_R_F1_R_F3_R_P1_first_attack_in_every_golden(name: str) -> None:
    """A first game: the holder of the lowest trump attacks first, or the dealer's left when
    nobody holds one (R-F1); Dureń: the dealer's left (R-P1).  The defender is the next
    opponent on the attacker's left (R-F3, R-T2)."""
    record = load(name)
    st = steps(name)[0]["state"]
    n = record.seats
    if record.previous is not None:
        return  # R-F2, checked literally above
    hands = dealt(record)
    trump = st["trump"]
    if record.rules.variant.value == "duren":
        first = (record.dealer + 1) % n
    else:
        trumps = [
            (c.rank, seat) for seat in range(n) for c in hands[seat] if c.suit.letter == trump
        ]
        first = min(trumps)[1] if trumps else (record.dealer + 1) % n
    defender = next(
        x for k in range(1, n) if _team(record, x := (first + k) % n) != _team(record, first)
    )
    assert (st["attacker"], st["defender"]) == (first, defender), name
