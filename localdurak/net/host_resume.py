"""The table host's dropping out and coming back: a seat held while its player is away
(then it forfeits), a returning player sent what he missed (docs/protocol.md §7); and the
table's files: rebuilding the table from its event log after a crash (``--resume``), the
journal rewritten, the table's state, disk trouble told on every screen."""

from __future__ import annotations

import bisect
import logging
import shlex
import time
from pathlib import Path
from typing import Any

from localdurak.net.host_core import (
    CANNOT_SAVE,
    GAME_BYTES,
    Call,
    FromBot,
    HostCore,
    Item,
    Phase,
    Received,
)
from localdurak.net.identity import Identity
from localdurak.net.peer import Peer, SeatSlot
from localdurak.net.recovery import RESUME_GAP, journal_commands
from localdurak.net.table_store import (
    EVENTS_FILE,
    journal_objects,
    read_event_log,
    same_file,
    write_record_file,
)
from localdurak.protocol.errors import (
    BadMessage,
    RemoteProtocolError,
    Unavailable,
)
from localdurak.protocol.messages import (
    Ack,
    GameOver,
    GameStarted,
    Lobby,
    Message,
    Notice,
    Presence,
    Privacy,
    PrivacyEvent,
    Resume,
    SeatKind,
    TableClosed,
    TableState,
)
from localdurak.protocol.records import (
    journal_append,
    journal_set,
)
from localdurak.protocol.table.host import REFUSALS_BACK, HostGame

log = logging.getLogger("localdurak.net.host")


