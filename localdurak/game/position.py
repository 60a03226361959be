"""A text notation of a position, both ways (docs/engine-api.md "Position notation").

Like chess's FEN: one line of space-separated fields, enough to carry on playing from it
exactly as the game would have (the same legal actions, the same outcomes), for tests and
bug reports.  `write(game)` prints a full-information game's position; `read(text)` builds
the game again, and ``write(read(text)) == text``.

    podkidnoy 2 H 9DKH 8S9S*9S/TCJC/- 6S7S.6H a=0 b=3 def out=2

The fields, in order:

1. rules: the variant, then the options that differ from its defaults, comma-separated
   (``perevodnoy,deck=24,trump_show=true``; records.md's option names and values).
2. the dealer's seat.
3. the trump suit (S H D C).
4. the stock, top card first; ``-`` when empty.  Unless the game is Japanese (R-D4), its
   last card is the turned trump card (R-D2).
5. the hands, seat 0 first, ``/`` between them; a hand's cards, then after ``*`` those of
   them every player saw go into it (taken, shown, the turned trump drawn); ``-`` for an
   empty hand.  The number of hands is the number of seats.
6. the table: the attack cards in the order they were played, ``.`` between them, each
   followed by its cover if it is covered; ``-`` when empty.
7. then ``key=value`` words (``.`` between seats), in this order, each only when it is not
   its default: ``a`` the main attacker, ``d`` the defender (by default R-F3's: the next
   active opponent on the attacker's left), ``o`` the bout's first attacker
   when a transfer moved the attack on (R-B6; the refill starts with him, R-B12), ``b`` the
   bouts finished (R-B6 ``transfer_first_bout``), ``def`` a successful defence happened
   (R-B4b), ``take`` the defender declared take (R-B8), ``p`` the attackers that passed
   (R-B9), ``sh`` the trumps shown this bout (R-B7, ``seat:cards``), ``out`` the seats out
   in the order they went (R-B13), ``m`` the marked seats in order (R-S3, R-S4), ``r`` the
   result (``draw``, or the durak seats and ``:`` the pogony, R-B15).

Every card not in the stock, a hand or on the table is in the discard pile.  Cards are
written as records.md writes them (``TD``), run together: each is two characters.

Not part of a position (what happened, not where the game stands): the action log, the last
bout's table and refill, and in the cheating mode who played which card on the table (a
cheating position is written between bouts only, when the table is empty).  Hidden
information (`Game.hidden`) has no notation: a position names every card.
"""

from __future__ import annotations

from typing import Any

from localdurak.game.actions import GameResult
from localdurak.game.cards import CARDS, RANK_MASK, Card, CardError, Suit, deck_mask, mask_of
from localdurak.game.engine import Game
from localdurak.game.outcome import Phase
from localdurak.game.rules import Rules, Variant
from localdurak.game.view import sort_mask


class PositionError(ValueError):
    """Not a position: the text says what is wrong."""


def _cards(cards: Any) -> str:
    return "".join(str(c) for c in cards) or "-"


def _seats(seats: Any) -> str:
    return ".".join(str(s) for s in seats)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def rules_text(rules: Rules) -> str:
    """The first field: the variant and the options that differ from its defaults."""
    options = rules.non_defaults()
    head = [str(options.pop("variant"))] + [f"{k}={_value(v)}" for k, v in options.items()]
    return ",".join(head)


def _default_defender(game: Game, attacker: int | None) -> int | None:
    """R-F3 (R-P1): the next active opponent on the attacker's left (in Dureń the next active
    player)."""
    if attacker is None:
        return None
    if game.rules.variant is Variant.DUREN:
        return game._next_active(attacker)
    return game._next_opponent(attacker)


def write(game: Game) -> str:
    """The position of a full-information game, one line."""
    if game.hidden_mode:
        raise PositionError("a hidden-information game has no position notation")
    if game.rules.cheating and game.table:
        raise PositionError("a cheating game's position is written between bouts only")
    hands = []
    for s in range(game.seats):
        hand = _cards(sort_mask(game._hands[s], game.trump))
        pub = game._pub[s]
        if pub:
            hand += "*" + _cards(sort_mask(pub, game.trump))
        hands.append(hand)
    table = ".".join(str(a) + ("" if c is None else str(c)) for a, c in game.table) or "-"
    words: list[str] = []
    if game.attacker is not None:
        words.append(f"a={game.attacker}")
    if game.defender is not None and game.defender != _default_defender(game, game.attacker):
        words.append(f"d={game.defender}")
    if game.result is None and game._opener != game.attacker:
        words.append(f"o={game._opener}")
    if game.bout_number:
        words.append(f"b={game.bout_number}")
    if game.defended_once:
        words.append("def")
    if game.phase is Phase.TAKING:
        words.append("take")
    if game.passed:
        words.append(f"p={_seats(game.passed)}")
    shown = [f"{s}:{_cards(sort_mask(m, game.trump))}" for s, m in enumerate(game._shown) if m]
    if shown:
        words.append(f"sh={'.'.join(shown)}")
    if game.out:
        words.append(f"out={_seats(game.out)}")
    if game.marked:
        words.append(f"m={_seats(game.marked)}")
    if game.result is not None:
        r = game.result
        words.append("r=draw" if r.draw else f"r={_seats(r.durak)}:{r.pogony}")
    return " ".join(
        [
            rules_text(game.rules),
            str(game.dealer),
            game.trump.letter,
            _cards(game.stock_cards()),
            "/".join(hands),
            table,
            *words,
        ]
    )


