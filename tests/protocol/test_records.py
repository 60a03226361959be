"""Game records (records.md): reading, writing, refusing what is not a valid record, and the
journal of a live game.  Literal JSON, as a record file holds it."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localdurak.game.actions import Action, GameResult
from localdurak.game.cards import Card, deck_cards
from localdurak.game.engine import Game
from localdurak.game.rules import Rules, Variant
from localdurak.protocol.records import (
    Record,
    RecordError,
    journal_action,
    journal_append,
    journal_header,
    journal_set,
    parse_record,
    read_journal,
    record_from_journal,
    replay,
    replay_steps,
)

DECK_36 = (
    '["KC", "TD", "8S", "9C", "7D", "6C", "JD", "AH", "QC", "7H", "8H", "6D", "JS", "7S", '
    '"6H", "JC", "AC", "8C", "9D", "TH", "AD", "6S", "7C", "9S", "QS", "KD", "9H", "8D", "QH", '
    '"JH", "QD", "TC", "KS", "KH", "TS", "AS"]'
)

RECORD = (
    """{
  "format": "localdurak-record/1",
  "rules": {"variant": "perevodnoy", "deck": 36, "trump_show": true},
  "seats": 3,
  "names": ["Ann", "Bob", "Cy"],
  "dealer": 2,
  "deck": """
    + DECK_36
    + """,
  "actions": [
    {"seat": 0, "do": "attack", "cards": ["6S"], "t": 1.5},
    {"seat": 1, "do": "transfer", "card": "6H"},
    {"seat": 2, "do": "cover", "card": "7S", "on": "6S"},
    {"seat": 1, "do": "pass"},
    {"seat": 2, "do": "take"},
    {"seat": 0, "do": "challenge", "card": "6H"}
  ],
  "series": 4,
  "transcript": [{"step": "commit"}]
}"""
)


def record_obj(**changes: Any) -> dict[str, Any]:
    obj: dict[str, Any] = json.loads(RECORD)
    for key, value in changes.items():
        if value is _DROP:
            del obj[key]
        else:
            obj[key] = value
    return obj


_DROP = object()


def test_reads_the_records_md_example() -> None:
    r = parse_record(RECORD)
    assert r.rules == Rules(variant=Variant.PEREVODNOY, trump_show=True)
    assert r.seats == 3 and r.dealer == 2
    assert r.names == ("Ann", "Bob", "Cy")
    assert r.deck[:3] == (Card.parse("KC"), Card.parse("TD"), Card.parse("8S"))
    assert len(r.deck) == 36
    assert r.actions[1] == Action.transfer(1, Card.parse("6H"))
    assert r.actions[2] == Action.cover(2, Card.parse("7S"), Card.parse("6S"))
    assert r.previous is None


def test_round_trip_keeps_unknown_keys() -> None:
    """records.md: readers ignore keys they do not know; we keep them, also inside actions."""
    r = parse_record(RECORD)
    assert r.extra == {"series": 4, "transcript": [{"step": "commit"}]}
    assert r.action_extra == {0: {"t": 1.5}}
    again = parse_record(r.to_json())
    assert again == r and again.extra == r.extra and again.action_extra == r.action_extra
    out = json.loads(r.to_json())
    # The options at their defaults are left out (records.md: a left-out option has its default).
    assert out["rules"] == {"variant": "perevodnoy", "trump_show": True}
    assert out["actions"][0] == {"seat": 0, "do": "attack", "cards": ["6S"], "t": 1.5}
    assert out["series"] == 4
    assert list(out) == [
        "format",
        "rules",
        "seats",
        "names",
        "dealer",
        "deck",
        "actions",
        "series",
        "transcript",
    ]


def test_written_one_action_per_line() -> None:
    text = parse_record(RECORD).to_json()
    assert '    {"seat": 1, "do": "transfer", "card": "6H"},\n' in text
    assert text.startswith('{\n  "format": "localdurak-record/1",\n')


def test_accepts_other_card_notations_and_writes_canonical() -> None:
    obj = record_obj()
    obj["deck"] = ["10D" if c == "TD" else c for c in obj["deck"]]
    obj["actions"] = [{"seat": 0, "do": "attack", "cards": ["6♠"]}]
    r = Record.from_dict(obj)
    assert json.loads(r.to_json())["deck"][1] == "TD"
    assert r.actions[0].cards == (Card.parse("6S"),)


def test_names_optional_previous_kept() -> None:
    r = Record.from_dict(
        record_obj(names=_DROP, previous={"durak": [1], "draw": False, "pogony": 2})
    )
    assert r.names is None
    assert r.previous == GameResult((1,), False, 2)
    assert json.loads(r.to_json())["previous"] == {"durak": [1], "draw": False, "pogony": 2}


def test_with_action_builds_one_action_at_a_time() -> None:
    r = parse_record(RECORD).truncated(0)
    assert r.actions == () and r.action_extra == {}
    r = r.with_action(Action.attack(0, Card.parse("6S")), t=0.25)
    r = r.with_action(Action.take(1))
    assert r.action_extra == {0: {"t": 0.25}}
    assert json.loads(r.to_json())["actions"] == [
        {"seat": 0, "do": "attack", "cards": ["6S"], "t": 0.25},
        {"seat": 1, "do": "take"},
    ]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "a record is a JSON object"),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_not_a_record_at_all(text: str | bytes, says: str) -> None:
    with pytest.raises(RecordError, match=says):
        parse_record(text)


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"format": "localdurak-record/2"}, "format"),
        ({"format": _DROP}, "no 'format'"),
        ({"rules": _DROP}, "no 'rules'"),
        ({"seats": _DROP}, "no 'seats'"),
        ({"dealer": _DROP}, "no 'dealer'"),
        ({"deck": _DROP}, "no 'deck'"),
        ({"actions": _DROP}, "no 'actions'"),
        ({"rules": {"variant": "perevodnoy", "jokers": True}}, "unknown table option"),
        ({"rules": {"variant": "blackjack"}}, "variant"),
        ({"rules": {"deck": 32}}, "deck"),
        ({"rules": {"trump_show": True}}, "perevodnoy only"),
        ({"rules": {"teams": "2v2"}}, "4 players"),
        ({"rules": "podkidnoy"}, "rules"),
        ({"seats": 7}, "2 to 6"),
        ({"seats": 1}, "2 to 6"),
        ({"seats": "3"}, "seats"),
        ({"rules": {"deck": 24}, "seats": 5}, "more than the 24-card deck"),
        ({"dealer": 3}, "dealer is seat 3"),
        ({"dealer": -1}, "dealer is seat -1"),
        ({"dealer": True}, "dealer"),
        ({"names": ["Ann", "Bob"]}, "one name per seat"),
        ({"names": "Ann"}, "names"),
        ({"previous": {"durak": [], "draw": False, "pogony": 0}}, "previous"),
        ({"previous": {"durak": [5], "draw": False, "pogony": 0}}, "previous"),
        ({"actions": {"seat": 0}}, "list of actions"),
        ({"actions": [{"seat": 3, "do": "take"}]}, "action 1 is by seat 3"),
        ({"actions": [{"seat": 0, "do": "fold"}]}, "unknown action 'fold'"),
        ({"actions": [{"do": "take"}]}, "seat"),
        ({"actions": [{"seat": 0, "do": "cover", "card": "7S"}]}, "needs the field 'on'"),
        ({"actions": [{"seat": 0, "do": "attack", "cards": ["6S", "1S"]}]}, "not a card"),
        ({"actions": [{"seat": 0, "do": "transfer", "card": "6X"}]}, "not a card"),
    ],
)
def test_not_a_valid_record(changes: dict[str, Any], says: str) -> None:
    """records.md: each of these is "not a valid record" (exit 2), not an illegal action."""
    with pytest.raises(RecordError, match=says):
        Record.from_dict(record_obj(**changes))


@pytest.mark.parametrize(
    ("deck", "says"),
    [
        (json.loads(DECK_36)[:-1], "35 cards, not 36: it lacks AS"),
        ([*json.loads(DECK_36)[:-1], "KC"], "holds KC twice"),
        ([*json.loads(DECK_36)[:-1], "2S"], "2S, which is not in the 36-card deck"),
        ([*json.loads(DECK_36), "5S"], "5S, which is not in the 36-card deck"),
        ([*json.loads(DECK_36)[:-1], "ZZ"], "deck card 36"),
        ([*json.loads(DECK_36)[:-1], 7], "deck card 36 is 7"),
        ("KC TD", "deck"),
    ],
)
def test_deck_must_be_a_permutation_of_the_rules_deck(deck: Any, says: str) -> None:
    with pytest.raises(RecordError, match=says):
        Record.from_dict(record_obj(deck=deck))


def test_a_card_outside_the_deck_in_an_action_is_for_the_rules() -> None:
    """reading: 2S in a 36-card game is a card; the rules refuse it (ok: false), so the record
    is valid."""
    r = Record.from_dict(record_obj(actions=[{"seat": 0, "do": "attack", "cards": ["2S"]}]))
    assert r.actions[0].cards == (Card.parse("2S"),)


# --- the journal ------------------------------------------------------------------------------


def _journal() -> str:
    r = parse_record(RECORD)
    lines = [
        journal_header(r.rules, r.seats, r.dealer, names=r.names, series=4),
        journal_action(r.actions[0], t=1.5),
        journal_append("transcript", {"step": "commit"}),
    ]
    lines += [journal_action(a) for a in r.actions[1:]]
    lines.append(journal_set("deck", r.deck))
    return "".join(lines)


def test_journal_folds_into_the_record() -> None:
    text = _journal()
    assert text.count("\n") == 9 and all(json.loads(line) for line in text.splitlines())
    assert text.splitlines()[1] == ('{"action":{"seat":0,"do":"attack","cards":["6S"],"t":1.5}}')
    assert record_from_journal(text) == parse_record(RECORD)
    assert record_from_journal(text).to_json() == parse_record(RECORD).to_json()


def test_journal_without_deck_reads_but_is_no_record_yet() -> None:
    """Under card privacy the deck is known only after the reveal: a crashed game's journal
    still gives its actions (for --resume) but not a replayable record."""
    text = "".join(_journal().splitlines(keepends=True)[:5])
    obj = read_journal(text)
    assert "deck" not in obj and len(obj["actions"]) == 3
    with pytest.raises(RecordError, match="no 'deck'"):
        record_from_journal(text)


def test_journal_torn_last_line_is_ignored() -> None:
    """A crash in the middle of writing a line loses only that line."""
    full = _journal()
    lines = full.splitlines(keepends=True)
    torn = "".join(lines[:4]) + lines[4][:10]
    assert read_journal(torn)["actions"] == read_journal("".join(lines[:4]))["actions"]
    assert len(read_journal(torn)["actions"]) == 2


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ('{"format": "localdurak-record/1"}\n', "not a localdurak-journal/1"),
        ('{"journal": "localdurak-journal/1"}\nnope\n{"set": {"x": 1}}\n', "line 2 is not JSON"),
        ('{"journal": "localdurak-journal/1"}\n{"set": {"actions": []}}\n', "may not set"),
        ('{"journal": "localdurak-journal/1"}\n{"push": {"x": 1}}\n', "one of action"),
        ('{"journal": "localdurak-journal/1"}\n[1]\n', "not a JSON object"),
        ('{"journal": "localdurak-journal/1", "x": 1}\n{"append": {"x": 2}}\n', "no list"),
    ],
)
def test_journal_refuses_what_is_not_a_journal(text: str, says: str) -> None:
    with pytest.raises(RecordError, match=says):
        read_journal(text)


def test_journal_appends_build_a_list() -> None:
    head = '{"journal": "localdurak-journal/1"}\n'
    assert read_journal(head + '{"append": {"x": 1}}\n{"append": {"x": 2}}\n')["x"] == [1, 2]


def test_journal_writer_refuses_record_fields_as_notes() -> None:
    with pytest.raises(RecordError):
        journal_action(Action.take(1), seat=2)
    with pytest.raises(RecordError):
        journal_set("actions", [])
    with pytest.raises(RecordError):
        journal_append("deck", "6S")


# --- properties over random games -------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), variant=st.sampled_from(["podkidnoy", "perevodnoy", "duren"]))
def test_random_games_round_trip_as_record_and_journal(seed: int, variant: str) -> None:
    """A record written action by action (as a journal, or with `with_action`) reads back as
    the same game, and replay() of any prefix is that step of replay_steps()."""
    rng = random.Random(seed)
    rules = Rules.from_dict({"variant": variant})
    seats = rng.randint(2, 4)
    deck = list(deck_cards(36))
    rng.shuffle(deck)
    dealer = rng.randrange(seats)
    game = Game.deal(rules, seats, dealer, deck)
    record = Record(rules, seats, dealer, tuple(deck))
    lines = [journal_header(rules, seats, dealer)]
    while game.result is None and len(record.actions) < 60:
        options = [legal for s in range(seats) if (legal := game.legal_actions(s))]
        action = rng.choice(rng.choice(options))
        game.apply(action)
        record = record.with_action(action, n=len(record.actions))
        lines.append(journal_action(action, n=len(record.actions) - 1))
    lines.append(journal_set("deck", deck))
    assert parse_record(record.to_json()) == record
    from_journal = record_from_journal("".join(lines))
    assert from_journal == record and from_journal.action_extra == record.action_extra
    all_steps = list(replay_steps(record))
    assert len(all_steps) == len(record.actions) + 1
    k = rng.randrange(len(all_steps))
    assert replay(record.truncated(k)) == all_steps[k]
    assert all_steps[-1]["ok"] and all_steps[-1]["applied"] == len(record.actions)
