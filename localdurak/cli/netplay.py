"""Network play for the terminal client: hosting a table in-process (``localdurak host``, the
lobby's "h host a table"), joining one (``localdurak join``, Enter in the lobby, "a enter an
address"), and the waiting screen shown until the first deal (ui.md: the host's screen shows
its address and port and the pairing code; lan.md)."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from prompt_toolkit.formatted_text import StyleAndTextTuples

from localdurak.cli.i18n import _, ngettext
from localdurak.cli.net_words import net_reason
from localdurak.cli.table import pad
from localdurak.cli.words import rules_summary
from localdurak.net.api import SeatKind, TableError, TableSession
from localdurak.net.client import Address, ClientSession
from localdurak.net.discovery import lan_addresses
from localdurak.net.host import HostOptions, TableHost, resume_table
from localdurak.net.host_bots import share_checks
from localdurak.net.identity import Identity


@dataclass
class Hosting:
    """A table this process hosts while its person plays at seat 0."""

    host: TableHost
    serving: asyncio.Task[None]
    addresses: list[str] = field(default_factory=list)

    @property
    def port(self) -> int:
        return self.host.port

    @property
    def pin(self) -> str | None:
        """The table's PIN, shown on the host's screen for the friends (None: no PIN)."""
        return self.host.o.pin

    async def close(self, reason: str = "the host left") -> None:
        await self.host.close(reason)
        self.serving.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.serving

    async def stop(self, reason: str = "the host left") -> Path | None:
        """Stopping is pausing (`TableHost.stop`): the journal to resume, or None when the
        table closed (nothing to resume)."""
        journal = await self.host.stop(reason)
        self.serving.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.serving
        return journal


async def start_hosting(identity: Identity, options: HostOptions) -> Hosting:
    """Start ``options``' table (raises `PortInUse`/OSError with the reason)."""
    options.own_seat = True
    host = TableHost(identity, options)
    await host.start()
    serving = asyncio.get_running_loop().create_task(host.run())
    return Hosting(host, serving, lan_addresses() or ["127.0.0.1"])


async def resume_hosting(
    identity: Identity, journal: Path, record_dir: Path | None = None
) -> Hosting:
    """A table hosted here that crashed, up again from its journal (`resume_table`)."""
    host = resume_table(identity, journal, record_dir=record_dir)
    await host.start()
    serving = asyncio.get_running_loop().create_task(host.run())
    return Hosting(host, serving, lan_addresses() or ["127.0.0.1"])


async def sit_at_own_table(identity: Identity, hosting: Hosting, player: str) -> ClientSession:
    """The host's person at seat 0 of the table this process hosts (after a crash, the saved
    seat in the data directory brings his game back).  He says ready himself, like every
    guest, once the codes are compared (docs/ui.md "The lobby")."""
    session = ClientSession(
        identity,
        player,
        Address("127.0.0.1", hosting.port, identity.fingerprint),
        pin=hosting.pin,
    )
    # The same process: the seat checks no proof the host has checked (and the other way).
    session.on_game = lambda g: share_checks(hosting.host.game, g)
    try:
        await join_table(session)
    except TableError as e:
        await hosting.close()
        raise ConnectionError(net_reason(e.reason)) from None
    return session


async def join_table(session: ClientSession, *, ready: bool = False) -> None:
    """Connect ``session`` (``ready``: say ready at once, for a seat nobody watches); raises
    `TableError` with the reason (``pin_wanted`` for a PIN the table does not take), the
    session closed."""
    await session.async_join(ready=ready)


async def host_and_sit(
    identity: Identity, options: HostOptions, player: str
) -> tuple[Hosting, ClientSession]:
    """Host ``options``' table and sit ``player`` at seat 0 through a network session to it (so
    the host's player is checked like everybody else)."""
    hosting = await start_hosting(identity, options)
    return hosting, await sit_at_own_table(identity, hosting, player)


