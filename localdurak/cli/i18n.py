"""The player's language: gettext catalogs read from the ``.po`` sources in the package.

English is the source language (the msgids).  A language is added by dropping
``localdurak/cli/locale/<code>.po`` into the package — nothing else: the ``.po`` file is
compiled here, in memory, into the ``.mo`` form `gettext.GNUTranslations` reads (no msgfmt
needed at build or run time), plural forms included (Russian has three).

``--lang`` picks the language; otherwise ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and
``LANG``, the way gettext itself looks.
"""

from __future__ import annotations

import ast
import gettext
import io
import os
import struct
from importlib import resources

_current: gettext.NullTranslations = gettext.NullTranslations()
_language = "en"


class CatalogError(ValueError):
    """A ``.po`` file we cannot read."""


def parse_po(text: str) -> dict[str, str]:
    """The messages of a ``.po`` file: msgid → msgstr; a plural entry is keyed
    ``msgid + NUL + msgid_plural`` with its forms joined by NUL (the ``.mo`` layout).
    Untranslated (empty) and fuzzy entries are left out; the header (msgid "") is kept."""
    messages: dict[str, str] = {}
    entry: dict[str, str] = {}
    fuzzy = False
    key = ""

    def flush() -> None:
        nonlocal entry, fuzzy
        if "msgid" in entry and not fuzzy:
            msgid = entry["msgid"]
            if "msgid_plural" in entry:
                forms = [entry[k] for k in sorted(k for k in entry if k.startswith("msgstr["))]
                if forms and all(forms):
                    messages[msgid + "\0" + entry["msgid_plural"]] = "\0".join(forms)
            elif entry.get("msgstr") or msgid == "":
                messages[msgid] = entry.get("msgstr", "")
        entry = {}
        fuzzy = False

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in line:
                if _has_msgstr(entry):
                    flush()  # the flag belongs to the entry that follows
                fuzzy = True
            continue
        if line.startswith('"'):
            if not key:
                raise CatalogError(f"line {number}: a string continues nothing")
            entry[key] += _unquote(line, number)
            continue
        word, _, rest = line.partition(" ")
        if word == "msgid" and _has_msgstr(entry):
            flush()
        if word not in ("msgid", "msgid_plural", "msgstr", "msgctxt") and not (
            word.startswith("msgstr[") and word.endswith("]")
        ):
            raise CatalogError(f"line {number}: unknown keyword {word!r}")
        key = word
        entry[key] = _unquote(rest.strip(), number)
    flush()
    return messages


def _has_msgstr(entry: dict[str, str]) -> bool:
    return any(k == "msgstr" or k.startswith("msgstr[") for k in entry)


def _unquote(token: str, number: int) -> str:
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        raise CatalogError(f"line {number}: expected a quoted string, got {token!r}")
    try:
        value = ast.literal_eval(token)
    except (SyntaxError, ValueError):
        raise CatalogError(f"line {number}: bad string {token!r}") from None
    if not isinstance(value, str):
        raise CatalogError(f"line {number}: bad string {token!r}")
    return value


def compile_mo(messages: dict[str, str]) -> bytes:
    """The GNU ``.mo`` bytes of ``messages`` (as `parse_po` returns them)."""
    keys = sorted(messages)
    ids = [k.encode() for k in keys]
    strs = [messages[k].encode() for k in keys]
    n = len(keys)
    header_size = 7 * 4
    id_table = header_size
    str_table = id_table + n * 8
    data_start = str_table + n * 8
    offsets: list[int] = []
    blob = io.BytesIO()
    for s in (*ids, *strs):
        offsets.append(data_start + blob.tell())
        blob.write(s + b"\0")
    out = io.BytesIO()
    out.write(struct.pack("<7I", 0x950412DE, 0, n, id_table, str_table, 0, data_start))
    for s, off in zip(ids, offsets[:n], strict=True):
        out.write(struct.pack("<2I", len(s), off))
    for s, off in zip(strs, offsets[n:], strict=True):
        out.write(struct.pack("<2I", len(s), off))
    out.write(blob.getvalue())
    return out.getvalue()


def available() -> list[str]:
    """The languages we have catalogs for, English (the source) first."""
    codes = ["en"]
    folder = resources.files("localdurak.cli") / "locale"
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.name.endswith(".po"):
            codes.append(item.name.removesuffix(".po"))
    return codes


