"""What the client says, in the player's language: log lines, the ▶ status line, roles, the
glossary.  Everything here goes through gettext (`localdurak.cli.i18n`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from localdurak.cli.i18n import _, language, ngettext
from localdurak.game.actions import Action, Do
from localdurak.game.cards import Card, Suit
from localdurak.game.rules import Rules, ThrowInOrder, Variant
from localdurak.game.view import PlayerView
from localdurak.net.api import EventKind, TableEvent

SUIT_NAMES = {
    Suit.SPADES: "spades",
    Suit.HEARTS: "hearts",
    Suit.DIAMONDS: "diamonds",
    Suit.CLUBS: "clubs",
}


def card_text(card: Card, ascii_only: bool = False) -> str:
    return card.pretty(ascii_only)


def cards_text(cards: Sequence[Card], ascii_only: bool = False) -> str:
    return " ".join(card_text(c, ascii_only) for c in cards)


def suit_text(suit: Suit, ascii_only: bool = False) -> str:
    return suit.letter if ascii_only else suit.symbol


def name_of(seat: int, names: Sequence[str], me: int | None) -> str:
    return _("you") if seat == me else names[seat]


def join_names(seats: Sequence[int], names: Sequence[str], me: int | None) -> str:
    words = [name_of(s, names, me) for s in seats]
    if len(words) <= 1:
        return "".join(words)
    return _("{a} and {b}").format(a=_(", ").join(words[:-1]), b=words[-1])


def event_text(
    ev: TableEvent, names: Sequence[str], me: int | None, ascii_only: bool = False
) -> str:
    """One log entry: "Boris attacks 7♠", "you cover 7♦ with 9♦"."""
    you = ev.seat == me
    who = "" if ev.seat is None else names[ev.seat]
    a = ev.action
    if ev.kind is EventKind.GAME_STARTED:
        return _("Game {n} begins").format(n=ev.game)
    if ev.kind is EventKind.ACTION and a is not None:
        return _action_text(a, ev.opens, you, who, ascii_only)
    if ev.kind is EventKind.CHALLENGE and a is not None and a.card is not None:
        card = card_text(a.card, ascii_only)
        head = (_("you challenge {card}") if you else _("{name} challenges {card}")).format(
            name=who, card=card
        )
        if ev.caught:
            tail = _("a cheat! the cards go back")
        elif ev.marked is not None:
            tail = _("honest — {name} is marked").format(name=name_of(ev.marked, names, me))
        else:
            tail = _("honest")
        return f"{head}: {tail}"
    if ev.kind is EventKind.BITO:
        if ev.seat is None:
            return _("Bito")
        return (
            _("Bito — you beat it off") if you else _("Bito — {name} beat it off").format(name=who)
        )
    if ev.kind is EventKind.TOOK:
        return _("you pick up the cards") if you else _("{name} picks up").format(name=who)
    if ev.kind is EventKind.OUT:
        return _("you are out") if you else _("{name} is out").format(name=who)
    if ev.kind is EventKind.BROKE_PROTOCOL:
        if ev.seat is None:
            return _("the card-privacy protocol was broken (the audit names who): the game stops")
        return _("{name} broke the card-privacy protocol: the game stops").format(name=who)
    if ev.kind is EventKind.GAME_OVER and ev.result is not None:
        if ev.seat is not None and not ev.result.durak:
            return _("Game aborted: {name} broke the card-privacy protocol — no durak").format(
                name=who
            )
        if ev.result.draw:
            return _("Game over: a draw")
        if me in ev.result.durak and len(ev.result.durak) == 1:
            return _("Game over: you are the durak")
        return _("Game over: {names} — durak").format(names=join_names(ev.result.durak, names, me))
    if ev.kind is EventKind.SEAT_OFFLINE:
        return _("{name} lost the connection").format(name=who)
    if ev.kind is EventKind.SEAT_BACK:
        return _("{name} is back").format(name=who)
    return ev.kind.value


def _action_text(a: Action, opens: bool, you: bool, who: str, ascii_only: bool) -> str:
    c = "" if a.card is None else card_text(a.card, ascii_only)
    if a.do is Do.ATTACK:
        cards = cards_text(a.cards, ascii_only)
        if opens:
            t = _("you attack {cards}") if you else _("{name} attacks {cards}")
        else:
            t = _("you throw in {cards}") if you else _("{name} throws in {cards}")
        return t.format(name=who, cards=cards)
    if a.do is Do.COVER:
        on = "" if a.on is None else card_text(a.on, ascii_only)
        t = _("you beat {on} with {card}") if you else _("{name} beats {on} with {card}")
        return t.format(name=who, on=on, card=c)
    if a.do is Do.TRANSFER:
        t = _("you transfer with {card}") if you else _("{name} transfers with {card}")
        return t.format(name=who, card=c)
    if a.do is Do.SHOW:
        t = _("you show {card} and transfer") if you else _("{name} shows {card} and transfers")
        return t.format(name=who, card=c)
    if a.do is Do.TAKE:
        return _("you take (Beru)") if you else _("{name} takes (Beru)").format(name=who)
    if a.do is Do.PASS:
        return _("you pass") if you else _("{name} passes").format(name=who)
    return str(a)


# --- roles ---------------------------------------------------------------------------------


def roles(view: PlayerView, seat: int, offline: Sequence[int] = ()) -> list[str]:
    """The status words of a seat, most important first (ui.md)."""
    out: list[str] = []
    if seat in offline:
        out.append("offline")
    if seat in view.out:
        out.append("out")
    elif view.result is None:
        if seat == view.defender:
            out.append("taking" if view.phase == "taking" else "defending")
        elif seat in view.passed:
            out.append("passed")
        elif seat == view.attacker or (seat in view.attackers and view.table):
            out.append("attacking")
    if seat in view.marked:
        out.append("marked")
    return out


ROLE_WORDS = {
    "offline": lambda: _("offline"),
    "out": lambda: _("out"),
    "defending": lambda: _("defending"),
    "taking": lambda: _("taking"),
    "passed": lambda: _("passed"),
    "attacking": lambda: _("attacking"),
    "marked": lambda: _("marked"),
}


def role_word(role: str) -> str:
    return ROLE_WORDS[role]()


# --- whom the table waits for, and the ▶ line ----------------------------------------------


def waiting_for(view: PlayerView) -> list[int]:
    """The seats the table waits for now."""
    if view.result is not None:
        return []
    if not view.table:
        return [] if view.attacker is None else [view.attacker]
    d = view.defender
    if d is not None and view.uncovered and view.phase != "taking":
        return [d]
    return [
        s
        for s in view.attackers
        if s not in view.passed and view.count(s) > 0 and s not in view.out
    ]


def legal_of(view: PlayerView, *kinds: Do) -> list[Action]:
    return [a for a in view.legal if a.do in kinds]


def status_text(
    view: PlayerView,
    names: Sequence[str],
    *,
    closing: bool = False,
    ascii_only: bool = False,
    held: Mapping[int, float] | None = None,
) -> str:
    """The ▶ line: what *you* can do now, or whom the table waits for (ui.md); ``held``:
    the offline seats and the seconds their hold still runs (a countdown after the line)."""
    text = _status_text(view, names, closing=closing, ascii_only=ascii_only)
    for seat in waiting_for(view):
        left = (held or {}).get(seat)
        if left is not None and seat != view.seat:
            minutes, seconds = divmod(int(left), 60)
            text += " " + _("{name} is offline: the seat is held {time} more.").format(
                name=names[seat], time=f"{minutes}:{seconds:02d}"
            )
            break
    return text


def _status_text(
    view: PlayerView,
    names: Sequence[str],
    *,
    closing: bool = False,
    ascii_only: bool = False,
) -> str:
    me = view.seat
    if view.result is not None:
        return _("Game over. n next game · q leave")
    if closing:
        return _("The bout is closing… (c to challenge a card)") if view.rules.cheating else ""
    wait = waiting_for(view)
    wait_names = join_names(wait, names, me)
    if me is None or me in view.out:
        return _("You are out and safe. Waiting for {names}.").format(names=wait_names)
    d, a = view.defender, view.attacker
    duren = view.rules.variant is Variant.DUREN
    if me == d:
        if view.phase == "taking":
            if wait:
                return _("You take. {names} may still throw in.").format(names=wait_names)
            return _("You take.")
        unc = view.uncovered
        if unc:
            cards = cards_text(unc, ascii_only)
            if legal_of(view, Do.TRANSFER, Do.SHOW):
                return _("You defend: cover {cards}, transfer (p), or take (t).").format(
                    cards=cards
                )
            return _("You defend: cover {cards} or take (t).").format(cards=cards)
        if not view.table:
            return _("{name} is about to attack you.").format(
                name=names[a] if a is not None else ""
            )
        return _("All covered. Waiting for {names} — or take (t).").format(names=wait_names)
    if not view.table:
        if me == a:
            if duren:
                return _("Your lead against {name}: mark cards with Space, Enter to lead.").format(
                    name=names[d] if d is not None else ""
                )
            return _("Your attack on {name}: choose a card, Enter.").format(
                name=names[d] if d is not None else ""
            )
        return _("Waiting for {name} to attack {target}.").format(
            name=name_of(a, names, me) if a is not None else "",
            target=name_of(d, names, me) if d is not None else "",
        )
    if me in view.attackers and me not in view.passed and view.count(me) > 0:
        throws = legal_of(view, Do.ATTACK)
        if view.phase == "taking":
            done = _("d done") if me == a else _("d pass")  # he takes them: no Bito
        else:
            done = _("d done (Bito)") if me == a else _("d pass")
        if throws:
            return _("Throw in (Enter) or {done}.").format(done=done)
        if (
            view.rules.throw_in_order is ThrowInOrder.FIRST_WORD
            and me != a
            and a is not None
            and a not in view.passed
        ):
            return _("{name} has the first word. {done}.").format(name=names[a], done=done)
        if me in wait:
            return _("Nothing to throw in: {done}.").format(done=done)
    if me in view.passed:
        return _("You passed. Waiting for {names}.").format(names=wait_names)
    target = name_of(d, names, me) if d is not None else ""
    return _("{target} defends. Waiting for {names}.").format(target=target, names=wait_names)


def glossary() -> list[tuple[str, str]]:
    """The glossary of rules.md, both the word and its meaning in the player's language."""
    return [
        (_("Durak"), _("the fool, last with cards")),
        (_("Podkidnoy"), _("throw-in durak")),
        (_("Perevodnoy"), _("transfer durak")),
        (_("Kozyr"), _("trump")),
        (_("Beru"), _("\u201cI take\u201d")),
        (_("Bito"), _("\u201cbeaten\u201d: the bout is over")),
        (_("Pogony"), _("epaulettes: the lowest cards left on the durak's shoulders")),
    ]


