"""Identity signatures on what a player sends (lan.md "Trust"): pure functions of their inputs.

A device's Ed25519 identity key (kept by `localdurak.net.identity`) signs every game action and
card-privacy step the player originates, so that the host can only relay them, never forge or
alter them.  Verification needs only the public key, so the seat and host replicas
(`localdurak.protocol.table`) and the audit check signatures without touching a file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Final

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from nacl.bindings import crypto_sign_BYTES, crypto_sign_open, crypto_sign_PUBLICKEYBYTES
from nacl.exceptions import BadSignatureError

from localdurak.protocol.codec import canonical
from localdurak.protocol.errors import AuthFailed, ProtocolError

ACTION_DOMAIN: Final = b"localdurak-action/2"
"""What a seat signs under since records of ``localdurak-privacy/5``: its counter ``n`` is also
the order in which the host must take its steps (one connection delivers them so, and a
resend goes in that order), so a record that shows a seat's step taken after one the seat
signed later was altered; and ``seen``, how much of the log the seat had taken, so one that
shows it taken before that was altered too (docs/privacy.md "The order of a seat's steps").
The domain is what binds the seat to these: a record rewritten to an older format fails every
signature."""
UNORDERED_DOMAIN: Final = b"localdurak-action/1"
"""The domain of the older records (``localdurak-privacy/4``): the same fields, with no rule
about the order in which the host took a seat's steps; still verified by the audit."""


def public_key_bytes(key: Ed25519PublicKey) -> bytes:
    """The raw 32 bytes of an Ed25519 public key."""
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def action_payload(
    game: bytes,
    seat: int,
    n: int,
    kind: str,
    body: Any,
    *,
    seen: int = 0,
    domain: bytes = ACTION_DOMAIN,
) -> bytes:
    """What a player signs for one action or privacy step: the game, his seat, his own
    counter ``n`` (so a replayed or reordered message fails, and the host takes his steps in
    its order: `ACTION_DOMAIN`), ``seen`` (how many messages of the game's privacy log he had
    taken when he signed: the step cannot have come before them), the kind and the body.
    Under `UNORDERED_DOMAIN` (older records) there is no ``seen``."""
    if domain == UNORDERED_DOMAIN:
        return canonical([domain, game, seat, n, kind, body])
    return canonical([domain, game, seat, n, seen, kind, body])


def verify_action(
    key: bytes,
    sig: bytes,
    *,
    game: bytes,
    seat: int,
    n: int,
    kind: str,
    body: Any,
    seen: int = 0,
    domain: bytes = ACTION_DOMAIN,
) -> None:
    """Raise `AuthFailed` unless seat ``seat``'s key signed exactly this.

    Checked with libsodium (PyNaCl) rather than OpenSSL: the same Ed25519, verified in about
    half the time, and every client checks every relayed step on its path to the screen
    (benchmarks/net.py).  libsodium is also the stricter of the two: it refuses small-order
    keys and non-canonical signatures, which an honest signer never makes."""
    if (
        not isinstance(key, bytes)
        or len(key) != crypto_sign_PUBLICKEYBYTES
        or not isinstance(sig, bytes)
        or len(sig) != crypto_sign_BYTES
    ):
        raise AuthFailed(f"seat {seat}'s message #{n} ({kind}) has no valid key or signature")
    try:
        payload = action_payload(game, seat, n, kind, body, seen=seen, domain=domain)
    except ProtocolError:  # a body no signer could have encoded (an integer out of range)
        raise AuthFailed(f"seat {seat}'s message #{n} ({kind}) cannot have been signed") from None
    try:
        crypto_sign_open(sig + payload, key)
    except BadSignatureError:
        raise AuthFailed(
            f"seat {seat}'s signature on its message #{n} ({kind}) does not check out: "
            "it was forged or altered"
        ) from None


SETUP_DOMAIN: Final = b"localdurak-setup/1"


def setup_digest(
    *,
    game: bytes,
    number: int,
    rules: Any,
    dealer: int,
    names: Sequence[str],
    keys: Sequence[bytes],
    previous: Any,
) -> bytes:
    """What every signed step of a game binds besides itself: the game as the host announced
    it (`GameStarted`) — its id, its number in the series, the table options (records.md
    ``rules``, non-defaults only), the dealer, every seat's name and identity key in seat
    order, and the previous game's result (R-F2).  A seat signs its steps under this digest of
    what *it* was told, so its commit (its privacy key) and all it played are bound to its
    name and identity, and to the setup; a record whose names, rules or seats were rewritten,
    or a host that told two seats different things, fails every signature."""
    return hashlib.sha256(
        canonical(
            [
                SETUP_DOMAIN,
                game,
                number,
                dict(rules),
                dealer,
                list(names),
                list(keys),
                previous,
            ]
        )
    ).digest()


def key_fingerprint(key: bytes) -> str:
    """A device identity key as a person compares it: the first 64 bits of its SHA-256, in
    four groups of four hex digits ("3F9A-1C2E-77B0-04D1")."""
    digest = hashlib.sha256(b"localdurak-identity/1" + key).hexdigest()[:16].upper()
    return "-".join(digest[i : i + 4] for i in range(0, 16, 4))
