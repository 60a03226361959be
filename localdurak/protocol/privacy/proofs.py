"""Zero-knowledge proofs of the card-privacy protocol: pure functions, randomness as a parameter.

* `schnorr_prove` / `schnorr_verify`: knowledge of k with Y = k·B (the commitment, privacy.md
  step 1; with the action in the context it doubles as a signature of that action).
* `dleq_prove` / `dleq_verify`: Chaum–Pedersen, log_B Y = log_U V (play or show a card, step 5).
* `batch_dleq_prove` / `batch_dleq_verify`: the same for many pairs at once (layer removal,
  step 3): with hash-derived weights w_0 = 1, w_i = H(everything, i), it proves
  log_B Y = log_{ΣwU} ΣwV, which a cheater satisfies with probability about 1/l.

Fiat–Shamir: every challenge hashes a domain tag, the `Context` (game id, seat, step,
positions), B, Y and every point the statement involves, and the prover's commitments.  A proof
therefore does not verify in another game, for another seat, at another step or position.

A proof is 64 bytes: the challenge c and the response s.  The verifier recomputes the commitments
R1 = s·B − c·Y, R2 = s·U − c·V and checks that they hash to c.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from .group import GROUP, InvalidPoint, InvalidScalar, Point, RandomBytes, Scalar

PROOF_BYTES = 64


@dataclass(frozen=True, slots=True)
class Context:
    """What a proof is bound to: replaying it anywhere else fails."""

    game_id: bytes
    seat: int
    step: str
    positions: tuple[int, ...] = ()
    extra: bytes = b""
    """Further bytes bound into the challenge (e.g. the canonical encoding of a signed action)."""

    def encode(self) -> bytes:
        pos = b"".join(p.to_bytes(2, "little") for p in self.positions)
        parts = (
            self.game_id,
            self.seat.to_bytes(2, "little"),
            self.step.encode(),
            len(self.positions).to_bytes(2, "little") + pos,
            self.extra,
        )
        return b"".join(len(p).to_bytes(4, "little") + p for p in parts)


def _challenge(tag: bytes, ctx: Context, points: Sequence[bytes]) -> Scalar:
    return GROUP.scalar_from_hash(tag, ctx.encode(), GROUP.base, *points)


def _nonce(rng: RandomBytes, k: Scalar, ctx: Context, points: Sequence[bytes]) -> Scalar:
    """The commitment scalar r: fresh randomness hedged with the key and the statement, so a
    weak random source alone cannot leak k."""
    h = hashlib.sha512(rng(32) + k + ctx.encode() + b"".join(points))
    r = GROUP.scalar_reduce(h.digest())
    return r if any(r) else GROUP.random_scalar(rng)


def _split(proof: bytes) -> tuple[Scalar, Scalar]:
    if not isinstance(proof, bytes) or len(proof) != PROOF_BYTES:
        raise InvalidScalar("a proof is 64 bytes")
    c, s = proof[:32], proof[32:]
    # Zero c or s happens to an honest prover with probability 2/l: refuse them outright.
    GROUP.check_scalar(c, "the proof's challenge")
    GROUP.check_scalar(s, "the proof's response")
    return c, s


def _respond(r: Scalar, c: Scalar, k: Scalar) -> Scalar:
    return GROUP.scalar_add(r, GROUP.scalar_mul(c, k))


# --- Schnorr --------------------------------------------------------------------------------

_SCHNORR = b"localdurak/schnorr/v1"


def schnorr_prove(rng: RandomBytes, k: Scalar, y: Point, ctx: Context) -> bytes:
    """Prove knowledge of k = log_B y, bound to ``ctx``."""
    r = _nonce(rng, k, ctx, (y,))
    r1 = GROUP.mul_base(r)
    c = _challenge(_SCHNORR, ctx, (y, r1))
    return c + _respond(r, c, k)


def schnorr_verify(y: Point, proof: bytes, ctx: Context) -> bool:
    """Whether ``proof`` proves knowledge of log_B y in ``ctx`` (y must be a valid point)."""
    try:
        c, s = _split(proof)
        r1 = _lin(s, c, None, y)
    except (InvalidPoint, InvalidScalar):
        return False
    return _challenge(_SCHNORR, ctx, (y, r1)) == c


def _lin(s: Scalar, c: Scalar, u: Point | None, v: Point) -> Point:
    """s·U − c·V (U = B when ``u`` is None).  Validates U and V through the multiplications."""
    su = GROUP.mul_base(s) if u is None else GROUP.mul(s, u)
    return GROUP.sub(su, GROUP.mul(c, v))


# --- Chaum–Pedersen -------------------------------------------------------------------------

_DLEQ = b"localdurak/dleq/v1"


def dleq_prove(rng: RandomBytes, k: Scalar, y: Point, u: Point, v: Point, ctx: Context) -> bytes:
    """Prove log_B y = log_u v (= k), bound to ``ctx``."""
    r = _nonce(rng, k, ctx, (y, u, v))
    r1 = GROUP.mul_base(r)
    r2 = GROUP.mul(r, u)
    c = _challenge(_DLEQ, ctx, (y, u, v, r1, r2))
    return c + _respond(r, c, k)


def dleq_verify(y: Point, u: Point, v: Point, proof: bytes, ctx: Context) -> bool:
    """Whether ``proof`` shows log_B y = log_u v in ``ctx``; invalid points make it false."""
    try:
        c, s = _split(proof)
        r1 = _lin(s, c, None, y)
        r2 = _lin(s, c, u, v)
    except (InvalidPoint, InvalidScalar):
        return False
    return _challenge(_DLEQ, ctx, (y, u, v, r1, r2)) == c


# --- batched Chaum–Pedersen -----------------------------------------------------------------

_BATCH = b"localdurak/batch-dleq/v1"


def _weights(
    ctx: Context, y: Point, us: Sequence[Point], vs: Sequence[Point]
) -> tuple[list[Scalar], Context]:
    """The weights w_0 = 1, w_i = H(seed, i), and the context of the combined proof, whose
    challenge thereby hashes every point of the batch."""
    seed = hashlib.sha512(_BATCH + ctx.encode() + y + b"".join(us) + b"".join(vs)).digest()
    one = (1).to_bytes(32, "little")
    w = [one] + [GROUP.scalar_from_hash(seed, i.to_bytes(4, "little")) for i in range(1, len(us))]
    inner = Context(ctx.game_id, ctx.seat, ctx.step + "/batch", ctx.positions, ctx.extra + seed)
    return w, inner


def _combine(weights: Sequence[Scalar], points: Sequence[Point], what: str) -> Point:
    # w_0 = 1: the first point enters unmultiplied, so validate it explicitly.
    acc = GROUP.check(points[0], what)
    for w, p in zip(weights[1:], points[1:], strict=True):
        acc = GROUP.add(acc, GROUP.mul(w, p, what))
    return acc


def batch_dleq_prove(
    rng: RandomBytes,
    k: Scalar,
    y: Point,
    us: Sequence[Point],
    vs: Sequence[Point],
    ctx: Context,
) -> bytes:
    """Prove v_i = k·u_i for every i and y = k·B, in one proof (the prover knows vs = k·us)."""
    if not us or len(us) != len(vs):
        raise ValueError("a batched proof needs as many u as v, at least one")
    w, inner = _weights(ctx, y, us, vs)
    u = _combine(w, us, "a point")
    v = GROUP.mul(k, u)
    return dleq_prove(rng, k, y, u, v, inner)


def batch_dleq_verify(
    y: Point, us: Sequence[Point], vs: Sequence[Point], proof: bytes, ctx: Context
) -> bool:
    """Whether ``proof`` shows v_i = log_B(y)·u_i for every i; invalid points make it false."""
    if not us or len(us) != len(vs):
        return False
    try:
        w, inner = _weights(ctx, y, us, vs)
        u = _combine(w, us, "a point")
        v = _combine(w, vs, "a point")
    except InvalidPoint:
        return False
    return dleq_verify(y, u, v, proof, inner)
