"""The offline table (`LocalTable`): the person's seat sees only its view, bots play with a
delay, a series of games (R-F2, R-D5), and the cheating mode's challenge window (R-S5)."""

from __future__ import annotations

import asyncio
import random

from localdurak.game.actions import Action, Do
from localdurak.game.cards import Card
from localdurak.game.rules import Rules
from localdurak.game.view import PlayerView
from localdurak.net.api import ActionRefused, EventKind, TableSession
from localdurak.net.local import LocalTable
from tests.support.cli_helpers import FirstLegalBot


class SloppyDefender:
    """Covers every attack card with its lowest card, beating or not (a cheat when it does
    not beat, R-S1); attacks with its lowest card; passes when it may."""

    name = "sloppy"

    def choose(self, view: PlayerView) -> Action | None:
        me = view.seat
        assert me is not None
        if view.defender == me and view.uncovered and view.phase == "bout":
            return Action.cover(me, view.hand[0], view.uncovered[0])
        if view.attacker == me and not view.table:
            return Action.attack(me, view.hand[0])
        if Action.pass_(me) in view.legal:
            return Action.pass_(me)
        return None


async def _settle(table: LocalTable) -> PlayerView:
    for _ in range(300):
        await asyncio.sleep(0.005)
        v = table.view
        assert v is not None
        if v.result is not None or (v.legal and not table.closing):
            return v
    raise AssertionError("the table never waited for the person")


def test_local_table_is_a_table_session() -> None:
    table = LocalTable(Rules(), ["Anna", "Boris"], rng=random.Random(1))
    assert isinstance(table, TableSession)


async def test_R_T4_the_person_sees_only_the_seat_view() -> None:
    async with LocalTable(Rules(), ["Anna", "Boris", "Cyril"], rng=random.Random(2), delay=0) as t:
        v = await _settle(t)
        game = t.game
        assert v.seat == 0
        assert sorted(v.hand) == sorted(game.hand(0))
        for s in (1, 2):
            # Only cards every player saw (a shown lowest trump, picked-up cards).
            assert set(v.others[s].known) <= set(game.known(s))
            assert v.others[s].count == len(game.hand(s))


async def test_bots_wait_a_little_so_a_person_can_follow() -> None:
    async with LocalTable(Rules(), ["Anna", "Boris"], rng=random.Random(4), delay=0.15) as t:
        t.bots = {1: FirstLegalBot()}
        start = len(t.game.log)
        await asyncio.sleep(0.02)
        if t.game.legal_actions(1):
            assert len(t.game.log) == start  # not yet
            await asyncio.sleep(0.25)
            assert len(t.game.log) > start


async def test_refusal_carries_the_rule() -> None:
    async with LocalTable(Rules(), ["Anna", "Boris"], rng=random.Random(5), delay=0) as t:
        await _settle(t)
        v = t.view
        assert v is not None
        wrong = Action.take(0) if v.defender != 0 else Action.pass_(0)
        try:
            await t.async_act(wrong)
        except ActionRefused as e:
            assert e.rule.startswith("R-") and e.reason
        else:
            raise AssertionError("an illegal action was accepted")
        try:
            await t.async_act(Action.pass_(1))
        except ActionRefused as e:
            assert "seat 0" in e.reason
        else:
            raise AssertionError("acted for another seat")


async def test_R_F2_R_D5_a_series_of_games() -> None:
    async with LocalTable(Rules(), ["Anna", "Boris", "Cyril"], rng=random.Random(6), delay=0) as t:
        me = FirstLegalBot()
        for game in (1, 2):
            assert t.game_number == game
            while True:
                v = await _settle(t)
                if v.result is not None:
                    break
                a = me.choose(v)
                if a is not None:
                    await t.async_act(a)
            result = v.result
            assert t.series.games == game
            if game == 1:
                first = result
                await t.async_next_game()
        assert first is not None
        if first.durak:
            assert t.game.dealer == min(first.durak)  # R-D5 (the game-2 deal)
        assert [e.game for e in t.events if e.kind is EventKind.GAME_STARTED] == [1, 2]
        assert sum(t.series.durak) + t.series.draws >= 2


def _beats(card: Card, on: Card, t: LocalTable) -> bool:
    """R-B5, as a player judges it."""
    trump = t.game.trump
    return (card.suit == on.suit and card > on) or (card.suit == trump and on.suit != trump)


async def _challenge_setup(seed: int) -> tuple[LocalTable, Action] | None:
    """A two-seat cheating table where Anna attacked, the sloppy bot covered, and Anna's pass
    would close the bout.  Returns the table and the bot's cover."""
    t = LocalTable(
        Rules(cheating=True),
        ["Anna", "Boris"],
        rng=random.Random(seed),
        delay=0,
        challenge_window=0.3,
    )
    t.start()
    t.bots = {1: SloppyDefender()}
    t.notify()
    v = await _settle(t)
    if v.attacker != 0 or v.table:
        await t.async_leave()
        return None
    await t.async_act(Action.attack(0, v.hand[0]))
    for _ in range(100):
        await asyncio.sleep(0.005)
        if t.view is not None and t.view.table and not t.view.uncovered:
            break
    cover = t.game.log[-1]
    if cover.do is not Do.COVER:
        await t.async_leave()
        return None
    return t, cover


async def test_R_S5_closing_pass_is_held_and_a_caught_cheat_drops_it() -> None:
    for seed in range(60):
        found = await _challenge_setup(seed)
        if found is None:
            continue
        t, cover = found
        assert cover.card is not None and cover.on is not None
        if _beats(cover.card, cover.on, t):
            await t.async_leave()
            continue
        bout = t.game.bout_number
        await t.async_act(Action.pass_(0))
        assert t.closing  # held for the challenge window
        assert t.game.bout_number == bout and t.view is not None and t.view.table
        await t.async_act(Action.challenge(0, cover.card))
        ev = t.events[-1]
        assert ev.kind is EventKind.CHALLENGE and ev.caught and ev.marked == 1
        await asyncio.sleep(0.4)
        assert not t.closing
        # The cheat went back to the hand; the held pass was dropped; the bout goes on.
        assert t.game.bout_number == bout
        assert cover.card in t.game.hand(1)
        assert 1 in t.game.marked
        await t.async_leave()
        return
    raise AssertionError("no seed gave a cheating cover")


async def test_R_S4_challenging_an_honest_card_marks_the_challenger_and_closes_later() -> None:
    for seed in range(60):
        found = await _challenge_setup(seed)
        if found is None:
            continue
        t, cover = found
        assert cover.card is not None and cover.on is not None
        if not _beats(cover.card, cover.on, t):
            await t.async_leave()
            continue
        bout = t.game.bout_number
        await t.async_act(Action.pass_(0))
        assert t.closing
        with_refusal = False
        try:
            await t.async_act(Action.attack(0, t.view.hand[0]))  # type: ignore[union-attr]
        except ActionRefused as e:
            with_refusal = "closing" in e.reason
        assert with_refusal  # only challenges while the bout is closing
        await t.async_act(Action.challenge(0, cover.card))
        ev = t.events[-1]
        assert ev.kind is EventKind.CHALLENGE and not ev.caught and ev.marked == 0
        await asyncio.sleep(0.4)
        assert t.game.bout_number == bout + 1 or t.game.result is not None  # closed after all
        await t.async_leave()
        return
    raise AssertionError("no seed gave an honest cover")
