"""The group module's guards (privacy.md, "The group") and the proofs built on it."""

from __future__ import annotations

import random

import nacl.bindings as nb
import pytest

from localdurak.game.cards import CARDS
from localdurak.protocol.privacy import group as group_module
from localdurak.protocol.privacy.cardpoints import CARD_DOMAIN, CARD_POINTS
from localdurak.protocol.privacy.group import (
    GROUP,
    T2,
    InvalidPoint,
    InvalidScalar,
    UnsafeLibrary,
)
from localdurak.protocol.privacy.proofs import (
    Context,
    batch_dleq_prove,
    batch_dleq_verify,
    dleq_prove,
    dleq_verify,
    schnorr_prove,
    schnorr_verify,
)

RNG = random.Random(7).randbytes
P = CARD_POINTS[0]
ORDER = group_module.ORDER


def test_card_points_rederived_from_the_hash() -> None:
    assert len(CARD_POINTS) == 52 == len(set(CARD_POINTS))
    for card, point in zip(CARDS, CARD_POINTS, strict=True):
        assert GROUP.hash_to_group(CARD_DOMAIN, str(card).encode()) == point
        assert GROUP.valid(point)


def test_self_test_refuses_a_library_that_accepts_torsion(monkeypatch: pytest.MonkeyPatch) -> None:
    group_module.self_test(GROUP)  # the installed PyNaCl passes
    monkeypatch.setattr(group_module, "_is_valid_point", lambda p: 1)
    with pytest.raises(UnsafeLibrary, match="CVE-2025-69277"):
        group_module.self_test(GROUP)


def test_torsion_marked_point_is_refused() -> None:
    marked = nb.crypto_core_ed25519_add(P, T2)
    assert not GROUP.valid(marked)
    k = GROUP.random_scalar(RNG)
    with pytest.raises(InvalidPoint):
        GROUP.mul(k, marked)
    with pytest.raises(InvalidPoint):
        GROUP.check(marked)


def test_identity_and_small_order_points_are_refused() -> None:
    identity = (1).to_bytes(32, "little")
    k = GROUP.random_scalar(RNG)
    for bad in (identity, T2, bytes(32)):
        assert not GROUP.valid(bad)
        with pytest.raises(InvalidPoint):
            GROUP.mul(k, bad)


def test_non_canonical_encoding_is_refused() -> None:
    # y >= p: the encoding of y + p for a small y, the same point written non-canonically.
    y = 4
    noncanon = (y + 2**255 - 19).to_bytes(32, "little")
    assert not GROUP.valid(noncanon)
    with pytest.raises(InvalidPoint):
        GROUP.mul(GROUP.random_scalar(RNG), noncanon)
    with pytest.raises(InvalidPoint):
        GROUP.mul(GROUP.random_scalar(RNG), b"\x01" * 31)


def test_layers_commute_and_invert() -> None:
    a, b = GROUP.random_scalar(RNG), GROUP.random_scalar(RNG)
    x = GROUP.mul(a, GROUP.mul(b, P))
    assert x == GROUP.mul(b, GROUP.mul(a, P))
    assert GROUP.mul(GROUP.scalar_invert(a), GROUP.mul(GROUP.scalar_invert(b), x)) == P


def test_scalar_checks() -> None:
    with pytest.raises(ValueError):
        GROUP.check_scalar(ORDER.to_bytes(32, "little"))
    with pytest.raises(ValueError):
        GROUP.check_scalar(bytes(32))
    assert GROUP.check_scalar((ORDER - 1).to_bytes(32, "little"))


CTX = Context(b"g" * 32, 1, "strip", (3, 4))


def test_a_scalar_with_bit_255_set_is_refused_not_taken_for_another() -> None:
    """libsodium ignores bit 255 of a scalar: k and k + 2^255 would give one product, two
    encodings of one step.  Both multiplications refuse such a scalar."""
    k = GROUP.random_scalar(random.Random(7).randbytes)
    aliased = k[:31] + bytes([k[31] | 0x80])
    p = GROUP.mul_base(k)
    with pytest.raises(InvalidScalar):
        GROUP.mul(aliased, p)
    with pytest.raises(InvalidScalar):
        GROUP.mul_base(aliased)


def test_schnorr_binds_key_and_context() -> None:
    k = GROUP.random_scalar(RNG)
    y = GROUP.mul_base(k)
    proof = schnorr_prove(RNG, k, y, CTX)
    assert schnorr_verify(y, proof, CTX)
    other = GROUP.mul_base(GROUP.random_scalar(RNG))
    assert not schnorr_verify(other, proof, CTX)  # wrong key
    assert not schnorr_verify(y, proof, Context(b"h" * 32, 1, "strip", (3, 4)))  # other game
    assert not schnorr_verify(y, proof, Context(b"g" * 32, 2, "strip", (3, 4)))  # other seat
    assert not schnorr_verify(y, b"\x00" * 64, CTX)


def test_dleq_proves_the_same_log_and_refuses_the_wrong_key() -> None:
    k = GROUP.random_scalar(RNG)
    y = GROUP.mul_base(k)
    v = GROUP.mul(k, P)
    proof = dleq_prove(RNG, k, y, P, v, CTX)
    assert dleq_verify(y, P, v, proof, CTX)
    assert not dleq_verify(y, CARD_POINTS[1], v, proof, CTX)
    assert not dleq_verify(y, P, v, proof, Context(b"g" * 32, 1, "strip", (3, 5)))  # position
    assert not dleq_verify(y, P, v, proof, Context(b"g" * 32, 1, "play", (3, 4)))  # step
    # A proof made with another key for the same statement fails.
    k2 = GROUP.random_scalar(RNG)
    assert not dleq_verify(y, P, v, dleq_prove(RNG, k2, y, P, v, CTX), CTX)
    # A torsion-marked point inside a statement makes it false, not an exception.
    marked = nb.crypto_core_ed25519_add(v, T2)
    assert not dleq_verify(y, P, marked, proof, CTX)


def test_batch_dleq_catches_one_wrong_pair_among_many() -> None:
    k = GROUP.random_scalar(RNG)
    y = GROUP.mul_base(k)
    us = list(CARD_POINTS[:6])
    vs = [GROUP.mul(k, u) for u in us]
    proof = batch_dleq_prove(RNG, k, y, us, vs, CTX)
    assert batch_dleq_verify(y, us, vs, proof, CTX)
    # Two compensating errors (what fixed weights would let through) are caught.
    d = CARD_POINTS[10]
    bad = list(vs)
    bad[1] = GROUP.add(bad[1], d)
    bad[2] = GROUP.sub(bad[2], d)
    assert not batch_dleq_verify(y, us, bad, proof, CTX)
    assert not batch_dleq_verify(y, us, bad, batch_dleq_prove(RNG, k, y, us, bad, CTX), CTX)
    swapped = [vs[1], vs[0], *vs[2:]]
    assert not batch_dleq_verify(y, us, swapped, proof, CTX)
    one = batch_dleq_prove(RNG, k, y, us[:1], vs[:1], CTX)
    assert batch_dleq_verify(y, us[:1], vs[:1], one, CTX)
