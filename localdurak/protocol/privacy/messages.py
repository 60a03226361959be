"""The messages of the card-privacy protocol (docs/privacy.md has each one's meaning).

Frozen dataclasses.  ``to_dict`` gives only msgpack-friendly types (bytes, int, str, bool,
lists, dicts) with a ``"kind"`` tag, so the wire codec can carry them; ``message_from_dict``
checks every field's type and raises `MessageError` (a ValueError) for anything else.
For JSON (the game record) `to_json` / `message_from_json` write bytes as hex.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar


class MessageError(ValueError):
    """Not a message of the card-privacy protocol."""


def canonical(obj: Any) -> bytes:
    """The bytes a signed action is bound to: sorted-key compact JSON."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass(frozen=True, slots=True)
class _Message:
    KIND: ClassVar[str] = ""
    BYTES: ClassVar[frozenset[str]] = frozenset()
    """Fields holding bytes."""
    BYTES_LISTS: ClassVar[frozenset[str]] = frozenset()
    """Fields holding a list of bytes."""
    INT_LISTS: ClassVar[frozenset[str]] = frozenset()
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()
    """Fields an older record may lack (their default applies)."""

    seat: int

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.KIND}
        for f in fields(self):
            v = getattr(self, f.name)
            d[f.name] = (
                list(v) if isinstance(v, tuple) else (dict(v) if isinstance(v, Mapping) else v)
            )
        return d

    @classmethod
    def from_dict(cls, d: Any) -> Message:
        """The message ``d`` encodes; on a subclass, it must be of that kind."""
        msg = message_from_dict(d)
        if cls is not _Message and not isinstance(msg, cls):
            raise MessageError(f"a {msg.KIND} message where a {cls.KIND} was expected")
        return msg

    def to_json(self) -> dict[str, Any]:
        d = self.to_dict()
        for name in self.BYTES:
            d[name] = d[name].hex()
        for name in self.BYTES_LISTS:
            d[name] = [b.hex() for b in d[name]]
        return d


@dataclass(frozen=True, slots=True)
class Nonce(_Message):
    """Step 0: a seat's contribution to the game id, which is also its commitment
    H(domain ‖ seat ‖ seed) to the secret seed it reveals after the last shuffle (`Seed`)."""

    KIND: ClassVar[str] = "nonce"
    BYTES: ClassVar[frozenset[str]] = frozenset({"nonce"})
    nonce: bytes


@dataclass(frozen=True, slots=True)
class Commit(_Message):
    """Step 1: Y = k·B and a Schnorr proof of knowledge of k bound to (game id, seat)."""

    KIND: ClassVar[str] = "commit"
    BYTES: ClassVar[frozenset[str]] = frozenset({"key", "proof"})
    key: bytes
    proof: bytes


@dataclass(frozen=True, slots=True)
class Shuffle(_Message):
    """Step 2: deck_j = π_j(k_j·deck_{j−1}), the seat's shuffle stage, with a Schnorr signature
    over its input and output stages (so the host can neither forge a stage nor feed a
    shuffler another input than the one in the log, and a stage is evidence against the seat
    that signed it) and its proof of shuffle (privacy/shuffle.py: the stage is a permutation of
    its input under the committed key)."""

    KIND: ClassVar[str] = "shuffle"
    BYTES: ClassVar[frozenset[str]] = frozenset({"proof", "shuffle_proof"})
    BYTES_LISTS: ClassVar[frozenset[str]] = frozenset({"deck"})
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"shuffle_proof"})
    deck: tuple[bytes, ...]
    proof: bytes = b""
    shuffle_proof: bytes = b""
    """Empty only in a record of format /2, before proofs of shuffle (the audit says so)."""


@dataclass(frozen=True, slots=True)
class Seed(_Message):
    """Step 2b: the seed a seat committed to in its nonce, revealed (collected) once the last
    shuffle stage is in.  H(every seed, game id) orders the shuffled deck into the dealt deck,
    so no shuffler knows in advance which hand a position of its stage is dealt to."""

    KIND: ClassVar[str] = "seed"
    BYTES: ClassVar[frozenset[str]] = frozenset({"seed"})
    seed: bytes


@dataclass(frozen=True, slots=True)
class Refill(_Message):
    """The host ends a bout and starts its refill batch (R-B12); ``seat`` is the host's seat.
    Every player checks ``seats``, ``taker`` and ``taken`` against its own engine before
    stripping."""

    KIND: ClassVar[str] = "refill"
    INT_LISTS: ClassVar[frozenset[str]] = frozenset({"seats", "taken"})
    batch: int
    seats: tuple[int, ...]
    taker: int
    """The seat that took (R-B8), -1 when the table was beaten off: the bout is over."""
    taken: tuple[int, ...]
    """The cards it took (the whole table; R-P5: the uncovered ones); the rest is discarded."""


@dataclass(frozen=True, slots=True)
class Return(_Message):
    """R-S3, a challenged cheat: the host puts cards from the table back into the hands they
    came from (``owners[i]`` gets ``cards[i]``); they are public there from now on.  Every
    player checks it against its own engine."""

    KIND: ClassVar[str] = "return"
    INT_LISTS: ClassVar[frozenset[str]] = frozenset({"cards", "owners"})
    cards: tuple[int, ...]
    owners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Strip(_Message):
    """Step 3: the seat removed its layer from one chunk: outputs = k⁻¹·inputs, with one
    batched DLEQ proof.  The inputs are not sent: everyone takes them from the transcript."""

    KIND: ClassVar[str] = "strip"
    BYTES: ClassVar[frozenset[str]] = frozenset({"proof"})
    BYTES_LISTS: ClassVar[frozenset[str]] = frozenset({"outputs"})
    INT_LISTS: ClassVar[frozenset[str]] = frozenset({"positions"})
    batch: int
    owner: int
    positions: tuple[int, ...]
    outputs: tuple[bytes, ...]
    proof: bytes


