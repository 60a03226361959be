"""The simplest players: `random` (a level) and `greedy` (the textbook baseline)."""

from __future__ import annotations

from localdurak.game.actions import Action, Do
from localdurak.game.bots.base import Rng
from localdurak.game.cards import lowest_rank
from localdurak.game.view import PlayerView

# --- random ---------------------------------------------------------------------------


class RandomBot:
    """A uniformly random honest action.  It always acts when it may, so it never stalls a
    game; it never challenges (a random challenge only gets it marked, R-S4)."""

    name = "random"

    def __init__(self, rng: Rng) -> None:
        self.rng = rng

    def choose(self, view: PlayerView) -> Action | None:
        acts = [a for a in view.legal if a.do is not Do.CHALLENGE]
        if not acts:
            return None
        return self.rng.choice(acts)


class GreedyBot:
    """The textbook baseline (not a level): lead and throw in the cheapest card it may,
    cover with the cheapest card that beats, take when it cannot cover.  The benchmark
    measures `normal` against it too, since `random` is too weak to tell strategies apart."""

    name = "greedy"

    def __init__(self, rng: Rng) -> None:
        self.rng = rng

    def choose(self, view: PlayerView) -> Action | None:
        v = view
        acts = [a for a in v.legal if a.do is not Do.CHALLENGE]
        if not acts or v.seat is None:
            return None
        low = lowest_rank(v.rules.deck)

        def val(c: int) -> int:
            return c % 13 + 2 - low + (20 if c // 13 == v.trump else 0)

        attacks = [a for a in acts if a.do is Do.ATTACK]
        if attacks:
            return min(attacks, key=lambda a: sum(val(c) for c in a.cards) - 10 * len(a.cards))
        covers = [a for a in acts if a.do is Do.COVER]
        if v.seat == v.defender and v.uncovered and v.phase != "taking":
            for u in sorted(v.uncovered, key=lambda c: -val(c)):
                if not any(x.on == u for x in covers):
                    return Action.take(v.seat)
            return min(covers, key=lambda x: val(x.card or 0))
        for x in acts:
            if x.do is Do.PASS:
                return x
        return None
