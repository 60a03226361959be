"""The table host's games from start to end: a game's start (its journal opened, the
`GameStarted` event), and its end — a result, a forfeit (privacy.md "When a player drops out")
or an abort for a broken card-privacy proof — then the keys, the journal's last lines, the record
and its audit in a thread, and `GameOver` (once)."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path

from localdurak.game.actions import GameResult
from localdurak.game.engine import Game
from localdurak.net.host_core import (
    REVEAL_TIMEOUT,
    Ending,
    Go,
    HostCore,
    Phase,
    fields_of,
)
from localdurak.net.recovery import signed_item
from localdurak.net.table_store import (
    check_room,
)
from localdurak.protocol.messages import (
    GameOver,
    GameStarted,
    SeatKind,
)
from localdurak.protocol.records import (
    journal_action,
    journal_append,
    journal_header,
    journal_set,
)
from localdurak.protocol.table.host import HostGame

log = logging.getLogger("localdurak.net.host")


class HostEnding(HostCore):
    """A game's start, and its end with record and audit (part of `TableHost`)."""

    def _start_game(self) -> None:
        if not self._go(Go.START):
            return
        n = len(self.seats)
        dealer = Game.series_dealer(self.previous, self.rng.randrange(n))  # R-D5
        keys = tuple(s.key for s in self.seats)
        assert all(k is not None for k in keys)
        started = GameStarted(
            seq=0,
            game=os.urandom(16),
            number=self.game_number,
            rules=self.o.rules,
            dealer=dealer,
            names=tuple(s.name or f"Seat {i + 1}" for i, s in enumerate(self.seats)),
            keys=keys,  # type: ignore[arg-type]
            previous=self.previous,
        )
        self._open_journal(started)
        self._save_state()
        if not self.store.broken:
            try:
                check_room(self.o.record_dir, self._game_bytes())
            except OSError as e:
                self._disk_problem(str(e))
        self._broadcast_lobby()
        self._readvertise()
        started = GameStarted(**{**fields_of(started), "seq": self._next_seq()})
        self._drop_finished_games()
        self.store.new_game(self.events)
        self.game = HostGame(started)
        self._logged = self._signed = 0
        self._notes = []
        self._refused = []
        self.on_event(
            {"event": "game_started", "game": self.game_number, "journal": str(self.journal_path)}
        )
        self._emit(started)

    def _drop_finished_games(self) -> None:
        """Keep in memory only the events from the last game's end on: a player who comes
        back needs no more (an older `Resume` starts afresh, docs/protocol.md §7), and a long
        series no longer grows the host's memory game by game (the endurance soak: +88 MB over
        200 games).  The event log on disk keeps every event for ``--resume``."""
        for i in range(len(self.events) - 1, 0, -1):
            if isinstance(self.events[i], GameOver):
                del self.events[:i]
                return

    def _open_journal(self, started: GameStarted) -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.o.record_dir / f"game-{stamp}-{os.getpid()}-{self.game_number + 1}.journal"
        self.store.open_journal(path, self._journal_header(started))

    def _forfeit(self, seat: int, *, on_clock: bool = False) -> None:
        """The seat's hold ran out (or its move time, ``on_clock``): it is the durak and the
        game ends (privacy.md "When a player drops out"); the others reveal their keys
        (GameOver tells them) so the audit checks what it can, and the record follows when
        they are in (or `REVEAL_TIMEOUT`)."""
        slot = self.seats[seat]
        g = self.game
        if (slot.away_since is None and not on_clock) or g is None or not self._go(Go.FORFEIT):
            return
        self._stop_clock()
        self.on_event({"event": "forfeit", "seat": seat})
        self._cancel_reveal_timer()
        self.score[seat] += 1
        self._ending = Ending(GameResult((seat,), False, 0), forfeit=seat)
        self._game_over(g, self._ending)
        self._reveal_timer = self._post_later(REVEAL_TIMEOUT, self._record)

    def _abort_if_cheated(self) -> None:
        g = self.game
        if g is not None and g.cheat is not None and g.cheat.seat is not None:
            self._abort(g.cheat.seat, g.cheat.reason)

    def _abort(self, seat: int, reason: str) -> None:
        """Seat ``seat`` broke the card-privacy protocol (the host's own check of its proof
        failed): the game ends aborted — no durak, no forfeit, nobody's score changes — and
        `GameOver` names the seat at once; the others reveal their keys for the audit, and
        the record follows when they are in (or `REVEAL_TIMEOUT`); privacy.md "Blame goes to the
        cheater"."""
        g = self.game
        if g is None or not self._go(Go.ABORT):
            return
        self.on_event({"event": "aborted", "seat": seat, "reason": reason})
        self._cancel_reveal_timer()
        self._stop_clock()
        for slot in self.seats:
            if slot.forfeit_timer is not None:
                slot.forfeit_timer.cancel()  # nobody forfeits an aborted game
                slot.forfeit_timer = None
        self._ending = Ending(GameResult((), False, 0), aborted=seat, reason=reason[:500])
        self._game_over(g, self._ending)
        self._reveal_timer = self._post_later(REVEAL_TIMEOUT, self._record)

    def _record(self) -> None:
        """Every key is in (or the wait is over): the journal's last lines, then the record
        in a thread (the audit takes a third of a second at six hands of 52 cards), so that
        the table keeps answering meanwhile.  The game is over for everybody only once its
        record is on disk (a host that crashes before that writes it when it resumes)."""
        g = self.game
        was = self.phase
        if g is None or not self._go(Go.RECORD):
            return
        self._stop_clock()
        self._cancel_reveal_timer()
        if was is not Phase.FORFEITED and was is not Phase.ABORTED:
            game = g.game
            result = game.result if game is not None else None
            self._ending = Ending(result if result is not None else GameResult((), True, 0))
        ending = self._ending
        assert ending is not None
        ending.lines = self._ending_lines(g, ending)
        for line in ending.lines:
            self.store.journal_line(line)
        self._finishing = asyncio.get_running_loop().create_task(
            self._recorded(g, ending), name="record"
        )

    def _ending_lines(self, g: HostGame, ending: Ending) -> list[str]:
        lines = [
            journal_set("privacy", g.transcript()),
            journal_set("result", ending.result.to_dict()),
        ]
        if ending.forfeit is not None:
            lines.append(journal_set("forfeit", ending.forfeit))
        if ending.aborted is not None:
            lines.append(journal_set("aborted", {"seat": ending.aborted, "reason": ending.reason}))
        return lines

    def _game_lines(self, g: HostGame) -> list[str]:
        """The game's whole journal from memory (after a crash or disk trouble)."""
        lines = [self._journal_header(g.started)]
        lines += [journal_append("privacy_log", m.to_json()) for m in g.accepted_log]
        lines += [journal_append("privacy_signed", signed_item(st)) for st in g.steps]
        lines += self._notes
        # Each with the refused step as its seat signed it (the audit checks the refusal):
        # a bare [seat, n] here lost it at the next resume, and the record then could not
        # show its refusals (seen in the fault soak: a disk freed, then a power cut).
        lines += [
            journal_append("privacy_refused", g.refusal(seat, n) or [seat, n])
            for seat, n in self._refused
        ]
        if g.game is not None:
            lines += [journal_action(a) for a in g.game.log]
        if self._ending is not None:
            lines += self._ending.lines
        return lines

    def _cancel_reveal_timer(self) -> None:
        if self._reveal_timer is not None:
            self._reveal_timer.cancel()
            self._reveal_timer = None

    def _game_over(self, g: HostGame, ending: Ending) -> None:
        """Tell the game's end, once (`Ending.announced`)."""
        if ending.announced:
            return
        ending.announced = True
        self._emit(
            GameOver(
                seq=self._next_seq(),
                game=g.started.game,
                result=ending.result,
                forfeit=ending.forfeit,
                score=tuple(self.score),
                aborted=ending.aborted,
                reason=ending.reason,
            )
        )

    async def _recorded(self, g: HostGame, ending: Ending) -> None:
        record_path: Path | None = None
        journal = self.journal_path
        try:
            if self.store.broken:
                raise OSError(self.store.problem)
            record_path, deck = await self.store.write_record()
            if deck is not None:
                self.store.journal_line(journal_set("deck", deck))
        except OSError as e:
            # Written once the disk takes it (`_rewrite_all`); the game ends for everybody now.
            if journal is not None:
                self._unrecorded.append((journal, self._game_lines(g)))
            if not self.store.broken:
                self.store.failed(e)
        except Exception:
            log.exception("cannot write the game's record")
        finally:
            self._finishing = None
        result = ending.result
        if not ending.announced:
            for s in result.durak:
                self.score[s] += 1
        self.previous = result
        self.game = None
        self._ending = None
        self._logged = self._signed = 0
        self.game_number += 1
        self._game_over(g, ending)
        self._go(Go.RECORDED)
        info = {
            "event": "game_over",
            "game": self.game_number - 1,
            "result": result.to_dict(),
            "record": str(record_path) if record_path else None,
            "score": list(self.score),
        }
        if ending.forfeit is not None:
            info["forfeit"] = ending.forfeit
        if ending.aborted is not None:
            info["aborted"] = {"seat": ending.aborted, "reason": ending.reason}
        self.results.append(info)
        self.on_event(info)
        if self.phase is not Phase.LOBBY:
            return  # closed meanwhile
        for slot in self.seats:
            if slot.kind is SeatKind.HUMAN:
                slot.ready = False  # each player says "ready" for the next game of the series
        if self.game_number >= self.o.games:
            asyncio.get_running_loop().create_task(self.close("the series is over"))
            return
        self._broadcast_lobby()
        self._readvertise()
        self._maybe_start()

    def _journal_header(self, started: GameStarted) -> str:
        """The journal's first line for a game (records.md journal), with the table's data."""
        return journal_header(
            started.rules,
            len(started.keys),
            started.dealer,
            names=list(started.names),
            previous=started.previous,
            table={
                "name": self.o.name,
                "game": self.game_number,
                "port": self.port,
                "state": str(self.state_dir.resolve()),
            },
        )
