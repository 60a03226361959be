"""The first version of the proof of shuffle's prover (``localdurak/shuffle-proof/v1``: a
commitment t̂_i and a response ŝ_i per link of the chain), as the game made it before the
links were proven as one combination.  Nothing in the game makes these any more; the
verifier still judges them (records and saved games made with them), and the tests make
them here to check that it does."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from localdurak.protocol.privacy.group import GROUP, Point, RandomBytes, Scalar
from localdurak.protocol.privacy.proofs import Context
from localdurak.protocol.privacy.shuffle import (
    _TAG_V1,
    H,
    _challenges,
    _commitment_hash,
    _msm,
    _statement,
)


def shuffle_prove_v1(
    rng: RandomBytes,
    k: Scalar,
    y: Point,
    inputs: Sequence[Point],
    outputs: Sequence[Point],
    perm: Sequence[int],
    ctx: Context,
) -> bytes:
    """Prove ``outputs[i] = k·inputs[perm[i]]`` for every i and ``y = k·B``."""
    n = len(inputs)
    if n < 1 or len(outputs) != n or sorted(perm) != list(range(n)):
        raise ValueError("a proof of shuffle needs as many outputs as inputs and a permutation")
    st = _statement(ctx, y, inputs, outputs, _TAG_V1)
    u, z = _challenges(st, n)
    v = [u[perm[i]] for i in range(n)]
    # The chain of commitments to e_i = v_i + z, and the commitments of the proof.
    seed = hashlib.sha512(rng(32) + k + st).digest()

    def nonce(label: bytes, i: int = 0) -> Scalar:
        return GROUP.scalar_from_hash(seed, label, i.to_bytes(4, "little"))

    r_chain = [nonce(b"r", i) for i in range(n)]
    w_chain = [nonce(b"w^", i) for i in range(n)]
    w_perm = [nonce(b"w'", i) for i in range(n)]
    w_prod, w_key = nonce(b"w2"), nonce(b"w4")
    chain: list[Point] = []
    chain_t: list[Point] = []
    prev = H
    for i in range(n):
        e = GROUP.scalar_add(v[i], z)
        chain_t.append(GROUP.add(GROUP.mul_base(w_chain[i]), GROUP.mul(w_perm[i], prev)))
        prev = GROUP.add(GROUP.mul_base(r_chain[i]), GROUP.mul(e, prev))
        chain.append(prev)
    # r̂ = Σ r̂_i ∏_{m>i} e_m, the blinding of ĉ_N over H^{∏e}.
    r_hat = (0).to_bytes(32, "little")
    for i in range(n):
        r_hat = GROUP.scalar_add(GROUP.scalar_mul(r_hat, GROUP.scalar_add(v[i], z)), r_chain[i])
    t_prod = GROUP.mul_base(w_prod)
    # t_rel = Σ w'_i·b_i − w_k·A = Σ (k·w'_i − w_k·v_i)·a_ψ(i): N multiplications, not 2N.
    t_rel = _msm(
        [
            (
                GROUP.scalar_sub(GROUP.scalar_mul(k, w_perm[i]), GROUP.scalar_mul(w_key, v[i])),
                inputs[perm[i]],
            )
            for i in range(n)
        ],
        "an input point",
    )
    t_key = GROUP.mul_base(w_key)
    c = _commitment_hash(st, [*chain, *chain_t, t_prod, t_rel, t_key])
    s_prod = GROUP.scalar_add(w_prod, GROUP.scalar_mul(c, r_hat))
    s_key = GROUP.scalar_add(w_key, GROUP.scalar_mul(c, k))
    s_chain = [GROUP.scalar_add(w_chain[i], GROUP.scalar_mul(c, r_chain[i])) for i in range(n)]
    s_perm = [GROUP.scalar_add(w_perm[i], GROUP.scalar_mul(c, v[i])) for i in range(n)]
    return b"".join([*chain, *chain_t, t_prod, t_rel, t_key, s_prod, s_key, *s_chain, *s_perm])
