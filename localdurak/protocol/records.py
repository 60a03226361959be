"""Game records (records.md): read, write, and replay them with the rules engine.

Sans-I/O: JSON text in, JSON text out; the caller reads and writes files.

- `Record` is one game, fully determined: table options, seats, dealer, the deck in deal
  order and the actions.  `parse_record(text)` reads one and raises `RecordError` for
  everything records.md calls "not a valid record"; `Record.to_json()` writes it back, keeping
  the keys this version does not know (records.md: readers ignore them, we also keep them).
- `replay(record)` is `localdurak replay --json`: it applies the actions one by one and
  describes the game after the last one, or just before the first one the rules refuse.
  `replay_steps(record)` gives the same object after every prefix of the actions (golden tests).
- The journal: a live game is written as JSON Lines, one line per event, flushed as it
  happens, so that a crash loses nothing.  The first line is the header (the record without its
  actions; under card privacy the deck is not known yet), each following line adds an action,
  sets a top-level key (the deck once the keys are revealed, the audit verdict) or appends an
  item to a list (a transcript entry).  `read_journal` folds the lines back into the record
  object, ignoring a torn last line; `record_from_journal` turns it into a `Record`.

Readings of records.md (where it is silent):

- reading: the optional key ``previous`` holds the result of the previous game at the same
  table (records.md's ``result`` form), for a later game of a series: R-F2 (who attacks first)
  depends on it.  Absent or null: a first game (R-F1).
- reading: ``rules``, ``seats``, ``dealer``, ``deck`` and ``actions`` are required (``actions``
  may be empty); ``names``, when present and not null, is a list of one string per seat.
- reading: a card in an action that is a card but not in this deck (``2S`` with 36 cards) is a
  well-formed action the rules refuse (nobody can hold it): ``ok: false``, not an invalid record.
- reading: cards are read in every notation `Card.parse` accepts (``10D``, ``Q♥``) and always
  written canonically (``TD``).
- reading: `replay` lists ``legal`` in a fixed order (attack, cover, transfer, show, take,
  pass, challenge; cards in hand order) and writes the cards of a Dureń lead in the order hands
  are shown (non-trumps by rank, suits S H D C, then trumps), so outputs can be compared as text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from localdurak.game.actions import (
    Action,
    ActionFormatError,
    Do,
    GameResult,
    IllegalAction,
)
from localdurak.game.cards import Card, CardError, Suit, deck_cards
from localdurak.game.engine import Game
from localdurak.game.rules import Rules, RulesError

FORMAT: Final = "localdurak-record/1"
JOURNAL_FORMAT: Final = "localdurak-journal/1"

# The keys records.md defines, in the order a record is written.
_KNOWN_KEYS: Final = ("format", "rules", "seats", "names", "dealer", "previous", "deck", "actions")
_REQUIRED_KEYS: Final = ("format", "rules", "seats", "dealer", "deck", "actions")


class RecordError(ValueError):
    """Not a valid record (records.md): the message says what is wrong, for a person."""


@dataclass(frozen=True)
class Record:
    """One game as records.md writes it.  Validated on construction.

    ``extra`` keeps the top-level keys records.md does not define and ``action_extra`` the
    unknown keys of individual actions (by action index), so a record round-trips.
    """

    rules: Rules
    seats: int
    dealer: int
    deck: tuple[Card, ...]
    actions: tuple[Action, ...] = ()
    names: tuple[str, ...] | None = None
    previous: GameResult | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False)
    action_extra: Mapping[int, Mapping[str, Any]] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        try:
            self.rules.check_seats(self.seats)
        except RulesError as e:
            raise RecordError(str(e)) from None
        if isinstance(self.dealer, bool) or not isinstance(self.dealer, int):
            raise RecordError(f"'dealer' must be a seat number, not {self.dealer!r}")
        if not 0 <= self.dealer < self.seats:
            raise RecordError(
                f"the dealer is seat {self.dealer}, but the seats are 0 to {self.seats - 1}"
            )
        _check_deck(self.deck, self.rules.deck)
        for i, action in enumerate(self.actions):
            if not 0 <= action.seat < self.seats:
                raise RecordError(
                    f"action {i + 1} is by seat {action.seat}, "
                    f"but the seats are 0 to {self.seats - 1}"
                )
        if self.names is not None and (
            len(self.names) != self.seats or not all(isinstance(n, str) for n in self.names)
        ):
            raise RecordError(f"'names' must list one name per seat ({self.seats})")
        if self.previous is not None:
            prev = self.previous
            if any(not 0 <= s < self.seats for s in prev.durak) or (prev.draw == bool(prev.durak)):
                raise RecordError(
                    "'previous' must be the previous game's result at this table: "
                    "a draw with no durak, or the durak seats"
                )
        for i in self.action_extra:
            if not 0 <= i < len(self.actions):
                raise RecordError(f"notes for action {i + 1}, which the record does not have")
        for key in self.extra:
            if key in _KNOWN_KEYS:
                raise RecordError(f"{key!r} is a record field, not an extra key")

    # --- building -----------------------------------------------------------------------

    def with_action(self, action: Action, **notes: Any) -> Record:
        """This record with one more action (and optional notes kept beside it)."""
        extra = dict(self.action_extra)
        if notes:
            extra[len(self.actions)] = dict(notes)
        return Record(
            self.rules,
            self.seats,
            self.dealer,
            self.deck,
            (*self.actions, action),
            self.names,
            self.previous,
            self.extra,
            extra,
        )

    def truncated(self, n: int) -> Record:
        """The record of the same game after its first ``n`` actions."""
        return Record(
            self.rules,
            self.seats,
            self.dealer,
            self.deck,
            self.actions[:n],
            self.names,
            self.previous,
            self.extra,
            {i: v for i, v in self.action_extra.items() if i < n},
        )

    # --- writing ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record object (JSON types only).  ``rules`` lists the options that differ
        from their defaults (records.md: an option left out has its default)."""
        out: dict[str, Any] = {
            "format": FORMAT,
            "rules": self.rules.non_defaults(),
            "seats": self.seats,
        }
        if self.names is not None:
            out["names"] = list(self.names)
        out["dealer"] = self.dealer
        if self.previous is not None:
            out["previous"] = self.previous.to_dict()
        out["deck"] = [str(c) for c in self.deck]
        actions = []
        for i, action in enumerate(self.actions):
            d = action.to_dict()
            d.update(self.action_extra.get(i, {}))
            actions.append(d)
        out["actions"] = actions
        out.update(self.extra)
        return out

    def to_json(self) -> str:
        """The record as JSON text: one line per top-level key and per action, so that a
        record reads well and diffs well."""
        return dumps_record(self.to_dict())

    @classmethod
    def from_dict(cls, data: Any) -> Record:
        """Validate a parsed record object (records.md); `RecordError` says what is wrong."""
        if not isinstance(data, Mapping):
            raise RecordError("a record is a JSON object")
        # The format first: another version's record may well lack our other fields.
        if "format" not in data:
            raise RecordError(f"the record has no 'format' field (it should be {FORMAT!r})")
        if data["format"] != FORMAT:
            raise RecordError(
                f"the format is {data['format']!r}; this program reads {FORMAT!r} records"
            )
        for key in _REQUIRED_KEYS:
            if key not in data:
                raise RecordError(f"the record has no {key!r} field")
        try:
            rules = Rules.from_dict(data["rules"])
        except (RulesError, TypeError, ValueError) as e:
            raise RecordError(f"impossible rules: {e}") from None
        seats = data["seats"]
        if isinstance(seats, bool) or not isinstance(seats, int):
            raise RecordError(f"'seats' must be the number of players, not {seats!r}")
        try:
            rules.check_seats(seats)
        except RulesError as e:
            raise RecordError(f"impossible table: {e}") from None
        deck = _parse_deck(data["deck"])
        raw_actions = data["actions"]
        if not isinstance(raw_actions, list):
            raise RecordError("'actions' must be a list of actions")
        actions: list[Action] = []
        action_extra: dict[int, dict[str, Any]] = {}
        for i, raw in enumerate(raw_actions):
            try:
                action = Action.from_dict(raw)
            except ActionFormatError as e:
                raise RecordError(f"action {i + 1}: {e}") from None
            actions.append(action)
            notes = {k: v for k, v in raw.items() if k not in _ACTION_KEYS}
            if notes:
                action_extra[i] = notes
        names = data.get("names")
        if names is not None:
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise RecordError("'names' must be a list of names, one per seat")
            names = tuple(names)
        previous = data.get("previous")
        if previous is not None:
            if not isinstance(previous, Mapping):
                raise RecordError("'previous' must be a game result object, or null")
            try:
                previous = GameResult.from_dict(previous)
            except ValueError as e:
                raise RecordError(f"'previous': {e}") from None
        return cls(
            rules,
            seats,
            data["dealer"],
            deck,
            tuple(actions),
            names,
            previous,
            {k: v for k, v in data.items() if k not in _KNOWN_KEYS},
            action_extra,
        )