def _parse_cards(text: str, what: str) -> list[Card]:
    if text == "-":
        return []
    if len(text) % 2:
        raise PositionError(f"{what}: cards are two characters each, not {text!r}")
    try:
        return [Card.parse(text[i : i + 2]) for i in range(0, len(text), 2)]
    except CardError as e:
        raise PositionError(f"{what}: {e}") from None


def _parse_seats(text: str, n: int, what: str) -> list[int]:
    try:
        seats = [int(s) for s in text.split(".")] if text else []
    except ValueError:
        raise PositionError(f"{what}: seats are numbers, not {text!r}") from None
    if any(not 0 <= s < n for s in seats) or len(set(seats)) != len(seats):
        raise PositionError(f"{what}: {text!r} names a seat twice or not at this table")
    return seats


def _parse_rules(text: str) -> Rules:
    variant, *options = text.split(",")
    data: dict[str, Any] = {"variant": variant}
    for o in options:
        k, eq, v = o.partition("=")
        if not eq:
            raise PositionError(f"rules: {o!r} is not option=value")
        data[k] = True if v == "true" else False if v == "false" else int(v) if v.isdigit() else v
    try:
        return Rules.from_dict(data)
    except (ValueError, TypeError) as e:
        raise PositionError(f"rules: {e}") from None


def read(text: str) -> Game:
    """The game at the position ``text`` (see the module's docstring); raises
    `PositionError` saying what is wrong."""
    fields = text.split()
    if len(fields) < 6:
        raise PositionError(
            "a position has at least six fields: rules dealer trump stock hands table"
        )
    rules = _parse_rules(fields[0])
    hands_text = fields[4].split("/")
    n = len(hands_text)
    try:
        rules.check_seats(n)
        dealer = int(fields[1])
        trump = Suit.parse(fields[2])
        game = Game(rules, n, dealer, trump)
    except (ValueError, CardError) as e:
        raise PositionError(f"the table: {e}") from None
    stock = _parse_cards(fields[3], "the stock")
    hands: list[int] = []
    pubs: list[int] = []
    for s, h in enumerate(hands_text):
        own, _, pub = h.partition("*")
        hand = mask_of(_parse_cards(own, f"seat {s}'s hand"))
        seen = mask_of(_parse_cards(pub, f"seat {s}'s seen cards")) if pub else 0
        if seen & ~hand:
            raise PositionError(f"seat {s}: a seen card that is not in the hand")
        hands.append(hand)
        pubs.append(seen)
    table: list[tuple[Card, Card | None]] = []
    if fields[5] != "-":
        for pair in fields[5].split("."):
            cs = _parse_cards(pair, "the table")
            if len(cs) not in (1, 2):
                raise PositionError(f"the table: {pair!r} is an attack card and its cover")
            table.append((cs[0], cs[1] if len(cs) == 2 else None))
    every = [*stock, *(c for pair in table for c in pair if c is not None)]
    full = deck_mask(rules.deck)
    used = mask_of(every)
    count = len(every)
    for m in hands:
        used |= m
        count += m.bit_count()
    if used.bit_count() != count or used & ~full:
        raise PositionError("a card is named twice, or is not in the rules' deck")
    words: dict[str, str] = {}
    for w in fields[6:]:
        k, _, v = w.partition("=")
        if k not in ("a", "d", "o", "b", "def", "take", "p", "sh", "out", "m", "r") or k in words:
            raise PositionError(f"{w!r} is not a position word (or comes twice)")
        words[k] = v
    if rules.cheating and table:
        raise PositionError("a cheating game's position is written between bouts only")

    game._hands = hands
    game._pub = pubs
    game._stock = stock
    game.stock_count = len(stock)
    game._turned = stock[-1] if stock and not rules.japanese else None
    game._discard_mask = full & ~used
    game.discard_count = game._discard_mask.bit_count()
    game._defended = "def" in words
    game._limit = game._compute_limit()
    game._bout_no = int(words.get("b", "0"))
    for s in _parse_seats(words.get("out", ""), n, "out"):
        game._out.append(s)
        game._out_mask |= 1 << s
    for s in _parse_seats(words.get("m", ""), n, "m"):
        game._mark(s)
    if "r" in words:
        r = words["r"]
        if r == "draw":
            game.result = GameResult((), True, 0)
        else:
            durak, _, pogony = r.partition(":")
            game.result = GameResult(tuple(_parse_seats(durak, n, "r")), False, int(pogony or 0))
        game.phase = Phase.OVER
        game.attacker = game.defender = None
        return game
    if "a" not in words:
        raise PositionError("a game that goes on names its main attacker (a=)")
    attacker = int(words["a"])
    game._start_bout(int(words.get("o", attacker)))
    game.attacker = attacker
    defender = int(words["d"]) if "d" in words else _default_defender(game, attacker)
    if defender is None or defender == attacker:
        raise PositionError("the attacker has nobody to attack")
    game.defender = defender
    if rules.variant is not Variant.DUREN:
        game._attackers = game._compute_attackers()
    game._table = table
    game._att = [a for a, _ in table]
    game._uncovered = sum(c is None for _, c in table)
    game._table_mask = mask_of(every[len(stock) :])
    for c in every[len(stock) :]:
        game._rank_cards |= RANK_MASK[CARDS[c] % 13]
    game._passed = mask_of(_parse_seats(words.get("p", ""), n, "p"))
    if "take" in words:
        game._taking = True
        game.phase = Phase.TAKING
    if "sh" in words:
        for part in words["sh"].split("."):
            seat, _, shown = part.partition(":")
            game._shown[int(seat)] = mask_of(_parse_cards(shown, "sh"))
    return game


__all__ = ["PositionError", "read", "rules_text", "write"]
