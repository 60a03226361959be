"""The one prompt_toolkit `Application` of the terminal client: lobby, table, game over, help.

The application renders only its seat's `PlayerView` (from a `TableSession`); a session's
updates reach the screen through ``app.invalidate()``, never by printing.  Keys live in
`localdurak.cli.keys`, the table's pieces in `localdurak.cli.table`, the lobby in
`localdurak.cli.lobby`.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.containers import AnyContainer
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from localdurak.cli import bigtext, table
from localdurak.cli.i18n import _, ngettext
from localdurak.cli.table import TableUI
from localdurak.cli.words import glossary, join_names, rule_refusal, rules_summary, waiting_for
from localdurak.game.actions import Action, Do
from localdurak.game.cards import Card, lowest_rank
from localdurak.game.rules import ThrowInOrder
from localdurak.game.view import PlayerView
from localdurak.net.api import ActionRefused, AuditStatus, ConnectionState, TableSession
from localdurak.protocol.errors import RemoteProtocolError

if TYPE_CHECKING:
    from localdurak.cli.lobby import Lobby
    from localdurak.cli.netplay import Hosting

AUTO_PASS_SECONDS = (0.8, 2.6)
"""The range of the random moment auto-pass waits at a network table: how long a person
takes to see that nothing of his fits and press d."""

_random = random.SystemRandom()

MESSAGE_SECONDS = 4.0
"""How long a refusal stays in the ▶ line (ui.md: "for a few seconds")."""

STYLE = Style.from_dict(
    {
        "frame.border": "#5f87af",
        "frame.label": "bold #ffffff",
        "name": "bold",
        "team0": "#5fafff",
        "team1": "#ffaf5f",
        "team2": "#87d787",
        "back": "#5f87af",
        "count": "#bcbcbc",
        "label": "#a8a8a8",
        "dim": "#6c6c6c",
        "number": "#6c6c6c",
        "marked-number": "bold #ffd75f",
        "card-black": "bold #ffffff",
        "card-red": "bold #ff5f5f",
        "card-black-dim": "#6c6c6c",
        "card-red-dim": "#875f5f",
        "trump-black": "bold #ffffff",
        "trump-red": "bold #ff5f5f",
        "selected": "reverse",
        "marked": "underline",
        "target": "reverse",
        "cursor": "reverse",
        "status": "bold #ffffd7",
        "status-wait": "#d7d7af",
        "status-error": "bold #ff5f5f",
        "role-attacking": "#ffaf00",
        "role-defending": "#5fafff",
        "role-taking": "#ff5f5f",
        "role-passed": "#8a8a8a",
        "role-out": "#87d787",
        "role-marked": "#d75fd7",
        "role-offline": "bold #ff5f5f",
        "log": "#8a8a8a",
        "log-new": "#d0d0d0",
        "key": "bold #ffffff",
        "keys": "#8a8a8a",
        "banner": "bold #ffffff bg:#af0000",
        "big": "bold #ff5f5f",
        "big-draw": "bold #ffd75f",
        "pogony": "#ffd75f",
        "heading": "bold #ffffff",
        "lobby-row": "",
        "lobby-selected": "reverse",
        "field": "#d0d0d0",
        "field-value": "bold #ffffd7",
        "error": "bold #ff5f5f",
    }
)


ASCII = str.maketrans(
    {
        "─": "-",
        "│": "|",
        "↑": "^",
        "↓": "v",
        "←": "<",
        "→": ">",
        "—": "-",
        "“": '"',
        "”": '"',
        "«": '"',
        "»": '"',
        "·": "-",
        "•": "*",
        "…": "...",
        "▮": "#",
        "▶": ">",
        "█": "#",
        "✶": "*",
        "‹": "<",
        "›": ">",
        "♠": "S",
        "♥": "H",
        "♦": "D",
        "♣": "C",
        "▁": "_",
        "╱": "/",
        "╲": "\\",
        "▏": "|",
        "▕": "|",
    }
)
"""``--ascii``: every symbol we draw, in plain ASCII."""


class DurakApp:
    """The terminal client.  Start it with a `TableSession` (``localdurak play``) or with a
    `Lobby` (``localdurak``)."""

    def __init__(
        self,
        *,
        session: TableSession | None = None,
        lobby: Lobby | None = None,
        hosting: Hosting | None = None,
        ascii_only: bool = False,
        auto_pass: bool = True,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        from localdurak.cli.keys import build_key_bindings

        if session is None and lobby is None:
            raise ValueError("give the client a table session or a lobby")
        self.session = session
        self.lobby = lobby
        self.hosting = hosting
        """The table this process hosts while we play at it (closed when we leave)."""
        self.ascii_only = ascii_only
        self.auto_pass = auto_pass
        self.ui = TableUI()
        self._unsubscribe: Callable[[], None] | None = None
        self._message_token = 0
        self._acting = False
        self._leave_everything = False
        self._tasks: set[asyncio.Task[None]] = set()
        if lobby is not None:
            lobby.attach(self)
        self._build_table()
        self.application: Application[int] = Application(
            layout=Layout(DynamicContainer(self._root)),
            key_bindings=build_key_bindings(self),
            style=STYLE,
            full_screen=True,
            mouse_support=True,
            # The countdown of a held seat (issue 13 item 11) moves once a second.
            refresh_interval=1.0,
            input=input,
            output=output,
        )

    # --- screens ---------------------------------------------------------------------------

    @property
    def screen(self) -> str:
        """ "table", "help", or the lobby's screen ("lobby", "host", "address", "name", "pin")."""
        if self.ui.show_help:
            return "help"
        if self.session is not None:
            return "table"
        assert self.lobby is not None
        return self.lobby.screen

    def _root(self) -> AnyContainer:
        if self.ui.show_help:
            return self._help_container()
        if self.session is not None:
            return self._table_container
        assert self.lobby is not None
        return self.lobby.container()

    def text(self, make: Callable[[], StyleAndTextTuples]) -> Callable[[], StyleAndTextTuples]:
        """``make``, with the symbols a plain terminal may lack replaced under ``--ascii``."""
        if not self.ascii_only:
            return make

        def plain() -> StyleAndTextTuples:
            return [(f[0], f[1].translate(ASCII), *f[2:]) for f in make()]

        return plain

    def width(self) -> int:
        """The usable width inside the frame."""
        columns = get_app().output.get_size().columns
        return max(20, columns - (0 if self.ascii_only else 2))

    def frame(self, body: AnyContainer, title: Callable[[], str]) -> AnyContainer:
        if self.ascii_only:
            return HSplit(
                [
                    Window(
                        FormattedTextControl(self.text(lambda: [("class:heading", title())])),
                        height=1,
                    ),
                    body,
                ]
            )
        return Frame(body, title=title)

    # --- the table ------------------------------------------------------------------------

    def open_table(self, session: TableSession, hosting: Hosting | None = None) -> None:
        """Sit down at ``session``'s table (from the lobby, or at start); ``hosting``: the
        table this process hosts for it."""
        self.session = session
        if hosting is not None:
            self.hosting = hosting
        self.ui = TableUI()
        self._unsubscribe = session.subscribe(self._on_update)
        self.application.invalidate()

    def _build_table(self) -> None:
        top = Window(
            FormattedTextControl(self.text(self._top_text), focusable=True), wrap_lines=False
        )
        rule = "-" if self.ascii_only else "─"
        body = HSplit(
            [
                ConditionalContainer(
                    Window(FormattedTextControl(self.text(self._banner_text)), height=1),
                    filter=Condition(self._banner_visible),
                ),
                top,
                Window(char=rule, height=1, style="class:frame.border"),
                Window(FormattedTextControl(self.text(self._log_text)), height=2, wrap_lines=False),
                Window(
                    FormattedTextControl(self.text(self._keys_text)), height=1, wrap_lines=False
                ),
            ]
        )
        self._table_container = self.frame(body, self._title)

    def _title(self) -> str:
        s = self.session
        if s is None or s.view is None:
            return "Local Durak"
        v = s.view
        parts = [s.table_name or _("Offline table"), rules_summary(v.rules)]
        parts.append(_("game {n}").format(n=s.game_number))
        me = "" if v.seat is None else s.names[v.seat]
        return " · ".join(parts) + " ─ " + _("you: {name}").format(name=me)

    def _banner_visible(self) -> bool:
        s = self.session
        return s is not None and (
            s.connection
            in (ConnectionState.RECONNECTING, ConnectionState.PAUSED, ConnectionState.CLOSED)
            or bool(s.offline_seats)
        )

    def _banner_text(self) -> StyleAndTextTuples:
        s = self.session
        assert s is not None
        if s.connection is ConnectionState.RECONNECTING:
            text = _("Connection lost — reconnecting…")
        elif s.connection is ConnectionState.PAUSED:
            text = _("The host paused; it will resume. Your seat is kept.")
        elif s.connection is ConnectionState.CLOSED:
            text = _("The table is closed. q to leave.")
        else:
            text = _("Waiting for {names} to reconnect…").format(
                names=join_names(s.offline_seats, s.names, s.seat)
            )
        return [("class:banner", table.pad(" " + text, self.width()))]

    def view(self) -> PlayerView | None:
        return None if self.session is None else self.session.view

    def _top_text(self) -> StyleAndTextTuples:
        s = self.session
        v = self.view()
        if s is not None and s.aborted is not None:
            return self._aborted_text(s, *s.aborted)
        if s is None or v is None:
            from localdurak.cli.netplay import waiting_text

            lines = waiting_text(s, self.hosting, self.width())
            if self.ui.message:
                style = "class:status-error" if self.ui.message_error else "class:status"
                lines += [("", "\n"), (style, "  ▶ " + self.ui.message), ("", "\n")]
            return lines
        if v.result is not None:
            return self._game_over_text(s, v)
        w = self.width()
        self.clamp()
        out: StyleAndTextTuples = []
        out += table.opponents(v, s.names, w, offline=s.offline_seats, ascii_only=self.ascii_only)
        out.append(("", "\n"))
        info = table.info_line(v, self.ascii_only, w)
        out += info
        # The marked note under the line takes the blank row: the table stays where it was.
        out.append(("", "\n" if any("\n" in f[1] for f in info) else "\n\n"))
        ui = self.ui
        shown_target = ui.target
        ui.target = self.effective_target()
        out += table.bout(v, ui, ascii_only=self.ascii_only, on_click=self.click_table)
        ui.target = shown_target
        out.append(("", "\n"))
        held = {x: left for x in s.offline_seats if (left := s.hold_left(x)) is not None}
        status = table.status_line(
            v, s.names, ui, w, closing=s.closing, ascii_only=self.ascii_only, held=held
        )
        out += status
        # The ▶ line takes two rows when long; the hand stays where it was.
        out.append(("", "\n" if any("\n" in t[1] for t in status) else "\n\n"))
        out += table.hand(v, ui, w, ascii_only=self.ascii_only, on_click=self.click_hand)
        return table.fit(out, self._top_rows())

    def _top_rows(self) -> int:
        """Rows left for the table above the log: the screen minus frame, rule, log, keys and
        the banner."""
        rows = get_app().output.get_size().rows
        chrome = (1 if self.ascii_only else 2) + 1 + 2 + 1 + (1 if self._banner_visible() else 0)
        return max(1, rows - chrome)

    def _log_text(self) -> StyleAndTextTuples:
        s = self.session
        if s is None:
            return []
        return table.log_lines(
            s.events, s.names, s.seat, self.width(), 2, ascii_only=self.ascii_only
        )

    def _keys_text(self) -> StyleAndTextTuples:
        v = self.view()
        return table.key_line(
            v, self.width(), v is not None and v.rules.cheating, owner=self.owns_lobby()
        )

    # --- game over -----------------------------------------------------------------------

    def _aborted_text(self, s: TableSession, seat: int, reason: str) -> StyleAndTextTuples:
        """Issue 11 item 2: the game was aborted because ``seat`` broke the card-privacy
        protocol; nobody is the durak."""
        name = s.names[seat] if 0 <= seat < len(s.names) else str(seat)
        out: StyleAndTextTuples = [("", "\n")]
        out += [
            (
                "class:status-error",
                "  " + _("Game aborted: {name} broke the card-privacy protocol.").format(name=name),
            ),
            ("", "\n\n"),
            ("class:status", "  " + _("Nobody is the durak of this game.")),
            ("", "\n"),
        ]
        if reason:
            out += [("class:status", "  " + reason[: max(20, self.width() - 4)]), ("", "\n")]
        return out

    def _game_over_text(self, s: TableSession, v: PlayerView) -> StyleAndTextTuples:
        result = v.result
        assert result is not None
        w = self.width()
        out: StyleAndTextTuples = [("", "\n")]
        if result.draw:
            letters = bigtext.big(_("Draw"), ascii_only=self.ascii_only, max_width=w - 4)
            for row in letters:
                out += [("class:big-draw", "  " + row), ("", "\n")]
            out += [("", "\n"), ("class:status", "  " + _("Nobody is the durak this time."))]
        else:
            who = " & ".join(s.names[d] for d in result.durak)
            rank = str(lowest_rank(v.rules.deck))
            pogony = bigtext.pogony(result.pogony, rank, ascii_only=self.ascii_only)
            room = w - 4 - (max((len(p) for p in pogony), default=0) + 3 if pogony else 0)
            letters = bigtext.big(who, ascii_only=self.ascii_only, max_width=max(10, room))
            wide = max(len(r) for r in letters)
            # R-B15: the epaulettes drawn beside the durak's name.
            for i, row in enumerate(letters):
                out.append(("class:big", "  " + row.ljust(wide)))
                j = i - (len(letters) - len(pogony))
                if pogony and 0 <= j < len(pogony):
                    out.append(("class:pogony", "   " + pogony[j]))
                out.append(("", "\n"))
            if len(letters) < len(pogony):  # the name fell back to one line
                for row in pogony[len(letters) :]:
                    out += [("class:pogony", "  " + " " * wide + "   " + row), ("", "\n")]
            out.append(("", "\n"))
            if s.seat in result.durak:
                line = _("You are the durak!")
            else:
                line = _("{names} — durak!").format(names=join_names(result.durak, s.names, s.seat))
            out.append(("class:status", "  " + line))
            if result.pogony:
                out.append(("class:pogony", "   " + _("with pogony: {n}").format(n=result.pogony)))
        out.append(("", "\n\n"))
        score = s.series
        out.append(
            (
                "class:heading",
                "  "
                + ngettext(
                    "Score after {n} game (times durak):",
                    "Score after {n} games (times durak):",
                    score.games,
                ).format(n=score.games),
            )
        )
        out.append(("", "\n"))
        parts = [
            f"{s.names[i]} {score.durak[i]}" for i in range(len(s.names)) if i < len(score.durak)
        ]
        if score.draws:
            parts.append(_("draws {n}").format(n=score.draws))
        out += [("", "    " + table.pad(" · ".join(parts), w - 6)), ("", "\n\n")]
        out += [("class:label", "  " + _("Audit: ")), ("", self._audit_text(s)), ("", "\n\n")]
        out += [("class:key", "  n"), ("class:keys", " " + _("next game") + "    ")]
        out += [("class:key", "q"), ("class:keys", " " + _("leave"))]
        return out

    def _audit_text(self, s: TableSession) -> str:
        a = s.audit
        if a.status is AuditStatus.OFFLINE:
            return _("offline game — no audit")
        if a.status is AuditStatus.PENDING:
            return _("checking the card-privacy transcript…")
        if a.status is AuditStatus.CLEAN:
            return _("clean: every card was dealt fairly")
        return _("FAILED: {names} broke the card-privacy protocol").format(
            names=join_names(a.seats, s.names, None)
        )

    # --- help ------------------------------------------------------------------------------

    def _help_container(self) -> AnyContainer:
        return self.frame(
            Window(FormattedTextControl(self.text(self.help_text)), wrap_lines=False),
            lambda: _("Help — any key closes"),
        )

    def help_text(self) -> StyleAndTextTuples:
        keys = [
            ("1-9 0", _("select a card of your hand")),
            ("← →", _("move the selection")),
            ("Space", _("mark cards to lead several")),
            ("Enter", _("play: attack, throw in, cover")),
            ("↑ ↓", _("choose the attack card to cover")),
            ("Tab", _("pick a table card by number")),
            ("p", _("transfer (perevodnoy)")),
            ("s", _("show a trump to transfer")),
            ("t", _("take the cards (Beru)")),
            ("d", _("done / pass (Bito)")),
            ("c", _("challenge (cheating mode)")),
            ("n", _("next game (after a game)")),
            ("q", _("leave the table")),
            (_("mouse"), _("click: select, again: play")),
        ]
        if self.session is None:
            # The lobby's own keys (issue 13 item 11: its help listed the table's).
            keys = [
                ("↑ ↓", _("choose a table")),
                ("Enter", _("join the table")),
                ("h", _("host a table")),
                ("b", _("play against bots")),
                ("a", _("enter an address")),
                ("n", _("your name")),
                ("q", _("quit")),
            ]
        out: StyleAndTextTuples = [("class:heading", " " + _("Keys")), ("", "\n")]
        half = (len(keys) + 1) // 2
        col = self.width() // 2
        # Two columns; a description too long for its column goes on in a second line
        # (Russian at 80 columns was cut, issue 13 item 11).
        for i in range(half):
            pair = keys[i::half][:2]
            texts = [table.wrap(what, col - 8) for _k, what in pair]
            for row in range(max(len(x) for x in texts)):
                for (k, _w), lines in zip(pair, texts, strict=True):
                    label = k if row == 0 else ""
                    more = lines[row] if row < len(lines) else ""
                    out += [
                        ("class:key", "  " + table.pad(label, 6)),
                        ("", table.pad(more, col - 8)),
                    ]
                out.append(("", "\n"))
        if self.session is not None and not self.session.offline:
            from localdurak.cli.netplay import pairing_lines

            # The codes again: the deal may have come before they could be read (lan.md).
            lines = pairing_lines(self.session, self.hosting)
            if lines:
                out += [("", "\n"), ("class:heading", " " + _("Pairing codes")), ("", "\n")]
                out += [t for line in lines for t in (("", "  " + line), ("", "\n"))]
        out += [("", "\n"), ("class:heading", " " + _("Glossary")), ("", "\n")]
        for word, meaning in glossary():
            out += [("class:key", "  " + word), ("", " — " + meaning), ("", "\n")]
        return out

    # --- selection -------------------------------------------------------------------------

    def clamp(self) -> None:
        v = self.view()
        if v is None:
            return
        n = len(v.hand)
        self.ui.selected = min(max(0, self.ui.selected), max(0, n - 1))
        self.ui.marked &= set(v.hand)
        on = table.table_cards(v)
        if not on:
            self.ui.focus_table = self.ui.challenge = False
        self.ui.table_cursor = min(self.ui.table_cursor, max(0, len(on) - 1))

    def selected_card(self) -> Card | None:
        v = self.view()
        if v is None or not v.hand:
            return None
        self.clamp()
        return v.hand[self.ui.selected]

    def effective_target(self) -> Card | None:
        """The attack card Enter covers: the one chosen with ↑↓ (or Tab), else the first
        uncovered card the selected card beats, else the first uncovered card."""
        v = self.view()
        if v is None or v.seat != v.defender:
            return None
        unc = v.uncovered
        if not unc:
            return None
        if self.ui.target in unc:
            return self.ui.target
        card = self.selected_card()
        for a in v.legal:
            if a.do is Do.COVER and a.card == card and a.on in unc:
                return a.on
        return unc[0]

    def move_target(self, step: int) -> None:
        v = self.view()
        if v is None:
            return
        unc = list(v.uncovered)
        if not unc:
            return
        current = self.effective_target()
        i = unc.index(current) if current in unc else 0
        self.ui.target = unc[(i + step) % len(unc)]

    # --- acting ------------------------------------------------------------------------------

    def show_message(self, text: str, error: bool = True) -> None:
        self.ui.message = text
        self.ui.message_error = error
        self._message_token += 1
        token = self._message_token

        def clear() -> None:
            if self._message_token == token:
                self.ui.message = ""
                self.application.invalidate()

        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().call_later(MESSAGE_SECONDS, clear)
        self.application.invalidate()

    def owns_lobby(self) -> bool:
        """The host's own player, before the table's first deal (docs/protocol.md §4)."""
        s = self.session
        return (
            self.hosting is not None
            and s is not None
            and self.view() is None
            and getattr(getattr(s, "lobby", None), "games", 1) == 0
            and hasattr(s, "add_bot")
        )

    def add_bot(self) -> None:
        """The owner seats a bot at the first free seat."""
        self._spawn(self._owner(lambda s: s.add_bot("normal")))

    def remove_bot(self) -> None:
        """The owner frees the last seat a bot holds."""
        lobby = getattr(self.session, "lobby", None)
        bots = [
            i
            for i, seat in enumerate(getattr(lobby, "seats", ()))
            if str(getattr(seat.kind, "value", seat.kind)) == "bot"
        ]
        if not bots:
            self.show_message(_("No bot to remove."))
            return
        self._spawn(self._owner(lambda s: s.remove_bot(bots[-1])))

    async def _owner(self, command: Callable[[Any], Awaitable[None]]) -> None:
        try:
            await command(self.session)
        except (RemoteProtocolError, ConnectionError) as e:
            reason = str(e)
            self.show_message(reason[:1].upper() + reason[1:])

    def send(self, action: Action) -> None:
        """Send ``action`` to the table; a refusal shows its reason in the ▶ line."""
        self._spawn(self._send(action))

    def _spawn(self, coro: object) -> None:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coro)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, action: Action) -> None:
        s = self.session
        if s is None:
            return
        try:
            await s.async_act(action)
        except ActionRefused as e:
            # The rule's own sentence, in the player's language: neither the engine's words
            # ("seat 0 was caught or marked") nor the rule's id (issue 13 item 11).
            reason = rule_refusal(e.rule) or e.reason[:1].upper() + e.reason[1:]
            self.show_message(reason)
            return
        self.ui.marked.clear()
        self.ui.target = None
        self.ui.focus_table = self.ui.challenge = False
        self.ui.message = ""
        self.application.invalidate()

    def play_selected(self) -> None:
        """Enter: the natural action for the selected card(s)."""
        v = self.view()
        if v is None or v.seat is None or v.result is not None:
            return
        me = v.seat
        card = self.selected_card()
        if card is None:
            self.show_message(_("You have no cards."))
            return
        if me == v.defender and v.table:
            target = self.effective_target()
            if target is None:
                self.show_message(_("Everything is covered: wait, or take (t)."))
                return
            cover = Action.cover(me, card, target)
            if cover in v.legal:
                self.send(cover)
            elif Action.transfer(me, card) in v.legal:
                self.send(Action.transfer(me, card))
            else:
                self.send(cover)  # refused with its reason (or a cheat, R-S1)
            return
        cards = sorted(self.ui.marked, key=v.hand.index) if self.ui.marked else [card]
        self.send(Action.attack(me, *cards))

    def play_on(self, target: Card) -> None:
        """Cover ``target`` with the selected card (a click on a table card, or Tab + number)."""
        v = self.view()
        card = self.selected_card()
        if v is None or v.seat is None or card is None:
            return
        if v.seat != v.defender or target not in v.uncovered:
            self.show_message(_("Pick one of the uncovered attack cards."))
            return
        self.send(Action.cover(v.seat, card, target))

    def challenge(self, card: Card) -> None:
        v = self.view()
        if v is None or v.seat is None:
            return
        self.ui.challenge = False
        self.send(Action.challenge(v.seat, card))

    def click_hand(self, index: int) -> None:
        """A click on a hand card selects it; a click on the selected card plays it."""
        if self.ui.selected == index and not self.ui.focus_table:
            self.play_selected()
        else:
            self.ui.selected = index
            self.ui.focus_table = False
            self.ui.target = None
        self.application.invalidate()

    def click_table(self, index: int) -> None:
        """A click on a table card: challenge it (after `c`) or cover it."""
        v = self.view()
        if v is None:
            return
        on = table.table_cards(v)
        if not 0 <= index < len(on):
            return
        if self.ui.challenge:
            self.challenge(on[index])
        else:
            self.play_on(on[index])

    def point_table(self, index: int) -> None:
        """A number while picking a table card: point at it (Enter then covers or challenges
        it).  Challenging numbers every card on the table; covering numbers the pairs."""
        v = self.view()
        if v is None:
            return
        on = table.table_cards(v)
        if self.ui.challenge:
            if 0 <= index < len(on):
                self.ui.table_cursor = index
        elif 0 <= index < len(v.table):
            self.ui.table_cursor = on.index(v.table[index][0])

    def pick_table(self, index: int) -> None:
        """A table card picked by number or Enter in table focus / challenge mode."""
        v = self.view()
        if v is None:
            return
        if self.ui.challenge:
            on = table.table_cards(v)
            if 0 <= index < len(on):
                self.challenge(on[index])
            return
        # Table focus numbers the attack/cover pairs (1-6).
        if 0 <= index < len(v.table):
            self.ui.focus_table = False
            self.play_on(v.table[index][0])

    # --- updates -------------------------------------------------------------------------------

    def _on_update(self) -> None:
        self.application.invalidate()
        self._maybe_auto_pass()

    def _maybe_auto_pass(self) -> None:
        """Pass when passing is the only thing you may do (no card to throw in): at once
        offline, after a random human moment at a network table.

        Harmless: a pass lasts only until the table changes (R-B9), and nothing but a change
        of the table could give you a card to throw in.  Not in the cheating mode (any card
        may be thrown in there, R-S1), and not before the main attacker's first word
        (R-B3 first_word: his Done does not change the table)."""
        v = self.view()
        s = self.session
        if not self.auto_pass or v is None or s is None or v.seat is None or s.closing:
            return
        if v.rules.cheating or self._acting or v.legal != (Action.pass_(v.seat),):
            return
        if v.seat not in waiting_for(v):
            return  # a cover would undo the pass anyway (R-B9): pass only when it is awaited
        if v.rules.throw_in_order is ThrowInOrder.FIRST_WORD and v.seat != v.attacker:
            return
        self._acting = True
        seat = v.seat

        async def go() -> None:
            try:
                if not s.offline:
                    # Over the network the others see how fast a pass comes: an instant one
                    # would tell them he holds no card of that rank.  A person's moment,
                    # drawn afresh each time (issue 13 item 11).
                    low, high = AUTO_PASS_SECONDS
                    await asyncio.sleep(_random.uniform(low, high))
                    now = self.view()
                    if now is None or now.legal != (Action.pass_(seat),) or s.closing:
                        return
                await self._send(Action.pass_(seat))
            finally:
                self._acting = False

        self._spawn(go())

    def next_game(self) -> None:
        s = self.session
        v = self.view()
        if s is None or v is None or v.result is None:
            return

        async def go() -> None:
            try:
                await s.async_next_game()
            except ActionRefused as e:
                self.show_message(e.reason)
            self.ui = TableUI()
            self.application.invalidate()

        self._spawn(go())

    def leave_question(self) -> str:
        """What to ask before leaving mid-game, or "" when leaving loses nothing (the lobby, a
        table's lobby before the deal, a game over, a closed table)."""
        s = self.session
        if s is None or s.connection is ConnectionState.CLOSED:
            return ""
        v = self.view()
        if v is None or v.result is not None:
            return ""
        if self.hosting is not None:
            return _("Leave and close the table? y/n")
        if s.offline:
            return _("Leave the game? y/n")
        return _("Leave the table? Your seat is held {n} s. y/n").format(n=round(s.seat_hold))

    def ask_leave(self, *, everything: bool = False) -> None:
        """`q` (or Ctrl-C, ``everything``): ask first when something would be lost."""
        question = self.leave_question()
        if not question:
            self.quit(everything=everything)
            return
        self.ui.confirm = question
        self._leave_everything = everything
        self.application.invalidate()

    def confirm_leave(self) -> None:
        self.ui.confirm = ""
        self.quit(everything=self._leave_everything)

    def cancel_leave(self) -> None:
        self.ui.confirm = ""
        self.application.invalidate()

    def quit(self, *, everything: bool = False) -> None:
        """Leave the table: back to the lobby if we came from it, else out of the program
        (``everything``: out of the program in any case, Ctrl-C)."""
        s = self.session
        back_to_lobby = self.lobby is not None and s is not None and not everything

        async def go() -> None:
            if s is not None:
                if self._unsubscribe is not None:
                    self._unsubscribe()
                    self._unsubscribe = None
                await s.async_leave()
            if self.hosting is not None:
                hosting, self.hosting = self.hosting, None
                await hosting.close()
            if back_to_lobby:
                self.session = None
                self.ui = TableUI()
                self.application.invalidate()
                return
            if self.lobby is not None:
                await self.lobby.close()
            self.application.exit(result=0)

        self._spawn(go())

    async def run_async(self) -> int:
        if self.session is not None and self._unsubscribe is None:
            self.open_table(self.session)
            self._on_update()
        if self.lobby is not None:
            self.lobby.start()
        result = await self.application.run_async()
        for task in list(self._tasks):
            task.cancel()
        return result
