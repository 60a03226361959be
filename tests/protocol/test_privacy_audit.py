"""Security review of card privacy: the audit checks the record's actions against what the seats
signed (promise 5: the host orders, it does not forge), a clean verdict cannot be had by
deleting the actions, and the protocol refuses a play whose signed action names another card
or a card action sent without its proof."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from localdurak.cli.main import main
from localdurak.game.actions import Action, GameResult
from localdurak.game.engine import Game
from localdurak.game.rules import Rules
from localdurak.protocol.errors import RemoteProtocolError
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.privacy.cardpoints import CARD_POINTS
from localdurak.protocol.privacy.messages import Answer, Play, Refill
from localdurak.protocol.privacy.proofs import dleq_prove, schnorr_prove
from localdurak.protocol.privacy.schedule import Setup
from localdurak.protocol.privacy.transcript import signed_action
from tests.support.privacy_play import rngs, table
from tests.support.privacy_sim import MemoryTable, dealt_deck, play_engine_game


def _engine_game(seed: int, forge: Any = None) -> tuple[MemoryTable, Game]:
    rules = Rules(deck=24)
    tab = MemoryTable(Setup.from_rules(rules, 3, 0), rngs(3, seed))
    if forge is not None:
        forge(tab)
    tab.start()
    game = play_engine_game(tab, rules, random.Random(seed))
    tab.reveal()
    return tab, game


def test_review_an_action_the_seat_did_not_sign_is_named_by_the_audit() -> None:
    # The host's engine applies (and records) "pass" where the seat signed something else:
    # every live check passes (the signature is good, the cards are right), the audit must not.
    forged: list[dict[str, Any]] = []

    def forge(tab: MemoryTable) -> None:
        act = tab.act

        def signed_otherwise(seat: int, action: Any) -> None:
            if not forged and action["do"] == "pass":
                forged.append(action)
                action = {**action, "do": "take"}  # what the seat really signed
            act(seat, action)

        tab.act = signed_otherwise  # type: ignore[method-assign]

    tab, game = _engine_game(41, forge)
    assert forged
    report = audit(tab.record(game))
    assert not report.clean
    assert any("signed" in f.what for f in report.faults), report.faults


def test_review_deleting_the_actions_does_not_give_a_clean_verdict(tmp_path: Path) -> None:
    tab, game = _engine_game(42)
    record = tab.record(game)
    assert audit(record).clean
    for gone in ({k: v for k, v in record.items() if k != "actions"}, dict(record, actions=[])):
        report = audit(gone, require_actions=True)  # what `localdurak audit` asks
        assert not report.clean
        assert any("actions" in f.what for f in report.faults)
        assert audit(gone).clean  # a transcript audited without the engine's actions
    # The command line, on a game record file with its actions deleted: exit 1, not "clean".
    path = tmp_path / "game.json"
    path.write_text(json.dumps(dict(record, actions=[])))
    assert main(["audit", str(path)]) == 1
    # A record with actions cut short is named too.
    short = dict(record, actions=record["actions"][:-3])
    assert not audit(short).clean


def test_review_a_damaged_record_deck_is_a_fault_not_a_crash() -> None:
    tab, game = _engine_game(43)
    record = dict(tab.record(game), deck=5)
    assert not audit(record).clean


def test_review_a_play_must_be_the_card_its_signed_action_names() -> None:
    tab = table(3, 36, seed=44)
    tab.start()
    p0 = tab.players[0]
    held, other = p0.cards()[:2]
    position = next(p for p, c in p0.hand.items() if c == held)
    _, z = p0.t.position_value(position)
    # A valid proof for the card held, under an action that plays another card.
    action = {"seat": 0, "do": "attack", "cards": [str(other)]}
    ctx = p0.t.ctx(0, "play", (position,), signed_action(0, action))
    proof = dleq_prove(lambda n: b"\x06" * n, p0.secret, p0.key, CARD_POINTS[held], z, ctx)
    with pytest.raises(RemoteProtocolError, match="does not name") as e:
        tab.host.receive(0, Play(0, 0, position, int(held), False, action, proof))
    assert e.value.seat == 0


def test_review_a_card_action_without_its_proof_is_refused() -> None:
    tab = table(3, 36, seed=45)
    tab.start()
    p0 = tab.players[0]
    card = p0.cards()[0]
    action = {"seat": 0, "do": "attack", "cards": [str(card)]}
    ctx = p0.t.ctx(0, "act", (), signed_action(0, action))
    from localdurak.protocol.privacy.messages import Act

    proof = schnorr_prove(lambda n: b"\x07" * n, p0.secret, p0.key, ctx)
    with pytest.raises(RemoteProtocolError, match="proof") as e:
        tab.host.receive(0, Act(0, 0, action, proof))
    assert e.value.seat == 0


def test_review_R_F2_a_later_game_audits_clean_with_its_previous_result() -> None:
    # A later game's first attacker follows R-F2 (at the previous durak), not R-F1: the audit
    # must deal with the record's "previous" or it names an innocent first attacker.
    rules = Rules(deck=36)
    previous = GameResult((1,), False, 0)
    for seed in range(50, 80):
        tab = MemoryTable(Setup.from_rules(rules, 3, 1, lowest_trump=False), rngs(3, seed))
        tab.start()
        deck = dealt_deck(tab)
        if (
            Game.deal(rules, 3, 1, deck).attacker
            != Game.deal(rules, 3, 1, deck, previous=previous).attacker
        ):
            break
    else:
        raise AssertionError("no deal where R-F1 and R-F2 differ")
    game = play_engine_game(tab, rules, random.Random(seed), previous=previous)
    tab.reveal()
    record = dict(tab.record(game), previous=previous.to_dict())
    report = audit(record)
    assert report.clean, report.faults


def test_review_a_false_no_trump_claim_names_the_liar_and_makes_nobody_attack() -> None:
    liar: list[int] = []

    def tamper(sender: int, msg: Any) -> Any:
        if isinstance(msg, Answer) and msg.position >= 0 and not liar:
            liar.append(sender)
            p = tab.players[sender]
            ctx = p.t.ctx(sender, f"not-me/{msg.rank}")
            proof = schnorr_prove(lambda n: b"\x03" * n, p.secret, p.key, ctx)
            return Answer(sender, msg.rank, -1, -1, proof)
        return msg

    tab = table(3, 36, seed=2, tamper=tamper)
    # The claim carries no proof that the liar holds no such trump (notme.py): refused
    # at once, so no seat is made first attacker by it; the signed claim, kept in the log,
    # names the liar in the audit, and nobody else.
    with pytest.raises(RemoteProtocolError) as e:
        tab.start()
    assert liar and e.value.seat == liar[0]
    assert tab.host.t.first_attacker is None
    tab.queue.clear()
    tab.reveal()
    report = audit(tab.record())
    assert report.guilty == (liar[0],), report.faults


def test_review_a_refusal_in_the_record_is_the_hosts_word_not_a_verdict() -> None:
    # "refused" is written by the host alone and its messages were never relayed: a host that
    # adds an entry must not get an honest seat named guilty.
    tab, game = _engine_game(46)
    record = tab.record(game)
    record["privacy"]["refused"].append(
        {"seat": 1, "reason": "played a card it was not dealt", "message": None}
    )
    report = audit(record)
    assert not report.clean  # the refusal is reported...
    assert 1 not in report.guilty  # ...as the host's word, not as seat 1's proven fault
    assert any("seat 1" in str(f) and "host" in str(f) for f in report.faults)


def test_review_a_bad_refill_is_the_hosts_fault_not_seat_0s() -> None:
    # Refill and Return are the host's messages; they carry seat 0 for the format's sake, and
    # the host need not sit at seat 0 (a host that does not play): seat 0 must not be named.
    rules = Rules(deck=24)
    tab = MemoryTable(Setup.from_rules(rules, 3, 0), rngs(3, 8))
    tab.start()
    game = Game.deal(rules, 3, 0, dealt_deck(tab))
    first = game.legal_actions(game.attacker or 0)[0]
    tab.play(first.seat, first.cards[0], first.to_dict())
    game.apply(first)
    defender = game.defender or 0
    take = {"seat": defender, "do": "take"}
    tab.act(defender, take)
    game.apply(Action.from_dict(take))
    tab.end_bout([1, 1], None)  # not the bout's refill, and nobody "took"
    tab.reveal()
    report = audit(tab.record(game))
    assert any("R-B12" in f.what for f in report.faults)
    assert 0 not in report.guilty, report.faults
    # Live, a player's refusal of such a refill names no seat either.
    p = tab.players[1]
    p.expect_refill([2], None)
    with pytest.raises(RemoteProtocolError) as e:
        p.receive(Refill(0, len(p.t.schedule.batches), (1,), -1, ()))
    assert e.value.seat is None


def test_review_a_card_taken_by_another_seat_cannot_be_played_by_name() -> None:
    tab = table(2, 24, seed=47)
    tab.start()
    first = tab.host.t.first_attacker
    assert first is not None
    a, d = first.seat, 1 - first.seat
    card = tab.players[a].cards()[0]
    tab.play(a, card, {"seat": a, "do": "attack", "cards": [str(card)]})
    tab.act(d, {"seat": d, "do": "take"})
    tab.end_bout([a], d)  # R-B8: the defender took the card; the attacker draws one
    assert tab.host.t.taken[card] == d
    # The attacker plays it again by name, signed with its own key: refused (d holds it).
    p = tab.players[a]
    action = {"seat": a, "do": "attack", "cards": [str(card)]}
    ctx = p.t.ctx(a, "play", (), signed_action(5, action))
    proof = schnorr_prove(lambda n: b"\x08" * n, p.secret, p.key, ctx)
    with pytest.raises(RemoteProtocolError, match="did not take") as e:
        tab.host.receive(a, Play(a, 5, -1, int(card), False, action, proof))
    assert e.value.seat == a
    # Nor from the position it was dealt at (played once already).
    position = next(
        q
        for q, s in tab.host.t.schedule.holder.items()
        if s == a and q in tab.host.t.played_positions
    )
    with pytest.raises(RemoteProtocolError):
        tab.host.receive(a, Play(a, 6, position, int(card), False, action, proof))
    # The defender can: it is public in its hand.
    tab.play(d, card, {"seat": d, "do": "attack", "cards": [str(card)]})
    assert card in tab.host.t.on_table


def test_review_a_message_the_host_forged_into_the_log_does_not_name_its_seat() -> None:
    # The host writes the log.  A message in seat 1's name whose proof does not verify could be
    # anybody's: the audit reports it (the record is not clean) without naming seat 1 guilty.
    # A message seat 1 really signed and that breaks the protocol still names seat 1.
    tab, game = _engine_game(48)
    record = tab.record(game)
    log = record["privacy"]["log"]
    at = next(i for i, m in enumerate(log) if m["kind"] in ("play", "act"))
    theirs = next(p for p, s in tab.host.t.schedule.holder.items() if s == 2)
    forged = Play(1, 999, theirs, 0, False, {"seat": 1, "do": "attack", "cards": ["AS"]}, bytes(64))
    for fake in (forged.to_json(), dict(log[at], seat=1, index=998, proof="11" * 64)):
        damaged = json.loads(json.dumps(record))
        damaged["privacy"]["log"].insert(at, fake)
        report = audit(damaged)
        assert not report.clean
        assert report.guilty == (), report.faults
        assert any("seat 1" in f.what for f in report.faults)
    # Seat 1's own signed message, replayed by the host later in the log: a copy, not seat 1's.
    mine = next(m for m in log[at:] if m["kind"] in ("play", "act") and m["seat"] == 1)
    damaged = json.loads(json.dumps(record))
    damaged["privacy"]["log"].insert(len(log) - 3, mine)
    report = audit(damaged)
    assert not report.clean and report.guilty == (), report.faults


def test_review_a_layer_removal_altered_in_the_log_does_not_name_its_stripper() -> None:
    tab = table(3, 36, seed=49)
    tab.start()
    tab.reveal()
    record = json.loads(json.dumps(tab.record()))
    assert audit(record).clean
    log = record["privacy"]["log"]
    i = next(i for i, m in enumerate(log) if m["kind"] == "strip" and m["seat"] == 2)
    outputs = log[i]["outputs"]
    log[i]["outputs"] = (
        [outputs[-1], *outputs[:-1]] if len(outputs) > 1 else [log[i - 1]["outputs"][0]]
    )
    report = audit(record)
    assert not report.clean
    assert 2 not in report.guilty, report.faults