def cards_word(n: int) -> str:
    return ngettext("{n} card", "{n} cards", n).format(n=n)


def variant_word(variant: Variant) -> str:
    return {
        Variant.PODKIDNOY: _("podkidnoy"),
        Variant.PEREVODNOY: _("perevodnoy"),
        Variant.DUREN: _("Dureń"),
    }[variant]


def option_word(name: str) -> str:
    """A table option's name for people (rules.md section O)."""
    words = {
        "teams": _("teams"),
        "throw_in": _("throw-in"),
        "throw_in_order": _("throw-in order"),
        "first_bout_five": _("five in the first bout"),
        "trump_show": _("trump show"),
        "transfer_first_bout": _("transfer in the first bout"),
        "cheating": _("cheating"),
        "japanese": _("Japanese"),
        "tie": _("tie"),
        "next_first_attack": _("next first attack"),
        "duren_leads": _("leads"),
        "partial_defence": _("partial defence"),
        "hand_size": _("hand"),
    }
    return words.get(name, name.replace("_", " "))


def rules_summary(rules: Rules) -> str:
    """`Rules.summary` in the player's language: "perevodnoy · 36 · trump show"."""
    parts = [variant_word(rules.variant), str(rules.deck)]
    for key, value in rules.non_defaults().items():
        if key in ("variant", "deck"):
            continue
        if value is True:
            parts.append(option_word(key))
        elif value is False:
            parts.append(_("no {option}").format(option=option_word(key)))
        else:
            parts.append(f"{option_word(key)} {value}")
    return " · ".join(parts)


