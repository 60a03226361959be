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
3. Weights ``β_1 … β_N`` hashed from the statement and the chain.  A Schnorr-style proof of
   knowledge, one challenge c, of ``ρ = Σ β_i·r̂_i`` and the e_i in the one combined link
   ``Σ β_i·ĉ_i = ρ·B + Σ β_i·e_i·ĉ_{i−1}``, with the **same response** ``s'_i`` for ``v_i``
   there and in the relation ``Σ v_i·b_i − k·A = 0``, and the same response ``s_k`` for k
   there and in ``Y = k·B``; plus ``ĉ_N − P·H = r̂·B`` with ``P = ∏ (u_j + z)`` public.

So the v committed in the chain are those that map the output onto k·A, their shifted product
equals ``∏ (u_j + z)`` (a polynomial identity in z: the multiset {v} is the multiset {u}), and
since the output points are fixed before u is drawn, v can only be u permuted if the output is
the input permuted and re-keyed by the k of Y.  No commitment to the permutation is needed:
without re-encryption randomness the representation of k·A in the output points is unique
(nobody knows a relation between card points).  The links are proven as one random
combination (β fixed by the chain before any commitment of the proof): one commitment and one
response for all of them instead of one each (docs/privacy.md says why that is as sound).

Verification is batched: the proof carries the commitments, the verifier recomputes c and
checks one random linear combination of the four equations (weights hashed from the whole
proof, so each is fixed only after the prover committed to everything): 3N + 6
multiplications and one base multiplication.  The prover pays 2N + 1 multiplications and
N + 3 base multiplications (the chain's commitment through the chain's own representation
in B and H, which the prover knows).

A proof is ``(2N + 7)·32`` bytes: the chain, four commitments, three scalars and N responses.
Every challenge hashes a domain tag, the `Context` (game id, seat, step — the stage —,
positions, extra), B, H, Y, every input and output point and every commitment, so a proof does
not verify for another stage, seat, game, input or order.

The first version of the proof (``localdurak/shuffle-proof/v1``, ``(4N + 5)·32`` bytes: a
commitment and a response per link) is still verified, so records and saved games made with
it read as before; nothing makes it any more.
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

_TAG = b"localdurak/shuffle-proof/v2"
_TAG_V1 = b"localdurak/shuffle-proof/v1"

H: Point = GROUP.hash_to_group(b"localdurak/shuffle-generator/v1", b"H")
"""The chain's independent generator: hashed to the group, nobody knows log_B H."""


def proof_size(n: int) -> int:
    """The size in bytes of a proof for n cards."""
    return (2 * n + 7) * 32


def proof_size_v1(n: int) -> int:
    """The size in bytes of a first-version proof for n cards (still verified)."""
    return (4 * n + 5) * 32


def _statement(
    ctx: Context,
    y: Point,
    inputs: Sequence[Point],
    outputs: Sequence[Point],
    tag: bytes = _TAG,
) -> bytes:
    h = hashlib.sha512()
    for part in (tag, ctx.encode(), GROUP.base, H, y, len(inputs).to_bytes(4, "little")):
        h.update(len(part).to_bytes(4, "little") + part)
    h.update(b"".join(inputs))
    h.update(b"".join(outputs))
    return h.digest()


