"""The lobby (``localdurak`` with no arguments): the tables on the network, live; a form to
host a table with every option of rules.md section O; play against bots; enter an address;
your name.

Tables come from a `TableSource`.  `default_source` uses the mDNS browser of
`localdurak.net.discovery` when that module is present, and otherwise an empty source that
says why.  Hosting and joining over the network need the session layer (docs/sessions.md), which is
Joining (Enter on a table, "a enter an address") opens a `ClientSession` to it; hosting ("h",
then Enter) starts a `TableHost` in this process with the form's rules and seats the person at
seat 0 (`localdurak.cli.netplay`), as ``localdurak host`` does.

Its length (over 700 lines) is one screen: `Lobby` keeps the list, the form and the
address line as one state its keys move between; the form's fields (`HostForm`) and the
tables' sources (`TableSource`) are already their own classes.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Window
from prompt_toolkit.layout.containers import AnyContainer
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.widgets import TextArea

from localdurak.cli import settings
from localdurak.cli.controller import Shell
from localdurak.cli.i18n import _
from localdurak.cli.net_words import exception_reason, net_reason, net_sentence
from localdurak.cli.table import pad, wrap
from localdurak.game.rules import (
    OPTION_NAMES,
    DurenLeads,
    NextFirstAttack,
    Rules,
    RulesError,
    Teams,
    ThrowIn,
    ThrowInOrder,
    Tie,
    Variant,
)
from localdurak.net.local import BOT_NAMES, LocalTable

if TYPE_CHECKING:
    from localdurak.cli.netplay import Hosting
    from localdurak.net.api import TableSession


class LobbyShell(Shell, Protocol):
    """What the lobby needs of the application that shows it (`DurakApp`; the lobby never
    imports it, nor touches its private parts)."""

    def text(self, make: Callable[[], StyleAndTextTuples]) -> Callable[[], StyleAndTextTuples]: ...

    def frame(self, body: AnyContainer, title: Callable[[], str]) -> AnyContainer: ...

    def width(self) -> int: ...

    def focus(self, container: AnyContainer) -> None: ...

    def show_help(self) -> None: ...

    def open_table(self, session: TableSession, hosting: Hosting | None = None) -> None: ...


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table found on the network, as the lobby lists it."""

    name: str
    where: str
    seats_taken: int
    seats_total: int
    rules: str
    state: str
    address: Any = None
    """The `localdurak.net.client.Address` to join it at (None: it advertised no address)."""
    pin: bool = False
    """The table asks for a PIN: the lobby asks for it before joining."""


class TableSource(Protocol):
    """Where the lobby's list comes from."""

    note: str
    """Why the list may be empty (or why looking is impossible here)."""

    def tables(self) -> list[TableRow]: ...

    async def run(self, on_change: Callable[[], None]) -> None:
        """Keep the list up to date, calling ``on_change`` after each change, until
        cancelled."""
        ...


class NoTables:
    """An empty list: nothing looks for tables (tests, or no discovery module)."""

    def __init__(self, note: str = "") -> None:
        self.note = note

    def tables(self) -> list[TableRow]:
        return []

    async def run(self, on_change: Callable[[], None]) -> None:
        await asyncio.Event().wait()


class MdnsTables:
    """The live list of `localdurak.net.discovery.TableBrowser` (imported when the lobby
    starts looking, so that the first screen does not wait for zeroconf)."""

    def __init__(self, browser_factory: Callable[[], Any] | None = None) -> None:
        self._factory = browser_factory
        self._rows: list[TableRow] = []
        self.note = ""

    def tables(self) -> list[TableRow]:
        return self._rows

    async def run(self, on_change: Callable[[], None]) -> None:
        factory = self._factory
        if factory is None:
            from localdurak.net.discovery import TableBrowser

            factory = TableBrowser
        try:
            async with factory() as browser:
                async for infos in browser.updates():
                    self._rows = [_row(t) for t in infos]
                    on_change()
        except OSError as e:  # DiscoveryUnavailable is an OSError: say why, keep the lobby
            self.note = net_sentence(str(e))
            self._rows = []
            on_change()
            await asyncio.Event().wait()


