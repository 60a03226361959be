"""Saved state as versioned msgpack, never code (it must survive an upgrade and never run).

A seat's saved game (`SeatGame.freeze`), a host bot's seat and a client's session are object
graphs of the project's own plain classes (dataclasses, the transcript, the engine).  They
used to be pickled, and a pickle runs whatever code its bytes name.  A snapshot is msgpack:
a header (`FORMAT`, `VERSION`, the names of the classes it holds) and a tree in which every
container is a list whose first item is a tag.  Reading builds only classes of an explicit
list (`ALLOWED_MODULES` plus what the caller names), by their names, without calling their
``__init__``, and never imports or calls anything named by the bytes; shared and cyclic
references come back shared (``[REF, n]``).

An old pickle is refused with a message (`SnapshotError`), never loaded; so is a snapshot of
a version this one does not read (`READS`).  No I/O here (the layer is sans-I/O):
`net.table_store.write_atomic` writes a bot's snapshot to a temporary file renamed over the
old one, and a client writes its seat's over the older of two files (`net.client_saved`), so
a whole snapshot is always on disk, never an append log.
"""

from __future__ import annotations

import collections
import enum
import importlib
import types
from collections.abc import Iterable
from typing import Any

import msgpack

FORMAT = "localdurak-snapshot"
VERSION = 2
"""What this version writes.  2: a seat's transcript without the deck's tables (they follow
from its setup, `privacy.transcript.DECK_TABLES`); a version that reads only 1 would take a
2 for whole and break at its first card, so it refuses it with its message instead."""
READS = (1, 2)
"""What this version reads: 1 is 2 with the deck's tables in every transcript."""

ALLOWED_MODULES = (
    "localdurak.game.actions",
    "localdurak.game.cards",
    "localdurak.game.rules",
    "localdurak.game.engine",
    "localdurak.game.outcome",
    "localdurak.game.bout",
    "localdurak.protocol.messages",
    "localdurak.protocol.privacy.events",
    "localdurak.protocol.privacy.messages",
    "localdurak.protocol.privacy.schedule",
    "localdurak.protocol.privacy.transcript",
    "localdurak.protocol.privacy.roles",
    "localdurak.protocol.privacy.record",
    "localdurak.protocol.privacy.shuffle",
    "localdurak.protocol.privacy.proofs",
)
"""The modules whose classes a snapshot may hold (those missing in this version are skipped)."""

# Tags: the first item of every list in the tree.
LIST, TUPLE, DICT, SET, FROZENSET, DEQUE, OBJ, ENUM, INTSUB, BIGINT, REF, FUNC = range(12)

_CODE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1
_PLAIN = frozenset({str, bytes, float, bool, type(None)})
"""Types a snapshot holds as they are (and ints in `_INT_MIN`..`_INT_MAX`): `_Encoder.enc`
takes them out of a container without a call (a seat's save was a call per scalar)."""


class SnapshotError(ValueError):
    """A saved state that this version does not load (says why, for a person)."""


def is_pickle(data: bytes) -> bool:
    """Whether ``data`` is what older versions saved (refused, never loaded): a pickle
    (protocol 2+ starts with 0x80), or an append log of length-prefixed pickles (4 bytes of
    length, then 0x80)."""
    return data[:1] == b"\x80" or (len(data) > 5 and data[4:5] == b"\x80")


class _Registry:
    """The classes a snapshot may hold, by name: the bare class name where it is unique (so
    that a class moved to another module still reads), its module's too where it is not."""

    def __init__(self, extra: Iterable[type[Any]]) -> None:
        self.by_name: dict[str, type[Any]] = {}
        short: dict[str, set[type[Any]]] = {}
        found: list[type[Any]] = []
        for name in ALLOWED_MODULES:
            try:
                module = importlib.import_module(name)
            except ImportError:
                continue
            found += [v for v in vars(module).values() if isinstance(v, type)]
        for cls in [*found, *extra]:
            if issubclass(cls, BaseException) or not cls.__module__.startswith("localdurak."):
                continue
            self.by_name[f"{cls.__module__}.{cls.__qualname__}"] = cls
            short.setdefault(cls.__qualname__, set()).add(cls)
        for name, classes in short.items():
            if len(classes) == 1:
                self.by_name[name] = next(iter(classes))

    def name_of(self, cls: type[Any]) -> str:
        name = cls.__qualname__
        if self.by_name.get(name) is cls:
            return name
        full = f"{cls.__module__}.{name}"
        if self.by_name.get(full) is not cls:
            raise SnapshotError(f"{full} is not a class a snapshot may hold")
        return full


