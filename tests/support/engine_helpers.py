"""Helpers for the engine tests: hand-built decks, short action notation, state snapshots."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from localdurak.game.actions import Action, Do, GameResult, IllegalAction
from localdurak.game.cards import Card, deck_cards, parse_cards
from localdurak.game.engine import Game
from localdurak.game.position import read, rules_text
from localdurak.game.rules import Rules


def make(
    hands: Sequence[str],
    trump: str | None = None,
    stock: str = "",
    *,
    dealer: int | None = None,
    previous: GameResult | None = None,
    **options: Any,
) -> Game:
    """A game whose seats hold exactly ``hands`` ("6S 7S ..." each), with the turned ``trump``
    card and the stock's top cards ``stock``; the rest of the deck follows in the stock."""
    rules = Rules(**options)
    n = len(hands)
    parsed = [parse_cards(h.split()) for h in hands]
    for h in parsed:
        assert len(h) == rules.hand_size, h
    if dealer is None:
        dealer = n - 1  # seat 0 receives the first card
    dealt = [parsed[(dealer + 1 + i) % n][i // n] for i in range(n * rules.hand_size)]
    top = list(parse_cards(stock.split()))
    turned = [] if trump is None else [Card.parse(trump)]
    used = set(dealt) | set(top) | set(turned)
    rest = [c for c in deck_cards(rules.deck) if c not in used]
    # Japanese (R-D4): nothing is turned; ``trump`` is then simply the stock's top card.
    deck = dealt + turned + top + rest
    return Game.deal(rules, n, dealer, deck, previous=previous)


def act(text: str) -> Action:
    """``"0 attack 6S 6H"``, ``"1 cover 7S 6S"`` (card, on), ``"1 transfer 6D"``, ``"2 take"``."""
    seat, do, *cards = text.split()
    d = Do(do)
    cs = parse_cards(cards)
    if d is Do.ATTACK:
        return Action(int(seat), d, cards=cs)
    if d is Do.COVER:
        return Action(int(seat), d, card=cs[0], on=cs[1])
    if d in (Do.TRANSFER, Do.SHOW, Do.CHALLENGE):
        return Action(int(seat), d, card=cs[0])
    return Action(int(seat), d)


def refused(game: Game, text: str, rule: str, match: str | None = None) -> IllegalAction:
    """``game`` refuses the action ``text`` (notation of `act`) citing ``rule`` (an R-… id), the
    message matching ``match`` if given; the refusal changes nothing and `Game.can_apply`
    agrees.  Returns the error for further checks."""
    before = state(game)
    with pytest.raises(IllegalAction, match=match) as e:
        game.apply(act(text))
    assert e.value.rule == rule, e.value
    assert state(game) == before, "a refused action changed the game"
    assert not game.can_apply(act(text))
    return e.value


def play(game: Game, *texts: str) -> Game:
    for t in texts:
        game.apply(act(t))
    return game


def hand(game: Game, seat: int) -> str:
    return " ".join(sorted(str(c) for c in game.hand(seat)))


def cards(text: str) -> str:
    return " ".join(sorted(text.split()))


def state(game: Game) -> tuple[Any, ...]:
    """Everything observable, to compare before and after a refused action."""
    return (
        [tuple(game.hand(s)) for s in range(game.seats)],
        [game.count(s) for s in range(game.seats)],
        game.table,
        game.attacker,
        game.defender,
        game.phase,
        game.out,
        game.marked,
        game.passed,
        game.stock_count,
        game.discard_count,
        game.trump_card,
        game.result,
        len(game.log),
        [game.legal_actions(s) for s in range(game.seats)],
    )


def random_deck(rules: Rules, rng: random.Random) -> list[Card]:
    deck = list(deck_cards(rules.deck))
    rng.shuffle(deck)
    return deck


def position(
    hands: Sequence[str],
    attacker: int,
    trump: str = "C",
    stock: str = "",
    *,
    defended: bool = True,
    out: Sequence[int] = (),
    seen: Sequence[str] = (),
    **options: Any,
) -> Game:
    """A mid-game position: these hands, this stock (top first, the last card the turned trump
    card), every other card of the deck in the discard pile, a bout about to open by
    ``attacker``; ``seen[s]``: the cards of seat s's hand every player saw go into it (taken,
    R-B8).  For endgame rules that a deal cannot reach in a few moves.  Written in the
    position notation (game/position.py) and read."""
    rules = Rules(**options)
    n = len(hands)
    words = [f"a={attacker}", "b=1"]
    if defended:
        words.append("def")
    if out:
        words.append("out=" + ".".join(map(str, out)))
    text = " ".join(
        [
            rules_text(rules),
            str(n - 1),
            trump,
            "".join(stock.split()) or "-",
            "/".join(
                ("".join(h.split()) or "-")
                + ("*" + "".join(seen[s].split()) if s < len(seen) and seen[s].strip() else "")
                for s, h in enumerate(hands)
            ),
            "-",
            *words,
        ]
    )
    return read(text)
