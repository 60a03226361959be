"""Attacks on a finished game's record, as a forging host or a tamperer of records would try
them, and on ``localdurak audit`` with hand-made files beyond the random fuzz
(tests/protocol/test_audit_fuzz.py): each must be shown by the audit naming nobody (nothing in
a rewritten record shows a player did anything), and the command must answer every file with
exit 0, 1 or 2 and a message, never a traceback.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from localdurak.cli.main import main
from localdurak.game.rules import Rules
from localdurak.net.identity import EphemeralKey
from localdurak.protocol.privacy.audit import AuditReport, audit
from localdurak.protocol.privacy.messages import message_from_json
from localdurak.protocol.signing import action_payload, key_fingerprint, setup_digest
from tests.support.net_play import MemoryGame

NAMES = ("Anna", "Boris")


@pytest.fixture(scope="module")
def game() -> MemoryGame:
    with mock.patch("os.urandom", random.Random(7).randbytes):
        g = MemoryGame(2, Rules(deck=24), seed=7, names=NAMES)
        g.deal()
        g.play_out()
    return g


@pytest.fixture
def record(game: MemoryGame) -> dict[str, Any]:
    r = copy.deepcopy(game.record())
    assert audit(r, require_actions=True).clean
    return r


def blames_the_record_only(report: AuditReport) -> None:
    assert report.faults, "the rewrite went unnoticed"
    assert report.guilty == (), f"an honest seat was named: {report.faults}"


def _not_durak(record: dict[str, Any]) -> int:
    return next(s for s in range(2) if s not in record["result"]["durak"])


# --- the host's word about how the game ended ------------------------------------------------


def test_a_forfeit_written_into_a_finished_game_is_shown(record: dict[str, Any]) -> None:
    """The signed actions finish the game; the host adds that the winner forfeited (the
    record now says he stopped playing): the audit must not call that clean."""
    record["forfeit"] = _not_durak(record)
    report = audit(record, require_actions=True)
    blames_the_record_only(report)
    assert any("forfeit" in f.what for f in report.faults), report.faults


def test_an_abort_naming_an_honest_seat_is_shown(record: dict[str, Any]) -> None:
    """The host writes an honest finished game down as aborted because seat 0 "broke the
    card-privacy protocol" (what every screen would then say): the log proves no fault of
    seat 0, so the audit must say the claim is the host's alone — and not name seat 0."""
    record["aborted"] = {"seat": 0, "reason": "its proof of shuffle does not check out"}
    report = audit(record, require_actions=True)
    blames_the_record_only(report)
    assert any("aborted" in f.what and "seat 0" in f.what for f in report.faults), report.faults


def test_an_abort_with_its_result_rewritten_too_is_shown(record: dict[str, Any]) -> None:
    record["aborted"] = {"seat": 1, "reason": "a false 'not me'"}
    record["result"] = {"durak": [], "draw": False, "pogony": 0}
    report = audit(record, require_actions=True)
    blames_the_record_only(report)
    assert any("aborted" in f.what and "seat 1" in f.what for f in report.faults), report.faults


@pytest.mark.parametrize("bad", [None, "x", 5, {"seat": "0"}, {"seat": True}, []])
def test_an_abort_that_cannot_be_read_is_a_fault_not_a_crash(
    record: dict[str, Any], bad: Any
) -> None:
    record["aborted"] = bad
    report = audit(record, require_actions=True)
    if bad is None:  # "aborted": null is no abort
        assert report.clean, report.faults
    else:
        blames_the_record_only(report)


# --- a seat's identity swapped ---------------------------------------------------------------


def test_a_seat_identity_swapped_and_its_steps_re_signed(
    game: MemoryGame, record: dict[str, Any]
) -> None:
    """The host puts an identity key of its own in seat 1's place and re-signs every step of
    seat 1 under the new signed setup, so seat 1's signatures are consistent with the new key.
    The setup digest binds every seat's key: seat 0's signatures no longer check, and the
    fingerprint shown for seat 1 is not Boris's."""
    ident = record["privacy"]["identity"]
    fake = EphemeralKey()
    keys = [bytes.fromhex(k) for k in ident["keys"]]
    keys[1] = fake.public_key
    ident["keys"] = [k.hex() for k in keys]
    digest = setup_digest(
        game=bytes.fromhex(ident["game"]),
        number=ident["number"],
        rules=ident["rules"],
        dealer=ident["dealer"],
        names=ident["names"],
        keys=keys,
        previous=ident["previous"],
    )
    log = record["privacy"]["log"]
    for st in ident["steps"]:
        if st["seat"] == 1:
            body = [message_from_json(log[i]).to_dict() for i in st["at"]]
            st["sig"] = fake.sign(action_payload(digest, 1, st["n"], st["step"], body)).hex()
    report = audit(record, require_actions=True)
    blames_the_record_only(report)
    assert any("identity signature" in f.what and "seat 0" in f.what for f in report.faults)
    assert report.seats[1].fingerprint == key_fingerprint(fake.public_key)
    assert report.seats[1].fingerprint != key_fingerprint(game.started.keys[1])


