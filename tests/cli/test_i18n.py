"""Languages: gettext catalogs from the package's .po sources, compiled in memory."""

from __future__ import annotations

import ast
import gettext
import io
from pathlib import Path

import pytest

from localdurak.cli import i18n

CLI = Path(__file__).parents[2] / "localdurak" / "cli"


def _msgids() -> set[str]:
    """Every message the client passes through _() or ngettext()."""
    out: set[str] = set()
    for path in CLI.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            f = node.func
            name = (
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
            first = node.args[0]
            if name == "_" and isinstance(first, ast.Constant) and isinstance(first.value, str):
                out.add(first.value)
            if name == "ngettext" and isinstance(first, ast.Constant):
                second = node.args[1]
                assert isinstance(second, ast.Constant)
                out.add(f"{first.value}\0{second.value}")
    return out


def test_every_message_has_a_russian_translation() -> None:
    catalog = i18n.parse_po((CLI / "locale" / "ru.po").read_text(encoding="utf-8"))
    missing = sorted(_msgids() - set(catalog))
    assert not missing, f"ru.po lacks: {missing}"


def test_glossary_terms_in_both_languages() -> None:
    from localdurak.cli.words import glossary

    i18n.set_language("en")
    en = dict(glossary())
    i18n.set_language("ru")
    ru = dict(glossary())
    i18n.set_language("en")
    for word in ("Beru", "Bito", "Kozyr", "Pogony"):
        assert word in en
    for word in ("Беру", "Бито", "Козырь", "Погоны"):
        assert word in ru


def test_russian_plural_forms() -> None:
    i18n.set_language("ru")
    try:
        forms = [i18n.ngettext("{n} card", "{n} cards", n).format(n=n) for n in (1, 3, 5, 11, 21)]
    finally:
        i18n.set_language("en")
    assert forms == ["1 карта", "3 карты", "5 карт", "11 карт", "21 карта"]


def test_a_new_language_needs_only_a_catalog() -> None:
    po = (
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        '"Plural-Forms: nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && '
        'n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\\n"\n\n'
        '#, fuzzy\nmsgid "Trump"\nmsgstr "???"\n\n'
        'msgid "Bito"\nmsgstr "Бито"\n\n'
        'msgid "{n} card"\nmsgid_plural "{n} cards"\n'
        'msgstr[0] "{n} карта"\nmsgstr[1] "{n} карти"\nmsgstr[2] "{n} карт"\n'
    )
    t = gettext.GNUTranslations(io.BytesIO(i18n.compile_mo(i18n.parse_po(po))))
    assert t.gettext("Bito") == "Бито"
    assert t.gettext("Trump") == "Trump"  # fuzzy entries are not used
    assert t.ngettext("{n} card", "{n} cards", 2) == "{n} карти"


def test_language_picked_from_flag_then_environment() -> None:
    assert i18n.pick("ru") == "ru"
    assert i18n.pick(None, {"LANG": "ru_RU.UTF-8"}) == "ru"
    assert i18n.pick(None, {"LANGUAGE": "de:ru", "LANG": "C"}) == "ru"
    assert i18n.pick(None, {"LANG": "C.UTF-8"}) == "en"
    with pytest.raises(i18n.CatalogError, match="available: en, pl, ru, uk, zh_Hant"):
        i18n.pick("xx")


def test_bad_po_is_refused_with_the_line() -> None:
    with pytest.raises(i18n.CatalogError, match="line 2"):
        i18n.parse_po('msgid "a"\nmsgstr b\n')


def test_rules_summary_in_the_players_language() -> None:
    from localdurak.cli.words import rules_summary
    from localdurak.game.rules import Rules

    rules = Rules(variant="perevodnoy", cheating=True, first_bout_five=False, teams="none")
    assert rules_summary(rules) == "perevodnoy · 36 · no five in the first bout · cheating"
    i18n.set_language("ru")
    try:
        assert rules_summary(rules) == "переводной · 36 · без: пять в первом ходе · с шулерами"
    finally:
        i18n.set_language("en")
