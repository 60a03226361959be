"""R-F1's "not me", proven (privacy/notme.py; privacy.md "Not me", proven): a seat that answers
"not me" for the trump asked proves, for every card the deal gave it face down, that the card is not
that trump.  So the first attacker is right from the start: a false "not me" is refused at
once, naming the liar (live and in the audit), and a later play of a trump a seat claimed
not to hold is refused live, naming it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from localdurak.game.cards import Card
from localdurak.protocol.errors import Cheated, RemoteProtocolError
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.privacy.cardpoints import CARD_POINTS
from localdurak.protocol.privacy.group import GROUP
from localdurak.protocol.privacy.messages import Answer, Message
from localdurak.protocol.privacy.notme import PROOF_BYTES, not_me_prove, not_me_verify
from localdurak.protocol.privacy.proofs import Context, schnorr_prove
from localdurak.protocol.privacy.roles import Player
from tests.support.privacy_play import table
from tests.support.privacy_sim import unwire

RNG = random.Random(3).randbytes
CTX = Context(b"\x07" * 32, 1, "not-me/6", (4,))


def test_a_true_not_me_verifies_and_a_false_one_cannot_be_made() -> None:
    k = GROUP.random_scalar(RNG)
    y = GROUP.mul_base(k)
    m, other = CARD_POINTS[4], CARD_POINTS[9]
    km = GROUP.mul(k, m)
    z = GROUP.mul(k, other)  # the seat holds another card there
    proof = not_me_prove(RNG, k, y, km, m, z, CTX)
    assert len(proof) == PROOF_BYTES and not_me_verify(y, m, z, proof, CTX)
    # It holds M there: no proof can be made, and a proof moved there fails.
    with pytest.raises(ValueError):
        not_me_prove(RNG, k, y, km, m, km, CTX)
    assert not not_me_verify(y, m, km, proof, CTX)
    # Bound to the context (game, seat, rank, position), the key and the card.
    for ctx in (
        Context(b"\x08" * 32, 1, "not-me/6", (4,)),
        Context(CTX.game_id, 1, "not-me/7", (4,)),
        Context(CTX.game_id, 1, "not-me/6", (5,)),
        Context(CTX.game_id, 2, "not-me/6", (4,)),
    ):
        assert not not_me_verify(y, m, z, proof, ctx)
    assert not not_me_verify(GROUP.mul_base(GROUP.random_scalar(RNG)), m, z, proof, CTX)
    assert not not_me_verify(y, CARD_POINTS[5], z, proof, CTX)
    # D = the identity says "I hold it"; damaged proofs are false, never exceptions.
    assert not not_me_verify(y, m, z, (1).to_bytes(32, "little") + proof[32:], CTX)
    for i in range(0, PROOF_BYTES, 16):
        assert not not_me_verify(y, m, z, proof[:i] + bytes([proof[i] ^ 1]) + proof[i + 1 :], CTX)
    assert not not_me_verify(y, m, z, proof[:-1], CTX)


def false_not_me(p: Player, msg: Answer) -> Answer:
    """The best a liar holding the trump can send: its signature, a true proof for every other
    position, and for the one holding the card the proof of another position."""
    t = p.t
    ctx = t.ctx(p.seat, f"not-me/{msg.rank}")
    parts = [schnorr_prove(RNG, p.secret, p.key, ctx)]
    m = CARD_POINTS[msg.card]
    km = GROUP.mul(p.secret, m)
    positions = t.hidden_deal_positions(p.seat)
    honest = {}
    for q in positions:
        _, z = t.position_value(q)
        if z != km:
            honest[q] = not_me_prove(RNG, p.secret, p.key, km, m, z, t.ctx(p.seat, ctx.step, (q,)))
    spare = next(iter(honest.values()))
    parts += [honest.get(q, spare) for q in positions]
    return Answer(p.seat, msg.rank, -1, -1, b"".join(parts))


def lying_table(seed: int = 2, **kw: Any) -> tuple[Any, list[int]]:
    liar: list[int] = []

    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Answer) and msg.position >= 0 and not liar:
            liar.append(sender)
            return false_not_me(tab.players[sender], msg)
        return msg

    tab = table(3, 36, seed=seed, tamper=tamper, **kw)
    return tab, liar


def test_a_false_not_me_is_refused_at_once_naming_the_liar_live_and_in_the_audit() -> None:
    tab, liar = lying_table()
    with pytest.raises(Cheated, match="false 'not me'") as e:
        tab.start()
    assert liar and e.value.seat == liar[0]
    assert tab.host.t.first_attacker is None  # R-F1 did not settle on a wrong first attacker
    tab.queue.clear()
    tab.reveal()
    report = audit(tab.record())
    assert report.guilty == (liar[0],), report.faults


def test_every_seat_refuses_a_false_not_me_itself() -> None:
    # The host relays the answers unchecked (a host that colludes): each honest seat checks
    # the claim itself when the host broadcasts the rank's answers.
    tab, liar = lying_table(seed=2)

    # Skip the host's own check of the liar's answer: accept it unverified into its log.
    real = tab.host.t._check_not_me

    def host_skips_the_liar(seat: int, *rest: Any) -> None:
        if seat not in liar:
            real(seat, *rest)

    tab.host.t._check_not_me = host_skips_the_liar  # type: ignore[method-assign]
    blamed = []
    for p in tab.players:
        tab.to_host(p.seat, p.start())
    while tab.queue:
        direction, seat, data = tab.queue.popleft()
        msg = unwire(data)
        try:
            if direction == "to_host":
                tab.to_players(tab.host.receive(seat, msg))
            else:
                tab.to_host(seat, tab.players[seat].receive(msg))
        except RemoteProtocolError as e:
            blamed.append((seat, e.seat))
    assert liar
    honest = [s for s in range(3) if s != liar[0]]
    assert sorted(blamed) == [(s, liar[0]) for s in honest]


def test_a_play_of_a_trump_claimed_not_held_is_refused_naming_the_liar() -> None:
    # Defence in depth: a "not me" accepted unproven (a record of the old format) and then a
    # play of that very trump from the deal is refused live.
    tab = table(3, 36, seed=2)
    tab.start()
    t = tab.host.t
    assert t.trump_suit is not None and t.first_attacker is not None
    # Find a seat holding a trump dealt face down, and pretend it said "not me" for it.
    for p in tab.players:
        trumps = [
            (q, c)
            for q, c in p.hand.items()
            if c.suit == t.trump_suit and q in t.hidden_deal_positions(p.seat)
        ]
        if trumps:
            break
    else:
        raise AssertionError("nobody was dealt a trump")
    _, card = trumps[0]
    t.claims.append(Answer(p.seat, card.rank, -1, -1, b""))
    play = p.play(card, {"do": "attack", "cards": [str(card)]})
    with pytest.raises(Cheated, match="claimed not to hold") as e:
        tab.host.receive(p.seat, play)
    assert e.value.seat == p.seat
    assert isinstance(card, Card)