# --- `localdurak audit` on hand-made nasties -------------------------------------------------


def _nasties(record: dict[str, Any]) -> dict[str, str]:
    text = json.dumps(record)
    out: dict[str, str] = {
        "deep nesting": "[" * 100_000 + "]" * 100_000,
        "deep nesting inside the transcript": text[:-1]
        + ', "x": '
        + "[" * 50_000
        + "]" * 50_000
        + "}",
        # More digits than Python converts (a ValueError that is no JSONDecodeError).
        "a huge integer": text.replace('"seats": 2', '"seats": ' + "9" * 5000, 1),
        "Infinity in the setup": text.replace('"deck": 24', '"deck": Infinity'),
        "NaN in the setup": text.replace('"dealer": 1', '"dealer": NaN'),
    }
    # A lone surrogate: JSON may escape it, UTF-8 cannot encode it (the setup digest does).
    for what, change in {
        "a lone surrogate in a name": lambda r: r["privacy"]["identity"]["names"].__setitem__(
            0, "\ud800"
        ),
        "a lone surrogate in a step name": lambda r: r["privacy"]["identity"]["steps"][
            0
        ].__setitem__("step", "\udfff"),
        "a lone surrogate in the signed rules": lambda r: r["privacy"]["identity"][
            "rules"
        ].__setitem__("\ud800", 1),
    }.items():
        r = copy.deepcopy(record)
        change(r)
        out[what] = json.dumps(r)
    assert all(v != text for v in out.values()), "a nasty did not change the record"
    return out