def _row(t: Any) -> TableRow:
    from localdurak.net.client import Address

    where = f"{t.addresses[0]}:{t.port}" if t.addresses else ""
    states = {"lobby": _("lobby"), "playing": _("playing")}  # TableStatus, for people
    state = states.get(t.state.value, t.state.value) if t.compatible else _("needs another version")
    address = (
        Address(t.addresses[0], t.port, t.fingerprint, tuple(t.addresses[1:]))
        if t.addresses and t.compatible
        else None
    )
    pin = bool(t.pin)
    return TableRow(
        t.name, where, t.seats_taken, t.seats_total, _rules_text(t.rules), state, address, pin
    )


def _rules_text(advertised: str) -> str:
    """A table's advertised rules (`Rules.summary`, "perevodnoy 36 · trump show") with its
    variant in the player's language; the rest as the host wrote it."""
    from localdurak.cli.words import variant_word

    head, sep, rest = advertised.partition(" ")
    try:
        variant = Variant(head)
    except ValueError:
        return advertised
    return variant_word(variant) + sep + rest


def default_source() -> TableSource:
    return MdnsTables()


@dataclass(frozen=True, slots=True)
class Field:
    key: str
    values: tuple[Any, ...]


def _enum(kind: Any) -> tuple[Any, ...]:
    return tuple(v.value for v in kind)


FIELDS: tuple[Field, ...] = (
    Field("name", ("",)),  # the table's name: Enter on it types one ("": "Anna's table")
    Field("seats", (2, 3, 4, 5, 6)),
    Field("bots", (1, 0, 2, 3, 4, 5)),
    Field("variant", _enum(Variant)),
    Field("deck", (36, 24, 52)),
    Field("hand_size", (0, 6, 5)),
    Field("teams", _enum(Teams)),
    Field("throw_in", _enum(ThrowIn)),
    Field("throw_in_order", _enum(ThrowInOrder)),
    Field("first_bout_five", (True, False)),
    Field("trump_show", (False, True)),
    Field("transfer_first_bout", (True, False)),
    Field("cheating", (False, True)),
    Field("japanese", (False, True)),
    Field("tie", _enum(Tie)),
    Field("next_first_attack", _enum(NextFirstAttack)),
    Field("duren_leads", _enum(DurenLeads)),
    Field("partial_defence", (False, True)),
    Field("bot_level", ("normal", "strong", "random")),  # BOT_LEVELS (docs/bots.md)
    Field("pin", (False, True)),  # a random 4-digit PIN, shown on the host's screen
)
TABLE_FIELDS = frozenset({"name", "seats", "bots", "pin", "bot_level"})
"""The form's fields that are not rules (section O) but the table's."""
assert {f.key for f in FIELDS} - TABLE_FIELDS == set(OPTION_NAMES)