def _challenges(statement: bytes, n: int) -> tuple[list[Scalar], Scalar]:
    """u_1 … u_N and z, from the statement alone (before any commitment)."""
    u = [GROUP.scalar_from_hash(statement, b"u", i.to_bytes(4, "little")) for i in range(n)]
    return u, GROUP.scalar_from_hash(statement, b"z")


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
    u_bytes, z_bytes = _challenges(st, n)
    u, z = [_int(x) for x in u_bytes], _int(z_bytes)
    v = [u[perm[i]] for i in range(n)]
    ki = _int(k)
    seed = hashlib.sha512(rng(32) + k + st).digest()

    def nonce(label: bytes, i: int = 0) -> int:
        return _int(GROUP.scalar_from_hash(seed, label, i.to_bytes(4, "little")))

    # The chain of commitments to e_i = v_i + z, and what the prover knows of it: ĉ_i =
    # ρ_i·B + E_i·H with ρ_i = r̂_i + e_i·ρ_{i−1}, E_i = e_i·E_{i−1} (ρ_0 = 0, E_0 = 1).
    r_chain = [nonce(b"r", i) for i in range(n)]
    chain: list[Point] = []
    rho, big_e = [0], [1]
    prev = H
    for i in range(n):
        e = (v[i] + z) % ORDER
        prev = GROUP.add(GROUP.mul_base(_b(r_chain[i])), GROUP.mul(_b(e), prev))
        chain.append(prev)
        rho.append((r_chain[i] + e * rho[-1]) % ORDER)
        big_e.append(e * big_e[-1] % ORDER)
    beta = _chain_weights(st, chain)
    w_link = nonce(b"w^")
    w_perm = [nonce(b"w'", i) for i in range(n)]
    w_prod, w_key = nonce(b"w2"), nonce(b"w4")
    # t̂ = ω̂·B + Σ β_i·ω'_i·ĉ_{i−1} = (ω̂ + Σ β_i·ω'_i·ρ_{i−1})·B + (Σ β_i·ω'_i·E_{i−1})·H.
    gamma = [beta[i] * w_perm[i] % ORDER for i in range(n)]
    t_link = GROUP.add(
        GROUP.mul_base(
            _b((w_link + sum(g * r for g, r in zip(gamma, rho[:n], strict=True))) % ORDER)
        ),
        GROUP.mul(_b(sum(g * e for g, e in zip(gamma, big_e[:n], strict=True)) % ORDER), H),
    )
    t_prod = GROUP.mul_base(_b(w_prod))
    # t_rel = Σ ω'_i·b_i − ω_k·A = Σ (k·ω'_i − ω_k·v_i)·a_ψ(i): N multiplications, not 2N.
    t_rel = _msm(
        [(_b((ki * w_perm[i] - w_key * v[i]) % ORDER), inputs[perm[i]]) for i in range(n)],
        "an input point",
    )
    t_key = GROUP.mul_base(_b(w_key))
    c = _int(_commitment_hash(st, [*chain, t_link, t_prod, t_rel, t_key]))
    s_link = w_link + c * sum(b * r for b, r in zip(beta, r_chain, strict=True))
    s_prod = w_prod + c * rho[n]  # ρ_N = r̂, the blinding of ĉ_N over (∏ e)·H
    s_key = w_key + c * ki
    s_perm = [w_perm[i] + c * v[i] for i in range(n)]
    scalars = [_b(x % ORDER) for x in (s_prod, s_key, s_link, *s_perm)]
    return b"".join([*chain, t_link, t_prod, t_rel, t_key, *scalars])


def _b(x: int) -> Scalar:
    return x.to_bytes(32, "little")


def _chain_weights(statement: bytes, chain: Sequence[Point]) -> list[int]:
    """β_1 … β_N, hashed from the statement and the whole chain (before any commitment)."""
    seed = hashlib.sha512(_TAG + b"/links" + statement + b"".join(chain)).digest()
    return [_int(GROUP.scalar_from_hash(seed, i.to_bytes(4, "little"))) for i in range(len(chain))]


def _split(
    proof: bytes, n: int, n_points: int, n_scalars: int
) -> tuple[list[Point], list[int]] | None:
    """The proof's points and (canonical) scalars, or None if it is not that shape."""
    if not isinstance(proof, bytes) or len(proof) != (n_points + n_scalars) * 32:
        return None
    points = [proof[i * POINT_BYTES : (i + 1) * POINT_BYTES] for i in range(n_points)]
    off = n_points * POINT_BYTES
    try:
        scalars = [
            _int(
                GROUP.check_scalar(
                    proof[off + i * SCALAR_BYTES : off + (i + 1) * SCALAR_BYTES],
                    "a response of the proof of shuffle",
                    nonzero=False,
                )
            )
            for i in range(n_scalars)
        ]
    except InvalidScalar:
        return None
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
    multiplication, which refuses anything outside the prime-order group.  A first-version
    proof is judged as one (for one card both versions have one size: either may pass).
    """
    combined = _combination(y, inputs, outputs, proof, ctx)
    if combined is not None and _vanishes(*combined):
        return True
    n = len(inputs)
    if proof_size(n) == proof_size_v1(n):
        combined = _combination_v1(y, inputs, outputs, proof, ctx)
        return combined is not None and _vanishes(*combined)
    return False


def shuffle_verify_many(
    stages: Sequence[tuple[Point, Sequence[Point], Sequence[Point], bytes, Context]],
) -> bool:
    """Whether every ``(y, inputs, outputs, proof, ctx)`` of ``stages`` verifies, checked as
    one random linear combination of their checks (weights hashed from every statement and
    proof, as within one proof).  Terms on the same point merge: consecutive stages share a
    deck (the outputs of one are the inputs of the next), so k consecutive stages cost
    k·(N + 5) + (k + 1)·N + 1 multiplications instead of k·(3N + 6).  False says only that
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
        gamma = _int(GROUP.scalar_from_hash(seed, j.to_bytes(4, "little")))
        b, terms = combo
        base += gamma * b
        for coef, point in terms:
            merged[point] = merged.get(point, 0) + gamma * coef
    return _vanishes(base, [(c, p) for p, c in merged.items()])


