"""The host's in-process bots (docs/protocol.md §4): each a seat like a remote player's.

A `BotSeat` has its own signing key and privacy key and reads only its seat's view (R-T4);
`HostBots` feeds every bot the table's events, lets one bot act at a time when the table is
quiet (`think`), and posts what the bots sign into the host's inbox like any other command.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from localdurak.game.actions import Do
from localdurak.game.bots import NOTICE_SECONDS, Bot, Rng, make_bot
from localdurak.net.identity import EphemeralKey
from localdurak.net.recovery import relayed_before
from localdurak.net.table_store import write_atomic
from localdurak.protocol import snapshot
from localdurak.protocol.connection import encoded_frame
from localdurak.protocol.errors import RemoteProtocolError
from localdurak.protocol.messages import (
    GameStarted,
    Privacy,
    PrivacyEvent,
    message_from_wire,
    message_to_wire,
)
from localdurak.protocol.table.common import GAME_STEPS, Signed
from localdurak.protocol.table.host import REFUSALS_BACK
from localdurak.protocol.table.seat import SNAPSHOT_CLASSES, SeatGame

if TYPE_CHECKING:
    from localdurak.net.peer import SeatSlot
    from localdurak.protocol.table.host import HostGame

log = logging.getLogger("localdurak.net.host")

_reaction = random.SystemRandom()
"""The bots' reaction times (apart from the table's own generator)."""

RECENT_OWN = 4
"""A bot's own steps seen relayed that its saved seat keeps (`BotSeat.sent`)."""
RECENT_SEEN = 6
"""Relayed steps a bot's saved seat keeps (`BotSeat.recent`)..."""
RECENT_BYTES = 1000
"""... of at most this size each (its saved seat stays small: test_saved_state.py)."""
RECENT_REFUSED = REFUSALS_BACK
"""A bot's own refused steps its saved seat keeps (`BotSeat.refused`): as many as a resumed
host takes back from a seat."""
BOT_REST = 0.2
"""Seconds a host bot waits after the host refused one of its steps."""


class BotSeat:
    """An in-process bot: its own signing key and privacy key, its seat's view only.

    Like a remote client it saves its seat (`SeatGame.freeze`) and the steps it has not seen
    relayed yet before the host takes them, so a host that crashed and resumes carries the
    bot's game on with the same privacy key."""

    def __init__(
        self,
        level: str,
        rng: random.Random,
        key: EphemeralKey | None = None,
        path: Path | None = None,
    ) -> None:
        self.level = level
        self.key = key if key is not None else EphemeralKey()
        self.bot: Bot = make_bot(level, cast(Rng, rng), clock=time.perf_counter)
        self.game: SeatGame | None = None
        self.next_id = 1
        self.pending: list[Signed] = []
        self.sent: list[Signed] = []
        """Its last steps seen relayed (`RECENT_OWN`): a host that lost them from its log (a
        power cut; the bot's seat is saved before the log) gets them again on resuming."""
        self.recent: list[PrivacyEvent] = []
        """The game's last relayed steps it took, every seat's (`RECENT_SEEN`): the bot's seat
        is saved before the table's log, so after a power cut it may hold steps the log
        lost; the resumed host takes them back from here (checked like any step)."""
        self.refused: list[list[Any]] = []
        """Its last steps the host refused, each ``[Signed, at]`` (the log's length then;
        `RECENT_REFUSED`): a refusal is in no event, only in the journal, so a host that
        lost the journal's last lines (a power cut) takes it back from here, or the gap it
        left in the seat's counters is unexplained in the record."""
        self.outbox: list[tuple[int, Privacy]] = []
        """Its signed steps not posted to the host yet, in the order it signed them (an
        action waits a moment: `HostBots.send`)."""
        self.last_seq = 0
        self.resting_until = 0.0
        """After the host refused one of its steps, the bot does not try again before this
        (loop time): a refused bot used to retry at once, for ever, in a busy loop."""
        self.path = path
        self.bytes_written = 0
        """Bytes of saved state written (benchmarks: bytes per game)."""

    def save(self) -> None:
        """The bot's seat as one snapshot (`protocol.snapshot`), replacing the last one: the
        table's state folder stays the same size from game to game.  Its fsync is the
        table's, coalesced (`TableStore.sync_soon` syncs `saved_paths`)."""
        if self.path is None:
            return
        state = {
            "last_seq": self.last_seq,
            "game": self.game.freeze() if self.game is not None else None,
            "pending": self.pending,
            "sent": self.sent,
            "recent": [message_to_wire(e) for e in self.recent],
            "refused": self.refused,
        }
        data = snapshot.dumps(state, kind="bot", classes=SNAPSHOT_CLASSES)
        write_atomic(self.path, data)
        self.bytes_written += len(data)

    def load(self) -> None:
        """The saved seat; an old pickle or another version's file is refused, not loaded
        (`snapshot.SnapshotError`, with its reason)."""
        if self.path is None or not self.path.exists():
            return
        state = snapshot.loads(self.path.read_bytes(), kind="bot", classes=SNAPSHOT_CLASSES)
        if not isinstance(state, dict):
            raise snapshot.SnapshotError("a saved bot that is not a bot's state")
        self.last_seq = state["last_seq"]
        self.pending = list(state["pending"])
        self.sent = list(state.get("sent", []))
        self.recent = [
            e
            for e in map(message_from_wire, state.get("recent", []))
            if isinstance(e, PrivacyEvent)
        ]
        self.refused = [
            list(r)
            for r in state.get("refused", [])
            if isinstance(r, list | tuple)
            and len(r) == 2
            and isinstance(r[0], Signed)
            and type(r[1]) is int
        ]
        if state["game"] is not None:
            self.game = SeatGame.thaw(state["game"], self.key, os.urandom)

    def close(self) -> None:
        pass