class HostForm:
    """Every option of rules.md section O with its default; the impossible combinations
    explained by `Rules` and `Rules.check_seats` themselves."""

    def __init__(self, default_name: str = "") -> None:
        self.index = 1  # seats: the name row is above it, ↑ reaches it
        self.values: dict[str, Any] = {f.key: f.values[0] for f in FIELDS}
        self.values["seats"] = 3
        self.default_name = default_name
        """The table's name when none is typed ("Anna's table")."""

    @property
    def table_name(self) -> str:
        return str(self.values["name"]) or self.default_name

    def cycle(self, step: int) -> None:
        f = FIELDS[self.index]
        if f.key == "name":
            return  # typed, not cycled
        i = f.values.index(self.values[f.key])
        self.values[f.key] = f.values[(i + step) % len(f.values)]

    def rules(self) -> Rules:
        """The rules chosen; raises `RulesError` with the reason."""
        opts = {k: v for k, v in self.values.items() if k not in TABLE_FIELDS}
        rules = Rules(**opts)
        rules.check_seats(self.values["seats"])
        return rules

    def error(self) -> str:
        try:
            self.rules()
        except RulesError as e:
            from localdurak.cli.words import rules_error_text

            return rules_error_text(e)
        if self.values["bots"] > self.values["seats"] - 1:
            return _("At most {n} bots: you take a seat too.").format(n=self.values["seats"] - 1)
        return ""

    def lines(self, width: int) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for i, f in enumerate(FIELDS):
            value = self.values[f.key]
            shown = _("default") if f.key == "hand_size" and value == 0 else _value(value, f.key)
            if f.key == "name":
                shown = value or self.default_name
                style = "class:lobby-selected" if i == self.index else "class:field"
                mark = "▶" if i == self.index else " "
                out.append((style, pad(f"{mark} {_('table name')}", 24)))
                out.append(("class:field-value", f"  {shown}"))
                if i == self.index:
                    out.append(("class:dim", "   " + _("(Enter types a new one)")))
                out.append(("", "\n"))
                continue
            style = "class:lobby-selected" if i == self.index else "class:field"
            mark = "▶" if i == self.index else " "
            out.append((style, pad(f"{mark} {_label(f.key)}", 24)))
            out.append(("class:field-value", f" ‹ {shown} ›"))
            out.append(("", "\n"))
        return out


# The form's words in the player's language: each field's name, and the values of the
# fields whose values are words (the option values of rules.md section O).
FIELD_LABELS: dict[str, Callable[[], str]] = {
    "seats": lambda: _("seats"),
    "bots": lambda: _("bots"),
    "variant": lambda: _("variant"),
    "deck": lambda: _("deck"),
    "hand_size": lambda: _("hand size"),
    "teams": lambda: _("teams"),
    "throw_in": lambda: _("throw in"),
    "throw_in_order": lambda: _("throw in order"),
    "first_bout_five": lambda: _("first bout five"),
    "trump_show": lambda: _("trump show"),
    "transfer_first_bout": lambda: _("transfer first bout"),
    "cheating": lambda: _("cheating"),
    "japanese": lambda: _("japanese"),
    "tie": lambda: _("tie rule"),
    "next_first_attack": lambda: _("next first attack"),
    "duren_leads": lambda: _("duren leads"),
    "partial_defence": lambda: _("partial defence"),
    "bot_level": lambda: _("bot level"),
    "pin": lambda: _("pin"),
}
VALUE_WORDS: dict[str, Callable[[], str]] = {
    "podkidnoy": lambda: _("podkidnoy"),
    "perevodnoy": lambda: _("perevodnoy"),
    "duren": lambda: _("Dureń"),
    "none": lambda: _("none"),
    "2v2": lambda: "2v2",
    "3v3": lambda: "3v3",
    "pairs": lambda: _("pairs"),
    "teams=pairs": lambda: _("three pairs"),
    "all": lambda: _("all"),
    "neighbours": lambda: _("neighbours"),
    "free": lambda: _("free"),
    "first_word": lambda: _("first word"),
    "draw": lambda: _("draw"),
    "last_defender_loses": lambda: _("last defender loses"),
    "at_durak": lambda: _("at the durak"),
    "from_durak": lambda: _("from the durak"),
    "odd": lambda: _("odd"),
    "normal": lambda: _("normal"),
    "strong": lambda: _("strong"),
    "random": lambda: _("random"),
}


def _label(key: str) -> str:
    label = FIELD_LABELS.get(key)
    return label() if label is not None else key.replace("_", " ")


def _value(v: Any, key: str = "") -> str:
    if v is True:
        return _("yes")
    if v is False:
        return _("no")
    word = VALUE_WORDS.get(f"{key}={v}") or VALUE_WORDS.get(v) if isinstance(v, str) else None
    return word() if word is not None else str(v)


