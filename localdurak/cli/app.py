"""The one prompt_toolkit `Application` of the terminal client: lobby, table, game over, help.

The application renders only its seat's `PlayerView` (from a `TableSession`); a session's
updates reach the screen through ``app.invalidate()``, never by printing.  Keys live in
`localdurak.cli.keys`, the table's pieces in `localdurak.cli.table`, the lobby in
`localdurak.cli.lobby`.
"""

from __future__ import annotations

import asyncio
import shlex
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import merge_key_bindings
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
from localdurak.cli.controller import TableController
from localdurak.cli.i18n import _, ngettext
from localdurak.cli.keys import build_key_bindings
from localdurak.cli.net_words import net_sentence
from localdurak.cli.table import TableUI
from localdurak.cli.words import glossary, join_names, rules_summary
from localdurak.game.cards import Card, lowest_rank
from localdurak.game.view import PlayerView
from localdurak.net.api import AuditStatus, ConnectionState, TableSession

if TYPE_CHECKING:
    from localdurak.cli.lobby import Lobby
    from localdurak.cli.netplay import Hosting

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


def paused_text(journal: Path | None) -> str:
    """What the host's player reads after leaving his table: how to carry it on, or that
    there is nothing to resume."""
    if journal is None:
        return _("The table is closed: there is no game to resume.")
    return _("The table is paused. To carry it on: localdurak host --resume {journal}").format(
        journal=shlex.quote(str(journal))
    )


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
        if session is None and lobby is None:
            raise ValueError("give the client a table session or a lobby")
        self.control = TableController(self, auto_pass=auto_pass)
        """Choosing, playing, auto-pass, ready and leaving (`localdurak.cli.controller`)."""
        self.control.session = session
        self.control.hosting = hosting
        self.lobby = lobby
        self.ascii_only = ascii_only
        self._unsubscribe: Callable[[], None] | None = None
        self.paused_journal: Path | None = None
        """The journal of the table this process hosted and paused when its player left."""
        self._tasks: set[asyncio.Task[None]] = set()
        if lobby is not None:
            lobby.attach(self)
        self._build_table()
        bindings = [build_key_bindings(self.control)]
        if lobby is not None:
            bindings.append(lobby.key_bindings())
        self.application: Application[int] = Application(
            layout=Layout(DynamicContainer(self._root)),
            key_bindings=merge_key_bindings(bindings),
            style=STYLE,
            full_screen=True,
            mouse_support=True,
            # The countdown of a held seat moves once a second.
            refresh_interval=1.0,
            input=input,
            output=output,
        )

    # The controller's state, as the screen and the tests read it.

    @property
    def session(self) -> TableSession | None:
        return self.control.session

    @session.setter
    def session(self, session: TableSession | None) -> None:
        self.control.session = session

    @property
    def hosting(self) -> Hosting | None:
        return self.control.hosting

    @hosting.setter
    def hosting(self, hosting: Hosting | None) -> None:
        self.control.hosting = hosting

    @property
    def ui(self) -> TableUI:
        return self.control.ui

    @ui.setter
    def ui(self, ui: TableUI) -> None:
        self.control.ui = ui

    def effective_target(self) -> Card | None:
        return self.control.effective_target()

    def click_hand(self, index: int) -> None:
        self.control.click_hand(index)

    def click_table(self, index: int) -> None:
        self.control.click_table(index)

    # --- the shell the controller and the lobby see ----------------------------------------

    def invalidate(self) -> None:
        self.application.invalidate()

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def focus(self, container: AnyContainer) -> None:
        self.application.layout.focus(container)

    def show_help(self) -> None:
        self.ui.show_help = True

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
        self._unsubscribe = session.subscribe(self.control.on_update)
        self.control.on_update()

    def _build_table(self) -> None:
        top = Window(
            FormattedTextControl(self.text(self._top_text), focusable=True), wrap_lines=False
        )
        rule = "-" if self.ascii_only else "─"
        body = HSplit(
            [
                ConditionalContainer(
                    Window(
                        FormattedTextControl(self.text(self._banner_text)),
                        height=lambda: len(self._banner_lines()),
                    ),
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
            or s.problem is not None
            or self._clock_text() is not None
        )

    def _clock_text(self) -> str | None:
        """The move clock's countdown in its last 15 s (``--move-time``; the application
        redraws every second)."""
        s = self.session
        clock = s.move_clock if s is not None else None
        now = time.monotonic()
        if clock is None or not clock.shown(now):
            return None
        n = int(clock.left(now) + 0.999)
        if clock.seat == s.seat:  # type: ignore[union-attr]
            return _("You have {n} s to move").format(n=n)
        names = s.names  # type: ignore[union-attr]
        name = names[clock.seat] if 0 <= clock.seat < len(names) else "?"
        return _("{name} has {n} s to move").format(name=name, n=n)

    def _banner_text(self) -> StyleAndTextTuples:
        lines = [table.pad(" " + line, self.width()) for line in self._banner_lines()]
        return [("class:banner", "\n".join(lines))]

    def _banner_lines(self) -> list[str]:
        """The banner's words in at most two lines: a long one (the host cannot save, with
        its reason, in Russian) wraps instead of being cut at 80 columns."""
        return table.wrap(self._banner_words(), self.width() - 1)[:2]

    def _banner_words(self) -> str:
        s = self.session
        if s is None:
            return ""
        if s.connection is ConnectionState.RECONNECTING:
            text = _("Connection lost — reconnecting…")
        elif s.connection is ConnectionState.PAUSED:
            text = _("The host paused; it will resume. Your seat is kept.")
        elif s.connection is ConnectionState.CLOSED:
            text = _("The table is closed. q to leave.")
        elif s.problem is not None:
            text = net_sentence(s.problem)  # the host's words (a full or read-only disk)
        elif (clock := self._clock_text()) is not None:
            text = clock
        else:
            text = _("Waiting for {names} to reconnect…").format(
                names=join_names(s.offline_seats, s.names, s.seat)
            )
        return text

    def view(self) -> PlayerView | None:
        return self.control.view()

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
        self.control.clamp()
        out: StyleAndTextTuples = []
        out += table.opponents(v, s.names, w, offline=s.offline_seats, ascii_only=self.ascii_only)
        out.append(("", "\n"))
        info = table.info_line(v, self.ascii_only, w)
        out += info
        # The marked note under the line takes the blank row: the table stays where it was.
        out.append(("", "\n" if any("\n" in f[1] for f in info) else "\n\n"))
        ui = self.ui
        shown_target = ui.target
        ui.target = self.control.effective_target()
        out += table.bout(
            v, ui, ascii_only=self.ascii_only, on_click=self.control.click_table, width=w
        )
        ui.target = shown_target
        out.append(("", "\n"))
        held = {x: left for x in s.offline_seats if (left := s.hold_left(x)) is not None}
        status = table.status_line(
            v, s.names, ui, w, closing=s.closing, ascii_only=self.ascii_only, held=held
        )
        out += status
        # The ▶ line takes two rows when long; the hand stays where it was.
        out.append(("", "\n" if any("\n" in t[1] for t in status) else "\n\n"))
        out += table.hand(v, ui, w, ascii_only=self.ascii_only, on_click=self.control.click_hand)
        return table.fit(out, self._top_rows())

    def _top_rows(self) -> int:
        """Rows left for the table above the log: the screen minus frame, rule, log, keys and
        the banner."""
        rows = get_app().output.get_size().rows
        banner = len(self._banner_lines()) if self._banner_visible() else 0
        chrome = (1 if self.ascii_only else 2) + 1 + 2 + 1 + banner
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
            v,
            self.width(),
            v is not None and v.rules.cheating,
            owner=self.control.owns_lobby(),
            lobby=v is None and self.session is not None and self.session.lobby_view is not None,
            closed=self.session is not None and self.session.connection is ConnectionState.CLOSED,
        )

    # --- game over -----------------------------------------------------------------------

    def _aborted_text(self, s: TableSession, seat: int, reason: str) -> StyleAndTextTuples:
        """The game was aborted because ``seat`` broke the card-privacy protocol; nobody is the
        durak (privacy.md "Blame goes to the cheater")."""
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
            wide = max(table.width(r) for r in letters)  # cells: a Chinese name takes two
            # R-B15: the epaulettes drawn beside the durak's name, bottoms aligned (a name
            # that fell back to one line stands beside their last row).
            rows = max(len(letters), len(pogony))
            names = [""] * (rows - len(letters)) + letters
            shoulders = [""] * (rows - len(pogony)) + pogony
            for row, epaulette in zip(names, shoulders, strict=True):
                out.append(("class:big", "  " + table.pad(row, wide)))
                if epaulette:
                    out.append(("class:pogony", "   " + epaulette))
                out.append(("", "\n"))
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
        if score.games == 0:
            # A network table counts the game once the host has audited it: until then the
            # screen said "Score after 0 games" over an empty line.
            out += [("class:heading", "  " + _("The score comes once the game is audited."))]
            out += [("", "\n"), ("", "\n\n")]
        else:
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
                f"{s.names[i]} {score.durak[i]}"
                for i in range(len(s.names))
                if i < len(score.durak)
            ]
            if score.draws:
                parts.append(_("draws {n}").format(n=score.draws))
            out += [("", "    " + table.pad(" · ".join(parts), w - 6)), ("", "\n\n")]
        out += [("class:label", "  " + _("Audit: ")), ("", self._audit_text(s)), ("", "\n\n")]
        if s.connection is not ConnectionState.CLOSED:  # the series is over: no next game
            out += [("class:key", "  n"), ("class:keys", " " + _("next game") + "    ")]
            out += [("class:key", "q"), ("class:keys", " " + _("leave"))]
        else:
            out += [("class:key", "  q"), ("class:keys", " " + _("leave"))]
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
            # The lobby's own keys (its help listed the table's).
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
        # (Russian at 80 columns was cut).
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
            said = ""
            if self.hosting is not None:
                hosting, self.hosting = self.hosting, None
                # Stopping is pausing: a game to come back to is paused,
                # its journal is the way back; any other table closes, nothing to resume.
                self.paused_journal = await hosting.stop("the host left")
                said = paused_text(self.paused_journal)
            if back_to_lobby:
                self.session = None
                self.ui = TableUI()
                if said and self.lobby is not None:
                    self.lobby.message = said
                self.application.invalidate()
                return
            if self.lobby is not None:
                await self.lobby.close()
            self.application.exit(result=0)

        self.spawn(go())

    async def run_async(self) -> int:
        if self.session is not None and self._unsubscribe is None:
            self.open_table(self.session)
        if self.lobby is not None:
            self.lobby.start()
        result = await self.application.run_async()
        for task in list(self._tasks):
            task.cancel()
        return result
