"""The prime-order group the card-privacy protocol computes in (privacy.md, "The group").

The prime-order subgroup of edwards25519, through libsodium as PyNaCl >= 1.6.2 binds it, and
only its ``*_noclamp`` functions.  Everything else in the protocol talks to this module through
`Ed25519Group` (hash-to-group, mul, mul_base, add, sub, valid and the scalar operations), so a
ristretto255 backend could replace it without touching the protocol.

Guards, each with a test:

* **Torsion (CVE-2025-69277).**  A libsodium whose ``is_valid_point`` accepts ``P + T2`` lets a
  cheater mark a card or learn a key's parity through the shuffle.  Importing this module runs
  `self_test`, which raises `UnsafeLibrary` on such a library: the protocol refuses to run.
* **Every point that arrives is validated.**  ``scalarmult_ed25519_noclamp`` itself refuses
  points outside the prime-order subgroup (torsion, small order, non-canonical encodings, the
  identity); `mul` turns that refusal into `InvalidPoint`.  Points that are only added or
  hashed go through `check` first.
* **Scalars** are always reduced (< l) and never zero; incoming scalars must be canonical.

The point operations call libsodium through PyNaCl's own cffi module (``nacl._sodium``, what
``nacl.bindings`` wraps) — the same functions, without the wrappers' per-call argument checks
and message formatting, which cost as much as an addition (the lengths are checked here).  The
scalar arithmetic modulo l is Python's: exact, and several times cheaper than a call.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Final

import nacl.bindings as _nb
from nacl._sodium import ffi as _ffi
from nacl._sodium import lib as _lib

_is_valid_point: Callable[[bytes], int] = _lib.crypto_core_ed25519_is_valid_point
"""libsodium's check (a name of its own: the tests put a library that accepts torsion here)."""

Point = bytes
"""A 32-byte encoded point of the prime-order subgroup."""
Scalar = bytes
"""A 32-byte little-endian scalar, reduced modulo the group order."""
RandomBytes = Callable[[int], bytes]
"""Where randomness comes from: ``os.urandom`` in a game, a seeded ``Random.randbytes`` in tests."""

ORDER: Final = 2**252 + 27742317777372353535851937790883648493
"""l, the order of the prime-order subgroup."""

POINT_BYTES: Final = 32
SCALAR_BYTES: Final = 32


class InvalidPoint(ValueError):
    """A point that is not an element of the prime-order subgroup (or not a point at all)."""


class InvalidScalar(ValueError):
    """A scalar that is not canonical (>= l), or zero where zero is not allowed."""


class UnsafeLibrary(RuntimeError):
    """The libsodium in use accepts torsion points: the protocol must not run on it."""