def _vanishes(base: int, terms: Sequence[tuple[int, Point]]) -> bool:
    """Whether base·B + Σ coef·point = 0, every point validated by its multiplication."""
    base %= ORDER
    if base == 0:
        return False
    try:
        # A zero coefficient (negligible for an honest proof) is refused by the multiplication.
        total = _msm([((c % ORDER).to_bytes(32, "little"), p) for c, p in terms], _WHAT)
        # base·B + total = 0: compare base·B with −total (the sign bit flipped; total is never
        # a point with x = 0, which would make base·B, of prime order, the identity).
        return GROUP.mul_base(base.to_bytes(32, "little")) == _negate(total)
    except InvalidPoint:
        return False


_WHAT = "a point of the proof of shuffle"


def _int(k: Scalar) -> int:
    return int.from_bytes(k, "little")


def _combination(
    y: Point,
    inputs: Sequence[Point],
    outputs: Sequence[Point],
    proof: bytes,
    ctx: Context,
) -> tuple[int, list[tuple[int, Point]]] | None:
    """The random linear combination of a proof's equations, as ``base·B + Σ coef·point``
    (``(base, terms)``, integers not yet reduced modulo l), or None for a proof that is
    malformed (sizes, scalars, a zero base coefficient).  A proof of the first version's size
    is judged by `_combination_v1`."""
    n = len(inputs)
    if n < 1 or len(outputs) != n:
        return None
    if len(proof) != proof_size(n):
        return _combination_v1(y, inputs, outputs, proof, ctx)
    split = _split(proof, n, n + 4, n + 3)
    if split is None:
        return None
    points, scalars = split
    chain = points[:n]
    t_link, t_prod, t_rel, t_key = points[n : n + 4]
    s_prod, s_key, s_link = scalars[:3]
    s_perm = scalars[3:]
    st = _statement(ctx, y, inputs, outputs)
    u_bytes, z_bytes = _challenges(st, n)
    u, z = [_int(x) for x in u_bytes], _int(z_bytes)
    beta = _chain_weights(st, chain)
    c = _int(_commitment_hash(st, points))
    # Weights of the random linear combination, fixed by the whole proof.
    seed = hashlib.sha512(_TAG + b"/batch" + st + proof).digest()
    a_link, a_prod, a_rel, a_key = (
        _int(GROUP.scalar_from_hash(seed, x)) for x in (b"l", b"p", b"r", b"k")
    )
    cz = c * z % ORDER
    # The equations, each "… − commitment = 0":
    #   links:    ŝ·B + Σ β_i·(s'_i + c·z)·ĉ_{i−1} − c·Σ β_i·ĉ_i − t̂
    #   product:  s_prod·B − c·(ĉ_N − P·H) − t_prod
    #   relation: Σ s'_i·b_i − s_k·Σ u_j·a_j − t_rel
    #   key:      s_k·B − c·Y − t_key
    base = (a_link * s_link + a_prod * s_prod + a_key * s_key) % ORDER
    if base == 0:
        return None
    target = 1
    for uj in u:
        target = target * (uj + z) % ORDER  # P = ∏ (u_j + z)
    terms: list[tuple[int, Point]] = [
        (a_link * beta[0] * (s_perm[0] + cz) + a_prod * c * target, H)
    ]
    for i in range(n):
        # ĉ_i: −β_i·c in the links, β_{i+1}·(s'_{i+1} + c·z) as the base of link i+1, and
        # −c in the product for ĉ_N.
        coef = -beta[i] * c
        if i + 1 < n:
            coef += beta[i + 1] * (s_perm[i + 1] + cz)
            terms.append((a_link * coef, chain[i]))
        else:
            terms.append((a_link * coef - a_prod * c, chain[i]))
    a_rel_sk = a_rel * s_key % ORDER
    for i in range(n):
        terms.append((a_rel * s_perm[i], outputs[i]))
        terms.append((-a_rel_sk * u[i], inputs[i]))
    terms += [(-a_link, t_link), (-a_prod, t_prod), (-a_rel, t_rel), (-a_key, t_key)]
    terms.append((-a_key * c, y))
    return base, terms


