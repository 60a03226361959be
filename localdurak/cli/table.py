"""The table screen's pieces, drawn from one seat's `PlayerView` (ui.md): the opponents, the
trump and stock, the bout as attack/cover pairs, your hand, the log and the key line.

Each function returns prompt_toolkit formatted text (style, text[, mouse handler]) for a
given width; the application (`localdurak.cli.app`) holds the state they read (`TableUI`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.utils import get_cwidth

from localdurak.cli.i18n import _
from localdurak.cli.words import (
    card_text,
    event_text,
    role_word,
    roles,
    status_text,
    suit_text,
)
from localdurak.game.actions import Do
from localdurak.game.cards import Card
from localdurak.game.rules import Variant
from localdurak.game.view import PlayerView
from localdurak.net.api import TableEvent

CELL = 5
"""Width of one card cell: "10♥" plus spacing."""

HAND_KEYS = "1234567890-="
"""The keys of the first twelve cards of a hand, in order, shown under them (a long hand's
eleventh and twelfth cards have keys too)."""


@dataclass
class TableUI:
    """What the person has chosen on the screen (never sent anywhere)."""

    selected: int = 0
    """Index of the selected card in the hand."""
    marked: set[Card] = field(default_factory=set)
    """Cards marked with Space for a lead of several cards (R-B1, R-P2)."""
    target: Card | None = None
    """The attack card to cover (↑↓, Tab then a number, or a click)."""
    focus_table: bool = False
    """Tab: numbers and ←→ pick a table card instead of a hand card."""
    challenge: bool = False
    """`c` pressed: the next table card picked is challenged (R-S2)."""
    table_cursor: int = 0
    confirm: str = ""
    """A question waiting for y/n (leaving the table mid-game is asked first); "" when none."""
    message: str = ""
    message_error: bool = False
    show_help: bool = False


Click = Callable[[int], None]


def _clickable(handler: Click | None, index: int) -> Callable[[MouseEvent], None] | None:
    if handler is None:
        return None

    def on_mouse(event: MouseEvent) -> None:
        if event.event_type == MouseEventType.MOUSE_UP:
            handler(index)

    return on_mouse


def width(text: str) -> int:
    """The terminal cells ``text`` takes (two for a Chinese character)."""
    return sum(get_cwidth(ch) for ch in text)


def pad(text: str, width: int) -> str:
    """``text`` cut or padded to ``width`` terminal cells."""
    out = ""
    used = 0
    for ch in text:
        w = get_cwidth(ch)
        if used + w > width:
            break
        out += ch
        used += w
    return out + " " * (width - used)


def card_style(card: Card, *, legal: bool = True) -> str:
    colour = "red" if card.suit.red else "black"
    return f"class:card-{colour}" + ("" if legal else "-dim")


def card_cell(card: Card, ascii_only: bool, width: int = CELL) -> str:
    return pad(card_text(card, ascii_only), width)


# --- the opponents -----------------------------------------------------------------------


def opponents(
    view: PlayerView,
    names: Sequence[str],
    width: int,
    *,
    offline: Sequence[int] = (),
    ascii_only: bool = False,
) -> StyleAndTextTuples:
    """Two lines per row of up to three opponents: name, cards, count; then their status."""
    me = view.seat
    n = view.seats
    seats = [(me + k) % n for k in range(1, n)] if me is not None else list(range(n))
    per_row = 3 if len(seats) > 2 else max(1, len(seats))
    col = max(16, width // per_row)
    teams = len(set(view.teams)) < view.seats
    back = "#" if ascii_only else "▮"
    out: StyleAndTextTuples = []
    for row in range(0, len(seats), per_row):
        chunk = seats[row : row + per_row]
        line1: StyleAndTextTuples = []
        line2: StyleAndTextTuples = []
        for s in chunk:
            count = view.count(s)
            name_style = "class:name"
            if teams:
                name_style += f" class:team{view.teams[s] % 3}"
            name = pad(names[s], min(12, max(4, col - 12)))
            bars = back * min(count, 8) + ("+" if count > 8 else "")
            text1 = f" {name.rstrip()} "
            line1.append((name_style, text1))
            line1.append(("class:back", bars))
            rest = f" {count}" if bars else f"{count}"
            line1.append(("class:count", rest))
            used = get_cwidth(text1) + get_cwidth(bars) + get_cwidth(rest)
            line1.append(("", " " * max(0, col - used)))
            words = roles(view, s, offline)
            text2 = " " + " · ".join(role_word(w) for w in words)
            style2 = f"class:role-{words[0]}" if words else ""
            if teams:
                # R-T1: your partner, or the team (the name's colour says it too).
                own = me is not None and view.teams[s] == view.teams[me]
                tag = _("partner") if own else _("team {n}").format(n=view.teams[s] + 1)
                line2.append((f"class:team{view.teams[s] % 3}", f" {tag}"))
                text2 = text2 if words else ""
                col2 = col - get_cwidth(tag) - 1
            else:
                col2 = col
            line2.append((style2, pad(text2, col2)))
        out += [*line1, ("", "\n"), *line2, ("", "\n")]
        if any(view.others[s].known for s in chunk):
            # Cards everybody saw go into these hands (picked up, shown): a memory aid.
            line3: StyleAndTextTuples = [("class:known", "")]
            for s in chunk:
                line3 += _known(view.others[s].known, col, ascii_only)
            out += [*line3, ("", "\n")]
    return out


def _known(cards: Sequence[Card], width: int, ascii_only: bool) -> StyleAndTextTuples:
    out: StyleAndTextTuples = [("", " ")]
    used = 1
    for c in cards:
        t = card_text(c, ascii_only)
        if used + get_cwidth(t) + 1 > width - 2:
            out.append(("class:dim", "…"))
            used += 1
            break
        out.append((card_style(c, legal=False), t + " "))
        used += get_cwidth(t) + 1
    out.append(("", " " * max(0, width - used)))
    return out


# --- trump, stock, discard ---------------------------------------------------------------


def info_line(view: PlayerView, ascii_only: bool = False, width: int = 78) -> StyleAndTextTuples:
    """Trump, stock and discard; "you are marked" after them, or under them when the line
    would be cut (at 80 columns, docs/ui.md "The table, 80×24")."""
    trump = view.trump
    style = "class:trump-red" if trump.red else "class:trump-black"
    out: StyleAndTextTuples = [("", "  "), ("class:label", _("Trump") + " ")]
    out.append((style, suit_text(trump, ascii_only)))
    if view.trump_card is not None:
        out.append(("", "  "))
        out.append((card_style(view.trump_card), f"[{card_text(view.trump_card, ascii_only)}]"))
        out.append(("class:label", " " + _("under the stock: {n}").format(n=view.stock_count)))
    else:
        out.append(("class:label", "   " + _("stock: {n}").format(n=view.stock_count)))
    out.append(("class:label", "     " + _("Discard: {n}").format(n=view.discard_count)))
    if view.seat is not None and view.seat in view.marked:
        # R-S3/R-S4: a marked player plays honestly for the rest of the game.
        note = _("you are marked: honest play only")
        used = sum(get_cwidth(f[1]) for f in out)
        if used + 5 + get_cwidth(note) <= width:
            out.append(("class:role-marked", "     " + note))
        else:
            out += [("", "\n"), ("class:role-marked", "  " + note)]
    return out


# --- the bout --------------------------------------------------------------------------------


def table_cards(view: PlayerView) -> list[Card]:
    """The cards on the table in the order a number picks them: attack, its cover, next…"""
    out: list[Card] = []
    for a, c in view.table:
        out.append(a)
        if c is not None:
            out.append(c)
    return out


def bout(
    view: PlayerView,
    ui: TableUI,
    *,
    ascii_only: bool = False,
    on_click: Click | None = None,
    width: int = 78,
) -> StyleAndTextTuples:
    """The bout as attack/cover pairs; numbers under them when a table card is being picked.
    "attack cards 3 of 6" goes at the right of the covers when it fits in ``width``, else on
    the row below (free unless a card is being picked), else as "3/6": never cut (60×20,
    Russian: "карт в ходе 3" lost its "из 6")."""
    label = pad("  " + _("Bout:"), 9)
    out: StyleAndTextTuples = [("class:label", label)]
    picking = ui.focus_table or ui.challenge
    if not view.table:
        out.append(("class:dim", "·"))
        return [*out, ("", "\n\n\n")]
    order = table_cards(view)
    cover_row: StyleAndTextTuples = [("", " " * 9)]
    numbers: StyleAndTextTuples = [("", " " * 9)]
    for i, (a, c) in enumerate(view.table):
        style = card_style(a)
        ia = order.index(a)
        on = (ui.target == a and c is None and not picking) or (picking and ia == ui.table_cursor)
        if on:
            style += " class:target"
        out.append((style, _boxed(card_text(a, ascii_only), on), *_handler(on_click, ia)))
        out.append(("", " "))
        if c is None:
            cover_row.append(("class:dim", pad(" ·", CELL + 1)))
        else:
            cstyle = card_style(c)
            ic = order.index(c)
            con = picking and ic == ui.table_cursor
            if con:
                cstyle += " class:cursor"
            cover_row.append(
                (cstyle, _boxed(card_text(c, ascii_only), con), *_handler(on_click, ic))
            )
            cover_row.append(("", " "))
        if ui.challenge:
            # Every card on the table is numbered, in the order the number keys pick them.
            label = str((ia + 1) % 10) + ("" if c is None else f" {(order.index(c) + 1) % 10}")
            numbers.append(("class:number", pad(" " + label, CELL + 1)))
        elif ui.focus_table:
            numbers.append(("class:number", pad(f" {i + 1}", CELL + 1)))
    limit = _("attack cards {n} of {m}").format(n=len(view.table), m=view.limit)
    used = 9 + (CELL + 1) * len(view.table)  # the cover row's cells so far
    room = width - used
    if get_cwidth(limit) + 2 <= room:
        # At column 45 as on an 80-column screen; further left when the screen is narrower.
        gap = max(2, min(45 - used, room - get_cwidth(limit)))
        cover_row.append(("class:label", " " * gap + limit))
    elif not picking and get_cwidth(limit) <= width - 9:
        numbers.append(("class:label", " " * (width - 9 - get_cwidth(limit)) + limit))
    else:
        cover_row.append(("class:label", "  " + f"{len(view.table)}/{view.limit}"))
    return [*out, ("", "\n"), *cover_row, ("", "\n"), *numbers, ("", "\n")]


def _boxed(text: str, on: bool) -> str:
    """A card in a 4-cell box: "[7♠]" when selected or pointed at (visible without colour)."""
    return pad(f"[{text}]" if on else f" {text}", CELL)


def _handler(on_click: Click | None, index: int) -> tuple[()] | tuple[Callable[[MouseEvent], None]]:
    h = _clickable(on_click, index)
    return () if h is None else (h,)


# --- your hand ----------------------------------------------------------------------------------


def playable(view: PlayerView) -> set[Card]:
    """The cards you may play now (bright on screen)."""
    out: set[Card] = set()
    for a in view.legal:
        if a.do is Do.ATTACK:
            out.update(a.cards)
        elif a.do in (Do.COVER, Do.TRANSFER, Do.SHOW) and a.card is not None:
            out.add(a.card)
    return out


def hand(
    view: PlayerView,
    ui: TableUI,
    width: int,
    *,
    ascii_only: bool = False,
    on_click: Click | None = None,
) -> StyleAndTextTuples:
    """Your hand, sorted with trumps last; legal cards bright, the others dim; its keys under
    the first twelve (1-9, 0, -, =)."""
    cards = view.hand
    if not cards:
        return [("class:dim", "  " + _("(no cards)")), ("", "\n")]
    ok = playable(view)
    per_row = max(1, (width - 2) // CELL)
    out: StyleAndTextTuples = []
    for row in range(0, len(cards), per_row):
        line: StyleAndTextTuples = [("", " ")]
        nums: StyleAndTextTuples = [("", " ")]
        for i in range(row, min(len(cards), row + per_row)):
            card = cards[i]
            style = card_style(card, legal=card in ok)
            if i == ui.selected and not ui.focus_table and not ui.challenge:
                style += " class:selected"
            if card in ui.marked:
                style += " class:marked"
            on = i == ui.selected and not ui.focus_table and not ui.challenge
            line.append((style, _boxed(card_text(card, ascii_only), on), *_handler(on_click, i)))
            num = HAND_KEYS[i] if i < len(HAND_KEYS) else ""
            if card in ui.marked:
                # Space marked it for a lead of several (visible without colour too).
                nums.append(("class:marked-number", pad("•" + num, CELL)))
            else:
                nums.append(("class:number", pad(" " + num, CELL)))
        out += [*line, ("", "\n"), *nums, ("", "\n")]
    return out


# --- status, log, keys ---------------------------------------------------------------------


def status_line(
    view: PlayerView,
    names: Sequence[str],
    ui: TableUI,
    width: int = 78,
    *,
    closing: bool = False,
    ascii_only: bool = False,
    held: Mapping[int, float] | None = None,
) -> StyleAndTextTuples:
    """The ▶ line (two lines when the text is long: a refusal's reason is never cut)."""
    arrow = ">" if ascii_only else "▶"
    if ui.confirm:
        style, text = "class:status-error", ui.confirm
    elif ui.message:
        style = "class:status-error" if ui.message_error else "class:status"
        text = ui.message
    elif ui.challenge:
        # A number only points (the old trap: it challenged at once, and the
        # Enter the line asked for then played a hand card).
        style, text = (
            "class:status",
            _("Challenge which card? Point with 1-9 or ←→, Enter challenges; Esc cancels."),
        )
    elif ui.focus_table:
        style, text = (
            "class:status",
            _("Cover which card? Point with 1-6 or ←→, Enter covers; Tab back."),
        )
    else:
        text = status_text(view, names, closing=closing, ascii_only=ascii_only, held=held)
        mine = any(a.do is not Do.CHALLENGE for a in view.legal)
        style = "class:status" if mine else "class:status-wait"
    lines = wrap(text, width - 4)
    out: StyleAndTextTuples = [(style, f" {arrow} {lines[0]}")]
    for more in lines[1:2]:
        out += [("", "\n"), (style, f"   {more}")]
    return out


# Punctuation that may not begin a line of Chinese text (it stays with the character before).
_NO_LINE_START = "，。、：；！？）」』》…—"


def wrap(text: str, width: int) -> list[str]:
    """Words of ``text`` in lines of at most ``width`` cells.  Text without spaces between
    its words (Chinese) breaks between any two characters, so it wraps instead of running
    off the screen; so does a word longer than a line."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        sep = " " if line else ""
        if get_cwidth(line + sep + word) <= width:
            line += sep + word
            continue
        wide = any(get_cwidth(ch) > 1 for ch in word)
        if not wide and get_cwidth(word) <= width:
            lines.append(line)
            line = word
            continue
        if not wide and line:  # a too-long word starts its own line
            lines.append(line)
            line, sep = "", ""
        for ch in sep + word:
            if get_cwidth(line + ch) <= width:
                line += ch
                continue
            carry = ""
            if ch in _NO_LINE_START and len(line) > 1:
                line, carry = line[:-1], line[-1]
            lines.append(line.rstrip())
            line = (carry + ch).lstrip()
    return [*lines, line] if line or not lines else lines


def log_lines(
    events: Sequence[TableEvent],
    names: Sequence[str],
    me: int | None,
    width: int,
    lines: int = 2,
    *,
    ascii_only: bool = False,
) -> StyleAndTextTuples:
    """The latest events, newest last, as many as fit in ``lines`` lines of ``width``."""
    texts = [event_text(e, names, me, ascii_only) for e in events[-24:]]
    rows: list[str] = []
    current = ""
    for t in reversed(texts):
        candidate = t if not current else f"{t} · {current}"
        if get_cwidth(candidate) + 1 <= width:
            current = candidate
            continue
        if current:
            rows.append(current)
        if len(rows) >= lines:
            break
        current = t
    if current and len(rows) < lines:
        rows.append(current)
    rows = list(reversed(rows[:lines]))
    out: StyleAndTextTuples = []
    for i, r in enumerate(rows):
        out.append(
            ("class:log-new" if i == len(rows) - 1 else "class:log", " " + pad(r, width - 1))
        )
        out.append(("", "\n"))
    return out


def key_line(
    view: PlayerView | None,
    width: int,
    cheating: bool,
    *,
    owner: bool = False,
    lobby: bool = False,
    closed: bool = False,
) -> StyleAndTextTuples:
    """The keys that matter now, in one line; when it is too narrow the least needed go
    first (`?` and `q` always stay).  ``owner``: the host's own player before the first deal,
    who may seat bots and free their seats; ``lobby``: a network table's lobby, where every
    player says ready with `r`; ``closed``: the table closed (its series is over): no next
    game to offer."""
    # (key, word, priority: lower stays longer)
    keys: list[tuple[str, str, int]]
    if view is None:  # before the first deal (a network table's lobby): nothing to play yet
        keys = [("q", _("leave"), 0), ("?", _("help"), 1)]
        if lobby:
            keys = [("r", _("ready"), 0), *keys]
        if owner:
            keys = [("b", _("add a bot"), 1), ("x", _("remove a bot"), 2), *keys]
    elif view.result is not None:
        keys = [("q", _("leave"), 0), ("?", _("help"), 1)]
        if not closed:
            keys = [("n", _("next game"), 0), *keys]
    else:
        # The keys for what you may do now stay longest (60×20: "t take" while you defend).
        may = {a.do for a in view.legal}
        plays = bool(may & {Do.ATTACK, Do.COVER, Do.TRANSFER, Do.SHOW})

        def now(*kinds: Do) -> int:
            return 1 if may & set(kinds) else 4

        keys = [("1-9", _("card"), 1 if plays else 5)]
        if view.rules.variant is Variant.DUREN:
            keys.append(("Space", _("mark"), 2 if Do.ATTACK in may else 6))
        keys += [
            ("↑↓", _("target"), 3 if len(view.uncovered) > 1 and Do.COVER in may else 7),
            ("Enter", _("play"), 1 if plays else 5),
            ("t", _("take"), now(Do.TAKE)),
            ("d", _("done/pass"), now(Do.PASS)),
        ]
        if view.rules.variant is Variant.PEREVODNOY:
            keys.append(("p", _("transfer"), now(Do.TRANSFER)))
        if cheating:
            keys.append(("c", _("challenge"), 2 if Do.CHALLENGE in may else 6))
        keys += [("?", _("help"), 0), ("q", _("quit"), 0)]

    def cost(key: tuple[str, str, int]) -> int:
        return get_cwidth(key[0]) + 1 + get_cwidth(key[1]) + 2

    shown = list(keys)
    while shown and 1 + sum(cost(k) for k in shown) > width:
        shown.remove(max(shown, key=lambda k: (k[2], -shown.index(k))))
    out: StyleAndTextTuples = [("", " ")]
    for key, word, _prio in shown:
        out += [("class:key", key), ("class:keys", f" {word}  ")]
    return out


def lines_of(text: StyleAndTextTuples) -> list[StyleAndTextTuples]:
    """Formatted text split into its lines (no newline fragments)."""
    lines: list[StyleAndTextTuples] = [[]]
    for frag in text:
        parts = frag[1].split("\n")
        for i, part in enumerate(parts):
            if i:
                lines.append([])
            if part or (i == 0 and len(parts) == 1):
                lines[-1].append((frag[0], part, *frag[2:]))
    return lines


def fit(text: StyleAndTextTuples, rows: int) -> StyleAndTextTuples:
    """``text`` in at most ``rows`` lines: on a short screen the blank lines go first, then
    the remembered cards under the opponents, then lines from the top — your hand and the ▶
    line at the bottom stay."""
    lines = lines_of(text)
    while lines and not any(t[1] for t in lines[-1]):
        lines.pop()

    def drop(test: Callable[[StyleAndTextTuples], bool]) -> None:
        nonlocal lines
        for i in range(len(lines) - 1, -1, -1):
            if len(lines) <= rows:
                return
            if test(lines[i]):
                del lines[i]

    drop(lambda line: not "".join(t[1] for t in line).strip())
    drop(lambda line: bool(line) and line[0][0] == "class:known")
    if len(lines) > rows:
        lines = lines[len(lines) - rows :]
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out += line
    return out
