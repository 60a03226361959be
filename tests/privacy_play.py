"""Helpers for the card-privacy tests: tables, and a simple scripted game of Durak played
through the protocol (one attack card per bout, cover with the lowest card that beats it, or
take; refills in R-B12 order).  It stands in for the engine's legal actions until branch
`engine` lands; the protocol does not care which legal move is chosen."""

from __future__ import annotations

import random
from typing import Any

from localdurak.game.cards import Card, Suit
from localdurak.protocol.privacy_sim import MemoryTable
from localdurak.protocol.schedule import Setup


def rngs(n: int, seed: int) -> list[Any]:
    return [random.Random(seed * 100 + s).randbytes for s in range(n)]


def table(n: int, deck: int, *, seed: int = 1, dealer: int | None = None, **kw: Any) -> MemoryTable:
    setup = Setup(
        n, deck, 6, n - 1 if dealer is None else dealer, japanese=kw.pop("japanese", False)
    )
    return MemoryTable(setup, rngs(n, seed), **kw)


def beats(cover: Card, attack: Card, trump: Suit) -> bool:
    if cover.suit == attack.suit:
        return cover.rank > attack.rank
    return cover.suit == trump


def play_scripted_game(tab: MemoryTable, max_bouts: int = 300) -> int:
    """Play to the end; returns the number of bouts."""
    n = tab.setup.seats
    hand_size = tab.setup.hand_size
    p0 = tab.players[0]
    trump = p0.t.trump_suit
    assert trump is not None and p0.t.first_attacker is not None
    attacker = p0.t.first_attacker.seat
    order = lambda c: (c.suit == trump, c.rank, c.suit)  # noqa: E731

    def cards(s: int) -> list[Card]:
        return tab.players[s].cards()

    def active() -> list[int]:
        left = tab.host.t.schedule.stock_left
        return [s for s in range(n) if cards(s) or left > 0]

    for bout in range(max_bouts):
        act = active()
        if len(act) <= 1:
            return bout
        while attacker not in act:
            attacker = (attacker + 1) % n
        defender = (attacker + 1) % n
        while defender not in act:
            defender = (defender + 1) % n
        attack = min(cards(attacker), key=order)
        tab.play(attacker, attack, {"do": "attack", "cards": [str(attack)]})
        covers = sorted((c for c in cards(defender) if beats(c, attack, trump)), key=order)
        if covers:
            tab.play(
                defender, covers[0], {"do": "cover", "card": str(covers[0]), "on": str(attack)}
            )
            tab.act(attacker, {"do": "pass"})
            taker = None
        else:
            tab.act(defender, {"do": "take"})
            tab.act(attacker, {"do": "pass"})
            taker = defender
        # R-B12: the opener first, then clockwise, the defender last.
        draw_order = [attacker] + [
            (attacker + i) % n for i in range(1, n) if (attacker + i) % n != defender
        ]
        draw_order.append(defender)
        left = tab.host.t.schedule.stock_left
        seats: list[int] = []
        for s in draw_order:
            size = len(cards(s)) + (2 if s == defender and taker is not None else 0)
            need = max(0, hand_size - size)
            take = min(need, left)
            seats += [s] * take
            left -= take
        tab.end_bout(seats, taker)
        attacker = defender if taker is None else (defender + 1) % n
    raise AssertionError("the scripted game did not end")
