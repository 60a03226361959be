"""The host's authority over one game (`HostGame`): the privacy `Host` (no secret) and the
engine on public information (``Game.hidden`` with ``viewer=None``).  It accepts a seat's
command or refuses it with a `ProtocolError` for the sender alone, and keeps what the record
needs to bind the game to the people who played (their signed steps and counters).

Sans-I/O; used by the asyncio host (localdurak.net.host).  What it shares with the seat's
replica is in table/common.py.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from localdurak.game.actions import Action, Do, IllegalAction
from localdurak.game.engine import Game
from localdurak.protocol.codec import pack
from localdurak.protocol.errors import (
    BadMessage,
    Cheated,
    IllegalMove,
    NotYourTurn,
    RemoteProtocolError,
)
from localdurak.protocol.messages import GameStarted, Privacy
from localdurak.protocol.privacy.messages import Message as PMessage
from localdurak.protocol.privacy.messages import (
    MessageError,
    Refill,
    message_from_dict,
)
from localdurak.protocol.privacy.record import refusal_to_json, with_identity
from localdurak.protocol.privacy.roles import Host
from localdurak.protocol.signing import verify_action
from localdurak.protocol.table.common import (
    GAME_STEPS,
    Counters,
    action_of,
    begin_game,
    decode_body,
    refill_due,
    refusal,
    return_due,
    setup_for,
    signed_setup,
    step_of,
)

REFUSALS_BACK = 8
"""The most refusals a seat gives back to one resumed host: what a seat keeps (the clients'
and bots' ``RECENT_REFUSED``); any more is a flood, ignored."""


def max_step_bytes(deck: Any) -> int:
    """The most bytes (its encoded body) a legal signed step of a game with ``deck`` cards
    takes: the largest is a shuffle (its cards re-encrypted and their proof, about 100
    bytes a card: 5.4 kB for 52 cards), then a strip or an answer (under 1 kB).  reading:
    256 bytes a card and 8 kB besides, well over each; a body larger than this is no
    legal step, and a refusal given back with one is ignored (it would only pad the record)."""
    cards = deck if isinstance(deck, int) and 0 < deck <= 52 else 52
    return 256 * cards + 8 * 1024


@dataclass
class Accepted:
    """What the host relays for one accepted command: the signed steps (in order) and the
    privacy messages it accepted into the transcript (for the journal)."""

    relay: list[tuple[int, Privacy]]
    """(seat, command) pairs to relay as `PrivacyEvent`, in order."""
    action: Action | None = None
    refill: Refill | None = None


class HostGame:
    """The host's authority over one game: verifies, orders, relays; holds no secret."""

    def __init__(self, started: GameStarted) -> None:
        self.started = started
        self.setup = setup_for(started)
        # Strip proofs are verified beside the relaying (`verify_idle`), not before it: the
        # host is on every step's path, and each player verifies what it strips or decodes
        # anyway; a play is still checked on the spot (its chunk's chain is verified then).
        self.privacy = Host(self.setup, defer_verification=True)
        self.game: Game | None = None
        self.counters = Counters([-1] * len(started.keys))
        self._waiting: dict[int, tuple[int, Privacy]] = {}
        """id(privacy message) -> (seat, command): held by the privacy host, not relayed yet."""
        self.accepted_log: list[PMessage] = []
        self.received: dict[tuple[int, int], bytes] = {}
        """(seat, n) -> signature of each accepted command (an identical resend is ignored)."""
        self.cheat: Cheated | None = None
        """The first check of the host's that proved a seat cheated (`verify_idle`)."""
        self.steps: list[dict[str, Any]] = []
        """Every accepted signed step in the host's order, for the record (records.md
        ``privacy.identity.steps``): its seat, counter, step, signature, and the positions of
        its privacy messages in the transcript's log."""
        self.refused_steps: list[tuple[Any, ...]] = []
        """(seat, n, envelope) of each signed step refused (a bare (seat, n) when its signature
        failed: the step cannot be shown): the
        gaps in a seat's counters that the record explains, each with the step as its seat
        signed it (``step``, ``sig``, ``body``, and ``at``: the log's length when it came), so
        the audit can check the refusal was justified (records.md).  A game saved before the
        record carried the steps holds bare (seat, n) pairs."""
        self._taken_back: dict[int, int] = {}
        """Per seat, how many refusals it gave back to this host (`take_back_refusal`)."""

    @property
    def seats(self) -> int:
        return len(self.started.keys)

    @property
    def bound(self) -> bytes:
        """What the seats' signatures bind besides the step (`signed_setup`)."""
        return signed_setup(self.started)

    def duplicate(self, seat: int, cmd: Privacy) -> bool:
        """An identical resend of a command already accepted (a reconnecting client)."""
        return self.received.get((seat, cmd.n)) == cmd.sig

    def receive(self, seat: int, cmd: Privacy) -> Accepted:
        """Accept seat ``seat``'s signed step or raise the `ProtocolError` to send back."""
        if cmd.game != self.started.game:
            raise BadMessage("a privacy step for another game")
        try:
            verify_action(
                self.started.keys[seat],
                cmd.sig,
                game=self.bound,
                seat=seat,
                n=cmd.n,
                kind=cmd.step,
                body=cmd.body,
                seen=cmd.seen,
            )
        except BaseException:
            # Without its seat's signature the step cannot be shown in the record: only the
            # gap it leaves is (a bare claim, which the audit says it cannot check).
            self.refuse(seat, cmd.n)
            raise
        self._lost_step_back(seat, cmd)
        at = len(self.privacy.t.log)
        try:
            # The counter before anything else: a replayed command is refused as a replay.
            self.counters.check(seat, cmd.n)
            self.counters.advance(seat, cmd.n)
            return self._receive(seat, cmd)
        except BaseException:
            self.refuse(seat, cmd.n, cmd, at)
            raise

    def refuse(self, seat: int, n: int, cmd: Privacy | None = None, at: int = 0) -> None:
        """Note that seat ``seat``'s signed command ``n`` (``cmd``, which came when the log
        held ``at`` messages) was refused: the record explains the gap it leaves in the seat's
        counters, and carries the step so the audit can check the refusal (`with_identity`)."""
        steps = getattr(self, "refused_steps", None)
        if steps is None:  # a game saved before the record carried refusals
            steps = self.refused_steps = []
        if any(r[:2] == (seat, n) for r in steps):
            return
        if (seat, n) in self.received:
            if cmd is None or self.received[(seat, n)] == cmd.sig:
                return  # a replay of the step accepted
            # Another step signed under a counter already accepted (its signature checked):
            # an equivocation, kept as the evidence the audit names the seat by (records.md).
        elif any(st["seat"] == seat and st["n"] == n for st in self.steps[-8:]):
            return  # kept in the log as evidence, its step in the record (`_receive`)
        body = _json_body(cmd.body) if cmd is not None else None
        if body is None and (seat, n) in self.received:
            return  # no step to show: the gap is the accepted step's, nothing to explain
        envelope = (
            None
            if cmd is None or body is None
            else {"step": cmd.step, "sig": cmd.sig, "body": body, "at": at, "seen": cmd.seen}
        )
        steps.append((seat, n, envelope))

    def restore_refusal(self, item: list[Any]) -> None:
        """A journal's ``privacy_refused`` entry back into `refused_steps` (a resume)."""
        envelope: dict[str, Any] | None = None
        if len(item) > 2 and isinstance(e := item[2], dict):
            try:
                envelope = {**e, "sig": bytes.fromhex(e["sig"])}
            except (KeyError, TypeError, ValueError):
                envelope = None
        if not any(r[:2] == (item[0], item[1]) for r in self.refused_steps):
            self.refused_steps.append((item[0], item[1], envelope))

    def take_back_refusal(self, seat: int, cmd: Privacy, at: int) -> bool:
        """A refusal this host no longer holds, given back by its seat: ``cmd`` is the step
        as the seat signed it, refused (by an earlier host of this game) when the log held
        ``at`` messages.  A refusal is in no event, only in the journal, so a power cut that
        takes the journal's last lines takes it, and the gap it left in the seat's counters
        would be in the record unexplained (a fault naming nobody).  Taken, without judging
        the step again here (the audit judges it where it came, records.md), when it is the
        seat's own signed step under a counter this host neither accepted nor lists as
        refused, and ``at`` fits it: not before what the seat had seen, not beyond the log,
        after the seat's steps with a lower counter and not after one with a higher.  Its
        counter is used from now on (a resend of it is a replay).  Whether it was taken."""
        n = cmd.n
        if cmd.game != self.started.game or not 0 <= seat < self.seats:
            return False
        if (seat, n) in self.received or self.refusal(seat, n) is not None:
            return False
        if self._taken_back.get(seat, 0) >= REFUSALS_BACK:
            return False  # more than its seat keeps: a flood
        if not _within(cmd.body, max_step_bytes(self.started.rules.deck)):
            return False  # larger than any legal step (a flood of the record)
        body = _json_body(cmd.body)
        if body is None or not cmd.seen <= at <= len(self.privacy.t.log):
            return False
        before = [max(st["at"]) for st in self.steps if st["seat"] == seat and st["n"] < n]
        after = [min(st["at"]) for st in self.steps if st["seat"] == seat and st["n"] > n]
        if (before and at <= max(before)) or (after and at > min(after)):
            return False
        try:
            verify_action(
                self.started.keys[seat],
                cmd.sig,
                game=self.bound,
                seat=seat,
                n=n,
                kind=cmd.step,
                body=cmd.body,
                seen=cmd.seen,
            )
        except (ValueError, TypeError):  # AuthFailed, or no step a key can have signed
            return False
        self.counters.advance(seat, n)
        envelope = {
            "step": cmd.step,
            "sig": cmd.sig,
            "body": body,
            "at": at,
            "seen": cmd.seen,
            "back": True,  # on the seat's word (records.md "back")
        }
        self.refused_steps.append((seat, n, envelope))
        self._taken_back[seat] = self._taken_back.get(seat, 0) + 1
        return True

    def _lost_step_back(self, seat: int, cmd: Privacy) -> None:
        """A step given back as accepted (the very step, its signature) that this host holds
        as a refusal given back: the earlier host accepted it (a seat saw it relayed), so the
        "refusal" was false (its seat undoing its own lost move?): dropped, and the step is
        taken under its counter as any lost step is."""
        for k, r in enumerate(self.refused_steps):
            env = r[2] if len(r) > 2 else None
            if r[:2] == (seat, cmd.n) and env is not None and env.get("back"):
                if env["sig"] == cmd.sig:
                    del self.refused_steps[k]
                    self.counters.last[seat] = max(
                        [-1, *(m for (s, m) in self.received if s == seat and m < cmd.n)]
                        + [m for (s, m, *_) in self.refused_steps if s == seat and m < cmd.n]
                    )
                return

    def refusal(self, seat: int, n: int) -> list[Any] | None:
        """The record's entry for seat ``seat``'s refused step ``n`` (the journal's
        ``privacy_refused`` item), None when it is not listed as refused."""
        for r in getattr(self, "refused_steps", []):
            if r[:2] == (seat, n):
                return refusal_to_json(r[0], r[1], r[2] if len(r) > 2 else None)
        return None

    def _receive(self, seat: int, cmd: Privacy) -> Accepted:
        msgs = decode_body(cmd.body, seat)
        if step_of(msgs) != cmd.step:
            raise BadMessage(f"step {cmd.step!r} carries {msgs[0].KIND!r} messages")
        action: Action | None = None
        g = self.game
        if cmd.step in GAME_STEPS:
            action = action_of(msgs)
            if g is None or not self.privacy.t.deal_complete():
                # Not before every hand of the deal is complete: a seat whose hand is still
                # on its ring pass has no engine yet to follow the play with.
                raise NotYourTurn("the cards are still being dealt")
            if g.result is not None:
                raise NotYourTurn("the game is over")
            try:
                g.check(action)
            except IllegalAction as e:
                # Not his turn when nothing is open to him; the host's engine does not know
                # the hands, though, so the main attacker, who may open with any card of his,
                # lists nothing either (unless a card of his was shown): his is a wrong move.
                if (
                    not g.legal_actions(seat)
                    and seat != g.attacker
                    and action.do is not Do.CHALLENGE
                ):
                    raise NotYourTurn(f"not your turn: {e.reason}", rule=e.rule) from None
                raise IllegalMove(str(e), rule=e.rule) from None
        # Card privacy: every message checked before any is accepted (a multi-card attack is
        # all or nothing), then accepted for real.
        if len(msgs) > 1:
            trial = copy.deepcopy(self.privacy)
            try:
                for m in msgs:
                    trial.receive(seat, m)
            except RemoteProtocolError as e:
                self.privacy.refused.extend(trial.refused[len(self.privacy.refused) :])
                raise refusal(e, "card privacy refused it") from None
        out: list[tuple[int, PMessage]] = []
        at: list[int] = []
        before = len(self.privacy.t.log)
        try:
            for m in msgs:
                # Every proof, even one that only says who sent it: the record keeps the
                # transcript without the identity signatures, so its audit could not tell a
                # seat's bad proof from the host's forgery (the players may skip these,
                # `SeatGame.receive`).
                out += self.privacy.receive(seat, m)
                self.accepted_log.append(m)
                at.append(len(self.privacy.t.log) - 1)
        except RemoteProtocolError as e:
            if len(self.privacy.t.log) > (at[-1] + 1 if at else before):
                # The transcript kept the refused message as evidence against its seat (a
                # false "not me", R-F1): its signed step goes in the record with it, or the
                # log would hold a message in no step its seat signed.
                at.append(len(self.privacy.t.log) - 1)
                self.steps.append(_step(seat, cmd, at))
            raise refusal(e, "card privacy refused it") from None
        self.received[(seat, cmd.n)] = cmd.sig
        self.steps.append(_step(seat, cmd, at))
        for m in msgs:
            self._waiting[id(m)] = (seat, cmd)
        relay: list[tuple[int, Privacy]] = []
        seen: set[int] = set()
        for _, m in out:
            entry = self._waiting.pop(id(m), None)
            if entry is not None and id(entry[1]) not in seen:
                seen.add(id(entry[1]))
                relay.append(entry)
        result = Accepted(relay, action)
        if action is not None:
            assert g is not None
            outcome = g.apply(action)
            refill = refill_due(outcome)
            if refill is not None:
                seats, taker, taken = refill
                self.privacy.refill(seats, None if taker < 0 else taker, taken)
                last = self.privacy.t.log[-1]
                assert isinstance(last, Refill)
                result.refill = last
                self.accepted_log.append(last)
            back = return_due(outcome)
            if back is not None:
                self.privacy.return_cards(*back)
                self.accepted_log.append(self.privacy.t.log[-1])
        if self.game is None:
            t = self.privacy.t
            if t.final_deck is not None and t.trump_suit is None and t.schedule.batches:
                t.ensure_public()  # the trump card, once its chunk is complete (verified)
            self.game = begin_game(self.started, self.setup, t, None, None, [])
        return result

    @property
    def idle_work(self) -> bool:
        """Whether relayed steps wait for `verify_idle`."""
        return self.privacy.pending > 0

    def verify_idle(self, limit: int | None = None) -> str | None:
        """Verify what was relayed unverified (at most ``limit`` steps); the fault (recorded
        in the transcript's refusals, so the audit names the seat) or None.  A fault that
        proves a seat cheated stays in `cheat` (the host aborts the game naming it)."""
        try:
            self.privacy.verify_pending(limit)
        except RemoteProtocolError as e:
            if isinstance(e, Cheated) and e.seat is not None and self.cheat is None:
                self.cheat = e
            return str(e)
        return None

    def all_revealed(self) -> bool:
        return all(k is not None for k in self.privacy.t.revealed)

    def transcript(self) -> dict[str, Any]:
        """The record's ``"privacy"`` value: the transcript, and what binds it to the people
        who played (`localdurak.protocol.privacy.record.with_identity`)."""
        self.verify_idle()  # everything verified before the record is written
        st = self.started
        return with_identity(
            self.privacy.transcript(),
            game=st.game,
            number=st.number,
            rules=st.rules.non_defaults(),
            dealer=st.dealer,
            names=st.names,
            keys=st.keys,
            previous=st.previous.to_dict() if st.previous is not None else None,
            steps=getattr(self, "steps", []),
            refused=getattr(self, "refused_steps", []),
        )


def _step(seat: int, cmd: Privacy, at: list[int]) -> dict[str, Any]:
    """One accepted signed step as the record keeps it (`HostGame.steps`)."""
    return {"seat": seat, "n": cmd.n, "step": cmd.step, "sig": cmd.sig, "at": at, "seen": cmd.seen}


def _within(body: Any, limit: int) -> bool:
    """Whether ``body`` encodes (a frame) in at most ``limit`` bytes."""
    try:
        return len(pack(body)) <= limit
    except BadMessage:
        return False


def _json_body(body: Any) -> list[Any] | None:
    """A signed step's body as the record writes it (each message's ``to_json()``), or None
    when it is no list of messages that reads back to exactly what was signed (the refusal
    is then recorded without its step, and the audit says it cannot be checked)."""
    if not isinstance(body, list):
        return None
    try:
        msgs = [message_from_dict(m) for m in body]
    except MessageError:
        return None
    if [m.to_dict() for m in msgs] != body:
        return None
    return [m.to_json() for m in msgs]
