"""The proof of shuffle: a stage is a permutation of its input re-keyed by its shuffler's key.

Statement: input points ``a_1 … a_N``, output points ``b_1 … b_N``, the shuffler's committed key
``Y = k·B``.  The prover knows ``k`` and a permutation ψ with ``b_i = k·a_ψ(i)`` for every i.

The construction is Terelius–Wikström's proof of a shuffle (as Verificatum ships it, and as
Haenni et al. 2017 give it in pseudo-code) adapted to this relation, which has no per-element
randomness (docs/privacy.md, "The proof of shuffle", gives the soundness argument):

1. From the statement (context, Y, every a, every b) the challenges ``u_1 … u_N`` and ``z``.
   With ``v_i = u_ψ(i)`` (the challenges permuted like the cards) an honest stage satisfies
   ``Σ v_i·b_i = k·A`` where ``A = Σ u_j·a_j``.
2. The prover commits to the shifted permuted challenges ``e_i = v_i + z`` in a chain of
   Pedersen commitments ``ĉ_0 = H``, ``ĉ_i = r̂_i·B + e_i·ĉ_{i−1}`` (H an independent generator),
   so ``ĉ_N = r̂·B + (∏ e_i)·H``.
3. A Schnorr-style proof of knowledge, one challenge c, with the **same response** ``s'_i`` for
   ``v_i`` in the chain (``ĉ_i`` in the base ``B, ĉ_{i−1}``) and in the relation
   ``Σ v_i·b_i − k·A = 0``, and the same response ``s_k`` for k there and in ``Y = k·B``;
   plus ``ĉ_N − P·H = r̂·B`` with ``P = ∏ (u_j + z)`` public.

So the v committed in the chain are those that map the output onto k·A, their shifted product
equals ``∏ (u_j + z)`` (a polynomial identity in z: the multiset {v} is the multiset {u}), and
since the output points are fixed before u is drawn, v can only be u permuted if the output is
the input permuted and re-keyed by the k of Y.  No commitment to the permutation is needed:
without re-encryption randomness the representation of k·A in the output points is unique
(nobody knows a relation between card points).

Verification is batched: the proof carries the commitments, the verifier recomputes c and
checks one random linear combination of all the equations (weights hashed from the whole
proof, so each is fixed only after the prover committed to everything): 4N + 4
multiplications and one base multiplication, against 2N + 3 in each of the two sides of the
naive check.  The prover pays 3N multiplications and 2N base multiplications.

A proof is ``(4N + 5)·32`` bytes: the chain, the chain's commitments, three commitments, two
scalars and two vectors of N responses.  Every challenge hashes a domain tag, the `Context`
(game id, seat, step — the stage —, positions, extra), B, H, Y, every input and output point
and every commitment, so a proof does not verify for another stage, seat, game, input or order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from .group import (
    GROUP,
    ORDER,
    POINT_BYTES,
    SCALAR_BYTES,
    InvalidPoint,
    InvalidScalar,
    Point,
    RandomBytes,
    Scalar,
)
from .proofs import Context

_TAG = b"localdurak/shuffle-proof/v1"

H: Point = GROUP.hash_to_group(b"localdurak/shuffle-generator/v1", b"H")
"""The chain's independent generator: hashed to the group, nobody knows log_B H."""


def proof_size(n: int) -> int:
    """The size in bytes of a proof for n cards."""
    return (4 * n + 5) * 32


def _statement(ctx: Context, y: Point, inputs: Sequence[Point], outputs: Sequence[Point]) -> bytes:
    h = hashlib.sha512()
    for part in (_TAG, ctx.encode(), GROUP.base, H, y, len(inputs).to_bytes(4, "little")):
        h.update(len(part).to_bytes(4, "little") + part)
    h.update(b"".join(inputs))
    h.update(b"".join(outputs))
    return h.digest()


def _challenges(statement: bytes, n: int) -> tuple[list[Scalar], Scalar]:
    """u_1 … u_N and z, from the statement alone (before any commitment)."""
    u = [GROUP.scalar_from_hash(statement, b"u", i.to_bytes(4, "little")) for i in range(n)]
    return u, GROUP.scalar_from_hash(statement, b"z")