class Lobby:
    """The lobby's state and screens; `DurakApp` shows them while no table is open."""

    def __init__(
        self,
        name: str,
        source: TableSource | None = None,
        *,
        bot_delay: float = 0.7,
        port: int | None = None,
    ):
        self.name = name
        self.port = port
        """The port a table hosted from the lobby listens on (None: the fixed port; 0: any)."""
        self.busy = False
        self.source = source if source is not None else default_source()
        self.bot_delay = bot_delay
        self.screen = "lobby"
        self.selected = 0
        self.message = ""
        self.form = HostForm(_("{name}'s table").format(name=name))
        self.app: LobbyShell | None = None
        self._containers: dict[str, AnyContainer] = {}
        self._task: asyncio.Task[None] | None = None
        self.address = TextArea(
            multiline=False, prompt="  HOST:PORT  ", accept_handler=self._address
        )
        self.name_input = TextArea(multiline=False, prompt="  ", accept_handler=self._name)
        self.pin_input = TextArea(
            multiline=False, prompt="  PIN  ", password=True, accept_handler=self._pin
        )
        self.table_name_input = TextArea(
            multiline=False, prompt="  ", accept_handler=self._table_name
        )
        self._pin_for: tuple[Any, str] | None = None
        """The table the PIN screen asks for: its address and its name."""

    def attach(self, app: LobbyShell) -> None:
        self.app = app

    def start(self) -> None:
        app = self.app
        assert app is not None
        self._task = asyncio.get_running_loop().create_task(self.source.run(app.invalidate))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    # --- screens ------------------------------------------------------------------------

    def container(self) -> AnyContainer:
        if not self._containers:
            self._build()
        return self._containers[self.screen]

    def _build(self) -> None:
        app = self.app
        assert app is not None
        host = Window(FormattedTextControl(app.text(self._host_text)), wrap_lines=False)
        lobby = Window(FormattedTextControl(app.text(self._lobby_text)), wrap_lines=False)
        self._containers = {
            "lobby": app.frame(lobby, lambda: "Local Durak"),
            "host": app.frame(host, lambda: _("Host a table")),
        }
        for screen, field in (
            ("address", self.address),
            ("name", self.name_input),
            ("pin", self.pin_input),
            ("table_name", self.table_name_input),
        ):
            head = Window(FormattedTextControl(app.text(self._input_text)), height=3)
            self._containers[screen] = app.frame(
                HSplit([head, field, Window()]), lambda: "Local Durak"
            )

    def show(self, screen: str) -> None:
        """Switch to ``screen``; a form's text field gets the keyboard."""
        self.screen = screen
        app = self.app
        assert app is not None
        field = {
            "address": self.address,
            "name": self.name_input,
            "pin": self.pin_input,
            "table_name": self.table_name_input,
        }.get(screen)
        if field is not None:
            app.focus(field)

    def _lobby_text(self) -> StyleAndTextTuples:
        app = self.app
        assert app is not None
        w = app.width()
        out: StyleAndTextTuples = [("class:heading", " " + _("Tables on this network")), ("", "\n")]
        rows = self.source.tables()
        arrow = ">" if app.ascii_only else "▶"
        if not rows:
            out.append(("class:dim", "   " + _("No tables found yet.")))
            out.append(("", "\n"))
            note = self.source.note or _(
                "If a friend is hosting: Wi-Fi client isolation, a VPN or a firewall can hide "
                "tables — press a to enter the address the host's screen shows."
            )
            out += _wrap(note, w - 4, "class:dim", "   ")
        for i, r in enumerate(rows):
            mark = arrow if i == self.selected else " "
            seats = _("{a}/{b} seats").format(a=r.seats_taken, b=r.seats_total)
            # A table that asks for a PIN says so beside its name, where the row is never cut.
            name = pad(r.name, 18) if not r.pin else pad(r.name, 13) + pad(" " + _("PIN"), 5)
            text = (
                f" {mark} {name} {pad(r.where, 22)} {pad(seats, 10)} {pad(r.rules, 14)} {r.state}"
            )
            style = "class:lobby-selected" if i == self.selected else "class:lobby-row"
            out += [(style, pad(text, w)), ("", "\n")]
        out.append(("", "\n"))
        keys = [
            ("h", _("host a table")),
            ("b", _("play against bots")),
            ("a", _("enter an address")),
        ]
        out.append(("", "  "))
        for k, word in keys:
            out += [("class:key", k), ("", f" {word}     ")]
        out.append(("", "\n  "))
        out += [("class:key", "n"), ("", " " + _("your name") + "     ")]
        out += [("class:key", "?"), ("", " " + _("help") + "     ")]
        out += [("class:key", "q"), ("", " " + _("quit"))]
        out.append(("", "\n\n"))
        out += [("class:label", "  " + _("Your name: ")), ("class:name", self.name), ("", "\n\n")]
        if self.message:
            out += _wrap(self.message, w - 4, "class:status-error", "  ")
        return out

    def _host_text(self) -> StyleAndTextTuples:
        app = self.app
        assert app is not None
        w = app.width()
        out: StyleAndTextTuples = [
            (
                "class:label",
                "  " + _("↑↓ choose · ←→ change · Enter host · b play with bots · Esc back"),
            ),
            ("", "\n"),
        ]
        out += self.form.lines(w)
        err = self.form.error()
        if err:
            out += _wrap(err, w - 4, "class:error", "  ")
        elif self.message:
            out += _wrap(self.message, w - 4, "class:status-error", "  ")
        return out

    def _input_text(self) -> StyleAndTextTuples:
        if self.screen == "address":
            text = _("The host's address and port (its screen shows them). Enter joins, Esc back.")
        elif self.screen == "pin":
            name = self._pin_for[1] if self._pin_for is not None else ""
            text = _("{name} asks for a PIN: the host knows it. Enter joins, Esc back.").format(
                name=name
            )
            out: StyleAndTextTuples = [("", "\n"), ("class:heading", "  " + text)]
            if self.message:
                out += [("", "\n"), ("class:status-error", "  " + self.message)]
            return out
        elif self.screen == "table_name":
            text = _("The table's name, as the friends' lobbies list it. Enter keeps it, Esc back.")
        else:
            text = _("Your name at the table. Enter keeps it, Esc back.")
        return [("", "\n"), ("class:heading", "  " + text)]

    def ask_pin(self, address: Any, label: str, message: str = "") -> None:
        """The PIN screen for the table at ``address``."""
        self._pin_for = (address, label)
        self.pin_input.text = ""
        self.message = message
        self.show("pin")

    def _pin(self, buffer: Any) -> bool:
        target = self._pin_for
        pin = self.pin_input.text.strip()
        self.pin_input.text = ""
        if target is None:
            self.show("lobby")
            return False
        self.show("lobby")
        self.join(target[0], target[1], pin=pin)
        return False

    # --- actions ------------------------------------------------------------------------------

    def _address(self, buffer: Any) -> bool:
        from localdurak.net.client import Address

        text = self.address.text.strip()
        self.show("lobby")
        try:
            address = Address.parse(text)
        except ValueError as e:
            self.message = _("Cannot join: {reason}").format(reason=net_reason(str(e)))
            return False
        self.join(address, text)
        return False

    # --- network play ---------------------------------------------------------------------------

    def _spawn(self, coro: Any) -> None:
        app = self.app
        assert app is not None
        app.spawn(coro)

    def _say(self, text: str) -> None:
        self.message = text
        if self.app is not None:
            self.app.invalidate()

    def join(self, address: Any, label: str, pin: str | None = None) -> None:
        """Join the table at ``address`` and open its screen; a failure stays in the lobby
        with its reason, and a table that wants a PIN (or another one) asks for it."""
        if self.busy:
            return
        self.busy = True
        self._say(_("Joining {name}…").format(name=label))

        async def go() -> None:
            from localdurak.cli import pinning
            from localdurak.cli.netplay import join_table
            from localdurak.net.api import TableError
            from localdurak.net.client import ClientSession
            from localdurak.net.identity import IdentityError, load_for_seat
            from localdurak.net.known_hosts import HostChanged

            try:
                try:
                    identity = load_for_seat()
                except IdentityError as e:
                    self._say(net_reason(str(e)))
                    return
                try:
                    # Trust on first use (docs/lan.md "Trust"): a known table, changed, is refused.
                    pinning.pin(address, label)
                except HostChanged as e:
                    self._say(pinning.changed_text(e))
                    return
                session = ClientSession(identity, self.name, address, pin=pin)
                try:
                    await join_table(session)
                except TableError as e:
                    moved = pinning.changed(address, e, label)
                    if moved is not None:
                        self._say(pinning.changed_text(moved))
                        return
                    if e.pin_wanted:
                        self.ask_pin(address, label, _("Wrong PIN: try again.") if pin else "")
                        return
                    self._say(
                        _("Cannot join {name}: {reason}").format(
                            name=label, reason=net_reason(e.reason)
                        )
                    )
                    return
                await pinning.remember_named(session)
                self.message = ""
                assert self.app is not None
                self.app.open_table(session)
            finally:
                self.busy = False

        self._spawn(go())

    def host(self) -> None:
        """Host the form's table in this process and sit at seat 0."""
        if self.busy or self.form.error():
            return
        self.busy = True
        rules = self.form.rules()
        seats = self.form.values["seats"]
        bots = self.form.values["bots"]
        level = self.form.values["bot_level"]
        pin = f"{secrets.randbelow(10_000):04d}" if self.form.values["pin"] else None
        self._say(_("Starting the table…"))

        async def go() -> None:
            from localdurak.cli.netplay import host_and_sit
            from localdurak.datadir import data_dir
            from localdurak.net.host import HostOptions
            from localdurak.net.identity import IdentityError, load_for_seat
            from localdurak.net.transport import DEFAULT_PORT

            try:
                try:
                    identity = load_for_seat()
                except IdentityError as e:
                    self._say(net_reason(str(e)))
                    return
                options = HostOptions(
                    name=self.form.table_name,
                    seats=seats,
                    rules=rules,
                    bots=bots,
                    bot_level=level,
                    games=1000,
                    record_dir=data_dir() / "records",
                    port=self.port if self.port is not None else DEFAULT_PORT,
                    bot_delay=self.bot_delay,
                    own_seat=True,
                    pin=pin,
                )
                try:
                    hosting, session = await host_and_sit(identity, options, self.name)
                except (OSError, ValueError) as e:
                    self._say(
                        _("Cannot host the table: {reason}").format(reason=exception_reason(e))
                    )
                    return
                self.message = ""
                self.show("lobby")
                assert self.app is not None
                self.app.open_table(session, hosting)
            finally:
                self.busy = False

        self._spawn(go())

    def _table_name(self, buffer: Any) -> bool:
        self.form.values["name"] = settings.clean_name(self.table_name_input.text)
        self.show("host")
        return False

    def _name(self, buffer: Any) -> bool:
        name = settings.clean_name(self.name_input.text)
        if name:
            self.name = name
            self.form.default_name = _("{name}'s table").format(name=name)
            settings.save(name=name)
        self.show("lobby")
        return False

    def play_offline(
        self, rules: Rules | None = None, seats: int = 3, level: str = "strong"
    ) -> None:
        app = self.app
        assert app is not None
        rules = rules or Rules()
        names = [self.name, *BOT_NAMES[: seats - 1]]
        table = LocalTable(
            rules,
            names,
            rng=random.Random(),
            bot_level=level,
            delay=self.bot_delay,
            table_name=_("Offline table"),
        )
        app.open_table(table)
        table.start()

    def key_bindings(self) -> KeyBindings:
        kb = KeyBindings()
        lobby = Condition(lambda: self.app is not None and self.app.screen == "lobby")
        host = Condition(lambda: self.app is not None and self.app.screen == "host")
        typing = Condition(
            lambda: (
                self.app is not None and self.app.screen in ("address", "name", "pin", "table_name")
            )
        )

        @kb.add("up", filter=lobby)
        def _up(event: KeyPressEvent) -> None:
            """Select the table above."""
            self.selected = max(0, self.selected - 1)

        @kb.add("down", filter=lobby)
        def _down(event: KeyPressEvent) -> None:
            """Select the table below."""
            self.selected = min(max(0, len(self.source.tables()) - 1), self.selected + 1)

        @kb.add("enter", filter=lobby)
        def _join(event: KeyPressEvent) -> None:
            """Join the selected table."""
            rows = self.source.tables()
            if not rows:
                self.message = _("No table to join yet: h hosts one, b plays against bots.")
                return
            row = rows[min(self.selected, len(rows) - 1)]
            if row.address is None:
                self.message = _("{name} cannot be joined from here: {state}").format(
                    name=row.name, state=row.state
                )
                return
            if row.pin:
                self.ask_pin(row.address, row.name)
                return
            self.join(row.address, row.name)

        @kb.add("h", filter=lobby)
        def _host(event: KeyPressEvent) -> None:
            """Open the form to host a table."""
            self.show("host")
            self.message = ""

        @kb.add("b", filter=lobby)
        def _bots(event: KeyPressEvent) -> None:
            """Play against two bots on this laptop (strong: the default opponent, as `play`)."""
            self.play_offline()

        @kb.add("a", filter=lobby)
        def _addr(event: KeyPressEvent) -> None:
            """Enter a host's address."""
            self.show("address")

        @kb.add("n", filter=lobby)
        def _rename(event: KeyPressEvent) -> None:
            """Change your name."""
            # The name to edit, with the cursor after it.
            self.name_input.buffer.document = Document(self.name, len(self.name))
            self.show("name")

        @kb.add("?", filter=lobby)
        def _help(event: KeyPressEvent) -> None:
            """Show the keys and the glossary."""
            assert self.app is not None
            self.app.show_help()

        @kb.add("q", filter=lobby)
        def _quit(event: KeyPressEvent) -> None:
            """Quit."""
            assert self.app is not None
            self.app.quit()

        @kb.add("up", filter=host)
        def _f_up(event: KeyPressEvent) -> None:
            """Previous option."""
            self.form.index = (self.form.index - 1) % len(FIELDS)

        @kb.add("down", filter=host)
        def _f_down(event: KeyPressEvent) -> None:
            """Next option."""
            self.form.index = (self.form.index + 1) % len(FIELDS)

        @kb.add("left", filter=host)
        def _f_left(event: KeyPressEvent) -> None:
            """Previous value."""
            self.form.cycle(-1)

        @kb.add("right", filter=host)
        @kb.add("space", filter=host)
        def _f_right(event: KeyPressEvent) -> None:
            """Next value."""
            self.form.cycle(1)

        @kb.add("enter", filter=host)
        def _f_host(event: KeyPressEvent) -> None:
            """Host the table (on the name row: type the table's name)."""
            if FIELDS[self.form.index].key == "name":
                text = str(self.form.values["name"]) or self.form.default_name
                self.table_name_input.buffer.document = Document(text, len(text))
                self.show("table_name")
                return
            self.host()

        @kb.add("b", filter=host)
        def _f_bots(event: KeyPressEvent) -> None:
            """Play this table against bots."""
            if not self.form.error():
                values = self.form.values
                self.play_offline(self.form.rules(), values["seats"], values["bot_level"])

        @kb.add("escape", filter=host | typing, eager=True)
        def _back(event: KeyPressEvent) -> None:
            """Back to the lobby (from the table's name: back to the form)."""
            self.show("host" if self.screen == "table_name" else "lobby")
            self.message = ""

        return kb


def _wrap(text: str, width: int, style: str, indent: str) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for line in wrap(text, width):
        if line:
            out += [(style, indent + line), ("", "\n")]
    return out