def load(code: str) -> gettext.NullTranslations:
    """The translations for language ``code`` ("ru", "uk", "pl", "zh"…)."""
    if code == "en":
        return gettext.NullTranslations()
    po = resources.files("localdurak.cli") / "locale" / f"{code}.po"
    try:
        text = po.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogError(
            f"no catalog for language {code!r}; available: {', '.join(available())}"
        ) from None
    return gettext.GNUTranslations(io.BytesIO(compile_mo(parse_po(text))))


# Locale names that mean one of our catalogs under another name.  Chinese: seed 004 is
# Traditional, so zh_TW, zh_HK, zh_MO and the script tag Hant read the zh_Hant catalog.
# reading: zh_CN, zh_SG and Hans (Simplified) also get zh_Hant — the only Chinese catalog we
# have, and a Simplified reader reads Traditional far better than English; a zh_Hans.po
# dropped into locale/ would take them over (an exact catalog name wins over an alias).
# "ua" is the country code people often type for Ukrainian.
ALIASES = {
    "zh": "zh_Hant",
    "zh_tw": "zh_Hant",
    "zh_hk": "zh_Hant",
    "zh_mo": "zh_Hant",
    "zh_hant": "zh_Hant",
    "zh_hant_tw": "zh_Hant",
    "zh_hant_hk": "zh_Hant",
    "zh_cn": "zh_Hant",
    "zh_sg": "zh_Hant",
    "zh_hans": "zh_Hant",
    "zh_hans_cn": "zh_Hant",
    "ua": "uk",
    "uk_ua": "uk",
}


def _catalog_for(name: str, have: list[str]) -> str | None:
    """The catalog code for a locale or language name ("uk_UA.UTF-8", "zh-Hant", "pl")."""
    base = name.split(".")[0].split("@")[0].replace("-", "_")
    by_lower = {code.lower(): code for code in have}
    for candidate in (base, base.split("_")[0]):
        key = candidate.lower()
        if key in by_lower:
            return by_lower[key]
        alias = ALIASES.get(key)
        if alias in have:
            return alias
    return None


def pick(requested: str | None = None, env: dict[str, str] | None = None) -> str:
    """The language to use: ``requested`` (``--lang``), else the environment's first
    language we have (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, the first of them
    that is set), else English."""
    have = available()
    if requested:
        code = _catalog_for(requested, have)
        if code is None:
            raise CatalogError(
                f"no catalog for language {requested!r}; available: {', '.join(have)}"
            )
        return code
    e = os.environ if env is None else env
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = e.get(var)
        if value:
            for name in value.split(":"):
                code = _catalog_for(name, have) if name else None
                if code is not None:
                    return code
            break
    return "en"


def set_language(code: str) -> None:
    """Use language ``code`` for every message from now on."""
    global _current, _language
    _current = load(code)
    _language = code


def language() -> str:
    return _language


def _(message: str) -> str:
    """The message in the player's language."""
    return _current.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The message for count ``n`` in the player's language (its plural rules)."""
    return _current.ngettext(singular, plural, n)


# argparse's own words (Python 3.11's argparse.py), which `--help` and every refusal of a
# bad command line print: translated by our catalogs once `translate_argparse` is called.
ARGPARSE_MESSAGES: tuple[str, ...] = (
    "usage: ",
    "positional arguments",
    "options",
    "show this help message and exit",
    "%(prog)s: error: %(message)s\n",
    "argument %(argument_name)s: %(message)s",
    "the following arguments are required: %s",
    "unrecognized arguments: %s",
    "invalid choice: %(value)r (choose from %(choices)s)",
    "invalid %(type)s value: %(value)r",
    "expected one argument",
    "expected at most one argument",
    "expected at least one argument",
    "ambiguous option: %(option)s could match %(matches)s",
    "not allowed with argument %s",
    "ignored explicit argument %r",
    "one of the arguments %s is required",
    "unknown parser %(parser_name)r (choices: %(choices)s)",
    "can't open '%(filename)s': %(error)s",
)

EXTRA_MESSAGES: tuple[str, ...] = ARGPARSE_MESSAGES
"""Messages translated here that no ``_()`` call in the client names (argparse's own)."""


def translate_argparse() -> None:
    """Make argparse speak the player's language: it looks its words up through the module
    globals ``_`` and ``ngettext`` (bound to gettext's) each time it prints one."""
    import argparse

    setattr(argparse, "_", _)  # noqa: B010 — argparse's stub does not name them
    setattr(argparse, "ngettext", ngettext)  # noqa: B010
