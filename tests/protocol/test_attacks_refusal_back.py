"""Attacks on refusals given back to a resumed host (docs/protocol.md §7,
"Refusals given back"; `HostGame.take_back_refusal`), as a cheating seat would try them, and
as a forging host.  Each test asserts what must hold (the audit names a cheater, never an
honest seat, and does not call an honest host's record altered).
"""

from __future__ import annotations

import dataclasses
import json
import random
import time
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from localdurak.cli.main import main
from localdurak.game.actions import Action, Do
from localdurak.game.rules import Rules
from localdurak.protocol.errors import RemoteProtocolError
from localdurak.protocol.privacy.audit import AuditReport, audit
from localdurak.protocol.table.common import Signed
from localdurak.protocol.table.host import HostGame
from tests.support.net_play import MemoryGame

NAMES = ("Anna", "Boris")


class Logged(MemoryGame):
    """A MemoryGame that keeps every step its host accepted, in order (what a resumed host
    rebuilds from its journal)."""

    def __init__(self, *a: Any, **k: Any) -> None:
        super().__init__(*a, **k)
        self.accepted: list[tuple[int, Signed, dict[str, Any] | None]] = []

    def pump_one(self) -> None:
        seat, signed = self.queue[0]
        before = len(self.host.steps)
        n_actions = len(self.actions)
        super().pump_one()
        if len(self.host.steps) > before:
            act = self.actions[-1] if len(self.actions) > n_actions else None
            self.accepted.append((seat, signed, act))


def _host_blamed(report: AuditReport) -> list[str]:
    """Faults that say an (honest) host altered the record."""
    return [f.what for f in report.faults if "altered" in f.what or "not justified" in f.what]


def _cheaters_turn(g: MemoryGame, cheater: int) -> Action | None:
    """A legal action the cheater's own view allows now (its bot's choice), or None."""
    p = g.seats[cheater]
    if not p.hand_complete():
        return None
    view = p.view()
    assert view is not None
    return g.bots[cheater].choose(view)


def _advance_to_cheaters_move(g: MemoryGame, cheater: int) -> Action:
    for _ in range(400):
        act = _cheaters_turn(g, cheater)
        if act is not None and act.do is not Do.CHALLENGE:
            return act
        assert g.step()
    raise AssertionError("the cheater never had a move")


# --- (a) a refusal of a legal step the host never refused, invented by the cheater ----------


def _dealt(seed: int) -> MemoryGame:
    """A 2-seat 24-card game, dealt, three steps in (under the test's patched randomness)."""
    g = MemoryGame(2, Rules(deck=24), seed=seed, names=NAMES)
    g.deal()
    for _ in range(3):
        assert g.step()
    return g


def test_a_invented_refusal_of_a_legal_move_does_not_blame_the_honest_host() -> None:
    """The cheater signs a legal move of his, never sends it, and gives it back as "refused"
    (refused=at, at the log's end: after all his steps, not before his seen).  The host takes
    it without judging it, marked as given back (``back``); the audit judges it legal where it
    came and says the seat's word or the host's is wrong, naming nobody: the honest host is
    not called a forger."""
    with mock.patch("os.urandom", random.Random(21).randbytes):
        g = _dealt(21)
        h = g.host
        cheater = 0
        act = _advance_to_cheaters_move(g, cheater)
        p = g.seats[cheater]
        legal = p.act(act)  # signed, checked by his own engine: legal here
        at = len(h.privacy.t.log)
        assert h.take_back_refusal(cheater, legal.command(0), at)  # taken, unjudged
        p.refused(legal.n)  # he plays on with his next counter
        g.play_out()
    record = json.loads(json.dumps(g.record()))
    report = audit(record, require_actions=True)
    assert report.guilty == (), report.faults  # no honest seat named (holds)
    assert not _host_blamed(report), report.faults  # the honest host is not called a forger
    assert any(
        f.seat is None and "the seat's word or the host's is wrong" in f.what for f in report.faults
    ), report.faults


# --- (b) a refusal placed to make another seat look guilty, or to hide an accepted step -----


def test_b_refusals_at_every_place_never_name_the_honest_seat() -> None:
    """The cheater gives back, at every place the host takes, refusals whose bodies are the
    honest seat's own accepted messages (in the honest seat's name, signed by the cheater), a
    copy of his own accepted step's body, and junk; the host never takes one under an
    accepted counter.  The honest seat is never named, no accepted step is hidden."""
    with mock.patch("os.urandom", random.Random(22).randbytes):
        g = MemoryGame(2, Rules(deck=24), seed=22, names=NAMES)
        g.deal()
        for _ in range(6):
            assert g.step()
        h = g.host
        cheater, honest = 0, 1
        p = g.seats[cheater]
        honest_step = next(st for st in reversed(h.steps) if st["seat"] == honest)
        own_step = next(st for st in reversed(h.steps) if st["seat"] == cheater)

        def dicts(st: dict[str, Any]) -> list[Any]:
            return [h.privacy.t.log[i] for i in st["at"]]

        bodies = [dicts(honest_step), dicts(own_step)]
        taken = 0
        for msgs in bodies:
            signed = p.sign(msgs)  # his counter, his signature, another seat's messages
            for at in range(signed.seen, len(h.privacy.t.log) + 1):
                if h.take_back_refusal(cheater, signed.command(0), at):
                    taken += 1
                    break
        # Under the counters he had accepted steps under: never taken (would hide a move).
        for st in [s for s in h.steps if s["seat"] == cheater]:
            forged = p.sign(dicts(own_step))
            c = dataclasses.replace(forged.command(0), n=st["n"])
            for at in range(0, len(h.privacy.t.log) + 1):
                assert not h.take_back_refusal(cheater, c, at)
        n_steps = len(h.steps)
        g.play_out()
        assert len(h.steps) > n_steps
    assert taken == 2
    record = json.loads(json.dumps(g.record()))
    report = audit(record, require_actions=True)
    assert honest not in report.guilty, report.faults
    assert report.guilty in ((), (cheater,)), report.faults