def share_checks(host: HostGame | None, seat: SeatGame) -> None:
    """A seat played in the host's process (a host bot, the host's own player) checks no proof
    the host has checked, nor the host one it has: the same machine, the same relayed values
    (docs/privacy.md, "Who checks").  Without it the host's laptop checked every shuffle
    stage once for itself and again for each of its seats.

    reading: "every seat and the host verify every stage" is read per machine: a seat whose
    code runs in the host's process has the host's checks (the host could feed it anything
    anyway), as the in-memory host shares its own seat's (`roles.Host(own_seat=…)`)."""
    if host is None or host.started.game != seat.game_id:
        return
    seat.player.t.verified = host.privacy.t.verified
    seat.player.t.shuffles_verified = host.privacy.t.shuffles_verified


Post = Callable[[int, Privacy], None]
"""How a bot's command reaches the host's inbox (its seat, the command)."""


class HostBots:
    """The bots of one table: fed every event, one of them acting when the table is quiet.

    ``seats`` gives the table's seats (the list changes when the owner resizes the table);
    ``post`` queues a bot's command; ``wake`` queues nothing but a turn of the host's loop."""

    def __init__(
        self,
        seats: Callable[[], Sequence[SeatSlot]],
        post: Post,
        wake: Callable[[], None],
        rng: random.Random,
        delay: float,
        on_save_error: Callable[[OSError], None] | None = None,
        share: Callable[[SeatGame], None] | None = None,
    ) -> None:
        self._seats = seats
        self._share = share
        self._save_error = on_save_error
        self._post = post
        self._wake = wake
        self.rng = rng
        self.delay = delay
        self._wait: asyncio.TimerHandle | None = None
        self._decoded: set[tuple[bytes, int]] = set()

    def bots(self) -> list[tuple[int, BotSeat]]:
        return [(s, slot.bot) for s, slot in enumerate(self._seats()) if slot.bot is not None]

    def newly_decoded(self) -> list[int]:
        """The seats of the bots whose hands of this game decoded since the last call (the
        timing lines of benchmarks/net.py)."""
        out = []
        for s, bot in self.bots():
            g = bot.game
            if g is not None and (g.game_id, s) not in self._decoded and g.hand_decoded():
                self._decoded.add((g.game_id, s))
                out.append(s)
        return out

    def feed_all(self, event: GameStarted | PrivacyEvent) -> None:
        # A bot's own step first: it marks its own stage (or strip) as checked in the checks
        # the bots share with the host (`share_checks`), so the others do not check it.
        actor = event.seat if isinstance(event, PrivacyEvent) else None
        for s, bot in sorted(self.bots(), key=lambda sb: sb[0] != actor):
            self.feed(s, bot, event)

    def feed(self, s: int, bot: BotSeat, event: GameStarted | PrivacyEvent) -> None:
        if event.seq <= bot.last_seq:
            return  # a resumed bot already had it
        bot.last_seq = event.seq
        out: list[Signed] = []
        try:
            if isinstance(event, GameStarted):
                bot.game = SeatGame(event, s, bot.key, os.urandom)
                if self._share is not None:
                    self._share(bot.game)
                bot.pending = []
                bot.sent = []
                bot.recent = []
                bot.refused = []
                out = bot.game.start()
            elif bot.game is not None and event.game == bot.game.game_id:
                if event.seat == s:
                    bot.sent += [p for p in bot.pending if p.n == event.n and p.step in GAME_STEPS]
                    del bot.sent[:-RECENT_OWN]
                    bot.pending = [p for p in bot.pending if p.n != event.n]
                if relayed_before(bot.game, event, bot.recent):
                    return  # a step relayed again after a resume
                out = bot.game.receive(event)
                if len(encoded_frame(event)) <= RECENT_BYTES:
                    # (The deal's big steps are held and sent again by their seats.)
                    bot.recent.append(event)
                    del bot.recent[:-RECENT_SEEN]
        except RemoteProtocolError:
            log.exception("bot at seat %d refused an event", s)
            return
        if out:
            self.send(s, bot, out)

    def reveal_now(self) -> None:
        """A forfeit ended the game: every bot reveals its key at once (for the audit)."""
        for s, bot in self.bots():
            if bot.game is not None:
                out = bot.game.reveal_now()
                if out:
                    self.send(s, bot, out)

    def send(self, s: int, bot: BotSeat, out: list[Signed], delay: float = 0.0) -> None:
        """Save the bot's seat first (what it signed must survive a crash), then queue."""
        bot.pending += out
        self._save(bot)
        for signed in out:
            cmd = signed.command(bot.next_id)
            bot.next_id += 1
            bot.outbox.append((s, cmd))
            if delay > 0:
                asyncio.get_running_loop().call_later(delay, self._post_through, bot, cmd)
            else:
                self._post_through(bot, cmd)

    def _save(self, bot: BotSeat) -> None:
        try:
            bot.save()
        except OSError as e:
            # The disk refuses: the bot plays on from memory (its seat is saved again with
            # everything else once the disk takes it: `TableStore.rebuild`).
            if self._save_error is None:
                raise
            self._save_error(e)

    def _post_through(self, bot: BotSeat, cmd: Privacy) -> None:
        """Post the bot's queued steps up to ``cmd``, in the order it signed them: the host
        takes a seat's steps in the order of its counter (docs/privacy.md "The order of a
        seat's steps"), so a step the bot signed after an action it holds back a moment (a
        strip a refill asks for, meanwhile) sends that action first, early."""
        if not any(c is cmd for _, c in bot.outbox):
            return  # posted already, before a later step
        while bot.outbox:
            s, c = bot.outbox.pop(0)
            self._post(s, c)
            if c is cmd:
                return

    def resend_pending(self, post: Post | None = None) -> None:
        """Whatever the bots signed that the old host never relayed, again (a resume, once
        the players gave back what the host lost: `HostResume._end_gathering`).  Each bot's
        last relayed steps first (the host ignores those it has), then the rest; through
        ``post`` (the host's inbox by default)."""
        post = post or self._post
        for s, bot in self.bots():
            again, bot.sent = bot.sent, []
            bot.outbox = []  # in `pending`, sent now
            for signed in [*again, *bot.pending]:
                post(s, signed.command(bot.next_id))
                bot.next_id += 1

    def refusals(self) -> list[tuple[int, Privacy, int]]:
        """(seat, step, at) of the refusals the bots keep (`BotSeat.refused`), of the game
        they play, for a resumed host that may have lost them."""
        out: list[tuple[int, Privacy, int]] = []
        for s, bot in self.bots():
            for step, at in bot.refused:
                if bot.game is not None and step.game == bot.game.game_id:
                    out.append((s, step.command(0), at))
        return out

    def think(self, held: int) -> None:
        """One bot acts, when one may: a bot reads only its own seat's view.  ``held``:
        actions waiting for challenges (R-S5), while which no bot acts."""
        if self._wait is not None or held:
            return
        bots = self.bots()
        self.rng.shuffle(bots)
        for s, bot in bots:
            sg = bot.game
            if (
                sg is None
                or not sg.hand_complete()
                or bot.resting_until > asyncio.get_running_loop().time()
            ):
                continue
            view = sg.view()
            if view is None or view.result is not None:
                continue
            action = bot.bot.choose(view)
            if action is None:
                continue
            try:
                signed = sg.act(action)
            except (ValueError, RemoteProtocolError) as e:
                log.info("bot %d cannot play %s: %s", s, action, e)
                continue
            delay = self.delay
            if action.do is Do.CHALLENGE and delay > 0:
                # A person's moment to see the cheat, never the instant it lies there
                # (R-S5: bots notice a cheat as a person would; a table nobody watches does not
                # wait).
                delay = max(delay, _reaction.uniform(*NOTICE_SECONDS))
            self.send(s, bot, [signed], delay)
            if delay > 0:
                loop = asyncio.get_running_loop()
                self._wait = loop.call_later(delay, self._end_wait)
            return

    def _end_wait(self) -> None:
        # The host's loop lets a bot think only after an inbox item: without this wake a
        # bot's turn was lost when nothing else arrived, and an all-bot table froze for good
        # (all-bot tables never freeze: tests/net/test_host_bots_progress.py).
        self._wait = None
        self._wake()

    def refused(self, seat: int, bot: BotSeat, cmd: Privacy, at: int | None = None) -> None:
        """The host refused one of the bot's steps (when its log held ``at`` messages): forget
        it, keep it for a host that loses the refusal (`BotSeat.refused`), rest a moment."""
        step = next((p for p in bot.pending if p.n == cmd.n and p.game == cmd.game), None)
        if step is not None and at is not None:
            bot.refused.append([step, at])
            del bot.refused[:-RECENT_REFUSED]
        bot.pending = [p for p in bot.pending if p.n != cmd.n]
        if bot.game is not None and bot.game.game_id == cmd.game:
            bot.game.refused(cmd.n)
        if step is not None:
            self._save(bot)
        loop = asyncio.get_running_loop()
        bot.resting_until = loop.time() + BOT_REST
        # Wake the table then, in case nothing else happens meanwhile.
        loop.call_later(BOT_REST, self._wake)

    def close(self) -> None:
        for _, bot in self.bots():
            bot.close()