def _target(u: Sequence[Scalar], z: Scalar) -> Scalar:
    """P = ∏ (u_j + z)."""
    p = (1).to_bytes(32, "little")
    for uj in u:
        p = GROUP.scalar_mul(p, GROUP.scalar_add(uj, z))
    return p


def _commitment_hash(statement: bytes, points: Sequence[Point]) -> Scalar:
    return GROUP.scalar_from_hash(statement, b"c", b"".join(points))


def _msm(terms: Sequence[tuple[Scalar, Point]], what: str) -> Point:
    """Σ scalar·point, validating every point through its multiplication."""
    acc: Point | None = None
    for s, p in terms:
        term = GROUP.mul(s, p, what)
        acc = term if acc is None else GROUP.add(acc, term)
    assert acc is not None
    return acc


def shuffle_prove(
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
    st = _statement(ctx, y, inputs, outputs)
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


def _split(proof: bytes, n: int) -> tuple[list[Point], list[Scalar]]:
    if not isinstance(proof, bytes) or len(proof) != proof_size(n):
        raise InvalidScalar(f"a proof of shuffle of {n} cards is {proof_size(n)} bytes")
    np_ = 2 * n + 3
    points = [proof[i * POINT_BYTES : (i + 1) * POINT_BYTES] for i in range(np_)]
    off = np_ * POINT_BYTES
    scalars = [
        GROUP.check_scalar(
            proof[off + i * SCALAR_BYTES : off + (i + 1) * SCALAR_BYTES],
            "a response of the proof of shuffle",
            nonzero=False,
        )
        for i in range(2 * n + 2)
    ]
    return points, scalars


def shuffle_verify(
    y: Point,
    inputs: Sequence[Point],
    outputs: Sequence[Point],
    proof: bytes,
    ctx: Context,
) -> bool:
    """Whether ``proof`` shows that ``outputs`` is ``inputs`` permuted and multiplied by log_B y.

    Invalid points anywhere (outputs, y, the proof's) make it false: each goes through a
    multiplication, which refuses anything outside the prime-order group.
    """
    combined = _combination(y, inputs, outputs, proof, ctx)
    return combined is not None and _vanishes(*combined)


def shuffle_verify_many(
    stages: Sequence[tuple[Point, Sequence[Point], Sequence[Point], bytes, Context]],
) -> bool:
    """Whether every ``(y, inputs, outputs, proof, ctx)`` of ``stages`` verifies, checked as
    one random linear combination of their checks (weights hashed from every statement and
    proof, as within one proof).  Terms on the same point merge: consecutive stages share a
    deck (the outputs of one are the inputs of the next), so k consecutive stages cost
    k·(2N + 4) + (k + 1)·N + 1 multiplications instead of k·(4N + 4).  False says only that
    one of them fails: `shuffle_verify` each to find which."""
    if not stages:
        return True
    combos = [_combination(*stage) for stage in stages]
    if any(c is None for c in combos):
        return False
    h = hashlib.sha512(_TAG + b"/many")
    for y, inputs, outputs, proof, ctx in stages:
        h.update(_statement(ctx, y, inputs, outputs) + proof)
    seed = h.digest()
    base = 0
    merged: dict[Point, int] = {}
    for j, combo in enumerate(combos):
        assert combo is not None
        gamma = int.from_bytes(GROUP.scalar_from_hash(seed, j.to_bytes(4, "little")), "little")
        b, terms = combo
        base = (base + gamma * int.from_bytes(b, "little")) % ORDER
        for coef, point in terms:
            merged[point] = (merged.get(point, 0) + gamma * int.from_bytes(coef, "little")) % ORDER
    if base == 0:
        return False
    return _vanishes(
        base.to_bytes(32, "little"),
        [(c.to_bytes(32, "little"), p) for p, c in merged.items()],
    )


def _vanishes(base: Scalar, terms: Sequence[tuple[Scalar, Point]]) -> bool:
    """Whether base·B + Σ coef·point = 0, every point validated by its multiplication."""
    try:
        # A zero coefficient (negligible for an honest proof) is refused by the multiplication.
        total = _msm(terms, "a point of the proof of shuffle")
        # base·B + total = 0: compare base·B with −total (the sign bit flipped; total is never
        # a point with x = 0, which would make base·B, of prime order, the identity).
        return GROUP.mul_base(base) == _negate(total)
    except InvalidPoint:
        return False


def _combination(
    y: Point,
    inputs: Sequence[Point],
    outputs: Sequence[Point],
    proof: bytes,
    ctx: Context,
) -> tuple[Scalar, list[tuple[Scalar, Point]]] | None:
    """The random linear combination of a proof's equations, as ``base·B + Σ coef·point``
    (``(base, terms)``), or None for a proof that is malformed (sizes, scalars, a zero base
    coefficient)."""
    n = len(inputs)
    if n < 1 or len(outputs) != n:
        return None
    try:
        points, scalars = _split(proof, n)
    except InvalidScalar:
        return None
    chain, chain_t = points[:n], points[n : 2 * n]
    t_prod, t_rel, t_key = points[2 * n], points[2 * n + 1], points[2 * n + 2]
    s_prod, s_key = scalars[0], scalars[1]
    s_chain, s_perm = scalars[2 : 2 + n], scalars[2 + n :]
    st = _statement(ctx, y, inputs, outputs)
    u, z = _challenges(st, n)
    c = _commitment_hash(st, points)
    # Weights of the random linear combination, fixed by the whole proof.
    seed = hashlib.sha512(_TAG + b"/batch" + st + proof).digest()
    beta = [GROUP.scalar_from_hash(seed, i.to_bytes(4, "little")) for i in range(n)]
    a_prod, a_rel, a_key = (GROUP.scalar_from_hash(seed, x) for x in (b"p", b"r", b"k"))
    neg = GROUP.scalar_sub
    zero = (0).to_bytes(32, "little")
    cz = GROUP.scalar_mul(c, z)
    # The equations, each "… − commitment = 0":
    #   chain i:  ŝ_i·B + (s'_i + c·z)·ĉ_{i−1} − c·ĉ_i − t̂_i
    #   product:  s_prod·B − c·(ĉ_N − P·H) − t_prod
    #   relation: Σ s'_i·b_i − s_k·Σ u_j·a_j − t_rel
    #   key:      s_k·B − c·Y − t_key
    base = GROUP.scalar_add(GROUP.scalar_mul(a_prod, s_prod), GROUP.scalar_mul(a_key, s_key))
    for i in range(n):
        base = GROUP.scalar_add(base, GROUP.scalar_mul(beta[i], s_chain[i]))
    coef_h = GROUP.scalar_add(
        GROUP.scalar_mul(beta[0], GROUP.scalar_add(s_perm[0], cz)),
        GROUP.scalar_mul(GROUP.scalar_mul(a_prod, c), _target(u, z)),
    )
    terms: list[tuple[Scalar, Point]] = [(coef_h, H)]
    for i in range(n):
        # ĉ_i: −β_i·c in chain i, β_{i+1}·(s'_{i+1} + c·z) in chain i+1, −a_prod·c for ĉ_N.
        coef = neg(zero, GROUP.scalar_mul(beta[i], c))
        if i + 1 < n:
            coef = GROUP.scalar_add(
                coef, GROUP.scalar_mul(beta[i + 1], GROUP.scalar_add(s_perm[i + 1], cz))
            )
        else:
            coef = neg(coef, GROUP.scalar_mul(a_prod, c))
        terms.append((coef, chain[i]))
        terms.append((neg(zero, beta[i]), chain_t[i]))
    a_rel_sk = GROUP.scalar_mul(a_rel, s_key)
    for i in range(n):
        terms.append((GROUP.scalar_mul(a_rel, s_perm[i]), outputs[i]))
        terms.append((neg(zero, GROUP.scalar_mul(a_rel_sk, u[i])), inputs[i]))
    terms += [
        (neg(zero, a_prod), t_prod),
        (neg(zero, a_rel), t_rel),
        (neg(zero, a_key), t_key),
        (neg(zero, GROUP.scalar_mul(a_key, c)), y),
    ]
    if not any(base):
        return None
    return base, terms


def _negate(p: Point) -> Point:
    """−p for a canonical encoding with x ≠ 0: the sign bit of x flipped."""
    return p[:31] + bytes([p[31] ^ 0x80])
