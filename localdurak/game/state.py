"""The game's state: its fields, the tables every layer shares, and the seat arithmetic.

`engine.Game` is one class, one hot state machine whose flat fields every action reads; it is
written as layers, one module each, stacked by inheritance so that each layer calls only
those below it:

    GameState   (here)       the fields (slots), the empty table, seats, the bout's limits
    BoutEnding  (ending.py)  R-B10..R-B15: the end of a bout, the refill, the result
    Checking    (checks.py)  judging an action (each refusal names its rule), R-S3 / R-S4
    Listing     (legal.py)   the legal actions of a seat, would_end_bout
    Game        (engine.py)  dealing, the public state, hidden information, apply, views

Only `Game` is meant to be used (``from localdurak.game.engine import Game``); the layers are
a way of cutting one class into rooms, not classes of their own.
"""

from __future__ import annotations

from functools import cache
from itertools import chain
from typing import Final

from localdurak.game import duren
from localdurak.game.actions import Action, Do, GameResult, IllegalAction
from localdurak.game.bout import BoutState
from localdurak.game.cards import (
    CARDS,
    Card,
    Suit,
    beat_masks,
    cards_of,
    deck_cards,
    deck_mask,
    mask_of,
)
from localdurak.game.outcome import (
    BoutEnded,
    Marked,
    Opened,
    Out,
    Phase,
)
from localdurak.game.rules import (
    Rules,
    RulesError,
    Teams,
    ThrowIn,
    ThrowInOrder,
    Variant,
)

_ATTACK: Final = Do.ATTACK
_COVER: Final = Do.COVER
_TRANSFER: Final = Do.TRANSFER
_SHOW: Final = Do.SHOW
_TAKE: Final = Do.TAKE
_PASS: Final = Do.PASS
_CHALLENGE: Final = Do.CHALLENGE
# An enum member read from its class costs a lookup each time (Python 3.11); these do not.
_BOUT: Final = Phase.BOUT
_TAKING: Final = Phase.TAKING
_OVER: Final = Phase.OVER

# Seat layouts of R-T1: the team of each seat.
_TEAM_OF: Final[dict[Teams, tuple[int, ...]]] = {
    Teams.TWO_V_TWO: (0, 1, 0, 1),
    Teams.THREE_V_THREE: (0, 1, 0, 1, 0, 1),
    Teams.PAIRS: (0, 1, 2, 0, 1, 2),
}


# Every single-card action exists once (actions are frozen): listing the legal actions then
# builds no objects, and `apply` can recognise an action it has just listed by identity.
_SEATS: Final = range(6)
_ATTACK1: Final = tuple(tuple(Action(s, Do.ATTACK, (c,)) for c in CARDS) for s in _SEATS)
_TRANSFER1: Final = tuple(tuple(Action(s, Do.TRANSFER, card=c) for c in CARDS) for s in _SEATS)
_SHOW1: Final = tuple(tuple(Action(s, Do.SHOW, card=c) for c in CARDS) for s in _SEATS)
_CHALLENGE1: Final = tuple(tuple(Action(s, Do.CHALLENGE, card=c) for c in CARDS) for s in _SEATS)
_TAKE1: Final = tuple(Action(s, Do.TAKE) for s in _SEATS)
_PASS1: Final = tuple(Action(s, Do.PASS) for s in _SEATS)
# _COVER1[seat][on][card]: the covers of one attack card, a row made on first use.
_COVER1: Final[list[list[tuple[Action, ...] | None]]] = [[None] * 52 for _ in _SEATS]


# The small events exist once each too (they are frozen), so a bout's outcome costs few
# allocations: _OPENED[attacker][defender] is the outcome of an opening, _ENDED[defender][taken]
# [discarded] the bout's end, _OUT[seat] and _MARKED[seat] what they say.
_OPENED: Final = tuple(tuple((Opened(a, d),) for d in _SEATS) for a in _SEATS)
_ENDED: Final = tuple(
    tuple(tuple(BoutEnded(d, t, k) for k in range(53)) for t in (False, True)) for d in _SEATS
)
_OUT: Final = tuple(Out(s) for s in _SEATS)
_MARKED: Final = tuple(Marked(s) for s in _SEATS)
# The other events are made per bout, as tuples (outcome.py's events are NamedTuples): one
# C call instead of the generated __new__.
_new: Final = tuple.__new__
_flat: Final = chain.from_iterable