_ACTION_KEYS: Final = frozenset({"seat", "do", "cards", "card", "on"})


def parse_record(text: str | bytes) -> Record:
    """Read a record from JSON text; `RecordError` when it is not a valid record."""
    return Record.from_dict(_loads(text))


def _loads(text: str | bytes) -> Any:
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise RecordError(f"not UTF-8 text: {e}") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise RecordError("not JSON: nested too deeply") from None
    except ValueError as e:  # JSONDecodeError, or a number with more digits than Python reads
        raise RecordError(f"not JSON: {e}") from None


def dumps_record(data: Mapping[str, Any]) -> str:
    """A record object as text: one top-level key per line, one action per line."""
    lines = []
    items = list(data.items())
    for n, (key, value) in enumerate(items):
        comma = "," if n < len(items) - 1 else ""
        if key == "actions" and isinstance(value, list) and value:
            inner = ",\n".join("    " + _compact(a) for a in value)
            lines.append(f"  {_compact(key)}: [\n{inner}\n  ]{comma}")
        else:
            lines.append(f"  {_compact(key)}: {_compact(value)}{comma}")
    return "{\n" + "\n".join(lines) + "\n}\n"


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _parse_deck(raw: Any) -> tuple[Card, ...]:
    if not isinstance(raw, list):
        raise RecordError("'deck' must be the list of the deck's cards in deal order")
    cards = []
    for i, text in enumerate(raw):
        if not isinstance(text, str):
            raise RecordError(f'deck card {i + 1} is {text!r}, not a card like "TD" (R-C2)')
        try:
            cards.append(Card.parse(text))
        except CardError as e:
            raise RecordError(f"deck card {i + 1}: {e}") from None
    return tuple(cards)