def test_the_cli_answers_every_nasty_with_an_exit_code(
    tmp_path: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    for what, text in _nasties(record).items():
        path = tmp_path / "nasty.json"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        for command in ("audit", "replay"):
            try:
                code = main([command, str(path)])
            except Exception as e:  # the traceback a user would see
                raise AssertionError(f"{what}: `localdurak {command}` crashed: {e!r}") from e
            out = capsys.readouterr()
            assert code in (0, 1, 2), (what, command, code)
            assert out.out.strip() or out.err.strip(), (what, command)


def test_a_journal_with_a_huge_integer_is_refused_not_a_crash(
    tmp_path: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    head = {k: v for k, v in record.items() if k != "actions"}
    head["journal"] = "localdurak-journal/1"
    path = tmp_path / "game.journal"
    path.write_text(json.dumps(head) + '\n{"set": {"x": ' + "9" * 5000 + "}}\n")
    for command in ("audit", "replay"):
        assert main([command, str(path)]) == 2, command
        assert "journal line 2" in capsys.readouterr().err


# --- the host's order ------------------------------------------------------------------------


def _swap_moves(record: dict[str, Any], k: int) -> dict[str, Any] | None:
    """``record`` with its k-th and k+1-th moves swapped in the log (the signed steps pointed
    at their new places) and in the actions, if they are two seats' single-message moves next
    to each other in the log; else None."""
    r = copy.deepcopy(record)
    log, actions = r["privacy"]["log"], r["actions"]
    moves = [i for i, m in enumerate(log) if m["kind"] in ("play", "act")]
    if any(len(a.get("cards", ())) > 1 for a in actions[: k + 2]):
        return None  # a multi-card attack: moves and actions no longer pair one to one
    first, second = moves[k], moves[k + 1]
    if actions[k]["seat"] == actions[k + 1]["seat"] or first + 1 != second:
        return None
    log[first], log[second] = log[second], log[first]
    for st in r["privacy"]["identity"]["steps"]:
        st["at"] = [second if i == first else first if i == second else i for i in st["at"]]
    actions[k], actions[k + 1] = actions[k + 1], actions[k]
    return r


def _first_swap_shown(record: dict[str, Any]) -> AuditReport:
    """The audit of the first swap of two seats' consecutive moves that is not clean."""
    for k in range(len(record["actions"]) - 1):
        swapped = _swap_moves(record, k)
        if swapped is None:
            continue
        report = audit(swapped, require_actions=True)
        if not report.clean:
            return report
    raise AssertionError("no swap of two seats' moves changed the game")


def test_two_seats_moves_swapped_make_nobody_guilty(
    game: MemoryGame, record: dict[str, Any]
) -> None:
    """Each seat signs its own counter; nobody signs the order across seats.  The host swaps
    two seats' consecutive moves, in the log and in the actions: every signature and every
    seat's counters still check.  But each step signs how much of the log its seat had seen
    (`seen`), so a reply put before the move it answered shows at once as the host's rewrite,
    naming nobody.  In a record of the format before that (/4), some swaps commute (the same
    game: clean); the first that does not makes the second seat answer a move not yet made —
    an illegal move in the host's order, which must not make that seat guilty."""
    report = _first_swap_shown(record)
    blames_the_record_only(report)
    assert any("before what their seat had seen" in f.what for f in report.faults), report.faults

    _as_format_4(game, record)
    report = _first_swap_shown(record)
    blames_the_record_only(report)
    assert any("illegal in the order the host accepted it" in f.what for f in report.faults)
    # One fault per kind, not one per bout that followed the swap.
    assert len([f for f in report.faults if "does not follow the rules" in f.what]) <= 1


# --- older formats ---------------------------------------------------------------------------


def test_a_record_rewritten_to_the_format_without_proofs_says_so(record: dict[str, Any]) -> None:
    """A /4 record relabelled /2 (no proofs of shuffle, no identity section): still audited,
    and the report says it checked neither who played nor the shuffles by their proofs."""
    record["privacy"]["format"] = "localdurak-privacy/2"
    report = audit(record, require_actions=True)
    assert report.clean, report.faults
    assert any("who played" in u for u in report.unchecked)
    assert any("shuffles by their proofs" in u for u in report.unchecked)


def test_a_first_format_transcript_is_refused_saying_why(
    tmp_path: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    record["privacy"]["format"] = "localdurak-privacy/1"
    path = tmp_path / "old.json"
    path.write_text(json.dumps(record))
    assert main(["audit", str(path)]) == 2
    err = capsys.readouterr().err
    assert "localdurak-privacy/1" in err and "cannot be replayed by this version" in err


def test_an_honest_key_reveal_replaced_by_a_wrong_key_names_nobody(record: dict[str, Any]) -> None:
    """The host writes a wrong key in seat 1's reveal (a guilty-looking seat: its key does not
    match its commitment).  Seat 1 never signed that: its key is reported missing, and seat 1
    is not named."""
    (reveal,) = [m for m in record["privacy"]["log"] if m["kind"] == "key" and m["seat"] == 1]
    reveal["key"] = "01" + "00" * 31
    report = audit(record, require_actions=True)
    blames_the_record_only(report)
    assert report.missing_keys == (1,)
    assert any("identity signature" in f.what for f in report.faults)


# --- refusals the host claims ------------------------------------------------------------------


def _cut_the_winners_last_moves(record: dict[str, Any], *, envelopes: bool) -> int:
    """The host deletes the winner's last two signed moves and every move after them (steps,
    log, actions), claims it refused them, and writes the winner down as forfeiting, the durak
    (a forfeit as the host tells it).  ``envelopes``: the refusals carry the seats' real signed
    steps (what an honest refusal record carries); else the bare [seat, n] claims."""
    p = record["privacy"]
    ident = p["identity"]
    winner = _not_durak(record)
    steps = ident["steps"]
    moves = [k for k, s in enumerate(steps) if s["step"] in ("play", "act")]
    first = [k for k in moves if steps[k]["seat"] == winner][-2]
    cut = [s for s in steps[first:] if s["step"] in ("play", "act")]
    start = steps[first]["at"][0]
    gone = {i for s in cut for i in s["at"]}
    old = p["log"]
    remap: dict[int, int] = {}
    log: list[Any] = []
    for i, m in enumerate(old):
        if i >= start and (i in gone or m["kind"] in ("refill", "return")):
            continue
        remap[i] = len(log)
        log.append(m)
    p["log"] = log
    kept = steps[:first] + [s for s in steps[first:] if s not in cut]
    for s in kept:
        s["at"] = [remap[i] for i in s["at"]]
    ident["steps"] = kept
    record["actions"] = record["actions"][: sum(1 for k in moves if k < first)]
    claims: list[Any] = []
    for s in cut:
        if envelopes:
            body = [old[i] for i in s["at"]]
            env = {"step": s["step"], "sig": s["sig"], "body": body, "at": start}
            claims.append([s["seat"], s["n"], env | {"seen": s["seen"]}])
        else:
            claims.append([s["seat"], s["n"]])
    ident["refused"] = claims
    record["forfeit"] = winner
    record["result"] = {"durak": [winner], "draw": False, "pogony": 0}
    return winner


@pytest.mark.parametrize("envelopes", [False, True], ids=["bare claims", "with the steps"])
def test_the_winners_last_moves_deleted_as_refused_flip_the_durak_is_shown(
    record: dict[str, Any], envelopes: bool
) -> None:
    """The host deletes the winner's last signed moves and everything after, lists them as
    refused, and writes the winner as the durak who forfeited: a refusal claimed without the
    step it refused, or whose step was legal where it was refused, is the record's fault."""
    _cut_the_winners_last_moves(record, envelopes=envelopes)
    report = audit(record, require_actions=True)
    blames_the_record_only(report)
    assert not report.clean
    what = "not justified" if envelopes else "cannot be checked"
    assert any(what in f.what and "refused" in f.what for f in report.faults), report.faults


def test_honest_refusals_of_moves_that_lost_a_race_audit_clean() -> None:
    """Three seats act at once on the same view (as players on their own screens do); the host
    accepts the first and refuses those the first made illegal.  Each refusal carries its
    signed step, the audit replays it where it came: justified, the record is clean."""
    from localdurak.protocol.errors import RemoteProtocolError

    with mock.patch("os.urandom", random.Random(11).randbytes):
        g = MemoryGame(3, Rules(deck=24), seed=11)
        g.deal()
        assert g.host.game is not None
        for _ in range(3000):
            if g.host.game.result is not None:
                break
            sent = []
            for p in g.seats:
                view = p.view() if p.hand_complete() else None
                action = g.bots[p.seat].choose(view) if view is not None else None
                if action is not None:
                    sent.append((p, p.act(action)))
            assert sent, "nobody can act"
            # Sent as they were signed; the host takes them in its order (a seat's own steps
            # arrive in the order it signed them, as over its one connection).
            g.queue += [(p.seat, signed) for p, signed in sent]
            while g.queue:
                seat, signed = g.queue[0]
                try:
                    g.pump_one()
                except RemoteProtocolError:
                    g.seats[seat].refused(signed.n)
        assert g.host.game.result is not None
        g.pump()
    record = json.loads(json.dumps(g.record()))  # as the host writes it
    claimed = record["privacy"]["identity"]["refused"]
    assert claimed and all(len(c) == 3 for c in claimed), claimed
    report = audit(record, require_actions=True)
    assert report.clean, report.faults


# --- the host's word about when a refused step came ---------------------------------------------


def test_deleted_moves_placed_after_a_later_step_of_their_seat_are_shown(
    record: dict[str, Any],
) -> None:
    """The host deletes the winner's last moves and all after them, and claims it refused them
    — placed after a later step of the same seat (its key reveal), where a step would have been
    refused by its counter whatever it was (it came after one its seat signed later).  The
    seat signed its steps under the rule that the host takes them in the order it signed them
    (its counter): such a placement is the host's, the record was altered — naming nobody."""
    _cut_the_winners_last_moves(record, envelopes=True)
    ident = record["privacy"]["identity"]
    end = len(record["privacy"]["log"])
    for claim in ident["refused"]:
        claim[2]["at"] = end  # after every seat's key reveal, a later step of the same seat
    report = audit(record, require_actions=True)
    blames_the_record_only(report)
    assert any("order" in f.what and "refused" in f.what for f in report.faults), report.faults


def test_a_seat_that_signs_two_steps_with_one_counter_is_named() -> None:
    """A seat signs a second, different step under a counter whose step the host accepted (an
    equivocation: it could show one step to one party, another to another).  The host refuses
    it as a replay and keeps it as evidence; the audit names that seat — its two signatures
    are the proof — and nobody else."""
    from localdurak.protocol.errors import Replayed
    from localdurak.protocol.table.common import Signed

    with mock.patch("os.urandom", random.Random(5).randbytes):
        g = MemoryGame(2, Rules(deck=24), seed=5)
        g.deal()
        for _ in range(6):
            assert g.step()
        seat = g.seats[1]
        mine = [st for st in g.host.steps if st["seat"] == 1]
        last, nonce = mine[-1], mine[0]
        body = [message_from_json(g.host.privacy.t.log[i].to_json()).to_dict() for i in nonce["at"]]
        sig = g.keys[1].sign(action_payload(seat.bound, 1, last["n"], nonce["step"], body))
        with pytest.raises(Replayed):
            g.host.receive(1, Signed(seat.game_id, last["n"], nonce["step"], body, sig).command(0))
        g.play_out()
    record = json.loads(json.dumps(g.record()))
    report = audit(record, require_actions=True)
    assert report.guilty == (1,), report.faults
    assert any(f"counter #{last['n']}" in f.what for f in report.faults), report.faults


def _as_format_4(game: MemoryGame, record: dict[str, Any]) -> None:
    """``record`` as a host of the format before ordered steps wrote it: every step and every
    refused step signed by its seat under the older domain, the format /4."""
    from localdurak.protocol.signing import UNORDERED_DOMAIN

    p = record["privacy"]
    p["format"] = "localdurak-privacy/4"
    ident = p["identity"]
    digest = ident_digest(ident)
    for st in ident["steps"]:
        st.pop("seen", None)
        body = [message_from_json(p["log"][i]).to_dict() for i in st["at"]]
        payload = action_payload(
            digest, st["seat"], st["n"], st["step"], body, domain=UNORDERED_DOMAIN
        )
        st["sig"] = game.keys[st["seat"]].sign(payload).hex()
    for seat, n, env in (r for r in ident["refused"] if len(r) == 3):
        env.pop("seen", None)
        body = [message_from_json(m).to_dict() for m in env["body"]]
        payload = action_payload(digest, seat, n, env["step"], body, domain=UNORDERED_DOMAIN)
        env["sig"] = game.keys[seat].sign(payload).hex()


def ident_digest(ident: dict[str, Any]) -> bytes:
    return setup_digest(
        game=bytes.fromhex(ident["game"]),
        number=ident["number"],
        rules=ident["rules"],
        dealer=ident["dealer"],
        names=ident["names"],
        keys=[bytes.fromhex(k) for k in ident["keys"]],
        previous=ident["previous"],
    )


def test_a_record_of_the_format_before_ordered_steps_still_audits(
    game: MemoryGame, record: dict[str, Any]
) -> None:
    """A /4 record (its seats signed under the older domain, no rule about the order in which
    the host took their steps) audits as before — clean, the same moves deleted and placed
    after a later step pass as refused — and says that the order is not proven.  A /5 record
    relabelled /4 fails every signature: the rule cannot be dropped by rewriting the format."""
    relabelled = copy.deepcopy(record)
    relabelled["privacy"]["format"] = "localdurak-privacy/4"
    report = audit(relabelled, require_actions=True)
    blames_the_record_only(report)
    assert any("identity signature" in f.what for f in report.faults), report.faults

    old = copy.deepcopy(record)
    _as_format_4(game, old)
    report = audit(old, require_actions=True)
    assert report.clean, report.faults
    assert any("order of each seat's steps" in u for u in report.unchecked), report.unchecked

    _cut_the_winners_last_moves(record, envelopes=True)
    end = len(record["privacy"]["log"])
    for claim in record["privacy"]["identity"]["refused"]:
        claim[2]["at"] = end
    _as_format_4(game, record)
    report = audit(record, require_actions=True)
    assert report.clean, report.faults  # judged as before: the host's word
    assert any("order of each seat's steps" in u for u in report.unchecked), report.unchecked


def test_a_corrupt_copy_of_a_step_then_sent_whole_leaves_the_record_clean() -> None:
    """A step arrives with a broken signature (a corrupt copy, or one made in the seat's name):
    refused, only its counter can be noted (a bare claim: nothing shows who sent it).  The
    seat's real step under that counter then arrives (a resend) and is accepted: the bare claim
    explains no gap and hides nothing, so the record is clean."""
    import dataclasses

    from localdurak.protocol.errors import AuthFailed

    with mock.patch("os.urandom", random.Random(5).randbytes):
        g = MemoryGame(2, Rules(deck=24), seed=5)
        g.deal()
        for _ in range(4):
            assert g.step()
        for seat in g.seats:
            view = seat.view()
            action = g.bots[seat.seat].choose(view) if view is not None else None
            if action is not None:
                break
        assert action is not None, "nobody can act"
        signed = seat.act(action)
        with pytest.raises(AuthFailed):
            g.host.receive(seat.seat, dataclasses.replace(signed, sig=bytes(64)).command(0))
        assert g.host.refused_steps[-1][:2] == (seat.seat, signed.n)
        g.send(seat.seat, [signed])
        g.pump()
        g.play_out()
    report = audit(json.loads(json.dumps(g.record())), require_actions=True)
    assert report.clean, report.faults


def test_a_refusal_placed_before_what_its_seat_had_seen_is_shown(record: dict[str, Any]) -> None:
    """The host deletes the winner's last moves and claims it refused them *earlier* than they
    came, just before the last message their seat had seen when it signed them (where a cover,
    say, is refused: the attack it covers was not made yet).  Each step signs how much of the
    log its seat had seen: such a placement is the record's fault, naming nobody."""
    _cut_the_winners_last_moves(record, envelopes=True)
    claims = record["privacy"]["identity"]["refused"]
    for claim in claims:
        claim[2]["at"] = max(claim[2]["seen"] - 1, 0)
    report = audit(record, require_actions=True)
    blames_the_record_only(report)
    assert any("signed it having seen" in f.what for f in report.faults), report.faults


# --- a refusal given back to a host that lost it (a power cut took the journal's tail) ------


def test_a_refusal_given_back_is_taken_only_where_it_fits_and_then_audits_clean() -> None:
    """A seat gives back its step an earlier host refused (docs/protocol.md §7, "Refusals
    given back"): the host records it again (and the record audits clean, the gap in the
    seat's counter explained); it takes none that would hide a move it accepted, carries
    another seat's or no signature, or sits where the step cannot have come — a gap it
    cannot explain stays a fault naming nobody, never a seat."""
    from localdurak.game.actions import Action, Do
    from localdurak.protocol.errors import RemoteProtocolError

    with mock.patch("os.urandom", random.Random(13).randbytes):
        g = MemoryGame(2, Rules(deck=24), seed=13, names=NAMES)
        g.deal()
        for _ in range(4):
            assert g.step()
        h = g.host
        assert h.game is not None
        seat = next(s for s in range(2) if s != h.game.defender)
        p = g.seats[seat]
        refused = p.sign([p.player.act(Action(seat, Do.TAKE).to_dict())])
        at = len(h.privacy.t.log)
        with pytest.raises(RemoteProtocolError):
            h.receive(seat, refused.command(0))
        p.refused(refused.n)
        entry = h.refusal(seat, refused.n)
        assert entry is not None and entry[2]["at"] == at
        h.refused_steps.clear()  # what a power cut took with the journal's last lines
        g.play_out()
        cmd = refused.command(0)
        accepted = next(st for st in h.steps if st["seat"] == seat and st["n"] > refused.n)
        log_end = len(h.privacy.t.log)
        # Not taken: a counter the host accepted a step under (it would hide the move), a
        # step under another seat's name or with its signature broken, a place before what
        # the seat had seen, beyond the log, or after the seat's next step.
        wrong = [
            (seat, dataclasses.replace(cmd, n=accepted["n"]), at),
            (1 - seat, cmd, at),
            (seat, dataclasses.replace(cmd, sig=bytes(64)), at),
            (seat, cmd, refused.seen - 1),
            (seat, cmd, log_end + 1),
            (seat, cmd, min(accepted["at"]) + 1),
        ]
        for s, c, where in wrong:
            assert not h.take_back_refusal(s, c, where), (s, c.n, where)
        assert h.refusal(seat, refused.n) is None
        record = json.loads(json.dumps(g.record()))
        report = audit(record, require_actions=True)
        blames_the_record_only(report)
        assert any(f"#{refused.n} are not in the record" in f.what for f in report.faults)
        # Given back as it was: taken once, the record clean again.
        assert h.take_back_refusal(seat, cmd, at)
        assert not h.take_back_refusal(seat, cmd, at)  # it holds it now
        # (marked as given back: the seat's word, records.md "back")
        assert h.refusal(seat, refused.n) == [*entry[:2], {**entry[2], "back": True}]
    record = json.loads(json.dumps(g.record()))
    report = audit(record, require_actions=True)
    assert report.clean, report.faults