def _combination_v1(
    y: Point,
    inputs: Sequence[Point],
    outputs: Sequence[Point],
    proof: bytes,
    ctx: Context,
) -> tuple[int, list[tuple[int, Point]]] | None:
    """`_combination` for a first-version proof (a commitment t̂_i and a response ŝ_i per
    link: ĉ_1…ĉ_N, t̂_1…t̂_N, t_prod, t_rel, t_key, s_prod, s_k, ŝ_1…ŝ_N, s'_1…s'_N)."""
    n = len(inputs)
    if n < 1 or len(outputs) != n:
        return None
    split = _split(proof, n, 2 * n + 3, 2 * n + 2)
    if split is None:
        return None
    points, scalars = split
    chain, chain_t = points[:n], points[n : 2 * n]
    t_prod, t_rel, t_key = points[2 * n], points[2 * n + 1], points[2 * n + 2]
    s_prod, s_key = scalars[0], scalars[1]
    s_chain, s_perm = scalars[2 : 2 + n], scalars[2 + n :]
    st = _statement(ctx, y, inputs, outputs, _TAG_V1)
    u_bytes, z_bytes = _challenges(st, n)
    u, z = [_int(x) for x in u_bytes], _int(z_bytes)
    c = _int(_commitment_hash(st, points))
    # Weights of the random linear combination, fixed by the whole proof.
    seed = hashlib.sha512(_TAG_V1 + b"/batch" + st + proof).digest()
    beta = [_int(GROUP.scalar_from_hash(seed, i.to_bytes(4, "little"))) for i in range(n)]
    a_prod, a_rel, a_key = (_int(GROUP.scalar_from_hash(seed, x)) for x in (b"p", b"r", b"k"))
    cz = c * z % ORDER
    # The equations, each "… − commitment = 0":
    #   chain i:  ŝ_i·B + (s'_i + c·z)·ĉ_{i−1} − c·ĉ_i − t̂_i
    #   product:  s_prod·B − c·(ĉ_N − P·H) − t_prod
    #   relation: Σ s'_i·b_i − s_k·Σ u_j·a_j − t_rel
    #   key:      s_k·B − c·Y − t_key
    base = (
        a_prod * s_prod + a_key * s_key + sum(b * s for b, s in zip(beta, s_chain, strict=True))
    ) % ORDER
    target = 1
    for uj in u:
        target = target * (uj + z) % ORDER  # P = ∏ (u_j + z)
    terms: list[tuple[int, Point]] = [(beta[0] * (s_perm[0] + cz) + a_prod * c * target, H)]
    for i in range(n):
        # ĉ_i: −β_i·c in chain i, β_{i+1}·(s'_{i+1} + c·z) in chain i+1, −a_prod·c for ĉ_N.
        coef = -beta[i] * c
        if i + 1 < n:
            coef += beta[i + 1] * (s_perm[i + 1] + cz)
        else:
            coef -= a_prod * c
        terms.append((coef, chain[i]))
        terms.append((-beta[i], chain_t[i]))
    a_rel_sk = a_rel * s_key % ORDER
    for i in range(n):
        terms.append((a_rel * s_perm[i], outputs[i]))
        terms.append((-a_rel_sk * u[i], inputs[i]))
    terms += [(-a_prod, t_prod), (-a_rel, t_rel), (-a_key, t_key), (-a_key * c, y)]
    if base == 0:
        return None
    return base, terms


def _negate(p: Point) -> Point:
    """−p for a canonical encoding with x ≠ 0: the sign bit of x flipped."""
    return p[:31] + bytes([p[31] ^ 0x80])