def _check_deck(deck: Sequence[Card], size: int) -> None:
    """The deck must be a permutation of the deck the rules name (records.md)."""
    want = set(deck_cards(size))
    seen: set[Card] = set()
    for card in deck:
        if card in seen:
            raise RecordError(f"the deck holds {card} twice")
        if card not in want:
            raise RecordError(f"the deck holds {card}, which is not in the {size}-card deck (R-C1)")
        seen.add(card)
    missing = sorted(want - seen)
    if missing:
        shown = " ".join(str(c) for c in missing[:8]) + (" ..." if len(missing) > 8 else "")
        raise RecordError(
            f"the deck has {len(deck)} cards, not {size}: it lacks {shown} "
            "(the deck must be a permutation of the rules' deck)"
        )


# --- replay -------------------------------------------------------------------------------


def hand_order(trump: Suit | None) -> Callable[[Card], tuple[bool, int, int]]:
    """The client's order of a hand (records.md): non-trumps by rank, ties in suit order
    S H D C, then trumps by rank.  A sort key."""

    def key(card: Card) -> tuple[bool, int, int]:
        return (card.suit is trump, card.rank, card.suit)

    return key


_DO_ORDER: Final = {d: i for i, d in enumerate(Do)}
_Key = Callable[[Card], tuple[bool, int, int]]


