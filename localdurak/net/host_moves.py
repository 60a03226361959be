"""The table host's game commands: a seat's card-privacy step, accepted or refused by the
`HostGame` and relayed to every seat; the R-S5 challenge window an action that closes a bout
waits for in cheating mode; the move clock (past it the seat waited for forfeits)."""

from __future__ import annotations

import logging
import time
from typing import Any

from localdurak.net.host_core import (
    REVEAL_TIMEOUT,
    Go,
    HeldBack,
    HostCore,
    Phase,
)
from localdurak.net.peer import Peer
from localdurak.net.recovery import signed_item
from localdurak.protocol.errors import (
    CheatFound,
    RemoteProtocolError,
    Unavailable,
)
from localdurak.protocol.messages import (
    Ack,
    Clock,
    Closing,
    Error,
    Privacy,
    TableState,
)
from localdurak.protocol.records import (
    journal_action,
    journal_append,
)
from localdurak.protocol.table.clock import Waited, waited_for
from localdurak.protocol.table.common import GAME_STEPS, action_of, decode_body
from localdurak.protocol.table.host import HostGame
from localdurak.protocol.table.policy import waits_for_challenges

log = logging.getLogger("localdurak.net.host")


class HostMoves(HostCore):
    """A game's commands, the challenge window and the move clock (part of `TableHost`)."""

    def _privacy(self, seat: int, cmd: Privacy, peer: Peer | None = None) -> int | None:
        g = self.game
        if g is None or self.state is not TableState.PLAYING:
            raise Unavailable("no game is being played")
        if g.duplicate(seat, cmd):
            return None  # a reconnecting client sent it again: already relayed
        if self.trace:
            self.on_event({"event": "got", "seat": seat, "step": cmd.step, "t": time.monotonic()})
        if self._hold_back(g, seat, cmd, peer):
            raise HeldBack()
        try:
            acc = g.receive(seat, cmd)
        except RemoteProtocolError as e:
            # The gap it leaves in the seat's counters, explained in the record even after a
            # restart (which rebuilds the game from the relayed steps alone).
            # With the refused step itself, so the audit can check the refusal (records.md);
            # a step kept in the log as evidence is in the record's steps instead, not journaled
            # for a resume (the game is aborted).
            self._signed = len(g.steps)
            entry = g.refusal(seat, cmd.n)
            if entry is not None:
                self._refused.append((seat, cmd.n))
                self.store.journal_line(journal_append("privacy_refused", entry))
            if isinstance(e, CheatFound) and e.seat is not None:
                self._abort(e.seat, e.reason)
            raise
        first: int | None = None
        # The step's lines in one write (three writes per action were on its relay's path).
        lines = [journal_append("privacy_log", m.to_json()) for m in g.accepted_log[self._logged :]]
        self._logged = len(g.accepted_log)
        lines += [
            journal_append("privacy_signed", signed_item(st)) for st in g.steps[self._signed :]
        ]
        self._signed = len(g.steps)
        if acc.action is not None:
            lines.append(journal_action(acc.action))
        self.store.journal_line("".join(lines))
        with self._one_write():
            for s, c in acc.relay:
                ev = c.relayed(self._next_seq(), s)
                first = first if first is not None else ev.seq
                self._emit(ev)
        # After the relay is written: the players restart the move clock from the action
        # themselves, and a `Clock` it still takes (a seat away) follows on its own.
        self._update_clock(acted=any(c.step in GAME_STEPS for _, c in acc.relay))
        if self.phase is Phase.FORFEITED or self.phase is Phase.ABORTED:
            assert self._ending is not None
            revealed = g.privacy.t.revealed
            gone = (
                self._ending.forfeit if self._ending.forfeit is not None else self._ending.aborted
            )
            if all(k is not None for s, k in enumerate(revealed) if s != gone):
                self._record()
            return first
        game = g.game
        if game is not None and game.result is not None:
            if self._go(Go.RESULT):
                self._reveal_timer = self._post_later(REVEAL_TIMEOUT, self._record)
            if g.all_revealed():
                self._record()
        return first

    def _hold_back(self, g: HostGame, seat: int, cmd: Privacy, peer: Peer | None) -> bool:
        """R-S5: in cheating mode an action that would close the bout waits for the challenge
        window; challenges that arrive meanwhile are applied first."""
        window = self.o.challenge_window
        if not self.o.rules.cheating or window <= 0 or self._releasing or g.game is None:
            return False
        if cmd.step not in ("play", "act"):
            return False
        try:
            action = action_of(decode_body(cmd.body, seat))
        except RemoteProtocolError:
            return False  # refused on the spot, with its reason
        if not waits_for_challenges(self.o.rules, g.game, action):
            return False
        self.on_event({"event": "challenge_window", "seat": seat, "seconds": window})
        self._held += 1
        # The seat acted in time: no clock runs while the table holds its action (it ran on
        # and forfeited a seat that closed a bout in its last `window` seconds).
        self._update_clock()
        # Everybody sees the window open (their screens say challenges are still taken).
        self._emit(Closing(seq=self._next_seq(), seat=seat, open=True, window=int(window * 1000)))
        self._post_later(window, lambda: self._release(seat, cmd, peer))
        return True

    def _release(self, seat: int, cmd: Privacy, peer: Peer | None) -> None:
        self._held -= 1
        if self.game is None:
            return
        self._releasing = True
        try:
            seq = self._privacy(seat, cmd, peer)
        except RemoteProtocolError as e:
            if peer is not None:
                peer.push(Error.from_exception(e, re=cmd.id))
            else:
                self._bot_refused(seat, cmd)  # a bot's, held back for challenges
            return
        finally:
            self._releasing = False
            if not self._held and self.game is not None:
                self._emit(Closing(seq=self._next_seq(), seat=seat, open=False))
                # The clock again for whoever the table waits for (when the held action was
                # taken, it has started already: this changes nothing).
                self._update_clock()
        if peer is not None:
            peer.push(Ack(re=cmd.id, seq=seq))

    def _from_bot(self, seat: int, cmd: Privacy) -> None:
        try:
            self._privacy(seat, cmd)
        except HeldBack:
            pass  # released when the challenge window closes (R-S5)
        except RemoteProtocolError as e:
            log.info("bot %d refused: %s", seat, e)
            self._bot_refused(seat, cmd)

    def _bot_refused(self, seat: int, cmd: Privacy) -> None:
        """Tell the bot at ``seat`` its step was refused, with where (it keeps the step for
        a host that loses the refusal: `BotSeat.refused`)."""
        bot = self.seats[seat].bot
        if bot is None:
            return
        entry = self.game.refusal(seat, cmd.n) if self.game is not None else None
        envelope = entry[2] if entry is not None and len(entry) > 2 else None
        self.bots.refused(seat, bot, cmd, envelope["at"] if envelope else None)

    def _waited_for(self) -> Waited | None:
        """The seat the table waits for, and the state it waits in (public information:
        `clock.waited_for`); None before the deal is done, after the result, or when the
        game is not being played (forfeited, aborted)."""
        g = self.game
        if self.phase is not Phase.PLAYING or g is None:
            return None
        return waited_for(g.game)

    def _update_clock(self, *, acted: bool = False) -> None:
        """Start the clock when the seat waited for or the state it waits in changed; tell
        every screen (a `Clock` event) what it does not make of the game action itself
        (``acted``: one was relayed; `ClockView`: each player restarts the clock from it).
        No clock runs while a resumed host gathers what it lost (`_begin_gathering`), nor
        while an action that closes the bout waits for challenges (R-S5, `_hold_back`), nor
        against a seat that is away: its hold runs instead (reading: ``--hold`` is how long a
        dropped player's seat is held before he forfeits; the move clock is for a connected
        player who does not act — it forfeited a player who dropped on his turn after the
        move time, sooner than his hold)."""
        if self.o.move_time <= 0 or self.store.replaying:
            return
        view = self._clock_view
        public = self._waited_for()
        derived = acted and view.acted(public)
        held = self._gathering or self._held > 0  # R-S5: an action held for challenges
        waited = None if held else public
        if waited is not None and self.seats[waited[0]].away_since is not None:
            waited, held = None, True
        if waited == self._clock_for:
            if derived:
                # The players restarted a clock this one did not (they do not know it is
                # held): say how it is.
                self._tell_clock(public)
            return
        running = self._clock_for is not None
        if self._clock_timer is not None:
            self._clock_timer.cancel()
            self._clock_timer = None
        self._clock_for = waited
        if waited is None:
            if (held and running) or (derived and view.seat is not None):
                # Its countdown off every screen: nobody's clock runs now.
                self._tell_clock(public)
            return
        seconds = round(self.o.move_time)
        self._clock_timer = self._post_later(self.o.move_time, lambda: self._clock_out(waited))
        if derived and view.seat == waited[0] and view.seconds == seconds:
            return  # every player restarted it from the action, for the same seconds
        self._tell_clock(public)

    def _tell_clock(self, public: Waited | None) -> None:
        """A `Clock` event: the clock that runs now (with the whole move time, which the
        players take for the restarts they make themselves), or none."""
        seat = None if self._clock_for is None else self._clock_for[0]
        seconds = 0 if seat is None else round(self.o.move_time)
        self._clock_view.told(seat, seconds, public)
        self._emit(Clock(seq=self._next_seq(), seat=seat, seconds=seconds))

    def _stop_clock(self) -> None:
        if self._clock_timer is not None:
            self._clock_timer.cancel()
            self._clock_timer = None
        self._clock_for = None

    def _clock_out(self, waited: tuple[int, tuple[Any, ...]]) -> None:
        if self._clock_for != waited or self._waited_for() != waited:
            return  # it acted meanwhile
        seat = waited[0]
        if self._gathering or self._held or self.seats[seat].away_since is not None:
            return  # held, not clocked (`_update_clock`)
        self.on_event({"event": "move_time", "seat": seat, "seconds": self.o.move_time})
        self._forfeit(seat, on_clock=True)