class HostResume(HostCore):
    """Dropping out, coming back, and the table's files (part of `TableHost`)."""

    def _dropped(self, seat: int) -> None:
        slot = self.seats[seat]
        slot.peer = None
        if self.phase is Phase.LOBBY:
            self.on_event({"event": "left", "seat": seat, "name": slot.name})
            self.seats[seat] = SeatSlot()
            self._broadcast_lobby()
            self._readvertise()
            return
        if self.state is not TableState.PLAYING:
            return
        self.on_event({"event": "away", "seat": seat, "hold": self.o.hold})
        self._emit(
            Presence(seq=self._next_seq(), seat=seat, connected=False, hold=int(self.o.hold))
        )
        self._hold(seat)
        self._update_clock()  # its hold runs, not its move clock

    def _hold(self, seat: int) -> None:
        """The seat is away: held for ``hold`` seconds, then it forfeits."""
        slot = self.seats[seat]
        slot.away_since = time.monotonic()
        slot.forfeit_timer = self._post_later(self.o.hold, lambda: self._held_out(seat))

    def _held_out(self, seat: int) -> None:
        """The seat's hold ran out: it forfeits; a gathering that waited for it is over (the
        others' keys, the bots' among them, go in at once)."""
        self._forfeit(seat)
        if self._gathering:
            self._awaited.discard(seat)
            self._end_gathering()

    def _back(self, seat: int) -> None:
        slot = self.seats[seat]
        if slot.forfeit_timer is not None:
            slot.forfeit_timer.cancel()
            slot.forfeit_timer = None
        slot.away_since = None
        self.on_event({"event": "back", "seat": seat})

    def _resume_peer(self, peer: Peer, m: Resume) -> None:
        """Send a returning player what he missed, then live events (docs/protocol.md §7)."""
        seat = peer.seat
        assert seat is not None
        if peer.synced:
            # Seated afresh in the lobby: it had the lobby (a whole picture) already, and
            # older events after it would break its sequence.  (Or a player done giving
            # back what this host lost: its second `Resume`.)
            peer.push(Ack(re=m.id, seq=self.seq))
            if seat in self._giving_back:
                self._giving_back.discard(seat)
                self._gathered()
            return
        self._awaited.discard(seat)
        lost = next(
            (p for p in self.resumed_at if p < m.last_seq < p + RESUME_GAP and p != self._clean_at),
            None,
        )
        if lost is not None and self.game is not None:
            # It saw events this host lost (the old host's last frames, a power cut): it
            # gets everything after what survived (numbered past its last) and our
            # ``Ack`` names that point, so it gives back the signed steps it holds after it
            # (`Privacy.seat`, checked like any step); nobody is stranded or blamed.
            self.on_event({"event": "lost_tail", "seat": seat, "have": lost, "had": m.last_seq})
            self._note("lost_tail", {"seat": seat, "kept": lost, "had": m.last_seq})
            self._restoring.add(seat)
            if self._gathering:
                self._giving_back.add(seat)
            self._resync(peer, seat, lost, Ack(re=m.id, seq=lost))
            return
        if not self.first_seq - 1 <= m.last_seq <= self.seq:
            # A fresh start for it: the lobby now, live events after (no snapshot of a game
            # it cannot play without its saved seat).
            peer.synced = True
            self._broadcast_lobby()
            self._gathered()
            raise Unavailable("the events you missed are not here: you start afresh")
        self._resync(peer, seat, m.last_seq, Ack(re=m.id, seq=self.seq))
        self._gathered()

    def _begin_gathering(self, wait: float) -> None:
        """A resumed game: before any new step, the players come back and give back the
        signed steps this host lost (each player saw them in the old host's order, and a
        bot's step or a player's signed after them goes after them, or the seats' replicas
        and the host's would disagree).  Over when every player is back and done, or after
        ``wait`` seconds once every player is back (one who is not is held as ever, and the
        gathering waits for him until his hold runs out: `_gather_timeout`); meanwhile no bot
        acts, new steps wait (`_deferred`) and the move clock stops."""
        self._awaited = {s for s, slot in enumerate(self.seats) if slot.kind is SeatKind.HUMAN}
        self._gathering = True
        self._update_clock()  # stopped
        self._gather_wait = wait
        self._gather_timer = self._post_later(wait, self._gather_timeout)
        self._gathered()

    def _gather_timeout(self) -> None:
        """``wait`` is over: the gathering ends unless a player is still not back.  A player
        who comes back later may hold steps this host lost that nobody else gave back (all
        of them late: a power cut takes the router with the host; a bot's saved seat holds
        only what it had seen when it last signed); taken after newer steps, they were
        refused, his replica and the host's disagreed, and he could not go on and forfeited
        for the host's loss.  reading: the table waits for him, then, as long as his hold
        (the game could go on only until his turn without him anyway); a player back but
        not done giving back is not waited for past ``wait`` (looked at again every
        ``wait``)."""
        self._gather_timer = None
        if self._gathering and self._awaited:
            self.on_event({"event": "gathering", "waiting": sorted(self._awaited)})
            self._gather_timer = self._post_later(self._gather_wait, self._gather_timeout)
            return
        self._end_gathering()

    def _gathered(self) -> None:
        """The gathering ends once nobody is awaited and nobody is still giving back."""
        if self._gathering and not self._awaited and not self._giving_back:
            self._end_gathering()

    def _end_gathering(self) -> None:
        if not self._gathering:
            return
        self._gathering = False
        if self._gather_timer is not None:
            self._gather_timer.cancel()
            self._gather_timer = None
        if self._awaited or self._giving_back:
            self.on_event(
                {
                    "event": "gathered",
                    "waited": sorted(self._awaited),
                    "giving_back": sorted(self._giving_back),
                }
            )
        self._awaited.clear()
        self._giving_back.clear()
        self._restoring.clear()
        # The refusals the players gave back (held: `_hold_refusal_back`), after every lost
        # step they gave back, so a step the old host accepted claims its counter first.
        held, self._refusals_back = self._refusals_back, []
        for s, cmd, at in held:
            self._take_back_refusal(s, cmd, at)
        # The bots' steps signed before the crash that the old host never relayed (their
        # last relayed ones first: the host ignores those it has), then what came meanwhile.
        resent: list[Item] = []
        # And the refusals their saved seats keep that this host lost (the players gave
        # theirs back meanwhile): in the log by now, the steps before them given back.
        for s, cmd, at in self.bots.refusals():
            self._take_back_refusal(s, cmd, at)
        self.bots.resend_pending(lambda s, cmd: resent.append(FromBot(s, cmd)))
        self._deferred[:0] = resent
        self._update_clock()

    def _new_step(self, item: Item) -> bool:
        """A step signed now, not one given back (`_gathering` holds it)."""
        if isinstance(item, FromBot):
            return True
        return (
            isinstance(item, Received)
            and isinstance(item.message, Privacy)
            and item.message.seat is None
            and item.message.refused is None  # a refusal given back is no new step
        )

    def _hold_refusal_back(self, seat: int, cmd: Privacy, at: int) -> None:
        """A refusal seat ``seat``'s player gives back while the host gathers: kept until the
        gathering ends (`_end_gathering`).  At most what a seat keeps (`REFUSALS_BACK`); any
        more is a flood, ignored (logged), never recorded."""
        if sum(1 for s, _, _ in self._refusals_back if s == seat) >= REFUSALS_BACK:
            log.warning("seat %d gave back more refusals than a seat keeps: ignored", seat)
            return
        self._refusals_back.append((seat, cmd, at))

    def _take_back_refusal(self, seat: int, cmd: Privacy, at: int) -> None:
        """Seat ``seat``'s step ``cmd``, refused by an earlier host of this game when the
        log held ``at`` messages, given back by that seat (a client) or found in its saved
        seat (a bot): a refusal is in no event, so a power cut that takes the journal's last
        lines takes it, and the gap it left in the seat's counters would be in the record
        unexplained.  Recorded again (journal and record) when it fits
        (`HostGame.take_back_refusal`); one this host holds already is ignored."""
        g = self.game
        if g is None or not g.take_back_refusal(seat, cmd, at):
            log.info("seat %d's refusal #%d given back does not fit: ignored", seat, cmd.n)
            return
        entry = g.refusal(seat, cmd.n)
        assert entry is not None
        self._refused.append((seat, cmd.n))
        self.store.journal_line(journal_append("privacy_refused", entry))
        self.on_event({"event": "refusal_back", "seat": seat, "n": cmd.n})

    def _resync(self, peer: Peer, seat: int, last_seq: int, ack: Ack) -> None:
        """Every event after ``last_seq``, the answer to its `Resume`, then live events."""
        seqs = [getattr(ev, "seq") for ev in self.events]  # noqa: B009
        missed = self.events[bisect.bisect_right(seqs, last_seq) :]
        for ev in missed:
            peer.push(ev)
        peer.push(ack)
        peer.synced = True
        if self.seats[seat].away_since is not None:
            self._back(seat)
        self._emit(Presence(seq=self._next_seq(), seat=seat, connected=True, hold=0))
        self._update_clock()  # its move clock again if it is waited for, counted afresh
        if not any(isinstance(ev, Lobby) for ev in missed):
            # A client restarted from its saved seat has no lobby (the table's name, the
            # seats): everybody gets the table's picture again, the seat back in it.
            self._broadcast_lobby()

    def replay_events(self) -> None:
        """Rebuild the table from its event log: the lobby, the game being played (its
        `HostGame` through the same checks as live), the series; then the bots' saved seats,
        each brought up to date with the events after its save."""
        self.store.replaying = True
        try:
            events, whole = read_event_log(self.state_dir / EVENTS_FILE)
            for k, ev in enumerate(events):
                seq = getattr(ev, "seq", None)
                refused = list(self.game.refused_steps) if self.game is not None else []
                counters = list(self.game.counters.last) if self.game is not None else []
                try:
                    if not isinstance(seq, int) or seq <= self.seq:
                        raise BadMessage(f"event {seq} after event {self.seq}")
                    self._replay(ev)
                except RemoteProtocolError as e:
                    # A damaged frame that still decodes (a flipped byte in a signature):
                    # the log ends before it; the journal and the players have the rest.
                    log.warning("the event log is damaged at its event %d: %s", k, e)
                    del events[k:]
                    if self.events and self.events[-1] is ev:
                        self.events.pop()
                    self.seq = getattr(self.events[-1], "seq") if self.events else 0  # noqa: B009
                    if self.game is not None:
                        # Not a refusal but a damaged copy: the journal's may be whole.
                        self.game.refused_steps = refused
                        self.game.counters.last[:] = counters
                    whole = False
                    break
            if not events:
                raise ValueError("the table's event log is empty or damaged from its start")
            # What survived, and a jump past anything the old host may have told after it
            # (`resumed_at`: its players give back the signed steps they saw).
            self.resumed_at.append(self.seq)
            if whole and self.seq == self._paused_at:
                # The old host paused cleanly, its log whole: it lost nothing.
                self._clean_at = self.seq
            self._paused_at = None
            self.seq += RESUME_GAP
            if not whole:
                self.on_event({"event": "damaged", "file": EVENTS_FILE, "kept": len(events)})
            for s, bot in self.bots.bots():
                bot.load()
                if (
                    bot.game is not None
                    and self.game is not None
                    and bot.game.game_id != self.game.started.game
                ):
                    bot.game = None
                for ev in events:
                    if isinstance(ev, GameStarted | PrivacyEvent) and ev.seq > bot.last_seq:
                        self.bots.feed(s, bot, ev)
            added = self._steps_from_journal() + self._steps_from_bots()
            if self.game is not None:
                # The record says what happened (records.md ``host_resumed``).
                self._notes.append(
                    journal_append(
                        "host_resumed",
                        {"kept": self.resumed_at[-1], "log_whole": whole, "from_journal": added},
                    )
                )
        finally:
            self.store.replaying = False
        # Whatever the bots signed that the old host never relayed goes again once the
        # players gave back what this host lost (`_begin_gathering`, from start()).
        if self.game is not None and self.game.all_revealed():
            # Every key was in, and the crash came before the game's end was told: its record
            # and its end now (`_record`, from the loop).
            self.inbox.put_nowait(Call(self._record))
        self.resumed = True
        self.on_event({"event": "resumed", "seq": self.seq, "game": self.game_number})

    def _steps_from_bots(self) -> int:
        """The signed steps the bots' saved seats hold after what the log kept (they are
        saved before it: a power cut may leave them newer), in the old host's order,
        through the same checks; relayed again as new events."""
        g = self.game
        if g is None or not self.resumed_at:
            return 0
        kept = self.resumed_at[-1]
        seen: dict[int, PrivacyEvent] = {}
        for _, bot in self.bots.bots():
            for ev in bot.recent:
                if ev.seq > kept and ev.game == g.started.game:
                    seen.setdefault(ev.seq, ev)
        added = 0
        for _, ev in sorted(seen.items()):
            cmd = ev.command()
            if not 0 <= ev.seat < g.seats or g.duplicate(ev.seat, cmd):
                continue
            try:
                acc = g.receive(ev.seat, cmd)
            except RemoteProtocolError as e:
                log.warning("a bot's copy of step %d of seat %d fails: %s", ev.n, ev.seat, e)
                break
            added += 1
            for s, c in acc.relay:
                self._emit(c.relayed(self._next_seq(), s))
        return added

    def _note(self, key: str, item: dict[str, Any]) -> None:
        """A journal line on what the host went through (kept for a rewrite)."""
        if self.game is None:
            return
        line = journal_append(key, item)
        self._notes.append(line)
        self.store.journal_line(line)

    def _steps_from_journal(self) -> int:
        """The signed steps the journal holds beyond the event log (a log cut or damaged):
        through the same checks as live, as far as they check out, relayed again as new
        events (the players ignore a step they have)."""
        g = self.game
        journal = self.journal_path
        if g is None or journal is None:
            return 0
        added = 0
        for seat, cmd in journal_commands(journal, g):
            try:
                acc = g.receive(seat, cmd)
            except RemoteProtocolError as e:
                log.warning(
                    "the journal's step %d of seat %d does not check out: %s", cmd.n, seat, e
                )
                break
            added += 1
            for s, c in acc.relay:
                self._emit(c.relayed(self._next_seq(), s))
        if added:
            self.on_event({"event": "from_journal", "steps": added})
        return added

    def _replay(self, ev: Message) -> None:
        seq: int = getattr(ev, "seq")  # noqa: B009 - events carry seq
        self.seq = seq
        self.events.append(ev)
        if isinstance(ev, Lobby):
            for slot, info in zip(self.seats, ev.seats, strict=False):
                if info.kind is SeatKind.HUMAN:
                    slot.kind, slot.name, slot.key = SeatKind.HUMAN, info.name, info.key
                    slot.ready = info.ready
                elif info.kind is SeatKind.EMPTY and slot.kind is not SeatKind.BOT:
                    slot.kind, slot.name, slot.key, slot.ready = SeatKind.EMPTY, "", None, False
            if ev.state is TableState.LOBBY:
                self.phase = Phase.LOBBY
        elif isinstance(ev, GameStarted):
            self._drop_finished_games()
            self.phase = Phase.PLAYING
            self.game = HostGame(ev)
            self._notes = []
            self.game_number = ev.number
            self.previous = ev.previous
        elif isinstance(ev, PrivacyEvent):
            if self.game is not None and ev.game == self.game.started.game:
                cmd = ev.command()
                self.game.receive(ev.seat, cmd)
        elif isinstance(ev, GameOver):
            self.score = list(ev.score)
            self.previous = ev.result
            self.game = None
            self.game_number += 1
            self.phase = Phase.LOBBY
        elif isinstance(ev, TableClosed):
            self.phase = Phase.CLOSED

    def rewrite_journal(self) -> None:
        """The journal again from the rebuilt game (the crash may have cut it after a step the
        event log never got); appending goes on from there."""
        g = self.game
        if g is None or self.journal_path is None:
            return
        # The refused steps are in no event: the old journal's list is kept (records.md).
        self._refused = []
        for item in refused_in_journal(self.journal_path):
            g.restore_refusal(item)
            self._refused.append((item[0], item[1]))
        # Nor is what the host went through before (records.md: ``host_resumed`` has an
        # item per resume of the game, ``lost_tail`` per player who gave back): the old
        # journal's notes first, then this host's.  A rewrite that kept only its own told
        # of the last of six resumes in the fault soak.
        # (This host's own note is not in the old journal yet: the rewrite writes it.)
        self._notes = notes_in_journal(self.journal_path) + self._notes
        self.store.rewrite_journal(self._game_lines(g))
        self._logged = len(g.accepted_log)
        self._signed = len(g.steps)

    def _save_state(self) -> None:
        """`_write_state`, a failure told as disk trouble (the table goes on)."""
        if self.store.broken:
            return
        try:
            self._write_state()
        except OSError as e:
            self.store.failed(e)

    def _game_bytes(self) -> int:
        """About how much disk a game of this table takes (`GAME_BYTES` scaled)."""
        return GAME_BYTES * len(self.seats) * self.o.rules.deck // (6 * 52)

    def _disk_problem(self, problem: str | None) -> None:
        """Disk trouble on every screen (a `Notice`), and on the host's own output."""
        text = "" if problem is None else f"{CANNOT_SAVE}: {problem}"[:200]
        self.on_event({"event": "disk", "problem": text or None})
        # The host's own player reads it on his screen (the `Notice`): a log line written
        # to the terminal his screen is drawn on broke the picture (seen under tmux).
        say = log.info if self.o.own_seat else log.warning
        if problem is None:
            say("the table saves again")
        else:
            say("%s", text)
        self._emit(Notice(seq=self._next_seq(), problem=text))

    def _rewrite_all(self) -> None:
        """Every file of the table again from memory (`TableStore.rebuild`, after disk
        trouble): the bots' seats, the table's state, the records the disk did not take,
        the game's journal, the event log.  Raises OSError while the disk refuses."""
        self.state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        for _, bot in self.bots.bots():
            bot.save()
        self._write_state()
        while self._unrecorded:
            path, lines = self._unrecorded[0]
            self.store.rewrite_journal(lines, path)
            record, deck = write_record_file(path)
            if deck is not None:
                with open(path, "a", encoding="utf-8") as f:
                    f.write(journal_set("deck", deck))
            self._unrecorded.pop(0)
            self.on_event({"event": "recorded", "record": str(record)})
        if self.game is not None and self.journal_path is not None:
            self.store.rewrite_journal(self._game_lines(self.game))
            self._logged = len(self.game.accepted_log)
            self._signed = len(self.game.steps)
        self.store.restart_events(self.events)

    def _write_state(self) -> None:
        """What `resume` needs besides the event log: the table's options and the bots' keys."""
        self.store.write_state(
            {
                "name": self.o.name,
                "seats": len(self.seats),
                "rules": self.o.rules.non_defaults(),
                "games": self.o.games,
                "port": self.port,
                "record_dir": str(self.o.record_dir),
                "pin": self.o.pin,
                "bot_level": self.o.bot_level,
                "hold": self.o.hold,
                "move_time": self.o.move_time,
                "advertise": self.o.advertise,
                "challenge_window": self.o.challenge_window,
                "bot_delay": self.o.bot_delay,
                "own_seat": self.o.own_seat,
                "paused_at": self._paused_at,
                "fingerprint": self.identity.fingerprint,
                "journal": str(self.journal_path) if self.journal_path else None,
                "bots": {
                    str(s): {"level": bot.level, "key": bot.key.private_bytes().hex()}
                    for s, bot in self.bots.bots()
                },
            }
        )