def _cover_row(seat: int, on: int) -> tuple[Action, ...]:
    """Every cover of ``on`` by ``seat``, indexed by the covering card."""
    row = _COVER1[seat][on]
    if row is None:
        row = _COVER1[seat][on] = tuple(Action(seat, Do.COVER, card=c, on=CARDS[on]) for c in CARDS)
    return row


_deck_mask: Final = cache(deck_mask)


@cache
def _deck_set(deck_size: int) -> frozenset[Card]:
    return frozenset(deck_cards(deck_size))


@cache
def _seat_layout(
    teams: Teams, seats: int
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """R-T1: the team of each seat, and as seat bit sets each team's seats and each seat's
    opponents (without teams every player is his own team)."""
    team = _TEAM_OF.get(teams, tuple(range(seats)))
    team_masks = tuple(mask_of(s for s in range(seats) if team[s] == t) for t in sorted(set(team)))
    opponents = tuple(mask_of(o for o in range(seats) if team[o] != team[s]) for s in range(seats))
    return team, team_masks, opponents


@cache
def _clockwise(seats: int) -> tuple[tuple[int, ...], ...]:
    """_clockwise(n)[s]: every seat, going clockwise from seat s (R-B2: seat numbers
    increase clockwise)."""
    return tuple(tuple((s + k) % seats for k in range(seats)) for s in range(seats))


def _next_in(seats: int, seat: int) -> int | None:
    """The first seat of the seat bit set ``seats`` on ``seat``'s left, going clockwise
    (R-B2: seat numbers increase clockwise) and wrapping round; None if the set is empty."""
    later = seats >> (seat + 1)
    if later:
        return seat + (later & -later).bit_length()
    if seats:
        return (seats & -seats).bit_length() - 1
    return None


@cache
def _refill_order(seats: int, opener: int, d: int, out: int) -> tuple[int, ...]:
    """R-B12: who draws, in order: the attackers from the main attacker ``opener`` clockwise,
    then the defender ``d`` (the seats out, the bit set ``out``, do not draw)."""
    order = [s for s in _clockwise(seats)[opener] if s != d and not out >> s & 1]
    return (*order, d)


def _seats_of(mask: int) -> tuple[int, ...]:
    """The seats of a seat bit set, lowest first."""
    return tuple(s for s in range(mask.bit_length()) if mask >> s & 1)


def _n_cards(k: int) -> str:
    return f"{k} card" if k == 1 else f"{k} cards"


def _cards(mask: int) -> str:
    return " ".join(c.pretty() for c in cards_of(mask))


class GameState:
    """The fields of a game and what every layer of `engine.Game` asks of them."""

    # Every field a slot: the state machine reads a dozen of them per action, and an instance
    # with more fields than a shared-key dict holds (30, CPython 3.11) gets the slow attribute
    # look-up; slots are about 5% faster overall (benchmarks/engine.py --compare).
    __slots__ = (  # noqa: RUF023 (grouped by meaning, not sorted)
        # public
        "rules",
        "seats",
        "dealer",
        "trump",
        "log",
        "result",
        "phase",
        "stock_count",
        "discard_count",
        "attacker",
        "defender",
        # the rules and the seats, fixed for the game
        "_duren",
        "_transfers",
        "_free_order",
        "_cheating",
        "_beats",
        "_deck_mask",
        "_team",
        "_team_masks",
        "_opponents",
        "_clockwise",
        "_neighbours",
        "_all_seats",
        "_hs",
        # hands, stock, discard pile, seats out and marked
        "_hands",
        "_unknown",
        "_pub",
        "_viewer",
        "_full",
        "_stock",
        "_stock_pos",
        "_turned",
        "_discard_mask",
        "_out",
        "_out_mask",
        "_marked",
        "_marked_mask",
        "_defended",
        "_limit",
        "_listed",
        "_bout_no",
        "_last_refill",
        "_refill_from",
        "_last_bout",
        "_last_bout_taken",
        # the bout
        "_opener",
        "_att",
        "_table",
        "_uncovered",
        "_table_mask",
        "_rank_cards",
        "_passed",
        "_taking",
        "_attackers",
        "_shown",
        "_info",
        "_snaps",
        "_challenged",
    )

    # --- construction ---------------------------------------------------------------

    def __init__(self, rules: Rules, seats: int, dealer: int, trump: Suit) -> None:
        """Use `Game.deal` or `Game.hidden`; this only sets up the empty table."""
        rules.check_seats(seats)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < seats:
            raise RulesError(f"the dealer must be a seat 0..{seats - 1}, not {dealer!r} (R-D1)")
        self.rules: Final = rules
        self.seats: Final = seats
        self.dealer: Final = dealer
        self.trump: Final = trump
        self.log: list[Action] = []
        self.result: GameResult | None = None
        # records.md "state": a bout, taking (the defender declared take, R-B8) or over; set
        # wherever _taking or result changes.
        self.phase = _BOUT
        self._duren = rules.variant is Variant.DUREN
        self._transfers = rules.variant is Variant.PEREVODNOY
        self._free_order = rules.throw_in_order is ThrowInOrder.FREE
        self._cheating = rules.cheating
        self._beats = beat_masks(trump, rules.japanese)
        self._deck_mask = _deck_mask(rules.deck)
        self._team, self._team_masks, self._opponents = _seat_layout(rules.teams, seats)
        self._clockwise = _clockwise(seats)
        self._neighbours = rules.throw_in is ThrowIn.NEIGHBOURS
        self._all_seats = (1 << seats) - 1
        self._hs = rules.hand_size
        self._hands = [0] * seats
        self._unknown = [0] * seats
        self._pub = [0] * seats
        self._viewer: int | None = None
        self._full = True
        self._stock: list[Card] = []  # full information: the stock, top card first
        self._stock_pos = 0
        self.stock_count = 0
        self._turned: Card | None = None  # the face-up trump card under the stock (R-D2)
        self.discard_count = 0
        self._discard_mask = 0
        self._out: list[int] = []
        self._out_mask = 0
        self._marked: list[int] = []
        self._marked_mask = 0
        self._defended = False  # a successful defence happened (R-B4b)
        self._limit = self._compute_limit()
        # The last legal list of each seat, valid while nothing changed (see `apply`).
        self._listed: dict[int, list[Action]] = {}
        self._bout_no = 0
        self._last_refill: list[int] = []  # who drew, one entry per card (R-B12)
        self._refill_from = 0  # full information: where in the stock the last refill began
        # The table of the bout that just ended, and whether its defender took: a bout can end
        # at once on its last cover (R-B10a, R-P4), and a view must still show that cover.
        self._last_bout: tuple[tuple[Card, Card | None], ...] = ()
        self._last_bout_taken = False
        # The bout (set by _start_bout).
        self.attacker: int | None = None
        self.defender: int | None = None
        self._opener = 0
        self._att: list[Card] = []
        # The table as `table` shows it, (attack card, cover or None), kept up to date so
        # that reading it is a copy; _att[i] is _table[i][0], for index lookups.
        self._table: list[tuple[Card, Card | None]] = []
        self._uncovered = 0
        self._table_mask = 0
        self._rank_cards = 0  # every card of a rank on the table (R-B3)
        self._passed = 0
        self._taking = False
        self._attackers = 0
        self._shown = [0] * seats
        # Cheating mode (R-S3): per card on the table (seat, action number, cheat?) and the
        # state before each card-playing action of the bout.
        self._info: dict[int, tuple[int, int, bool]] = {}
        self._snaps: list[BoutState] = []
        self._challenged = [0] * seats  # per seat: the cards it challenged, found honest

    def _compute_limit(self) -> int:
        if self._duren:
            return duren.MAX_LEAD
        if self.rules.first_bout_five and not self._defended:
            return 5
        return 6

    def count(self, seat: int) -> int:
        """How many cards the seat holds."""
        return self._hands[seat].bit_count() + self._unknown[seat]

    # --- hidden information -----------------------------------------------------------

    def _known_anywhere(self) -> int:
        m = self._table_mask | self._discard_mask
        for h in self._hands:
            m |= h
        if self._turned is not None and self.stock_count:
            m |= 1 << self._turned
        return m

    def _holds(self, seat: int, card: int) -> bool:
        b = 1 << card
        if self._hands[seat] & b:
            return True
        return bool(self._unknown[seat] and self._deck_mask & b and not self._known_anywhere() & b)

    # --- seats ------------------------------------------------------------------------

    def _next_active(self, seat: int) -> int | None:
        """The next player on ``seat``'s left who is not out (``seat`` itself last)."""
        return _next_in(self._all_seats & ~self._out_mask, seat)

    def _next_opponent(self, seat: int, step: int = 1) -> int | None:
        """The next active opponent on the left (step -1: on the right) of ``seat`` (R-T2)."""
        active = self._opponents[seat] & ~self._out_mask
        if step == 1:
            return _next_in(active, seat)
        n = self.seats
        for k in range(1, n):
            s = (seat - k) % n
            if active >> s & 1:
                return s
        return None

    def _compute_attackers(self) -> int:
        """R-B2, R-T2: the active opponents of the defender (or his two nearest ones)."""
        d = self.defender
        assert d is not None and self.attacker is not None
        if self._neighbours:
            m = 1 << self.attacker
            for step in (1, -1):
                s = self._next_opponent(d, step)
                if s is not None:
                    m |= 1 << s
            return m
        return self._opponents[d] & ~self._out_mask | 1 << self.attacker

    def _start_bout(self, attacker: int) -> None:
        self.attacker = attacker
        self._opener = attacker
        # R-F3: the defender is the next active opponent on the main attacker's left.
        if self._duren:
            self.defender = self._next_active(attacker)
        else:
            self.defender = self._next_opponent(attacker)
        self._att = []
        self._table = []
        self._uncovered = 0
        self._table_mask = 0
        self._rank_cards = 0
        self._passed = 0
        self._taking = False
        self.phase = _BOUT
        if self._transfers:
            self._shown = [0] * self.seats  # R-B7: once per bout
        if self._cheating:
            self._info = {}
            self._snaps = []
            self._challenged = [0] * self.seats
        self._attackers = 0 if self._duren else self._compute_attackers()

    def _may_throw_in(self, seat: int) -> bool:
        """R-B3 first_word: others throw in only after the main attacker's Done."""
        if self.rules.throw_in_order is ThrowInOrder.FREE or seat == self.attacker:
            return True
        a = self.attacker
        assert a is not None
        return bool(self._passed >> a & 1) or self.count(a) == 0

    def _room(self, k: int) -> IllegalAction | None:
        """R-B4: may ``k`` more attack cards go on the table?  None if yes, else why not."""
        n_att = len(self._att)
        limit = self._limit
        if n_att + k > limit:
            left = limit - n_att
            if limit == 5 and self.rules.first_bout_five:
                why = "until the first successful defence of the game a bout holds at most 5"
                rule = "R-B4b"
            else:
                why = "a bout holds at most 6 attack cards"
                rule = "R-B4a"
            more = "no more" if left <= 0 else f"only {left} more"
            return IllegalAction(rule, f"{why}, so {more} may be played")
        d = self.defender
        assert d is not None
        held = self.count(d)
        if self._uncovered + k > held:
            left = held - self._uncovered
            more = "no more" if left <= 0 else f"only {left} more"
            return IllegalAction(
                "R-B4c",
                f"the defender holds {_n_cards(held)}, so {more} may be thrown in",
            )
        return None

    def _transfer_bout(self) -> bool:
        return self.rules.transfer_first_bout or self._bout_no > 0

    def _all_passed_if(self, passed: int, seat: int = -1, count: int = 0) -> bool:
        """`_all_passed` with the passes ``passed`` and, if ``seat`` is given, that seat
        holding ``count`` cards."""
        m = self._attackers & ~passed
        while m:
            low = m & -m
            s = low.bit_length() - 1
            if (count if s == seat else self.count(s)) > 0:
                return False
            m ^= low
        return True

    def _all_passed(self) -> bool:
        """R-B9: every attacker has passed (an attacker without cards has passed)."""
        m = self._attackers & ~self._passed
        hands, unknown = self._hands, self._unknown
        while m:
            low = m & -m
            s = low.bit_length() - 1
            if hands[s] or unknown[s]:
                return False
            m ^= low
        return True
