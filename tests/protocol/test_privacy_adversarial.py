"""Cheaters against the card-privacy protocol: each is refused on the spot or named by the
audit (privacy.md "Pitfalls", the security review's adversarial cases)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import nacl.bindings as nb
import pytest

from localdurak.protocol.errors import LocalProtocolError, RemoteProtocolError
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.privacy.cardpoints import CARD_POINTS
from localdurak.protocol.privacy.group import GROUP, T2
from localdurak.protocol.privacy.messages import (
    Act,
    Answer,
    KeyReveal,
    Message,
    Play,
    Refill,
    Shuffle,
    Strip,
)
from localdurak.protocol.privacy.proofs import Context, batch_dleq_prove, dleq_prove, schnorr_prove
from localdurak.protocol.privacy.transcript import signed_action
from tests.support.privacy_play import slot_dealt_at, table
from tests.support.privacy_sim import MemoryTable


def torsion(p: bytes) -> bytes:
    return bytes(nb.crypto_core_ed25519_add(p, T2))


def identity(p: bytes) -> bytes:
    return (1).to_bytes(32, "little")


def non_canonical(p: bytes) -> bytes:
    return (2**255 - 19 + 2).to_bytes(32, "little")  # y = p + 2: never a canonical encoding


def cheat_on_shuffle(seat: int, change: Callable[[list[bytes]], None]) -> Callable[..., Message]:
    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Shuffle) and sender == seat:
            deck = list(msg.deck)
            change(deck)
            return replace(msg, deck=tuple(deck))
        return msg

    return tamper


def finish_with_audit(tab: MemoryTable) -> Any:
    tab.queue.clear()
    tab.reveal()
    return audit(tab.record())


@pytest.mark.parametrize("mark", [torsion, identity, non_canonical])
def test_bad_point_in_a_shuffle_refused_and_the_shuffler_named(mark: Callable[..., bytes]) -> None:
    def change(deck: list[bytes]) -> None:
        deck[5] = mark(deck[5])

    # The host checks every point of a shuffle stage before relaying it.
    tab = table(3, 36, tamper=cheat_on_shuffle(1, change))
    with pytest.raises(RemoteProtocolError) as e:
        tab.start()
    assert e.value.seat == 1
    assert tab.host.refused[-1]["seat"] == 1
    assert "seat 1" in str(finish_with_audit(tab).faults[0])

    # A host that relays it unchecked: the next shuffler's noclamp multiplication refuses it.
    tab = table(3, 36, tamper=cheat_on_shuffle(1, change), defer_verification=True)
    with pytest.raises(RemoteProtocolError) as e:
        tab.start()
    assert e.value.seat == 1


def test_torsion_marked_strip_output_refused() -> None:
    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Strip) and sender == 2:
            return replace(msg, outputs=(torsion(msg.outputs[0]), *msg.outputs[1:]))
        return msg

    tab = table(3, 36, tamper=tamper)
    with pytest.raises(RemoteProtocolError) as e:
        tab.start()
    assert e.value.seat == 2


def test_duplicated_card_in_a_shuffle_refused_at_once() -> None:
    def change(deck: list[bytes]) -> None:
        deck[1] = deck[0]

    tab = table(4, 36, tamper=cheat_on_shuffle(2, change))
    with pytest.raises(RemoteProtocolError, match="twice") as e:
        tab.start()
    assert e.value.seat == 2


def substitute(seat: int, index: int) -> Callable[..., Message]:
    stranger = GROUP.hash_to_group(b"not a card", b"")

    def change(deck: list[bytes]) -> None:
        deck[index] = stranger  # a valid point, distinct, but no card under it

    return cheat_on_shuffle(seat, change)


@pytest.mark.parametrize("position", [0, 35])  # dealt to a hand; the bottom of the stock
def test_substituted_card_refused_at_once_and_named_by_the_audit(position: int) -> None:
    # The last shuffler; the test knows the seeds, a shuffler cannot.  Its stage is signed by
    # it but is no permutation of its input: the proof of shuffle fails, at the host, before
    # anything is dealt, wherever the slot would have landed.
    tab = table(3, 36, tamper=substitute(2, slot_dealt_at(position, 3, 36)))
    with pytest.raises(RemoteProtocolError, match="proof of shuffle") as e:
        tab.start()
    assert e.value.seat == 2
    assert tab.host.t.final_deck is None and tab.host.refused[-1]["seat"] == 2
    report = finish_with_audit(tab)
    assert report.guilty == (2,)
    assert "shuffle" in report.faults[-1].what or any(
        f.seat == 2 and "shuffle" in f.what for f in report.faults
    )


def test_strip_proof_made_with_the_wrong_key_refused() -> None:
    other = GROUP.random_scalar(lambda n: b"\x05" * n)

    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Strip) and sender == 1:
            # A consistent removal and proof, but for a key that is not seat 1's.
            inputs = tab.host.t.stages[(msg.batch, msg.owner)][-1]
            inv = GROUP.scalar_invert(other)
            outs = tuple(GROUP.mul(inv, x) for x in inputs)
            ctx = tab.host.t.ctx(1, f"strip/{msg.batch}/{msg.owner}", msg.positions)
            y = GROUP.mul_base(other)
            proof = batch_dleq_prove(lambda n: b"\x01" * n, other, y, outs, inputs, ctx)
            return replace(msg, outputs=outs, proof=proof)
        return msg

    tab = table(3, 36, tamper=tamper)
    with pytest.raises(RemoteProtocolError, match="wrong proof") as e:
        tab.start()
    assert e.value.seat == 1
    # With a host that relays first, the next stripper refuses before removing its layer.
    tab = table(3, 36, tamper=tamper, defer_verification=True)
    with pytest.raises(RemoteProtocolError, match="wrong proof") as e:
        tab.start()
    assert e.value.seat == 1


def test_play_proof_replayed_into_another_game_refused() -> None:
    # The same key, position and card, a proof made for another game's id: refused.  (Two
    # real games cannot deal the same card to the same position on purpose any more: the deal
    # order hangs on the game id, step 2b.)
    a = table(2, 24, seed=5)
    b = table(2, 24, seed=6)
    a.start()
    b.start()
    assert a.host.t.game_id is not None and a.host.t.game_id != b.host.t.game_id
    p0 = b.players[0]
    position, card = next(iter(p0.hand.items()))
    action = {"do": "attack", "cards": [str(card)]}
    _, z = b.host.t.position_value(position)
    ctx = Context(a.host.t.game_id, 0, "play", (position,), signed_action(0, action))
    proof = dleq_prove(lambda n: b"\x07" * n, p0.secret, p0.key, CARD_POINTS[card], z, ctx)
    with pytest.raises(RemoteProtocolError, match="wrong proof"):
        b.host.receive(0, Play(0, 0, position, int(card), False, action, proof))
    b.host.receive(0, p0.play(card, action))


def test_play_proof_replayed_for_another_seat_position_or_index_refused() -> None:
    tab = table(3, 36, seed=6)
    tab.start()
    p0 = tab.players[0]
    c1, c2 = p0.cards()[:2]
    msg = p0.play(c1, {"do": "attack", "cards": [str(c1)]})
    with pytest.raises(RemoteProtocolError):
        tab.host.receive(1, replace(msg, seat=1))  # seat 1 sends seat 0's proof as its own
    with pytest.raises(RemoteProtocolError):
        tab.host.receive(0, replace(msg, seat=1))  # in another seat's name
    other_position = next(p for p, c in p0.hand.items() if c == c2)
    with pytest.raises(RemoteProtocolError, match="wrong proof"):
        tab.host.receive(0, replace(msg, position=other_position))
    with pytest.raises(RemoteProtocolError, match="wrong proof"):
        tab.host.receive(0, replace(msg, action={"do": "attack", "cards": [str(c2)]}))
    tab.host.receive(0, msg)
    with pytest.raises(RemoteProtocolError, match="replay"):
        tab.host.receive(0, msg)


def test_refill_outside_the_schedule_refused_no_decryption_oracle() -> None:
    tab = table(3, 36, seed=7)
    tab.start()
    p1 = tab.players[1]
    p1.expect_refill([0, 1], None)
    # The host asks for the next stock card to go to seat 2 (to learn it): refused.
    with pytest.raises(RemoteProtocolError, match="did not schedule"):
        p1.receive(Refill(0, 1, (2, 2), -1, ()))
    assert p1.t.schedule.stock_left == 36 - 18 - 0
    # A layer removal for positions the schedule never named (the bottom of the stock).
    forged = Strip(2, 0, 0, (30, 31), (CARD_POINTS[0], CARD_POINTS[1]), bytes(64))
    with pytest.raises(RemoteProtocolError, match="does not name"):
        p1.receive(forged)
    with pytest.raises(RemoteProtocolError, match="does not name"):
        tab.host.receive(2, forged)


def test_card_not_dealt_to_the_player_refused_and_recorded() -> None:
    tab = table(3, 36, seed=8)
    tab.start()
    p0 = tab.players[0]
    foreign = tab.players[1].cards()[0]
    with pytest.raises(LocalProtocolError):
        p0.play(foreign, {"do": "attack"})
    # A cheating client forges the play: its own position, someone else's card.
    p = next(iter(p0.hand))
    _, z = p0.t.position_value(p)
    action = {"do": "attack", "cards": [str(foreign)]}
    from localdurak.protocol.privacy.transcript import signed_action

    ctx = p0.t.ctx(0, "play", (p,), signed_action(0, action))
    proof = dleq_prove(lambda n: b"\x02" * n, p0.secret, p0.key, CARD_POINTS[foreign], z, ctx)
    with pytest.raises(RemoteProtocolError, match="not the card it was dealt") as e:
        tab.host.receive(0, Play(0, 0, p, int(foreign), False, action, proof))
    assert e.value.seat == 0
    # A position that is not its own.
    theirs = next(iter(tab.players[1].hand))
    with pytest.raises(RemoteProtocolError, match="not dealt to it"):
        tab.host.receive(0, Play(0, 1, theirs, int(foreign), False, action, proof))
    report = finish_with_audit(tab)
    # Refusals are the host's word (the record cannot prove who sent a refused message):
    # listed with the seat, not a proven verdict.
    assert not report.clean and report.guilty == ()
    assert all("seat 0" in f.what and "refused" in f.what for f in report.faults)


def test_card_played_twice_refused() -> None:
    tab = table(2, 24, seed=9)
    tab.start()
    p0 = tab.players[0]
    card = p0.cards()[0]
    first = p0.play(card, {"do": "attack", "cards": [str(card)]})
    again = p0.play(card, {"do": "attack", "cards": [str(card)]})  # before the echo
    tab.host.receive(0, first)
    with pytest.raises(RemoteProtocolError, match="already played"):
        tab.host.receive(0, again)


def test_false_no_trump_claim_refused_at_once_and_named_by_the_audit() -> None:
    liar: list[int] = []

    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Answer) and msg.position >= 0:
            liar.append(sender)
            p = tab.players[sender]
            ctx = p.t.ctx(sender, f"not-me/{msg.rank}")
            proof = schnorr_prove(lambda n: b"\x03" * n, p.secret, p.key, ctx)
            return Answer(sender, msg.rank, -1, -1, proof)
        return msg

    tab = table(3, 36, seed=2, tamper=tamper)
    # A signed "not me" without its proofs (notme.py): refused at once, naming the liar.
    with pytest.raises(RemoteProtocolError, match="does not prove") as e:
        tab.start()
    assert liar  # somebody held a trump and denied it
    assert e.value.seat == liar[0]
    assert tab.host.t.first_attacker is None
    report = finish_with_audit(tab)
    assert report.guilty == (liar[0],)


def test_message_in_another_seats_name_and_a_wrong_key_reveal_refused() -> None:
    tab = table(2, 24, seed=10)
    tab.start()
    act = tab.players[0].act({"do": "pass"})
    with pytest.raises(RemoteProtocolError, match="in the name of seat 0"):
        tab.host.receive(1, act)
    with pytest.raises(RemoteProtocolError, match="not signed"):
        tab.host.receive(0, replace(act, action={"do": "take"}))
    assert isinstance(act, Act)
    with pytest.raises(RemoteProtocolError, match="not the one it committed"):
        tab.host.receive(1, KeyReveal(1, GROUP.random_scalar(lambda n: b"\x04" * n)))
    # Seat 1 never reveals: the audit says its key is missing, and judges nobody for it (the
    # log cannot tell a key withheld from one the record left out; privacy.md "The record and the
    # audit").
    tab.queue.clear()
    tab.to_host(0, [tab.players[0].reveal()])
    tab.run()
    report = audit(tab.record())
    assert report.missing_keys == (1,)
    assert any(
        f.seat is None and "seat 1's key is not in the record" in f.what for f in report.faults
    )
    assert 1 not in report.guilty


def test_host_cannot_speak_in_a_players_name() -> None:
    tab = table(3, 36, seed=13)
    tab.start()
    p1 = tab.players[1]
    # The host relays an action in seat 1's name that seat 1 never sent...
    forged = Act(1, 99, {"do": "take"}, bytes(64))
    with pytest.raises(RemoteProtocolError, match="did not send"):
        p1.receive(forged)
    # ...and the other players refuse it for its signature.
    with pytest.raises(RemoteProtocolError, match="not signed"):
        tab.players[2].receive(forged)
