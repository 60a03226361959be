"""Table policy the host (localdurak.net.host) and the offline table (localdurak.net.local) share,
so that a game plays alike on both."""

from __future__ import annotations

from localdurak.game.actions import Action, Do
from localdurak.game.engine import Game
from localdurak.game.rules import Rules


def waits_for_challenges(rules: Rules, game: Game, action: Action) -> bool:
    """R-S5: in cheating mode an action that would close the bout is held for the challenge
    window, so that a challenge that arrives meanwhile is applied first (a caught cheat takes
    his cards back before the bout ends).  A challenge itself never waits."""
    return rules.cheating and action.do is not Do.CHALLENGE and game.would_end_bout(action)
