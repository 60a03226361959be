"""Bots (issue 4, part 7): players that read only their seat's `PlayerView`.

Durak is not turn-based: a bot is asked whenever the table changes and answers with an action
(from ``view.legal``, or a cheat or challenge in the cheating mode) or None when it has nothing
to do now.  A bot never sees the `Game`, only the view, so it plays the same under card
privacy (R-T4).  It may keep memory between calls (the cards it saw go to the discard pile).

No randomness of its own (architecture.md: game/ takes its generator as a parameter): the
caller passes an `Rng`, in practice a ``random.Random``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol, TypeVar

from localdurak.game.actions import Action, Do
from localdurak.game.view import PlayerView

T = TypeVar("T")


class Rng(Protocol):
    """The part of ``random.Random`` a bot uses."""

    def random(self) -> float: ...

    def randrange(self, stop: int) -> int: ...

    def choice(self, seq: Sequence[T]) -> T: ...


class Bot(Protocol):
    """A player.  ``choose`` is called whenever the table changes."""

    name: str

    def choose(self, view: PlayerView) -> Action | None:
        """The bot's action now, or None when it has nothing to do (not its moment)."""
        ...


BOT_LEVELS: Final = ("random", "normal")


class RandomBot:
    """A uniformly random honest action; it always acts when it may, so it never stalls."""

    name = "random"

    def __init__(self, rng: Rng) -> None:
        self.rng = rng

    def choose(self, view: PlayerView) -> Action | None:
        acts = [a for a in view.legal if a.do is not Do.CHALLENGE]
        if not acts:
            return None
        return self.rng.choice(acts)


class NormalBot(RandomBot):
    """Placeholder until the real strategy lands: random play (same interface)."""

    name = "normal"


def make_bot(level: str, rng: Rng) -> Bot:
    """A bot of ``level`` ("random" or "normal") drawing its chances from ``rng``."""
    if level == "random":
        return RandomBot(rng)
    if level == "normal":
        return NormalBot(rng)
    raise ValueError(f"unknown bot level {level!r}: choose one of {', '.join(BOT_LEVELS)}")