class Ed25519Group:
    """The group operations the protocol needs, counted (the benchmarks read `counts`)."""

    name: Final = "edwards25519-prime-order"

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.base: Point = _nb.crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(32, "little"))

    # --- points -------------------------------------------------------------------------

    def valid(self, p: bytes) -> bool:
        """Whether ``p`` encodes an element of the prime-order subgroup other than the identity."""
        self.counts["valid"] += 1
        return len(p) == POINT_BYTES and _is_valid_point(p) == 1

    def check(self, p: bytes, what: str = "point") -> Point:
        """``p`` if valid, else `InvalidPoint` naming ``what``."""
        if not isinstance(p, bytes) or not self.valid(p):
            raise InvalidPoint(f"{what} is not a point of the prime-order group")
        return p

    def mul(self, k: Scalar, p: bytes, what: str = "point") -> Point:
        """``k·p``; validates ``p`` on the way (libsodium refuses anything outside the subgroup)."""
        self.counts["mul"] += 1
        if not isinstance(p, bytes) or len(p) != POINT_BYTES:
            raise InvalidPoint(f"{what} is not a 32-byte point")
        if len(k) != SCALAR_BYTES or k[31] & 0x80:
            # (libsodium would drop bit 255 unseen: two scalars for one product.)
            raise InvalidScalar("a scalar is 32 bytes below 2^255")
        out = _ffi.new("unsigned char[32]")
        if _lib.crypto_scalarmult_ed25519_noclamp(out, k, p) != 0:
            # noclamp refuses: a point off the prime-order subgroup, a non-canonical encoding,
            # a small-order point, or a result at infinity (zero scalar, which we never use).
            raise InvalidPoint(f"{what} is not a point of the prime-order group")
        return bytes(_ffi.buffer(out, 32))

    def mul_base(self, k: Scalar) -> Point:
        """``k·B``."""
        self.counts["mul_base"] += 1
        if len(k) != SCALAR_BYTES or k[31] & 0x80:
            raise InvalidScalar("a scalar is 32 bytes below 2^255")
        out = _ffi.new("unsigned char[32]")
        if _lib.crypto_scalarmult_ed25519_base_noclamp(out, k) != 0:
            raise InvalidScalar("a zero scalar has no base multiple")
        return bytes(_ffi.buffer(out, 32))

    def add(self, p: Point, q: Point) -> Point:
        """``p + q`` (both already validated by the caller)."""
        self.counts["add"] += 1
        return self._core(_lib.crypto_core_ed25519_add, p, q)

    def sub(self, p: Point, q: Point) -> Point:
        """``p - q`` (both already validated by the caller)."""
        self.counts["sub"] += 1
        return self._core(_lib.crypto_core_ed25519_sub, p, q)

    @staticmethod
    def _core(fn: Callable[..., int], p: Point, q: Point) -> Point:
        if len(p) != POINT_BYTES or len(q) != POINT_BYTES:
            raise InvalidPoint("a point is 32 bytes")
        out = _ffi.new("unsigned char[32]")
        if fn(out, p, q) != 0:
            raise InvalidPoint("a point is not on the curve")
        return bytes(_ffi.buffer(out, 32))

    def hash_to_group(self, domain: bytes, message: bytes) -> Point:
        """``from_uniform(SHA-512(domain ‖ message)[:32])``: a point nobody knows the log of.

        from_uniform (Elligator 2) clears the cofactor, so the result is in the prime-order
        subgroup.  It takes 32 uniform bytes: the first half of the SHA-512 digest.
        """
        self.counts["hash_to_group"] += 1
        digest = hashlib.sha512(domain + message).digest()
        return bytes(_nb.crypto_core_ed25519_from_uniform(digest[:32]))

    # --- scalars ------------------------------------------------------------------------

    def scalar_reduce(self, wide: bytes) -> Scalar:
        """64 bytes -> a scalar mod l."""
        if len(wide) != 64:
            raise InvalidScalar("a wide scalar is 64 bytes")
        return (int.from_bytes(wide, "little") % ORDER).to_bytes(32, "little")

    def random_scalar(self, rng: RandomBytes) -> Scalar:
        """A uniform nonzero scalar: ``scalar_reduce(64 random bytes)``."""
        while True:
            k = self.scalar_reduce(rng(64))
            if any(k):
                return k

    def scalar_from_hash(self, *parts: bytes) -> Scalar:
        """A scalar from SHA-512 over length-prefixed parts (Fiat–Shamir challenges, weights)."""
        h = hashlib.sha512()
        for part in parts:
            h.update(len(part).to_bytes(4, "little"))
            h.update(part)
        return self.scalar_reduce(h.digest())

    def scalar_invert(self, k: Scalar) -> Scalar:
        self.counts["scalar_invert"] += 1
        return bytes(_nb.crypto_core_ed25519_scalar_invert(k))

    def scalar_mul(self, a: Scalar, b: Scalar) -> Scalar:
        return (_int(a) * _int(b) % ORDER).to_bytes(32, "little")

    def scalar_add(self, a: Scalar, b: Scalar) -> Scalar:
        return ((_int(a) + _int(b)) % ORDER).to_bytes(32, "little")

    def scalar_sub(self, a: Scalar, b: Scalar) -> Scalar:
        return ((_int(a) - _int(b)) % ORDER).to_bytes(32, "little")

    def check_scalar(self, k: bytes, what: str = "scalar", *, nonzero: bool = True) -> Scalar:
        """``k`` if it is a canonical scalar (and nonzero if asked), else `InvalidScalar`."""
        if not isinstance(k, bytes) or len(k) != SCALAR_BYTES:
            raise InvalidScalar(f"{what} is not a 32-byte scalar")
        n = int.from_bytes(k, "little")
        if n >= ORDER:
            raise InvalidScalar(f"{what} is not reduced modulo the group order")
        if nonzero and n == 0:
            raise InvalidScalar(f"{what} is zero")
        return k

    def total_ops(self, names: Iterable[str] = ("mul", "mul_base", "add", "sub", "valid")) -> int:
        return sum(self.counts[n] for n in names)


def _int(k: Scalar) -> int:
    if len(k) != SCALAR_BYTES:
        raise InvalidScalar("a scalar is 32 bytes")
    return int.from_bytes(k, "little")


T2: Final[Point] = (2**255 - 19 - 1).to_bytes(32, "little")
"""(0, -1), the point of order 2: the torsion mark of CVE-2025-69277."""


def self_test(group: Ed25519Group) -> None:
    """Refuse to run on a libsodium that accepts a torsion-marked point (CVE-2025-69277)."""
    p = group.hash_to_group(b"localdurak/self-test", b"")
    marked = bytes(_nb.crypto_core_ed25519_add(p, T2))
    if not group.valid(p) or group.valid(marked):
        raise UnsafeLibrary(
            "this libsodium accepts torsion points as valid (CVE-2025-69277): "
            "install PyNaCl >= 1.6.2 (with its bundled libsodium) before playing with card privacy"
        )
    try:
        group.mul(group.scalar_reduce(b"\x07" * 64), marked)
    except InvalidPoint:
        pass
    else:
        raise UnsafeLibrary("this libsodium multiplies torsion points (CVE-2025-69277)")
    group.counts.clear()


GROUP: Final = Ed25519Group()
"""The one group the protocol uses."""

self_test(GROUP)
