"""Security review of card privacy: the proofs' encodings and bindings that the first tests did not
pin.  All of these held at review time; they guard against a regression."""

from __future__ import annotations

import nacl.bindings as nb
import pytest

from localdurak.protocol.errors import RemoteProtocolError
from localdurak.protocol.privacy.cardpoints import CARD_POINTS
from localdurak.protocol.privacy.group import GROUP, ORDER, T2
from localdurak.protocol.privacy.messages import Commit, KeyReveal
from localdurak.protocol.privacy.proofs import (
    Context,
    batch_dleq_prove,
    batch_dleq_verify,
    dleq_prove,
    dleq_verify,
    schnorr_prove,
    schnorr_verify,
)
from tests.support.privacy_play import table


def rng(n: int) -> bytes:
    return b"\x11" * n


K = GROUP.random_scalar(lambda n: b"\x21" * n)
Y = GROUP.mul_base(K)
CTX = Context(b"g" * 64, 1, "play", (3,), b"action")


def unreduced(scalar: bytes) -> bytes:
    """The same scalar plus l: equal modulo l, a second encoding (malleability)."""
    n = int.from_bytes(scalar, "little") + ORDER
    assert n < 2**256
    return n.to_bytes(32, "little")


def test_review_a_proof_with_an_unreduced_scalar_is_refused() -> None:
    proof = schnorr_prove(rng, K, Y, CTX)
    assert schnorr_verify(Y, proof, CTX)
    assert not schnorr_verify(Y, proof[:32] + unreduced(proof[32:]), CTX)
    assert not schnorr_verify(Y, unreduced(proof[:32]) + proof[32:], CTX)
    m = CARD_POINTS[5]
    x = GROUP.mul(K, m)
    proof = dleq_prove(rng, K, Y, m, x, CTX)
    assert dleq_verify(Y, m, x, proof, CTX)
    assert not dleq_verify(Y, m, x, proof[:32] + unreduced(proof[32:]), CTX)


def test_review_a_dleq_proof_is_bound_to_its_base_card_and_context() -> None:
    m, other = CARD_POINTS[5], CARD_POINTS[6]
    x = GROUP.mul(K, m)
    proof = dleq_prove(rng, K, Y, m, x, CTX)
    assert not dleq_verify(Y, other, x, proof, CTX)  # another card under the same value
    assert not dleq_verify(Y, m, x, proof, Context(b"g" * 64, 1, "show", (3,), b"action"))
    assert not dleq_verify(Y, m, x, proof, Context(b"g" * 64, 1, "play", (4,), b"action"))
    assert not dleq_verify(Y, m, x, proof, Context(b"g" * 64, 1, "play", (3,), b"other"))
    # The Schnorr proof of the same context is not a DLEQ proof (domain tags differ).
    assert not dleq_verify(Y, m, x, schnorr_prove(rng, K, Y, CTX), CTX)


def test_review_a_batched_proof_binds_each_pair_in_its_order() -> None:
    vs = list(CARD_POINTS[:4])
    us = [GROUP.mul(K, p) for p in vs]  # a layer removal: us are the inputs, us_i = k·vs_i
    proof = batch_dleq_prove(rng, K, Y, vs, us, CTX)
    assert batch_dleq_verify(Y, vs, us, proof, CTX)
    swapped = [us[1], us[0], *us[2:]]  # the right set of outputs, in another order
    assert not batch_dleq_verify(Y, vs, swapped, proof, CTX)
    assert not batch_dleq_verify(Y, vs[:3], us[:3], proof, CTX)
    marked = [bytes(nb.crypto_core_ed25519_add(us[0], T2)), *us[1:]]
    assert not batch_dleq_verify(Y, vs, marked, proof, CTX)


def test_review_commitments_and_key_reveals_refuse_odd_encodings() -> None:
    tab = table(2, 24, seed=51)
    for p in tab.players:
        tab.to_host(p.seat, p.start())
    # Hold the commitments: feed the nonces only.
    while tab.queue and tab.host.t.game_id is None:
        tab.step()
    host = tab.host
    assert host.t.game_id is not None
    p1 = tab.players[1]
    ctx = host.t.ctx(1, "commit")
    marked = bytes(nb.crypto_core_ed25519_add(p1.key, T2))
    for bad in (marked, (1).to_bytes(32, "little"), bytes(32)):
        with pytest.raises(RemoteProtocolError) as e:
            host.receive(1, Commit(1, bad, schnorr_prove(rng, p1.secret, p1.key, ctx)))
        assert e.value.seat == 1
    tab.queue.clear()
    tab2 = table(2, 24, seed=52)
    tab2.start()
    p1 = tab2.players[1]
    for bad in (unreduced(p1.secret), bytes(32)):
        with pytest.raises(RemoteProtocolError) as e:
            tab2.host.receive(1, KeyReveal(1, bad))
        assert e.value.seat == 1
    tab2.host.receive(1, KeyReveal(1, p1.secret))