def waiting_text(
    session: TableSession | None, hosting: Hosting | None, width: int
) -> StyleAndTextTuples:
    """The table's lobby until the first deal: its name, where to join it, the pairing
    codes, the seats and their state, and what the table waits for: every player's `r`
    once he has compared the codes (docs/ui.md "The lobby")."""
    lobby = None if session is None else session.lobby_view
    if session is None or lobby is None:
        return [("class:dim", _("Dealing…"))]
    out: StyleAndTextTuples = [("", "\n")]
    out += [("class:heading", "  " + _("Table {name}").format(name=lobby.table))]
    out += [("class:label", "   " + rules_summary(lobby.rules)), ("", "\n\n")]
    if hosting is not None:
        where = "  ".join(f"{a}:{hosting.port}" for a in hosting.addresses)
        out += [("class:label", "  " + _("This laptop: ")), ("class:field-value", where)]
        out += [("", "\n")]
        pin = hosting.pin
        if pin:
            out += [("class:label", "  " + _("PIN: ")), ("class:field-value", pin)]
            out += [("class:dim", "  " + _("(tell it to your friends)")), ("", "\n")]
        out += [
            (
                "class:dim",
                "  " + _("Friends: Enter on the table in their lobby, or a and this address."),
            ),
            ("", "\n\n"),
        ]
    else:
        code = session.pairing_code
        if code:
            out += [("class:label", "  " + _("Code to compare with the host: "))]
            out += [("class:field-value", code), ("", "\n\n")]
    out += [("class:heading", "  " + _("Seats")), ("", "\n")]
    me = session.seat
    waiting: list[str] = []
    free = 0
    for i, s in enumerate(lobby.seats):
        if s.kind is SeatKind.EMPTY:
            text, state = _("(free)"), ""
            free += 1
        else:
            text = s.name + (" " + _("(you)") if i == me else "")
            if s.kind is SeatKind.BOT:
                state = _("bot")
            elif not s.connected:
                state = _("offline")
                waiting.append(s.name)
            elif s.ready:
                state = _("ready")
            else:
                state = _("not ready")
                waiting.append(s.name)
            if s.code:  # a guest's code, at the host's screen (a bot has none to compare)
                state += "   " + _("code {code}").format(code=s.code)
        out += [("", f"   {i + 1}. "), ("class:name", pad(text, 22)), ("", " " + state)]
        out.append(("", "\n"))
    out.append(("", "\n"))
    if free:
        waiting.append(ngettext("{n} more player", "{n} more players", free).format(n=free))
    if waiting:
        line = _("Waiting for: {who}").format(who=_(", ").join(waiting))
    else:
        line = _("Everybody is here: dealing…")
    out += [("class:status-wait", "  " + pad(line, max(10, width - 4))), ("", "\n")]
    mine = lobby.seats[me] if 0 <= me < len(lobby.seats) else None
    if mine is not None and mine.kind is SeatKind.HUMAN:
        if hosting is not None:
            hint = _("Compare each player's code with the code on their screen, then press r.")
        else:
            hint = _("Compare the code with the host's screen, then press r.")
        if mine.ready:
            hint = _("You are ready: r again if you are not.")
        out += [("class:status", "  ▶ " + hint), ("", "\n")]
    return out


def pairing_lines(session: TableSession, hosting: Hosting | None) -> list[str]:
    """The pairing codes to compare, for the help screen (the waiting screen may have been
    too short to read them: the deal comes as soon as the last seat is taken)."""
    code = session.pairing_code
    if hosting is None:
        return [_("Code to compare with the host: ") + code] if code else []
    lobby = session.lobby_view
    if lobby is None:
        return []
    where = "  ".join(f"{a}:{hosting.port}" for a in hosting.addresses)
    out = [_("This laptop: ") + where]
    out += [f"{s.name}: " + _("code {code}").format(code=s.code) for s in lobby.seats if s.code]
    return out