_SLOTS: dict[type[Any], list[str]] = {}


def _slots(cls: type[Any]) -> list[str]:
    found = _SLOTS.get(cls)
    if found is None:
        found = _SLOTS[cls] = _slots_of(cls)
    return found


def _slots_of(cls: type[Any]) -> list[str]:
    names: list[str] = []
    for klass in cls.__mro__:
        slots = vars(klass).get("__slots__", ())
        if isinstance(slots, str):
            slots = (slots,)
        names += [s for s in slots if s not in ("__dict__", "__weakref__")]
    return names


_CLEAN: dict[int, tuple[tuple[Any, ...], list[Any], int]] = {}
"""Tuples of scalars (and of such tuples) as encoded before, by id: the tuple (kept alive, so
its id is not reused), its node, and how many objects the node holds (the slots a reader
gives them).  Such a tuple cannot change, so its node is taken again instead of encoded again
at every save (a seat saves its transcript's checked strips, its stages and the deck's
points before every step it sends: most of them were there at the save before)."""
_CLEAN_MAX = 50_000


class _Encoder:
    def __init__(self, registry: _Registry) -> None:
        self.registry = registry
        self.memo: dict[int, int] = {}
        """Each object encoded so far (by id): the slot the reader gives it (`n` at the time)."""
        self.n = 0
        self.taint = 0
        """Counts what a node taken again (`_CLEAN`) may not hold: a reference, anything but a
        tuple or a scalar."""
        self.keep: list[Any] = []  # what the memo's ids stand for, alive until the end
        self.classes: list[str] = []
        self.class_ix: dict[str | type[Any], int] = {}
        """Index in `classes` by name, and by class (a cache of `cls`)."""
        self.int_ix: dict[type[Any], int] = {}
        """Index in `classes` of each int subclass (a card) met so far."""

    def cls(self, cls: type[Any]) -> int:
        name = self.registry.name_of(cls)
        if name not in self.class_ix:
            self.class_ix[name] = len(self.classes)
            self.classes.append(name)
        return self.class_ix[name]

    def enc(self, o: Any) -> Any:
        t = type(o)
        if t in _PLAIN:
            return o
        if t is int:
            if _INT_MIN <= o <= _INT_MAX:
                return o
            return [BIGINT, o.to_bytes((o.bit_length() + 8) // 8, "big", signed=True)]
        seen = self.memo.get(id(o))
        if seen is not None:
            self.taint += 1
            return [REF, seen]
        # A container's scalars are taken as they are, without a call (`_PLAIN`, and the ints
        # msgpack holds): a seat's save was a call per scalar.
        enc = self.enc
        plain = _PLAIN
        if t is tuple:
            clean = _CLEAN.get(id(o))
            if clean is not None and clean[0] is o:
                self.memo[id(o)] = self.n
                self.n += clean[2]
                self.keep.append(o)
                return clean[1]
            first, taint = self.n, self.taint
            self.memo[id(o)] = first
            self.n = first + 1
            self.keep.append(o)
            node = [
                TUPLE,
                *[
                    x
                    if (tx := type(x)) in plain or (tx is int and _INT_MIN <= x <= _INT_MAX)
                    else enc(x)
                    for x in o
                ],
            ]
            if self.taint == taint:
                if len(_CLEAN) >= _CLEAN_MAX:
                    _CLEAN.clear()
                _CLEAN[id(o)] = (o, node, self.n - first)
            return node
        self.taint += 1
        ix = self.int_ix.get(t)
        if ix is not None:
            self.memo[id(o)] = self.n
            self.n += 1
            self.keep.append(o)
            return [INTSUB, ix, int(o)]
        if t is list:
            self.memo[id(o)] = self.n
            self.n += 1
            self.keep.append(o)
            return [
                LIST,
                *[
                    x
                    if (tx := type(x)) in plain or (tx is int and _INT_MIN <= x <= _INT_MAX)
                    else enc(x)
                    for x in o
                ],
            ]
        if t is dict:
            self.memo[id(o)] = self.n
            self.n += 1
            self.keep.append(o)
            out: list[Any] = [DICT]
            put = out.append
            for k, v in o.items():
                # Keys as values: a seat's dicts are keyed by positions and points.
                put(
                    k
                    if (tk := type(k)) in plain or (tk is int and _INT_MIN <= k <= _INT_MAX)
                    else enc(k)
                )
                put(
                    v
                    if (tv := type(v)) in plain or (tv is int and _INT_MIN <= v <= _INT_MAX)
                    else enc(v)
                )
            return out
        if t is bytearray:
            return bytes(o)
        if isinstance(o, _CODE):
            raise SnapshotError(f"a snapshot holds no code ({o!r})")
        self.memo[id(o)] = self.n
        self.n += 1
        self.keep.append(o)
        if t is set or t is frozenset or t is collections.deque:
            items = [
                x
                if (tx := type(x)) in plain or (tx is int and _INT_MIN <= x <= _INT_MAX)
                else enc(x)
                for x in o
            ]
            if t is collections.deque:
                return [DEQUE, o.maxlen, *items]
            return [SET if t is set else FROZENSET, *items]
        ix = self.class_ix.get(t)
        if ix is None:
            ix = self.class_ix[t] = self.cls(t)
        if isinstance(o, enum.Enum):
            return [ENUM, ix, enc(o._value_)]
        if isinstance(o, int):
            self.int_ix[t] = ix
            return [INTSUB, ix, int(o)]
        fields: list[Any] = [OBJ, ix]
        if isinstance(o, tuple):  # a NamedTuple (the game's outcome events): its fields
            for name, value in zip(t._fields, o, strict=True):
                fields += [name, enc(value)]
            return fields
        d = getattr(o, "__dict__", None)
        slots = _slots(t)
        if slots:
            state = dict(d) if d is not None else {}
            for name in slots:
                if hasattr(o, name):
                    state[name] = getattr(o, name)
            d = state
        put = fields.append
        for name, value in d.items() if d is not None else ():
            put(name)
            put(
                value
                if (tv := type(value)) in plain or (tv is int and _INT_MIN <= value <= _INT_MAX)
                else enc(value)
            )
        return fields


class _Decoder:
    def __init__(self, registry: _Registry, classes: list[str]) -> None:
        try:
            self.classes = [registry.by_name[name] for name in classes]
        except KeyError as e:
            raise SnapshotError(f"saved by another version (it holds {e.args[0]!r})") from None
        self.memo: list[Any] = []

    def _slot(self) -> int:
        self.memo.append(_UNFILLED)
        return len(self.memo) - 1

    def dec(self, node: Any) -> Any:
        if not isinstance(node, list):
            if isinstance(node, dict):
                raise SnapshotError("a map where the tree has none")
            return node
        if not node or not isinstance(node[0], int):
            raise SnapshotError("a list without its tag")
        tag = node[0]
        if tag == REF:
            o = self.memo[node[1]]
            if o is _UNFILLED:
                raise SnapshotError("a reference into an object still being read")
            return o
        if tag == BIGINT:
            return int.from_bytes(node[1], "big", signed=True)
        if tag == FUNC:
            raise SnapshotError(f"{node[1]!r} is not a function a snapshot may name")
        if tag == LIST:
            out: list[Any] = []
            self.memo.append(out)
            out += [self.dec(x) for x in node[1:]]
            return out
        if tag == DICT:
            d: dict[Any, Any] = {}
            self.memo.append(d)
            items = node[1:]
            for i in range(0, len(items), 2):
                d[self.dec(items[i])] = self.dec(items[i + 1])
            return d
        if tag == SET:
            s: set[Any] = set()
            self.memo.append(s)
            s.update(self.dec(x) for x in node[1:])
            return s
        if tag == DEQUE:
            q: collections.deque[Any] = collections.deque(maxlen=node[1])
            self.memo.append(q)
            q.extend(self.dec(x) for x in node[2:])
            return q
        if tag in (TUPLE, FROZENSET, ENUM, INTSUB):
            at = self._slot()
            value: Any
            if tag == TUPLE:
                value = tuple(self.dec(x) for x in node[1:])
            elif tag == FROZENSET:
                value = frozenset(self.dec(x) for x in node[1:])
            elif tag == ENUM:
                value = self.classes[node[1]](self.dec(node[2]))
            else:
                value = self.classes[node[1]](node[2])
            self.memo[at] = value
            return value
        if tag == OBJ:
            cls = self.classes[node[1]]
            if issubclass(cls, tuple):  # a NamedTuple, made from its fields by name
                at = self._slot()
                items = node[2:]
                try:
                    made = cls(
                        **{items[i]: self.dec(items[i + 1]) for i in range(0, len(items), 2)}
                    )
                except TypeError as e:
                    raise SnapshotError(f"{cls.__qualname__}: {e}") from None
                self.memo[at] = made
                return made
            obj = object.__new__(cls)
            self.memo.append(obj)
            items = node[2:]
            state = {items[i]: self.dec(items[i + 1]) for i in range(0, len(items), 2)}
            setstate = getattr(cls, "__setstate__", None)
            if setstate is not None and hasattr(obj, "__dict__") and not _slots(cls):
                setstate(obj, state)
            else:
                for name, v in state.items():
                    object.__setattr__(obj, name, v)
            return obj
        raise SnapshotError(f"unknown tag {tag}")


_UNFILLED = object()


_REGISTRIES: dict[tuple[type[Any], ...], _Registry] = {}


def _registry(classes: Iterable[type[Any]]) -> _Registry:
    """The registry for these extra classes, built once: building one imports and scans every
    allowed module, which cost more than the encoding itself when a bot saved at every step."""
    key = tuple(classes)
    found = _REGISTRIES.get(key)
    if found is None:
        found = _REGISTRIES[key] = _Registry(key)
    return found


def dumps(obj: Any, *, kind: str, classes: Iterable[type[Any]] = ()) -> bytes:
    """The snapshot of ``obj`` (``kind`` names what it is: "seat", "bot", "session")."""
    enc = _Encoder(_registry(classes))
    tree = enc.enc(obj)
    head = {"format": FORMAT, "version": VERSION, "kind": kind, "classes": enc.classes}
    packed: bytes = msgpack.packb([head, tree], use_bin_type=True)
    return packed


def loads(data: bytes, *, kind: str, classes: Iterable[type[Any]] = ()) -> Any:
    """What `dumps` wrote; `SnapshotError` (with a reason for a person) for anything else."""
    if is_pickle(data):
        raise SnapshotError(
            "saved by an older version of Local Durak (a pickle): not loaded, for safety"
        )
    try:
        head, tree = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except (ValueError, TypeError, msgpack.UnpackException) as e:
        raise SnapshotError(f"not a saved state ({e})") from None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise SnapshotError("not a Local Durak saved state")
    version = head.get("version")
    if type(version) is not int or version not in READS:
        raise SnapshotError(
            f"saved by another version of Local Durak (format {version!r}, "
            f"this one reads {', '.join(map(str, READS))})"
        )
    if head.get("kind") != kind:
        raise SnapshotError(f"a saved {head.get('kind')!r}, not a {kind!r}")
    classes_named = head.get("classes")
    if not isinstance(classes_named, list):
        raise SnapshotError("a saved state without its classes")
    try:
        return _Decoder(_registry(classes), classes_named).dec(tree)
    except SnapshotError:
        raise
    except (IndexError, KeyError, TypeError, ValueError, AttributeError) as e:
        raise SnapshotError(f"a damaged saved state ({type(e).__name__}: {e})") from None
