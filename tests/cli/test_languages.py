"""The five languages (docs/ui.md "Languages"): every catalog has every message the code uses, the
seeds' own table words, the language picked from the system locale or ``--lang``, and the
main screens at 80×24 in each language (golden text under tests/golden/, nothing cut)."""

from __future__ import annotations

import argparse
import ast
import asyncio
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.utils import get_cwidth

from localdurak.cli import i18n
from localdurak.cli.app import DurakApp
from localdurak.cli.i18n import _, ngettext
from localdurak.cli.lobby import Lobby, NoTables
from localdurak.cli.words import status_text
from localdurak.net.api import TableSession
from tests.cli.test_app import defending_state, finished_state
from tests.support.cli_helpers import FixedOutput, check_golden, rendered

ROOT = Path(__file__).parent.parent.parent
CLI = ROOT / "localdurak" / "cli"
LOCALE = CLI / "locale"
LANGUAGES = ["ru", "uk", "pl", "zh_Hant"]
PLURALS = {"ru": 3, "uk": 3, "pl": 3, "zh_Hant": 1}


@pytest.fixture(autouse=True)
def _english_after() -> Iterator[None]:
    yield
    i18n.set_language("en")


def code_msgids() -> dict[str, str | None]:
    """Every message the client passes to _() or ngettext(), with the plural msgid (None
    for a singular-only message): read from the source, so a new string cannot hide."""
    out: dict[str, str | None] = {}
    for path in sorted(CLI.glob("**/*.py")):
        if path.name == "i18n.py":  # the functions themselves
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            f = node.func
            name = (
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
            first = node.args[0]
            if name in ("_", "N_") and isinstance(first, ast.Constant):
                assert isinstance(first.value, str), f"{path.name}:{node.lineno}"
                out[first.value] = None
            elif name == "ngettext":
                second = node.args[1]
                assert isinstance(first, ast.Constant) and isinstance(second, ast.Constant), (
                    f"{path.name}:{node.lineno}: ngettext needs literal messages"
                )
                out[first.value] = second.value
    for message in i18n.EXTRA_MESSAGES:
        out.setdefault(message, None)
    return out


def po_entries(code: str) -> dict[str, tuple[str | None, list[str]]]:
    """msgid → (msgid_plural, msgstr forms), every entry, empty ones too (parse_po drops
    those, so they would only show up as missing)."""
    entries: dict[str, tuple[str | None, list[str]]] = {}
    text = (LOCALE / f"{code}.po").read_text(encoding="utf-8")
    for key, value in i18n.parse_po(text).items():
        if not key:
            continue
        msgid, _, plural = key.partition("\0")
        entries[msgid] = (plural or None, value.split("\0") if plural else [value])
    return entries


def test_the_code_uses_many_messages() -> None:
    ids = code_msgids()
    assert len(ids) > 200
    assert "You defend: cover {cards} or take (t)." in ids


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_catalog_has_every_message(code: str) -> None:
    entries = po_entries(code)
    missing = sorted(m for m in code_msgids() if m not in entries)
    assert not missing, f"{code}.po lacks {len(missing)}: {missing}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_plural_forms_complete(code: str) -> None:
    entries = po_entries(code)
    header = i18n.parse_po((LOCALE / f"{code}.po").read_text(encoding="utf-8"))[""]
    assert f"nplurals={PLURALS[code]};" in header
    for msgid, plural in code_msgids().items():
        if plural is None:
            continue
        got_plural, forms = entries[msgid]
        assert got_plural == plural, f"{code}: {msgid!r} has msgid_plural {got_plural!r}"
        assert len(forms) == PLURALS[code] and all(forms), f"{code}: {msgid!r}: {forms}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_placeholders_kept(code: str) -> None:
    """A translation keeps exactly the {names} its message fills in (a lost one would raise
    KeyError on screen or drop a card from the sentence)."""
    for msgid, (plural, forms) in po_entries(code).items():
        want = sorted(re.findall(r"\{[^{}]*\}", plural or msgid))
        for form in forms:
            assert sorted(re.findall(r"\{[^{}]*\}", form)) == want, f"{code}: {msgid!r} → {form!r}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_no_message_left_over(code: str) -> None:
    """A catalog entry the code no longer uses is a stale translation: it goes."""
    stale = sorted(set(po_entries(code)) - set(code_msgids()))
    assert not stale, f"{code}.po has messages the code does not use: {stale}"


PLURAL_CASES = {
    "uk": ["1 карта", "3 карти", "5 карт", "11 карт", "21 карта", "22 карти"],
    "pl": ["1 karta", "3 karty", "5 kart", "11 kart", "21 kart", "22 karty"],
    "zh_Hant": ["1 張牌", "3 張牌", "5 張牌", "11 張牌", "21 張牌", "22 張牌"],
}


@pytest.mark.parametrize("code", sorted(PLURAL_CASES))
def test_plural_rules(code: str) -> None:
    i18n.set_language(code)
    got = [i18n.ngettext("{n} card", "{n} cards", n).format(n=n) for n in (1, 3, 5, 11, 21, 22)]
    assert got == PLURAL_CASES[code]


# The words players of each language use, as the seeds write them (козир/kozyr,
# підкидати, atut, 王牌, 加牌, 轉移; ru: Беру, Бито, Козырь, Погоны).
SEED_WORDS = {
    "ru": ["Козырь", "подкид", "Беру", "Бито", "Погоны", "шулер"],
    "uk": ["козир", "підкида", "Беру", "Бито", "Погони", "відбій", "шулер"],
    "pl": ["atut", "dorzuca", "przebi", "Kozyr", "Beru", "Bito", "szuler"],
    "zh_Hant": ["王牌", "加牌", "轉移", "棄牌堆", "杜拉克", "肩章", "允許作弊", "揭穿"],
}


@pytest.mark.parametrize("code", sorted(SEED_WORDS))
def test_the_seeds_words(code: str) -> None:
    text = "\n".join(f for _, forms in po_entries(code).values() for f in forms)
    for word in SEED_WORDS[code]:
        assert word in text, f"{code}: {word!r}"


@pytest.mark.parametrize("code", sorted(SEED_WORDS))
def test_glossary_in_the_language(code: str) -> None:
    from localdurak.cli.words import glossary

    i18n.set_language(code)
    words = glossary()
    i18n.set_language("en")
    assert len(words) == len(glossary())
    english = dict(glossary())
    for word, meaning in words:
        assert meaning not in english.values(), f"{code}: {word} — {meaning} is English"


# --- which language ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "want"),
    [
        ({"LANG": "uk_UA.UTF-8"}, "uk"),
        ({"LANG": "pl_PL.UTF-8"}, "pl"),
        ({"LANG": "ru_RU.UTF-8"}, "ru"),
        ({"LANG": "zh_TW.UTF-8"}, "zh_Hant"),
        ({"LANG": "zh_HK.UTF-8"}, "zh_Hant"),
        ({"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh_Hant"),  # reading in i18n.py
        ({"LC_MESSAGES": "pl_PL", "LANG": "uk_UA.UTF-8"}, "pl"),
        ({"LANGUAGE": "de:uk", "LANG": "pl_PL.UTF-8"}, "uk"),
        ({"LANGUAGE": "zh_Hant_TW"}, "zh_Hant"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C"}, "en"),
        ({}, "en"),
    ],
)
def test_language_from_the_system_locale(env: dict[str, str], want: str) -> None:
    assert i18n.pick(None, env) == want


@pytest.mark.parametrize(
    ("flag", "want"),
    [
        ("uk", "uk"),
        ("pl", "pl"),
        ("ru", "ru"),
        ("en", "en"),
        ("zh", "zh_Hant"),
        ("zh_TW", "zh_Hant"),
        ("zh-Hant", "zh_Hant"),
        ("zh_Hant", "zh_Hant"),
        ("uk_UA.UTF-8", "uk"),
        ("PL", "pl"),
    ],
)
def test_lang_flag_overrides_the_locale(flag: str, want: str) -> None:
    assert i18n.pick(flag, {"LANG": "ru_RU.UTF-8"}) == want


def test_unknown_language_names_the_five() -> None:
    with pytest.raises(i18n.CatalogError, match="available: en, pl, ru, uk, zh_Hant"):
        i18n.pick("xx")


def test_five_languages_available() -> None:
    assert i18n.available() == ["en", "pl", "ru", "uk", "zh_Hant"]


# --- the screens at 80×24, in every language -----------------------------------------------


def width(text: str) -> int:
    return sum(get_cwidth(ch) for ch in text)


def status_line(text: str) -> str:
    return next(line for line in text.splitlines() if "▶" in line)


async def _screen(
    session: TableSession | None = None,
    lobby: Lobby | None = None,
    keys: str = "",
    hosting: object = None,
    rows: int = 24,
    columns: int = 80,
) -> str:
    """The 80×24 screen of a client (after ``keys``), as text."""
    with create_pipe_input() as pipe:
        app = DurakApp(
            session=session,
            lobby=lobby,
            hosting=hosting,  # type: ignore[arg-type]
            input=pipe,
            output=FixedOutput(rows=rows, columns=columns),
        )
        running = asyncio.get_running_loop().create_task(app.run_async())
        await rendered(app.application)
        if keys:
            pipe.send_text(keys)
        text = await rendered(app.application)
        app.application.exit(result=0)
        await asyncio.wait_for(running, 5)
    for line in text.splitlines():
        assert width(line) <= columns
    return text


def golden_name(screen: str, code: str) -> str:
    return f"{screen}_{code.replace('_', '-').lower()}"


@pytest.mark.parametrize("code", LANGUAGES)
async def test_golden_table_screen(code: str) -> None:
    i18n.set_language(code)
    session = defending_state()
    text = await _screen(session)
    view = session.view
    assert view is not None
    # The ▶ line says all of what you may do, uncut.
    want = status_text(view, session.names)
    assert "▶ " + want in status_line(text), f"{want!r} cut: {status_line(text)!r}"
    # The key bar has every key of a defender, each with its word.
    keys = text.splitlines()[-2]
    for word in (_("take"), _("help"), _("quit"), _("play")):
        assert word in keys, f"{word!r} missing from {keys!r}"
    assert _("Trump") in text and _("Bout:") in text
    check_golden(golden_name("table", code), text)


@pytest.mark.parametrize("code", ["en", *LANGUAGES])
async def test_small_table_screen_cuts_nothing_you_need(code: str) -> None:
    """60×20 (ui.md: below 80×24 the ▶ line and the keys for what you may do now come
    first): the ▶ line whole, the defender's keys, and the bout's "attack cards 3 of 5"
    whole (Russian lost "из 5")."""
    i18n.set_language(code)
    session = defending_state()
    text = await _screen(session, rows=20, columns=60)
    view = session.view
    assert view is not None and len(text.splitlines()) == 20
    want = status_text(view, session.names)
    assert "▶ " + want in status_line(text), f"{want!r} cut: {status_line(text)!r}"
    keys = text.splitlines()[-2]
    for word in (_("take"), _("play"), _("help"), _("quit")):
        assert word in keys, f"{word!r} missing from {keys!r}"
    limit = _("attack cards {n} of {m}").format(n=len(view.table), m=view.limit)
    assert limit in text, f"{limit!r} cut"
    check_golden(golden_name("table60x20", code), text)


@pytest.mark.parametrize(
    ("columns", "picking"), [(78, False), (58, False), (30, False), (40, True)]
)
def test_the_bout_limit_moves_rather_than_being_cut(columns: int, picking: bool) -> None:
    from localdurak.cli.table import TableUI, bout

    i18n.set_language("ru")
    view = defending_state().view
    assert view is not None
    ui = TableUI(focus_table=picking)  # picking a table card: the row below holds numbers
    rows = "".join(t[1] for t in bout(view, ui, width=columns)).split("\n")
    assert all(width(row) <= columns for row in rows), rows
    whole = _("attack cards {n} of {m}").format(n=len(view.table), m=view.limit)
    if picking:
        assert rows[1].endswith(f"  {len(view.table)}/{view.limit}"), rows
    else:
        assert any(whole in row for row in rows), rows


HELP_HINTS = [
    "select a card of your hand",
    "move the selection",
    "mark cards to lead several",
    "play: attack, throw in, cover",
    "choose the attack card to cover",
    "pick a table card by number",
    "transfer (perevodnoy)",
    "show a trump to transfer",
    "take the cards (Beru)",
    "done / pass (Bito)",
    "challenge (cheating mode)",
    "next game (after a game)",
    "leave the table",
    "click: select, again: play",
]


@pytest.mark.parametrize("code", LANGUAGES)
async def test_golden_help_screen(code: str) -> None:
    from localdurak.cli.words import glossary

    i18n.set_language(code)
    text = await _screen(defending_state(), keys="?")
    flat = " ".join(text.split())
    for word, meaning in glossary():
        assert f"{word} — {meaning}" in flat or (word in flat and meaning in flat), (
            f"{code}: glossary {word!r} cut"
        )
    for hint in HELP_HINTS:
        assert _(hint) in flat, f"{code}: {_(hint)!r} cut"
    check_golden(golden_name("help", code), text)


@pytest.mark.parametrize("code", LANGUAGES)
async def test_golden_game_over_screen(code: str) -> None:
    i18n.set_language(code)
    text = await _screen(finished_state())
    assert _("{names} — durak!").format(names="Boris") in text
    assert _("with pogony: {n}").format(n=3) in text
    score = ngettext(
        "Score after {n} game (times durak):", "Score after {n} games (times durak):", 3
    ).format(n=3)
    assert score in text
    check_golden(golden_name("game_over", code), text)


@pytest.mark.parametrize("code", LANGUAGES)
async def test_golden_lobby_screen(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path))
    i18n.set_language(code)
    text = await _screen(lobby=Lobby("Anna", NoTables(), bot_delay=0))
    flat = " ".join(text.split())
    for word in (_("host a table"), _("play against bots"), _("enter an address")):
        assert word in flat, f"{code}: {word!r} missing"
    check_golden(golden_name("lobby", code), text)


def test_chinese_text_wraps_between_characters() -> None:
    """Chinese has no spaces between words: a line breaks between any two characters, not
    after the whole sentence (which would run off an 80-column screen), and a comma or full
    stop never begins a line."""
    from localdurak.cli.table import wrap

    text = (
        "如果朋友開了桌：Wi-Fi 用戶端隔離、VPN 或防火牆可能把牌桌藏起來——"
        "按 a 輸入桌主螢幕上的位址。"
    )
    lines = wrap(text, 30)
    assert len(lines) > 1 and all(width(line) <= 30 for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert not any(line[0] in "，。、：" for line in lines)
    assert wrap("You defend: cover Q♥ Q♠, transfer (p), or take (t).", 20) == [
        "You defend: cover Q♥",
        "Q♠, transfer (p), or",
        "take (t).",
    ]


# --- the command line: --help and `localdurak rules` in every language --------------------

ALL = ["en", *LANGUAGES]


def _helps(parser: argparse.ArgumentParser) -> list[str]:
    """The help texts and the description of ``parser``, as registered."""
    out = [parser.description or ""]
    out += [a.help for a in parser._actions if a.help and a.help != argparse.SUPPRESS]
    return [t for t in out if t]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


def _english_helps() -> dict[str, list[str]]:
    from localdurak.cli.main import build_parser

    i18n.set_language("en")
    parser = build_parser()
    out = {"": _helps(parser)}
    out.update({name: _helps(p) for name, p in _subparsers(parser).items()})
    return out


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("code", LANGUAGES)
def test_help_of_every_subcommand_in_the_language(
    code: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`localdurak --lang X [SUB] --help`: every help line in X (argparse's own words too),
    none of the English ones left."""
    from localdurak.cli.main import main

    english = _english_helps()
    assert set(english) >= {"", "host", "join", "play", "tables", "replay", "audit", "rules"}
    for sub, texts in english.items():
        with pytest.raises(SystemExit) as stop:
            main(["--lang", code, *([sub] if sub else []), "--help"])
        assert stop.value.code == 0
        out = _flat(capsys.readouterr().out)
        assert out.startswith(_flat(_("usage: "))) and _("usage: ") != "usage: "
        assert _("show this help message and exit") in out
        for text in texts:
            if _(text) == text:  # "R-S5"-like ids and the same word in both languages
                continue
            assert _(text).replace(" ", "") in out.replace(" ", ""), f"{code} {sub}: {_(text)!r}"
            assert _flat(text) not in out, f"{code} {sub or 'localdurak'}: {text!r} is English"
        i18n.set_language("en")


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_bad_command_line_is_refused_in_the_language(
    code: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from localdurak.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(["--lang", code, "play", "--bots", "many"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "error" not in err and "invalid" not in err, err
    assert "'many'" in err and "--bots" in err


def test_help_follows_the_system_locale(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from localdurak.cli.main import main

    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "pl_PL.UTF-8")
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("użycie: ") and "Dureń dla przyjaciół w sieci lokalnej." in out
    with pytest.raises(SystemExit):
        main(["--lang", "uk", "--help"])  # --lang wins over the locale
    assert capsys.readouterr().out.startswith("використання: ")


@pytest.mark.parametrize("code", ALL)
def test_localdurak_rules_in_the_language(code: str, tmp_path: Path) -> None:
    """A real run of `localdurak --lang X rules`: every paragraph in X, lines that fit 80
    columns, the glossary, the cheating mode explained."""
    from tests.support.procs import env_for, localdurak

    done = subprocess.run(
        localdurak("--lang", code, "rules"),
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    out = done.stdout
    too_wide = [line for line in out.splitlines() if width(line) > 80]
    assert not too_wide, too_wide
    i18n.set_language(code)
    from localdurak.cli.cmd_rules import common, variant_text
    from localdurak.cli.words import glossary
    from localdurak.game.rules import Variant

    flat = _flat(out)
    paragraphs = [*common(), *(p for v in Variant for p in variant_text(v))]
    for p in paragraphs:
        assert _flat(p).replace(" ", "") in flat.replace(" ", ""), f"{code}: {p[:40]!r}…"
    for word, meaning in glossary():
        assert word in out and _flat(meaning) in flat
    assert _("The rules of Durak") in out
    for word in CHEATING_WORDS[code]:
        assert word in out, f"{code}: the rules say nothing of {word!r}"


CHEATING_WORDS = {
    "en": ["cheat", "challenge", "marked"],
    "ru": ["шулер", "поймать", "пойман"],
    "uk": ["шулер", "спіймати", "позначен"],
    "pl": ["szuler", "przyłap", "oznaczon"],
    "zh_Hant": ["允許作弊", "揭穿", "被標記"],
}


def _engine_refusal_rules() -> set[str]:
    """Every rule id the rules engine refuses an action with (``IllegalAction("R-…", …)``,
    or a ``rule = "R-…"`` it raises later), read from the game package's source."""
    rules: set[str] = set()
    for path in (ROOT / "localdurak" / "game").glob("**/*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            values: list[ast.AST] = []
            if isinstance(node, ast.Call) and node.args:
                f = node.func
                if isinstance(f, ast.Name) and f.id == "IllegalAction":
                    values.append(node.args[0])
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "rule" for t in node.targets
            ):
                values.append(node.value)
            for v in values:
                for c in ast.walk(v):
                    if isinstance(c, ast.Constant) and str(c.value).startswith("R-"):
                        rules.add(str(c.value))
    return rules


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_engine_refusal_has_a_sentence_in_the_language(code: str) -> None:
    """The engine words its refusals in English; the ▶ line shows the rule's sentence in the
    player's language instead — for every rule it refuses with (R-B4c, R-S3 too)."""
    from localdurak.cli.words import rule_refusal

    rules = _engine_refusal_rules()
    assert {"R-B4a", "R-B4c", "R-B5", "R-S3", "R-S4", "R-P2"} <= rules
    i18n.set_language(code)
    said = {}
    for rule in sorted(rules):
        text = rule_refusal(rule)
        assert text is not None, f"no sentence for {rule}"
        said[rule] = text
    i18n.set_language("en")
    for rule, text in said.items():
        assert text != rule_refusal(rule), f"{code}: {rule} is English"


@pytest.mark.parametrize("code", LANGUAGES)
async def test_golden_host_form_in_the_language(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lobby's `h` form: every field's name and the values shown in the language."""
    from localdurak.cli.lobby import FIELD_LABELS, _value

    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path))
    i18n.set_language(code)
    text = await _screen(lobby=Lobby("Anna", NoTables(), bot_delay=0), keys="h")
    for key, label in FIELD_LABELS.items():
        assert label() in text, f"{code}: {key} → {label()!r} missing"
    assert _value("podkidnoy") in text and _value("at_durak") in text
    for english in ("throw in order", "partial defence", "at_durak", "podkidnoy"):
        assert english not in text, f"{code}: {english!r} is English"
    check_golden(golden_name("host_form", code), text)


def _table_refusals() -> list[Exception]:
    """One of each refusal of an impossible table (rules.md section O), from real `Rules`."""
    from localdurak.game.rules import Rules, RulesError

    out: list[Exception] = []
    for build in (
        lambda: Rules(teams="2v2").check_seats(3),  # R-T1
        lambda: Rules(deck=24).check_seats(5),  # R-D1
        lambda: Rules().check_seats(7),  # R-C3
        lambda: Rules(variant="duren", cheating=True, trump_show=True),  # section O
    ):
        with pytest.raises(RulesError) as refused:
            build()
        out.append(refused.value)
    return out


@pytest.mark.parametrize("code", LANGUAGES)
def test_an_impossible_table_is_refused_in_the_language(code: str) -> None:
    from localdurak.cli.words import rules_error_text

    i18n.set_language(code)
    for error in _table_refusals():
        said = rules_error_text(error)
        assert said != str(error), f"{code}: {error} is English"
        for number in re.findall(r"\b\d+\b", str(error).split("(")[0]):
            assert number in said, f"{code}: {said!r} lost {number}"
    i18n.set_language("en")
    assert [rules_error_text(e) for e in _table_refusals()] == [str(e) for e in _table_refusals()]


@pytest.mark.parametrize("code", LANGUAGES)
def test_command_line_refusals_in_the_language(code: str, tmp_path: Path) -> None:
    """Real runs: a bad --port, --seats 9, an impossible table, a missing record, a record
    nested too deeply to read."""
    from tests.support.procs import env_for, localdurak

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    i18n.set_language(code)
    cases = [
        (["host", "--port", "99999"], _("a port is 0..65535, not {port}").format(port=99999)),
        (["play", "--seats", "9"], _("--seats must be 2..6 (you and 1 to 5 bots), not {n}")),
        (
            ["play", "--teams", "2v2", "--bots", "2"],
            _("Teams {teams} need exactly {need} players, not {seats} (R-T1)."),
        ),
        (["replay", str(tmp_path / "none.json")], _("cannot read {path}: {reason}")),
        (["audit", str(deep)], _("not JSON: nested too deeply")),
    ]
    for args, want in cases:
        done = subprocess.run(
            localdurak("--lang", code, *args),
            env=env_for(tmp_path),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, (args, done.stderr)
        assert "Traceback" not in done.stderr
        fixed = max(re.split(r"\{[^{}]*\}", want), key=len).strip()
        assert fixed in done.stderr, f"{code} {args}: {done.stderr!r} lacks {fixed!r}"


REPLAY_ENGLISH = ["Trump:", "Dealt:", "Bout ", "attacks", "covers", "Refill", "Result:", "Why:"]


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize(
    "record", ["hand-cheating-challenges", "perevodnoy-3p-trump-show", "pogony", "teams-2v2"]
)
def test_replay_tells_the_game_in_the_language(code: str, record: str, tmp_path: Path) -> None:
    """`localdurak --lang X replay RECORD`: the account of the game in X — the header, every
    action, the refills, a refused action and its reason, the result."""
    from tests.support.procs import env_for, localdurak

    path = ROOT / "tests" / "golden" / f"{record}.record.json"
    done = subprocess.run(
        localdurak("--lang", code, "replay", str(path)),
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    english = subprocess.run(
        localdurak("--lang", "en", "replay", str(path)),
        env=env_for(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == english.returncode and not done.stderr, done.stderr
    assert len(done.stdout.splitlines()) == len(english.stdout.splitlines())
    for word in REPLAY_ENGLISH:
        if word in english.stdout:
            assert word not in done.stdout, f"{code} {record}: {word!r} left in English"
    i18n.set_language(code)
    assert _("Dealt:") in done.stdout


@pytest.mark.parametrize("code", LANGUAGES)
async def test_golden_lobby_tables_in_the_language(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lobby's list of tables: seats, the advertised variant and the state in the
    language, every column whole at 80 columns."""
    from localdurak.cli.lobby import MdnsTables
    from localdurak.cli.words import variant_word
    from localdurak.game.rules import Variant
    from tests.cli.test_app import FakeBrowser

    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path))
    i18n.set_language(code)
    browser = FakeBrowser()
    browser.go.set()
    text = await _screen(lobby=Lobby("Anna", MdnsTables(lambda: browser), bot_delay=0))
    for word in (
        _("{a}/{b} seats").format(a=3, b=4),
        variant_word(Variant.PODKIDNOY) + " 36",
        _("lobby"),
        _("playing"),
    ):
        assert word in text, f"{code}: {word!r} cut or missing"
    check_golden(golden_name("lobby_tables", code), text)


@pytest.mark.parametrize("code", LANGUAGES)
def test_no_message_twice_in_a_catalog(code: str) -> None:
    """Two helpers adding one message each: the later entry would silently win."""
    text = (LOCALE / f"{code}.po").read_text(encoding="utf-8")
    ids = re.findall(r'^msgid (".*")$', text, re.M)
    twice = sorted({i for i in ids if ids.count(i) > 1})
    assert not twice, f"{code}.po: {twice}"


@pytest.mark.parametrize("code", LANGUAGES)
async def test_golden_host_waiting_in_the_language(code: str) -> None:
    """The host's screen before the deal: where to join, the seats, the pairing codes, whom
    the table waits for and what to press — all in the language, nothing cut."""
    from types import SimpleNamespace

    from localdurak.game.rules import Rules
    from localdurak.net.api import LobbySeat, LobbyView, SeatKind
    from localdurak.net.identity import pairing_code
    from tests.cli.test_lobby import WaitingSession

    i18n.set_language(code)
    anna, vera = bytes(range(32)), bytes(range(1, 33))
    lobby = LobbyView(
        "Kitchen",
        Rules(),
        (
            LobbySeat(SeatKind.HUMAN, "Anna", True, True),
            LobbySeat(SeatKind.BOT, "Boris", True, True),
            LobbySeat(SeatKind.HUMAN, "Vera", False, True, pairing_code(anna, vera)),
            LobbySeat(),
        ),
    )
    hosting = SimpleNamespace(port=47823, addresses=["192.168.1.20"], pin=None)
    text = await _screen(WaitingSession(lobby), hosting=hosting)
    flat = " ".join(text.split())
    free = ngettext("{n} more player", "{n} more players", 1).format(n=1)
    for want in (
        _("Waiting for: {who}").format(who=_(", ").join(["Vera", free])),
        _("code {code}").format(code=pairing_code(anna, vera)),
        "192.168.1.20:47823",
        _("ready"),
        _("not ready"),
    ):
        assert want in flat, f"{code}: {want!r} cut or missing"
    check_golden(golden_name("host_waiting", code), text)


async def test_game_over_pogony_beside_a_chinese_name() -> None:
    """A name the big letters cannot draw (Chinese) stays on one line; the three pogony are
    still drawn whole beside it (every row once, their bottom beside the name)."""
    from tests.cli import test_app

    i18n.set_language("zh_Hant")
    session = test_app.finished_state()
    session.names = ("小明", "王大同", "李")
    text = await _screen(session)
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if "▁▁▁▁▁▁ " in line and "╲" not in line)
    assert lines[top + 1].count("✶") == 6 and lines[top + 2].count("6") == 3
    assert "王 大 同" in lines[top + 3] and lines[top + 3].count("╲▁▁▁▁▁▁╱") == 3
    assert _("{names} — durak!").format(names="王大同") in text


@pytest.fixture(scope="module")
def finished_table(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A headless all-bot table of one short game, played to its end: its host's data
    directory and the game's journal."""
    from tests.support.procs import env_for, localdurak

    where = tmp_path_factory.mktemp("finished")
    args = ["host", "--headless", "--seats", "2", "--bots", "2", "--level", "random"]
    args += ["--no-advertise", "--port", "0", "--deck", "24", "--record-dir", str(where / "r")]
    done = subprocess.run(
        localdurak(*args), env=env_for(where), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    (journal,) = (where / "r").glob("*.journal")
    return where, journal


@pytest.mark.parametrize("code", ["ru", "zh_Hant"])
def test_the_hosts_own_refusals_in_the_language(
    code: str, tmp_path: Path, finished_table: tuple[Path, Path]
) -> None:
    """Real runs of `localdurak host`: a resume of a journal that is not there, of a damaged
    one, of a finished series, under another identity, and a port another program holds —
    refused in the language (exit 1), nothing left in English but paths and commands."""
    import socket

    from tests.support.procs import env_for, localdurak

    home, finished = finished_table
    damaged = tmp_path / "kitchen.journal"
    damaged.write_bytes(b"\x00garbage\n")
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    i18n.set_language(code)
    refused = _("cannot resume {journal}: {reason}").split("{")[0]
    resume = ["host", "--headless", "--resume"]
    # (arguments, the data directory, words in the language, English words not to be there)
    cases = [
        (
            [*resume, str(tmp_path / "none.journal")],
            tmp_path,
            [refused, _("there is no such file")],
            ["cannot resume", "No such file"],
        ),
        (
            [*resume, str(damaged)],
            tmp_path,
            [refused, _("the journal's first line is damaged and no table's state is beside it")],
            ["cannot resume", "damaged"],
        ),
        (
            ["host", "--headless", "--no-advertise", "--port", str(port), "--bots", "1"],
            tmp_path,
            [
                _("the port is already in use"),
                _("cannot listen on {address}: {why}; choose another port with --port")
                .split("{")[0]
                .strip(),
            ],
            ["cannot listen", "in use"],
        ),
        (
            [*resume, str(finished)],
            home,
            [
                refused,
                _(
                    "this table's series is over: there is no game to resume (its records "
                    "are in {path})"
                ).split("{")[0],
            ],
            ["cannot resume", "series is over"],
        ),
        (
            [*resume, str(finished)],
            tmp_path,  # another device's identity
            [refused, "LOCALDURAK_HOME"],
            ["cannot resume", "another identity"],
        ),
    ]
    try:
        for args, data, want, english in cases:
            done = subprocess.run(
                localdurak("--lang", code, *args),
                env=env_for(data),
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 1, (args, done.stderr)
            assert "Traceback" not in done.stderr
            for words in want:
                assert words in done.stderr, f"{code} {args}: {done.stderr!r} lacks {words!r}"
            for words in english:
                assert words not in done.stderr, f"{code} {args}: {done.stderr!r}"
    finally:
        taken.close()


# A player's gender is unknown, and so is a table name's case: in Russian, Ukrainian and
# Polish a name is never the subject of a past-tense verb or a participle ("Vera вышел"),
# and a table's name stands alone in quotes ("за стол «Кухня»", not "за Кухня").
PERSON = re.compile(r"\{(?:name|names|attacker|defender|target|who)\}")
GENDERED = {
    "ru": re.compile(r"\w{2,}(?:ил|ел|ал|ял|ул|ыл|ился|елся|ался|ялся|ан|ян|ен|ён)\b"),
    "uk": re.compile(r"\w{2,}(?:ив|ів|ав|яв|ув|шов|ився|ався|ений|аний|яний)\b"),
    "pl": re.compile(r"\w{2,}(?:ił|ał|ął|ół|eł|ony|any|ęty)\b"),
}
TABLE_NAMED = [
    "Cannot join {name}: {reason}",
    "Joining {name}…",
    "{name} cannot be joined from here: {state}",
    "{name} asks for a PIN: the host knows it. Enter joins, Esc back.",
]
QUOTED = {"ru": "«{name}»", "uk": "«{name}»", "pl": "„{name}”"}


@pytest.mark.parametrize("code", sorted(GENDERED))
def test_a_name_is_never_declined_nor_given_a_gender(code: str) -> None:
    gendered = []
    for msgid, (_plural, forms) in po_entries(code).items():
        if msgid.startswith(("{name} at {where} shows", "the identity in {folder}")):
            continue  # a table's name (in the present), a profile's (a noun's gender)
        for form in forms:
            for m in PERSON.finditer(form):
                # The verb of the name: the next two words after it.
                after = " ".join(form[m.end() :].split()[:2])
                if GENDERED[code].search(after):
                    gendered.append(form)
    assert not gendered, f"{code}: a name with a gendered verb: {gendered}"
    entries = po_entries(code)
    for msgid in TABLE_NAMED:
        assert QUOTED[code] in entries[msgid][1][0], (code, msgid)
