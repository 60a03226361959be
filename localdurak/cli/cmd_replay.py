"""`localdurak replay RECORD [--json]`: replay a game record (records.md).

Exit status (records.md): 0 every action applied, 1 an action the rules refuse, 2 the file is
not a valid record (the reason on standard error, nothing on standard output).

Without ``--json`` it prints an account for people, bout by bout: who attacked whom with
what, covers, transfers, takes, bito, who drew what from the stock and in which order, who
went out, and the result with its pogony.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from typing import Any

from localdurak.cli import record_file
from localdurak.cli.i18n import _
from localdurak.cli.options import client_parent
from localdurak.game.actions import Action, Do, IllegalAction
from localdurak.game.cards import RANK_LETTERS, Card, Suit, lowest_rank
from localdurak.game.rules import Teams, Variant
from localdurak.protocol.records import (
    Record,
    RecordError,
    hand_order,
    parse_record,
    replay,
    start_game,
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "replay",
        parents=[client_parent()],
        help=_("replay a game record"),
        description=_("Replay a game record (records.md) with the rules engine."),
    )
    p.add_argument(
        "record",
        metavar="RECORD",
        help=_("the record file (JSON) or its journal (.journal); - for stdin"),
    )
    p.add_argument(
        "--json", action="store_true", help=_("print the final state as one JSON object")
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Suit symbols on a terminal that cannot show them: escape rather than crash (in JSON the
    # escape \u2660 is still valid JSON).
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        if args.record == "-":
            data: bytes = sys.stdin.buffer.read()
        else:
            with open(args.record, "rb") as f:
                data = f.read()
    except OSError as e:
        print(
            "localdurak replay: "
            + _("cannot read {path}: {reason}").format(path=args.record, reason=e.strerror),
            file=sys.stderr,
        )
        return 2
    try:
        if record_file.is_journal(data):
            record = Record.from_dict(record_file.load(data))
        else:
            record = parse_record(data)
        start_game(record)  # the engine's own checks of the deal
    except RecordError as e:
        print(
            "localdurak replay: "
            + _("{path} is not a valid record: {reason}").format(path=args.record, reason=e),
            file=sys.stderr,
        )
        return 2
    if args.json:
        out = replay(record)
        print(json.dumps(out, ensure_ascii=False))
        return 0 if out["ok"] else 1
    lines, ok = account(record, ascii_only=args.ascii)
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0 if ok else 1


# --- the account for people -----------------------------------------------------------------


def account(record: Record, *, ascii_only: bool = False) -> tuple[list[str], bool]:
    """The game told bout by bout; ``ok`` is false when the rules refuse an action."""
    teller = _Teller(record, ascii_only)
    return teller.tell()


class _Teller:
    def __init__(self, record: Record, ascii_only: bool) -> None:
        self.record = record
        self.ascii = ascii_only
        self.game = start_game(record)
        self.key = hand_order(self.game.trump)
        # Where each card lies in the deck: the stock is drawn from the top, so sorting the
        # cards drawn in a refill by this index gives the order they were drawn in (R-B12).
        self.position = {card: i for i, card in enumerate(record.deck)}
        if self.game.trump_card is not None:
            self.position[self.game.trump_card] = len(record.deck)  # R-D2: drawn last
        self.lines: list[str] = []
        self.bout = 0
        self.played_by: dict[Card, int] = {}
        """Who put each card on the table (for naming a caught cheater, R-S3)."""

    def who(self, seat: int) -> str:
        names = self.record.names
        return names[seat] if names else f"seat {seat}"

    def cards(self, cards: Any, *, in_hand_order: bool = True) -> str:
        cs = sorted(cards, key=self.key) if in_hand_order else list(cards)
        return " ".join(c.pretty(self.ascii) for c in cs) if cs else "nothing"

    def card(self, card: Card | None) -> str:
        return "?" if card is None else card.pretty(self.ascii)

    def say(self, text: str, indent: int = 0) -> None:
        self.lines.append("  " * indent + text)

    def tell(self) -> tuple[list[str], bool]:
        self.header()
        game = self.game
        for n, action in enumerate(self.record.actions, 1):
            before = self.snapshot()
            if not before["table"] and action.do is Do.ATTACK and game.phase != "over":
                self.bout += 1
                self.say("")
                self.say(
                    f"Bout {self.bout}: {self.role(game.attacker)} attacks "
                    f"{self.role(game.defender)} (stock {game.stock_count})"
                )
            try:
                game.apply(action)
            except IllegalAction as e:
                self.say(f"Action {n} refused: {self.who(action.seat)} {self.verb(action)}.", 1)
                self.say(f"Why: {e}", 1)
                return self.lines, False
            for card in (*action.cards, action.card):
                if card is not None and action.do in (Do.ATTACK, Do.COVER, Do.TRANSFER):
                    self.played_by[card] = action.seat
            self.action_line(action, before)
            # A bout ends when its table is cleared; a challenge clears cards, ends nothing.
            if action.do is not Do.CHALLENGE and before["table"] and not game.table:
                self.bout_end(action, before)
        self.say("")
        if game.phase == "over":
            self.say(self.result_line())
        else:
            self.say(f"The record stops here, after {len(self.record.actions)} actions.")
        return self.lines, True

    def header(self) -> None:
        r = self.record
        rules = r.rules
        self.say(f"{rules.summary()} · {r.seats} players")
        for seat in range(r.seats):
            extra = " (dealer)" if seat == r.dealer else ""
            self.say(f"seat {seat}: {self.who(seat)}{extra}" if r.names else f"seat {seat}{extra}")
        if rules.teams is not Teams.NONE:
            self.say("Teams: " + "; ".join(self.who_list(t) for t in _teams(rules.teams, r.seats)))
        trump: Suit = self.game.trump
        if rules.japanese:
            self.say(f"Trump: {self.suit(trump)} (Japanese durak: no card is turned, R-D4)")
        elif self.game.trump_card is not None:
            self.say(
                f"Trump: {self.suit(trump)}, the {self.card(self.game.trump_card)} under the stock"
            )
        else:
            last = r.deck[-1]
            self.say(
                f"Trump: {self.suit(trump)}: no card left to turn, so the last card dealt, "
                f"{self.card(last)}, is shown; it stays in {self.who(r.dealer)}'s hand (R-D3)"
            )
        if r.previous is not None:
            prev = r.previous
            was = "a draw" if prev.draw else "durak " + self.who_list(prev.durak)
            self.say(f"Previous game at this table: {was}")
        self.say("Dealt:")
        for seat in range(r.seats):
            self.say(f"{self.who(seat)}: {self.cards(self.game.hand(seat))}", 1)

    def suit(self, suit: Suit) -> str:
        return suit.letter if self.ascii else suit.symbol

    def who_list(self, seats: Any) -> str:
        return " and ".join(self.who(s) for s in seats)

    def snapshot(self) -> dict[str, Any]:
        g = self.game
        return {
            "table": list(g.table),
            "hands": [set(g.hand(s)) for s in range(self.record.seats)],
            "discard": g.discard_count,
            "attacker": g.attacker,
            "defender": g.defender,
            "out": list(g.out),
            "marked": list(g.marked),
        }

    def verb(self, action: Action) -> str:
        if action.do is Do.ATTACK:
            return f"attack with {self.cards(action.cards, in_hand_order=False)}"
        if action.do is Do.COVER:
            return f"cover {self.card(action.on)} with {self.card(action.card)}"
        if action.do in (Do.TRANSFER, Do.SHOW, Do.CHALLENGE):
            return f"{action.do.value} {self.card(action.card)}"
        return action.do.value

    def action_line(self, action: Action, before: dict[str, Any]) -> None:
        g = self.game
        who = self.who(action.seat)
        if action.do is Do.ATTACK:
            what = self.cards(action.cards, in_hand_order=False)
            if not before["table"]:
                self.say(f"{who} leads {what}", 1)
            else:
                self.say(f"{who} throws in {what}", 1)
        elif action.do is Do.COVER:
            self.say(f"{who} covers {self.card(action.on)} with {self.card(action.card)}", 1)
        elif action.do is Do.TRANSFER:
            self.say(
                f"{who} transfers with {self.card(action.card)}: {self.defender_now()} defends",
                1,
            )
        elif action.do is Do.SHOW:
            self.say(
                f"{who} shows the trump {self.card(action.card)} and transfers: "
                f"{self.defender_now()} defends",
                1,
            )
        elif action.do is Do.TAKE:
            self.say(f"{who} takes (Beru)", 1)
        elif action.do is Do.PASS:
            done = action.seat == before["attacker"]
            self.say(f"{who}: {'done' if done else 'pass'}", 1)
        elif action.do is Do.CHALLENGE:
            card = self.card(action.card)
            if g.table == before["table"]:
                # R-S4: an honest card; nothing moves and the challenger is marked.
                if action.seat in before["marked"]:
                    why = f"{who} was marked already"
                else:
                    why = f"{who} must play honestly from now on"
                self.say(f"{who} challenges {card}: it was honest; {why} (R-S4)", 1)
            else:
                # R-S3: a cheat; the bout goes back to before it, the cheater is marked.
                seat = None if action.card is None else self.played_by.get(action.card)
                cheater = self.role(seat)
                if seat in before["marked"]:
                    why = f"{cheater} was marked already"
                else:
                    why = f"{cheater} must play honestly from now on"
                self.say(f"{who} challenges {card}: a cheat! The cards go back; {why} (R-S3)", 1)

    def defender_now(self) -> str:
        return self.role(self.game.defender)

    def role(self, seat: int | None) -> str:
        return "?" if seat is None else self.who(seat)

    def bout_end(self, action: Action, before: dict[str, Any]) -> None:
        g = self.game
        seats = range(self.record.seats)
        played: set[Card] = set(action.cards)
        if action.card is not None and action.do in (Do.COVER, Do.TRANSFER):
            played.add(action.card)
        on_table = {c for pair in before["table"] for c in pair if c is not None} | played
        taker = before["defender"]
        # What the defender took (all of it, or in a Dureń partial defence the uncovered cards,
        # R-P5); the rest went to the discard pile.
        picked = on_table & set(g.hand(taker)) if taker is not None else set()
        discarded = g.discard_count - before["discard"]
        if discarded and not picked:
            self.say(f"Bito: {discarded} cards to the discard pile", 1)
        elif discarded:
            self.say(f"{discarded} covered cards to the discard pile", 1)
        if picked and taker is not None:
            self.say(f"{self.who(taker)} picks up {self.cards(picked)}", 1)
        drawn: list[tuple[int, Card]] = []
        for s in seats:
            old = before["hands"][s] - (played if s == action.seat else set())
            if s == taker:
                old = old | picked
            drawn += [(s, c) for c in set(g.hand(s)) - old]
        if drawn:
            drawn.sort(key=lambda sc: self.position[sc[1]])
            parts: list[str] = []
            for s, c in drawn:
                if parts and parts[-1].startswith(self.who(s) + " draws "):
                    parts[-1] += " " + self.card(c)
                else:
                    parts.append(f"{self.who(s)} draws {self.card(c)}")
            self.say(f"Refill: {', '.join(parts)} (stock {g.stock_count} left)", 1)
        gone = [s for s in g.out if s not in before["out"]]
        for s in gone:
            self.say(f"{self.who(s)} is out", 1)

    def result_line(self) -> str:
        result = self.game.result
        if result is None:
            return "The game is over."
        if result.draw:
            return "Result: a draw, nobody is the durak."
        losers = self.who_list(result.durak)
        verb = "are" if len(result.durak) > 1 else "is"
        text = f"Result: {losers} {verb} the durak"
        if result.pogony:
            low = RANK_LETTERS[lowest_rank(self.record.rules.deck) - 2]
            text += f", with {result.pogony} pogony ({low}s on the shoulders, R-B15)"
        if self.record.rules.variant is Variant.DUREN:
            text = text.replace("durak", "dureń")
        return text + "."


def _teams(teams: Teams, seats: int) -> list[list[int]]:
    """R-T1: the seats of each team."""
    if teams is Teams.PAIRS:
        return [[0, 3], [1, 4], [2, 5]]
    return [list(range(0, seats, 2)), list(range(1, seats, 2))]
