"""The second-version proof of shuffle's combined links, attacked.

A cheating shuffler that knows the link weights β before its chain is fixed can make two
false links cancel in the combination and prove a marked stage ("one card marked": one slot
times d, another times d⁻¹).  The tests build exactly that forger and show

* it is a correct prover (an honest stage forged with a true chain verifies),
* with the real β (hashed from the statement and the chain) its forgery fails, adaptive
  or not,
* with β that does not hash the chain (the mutation) the same forgery passes: the binding of
  β to the chain is what stops it, and these tests would catch its loss.

Plus malleability: a response replaced by the same value plus l (same meaning mod l) fails.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence

import pytest

from localdurak.protocol.privacy import shuffle as sh
from localdurak.protocol.privacy.cardpoints import CARD_POINTS
from localdurak.protocol.privacy.group import GROUP, ORDER, Point
from localdurak.protocol.privacy.proofs import Context

CTX = Context(b"\x01" * 32, 2, "shuffle/2")
Weights = Callable[[bytes, Sequence[Point]], list[int]]


def _i(b: bytes) -> int:
    return int.from_bytes(b, "little")


def _b(x: int) -> bytes:
    return (x % ORDER).to_bytes(32, "little")


def _pt(x: int, y: int) -> Point:
    """x·B + y·H."""
    return GROUP.add(GROUP.mul_base(_b(x)), GROUP.mul(_b(y), sh.H))


def forge(
    rng: random.Random,
    k: int,
    y: Point,
    ins: list[Point],
    outs: list[Point],
    v_of: Callable[[list[int]], list[int]],
    *,
    cancel: bool,
    weights_for_chain: Weights,
) -> bytes:
    """A v2 proof whose chain's H-coefficients are honest for e = v + z except the last two
    links, which (``cancel``) jump to ĉ_N = x·B + P·H and cancel in Σ β_i·X_i with the β the
    forger computes from ``weights_for_chain`` over its provisional chain."""
    n = len(ins)
    st = sh._statement(CTX, y, ins, outs)
    u_b, z_b = sh._challenges(st, n)
    u, z = [_i(x) for x in u_b], _i(z_b)
    v = v_of(u)
    e = [(vi + z) % ORDER for vi in v]
    target = 1
    for uj in u:
        target = target * (uj + z) % ORDER
    xs = [rng.randrange(1, ORDER) for _ in range(n)]
    ys: list[int] = []
    prev = 1
    for i in range(n):
        prev = e[i] * prev % ORDER
        ys.append(prev)
    chain = [_pt(xs[i], ys[i]) for i in range(n)]
    beta = weights_for_chain(st, chain)  # what the forger believes β is
    if cancel:
        # ys[n-1] = P; ys[n-2] solved so that β_{n-2}·d_{n-2} + β_{n-1}·d_{n-1} = 0.
        b2, b1 = beta[n - 2], beta[n - 1]
        y3 = ys[n - 3] if n >= 3 else 1
        num = (b2 * e[n - 2] * y3 - b1 * target) % ORDER
        den = (b2 - b1 * e[n - 1]) % ORDER
        ys[n - 2] = num * pow(den, -1, ORDER) % ORDER
        ys[n - 1] = target
        chain = [_pt(xs[i], ys[i]) for i in range(n)]
    beta = weights_for_chain(st, chain)  # what the verifier will use (if chain-independent: same)
    # ρ = Σ β_i·(x_i − e_i·x_{i−1}), the B-part of Σ β_i·X_i (the forger knows every x).
    rho = sum(beta[i] * (xs[i] - e[i] * (xs[i - 1] if i else 0)) for i in range(n)) % ORDER
    w_link, w_prod, w_key = (rng.randrange(1, ORDER) for _ in range(3))
    w_perm = [rng.randrange(1, ORDER) for _ in range(n)]
    prevs = [sh.H, *chain[:-1]]
    t_link = GROUP.mul_base(_b(w_link))
    for i in range(n):
        t_link = GROUP.add(t_link, GROUP.mul(_b(beta[i] * w_perm[i]), prevs[i]))
    t_prod = GROUP.mul_base(_b(w_prod))
    a_sum = sh._msm([(_b(u[j]), ins[j]) for j in range(n)], "in")
    t_rel = sh._msm([(_b(w_perm[i]), outs[i]) for i in range(n)], "out")
    t_rel = GROUP.sub(t_rel, GROUP.mul(_b(w_key), a_sum))
    t_key = GROUP.mul_base(_b(w_key))
    c = _i(sh._commitment_hash(st, [*chain, t_link, t_prod, t_rel, t_key]))
    scalars = [w_prod + c * xs[n - 1], w_key + c * k, w_link + c * rho]
    scalars += [w_perm[i] + c * v[i] for i in range(n)]
    return b"".join([*chain, t_link, t_prod, t_rel, t_key, *(_b(s) for s in scalars)])


def stage(n: int, seed: int) -> tuple[int, Point, list[Point], list[Point], list[int]]:
    rng = random.Random(seed)
    k = rng.randrange(1, ORDER)
    ins = list(CARD_POINTS[:n])
    perm = list(range(n))
    rng.shuffle(perm)
    outs = [GROUP.mul(_b(k), ins[perm[i]]) for i in range(n)]
    return k, GROUP.mul_base(_b(k)), ins, outs, perm


def marked(
    n: int, seed: int
) -> tuple[int, Point, list[Point], list[Point], Callable[..., list[int]]]:
    """One card marked: slot 0 times d, slot 1 times d⁻¹; v that satisfies Σ v·b = k·A."""
    k, y, ins, outs, perm = stage(n, seed)
    d = 0x0E0E0E0E
    di = pow(d, -1, ORDER)
    bad = [GROUP.mul(_b(d), outs[0]), GROUP.mul(_b(di), outs[1]), *outs[2:]]

    def v_of(u: list[int]) -> list[int]:
        v = [u[perm[i]] for i in range(n)]
        return [v[0] * di % ORDER, v[1] * d % ORDER, *v[2:]]

    return k, y, ins, bad, v_of


def real_weights(st: bytes, chain: Sequence[Point]) -> list[int]:
    return sh._chain_weights(st, chain)


def chain_blind_weights(st: bytes, chain: Sequence[Point]) -> list[int]:
    """The mutation: β hashed from the statement alone, not the chain."""
    seed = hashlib.sha512(b"mutant" + st).digest()
    return [_i(GROUP.scalar_from_hash(seed, i.to_bytes(4, "little"))) for i in range(len(chain))]


@pytest.mark.parametrize("n", [3, 24])
def test_the_forger_is_a_correct_prover_on_an_honest_stage(n: int) -> None:
    k, y, ins, outs, perm = stage(n, seed=11)
    proof = forge(
        random.Random(1),
        k,
        y,
        ins,
        outs,
        lambda u: [u[perm[i]] for i in range(n)],
        cancel=False,
        weights_for_chain=real_weights,
    )
    assert len(proof) == sh.proof_size(n)
    assert sh.shuffle_verify(y, ins, outs, proof, CTX)


@pytest.mark.parametrize("n", [3, 24])
def test_a_marked_stage_with_two_cancelling_false_links_fails(n: int) -> None:
    k, y, ins, bad, v_of = marked(n, seed=12)
    # Without the cancellation: the product is wrong (sanity: this is not a permutation).
    honest_chain = forge(
        random.Random(2), k, y, ins, bad, v_of, cancel=False, weights_for_chain=real_weights
    )
    assert not sh.shuffle_verify(y, ins, bad, honest_chain, CTX)
    # Adaptive: cancel for the β of the provisional chain, then change the chain: β moves.
    forged = forge(
        random.Random(3), k, y, ins, bad, v_of, cancel=True, weights_for_chain=real_weights
    )
    assert not sh.shuffle_verify(y, ins, bad, forged, CTX)
    assert not sh.shuffle_verify_many([(y, ins, bad, forged, CTX)])


@pytest.mark.parametrize("n", [3, 24])
def test_the_same_forgery_passes_if_the_weights_do_not_hash_the_chain(
    n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sh, "_chain_weights", chain_blind_weights)
    k, y, ins, bad, v_of = marked(n, seed=12)
    forged = forge(
        random.Random(3), k, y, ins, bad, v_of, cancel=True, weights_for_chain=chain_blind_weights
    )
    # The mutant verifier accepts a stage that is no permutation: the chain binding matters.
    assert sh.shuffle_verify(y, ins, bad, forged, CTX)


def test_a_response_plus_l_is_not_a_second_proof() -> None:
    n = 5
    k, y, ins, outs, perm = stage(n, seed=13)
    proof = sh.shuffle_prove(random.Random(4).randbytes, _b(k), y, ins, outs, perm, CTX)
    assert sh.shuffle_verify(y, ins, outs, proof, CTX)
    off = (n + 4) * 32
    for j in range(n + 3):
        s = _i(proof[off + 32 * j : off + 32 * (j + 1)])
        alias = (s + ORDER).to_bytes(32, "little")  # same scalar mod l, < 2^253
        other = proof[: off + 32 * j] + alias + proof[off + 32 * (j + 1) :]
        assert not sh.shuffle_verify(y, ins, outs, other, CTX)
        assert not sh.shuffle_verify_many([(y, ins, outs, other, CTX)])
