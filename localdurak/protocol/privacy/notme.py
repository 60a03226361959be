"""R-F1's "not me", proven (privacy.md "Not me", proven): a seat holds no trump of the rank asked.

For each position p the seat was dealt, its value with only the seat's own layer left is
public, ``z = k·C`` (C the card there).  "Not me" for the card point M means ``k·M ≠ z`` for
every such p: a discrete-logarithm *inequality*, log_B Y ≠ log_M z (Camenisch–Shoup 2003,
"Practical verifiable encryption and decryption of discrete logarithms", §5), proven without
revealing k or C:

* the prover picks r and publishes ``D = r·(k·M − z)`` — the identity exactly when k·M = z;
* it proves knowledge of (a, b) = (r·k, r) with ``D = a·M − b·z`` and ``0 = a·B − b·Y``
  (one challenge for both; the second forces a = b·k, so D = b·(k·M − z));
* the verifier checks the proof and that D is not the identity.

Zero-knowledge: D is a uniformly random point (r uniform), and the proof is a Schnorr-style
proof of a representation.  A proof per position is 128 bytes (D, c, s_a, s_b); the prover
pays 4 multiplications and a base multiplication per position (k·M once), the verifier 4
multiplications and a base multiplication.

Fiat–Shamir: c = H(tag, `Context` (game id, seat, ``not-me/<rank>``, the position), B, Y, M,
z, D, the two commitments): a proof is bound to its game, seat, rank and position.
"""

from __future__ import annotations

import hashlib

from .group import GROUP, InvalidPoint, InvalidScalar, Point, RandomBytes, Scalar
from .proofs import Context

_TAG = b"localdurak/not-me/v1"
PROOF_BYTES = 128
_IDENTITY = (1).to_bytes(32, "little")


def _challenge(
    ctx: Context, y: Point, m: Point, z: Point, d: Point, t1: Point, t2: Point
) -> Scalar:
    """c = H(tag, context, B, Y, M, z, D, t1, t2)."""
    return GROUP.scalar_from_hash(_TAG, ctx.encode(), GROUP.base, y, m, z, d, t1, t2)


def not_me_prove(
    rng: RandomBytes, k: Scalar, y: Point, km: Point, m: Point, z: Point, ctx: Context
) -> bytes:
    """Prove k·M ≠ z (``km`` = k·M, computed once for all positions)."""
    if km == z:
        raise ValueError("the seat holds that card: 'not me' cannot be proven")
    seed = hashlib.sha512(rng(32) + k + ctx.encode() + z).digest()
    r = GROUP.scalar_from_hash(seed, b"r")
    alpha = GROUP.scalar_from_hash(seed, b"a")
    beta = GROUP.scalar_from_hash(seed, b"b")
    d = GROUP.mul(r, GROUP.sub(km, z))
    t1 = GROUP.sub(GROUP.mul(alpha, m), GROUP.mul(beta, z))
    t2 = GROUP.sub(GROUP.mul_base(alpha), GROUP.mul(beta, y))
    c = _challenge(ctx, y, m, z, d, t1, t2)
    s_a = GROUP.scalar_add(alpha, GROUP.scalar_mul(c, GROUP.scalar_mul(r, k)))
    s_b = GROUP.scalar_add(beta, GROUP.scalar_mul(c, r))
    return d + c + s_a + s_b


def not_me_verify(y: Point, m: Point, z: Point, proof: bytes, ctx: Context) -> bool:
    """Whether ``proof`` shows log_B y ≠ log_m z (the seat's layer over ``z`` is no M)."""
    if not isinstance(proof, bytes) or len(proof) != PROOF_BYTES:
        return False
    d, c, s_a, s_b = proof[:32], proof[32:64], proof[64:96], proof[96:]
    try:
        if d == _IDENTITY:
            return False  # k·M = z: the seat holds the card
        for s in (c, s_a, s_b):
            GROUP.check_scalar(s, "a scalar of a 'not me' proof")
        # t1 = s_a·M − s_b·z − c·D,  t2 = s_a·B − s_b·Y  (validates M, z, D, Y).
        t1 = GROUP.sub(GROUP.sub(GROUP.mul(s_a, m), GROUP.mul(s_b, z)), GROUP.mul(c, d))
        t2 = GROUP.sub(GROUP.mul_base(s_a), GROUP.mul(s_b, y))
    except (InvalidPoint, InvalidScalar):
        return False
    return _challenge(ctx, y, m, z, d, t1, t2) == c