def check_resume(
    identity: Identity, journal: Path, state: dict[str, Any], record_dir: Path | None
) -> None:
    """Refuse (ValueError, for a person) a resume that cannot be, before anything is
    written: another identity than the table's (its players pinned that certificate and
    would refuse this one, and be blamed for it), another record folder, or a journal
    whose game is over."""
    fingerprint = state.get("fingerprint")
    if isinstance(fingerprint, str) and fingerprint != identity.fingerprint:
        raise ValueError(
            f"this table was hosted with another identity (fingerprint {fingerprint[:16]}…, "
            f"this one is {identity.fingerprint[:16]}…): its players would refuse this one. "
            "Resume it with the LOCALDURAK_HOME (and --profile) it was hosted from"
        )
    if record_dir is not None and not same_file(state.get("record_dir"), record_dir):
        # reading: "honoured or refused" — refused: the journal, the event log and the
        # players' saved seats all name the table's folder; moving it is a copy by hand.
        raise ValueError(
            f"--record-dir: a resumed table keeps its record folder ({state.get('record_dir')}); "
            "leave --record-dir out"
        )
    if journal.suffix == ".json":
        journal = journal.with_suffix(".journal")
    if same_file(state.get("journal"), journal):
        return
    over = any(
        isinstance(o.get("set"), dict) and "result" in o["set"] for o in journal_objects(journal)
    )
    current = state.get("journal")
    then = (
        f"; the table's current game: localdurak host --resume {shlex.quote(current)}"
        if isinstance(current, str)
        else ""
    )
    if over:
        record = journal.with_suffix(".json")
        where = f" (its record: {record})" if record.exists() else ""
        raise ValueError(f"that game is over{where}{then}")
    raise ValueError(f"that journal is not this table's current game{then}")


NOTES = ("host_resumed", "lost_tail")
"""The journal's lines on what the host went through (records.md), kept by a rewrite."""


def notes_in_journal(path: Path) -> list[str]:
    """The journal's `NOTES` lines, in their order, as journal lines again."""
    out: list[str] = []
    for obj in journal_objects(path):
        appended = obj.get("append")
        if isinstance(appended, dict) and len(appended) == 1:
            ((key, item),) = appended.items()
            if key in NOTES and isinstance(item, dict):
                out.append(journal_append(key, item))
    return out


def refused_in_journal(path: Path) -> list[list[Any]]:
    """The ``privacy_refused`` entries of a journal, ``[seat, n]`` or ``[seat, n, the refused
    step]`` (records.md; a damaged line is skipped)."""
    out: list[list[Any]] = []
    for obj in journal_objects(path):
        appended = obj.get("append")
        item = appended.get("privacy_refused") if isinstance(appended, dict) else None
        if isinstance(item, list) and len(item) in (2, 3) and all(type(x) is int for x in item[:2]):
            out.append(item)
    return out
