"""The schema language of the wire messages (docs/protocol.md §2): how each field of a message
is checked on the way in (``load``, which validates and builds the Python value) and written on
the way out (``dump``).  The messages themselves are in `localdurak.protocol.messages`.

A message class names its fields with `schema({...})`; `load_fields` builds one from a decoded
map and refuses anything else with `BadMessage`; `dump_fields` is the way back.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final

from localdurak.protocol.codec import check_plain
from localdurak.protocol.errors import BadFrame, BadMessage, ProtocolError

# A schema turns a wire value into the field's Python value (``load``, which validates) and
# back (``dump``).  ``where`` names the field in error messages.


class Spec:
    def load(self, value: Any, where: str) -> Any:
        raise NotImplementedError

    def dump(self, value: Any) -> Any:
        return value


def bad(where: str, what: str, value: Any) -> BadMessage:
    shown = repr(value)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return BadMessage(f"{where} must be {what}, not {shown}")


class Int(Spec):
    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi

    def load(self, value: Any, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad(where, "a whole number", value)
        if not self.lo <= value <= self.hi:
            raise bad(where, f"between {self.lo} and {self.hi}", value)
        return value


class Bool(Spec):
    def load(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise bad(where, "true or false", value)
        return value


CONTROL_CHARS: Final = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")


RULE_ID: Final = re.compile(r"R-[A-Z0-9a-z]{1,14}")


class Str(Spec):
    """A string of at most ``max_len`` characters.  ``text=True`` refuses control and
    bidirectional-override characters: names end up on other people's terminals."""

    def __init__(
        self, max_len: int, *, min_len: int = 0, text: bool = True, pattern: str | None = None
    ) -> None:
        self.max_len, self.min_len, self.text = max_len, min_len, text
        self.pattern = re.compile(pattern) if pattern else None

    def load(self, value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise bad(where, "a string", value)
        if not self.min_len <= len(value) <= self.max_len:
            raise bad(where, f"{self.min_len}..{self.max_len} characters long", value)
        if self.text and CONTROL_CHARS.search(value):
            raise bad(where, "text without control characters", value)
        if self.pattern is not None and not self.pattern.fullmatch(value):
            raise bad(where, f"of the form {self.pattern.pattern}", value)
        return value


class Bytes(Spec):
    def __init__(self, min_len: int, max_len: int) -> None:
        self.min_len, self.max_len = min_len, max_len

    def load(self, value: Any, where: str) -> bytes:
        if not isinstance(value, bytes):
            raise bad(where, "binary", value)
        if not self.min_len <= len(value) <= self.max_len:
            size = (
                f"{self.min_len} bytes"
                if self.min_len == self.max_len
                else f"{self.min_len}..{self.max_len} bytes"
            )
            raise bad(where, size, f"{len(value)} bytes")
        return value


class Choice(Spec):
    def __init__(self, enum: type[StrEnum]) -> None:
        self.enum = enum

    def load(self, value: Any, where: str) -> StrEnum:
        try:
            return self.enum(value) if isinstance(value, str) else self.enum("\0")
        except ValueError:
            words = ", ".join(repr(e.value) for e in self.enum)
            raise bad(where, f"one of {words}", value) from None

    def dump(self, value: Any) -> Any:
        return value.value


class Opt(Spec):
    """``None`` or the inner schema."""

    def __init__(self, inner: Spec) -> None:
        self.inner = inner

    def load(self, value: Any, where: str) -> Any:
        return None if value is None else self.inner.load(value, where)

    def dump(self, value: Any) -> Any:
        return None if value is None else self.inner.dump(value)


class ListOf(Spec):
    def __init__(self, inner: Spec, max_items: int, *, unique: bool = False) -> None:
        self.inner, self.max_items, self.unique = inner, max_items, unique

    def load(self, value: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise bad(where, "a list", value)
        if len(value) > self.max_items:
            raise bad(where, f"a list of at most {self.max_items} items", f"{len(value)} items")
        out = tuple(self.inner.load(v, f"{where}[{i}]") for i, v in enumerate(value))
        if self.unique and len(set(out)) != len(out):
            raise bad(where, "a list without repeats", value)
        return out

    def dump(self, value: Any) -> Any:
        return [self.inner.dump(v) for v in value]


class Plain(Spec):
    """Any plain msgpack value (nil, bool, int, float, str, bin, list, str-keyed map), at most
    ``max_depth`` deep: the opaque payloads whose meaning another module checks."""

    def __init__(self, max_depth: int = 16, *, mapping: bool = False) -> None:
        self.max_depth, self.mapping = max_depth, mapping

    def load(self, value: Any, where: str) -> Any:
        if self.mapping and not isinstance(value, dict):
            raise bad(where, "a map", value)
        try:
            check_plain(value, max_depth=self.max_depth)
        except BadFrame as e:
            raise BadMessage(f"{where}: {e.message}") from None
        return value


class StructSpec(Spec):
    """A nested frozen dataclass with its own ``SCHEMA`` (e.g. `SeatInfo`)."""

    def __init__(self, cls: type[Any]) -> None:
        self.cls = cls

    def load(self, value: Any, where: str) -> Any:
        if not isinstance(value, dict):
            raise bad(where, "a map", value)
        return load_fields(self.cls, value, where)

    def dump(self, value: Any) -> Any:
        return dump_fields(value)


def schema(fields: dict[str, Spec]) -> Mapping[str, Spec]:
    """A message's schema: its field names, in wire order, and how each is checked."""
    return MappingProxyType(fields)


def load_fields(cls: type[Any], data: Mapping[str, Any], where: str) -> Any:
    schema: Mapping[str, Spec] = cls.SCHEMA
    extra = [k for k in data if k not in schema and k != "t"]
    if extra:
        raise BadMessage(f"{where} has unknown field(s) {', '.join(map(repr, sorted(extra)))}")
    kwargs: dict[str, Any] = {}
    defaults = {f.name: f for f in dataclasses.fields(cls)}
    for name, spec in schema.items():
        if name in data:
            kwargs[name] = spec.load(data[name], f"{where}.{name}")
        elif (
            defaults[name].default is dataclasses.MISSING
            and defaults[name].default_factory is dataclasses.MISSING
        ):
            raise BadMessage(f"{where} is missing the field {name!r}")
    try:
        return cls(**kwargs)
    except ProtocolError:
        raise
    except (ValueError, TypeError) as e:
        raise BadMessage(f"{where}: {e}") from None


def dump_fields(obj: Any) -> dict[str, Any]:
    schema: Mapping[str, Spec] = type(obj).SCHEMA
    return {name: spec.dump(getattr(obj, name)) for name, spec in schema.items()}