# --- (c) a counter that collides with a real step: the cheater takes back a lost move -------


def cheaters_move_lost(seed: int) -> tuple[Logged, int, Signed, HostGame]:
    """Seat 0, the cheater, made a move that seat 1 saw relayed, and a power cut took it from
    the host: the game (three steps in, under the test's patched randomness), the move's
    place in ``accepted``, the move, and the resumed host's game, rebuilt from every step
    before it."""
    g = Logged(2, Rules(deck=24), seed=seed, names=NAMES)
    g.deal()
    for _ in range(3):
        assert g.step()
    act = _advance_to_cheaters_move(g, 0)
    g.send(0, [g.seats[0].act(act)])
    g.pump()
    idx = next(k for k in range(len(g.accepted) - 1, -1, -1) if g.accepted[k][0] == 0)
    h2 = HostGame(g.started)
    for seat, signed, _ in g.accepted[:idx]:
        h2.receive(seat, signed.command(0))
    return g, idx, g.accepted[idx][1], h2


def test_c_a_lost_move_given_back_as_refused_is_not_undone() -> None:
    """A power cut took the cheater's last accepted move (the honest seat had it relayed).
    In the gathering the cheater is first: he gives back that very move, his own signature,
    as "refused" (its counter is neither accepted nor refused by the resumed host, its place
    fits).  Then the honest seat gives back the cheater's move as it saw it relayed: the
    resumed host must not refuse it as a replay: the very step given back as accepted drops
    the false "refusal" (`HostGame._lost_step_back`), so the move is not undone and the host
    and the honest seat's replica agree.  (A resumed host also takes given-back refusals only
    after every lost step: `HostResume._end_gathering`.)"""
    with mock.patch("os.urandom", random.Random(23).randbytes):
        cheater, honest = 0, 1
        g, idx, lost_move, h2 = cheaters_move_lost(23)
        at = len(h2.privacy.t.log)
        # The cheater, first in the gathering: his lost move "refused".
        took = h2.take_back_refusal(cheater, lost_move.command(0), at)
        # The honest seat gives back what it saw relayed after the kept log (its copy).
        refused_honest = False
        for seat, signed, _ in g.accepted[idx:]:
            try:
                h2.receive(seat, signed.command(0))
            except RemoteProtocolError:
                refused_honest = True
                break
        honest_view = len(g.seats[honest].player.t.log)
        entries = [r for r in h2.refused_steps if r[:2] == (cheater, lost_move.n)]
        print(
            f"undo: taken {took}, honest give-back refused {refused_honest}, host log "
            f"{len(h2.privacy.t.log)} vs honest replica {honest_view}, entries for #{lost_move.n}: "
            f"{len(entries)} (the real step's signature kept as evidence: "
            f"{any(r[2] and r[2]['sig'] != lost_move.sig for r in entries)})"
        )
    assert not (took and refused_honest), "the cheater undid his move on the resumed host"
    assert len(h2.privacy.t.log) == honest_view  # the host and the honest replica agree


# --- (d) flood ------------------------------------------------------------------------------


def test_d_a_flood_of_given_back_refusals_is_bounded() -> None:
    """Given-back refusals under fresh counters at the log's end: at most what a seat keeps
    (8) are taken, and none with a body larger than any legal step (a frame allows 1 MiB;
    a few dozen would pass the audit's 64 MB limit, `record_file.MAX_BYTES`, and the audit
    deep-copies the transcript for each one)."""
    with mock.patch("os.urandom", random.Random(24).randbytes):
        g = _dealt(24)
        h = g.host
        cheater = 0
        p = g.seats[cheater]
        act = _advance_to_cheaters_move(g, cheater)
        one = p.player.act(Action(cheater, Do.TAKE).to_dict()) if act.do is not Do.TAKE else None
        msgs = [one] if one is not None else [p.player.act(act.to_dict())]
        at = len(h.privacy.t.log)
        count = 200
        taken = 0
        for _ in range(count):
            s = p.sign(msgs)
            taken += h.take_back_refusal(cheater, s.command(0), at)
            p.refused(s.n)
        # One huge body: a frame's worth in one message (the host checks only that it reads
        # back): 900 kB of "proof", written as hex in the journal and the record.
        big = p.sign([dataclasses.replace(msgs[0], proof=bytes(900_000))])
        huge_taken = h.take_back_refusal(cheater, big.command(0), at)
        p.refused(big.n)
        g.play_out()
    record = json.loads(json.dumps(g.record()))
    size = len(json.dumps(record))
    t0 = time.perf_counter()
    report = audit(record, require_actions=True)
    took_s = time.perf_counter() - t0
    print(f"taken {taken}/{count}, huge {huge_taken}, record {size} bytes, audit {took_s:.2f} s")
    assert report.guilty in ((), (cheater,)), report.faults
    assert taken <= 8 and not huge_taken, (taken, huge_taken, size, took_s)