# What each rule forbids, in a sentence a player reads on the ▶ line when the engine refuses an
# action in another language than English (the engine's own reasons, with their cards and
# seats, are English: shown as they are on an English screen).
_RULE_REFUSALS = {
    "R-B1": lambda: _("The main attacker opens the bout: one card, or several cards of one rank."),
    "R-B2": lambda: _("Only the defender's opponents attack him."),
    "R-B3": lambda: _("Throw in only cards of a rank already on the table."),
    "R-B4": lambda: _("No more cards in this bout: its limit is reached."),
    "R-B4a": lambda: _("A bout holds at most 6 attack cards."),
    "R-B4b": lambda: _("Until the first successful defence, a bout holds at most 5 cards."),
    "R-B4c": lambda: _("The defender has no more cards to cover another one."),
    "R-B5": lambda: _("Cover with a higher card of the same suit, or with a trump."),
    "R-B6": lambda: _("Transfer with a card of the attack's rank, while nothing is covered."),
    "R-B7": lambda: _("No transfer by showing a trump here."),
    "R-B8": lambda: _("Only the defender takes, while cards lie on the table."),
    "R-B9": lambda: _("Attackers pass; the defender covers or takes."),
    "R-B13": lambda: _("That player is out of the game."),
    "R-B14": lambda: _("The game is over."),
    "R-C1": lambda: _("That card is not in this deck."),
    "R-C2": lambda: _("That is not a card."),
    "R-C3": lambda: _("There is no such seat at this table."),
    "R-P1": lambda: _("Another player leads this bout."),
    "R-P2": lambda: _("Dureń does not allow this lead."),
    "R-P3": lambda: _("Nobody throws in in Dureń: the lead is made."),
    "R-P4": lambda: _("Nobody passes in Dureń: cover or take."),
    "R-P5": lambda: _("In Dureń the defender covers every card, or takes."),
    "R-S1": lambda: _("That card is not in the hand."),
    "R-S2": lambda: _("Challenge only another player's card that lies on the table."),
    "R-S3": lambda: _("You were caught or marked: honest play only."),
    "R-S4": lambda: _("You found that card honest already."),
    "R-T2": lambda: _("Partners do not play against each other."),
}