def start_game(record: Record) -> Game:
    """The engine's game dealt as the record says (no actions applied)."""
    try:
        return Game.deal(
            record.rules, record.seats, record.dealer, record.deck, previous=record.previous
        )
    except ValueError as e:  # a deal the engine refuses is no valid record either
        raise RecordError(f"the engine cannot deal this game: {e}") from None


def describe(game: Game, seats: int) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    """records.md's ``state`` and ``legal`` for a game."""
    trump: Suit = game.trump
    key = hand_order(trump)
    state = {
        "trump": trump.letter,
        "trump_card": None if game.trump_card is None else str(game.trump_card),
        "stock": game.stock_count,
        "discard": game.discard_count,
        "hands": [[str(c) for c in sorted(game.hand(s), key=key)] for s in range(seats)],
        "table": [[str(a), None if c is None else str(c)] for a, c in game.table],
        "attacker": game.attacker,
        "defender": game.defender,
        "phase": str(game.phase),
        "out": list(game.out),
        "marked": list(game.marked),
    }
    legal: dict[str, list[dict[str, Any]]] = {}
    for s in range(seats):
        actions = sorted(game.legal_actions(s), key=lambda a: _action_key(a, key))
        legal[str(s)] = [_legal_form(a, key) for a in actions]
    return state, legal


def _action_key(action: Action, key: _Key) -> tuple[Any, ...]:
    cards = sorted(action.cards, key=key)
    return (
        _DO_ORDER[action.do],
        len(cards),
        [key(c) for c in cards],
        () if action.card is None else key(action.card),
        () if action.on is None else key(action.on),
    )


def _legal_form(action: Action, key: _Key) -> dict[str, Any]:
    d = action.to_dict(with_seat=False)
    if action.do is Do.ATTACK:
        d["cards"] = [str(c) for c in sorted(action.cards, key=key)]
    return d


def replay_steps(record: Record) -> Iterator[dict[str, Any]]:
    """The ``replay --json`` object after 0, 1, 2 ... actions: one per prefix of the record,
    ending with the full record's object (or the one that refuses an action)."""
    game = start_game(record)
    for applied, action in enumerate(record.actions):
        state, legal = describe(game, record.seats)
        yield _replay_object(True, applied, None, state, legal, game.result)
        try:
            game.apply(action)
        except IllegalAction as e:
            # records.md: state and legal describe the game just before the refused action.
            yield _replay_object(False, applied, str(e), state, legal, game.result)
            return
    state, legal = describe(game, record.seats)
    yield _replay_object(True, len(record.actions), None, state, legal, game.result)


def replay(record: Record) -> dict[str, Any]:
    """The ``localdurak replay RECORD --json`` object (records.md)."""
    game = start_game(record)
    for applied, action in enumerate(record.actions):
        try:
            game.apply(action)
        except IllegalAction as e:
            state, legal = describe(game, record.seats)
            return _replay_object(False, applied, str(e), state, legal, game.result)
    state, legal = describe(game, record.seats)
    return _replay_object(True, len(record.actions), None, state, legal, game.result)


def _replay_object(
    ok: bool,
    applied: int,
    error: str | None,
    state: dict[str, Any],
    legal: dict[str, list[dict[str, Any]]],
    result: GameResult | None,
) -> dict[str, Any]:
    return {
        "ok": ok,
        "applied": applied,
        "error": error,
        "state": state,
        "legal": legal,
        "result": None if result is None else result.to_dict(),
    }


# --- the journal of a live game -------------------------------------------------------------


def journal_header(
    rules: Rules,
    seats: int,
    dealer: int,
    *,
    names: Sequence[str] | None = None,
    previous: GameResult | None = None,
    deck: Sequence[Card] | None = None,
    **extra: Any,
) -> str:
    """The journal's first line: the record without its actions.  Under card privacy the deck
    is unknown when the game starts; `journal_set("deck", ...)` adds it after the reveal."""
    head: dict[str, Any] = {
        "journal": JOURNAL_FORMAT,
        "format": FORMAT,
        "rules": rules.non_defaults(),
        "seats": seats,
    }
    if names is not None:
        head["names"] = list(names)
    head["dealer"] = dealer
    if previous is not None:
        head["previous"] = previous.to_dict()
    if deck is not None:
        head["deck"] = [str(c) for c in deck]
    for key, value in extra.items():
        if key in _KNOWN_KEYS or key == "journal":
            raise RecordError(f"{key!r} is a record field, not an extra key")
        head[key] = value
    return _line(head)


