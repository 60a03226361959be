"""What the person does at a table, apart from the screen that shows it: choosing cards and
the attack card to cover, playing, covering, challenging, auto-pass, the next game, the
lobby's ready and the owner's bots, and the question before leaving.

`DurakApp` (the screen), `localdurak.cli.keys` (the keys) and `localdurak.cli.lobby` use it;
it imports none of them.  It sees the application through `Shell`, and the table only
through the port, `localdurak.net.api.TableSession` (no duck typing, no import circle).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from localdurak.cli import table
from localdurak.cli.i18n import _
from localdurak.cli.net_words import net_sentence
from localdurak.cli.table import TableUI
from localdurak.cli.words import rule_refusal, waiting_for
from localdurak.game.actions import Action, Do
from localdurak.game.cards import Card
from localdurak.game.rules import ThrowInOrder
from localdurak.game.view import PlayerView
from localdurak.net.api import (
    ActionRefused,
    ConnectionState,
    SeatKind,
    TableError,
    TableSession,
)

if TYPE_CHECKING:
    from localdurak.cli.netplay import Hosting

MESSAGE_SECONDS = 4.0
"""How long a refusal stays in the ▶ line (ui.md: "for a few seconds")."""

AUTO_PASS_SECONDS = (0.8, 2.6)
"""The range of the random moment auto-pass waits at a network table: how long a person
takes to see that nothing of his fits and press d."""

_random = random.SystemRandom()


class Shell(Protocol):
    """What the controller and the lobby need of the application around them."""

    ascii_only: bool

    @property
    def screen(self) -> str: ...

    def invalidate(self) -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` on the event loop, cancelled when the application ends."""
        ...

    def quit(self, *, everything: bool = False) -> None: ...


class TableController:
    """One person's choices and actions at the table ``session`` (None in the lobby)."""

    def __init__(self, shell: Shell, *, auto_pass: bool = True) -> None:
        self.shell = shell
        self.session: TableSession | None = None
        self.hosting: Hosting | None = None
        """The table this process hosts while we play at it (stopped when we leave)."""
        self.ui = TableUI()
        self.auto_pass = auto_pass
        self._message_token = 0
        self._acting = False
        self._leave_everything = False

    def view(self) -> PlayerView | None:
        return None if self.session is None else self.session.view

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
                self.shell.invalidate()

        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().call_later(MESSAGE_SECONDS, clear)
        self.shell.invalidate()

    def owns_lobby(self) -> bool:
        """The host's own player, before the table's first deal (docs/protocol.md §4)."""
        s = self.session
        lobby = None if s is None else s.lobby_view
        return (
            self.hosting is not None
            and lobby is not None
            and self.view() is None
            and lobby.games == 0
            and lobby.owner == s.seat  # type: ignore[union-attr]
        )

    def add_bot(self) -> None:
        """The owner seats a bot at the first free seat."""
        self.shell.spawn(self._owner(lambda s: s.async_add_bot("normal")))

    def remove_bot(self) -> None:
        """The owner frees the last seat a bot holds."""
        lobby = None if self.session is None else self.session.lobby_view
        bots = (
            []
            if lobby is None
            else [i for i, seat in enumerate(lobby.seats) if seat.kind is SeatKind.BOT]
        )
        if not bots:
            self.show_message(_("No bot to remove."))
            return
        self.shell.spawn(self._owner(lambda s: s.async_remove_bot(bots[-1])))

    def toggle_ready(self) -> None:
        """`r` in a network table's lobby: ready for the deal once the codes are compared
        (docs/ui.md "The lobby"), or not ready any more."""
        s = self.session
        lobby = None if s is None else s.lobby_view
        if s is None or lobby is None or self.view() is not None:
            return
        mine = lobby.seats[s.seat] if 0 <= s.seat < len(lobby.seats) else None
        ready = not (mine is not None and mine.ready)
        self.shell.spawn(self._owner(lambda t: t.async_ready(ready)))

    async def _owner(self, command: Callable[[TableSession], Awaitable[None]]) -> None:
        if self.session is None:
            return
        try:
            await command(self.session)
        except TableError as e:
            self.show_message(net_sentence(e.reason))

    def send(self, action: Action) -> None:
        """Send ``action`` to the table; a refusal shows its reason in the ▶ line."""
        self.shell.spawn(self._send(action))

    async def _send(self, action: Action) -> None:
        s = self.session
        if s is None:
            return
        try:
            await s.async_act(action)
        except ActionRefused as e:
            # The rule's own sentence, in the player's language: neither the engine's words
            # ("seat 0 was caught or marked") nor the rule's id.
            reason = rule_refusal(e.rule) or net_sentence(e.reason)
            self.show_message(reason)
            return
        self.ui.marked.clear()
        self.ui.target = None
        self.ui.focus_table = self.ui.challenge = False
        self.ui.message = ""
        self.shell.invalidate()

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
        self.shell.invalidate()

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

    def on_update(self) -> None:
        """The session changed: redraw, and pass by itself when that is all one may do."""
        self.shell.invalidate()
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
                    # drawn afresh each time.
                    low, high = AUTO_PASS_SECONDS
                    await asyncio.sleep(_random.uniform(low, high))
                    now = self.view()
                    if now is None or now.legal != (Action.pass_(seat),) or s.closing:
                        return
                await self._send(Action.pass_(seat))
            finally:
                self._acting = False

        self.shell.spawn(go())

    def next_game(self) -> None:
        s = self.session
        v = self.view()
        if s is None or v is None or v.result is None:
            return

        async def go() -> None:
            try:
                await s.async_next_game()
            except ActionRefused as e:
                self.show_message(net_sentence(e.reason))
            self.ui = TableUI()
            self.shell.invalidate()

        self.shell.spawn(go())

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
            self.shell.quit(everything=everything)
            return
        self.ui.confirm = question
        self._leave_everything = everything
        self.shell.invalidate()

    def confirm_leave(self) -> None:
        self.ui.confirm = ""
        self.shell.quit(everything=self._leave_everything)

    def cancel_leave(self) -> None:
        self.ui.confirm = ""
        self.shell.invalidate()
