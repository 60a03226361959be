"""The client's key bindings, each with a one-line docstring (the help screen lists them)."""

from __future__ import annotations

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent, merge_key_bindings
from prompt_toolkit.key_binding.key_bindings import KeyBindingsBase

from localdurak.cli import table
from localdurak.cli.controller import TableController
from localdurak.cli.i18n import _
from localdurak.game.actions import Action


def build_key_bindings(app: TableController) -> KeyBindingsBase:
    """The table's keys and the ones every screen has (the lobby adds its own)."""
    return merge_key_bindings([_table_keys(app), _global_keys(app)])


def _global_keys(app: TableController) -> KeyBindings:
    kb = KeyBindings()
    helping = Condition(lambda: app.ui.show_help)

    asking = Condition(lambda: bool(app.ui.confirm))

    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        """Ctrl-C: leave the program (asked first at a table; a second Ctrl-C leaves)."""
        if app.ui.confirm:
            app.shell.quit(everything=True)
        else:
            app.ask_leave(everything=True)

    @kb.add("<any>", filter=helping)
    def _close_help(event: KeyPressEvent) -> None:
        """Any key closes the help."""
        app.ui.show_help = False

    # Escape, eager: a text field the lobby focused before must not keep it as a prefix.
    @kb.add("escape", filter=helping, eager=True)
    def _close_help_escape(event: KeyPressEvent) -> None:
        """Escape closes the help."""
        app.ui.show_help = False

    @kb.add("y", filter=asking & ~helping)
    def _yes(event: KeyPressEvent) -> None:
        """Yes: leave."""
        app.confirm_leave()

    @kb.add("n", filter=asking & ~helping)
    @kb.add("escape", filter=asking & ~helping, eager=True)
    def _no(event: KeyPressEvent) -> None:
        """No: stay at the table."""
        app.cancel_leave()

    @kb.add("<any>", filter=asking & ~helping)
    def _ignore(event: KeyPressEvent) -> None:
        """While the question waits, nothing else is played."""

    return kb


