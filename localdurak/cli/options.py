"""The rules options of cli.md (rules.md section O), shared by ``play`` and ``host``."""

from __future__ import annotations

import argparse
from typing import Any

from localdurak.cli.i18n import _
from localdurak.game.rules import (
    DurenLeads,
    NextFirstAttack,
    Rules,
    Teams,
    ThrowIn,
    ThrowInOrder,
    Tie,
    Variant,
)


def profile_name(text: str) -> str:
    """``--profile NAME``: a name for a folder (exit 2 with the reason otherwise)."""
    from localdurak.datadir import PROFILE_MAX, valid_profile

    if not valid_profile(text):
        raise argparse.ArgumentTypeError(
            _(
                "not a profile name: {text!r} (1 to {n} letters, digits, '-', '_' or '.', "
                "not starting with '.')"
            ).format(text=text, n=PROFILE_MAX)
        )
    return text


def client_parent() -> argparse.ArgumentParser:
    """The options every subcommand takes, before or after its name (``localdurak --lang ru
    rules`` = ``localdurak rules --lang ru``): a parent parser whose options have no default,
    so that the subcommand's parser never overwrites the value given before its name."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--lang",
        default=argparse.SUPPRESS,
        help=_("language: en, ru, uk, pl, zh (default: from the system locale)"),
    )
    parent.add_argument(
        "--ascii",
        action="store_true",
        default=argparse.SUPPRESS,
        help=_("letters instead of suit symbols and box lines"),
    )
    parent.add_argument(
        "--profile",
        type=profile_name,
        default=argparse.SUPPRESS,
        metavar="NAME",
        help=_("a separate identity and saved state under LOCALDURAK_HOME (a second seat)"),
    )
    return parent


def add_top_options(parser: argparse.ArgumentParser) -> None:
    """The same options on the top parser (the lobby's, and before any subcommand), with
    their defaults; ``--name`` there is the player's name for every subcommand."""
    parser.add_argument("--name", dest="player_name", help=_("your name at the table (remembered)"))
    parser.add_argument("--ascii", action="store_true", help=_("letters instead of suit symbols"))
    parser.add_argument(
        "--lang",
        default=None,
        help=_("language: en, ru, uk, pl, zh (default: from the system locale)"),
    )
    parser.add_argument(
        "--profile",
        type=profile_name,
        default=None,
        metavar="NAME",
        help=_("a separate identity and saved state under LOCALDURAK_HOME (a second seat)"),
    )


def _choices(kind: Any) -> list[str]:
    return [v.value for v in kind]


def add_rules_options(parser: argparse.ArgumentParser) -> None:
    """Add every table option of rules.md section O, and ``--seats``."""
    g = parser.add_argument_group(_("table options (rules.md section O)"))
    g.add_argument(
        "--variant",
        choices=_choices(Variant),
        default="podkidnoy",
        help=_("the game: podkidnoy (throw-in), perevodnoy (transfer) or duren (Polish)"),
    )
    g.add_argument(
        "--deck", type=int, choices=(24, 36, 52), default=36, help=_("cards in the deck (R-C1)")
    )
    g.add_argument("--hand-size", type=int, choices=(5, 6), default=0, help=argparse.SUPPRESS)
    g.add_argument("--teams", choices=_choices(Teams), default="none", help=_("partners (R-T1)"))
    g.add_argument(
        "--throw-in", choices=_choices(ThrowIn), default="all", help=_("who may throw in (R-B2)")
    )
    g.add_argument(
        "--throw-in-order",
        choices=_choices(ThrowInOrder),
        default="free",
        help=_("first_word: the main attacker first (R-B3)"),
    )
    g.add_argument(
        "--no-first-bout-five",
        action="store_true",
        help=_("allow 6 attack cards in the first bout too (R-B4b)"),
    )
    g.add_argument(
        "--trump-show", action="store_true", help=_("transfer by showing a trump (R-B7)")
    )
    g.add_argument(
        "--no-transfer-first-bout",
        action="store_true",
        help=_("no transfer in the game's first bout (R-B6)"),
    )
    g.add_argument("--cheating", action="store_true", help=_("the cheating mode (R-S1..R-S5)"))
    g.add_argument("--japanese", action="store_true", help=_("diamonds always trump (R-D4)"))
    g.add_argument(
        "--tie",
        choices=_choices(Tie),
        default="draw",
        help=_("when the last run out together (R-B14)"),
    )
    g.add_argument(
        "--next-first-attack",
        choices=_choices(NextFirstAttack),
        default="at_durak",
        help=_("who attacks first in the next game (R-F2)"),
    )
    g.add_argument(
        "--duren-leads",
        choices=_choices(DurenLeads),
        default="pairs",
        help=_("Dureń: which leads (R-P2)"),
    )
    g.add_argument("--partial-defence", action="store_true", help=_("Dureń: cover some (R-P5)"))
    g.add_argument("--seats", type=int, default=None, metavar="N", help=_("players, 2..6"))


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The `Rules` the options ask for; raises `RulesError` with the reason."""
    return Rules(
        variant=args.variant,
        deck=args.deck,
        hand_size=args.hand_size,
        teams=args.teams,
        throw_in=args.throw_in,
        throw_in_order=args.throw_in_order,
        first_bout_five=not args.no_first_bout_five,
        trump_show=args.trump_show,
        transfer_first_bout=not args.no_transfer_first_bout,
        cheating=args.cheating,
        japanese=args.japanese,
        tie=args.tie,
        next_first_attack=args.next_first_attack,
        duren_leads=args.duren_leads,
        partial_defence=args.partial_defence,
    )