def test_d_huge_given_back_refusals_make_the_record_unauditable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cheater who also cheats outright (a move the rules refuse... or anything the audit
    would name him for) tries to pad the record with 40 given-back refusals of 900 kB each
    (past 64 MB `localdurak audit` would refuse it as no record, exit 2, naming nobody): each
    is larger than any legal step and ignored, so the record stays auditable."""
    with mock.patch("os.urandom", random.Random(26).randbytes):
        g = _dealt(26)
        h = g.host
        cheater = 0
        p = g.seats[cheater]
        _advance_to_cheaters_move(g, cheater)
        base = p.player.act(Action(cheater, Do.TAKE).to_dict())
        at = len(h.privacy.t.log)
        for _ in range(40):
            big = p.sign([dataclasses.replace(base, proof=bytes(900_000))])
            # Larger than any legal step: ignored, never recorded.
            assert not h.take_back_refusal(cheater, big.command(0), at)
            p.refused(big.n)
        g.play_out()
    path = tmp_path / "record.json"
    path.write_text(json.dumps(g.record()))
    size = path.stat().st_size
    code = main(["audit", str(path)])
    out = capsys.readouterr()
    print(f"record {size} bytes, audit exit {code}: {(out.out + out.err).strip()[:200]}")
    assert code != 2, "the record cannot be audited at all"


# --- a forging host --------------------------------------------------------------------------


def test_forging_host_cannot_have_a_given_back_refusal_name_an_honest_seat() -> None:
    """A host that refused an honest seat's legal step (or records one of its accepted steps
    as refused) and "takes it back" at any place it likes: the audit never names the seat."""
    with mock.patch("os.urandom", random.Random(25).randbytes):
        g = _dealt(25)
        h = g.host
        victim = 0
        act = _advance_to_cheaters_move(g, victim)
        p = g.seats[victim]
        step = p.act(act)
        # The host refuses it (deletes the move) and the seat keeps it, gives it back.
        seen = step.seen
        p.refused(step.n)
        g.play_out()
        end = len(h.privacy.t.log)
        placed = [
            a for a in range(seen, end + 1) if h.take_back_refusal(victim, step.command(0), a)
        ]
        assert len(placed) == 1
        # And an accepted step of the victim, as "refused" again: never taken.
        for st in [s for s in h.steps if s["seat"] == victim][:5]:
            c = dataclasses.replace(step.command(0), n=st["n"])
            assert not any(h.take_back_refusal(victim, c, a) for a in range(end + 1))
    record = json.loads(json.dumps(g.record()))
    report = audit(record, require_actions=True)
    assert report.guilty == (), report.faults


def test_c2_a_refusal_under_a_counter_a_real_step_takes_later_costs_only_the_cheater() -> None:
    """The cheater gives back a refusal under the counter his next real step will use (and
    one far ahead): that step is refused as a replay — his, not an honest seat's; the honest
    seat plays on and is never named."""
    from localdurak.protocol.errors import Replayed

    with mock.patch("os.urandom", random.Random(27).randbytes):
        g = _dealt(27)
        h = g.host
        cheater, honest = 0, 1
        act = _advance_to_cheaters_move(g, cheater)
        p = g.seats[cheater]
        real = p.act(act)  # signed under n, not sent yet
        # A different step signed by hand under the real one's counter (his SeatGame would
        # not).
        from localdurak.protocol.signing import action_payload
        from localdurak.protocol.table.common import body_of

        take = p.player.act(Action(cheater, Do.TAKE).to_dict())
        body = body_of([take])
        sig = g.keys[cheater].sign(
            action_payload(h.bound, cheater, real.n, "act", body, seen=real.seen)
        )
        fake = Signed(real.game, real.n, "act", body, sig, real.seen)
        assert h.take_back_refusal(cheater, fake.command(0), len(h.privacy.t.log))
        try:
            h.receive(cheater, real.command(0))
            raise AssertionError("the real step under a counter given back was taken")
        except Replayed:
            pass
        p.refused(real.n)
        p.player.forget(take)
        n_honest = sum(1 for s in h.steps if s["seat"] == honest)
        g.play_out()
        assert sum(1 for s in h.steps if s["seat"] == honest) > n_honest
    record = json.loads(json.dumps(g.record()))
    report = audit(record, require_actions=True)
    assert honest not in report.guilty, report.faults
    print("c2 faults:", [(f.seat, f.what[:90]) for f in report.faults])