def _table_keys(app: TableController) -> KeyBindings:
    kb = KeyBindings()
    at_table = Condition(lambda: app.shell.screen == "table" and not app.ui.confirm)
    playing = at_table & Condition(lambda: _in_game(app))
    over = at_table & Condition(lambda: not _in_game(app))
    picking = Condition(lambda: app.ui.focus_table or app.ui.challenge) & playing
    hand_focus = playing & ~picking

    @kb.add("?", filter=at_table)
    def _help(event: KeyPressEvent) -> None:
        """Show every key and the glossary."""
        app.ui.show_help = True

    @kb.add("q", filter=at_table)
    def _quit(event: KeyPressEvent) -> None:
        """Leave the table (asked first while a game or the hosted table would be lost)."""
        app.ask_leave()

    @kb.add("n", filter=over)
    def _next(event: KeyPressEvent) -> None:
        """Start the next game of the series."""
        app.next_game()

    # The host's own player, before the first deal: fill seats with bots, or free them.
    owning = at_table & Condition(app.owns_lobby)

    # Every player in a network table's lobby, the host's too: ready once the codes match.
    in_lobby = at_table & Condition(
        lambda: (
            app.view() is None and app.session is not None and app.session.lobby_view is not None
        )
    )

    @kb.add("r", filter=in_lobby)
    def _ready(event: KeyPressEvent) -> None:
        """Ready for the deal (the pairing codes compared), or not ready any more."""
        app.toggle_ready()

    @kb.add("b", filter=owning)
    def _add_bot(event: KeyPressEvent) -> None:
        """Seat a bot at the first free seat (the host, before the first deal)."""
        app.add_bot()

    @kb.add("x", filter=owning)
    def _remove_bot(event: KeyPressEvent) -> None:
        """Free the last seat a bot holds (the host, before the first deal)."""
        app.remove_bot()

    for digit in "1234567890":

        @kb.add(digit, filter=picking)
        def _pick(event: KeyPressEvent) -> None:
            """Point at a table card by its number (Enter then covers or challenges it)."""
            n = int(event.data)
            app.point_table(9 if n == 0 else n - 1)

    for key in table.HAND_KEYS:

        @kb.add(key, filter=hand_focus)
        def _select(event: KeyPressEvent) -> None:
            """Select a card of your hand by its key: 1-9, 0 the tenth, - and = the next two."""
            app.ui.selected = table.HAND_KEYS.index(event.data)
            app.clamp()

    @kb.add("left", filter=hand_focus)
    def _left(event: KeyPressEvent) -> None:
        """Select the card to the left (the attack card chosen with ↑↓ stays chosen)."""
        app.ui.selected -= 1
        app.clamp()

    @kb.add("right", filter=hand_focus)
    def _right(event: KeyPressEvent) -> None:
        """Select the card to the right."""
        v = app.view()
        if v is not None and app.ui.selected < len(v.hand) - 1:
            app.ui.selected += 1

    @kb.add("left", filter=picking)
    def _cursor_left(event: KeyPressEvent) -> None:
        """Move to the table card on the left."""
        app.ui.table_cursor = max(0, app.ui.table_cursor - 1)

    @kb.add("right", filter=picking)
    def _cursor_right(event: KeyPressEvent) -> None:
        """Move to the table card on the right."""
        v = app.view()
        if v is not None:
            app.ui.table_cursor = min(len(table.table_cards(v)) - 1, app.ui.table_cursor + 1)

    @kb.add("up", filter=playing)
    def _target_up(event: KeyPressEvent) -> None:
        """Choose the previous uncovered attack card to cover."""
        app.move_target(-1)

    @kb.add("down", filter=playing)
    def _target_down(event: KeyPressEvent) -> None:
        """Choose the next uncovered attack card to cover."""
        app.move_target(1)

    @kb.add("space", filter=hand_focus)
    def _mark(event: KeyPressEvent) -> None:
        """Mark or unmark the selected card for a lead of several cards."""
        card = app.selected_card()
        if card is not None:
            app.ui.marked ^= {card}

    @kb.add("enter", filter=hand_focus)
    def _play(event: KeyPressEvent) -> None:
        """Play the selected card (or the marked ones): attack, throw in, cover, transfer."""
        app.play_selected()

    @kb.add("enter", filter=picking)
    def _play_pick(event: KeyPressEvent) -> None:
        """Cover or challenge the table card under the cursor."""
        v = app.view()
        if v is None:
            return
        on = table.table_cards(v)
        if app.ui.challenge:
            if on:
                app.challenge(on[app.ui.table_cursor])
        elif on:
            app.ui.focus_table = False
            app.play_on(on[app.ui.table_cursor])

    @kb.add("tab", filter=playing)
    def _focus(event: KeyPressEvent) -> None:
        """Switch between picking a hand card and picking a table card."""
        v = app.view()
        if v is not None and v.table and not app.ui.challenge:
            app.ui.focus_table = not app.ui.focus_table

    @kb.add("escape", filter=at_table, eager=True)
    def _cancel(event: KeyPressEvent) -> None:
        """Cancel a challenge, a table pick or the marks."""
        app.ui.challenge = app.ui.focus_table = False
        app.ui.marked.clear()
        app.ui.message = ""

    @kb.add("t", filter=playing)
    def _take(event: KeyPressEvent) -> None:
        """Take the cards on the table (Beru)."""
        seat = _seat(app)
        if seat is not None:
            app.send(Action.take(seat))

    @kb.add("d", filter=playing)
    def _pass(event: KeyPressEvent) -> None:
        """Done / pass: nothing (more) to throw in (Bito)."""
        seat = _seat(app)
        if seat is not None:
            app.send(Action.pass_(seat))

    @kb.add("p", filter=playing)
    def _transfer(event: KeyPressEvent) -> None:
        """Transfer the attack with the selected card (perevodnoy)."""
        seat, card = _seat(app), app.selected_card()
        if seat is not None and card is not None:
            app.send(Action.transfer(seat, card))

    @kb.add("s", filter=playing)
    def _show(event: KeyPressEvent) -> None:
        """Show the selected trump to transfer (perevodnoy with trump show)."""
        seat, card = _seat(app), app.selected_card()
        if seat is not None and card is not None:
            app.send(Action.show(seat, card))

    @kb.add("c", filter=playing)
    def _challenge(event: KeyPressEvent) -> None:
        """Challenge a card on the table (cheating mode): pick it next."""
        v = app.view()
        if v is None or not v.rules.cheating:
            app.show_message(_("Challenges belong to the cheating mode."))
            return
        if not v.table:
            app.show_message(_("There is no card on the table to challenge."))
            return
        app.ui.challenge = True
        app.ui.focus_table = False
        app.ui.table_cursor = len(table.table_cards(v)) - 1

    return kb


def _in_game(app: TableController) -> bool:
    v = app.view()
    return v is not None and v.result is None


def _seat(app: TableController) -> int | None:
    v = app.view()
    return None if v is None else v.seat
