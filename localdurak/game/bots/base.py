"""Bots (docs/bots.md): what every level shares — the `Bot` protocol, `play_game`.

Durak is not turn-based: a bot is asked whenever the table changes and answers with an action
(from ``view.legal``, or a cheat or challenge in the cheating mode) or None when it has nothing
to do now.  A bot never sees the `Game`, only the view, so it plays the same under card
privacy (R-T4).  It keeps memory between calls: the cards it saw go to the discard pile, who
played which card, which cards it judged illegal.  It should be asked after every change of
the table; if it misses some, it counts what it missed as unknown.

No randomness of its own (architecture.md: game/ takes its generator as a parameter): the
caller passes an `Rng`, in practice a ``random.Random``.

`play_game` runs a full-information `Game` between bots (tests, benchmarks, headless play);
each bot still sees only `Game.view` of its seat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, Protocol, TypeVar

from localdurak.game.actions import Action, Do, GameResult
from localdurak.game.engine import Game
from localdurak.game.view import PlayerView

T = TypeVar("T")


class Rng(Protocol):
    """The part of ``random.Random`` a bot uses (positional parameters, so that
    ``random.Random`` matches it as it is: its own names differ)."""

    def random(self) -> float: ...

    def randrange(self, stop: int, /) -> int: ...

    def choice(self, seq: Sequence[T], /) -> T: ...


class Bot(Protocol):
    """A player.  ``choose`` is called whenever the table changes."""

    name: str

    def choose(self, view: PlayerView) -> Action | None:
        """The bot's action now, or None when it has nothing to do (not its moment)."""
        ...


BOT_LEVELS: Final = ("random", "normal", "strong")

NOTICE_RATES: Final = {"random": 0.0, "normal": 0.5, "strong": 0.75}
"""How often a bot of each level notices a card played against the rules (R-S5: noticing is
the game, R-S5): about as often as a watchful person, never every time, so that
cheating against bots is a game and not a certain mark.  The random bot never challenges."""

NOTICE_SECONDS: Final = (1.2, 3.5)
"""How long a bot takes to see a cheat it notices, as a person would (seconds, drawn afresh
each time): a table that shows bots to a person waits this long before their challenge goes
in — never the instant the card appears.  A table without a person (no bot delay: tests,
benchmarks, headless) does not wait."""


# --- what a bot reads off a view ------------------------------------------------------


def hand_mask(cards: Sequence[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def table_mask(view: PlayerView) -> int:
    m = 0
    for a, c in view.table:
        m |= 1 << a
        if c is not None:
            m |= 1 << c
    return m


# --- running a game between bots ------------------------------------------------------


WAIT: Final = Action(-1, Do.PASS)
"""The solver's answer "not my moment" (distinct from None, "no answer")."""


class BotStall(ValueError):
    """No bot would act although the game is not over: a bot bug."""


def play_game(
    game: Game,
    bots: Sequence[Bot],
    rng: Rng,
    *,
    max_actions: int = 20_000,
    on_action: Callable[[Action], None] | None = None,
) -> GameResult:
    """Play ``game`` to its end between ``bots`` (one per seat), as a host would.

    After every change each seat still in the game is asked with its own view; the answers
    race, like messages reaching a host: a challenge goes first (the host holds the closing
    action for the challenge window, R-S5), otherwise one answer at random is applied.
    """
    if len(bots) != game.seats:
        raise ValueError(f"{game.seats} seats need {game.seats} bots, not {len(bots)}")
    for _ in range(max_actions):
        if game.result is not None:
            return game.result
        answers: list[Action] = []
        for s, bot in enumerate(bots):
            if s in game.out:
                continue
            a = bot.choose(game.view(s))
            if a is not None:
                if a.seat != s:
                    raise ValueError(f"bot {bot.name} at seat {s} acted for seat {a.seat}")
                answers.append(a)
        if not answers:
            raise BotStall(f"no bot acts; table {game.table}, attacker {game.attacker}")
        challenges = [a for a in answers if a.do is Do.CHALLENGE]
        pick = rng.choice(challenges or answers)
        game.apply(pick)
        if on_action is not None:
            on_action(pick)
    raise BotStall(f"the game did not end within {max_actions} actions")
