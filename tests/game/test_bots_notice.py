"""Bots notice a cheat as a person would (R-S5): now and then by level,
never every time, and never the instant it lies on the table."""

from __future__ import annotations

import asyncio
import random

from localdurak.game.actions import Action, Do
from localdurak.game.bots import NOTICE_RATES, NOTICE_SECONDS, NormalBot, make_bot
from localdurak.game.cards import Card
from localdurak.game.rules import Rules
from localdurak.net.api import EventKind
from localdurak.net.local import LocalTable
from tests.game.test_bots import pos

C = Card.parse


def _noticed(level: str, seed: int) -> bool:
    """A false cover (7♦ on 6♥, R-S1) under the eyes of a bot at seat 2: does it challenge?"""
    g = pos(["6H 7S 8S 9S TS JS", "7D 7H 8H AD KD QD", "9H TH JH QH KH AH"], 0, cheating=True)
    bot = make_bot(level, random.Random(seed), simulations=8)
    bot.choose(g.view(2))
    g.apply(Action.attack(0, C("6H")))
    bot.choose(g.view(2))
    g.apply(Action.cover(1, C("7D"), C("6H")))
    answer = bot.choose(g.view(2))
    return answer == Action.challenge(2, C("7D"))


def test_bots_notice_cheats_now_and_then_by_level_never_always() -> None:
    assert NOTICE_RATES["random"] == 0 and 0 < NOTICE_RATES["normal"] < NOTICE_RATES["strong"] < 1
    for level, low, high in (("normal", 0.35, 0.65), ("strong", 0.6, 0.9)):
        rate = sum(_noticed(level, seed) for seed in range(200)) / 200
        assert low < rate < high, (level, rate)
    assert not any(_noticed("random", seed) for seed in range(50))


class _Sharp(NormalBot):
    NOTICE_RATE = 1.0  # to time its reaction: it always notices here


async def test_a_bot_at_a_watched_table_takes_a_moment_before_it_challenges() -> None:
    """Anna cheats against a bot at a table shown to her (a bot delay): the challenge comes
    after a person's moment, not within the bot's move delay."""
    for seed in range(80):
        t = LocalTable(Rules(cheating=True), ["Anna", "Boris"], rng=random.Random(seed), delay=0.05)
        t.start()
        t.bots = {1: _Sharp(random.Random(seed))}
        loop = asyncio.get_running_loop()
        v = None
        for _ in range(200):
            await asyncio.sleep(0.01)
            v = t.view
            if v is not None and v.defender == 0 and v.uncovered and not t.closing:
                break
        assert v is not None
        on = v.uncovered[0] if v.defender == 0 and v.uncovered else None
        honest = {a.card for a in v.legal if a.do is Do.COVER and a.on == on}
        cheat = next((c for c in v.hand if c not in honest), None)
        if on is None or cheat is None:
            await t.async_leave()
            continue
        await t.async_act(Action.cover(0, cheat, on))  # does not beat it: a cheat (R-S1)
        played = loop.time()
        while loop.time() - played < NOTICE_SECONDS[1] + 2:
            if any(e.kind is EventKind.CHALLENGE for e in t.events):
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the bot never challenged")
        assert loop.time() - played >= NOTICE_SECONDS[0]
        await t.async_leave()
        return
    raise AssertionError("no seed let Anna cheat")
