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
from localdurak.cli.i18n import _, language, ngettext
from localdurak.cli.options import client_parent
from localdurak.cli.words import rule_refusal, rules_summary
from localdurak.game.actions import Action, Do, IllegalAction
from localdurak.game.cards import RANK_LETTERS, Card, Suit, lowest_rank
from localdurak.game.outcome import BoutEnded, Out, Outcome, Refilled, Taken, first
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
        data = record_file.read(args.record)
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
            + _("{path} is not a valid record: {reason}").format(
                path=args.record, reason=record_file.said(e)
            ),
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
        self.lines: list[str] = []
        self.bout = 0
        self.played_by: dict[Card, int] = {}
        """Who put each card on the table (for naming a caught cheater, R-S3)."""

    def who(self, seat: int) -> str:
        names = self.record.names
        return names[seat] if names else _("seat {n}").format(n=seat)

    def cards(self, cards: Any, *, in_hand_order: bool = True) -> str:
        cs = sorted(cards, key=self.key) if in_hand_order else list(cards)
        return " ".join(c.pretty(self.ascii) for c in cs) if cs else _("nothing")

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
                    _("Bout {n}: {attacker} attacks {defender} (stock {stock})").format(
                        n=self.bout,
                        attacker=self.role(game.attacker),
                        defender=self.role(game.defender),
                        stock=game.stock_count,
                    )
                )
            try:
                outcome = game.apply(action)
            except IllegalAction as e:
                self.say(
                    _("Action {n} refused: {name} {what}.").format(
                        n=n, name=self.who(action.seat), what=self.verb(action)
                    ),
                    1,
                )
                why = rule_refusal(e.rule, you=False) if language() != "en" else None
                self.say(_("Why: {reason}").format(reason=why or e), 1)
                return self.lines, False
            for card in (*action.cards, action.card):
                if card is not None and action.do in (Do.ATTACK, Do.COVER, Do.TRANSFER):
                    self.played_by[card] = action.seat
            self.action_line(action, before)
            self.bout_end(outcome)
        self.say("")
        if game.phase == "over":
            self.say(self.result_line())
        else:
            n = len(self.record.actions)
            self.say(
                ngettext(
                    "The record stops here, after {n} action.",
                    "The record stops here, after {n} actions.",
                    n,
                ).format(n=n)
            )
        return self.lines, True

    def header(self) -> None:
        r = self.record
        rules = r.rules
        # English keeps the engine's own summary (scripts read it); others get their words.
        summary = rules.summary() if language() == "en" else rules_summary(rules)
        self.say(
            ngettext("{rules} · {n} player", "{rules} · {n} players", r.seats).format(
                rules=summary, n=r.seats
            )
        )
        for seat in range(r.seats):
            extra = " " + _("(dealer)") if seat == r.dealer else ""
            seat_name = _("seat {n}").format(n=seat)
            self.say(
                _("{seat}: {name}").format(seat=seat_name, name=self.who(seat)) + extra
                if r.names
                else seat_name + extra
            )
        if rules.teams is not Teams.NONE:
            teams = "; ".join(self.who_list(t) for t in _teams(rules.teams, r.seats))
            self.say(_("Teams: {teams}").format(teams=teams))
        trump: Suit = self.game.trump
        if rules.japanese:
            self.say(
                _("Trump: {suit} (Japanese durak: no card is turned, R-D4)").format(
                    suit=self.suit(trump)
                )
            )
        elif self.game.trump_card is not None:
            self.say(
                _("Trump: {suit}, the {card} under the stock").format(
                    suit=self.suit(trump), card=self.card(self.game.trump_card)
                )
            )
        else:
            last = r.deck[-1]
            self.say(
                _(
                    "Trump: {suit}: no card left to turn, so the last card dealt, {card}, is "
                    "shown; it stays in {name}'s hand (R-D3)"
                ).format(suit=self.suit(trump), card=self.card(last), name=self.who(r.dealer))
            )
        if r.previous is not None:
            prev = r.previous
            if prev.draw:
                self.say(_("Previous game at this table: a draw"))
            else:
                self.say(
                    _("Previous game at this table: durak {names}").format(
                        names=self.who_list(prev.durak)
                    )
                )
        self.say(_("Dealt:"))
        for seat in range(r.seats):
            self.say(f"{self.who(seat)}: {self.cards(self.game.hand(seat))}", 1)

    def suit(self, suit: Suit) -> str:
        return suit.letter if self.ascii else suit.symbol

    def who_list(self, seats: Any) -> str:
        names = [self.who(s) for s in seats]
        if len(names) <= 1:
            return "".join(names)
        return _("{a} and {b}").format(a=", ".join(names[:-1]), b=names[-1])

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
        card = self.card(action.card)
        if action.do is Do.ATTACK:
            cards = self.cards(action.cards, in_hand_order=False)
            return _("attack with {cards}").format(cards=cards)
        if action.do is Do.COVER:
            return _("cover {on} with {card}").format(on=self.card(action.on), card=card)
        if action.do is Do.TRANSFER:
            return _("transfer {card}").format(card=card)
        if action.do is Do.SHOW:
            return _("show {card}").format(card=card)
        if action.do is Do.CHALLENGE:
            return _("challenge {card}").format(card=card)
        if action.do is Do.TAKE:
            return _("take")
        if action.do is Do.PASS:
            return _("pass")
        return action.do.value

    def action_line(self, action: Action, before: dict[str, Any]) -> None:
        g = self.game
        who = self.who(action.seat)
        if action.do is Do.ATTACK:
            what = self.cards(action.cards, in_hand_order=False)
            if not before["table"]:
                self.say(_("{name} leads {cards}").format(name=who, cards=what), 1)
            else:
                self.say(_("{name} throws in {cards}").format(name=who, cards=what), 1)
        elif action.do is Do.COVER:
            on, card = self.card(action.on), self.card(action.card)
            self.say(_("{name} covers {on} with {card}").format(name=who, on=on, card=card), 1)
        elif action.do is Do.TRANSFER:
            self.say(
                _("{name} transfers with {card}: {defender} defends").format(
                    name=who, card=self.card(action.card), defender=self.defender_now()
                ),
                1,
            )
        elif action.do is Do.SHOW:
            self.say(
                _("{name} shows the trump {card} and transfers: {defender} defends").format(
                    name=who, card=self.card(action.card), defender=self.defender_now()
                ),
                1,
            )
        elif action.do is Do.TAKE:
            self.say(_("{name} takes (Beru)").format(name=who), 1)
        elif action.do is Do.PASS:
            done = action.seat == before["attacker"]
            said = _("{name}: done") if done else _("{name}: pass")
            self.say(said.format(name=who), 1)
        elif action.do is Do.CHALLENGE:
            card = self.card(action.card)
            if g.table == before["table"]:
                # R-S4: an honest card; nothing moves and the challenger is marked.
                if action.seat in before["marked"]:
                    why = _("{name} was marked already").format(name=who)
                else:
                    why = _("{name} must play honestly from now on").format(name=who)
                self.say(
                    _("{name} challenges {card}: it was honest; {why} (R-S4)").format(
                        name=who, card=card, why=why
                    ),
                    1,
                )
            else:
                # R-S3: a cheat; the bout goes back to before it, the cheater is marked.
                seat = None if action.card is None else self.played_by.get(action.card)
                cheater = self.role(seat)
                if seat in before["marked"]:
                    why = _("{name} was marked already").format(name=cheater)
                else:
                    why = _("{name} must play honestly from now on").format(name=cheater)
                self.say(
                    _("{name} challenges {card}: a cheat! The cards go back; {why} (R-S3)").format(
                        name=who, card=card, why=why
                    ),
                    1,
                )

    def defender_now(self) -> str:
        return self.role(self.game.defender)

    def role(self, seat: int | None) -> str:
        return "?" if seat is None else self.who(seat)

    def bout_end(self, outcome: Outcome) -> None:
        """What the end of a bout did, from the action's outcome (Game.apply): the discard,
        what the defender took (all of it, or in a Dureń partial defence the uncovered cards,
        R-P5), the refill (R-B12) and who went out (R-B13)."""
        ended = first(outcome, BoutEnded)
        if ended is None:
            return
        g = self.game
        taken = first(outcome, Taken)
        discarded = ended.discarded
        if discarded and taken is None:
            self.say(
                ngettext(
                    "Bito: {n} card to the discard pile",
                    "Bito: {n} cards to the discard pile",
                    discarded,
                ).format(n=discarded),
                1,
            )
        elif discarded:
            self.say(
                ngettext(
                    "{n} covered card to the discard pile",
                    "{n} covered cards to the discard pile",
                    discarded,
                ).format(n=discarded),
                1,
            )
        if taken is not None:
            self.say(
                _("{name} picks up {cards}").format(
                    name=self.who(taken.seat), cards=self.cards(taken.cards)
                ),
                1,
            )
        refilled = first(outcome, Refilled)
        if refilled is not None:
            groups: list[tuple[int, list[str]]] = []
            for s, c in zip(refilled.seats, refilled.cards, strict=True):
                if groups and groups[-1][0] == s:
                    groups[-1][1].append(self.card(c))
                else:
                    groups.append((s, [self.card(c)]))
            parts = [
                _("{name} draws {cards}").format(name=self.who(s), cards=" ".join(cs))
                for s, cs in groups
            ]
            self.say(
                _("Refill: {draws} (stock {n} left)").format(
                    draws=", ".join(parts), n=g.stock_count
                ),
                1,
            )
        for e in outcome:
            if isinstance(e, Out):
                self.say(_("{name} is out").format(name=self.who(e.seat)), 1)

    def result_line(self) -> str:
        result = self.game.result
        if result is None:
            return _("The game is over.")
        if result.draw:
            return _("Result: a draw, nobody is the durak.")
        losers = self.who_list(result.durak)
        n = len(result.durak)
        if self.record.rules.variant is Variant.DUREN:
            said = ngettext("Result: {names} is the dureń", "Result: {names} are the dureń", n)
        else:
            said = ngettext("Result: {names} is the durak", "Result: {names} are the durak", n)
        text = said.format(names=losers)
        if result.pogony:
            low = RANK_LETTERS[lowest_rank(self.record.rules.deck) - 2]
            text += _(", with {n} pogony ({rank}s on the shoulders, R-B15)").format(
                n=result.pogony, rank=low
            )
        return text + "."


def _teams(teams: Teams, seats: int) -> list[list[int]]:
    """R-T1: the seats of each team."""
    if teams is Teams.PAIRS:
        return [[0, 3], [1, 4], [2, 5]]
    return [list(range(0, seats, 2)), list(range(1, seats, 2))]
