"""The rules options every table-making command shares (cli.md: `host`, `play`, the headless
host): the names of rules.md section O, and `--seats`."""

from __future__ import annotations

import argparse
from typing import Any

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


def _choices(enum: Any) -> list[str]:
    return [e.value for e in enum]


def add_rules_options(p: argparse.ArgumentParser, *, seats_default: int | None = 2) -> None:
    g = p.add_argument_group("rules (rules.md section O)")
    g.add_argument("--variant", choices=_choices(Variant), help="the game (default podkidnoy)")
    g.add_argument("--deck", type=int, choices=(24, 36, 52), help="cards in the deck (36)")
    g.add_argument("--teams", choices=_choices(Teams), help="team play (R-T1)")
    g.add_argument("--throw-in", choices=_choices(ThrowIn), help="who may throw in (R-B2)")
    g.add_argument("--throw-in-order", choices=_choices(ThrowInOrder))
    g.add_argument(
        "--no-first-bout-five", action="store_true", help="the first bout may hold 6 cards"
    )
    g.add_argument("--trump-show", action="store_true", help="transfer by showing a trump (R-B7)")
    g.add_argument("--cheating", action="store_true", help="s shulerami (rules.md section S)")
    g.add_argument("--japanese", action="store_true", help="diamonds always trump (R-D4)")
    g.add_argument("--tie", choices=_choices(Tie))
    g.add_argument("--next-first-attack", choices=_choices(NextFirstAttack))
    g.add_argument("--duren-leads", choices=_choices(DurenLeads))
    g.add_argument("--partial-defence", action="store_true")
    g.add_argument(
        "--seats", type=int, default=seats_default, metavar="N", help="players at the table (2..6)"
    )


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The rules the options name; raises `RulesError` (a ValueError) for impossible ones."""
    opts: dict[str, Any] = {}
    for name in ("variant", "deck", "teams", "throw_in", "throw_in_order", "tie"):
        v = getattr(args, name, None)
        if v is not None:
            opts[name] = v
    for name in ("next_first_attack", "duren_leads"):
        v = getattr(args, name, None)
        if v is not None:
            opts[name] = v
    if getattr(args, "no_first_bout_five", False):
        opts["first_bout_five"] = False
    for name in ("trump_show", "cheating", "japanese", "partial_defence"):
        if getattr(args, name, False):
            opts[name] = True
    rules = Rules.from_dict(opts)
    if args.seats is not None:
        rules.check_seats(args.seats)
    return rules
