"""Bots (docs/bots.md): players that read only their seat's `PlayerView` (R-T4).

The levels: `random` and the `greedy` baseline (simple.py), `normal` (normal.py), `strong`
(strong.py, a determinized search).  `make_bot` builds one by name; `play_game` (base.py)
runs a full-information `Game` between bots.  docs/bots.md describes them.
"""

from __future__ import annotations

from localdurak.game.bots.base import (
    BOT_LEVELS,
    NOTICE_RATES,
    NOTICE_SECONDS,
    WAIT,
    Bot,
    BotStall,
    Rng,
    hand_mask,
    play_game,
    table_mask,
)
from localdurak.game.bots.normal import NormalBot
from localdurak.game.bots.simple import GreedyBot, RandomBot
from localdurak.game.bots.strong import DEFAULT_BUDGET_MS, Clock, StrongBot
from localdurak.game.cards import beats  # R-B5, once (cards.py)


def make_bot(
    level: str,
    rng: Rng,
    *,
    budget_ms: float | None = None,
    clock: Clock | None = None,
    simulations: int | None = None,
) -> Bot:
    """A bot of ``level`` (one of `BOT_LEVELS`) drawing its chances from ``rng``.

    ``budget_ms``, ``clock`` and ``simulations`` set the `strong` bot's budget per move: with a
    clock (seconds) it stops at ``budget_ms``; without one it runs ``simulations`` playouts
    (by default twice ``budget_ms``), so that a seed decides its game.  Other levels ignore
    them.
    """
    if level == "random":
        return RandomBot(rng)
    if level == "normal":
        return NormalBot(rng)
    if level == "strong":
        return StrongBot(
            rng,
            budget_ms=DEFAULT_BUDGET_MS if budget_ms is None else budget_ms,
            clock=clock,
            simulations=simulations,
        )
    raise ValueError(f"unknown bot level {level!r}: choose one of {', '.join(BOT_LEVELS)}")


__all__ = [
    "BOT_LEVELS",
    "DEFAULT_BUDGET_MS",
    "NOTICE_RATES",
    "NOTICE_SECONDS",
    "WAIT",
    "Bot",
    "BotStall",
    "Clock",
    "GreedyBot",
    "NormalBot",
    "RandomBot",
    "Rng",
    "StrongBot",
    "beats",
    "hand_mask",
    "make_bot",
    "play_game",
    "table_mask",
]