@dataclass(frozen=True, slots=True)
class Answer(_Message):
    """R-F1, one rank of trump at a time: ``position`` >= 0 shows that card (DLEQ proof);
    ``position`` = -1 claims "not me" (a Schnorr signature; audited later)."""

    KIND: ClassVar[str] = "answer"
    BYTES: ClassVar[frozenset[str]] = frozenset({"proof"})
    rank: int
    position: int
    card: int
    proof: bytes


@dataclass(frozen=True, slots=True)
class Play(_Message):
    """Step 5: play (or show, ``shown``) the card at ``position``: the card and
    DLEQ(B, Y, M, X_position); the action is bound into the proof, which signs it.
    ``position`` -1: a card the seat took from the table (public), with a signature."""

    KIND: ClassVar[str] = "play"
    BYTES: ClassVar[frozenset[str]] = frozenset({"proof"})
    index: int
    position: int
    card: int
    shown: bool
    action: Mapping[str, Any]
    proof: bytes


@dataclass(frozen=True, slots=True)
class Act(_Message):
    """An action without a card (take, pass, ...), signed with the seat's key."""

    KIND: ClassVar[str] = "act"
    BYTES: ClassVar[frozenset[str]] = frozenset({"proof"})
    index: int
    action: Mapping[str, Any]
    proof: bytes


@dataclass(frozen=True, slots=True)
class KeyReveal(_Message):
    """Step 7: the seat's key k, revealed when the game ends (or is aborted)."""

    KIND: ClassVar[str] = "key"
    BYTES: ClassVar[frozenset[str]] = frozenset({"key"})
    key: bytes


Message = (
    Nonce | Commit | Shuffle | Seed | Refill | Return | Strip | Answer | Play | Act | KeyReveal
)

KINDS: dict[str, type[_Message]] = {
    c.KIND: c
    for c in (Nonce, Commit, Shuffle, Seed, Refill, Return, Strip, Answer, Play, Act, KeyReveal)
}


def _convert(cls: type[_Message], name: str, value: Any, hexed: bool) -> Any:
    if name in cls.BYTES:
        if hexed and isinstance(value, str):
            try:
                return bytes.fromhex(value)
            except ValueError:
                raise MessageError(f"{cls.KIND}.{name} is not hex") from None
        if not isinstance(value, bytes):
            raise MessageError(f"{cls.KIND}.{name} must be bytes")
        return value
    if name in cls.BYTES_LISTS:
        if not isinstance(value, list | tuple):
            raise MessageError(f"{cls.KIND}.{name} must be a list")
        return tuple(_convert_bytes(cls, name, v, hexed) for v in value)
    if name in cls.INT_LISTS:
        if not isinstance(value, list | tuple) or not all(_is_int(v) for v in value):
            raise MessageError(f"{cls.KIND}.{name} must be a list of integers")
        return tuple(value)
    if name == "action":
        if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
            raise MessageError(f"{cls.KIND}.action must be a map")
        try:
            canonical(value)  # what the proof signs: it must be JSON
        except (TypeError, ValueError, RecursionError):
            raise MessageError(f"{cls.KIND}.action must be a JSON object") from None
        return dict(value)
    if name == "shown":
        if not isinstance(value, bool):
            raise MessageError(f"{cls.KIND}.shown must be true or false")
        return value
    if not _is_int(value):
        raise MessageError(f"{cls.KIND}.{name} must be an integer")
    return value


def _convert_bytes(cls: type[_Message], name: str, v: Any, hexed: bool) -> bytes:
    if hexed and isinstance(v, str):
        try:
            return bytes.fromhex(v)
        except ValueError:
            raise MessageError(f"{cls.KIND}.{name} holds something that is not hex") from None
    if not isinstance(v, bytes):
        raise MessageError(f"{cls.KIND}.{name} must hold bytes")
    return v


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and -(2**31) <= v < 2**31


_NAMES: dict[type[_Message], tuple[str, ...]] = {}


def _names(cls: type[_Message]) -> tuple[str, ...]:
    """The fields of ``cls``, in order (`dataclasses.fields` was looked up for every step)."""
    found = _NAMES.get(cls)
    if found is None:
        found = _NAMES[cls] = tuple(f.name for f in fields(cls))
    return found


def message_from_dict(d: Any, *, hexed: bool = False) -> Message:
    """The message ``d`` encodes (``hexed``: bytes written as hex, as in the JSON record)."""
    if not isinstance(d, Mapping):
        raise MessageError("a message is a map")
    kind = d.get("kind")
    cls = KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MessageError(f"unknown message kind {d.get('kind')!r}")
    names = _names(cls)
    missing = [n for n in names if n not in d and n not in cls.OPTIONAL]
    if missing:
        raise MessageError(f"{cls.KIND} message lacks {', '.join(missing)}")
    kwargs = {n: _convert(cls, n, d[n], hexed) for n in names if n in d}
    return cls(**kwargs)  # type: ignore[return-value]


def message_from_json(d: Any) -> Message:
    return message_from_dict(d, hexed=True)
