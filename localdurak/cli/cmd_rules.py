"""``localdurak rules [VARIANT]``: the rules, in the player's language (cli.md)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

from localdurak.cli.i18n import _
from localdurak.cli.options import client_parent
from localdurak.cli.words import glossary
from localdurak.game.rules import Variant


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "rules",
        parents=[client_parent()],
        help=_("the rules of the game"),
        description=_("Print the rules."),
    )
    p.add_argument(
        "variant",
        nargs="?",
        choices=[*(v.value for v in Variant), CHEATING],
        default=None,
        help=_("one variant, or the cheating mode (default: all)"),
    )
    p.set_defaults(func=run)


def common() -> list[str]:
    return [
        _(
            "Durak is played by 2 to 6 players with 36 cards (6 to ace; 24 or 52 on request). "
            "The aim: do not be the last one holding cards — that player is the durak, the fool."
        ),
        _(
            "Each player gets 6 cards. The next card is turned face up under the stock: its suit "
            "is trump (Kozyr) for the whole game, and it is the last card drawn."
        ),
        _(
            "The player with the lowest trump attacks first; in later games the first attack "
            "goes at the previous durak. Attacks always go to the left."
        ),
        _(
            "The defender beats each attack card with a higher card of the same suit, or with any "
            "trump if the attack card is not a trump; a trump is beaten only by a higher trump."
        ),
        _(
            "If he beats every card and nobody adds more, the cards go to the discard pile "
            "(Bito) and he attacks next. If he cannot or will not, he takes every card on the "
            "table (Beru) and the player on his left attacks next."
        ),
        _(
            "After each bout everyone draws back up to 6 cards, the attacker first and the "
            "defender last. When the stock is empty, a player with no cards is out and safe."
        ),
    ]


def variant_text(v: Variant) -> list[str]:
    if v is Variant.PODKIDNOY:
        return [
            _(
                "Podkidnoy (throw-in): every attacker may throw in cards of a rank already on "
                "the table — at most 6 attack cards (5 until the first successful defence), and "
                "never more uncovered cards than the defender holds."
            ),
        ]
    if v is Variant.PEREVODNOY:
        return [
            _(
                "Perevodnoy (transfer): as podkidnoy, and while no attack card is covered the "
                "defender may add a card of the same rank and pass the whole attack on to the "
                "next player, who must hold enough cards to cover them all."
            ),
        ]
    return [
        _(
            "Dureń (Polish): 5 cards each. The attacker leads one card, a pair (same rank and "
            "colour) with perhaps one more card, or two pairs with perhaps one more — at most 5. "
            "Nobody throws in. The defender covers all or takes all and loses his turn."
        ),
    ]


CHEATING = "cheating"


def cheating_text() -> list[str]:
    """The cheating mode, "s shulerami" (rules.md section S, seed 004)."""
    return [
        _(
            "Cheating mode (s shulerami, --cheating): any attacker may throw in a card of any "
            "rank, and the defender may \u201ccover\u201d with a card that does not beat it or "
            "\u201ctransfer\u201d with a card of another rank. Such a card is a cheat. The limits "
            "on the number of cards still hold, and the card must be in your hand."  # R-S1
        ),
        _(
            "While a card lies on the table, any other player still in the game may challenge "
            "it (c, then the card's number and Enter). A cheat caught: that card and every "
            "card played after it go back to the hands they came from, and the cheater is "
            "marked — he must play honestly for the rest of the game."  # R-S2, R-S3
        ),
        _(
            "Challenge an honest card and nothing moves: you are the one marked, and you play "
            "honestly from then on. Nobody is marked twice. The screen never hints that an "
            "opponent's card is a cheat — noticing it is the game; before a bout closes, the "
            "table waits about 2 seconds for a challenge."  # R-S4, R-S5
        ),
        _(
            "Bots watch the table as people do: they notice some cheats, not every one, and "
            "take a moment before they challenge."  # R-S5: bots notice as a person would
        ),
    ]


def _wrap(text: str, width: int) -> list[str]:
    if text.isascii():
        return textwrap.wrap(text, width)
    from localdurak.cli.table import wrap  # by terminal cells: Chinese takes two a character

    return wrap(text, width)


def run(args: argparse.Namespace) -> int:
    from localdurak.cli.cmd_play import setup_language

    if not setup_language(args):
        return 2
    width = 78
    paragraphs = common()
    if args.variant == CHEATING:
        paragraphs = cheating_text()
    else:
        variants = [Variant(args.variant)] if args.variant else list(Variant)
        for v in variants:
            paragraphs += variant_text(v)
        if Variant.DUREN not in variants or len(variants) > 1:  # Dureń has no cheating (R-P1)
            paragraphs += cheating_text()
    out: list[str] = [_("The rules of Durak"), ""]
    for p in paragraphs:
        out += [*_wrap(p, width), ""]
    out.append(_("Glossary"))
    for word, meaning in glossary():
        out.append(f"  {word} — {meaning}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0