def journal_action(action: Action, **notes: Any) -> str:
    """One journal line: an action applied (with notes such as a timestamp)."""
    d = action.to_dict()
    for key, value in notes.items():
        if key in _ACTION_KEYS:
            raise RecordError(f"{key!r} is an action field, not a note")
        d[key] = value
    return _line({"action": d})


def journal_set(key: str, value: Any) -> str:
    """One journal line: set a top-level key of the record (the deck, a verdict ...)."""
    if key in ("format", "actions", "journal"):
        raise RecordError(f"the journal cannot set {key!r}")
    if key == "deck" and isinstance(value, Sequence) and not isinstance(value, str):
        value = [str(c) for c in value]
    return _line({"set": {key: value}})


def journal_append(key: str, item: Any) -> str:
    """One journal line: append an item to a top-level list of the record (a transcript)."""
    if key in _KNOWN_KEYS or key == "journal":
        raise RecordError(f"the journal cannot append to {key!r}")
    return _line({"append": {key: item}})


def _line(obj: Mapping[str, Any]) -> str:
    # One JSON object per line; ensure_ascii keeps every line free of stray line separators.
    return json.dumps(obj, separators=(",", ":")) + "\n"


def read_journal(text: str | bytes) -> dict[str, Any]:
    """Fold a journal back into the record object (not validated: the deck may be missing).

    A last line without its newline is a write the crash cut short: it is ignored.  That is
    safe because the writer (the host) writes and flushes each line, newline included, before
    it announces the action to anybody, so an action whose line is incomplete never happened
    for the players either.  Any other bad line makes the journal unreadable (`RecordError`).
    The host resumes from this object: ``Action.from_dict`` on each of its ``actions``."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise RecordError(f"the journal is not UTF-8 text: {e}") from None
    lines = text.split("\n")
    if lines and lines[-1] != "":
        lines.pop()  # torn last line
    else:
        lines = lines[:-1]
    if not lines:
        raise RecordError("the journal is empty")
    objs = []
    for n, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):  # ValueError: also a number too long to read
            raise RecordError(f"journal line {n} is not JSON") from None
        if not isinstance(obj, dict):
            raise RecordError(f"journal line {n} is not a JSON object")
        objs.append(obj)
    head = objs[0]
    if head.get("journal") != JOURNAL_FORMAT:
        raise RecordError(f"not a {JOURNAL_FORMAT} journal (its first line says otherwise)")
    record = {k: v for k, v in head.items() if k != "journal"}
    actions: list[Any] = []
    for n, obj in enumerate(objs[1:], 2):
        if len(obj) != 1:
            raise RecordError(f"journal line {n} must hold one of action, set, append")
        ((kind, body),) = obj.items()
        if kind == "action":
            actions.append(body)
        elif kind in ("set", "append") and isinstance(body, dict) and len(body) == 1:
            ((key, value),) = body.items()
            if key in ("format", "actions", "journal") or (kind == "append" and key in _KNOWN_KEYS):
                raise RecordError(f"journal line {n} may not {kind} {key!r}")
            if kind == "set":
                record[key] = value
            else:
                items = record.setdefault(key, [])
                if not isinstance(items, list):
                    raise RecordError(f"journal line {n} appends to {key!r}, which is no list")
                items.append(value)
        else:
            raise RecordError(f"journal line {n} must hold one of action, set, append")
    record["actions"] = actions
    # Keep the records.md key order, then the extra keys in the order they came.
    ordered = {k: record[k] for k in _KNOWN_KEYS if k in record}
    ordered.update((k, v) for k, v in record.items() if k not in ordered)
    return ordered


def record_from_journal(text: str | bytes) -> Record:
    """The finished record of a journal (`RecordError` if it is not one yet, e.g. no deck)."""
    return Record.from_dict(read_journal(text))