# The same rules told of another player (`localdurak replay` tells the whole table's game).
_RULE_REFUSALS_OF_OTHERS = {
    "R-S3": lambda: _("A caught or marked player plays honestly only."),
    "R-S4": lambda: _("That card was found honest already."),
}


def rule_refusal(rule: str | None, *, you: bool = True) -> str | None:
    """What ``rule`` forbids, in the player's language (None: no sentence for it); said to
    the player whose action it refused, or (``you=False``) of someone else."""
    rule = rule or ""
    refusals = _RULE_REFUSALS if you else {**_RULE_REFUSALS, **_RULE_REFUSALS_OF_OTHERS}
    text = refusals.get(rule) or refusals.get(rule.rstrip("abcdefgh"))
    return text() if text is not None else None


# The table refusals of `Rules` (rules.md section O) in the player's language: the engine
# words them in English, with their numbers; these patterns take the numbers out of the
# English sentence and put them into the player's (tests/cli/test_languages.py builds every
# one of them from real `Rules`, so a changed English sentence shows up there).
_RULES_ERRORS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (
        re.compile(r"teams (\S+) needs exactly (\d+) players, not (\d+) \(R-T1\)"),
        lambda m: _("Teams {teams} need exactly {need} players, not {seats} (R-T1).").format(
            teams=m[1], need=m[2], seats=m[3]
        ),
    ),
    (
        re.compile(r"(\d+) players × (\d+) cards = (\d+) cards, more than the (\d+)-card"),
        lambda m: _(
            "{seats} players × {hand} cards = {dealt} cards: more than a deck of {deck} (R-D1)."
        ).format(seats=m[1], hand=m[2], dealt=m[3], deck=m[4]),
    ),
    (
        re.compile(r"Durak is played by 2 to 6 players, not (\S+) \(R-C3\)"),
        lambda m: _("Durak is played by 2 to 6 players, not {n} (R-C3).").format(n=m[1]),
    ),
    (
        re.compile(r"these options do not apply to (\w+) and must keep their default: (.*)"),
        lambda m: _("These options do not apply to {variant}: {options}.").format(
            variant=variant_word(Variant(m[1])),
            options=_(", ").join(  # "、" in Chinese
                option_word(name) for name in re.findall(r"(?:^|; )(\w+) \(", m[2])
            ),
        ),
    ),
]


def rules_error_text(error: Exception) -> str:
    """Why `Rules` refused a table, in the player's language (English: the engine's own)."""
    text = str(error)
    if language() == "en":
        return text
    for pattern, say in _RULES_ERRORS:
        m = pattern.search(text)
        if m is not None:
            return say(m)
    return text
