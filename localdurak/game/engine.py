"""The rules engine: one game of Durak as a state machine (rules.md, records.md, engine-api.md).

Durak is not turn-based: several seats may act at once, so the engine answers, for any seat,
which actions are legal now (`Game.legal_actions`), and applies one action at a time, either
completely or not at all (`Game.apply`; a refused action raises `IllegalAction`, naming the
rule, and changes nothing).

Speed: a hand is an integer bit set of cards (cards.py), so is a set of seats (teams,
opponents, attackers, passes, the seats out), the table a short list of (attack, cover) pairs,
and every "which cards / which seats may..." question is a mask operation.  Listing builds no
`Action`: every single-card action exists once, and `apply` recognises one it has just listed
by identity and skips re-checking it.  Nothing is copied per action, except the caller's copy
of a legal list and the small snapshots the cheating mode needs to roll a bout back (R-S3).

Hidden information: every hand is *known cards* plus a count of *unknown cards*, the stock a
count plus the trump card.  `Game.deal` knows the whole deck (nothing unknown); `Game.hidden`
is one seat's knowledge under card privacy.  Besides, every hand carries the *public* cards,
those every player saw go into it (taken from the table, shown, the turned trump drawn); a
`PlayerView` shows another seat only its public cards.

Where rules.md is silent the choice made is marked ``reading:`` in a comment.

Why this module is long (~1,450 lines, over the house's ~700): it is one class, one hot state
machine, whose flat fields every action reads — the listing, the checking (each refusal
naming its rule), applying and the end of a bout all work on the same dozen bit sets, and the
engine's speed (benchmarks/engine.py) comes from their being plain attributes of one object.
Split into mixins, the state would be spread over files with no boundary between them.
What has a boundary lives elsewhere: what an action caused (outcome.py), the bout's state
R-S3 rolls back (bout.py), the position notation (position.py), R-B5 (cards.beats), Dureń's
leads (duren.py), the views (view.py).  Sections, in order: construction, public state,
hidden information, seats, legal actions, checking, applying, the end of a bout, views.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from itertools import chain
from typing import Final

from localdurak.game import duren
from localdurak.game.actions import Action, Do, GameResult, IllegalAction
from localdurak.game.bout import BoutState
from localdurak.game.cards import (
    CARDS,
    RANK_MASK,
    SUIT_MASK,
    Card,
    Suit,
    beat_masks,
    cards_of,
    deck_cards,
    deck_mask,
    lowest_rank,
    mask_of,
)
from localdurak.game.outcome import (
    NOTHING,
    BoutEnded,
    Event,
    Marked,
    Opened,
    Out,
    Outcome,
    Over,
    Phase,
    Refilled,
    Returned,
    Taken,
)
from localdurak.game.rules import (
    NextFirstAttack,
    Rules,
    RulesError,
    Teams,
    ThrowIn,
    ThrowInOrder,
    Tie,
    Variant,
)
from localdurak.game.view import PlayerView, SeatView, sort_mask

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


def _seats_of(mask: int) -> tuple[int, ...]:
    """The seats of a seat bit set, lowest first."""
    return tuple(s for s in range(mask.bit_length()) if mask >> s & 1)


def _n_cards(k: int) -> str:
    return f"{k} card" if k == 1 else f"{k} cards"


def _cards(mask: int) -> str:
    return " ".join(c.pretty() for c in cards_of(mask))


class Game:
    """One game at a table: deal it with `Game.deal` (or `Game.hidden`), then `apply` actions."""

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

    @classmethod
    def deal(
        cls,
        rules: Rules,
        seats: int,
        dealer: int,
        deck: Sequence[Card],
        *,
        previous: GameResult | None = None,
    ) -> Game:
        """Deal ``deck`` (in deal order, records.md) and find the first attacker."""
        rules.check_seats(seats)
        deck = [c if type(c) is Card else Card(c) for c in deck]
        if len(deck) != rules.deck or set(deck) != _deck_set(rules.deck):
            raise RulesError(
                f"the deck must hold each of the {rules.deck} cards of the rules' deck once (R-C1)"
            )
        hs = rules.hand_size
        n_dealt = seats * hs
        # R-D1: one card at a time, clockwise, starting with the dealer's left.
        hands = [0] * seats
        for k in range(seats):
            # the k-th seat from the dealer's left gets the deck's cards k, k + seats, ...
            hands[(dealer + 1 + k) % seats] = mask_of(deck[k:n_dealt:seats])
        rest = deck[n_dealt:]
        shown: dict[int, list[Card]] = {}
        turned: Card | None = None
        if rules.japanese:
            trump = Suit.DIAMONDS  # R-D4: no card is turned
            stock = list(rest)
        elif rest:
            turned = rest[0]  # R-D2: under the stock, drawn last
            trump = turned.suit
            stock = [*rest[1:], turned]
        else:
            # R-D3: the dealer's last card is shown; it names trump and stays in his hand.
            last = deck[n_dealt - 1]
            trump = last.suit
            shown[dealer] = [last]
            stock = []
        game = cls(rules, seats, dealer, trump)
        game._hands = hands
        game._stock = stock
        game.stock_count = len(stock)
        game._turned = turned
        for s, cs in shown.items():
            game._pub[s] |= mask_of(cs)
        first = game._first_attacker(previous)
        game._start_bout(first)
        return game

    @classmethod
    def hidden(
        cls,
        rules: Rules,
        seats: int,
        dealer: int,
        *,
        trump_card: Card | None,
        trump_suit: Suit,
        first_attacker: int,
        viewer: int | None,
        own_cards: Sequence[Card],
        shown: Mapping[int, Sequence[Card]] | None = None,
        previous: GameResult | None = None,
    ) -> Game:
        """One seat's knowledge of a freshly dealt game (engine-api.md "Hidden information").

        ``trump_card`` is the turned card under the stock (None: R-D3 or R-D4); ``shown`` the
        cards every player saw in a hand at the deal (R-D3's card, R-F1's lowest trump);
        ``first_attacker`` comes from the protocol's R-F1 step.  ``previous`` is accepted for
        symmetry with `deal`; the first attacker is given.
        """
        del previous  # the protocol already applied R-F2 to find first_attacker
        rules.check_seats(seats)
        game = cls(rules, seats, dealer, Suit(trump_suit))
        game._full = False
        game._viewer = viewer
        hs = rules.hand_size
        own = mask_of(own_cards)
        if viewer is not None:
            if own.bit_count() != hs or len(own_cards) != hs or own & ~game._deck_mask:
                raise ValueError(f"the viewer's hand must be {hs} distinct cards of the deck")
            game._hands[viewer] = own
        elif own_cards:
            raise ValueError("a spectator (viewer None) holds no cards")
        for s in range(seats):
            pub = mask_of((shown or {}).get(s, ()))
            game._pub[s] = pub
            game._hands[s] |= pub
            if s == viewer and pub & ~own:
                raise ValueError(f"seat {s} was shown a card that is not in its hand")
            game._unknown[s] = hs - game._hands[s].bit_count()
        game.stock_count = rules.deck - seats * hs
        if trump_card is not None:
            if rules.japanese or game.stock_count == 0:
                raise ValueError("no trump card is turned here (R-D3, R-D4)")
            if Card(trump_card).suit != trump_suit:
                raise ValueError("the trump card names the trump suit (R-D2)")
            game._turned = Card(trump_card)
        if not 0 <= first_attacker < seats:
            raise ValueError(f"the first attacker must be a seat 0..{seats - 1} (R-F1)")
        game._start_bout(first_attacker)
        return game

    @staticmethod
    def series_dealer(previous: GameResult | None, otherwise: int) -> int:
        """R-D5: in a later game the previous durak deals (with teams, the losing team's
        lowest seat, as R-F2 reads it); a first game, or one after a draw, is dealt by
        ``otherwise`` (random, chosen by the host).  reading: after a draw there is no durak
        to deal, so the dealer is chosen as for a first game."""
        if previous is None or previous.draw or not previous.durak:
            return otherwise
        return min(previous.durak)

    def _first_attacker(self, previous: GameResult | None) -> int:
        n = self.seats
        if self._duren:
            # R-P1: the player on the dealer's left. reading: in a Dureń series this still
            # holds; R-D5 (the previous durak deals) is what moves the first lead.
            return (self.dealer + 1) % n
        if previous is not None and not previous.draw and previous.durak:
            durak = min(previous.durak)  # R-F2: with teams, the losing team's lowest seat
            if not 0 <= durak < n:
                raise RulesError(f"the previous durak {durak} is not a seat of this table")
            if self.rules.next_first_attack is NextFirstAttack.FROM_DURAK:
                return (durak + 1) % n
            # at_durak: the active opponent on the durak's right attacks him.
            for k in range(1, n):
                s = (durak - k) % n
                if self._team[s] != self._team[durak]:
                    return s
        # R-F1: the lowest trump; nobody holds one: the dealer's left.
        tmask = SUIT_MASK[self.trump]
        best: tuple[int, int] | None = None
        for s in range(n):
            t = self._hands[s] & tmask
            if t:
                low = (t & -t).bit_length() - 1
                if best is None or low < best[0]:
                    best = (low, s)
        if best is None:
            return (self.dealer + 1) % n
        # reading: the lowest trump is shown to everyone to claim the first attack.
        self._pub[best[1]] |= 1 << best[0]
        return best[1]

    # --- public state (records.md "state") -------------------------------------------

    @property
    def trump_card(self) -> Card | None:
        """The face-up card under the stock; None once drawn or when none was turned."""
        return self._turned if self.stock_count else None

    @property
    def table(self) -> list[tuple[Card, Card | None]]:
        return self._table[:]  # a copy of a list of tuples: the caller cannot change ours

    @property
    def out(self) -> list[int]:
        return list(self._out)

    @property
    def marked(self) -> list[int]:
        return list(self._marked)

    @property
    def passed(self) -> list[int]:
        return [s for s in range(self.seats) if self._passed >> s & 1]

    @property
    def attackers(self) -> list[int]:
        """The seats that may attack or throw in this bout (R-B2, R-T2)."""
        return [s for s in range(self.seats) if self._attackers >> s & 1]

    @property
    def limit(self) -> int:
        """R-B4a/b (R-P3 in Dureń): how many attack cards this bout may hold."""
        return self._limit

    def _compute_limit(self) -> int:
        if self._duren:
            return duren.MAX_LEAD
        if self.rules.first_bout_five and not self._defended:
            return 5
        return 6

    @property
    def bout_number(self) -> int:
        return self._bout_no

    @property
    def defended_once(self) -> bool:
        return self._defended

    @property
    def hidden_mode(self) -> bool:
        return not self._full

    @property
    def viewer(self) -> int | None:
        return self._viewer

    def team(self, seat: int) -> int:
        return self._team[seat]

    def count(self, seat: int) -> int:
        """How many cards the seat holds."""
        return self._hands[seat].bit_count() + self._unknown[seat]

    def hand(self, seat: int) -> list[Card]:
        """The seat's cards in client order (in a hidden game: the cards known to be there)."""
        return list(sort_mask(self._hands[seat], self.trump))

    def known(self, seat: int) -> list[Card]:
        """The cards every player knows are in the seat's hand (public knowledge)."""
        return list(sort_mask(self._pub[seat], self.trump))

    def refill_schedule(self) -> list[int]:
        """The seats that drew in the last refill, one entry per card, R-B12 order."""
        return list(self._last_refill)

    def last_draws(self, seat: int) -> list[Card]:
        """The cards the seat drew in the last refill, as far as this game knows them."""
        sched = self._last_refill
        if not sched:
            return []
        drawn = self._drawn_cards()
        return [c for s, c in zip(sched, drawn, strict=True) if s == seat and c is not None]

    def stock_cards(self) -> list[Card]:
        """Full information only: the stock, top card first, the trump card last."""
        return list(self._stock[self._stock_pos :])

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

    def learn_draws(self, seat: int, cards: Sequence[Card]) -> None:
        """The viewer decoded the cards ``seat`` drew in the last refill: unknown -> known."""
        if self._full:
            raise ValueError("learn_draws is for a hidden-information game")
        new = 0
        for c in cards:
            b = 1 << c
            if self._hands[seat] & b:
                continue  # already known (the turned trump card, drawn in public)
            if new & b or not self._deck_mask & b or self._known_anywhere() & b:
                raise ValueError(f"{Card(c)} cannot be in seat {seat}'s hand")
            new |= b
        if new.bit_count() > self._unknown[seat]:
            raise ValueError(f"seat {seat} has only {self._unknown[seat]} unknown cards")
        self._hands[seat] |= new
        self._unknown[seat] -= new.bit_count()
        self._listed.clear()

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

    # --- legal actions ----------------------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        """records.md ``legal``: what ``seat`` may do now (honest actions only when cheating;
        a podkidnoy attack as single cards; a Dureń attack as every legal lead)."""
        if not 0 <= seat < self.seats:
            raise ValueError(f"there is no seat {seat} at this table (R-C3)")
        if self.result is not None or self._out_mask >> seat & 1:
            return []
        if not self._att:
            if seat != self.attacker:
                return []  # only the main attacker acts before the bout opens (R-B1)
            acts = self._legal_leads(seat) if self._duren else self._legal_open(seat)
        elif seat == self.defender:
            acts = self._legal_defence(seat)  # in Dureń too: cover or take (R-P4)
        elif self._duren:
            return []  # nobody throws in in Dureń (R-P3)
        else:
            acts = self._legal_throw_in(seat)
        if self._cheating:
            self._legal_challenges(seat, acts)
        if not acts:
            return acts  # nothing to recognise in apply
        self._listed[seat] = acts  # for apply's fast path; the caller gets a copy
        return acts[:]

    def _legal_open(self, seat: int) -> list[Action]:
        # R-B1: any card opens (several of one rank may go together).
        acts: list[Action] = []
        hand = self._hands[seat]
        row = _ATTACK1[seat]
        while hand:
            low = hand & -hand
            acts.append(row[low.bit_length() - 1])
            hand ^= low
        return acts

    def _legal_defence(self, seat: int) -> list[Action]:
        """The defender: covers (R-B5), transfers (R-B6, R-B7), take (R-B8)."""
        if self._taking:
            return []
        acts: list[Action] = []
        hand = self._hands[seat]
        # R-B5: each uncovered attack card, in table order, by each card of the hand that
        # beats it (low cards first).
        beats = self._beats
        for a, c in self._table:
            if c is None:
                m = hand & beats[a]
                if m:
                    row = _COVER1[seat][a] or _cover_row(seat, a)
                    while m:
                        low = m & -m
                        acts.append(row[low.bit_length() - 1])
                        m ^= low
        if self._transfers:
            self._legal_transfers(seat, hand, acts)
        acts.append(_TAKE1[seat])
        return acts

    def _legal_throw_in(self, seat: int) -> list[Action]:
        """Another seat while the bout is open: throw-ins (R-B3, R-B4) and pass (R-B9)."""
        bit = 1 << seat
        if not self._attackers & bit or self._passed & bit:
            return []  # not an attacker of this bout (R-B2, R-T2), or passed (R-B9)
        hand = self._hands[seat]
        if not hand and not self._unknown[seat]:
            return []  # without cards he has passed (R-B9)
        acts: list[Action] = []
        d = self.defender
        assert d is not None
        m = hand & self._rank_cards  # R-B3: ranks on the table
        if (
            m
            and len(self._att) < self._limit
            and self._uncovered < self._hands[d].bit_count() + self._unknown[d]  # R-B4
            and (self._free_order or self._may_throw_in(seat))
        ):
            row = _ATTACK1[seat]
            while m:
                low = m & -m
                acts.append(row[low.bit_length() - 1])
                m ^= low
        acts.append(_PASS1[seat])
        return acts

    def _legal_transfers(self, seat: int, hand: int, acts: list[Action]) -> None:
        if not self._transfers or self._uncovered != len(self._att) or not self._transfer_bout():
            return
        rank = self._att[0] % 13
        if self._rank_cards != RANK_MASK[rank]:
            return  # cheats of several ranks lie on the table: no honest transfer
        new = self._next_opponent(seat)
        if new is None:
            return
        n_att = len(self._att)
        if self.count(new) >= n_att + 1 and n_att + 1 <= self._limit:
            m = hand & RANK_MASK[rank]
            while m:
                low = m & -m
                acts.append(_TRANSFER1[seat][low.bit_length() - 1])
                m ^= low
        if self.rules.trump_show and self.count(new) >= n_att:
            m = hand & RANK_MASK[rank] & SUIT_MASK[self.trump] & ~self._shown[seat]
            while m:
                low = m & -m
                acts.append(_SHOW1[seat][low.bit_length() - 1])
                m ^= low

    def _legal_challenges(self, seat: int, acts: list[Action]) -> None:
        for c, (by, _k, _cheat) in self._info.items():
            if by != seat and not self._challenged[seat] >> c & 1:
                acts.append(_CHALLENGE1[seat][c])

    def _legal_leads(self, seat: int) -> list[Action]:
        """Dureń: the main attacker's every legal lead (R-P2, R-P3)."""
        assert self.defender is not None
        most = min(duren.MAX_LEAD, self.count(self.defender))
        key_trump = self.trump
        # reading: a lead's cards are listed in the order hands are shown (records.md).
        return [
            Action(seat, _ATTACK, sort_mask(m, key_trump))
            for m in duren.leads(self._hands[seat], self.rules.duren_leads, most)
        ]

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

    def can_apply(self, action: Action) -> bool:
        try:
            self.check(action)
        except IllegalAction:
            return False
        return True

    def would_end_bout(self, action: Action) -> bool:
        """Whether applying ``action`` now would end the bout (or the game, which ends only
        with a bout): R-S5's challenge window holds such an action.  False for an action the
        rules refuse.  Changes nothing and copies nothing: it asks `apply`'s R-B10 questions
        of the state the action would leave."""
        try:
            self._check(action)
        except IllegalAction:
            return False
        do = action.do
        if do is _CHALLENGE or do is _TRANSFER or do is _SHOW:
            return False  # R-S3 rolls back, R-B6/R-B7 leave an uncovered card
        d = self.defender
        assert d is not None
        seat = action.seat
        n_att, uncovered, limit = len(self._att), self._uncovered, self._limit
        held = self.count(d)
        if do is _TAKE:
            if self._duren:
                return True  # R-P4
            # R-B9: declaring take changes the table, so the passes start again.
            return n_att >= limit or uncovered >= held or self._all_passed_if(0)
        if do is _COVER:
            if uncovered != 1:
                return False  # a card stays uncovered
            if self._duren:
                return True  # R-P4: all covered
            # R-B10a; the defender is no attacker, so his last card counts only for R-B13.
            return n_att >= limit or held == 1 or self._all_passed_if(0)
        if do is _PASS:
            passed = self._passed | 1 << seat
            if self._taking:
                return n_att >= limit or uncovered >= held or self._all_passed_if(passed)
            return not uncovered and (n_att >= limit or not held or self._all_passed_if(passed))
        # An attack: only a throw-in after take can end the bout (R-B10b).
        if self._duren or not self._taking:
            return False
        k = len(action.cards)
        return (
            n_att + k >= limit
            or uncovered + k >= held
            or self._all_passed_if(0, seat, self.count(seat) - k)
        )

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

    # --- checking ---------------------------------------------------------------------

    def check(self, action: Action) -> None:
        """Raise `IllegalAction` (naming the rule) if ``action`` may not be applied now."""
        self._check(action)

    def _check(self, a: Action) -> bool:
        """Check ``a``; return whether it is a cheat (R-S1).  Changes nothing."""
        seat = a.seat
        if self.result is not None:
            raise IllegalAction("R-B14", "the game is over")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise IllegalAction("R-C3", f"there is no seat {seat!r} at this table")
        if self._out_mask >> seat & 1:
            raise IllegalAction("R-B13", f"seat {seat} is out of the game and safe")
        do = a.do
        if do is _CHALLENGE:
            self._check_challenge(a)
            return False
        if self._duren:
            return self._check_duren(a)
        if do is _ATTACK:
            return self._check_attack(a)
        if do is _COVER:
            return self._check_cover(a)
        if do is _TRANSFER or do is _SHOW:
            return self._check_transfer(a)
        if do is _TAKE:
            self._check_take(seat)
            return False
        if do is _PASS:
            self._check_pass(seat)
            return False
        raise IllegalAction("R-B1", f"unknown action {do!r}")

    def _cheat(self, seat: int, rule: str, why: str) -> bool:
        """R-S1/R-S3: a card the rules refuse is a cheat if cheating is on and seat unmarked."""
        if not self._cheating:
            raise IllegalAction(rule, why)
        if self._marked_mask >> seat & 1:
            raise IllegalAction(
                "R-S3", f"{why}; seat {seat} was caught or marked and must play honestly"
            )
        return True

    def _check_cards(self, seat: int, cards: Sequence[Card]) -> int:
        if not cards:
            raise IllegalAction("R-B1", "an attack needs at least one card")
        m = 0
        for c in cards:
            if not isinstance(c, int) or not 0 <= c < 52:
                raise IllegalAction("R-C2", f"{c!r} is not a card")
            if m >> c & 1:
                raise IllegalAction("R-C1", f"{Card(c).pretty()} is named twice")
            m |= 1 << c
            if not self._holds(seat, c):
                raise IllegalAction("R-S1", f"seat {seat} does not hold {Card(c).pretty()}")
        if (m & ~self._hands[seat]).bit_count() > self._unknown[seat]:
            raise IllegalAction("R-S1", f"seat {seat} does not hold all of {_cards(m)}")
        return m

    def _check_attack(self, a: Action) -> bool:
        seat = a.seat
        d = self.defender
        assert d is not None
        m = self._check_cards(seat, a.cards)
        k = len(a.cards)
        cheat = False
        if not self._att:
            if seat != self.attacker:
                raise IllegalAction(
                    "R-B1", f"the main attacker (seat {self.attacker}) opens the bout"
                )
            ranks = {c % 13 for c in a.cards}
            if len(ranks) > 1:
                # reading: an opening of several ranks breaks R-B1; in cheating mode it is a
                # cheat, and every card of it is (a challenge of any takes the lead back).
                cheat = self._cheat(
                    seat, "R-B1", "a bout opens with one card or several cards of one rank"
                )
        else:
            if seat == d:
                raise IllegalAction("R-B2", "the defender does not attack himself")
            if not self._attackers >> seat & 1:
                if self._team[seat] == self._team[d]:
                    raise IllegalAction(
                        "R-T2", f"seat {seat} is the defender's partner and never throws in"
                    )
                raise IllegalAction(
                    "R-B2",
                    f"only the defender's nearest opponents throw in (seats "
                    f"{', '.join(map(str, self.attackers))})",
                )
            if self._passed >> seat & 1:
                # reading: "a pass lasts until the table changes" — he may not throw in either.
                raise IllegalAction(
                    "R-B9", f"seat {seat} has passed; the pass lasts until the table changes"
                )
            if not self._may_throw_in(seat):
                raise IllegalAction(
                    "R-B3",
                    f"the others throw in only after the main attacker (seat {self.attacker}) "
                    "has said Done",
                )
            # reading: a throw-in of several cards is honest when each card's rank is on the
            # table (R-B3 "one or more cards whose rank is already on the table").
            if m & ~self._rank_cards:
                cheat = self._cheat(
                    seat,
                    "R-B3",
                    f"{_cards(m & ~self._rank_cards)}: only a rank already on the table "
                    "may be thrown in",
                )
        why = self._room(k)
        if why is not None:
            raise why
        return cheat

    def _check_cover(self, a: Action) -> bool:
        seat = a.seat
        if seat != self.defender:
            raise IllegalAction("R-B5", f"only the defender (seat {self.defender}) covers")
        if self._taking:
            raise IllegalAction("R-B8", "the defender has declared take and covers nothing more")
        on, card = a.on, a.card
        if on is None or card is None:
            raise IllegalAction("R-B5", "a cover names its card and the attack card it covers")
        try:
            i = self._att.index(on)
        except ValueError:
            raise IllegalAction("R-B5", f"{Card(on).pretty()} is not an attack card") from None
        if self._table[i][1] is not None:
            raise IllegalAction("R-B5", f"{Card(on).pretty()} is already covered")
        if not self._holds(seat, card):
            raise IllegalAction("R-S1", f"seat {seat} does not hold {Card(card).pretty()}")
        if not self._beats[on] >> card & 1:
            return self._cheat(
                seat,
                "R-B5",
                f"{Card(card).pretty()} does not beat {Card(on).pretty()}: " + self._beat_hint(on),
            )
        return False

    def _beat_hint(self, on: int) -> str:
        suit = Suit(on // 13)
        if suit == self.trump:
            return "a trump is covered only by a higher trump"
        if self.rules.japanese and suit == Suit.SPADES:
            return "a spade is covered only by a higher spade (Japanese)"
        return "cover with a higher card of its suit or with a trump"

    def _check_transfer(self, a: Action) -> bool:
        seat = a.seat
        show = a.do is _SHOW
        rule = "R-B7" if show else "R-B6"
        if not self._transfers:
            raise IllegalAction("R-B6", "transfers are played in perevodnoy only")
        if show and not self.rules.trump_show:
            raise IllegalAction("R-B7", "this table does not transfer by showing a trump")
        if seat != self.defender:
            raise IllegalAction(rule, f"only the defender (seat {self.defender}) transfers")
        if not self._att:
            raise IllegalAction(rule, "there is no attack to transfer")
        if self._taking:
            raise IllegalAction("R-B8", "the defender has declared take and transfers nothing")
        if self._uncovered != len(self._att):
            raise IllegalAction(rule, "a transfer is allowed only while no attack card is covered")
        if not self._transfer_bout():
            raise IllegalAction("R-B6", "no transfer in the game's first bout at this table")
        card = a.card
        if card is None:
            raise IllegalAction(rule, "a transfer names its card")
        if not self._holds(seat, card):
            raise IllegalAction("R-S1", f"seat {seat} does not hold {Card(card).pretty()}")
        cheat = False
        ranks = {c % 13 for c in self._att}
        same = len(ranks) == 1 and card % 13 in ranks
        if show:
            if not same or card // 13 != self.trump:
                raise IllegalAction("R-B7", "show a trump of the attack cards' rank")
            # reading: the once-per-bout limit is on showing; the same trump may still be
            # laid down as a real transfer later in the bout.
            if self._shown[seat] >> card & 1:
                raise IllegalAction("R-B7", f"{Card(card).pretty()} was already shown this bout")
        elif not same:
            # reading: a cheating transfer still happens only while nothing is covered and
            # passes R-B6's count check (R-S1: counts are enforced); a show cannot cheat, as
            # the shown card stays in the hand and nothing lies on the table to challenge.
            # With cheats of several ranks on the table, no transfer is honest.
            cheat = self._cheat(seat, "R-B6", "a transfer adds a card of the attack cards' rank")
        new = self._next_opponent(seat)
        assert new is not None
        n_att = len(self._att) + (0 if show else 1)
        if not show and n_att > self._limit:
            why = self._room(1)
            assert why is not None
            raise why
        if self.count(new) < n_att:
            raise IllegalAction(
                rule,
                f"seat {new} holds {_n_cards(self.count(new))}, fewer than the {n_att} "
                "attack cards a transfer would give him",
            )
        return cheat

    def _check_take(self, seat: int) -> None:
        if seat != self.defender:
            raise IllegalAction("R-B8", f"only the defender (seat {self.defender}) takes")
        if not self._att:
            raise IllegalAction("R-B8", "there is nothing on the table to take")
        if self._taking:
            raise IllegalAction("R-B8", "the defender has already declared take")

    def _check_pass(self, seat: int) -> None:
        if seat == self.defender:
            raise IllegalAction("R-B9", "the defender does not pass: he covers or takes")
        if not self._attackers >> seat & 1:
            raise IllegalAction("R-B9", f"seat {seat} is not an attacker in this bout")
        if not self._att:
            raise IllegalAction("R-B1", "the main attacker must open the bout with a card")
        if self._passed >> seat & 1 or not self.count(seat):
            raise IllegalAction(
                "R-B9", f"seat {seat} has already passed since the table last changed"
            )

    def _check_challenge(self, a: Action) -> None:
        if not self._cheating:
            raise IllegalAction("R-S2", "challenges are played in the cheating mode only")
        card = a.card
        if card is None or card not in self._info:
            shown = "that card" if card is None else Card(card).pretty()
            raise IllegalAction("R-S2", f"{shown} is not on the table")
        if self._info[card][0] == a.seat:
            raise IllegalAction("R-S2", "a player does not challenge his own card")
        if self._challenged[a.seat] >> card & 1:
            # R-S2: any other player may challenge a card, also one found honest (R-S4 marks
            # him); reading: the same player challenging the same card again would change
            # nothing (he is marked at most once) and could loop, so it is refused.
            raise IllegalAction(
                "R-S4", f"seat {a.seat} challenged {Card(card).pretty()} already: it is honest"
            )

    def _check_duren(self, a: Action) -> bool:
        seat, do = a.seat, a.do
        if do is _ATTACK:
            if self._att:
                raise IllegalAction("R-P3", "nobody throws in in Dureń: the lead is made")
            if seat != self.attacker:
                raise IllegalAction("R-P1", f"seat {self.attacker} leads this bout")
            m = self._check_cards(seat, a.cards)
            if not duren.is_lead(m, self.rules.duren_leads):
                if self.rules.duren_leads.value == "pairs":
                    why = (
                        "lead one card, or a pair (one rank, one colour) with at most one more "
                        "card or pair and then one more card"
                    )
                else:
                    why = "lead one card, a pair and any third card, or two pairs and a fifth"
                raise IllegalAction("R-P2", why)
            assert self.defender is not None
            held = self.count(self.defender)
            if len(a.cards) > held:
                raise IllegalAction(
                    "R-P3",
                    f"the defender holds {_n_cards(held)}, so the lead may not be longer",
                )
            return False
        if do is _COVER:
            return self._check_cover(a)
        if do is _TAKE:
            # reading: the Dureń defender may give up and take at any time before the last
            # card is covered, even when he could still cover (R-P4 "Otherwise he takes").
            self._check_take(seat)
            return False
        if do is _PASS:
            raise IllegalAction("R-P4", "nobody passes in Dureń")
        raise IllegalAction("R-B6", "transfers are played in perevodnoy only")

    # --- applying ---------------------------------------------------------------------

    def apply(self, action: Action) -> Outcome:
        """Check ``action``, then play it; a refused action raises and changes nothing.

        Returns what the action caused, in the order it happened (outcome.py): the empty
        tuple when it only put its cards on the table, passed or declared take."""
        seat = action.seat
        for listed in self._listed.get(seat, ()) if type(seat) is int else ():
            if listed is action:
                cheat = False  # listed as legal since the last change: honest, allowed
                break
        else:
            cheat = self._check(action)
        self._listed.clear()  # the state changes: every legal list is stale
        do = action.do
        if self._cheating:  # R-S2, R-S3
            if do is _CHALLENGE:
                self.log.append(action)
                return self._do_challenge(action)
            if do in (_ATTACK, _COVER, _TRANSFER):
                self._snaps.append(self._snapshot())
        self.log.append(action)
        if do is _ATTACK:
            hands, att, table = self._hands, self._att, self._table
            # R-S1/R-S4: in a throw-in each card is judged on its own (a card of a rank on
            # the table is a legal card, even beside a cheat); an opening (no rank on the
            # table yet) as a whole.
            ranks = self._rank_cards
            opened = NOTHING
            if not att:
                opened = _OPENED[seat][self.defender]  # type: ignore[index]
            for c in action.cards:
                c = CARDS[c]  # a plain int index becomes the Card
                b = 1 << c
                if hands[seat] & b:
                    hands[seat] ^= b
                    self._pub[seat] &= ~b
                else:
                    self._unknown[seat] -= 1
                self._table_mask |= b
                self._rank_cards |= RANK_MASK[c % 13]
                if self._cheating:
                    self._info[c] = (seat, len(self._snaps) - 1, cheat and not ranks >> c & 1)
                att.append(c)
                table.append((c, None))
            self._uncovered += len(action.cards)
            if self._duren:
                return opened
            self._passed = 0  # R-B9: the table changed
            if self._taking:
                return self._maybe_end()  # R-B10b: the limits may allow nothing more now
            return opened
        if do is _COVER:
            assert action.card is not None and action.on is not None
            card = CARDS[action.card]
            self._play(seat, card, cheat)
            i = self._att.index(action.on)
            self._table[i] = (self._att[i], card)
            self._uncovered -= 1
            if self._duren:
                if not self._uncovered:
                    return self._end_bout(True)  # R-P4: all covered
                return NOTHING
            self._passed = 0
            if not self._uncovered:
                return self._maybe_end()
            return NOTHING
        if do is _PASS:
            self._passed |= 1 << seat
            return self._maybe_end()
        if do is _TAKE:
            self._taking = True
            self.phase = _TAKING
            if self._duren:
                return self._end_bout(False)  # R-P4: nobody throws in, the bout ends at once
        else:
            assert action.card is not None
            card = CARDS[action.card]
            if do is _TRANSFER:
                self._play(seat, card, cheat)
                self._att.append(card)
                self._table.append((card, None))
                self._uncovered += 1
            else:
                # R-B7: the shown trump stays in the hand, now seen by everyone.
                b = 1 << card
                if not self._hands[seat] & b:
                    self._hands[seat] |= b
                    self._unknown[seat] -= 1
                self._pub[seat] |= b
                self._shown[seat] |= b
            # R-B6: the transferring defender becomes the main attacker.
            self.attacker = seat
            self.defender = self._next_opponent(seat)
            self._attackers = self._compute_attackers()
        self._passed = 0  # R-B9: the table changed
        return self._maybe_end()

    def _play(self, seat: int, card: Card, cheat: bool) -> None:
        """A card leaves ``seat``'s hand for the table."""
        b = 1 << card
        if self._hands[seat] & b:
            self._hands[seat] ^= b
            self._pub[seat] &= ~b
        else:
            self._unknown[seat] -= 1
        self._table_mask |= b
        self._rank_cards |= RANK_MASK[card % 13]
        if self._cheating:
            self._info[card] = (seat, len(self._snaps) - 1, cheat)

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

    def _maybe_end(self) -> Outcome:
        """R-B10: end the bout when its conditions hold."""
        att = self._att
        if not att:
            return NOTHING
        d = self.defender
        assert d is not None
        if not self._taking:
            # (a) all covered: every attacker passed, or R-B4 allows no further card
            # (the limit, or (c) a defender without cards, R-B13).
            if not self._uncovered and (
                len(att) >= self._limit
                or not (self._hands[d] or self._unknown[d])
                or self._all_passed()
            ):
                return self._end_bout(True)
        elif (
            len(att) >= self._limit
            or self._uncovered >= self._hands[d].bit_count() + self._unknown[d]
            or self._all_passed()
        ):
            return self._end_bout(False)  # (b)
        return NOTHING

    def _snapshot(self) -> BoutState:
        """The bout's state before a card-playing action, for the rollback of R-S3."""
        return BoutState(
            hands=tuple(self._hands),
            unknown=tuple(self._unknown),
            public=tuple(self._pub),
            table=tuple(self._table),
            uncovered=self._uncovered,
            table_mask=self._table_mask,
            rank_cards=self._rank_cards,
            passed=self._passed,
            taking=self._taking,
            attacker=self.attacker,
            defender=self.defender,
            attackers=self._attackers,
            shown=tuple(self._shown),
        )

    def _do_challenge(self, a: Action) -> Outcome:
        card = a.card
        assert card is not None
        by, k, cheat = self._info[card]
        if not cheat:
            # R-S4: nothing moves; the challenger is marked (at most once).
            self._challenged[a.seat] |= 1 << card
            return (_MARKED[a.seat],) if self._mark(a.seat) else NOTHING
        # R-S3: back to just before the action that played the cheat.
        undone = [(c, s) for c, (s, kk, _) in self._info.items() if kk >= k]
        seen = self._pub  # still in those hands after the rollback (hands only lost cards)
        b = self._snaps[k]
        self._hands = list(b.hands)
        self._unknown = list(b.unknown)
        self._pub = list(b.public)
        self._att = b.attack_cards
        self._table = list(b.table)
        self._uncovered = b.uncovered
        self._table_mask = b.table_mask
        self._rank_cards = b.rank_cards
        self._taking = b.taking
        self.attacker = b.attacker
        self.defender = b.defender
        self._attackers = b.attackers
        self._shown = list(b.shown)
        self.phase = _TAKING if self._taking else _BOUT
        del self._snaps[k:]
        self._info = {c: i for c, i in self._info.items() if i[1] < k}
        self._challenged = [m & self._table_mask for m in self._challenged]
        for c, s in undone:
            # reading: every player saw these cards go back, so they are public in their hands.
            self._pub[s] |= 1 << c
        for s in range(self.seats):
            # ... and whatever was public in a hand stays so.
            self._pub[s] |= seen[s]
            extra = self._pub[s] & ~self._hands[s]
            self._hands[s] |= extra
            self._unknown[s] -= extra.bit_count()
        self._passed = 0  # R-B9: a challenge that takes cards back changes the table
        undone.sort()
        back = _new(Returned, (tuple(CARDS[c] for c, _ in undone), tuple(s for _, s in undone)))
        return (back, _MARKED[by]) if self._mark(by) else (back,)

    def _mark(self, seat: int) -> bool:
        """Mark ``seat``; whether it was not marked before."""
        if self._marked_mask >> seat & 1:
            return False
        self._marked_mask |= 1 << seat
        self._marked.append(seat)
        return True

    # --- the end of a bout ------------------------------------------------------------

    def _end_bout(self, defended: bool) -> Outcome:
        d = self.defender
        assert d is not None
        att = self._att
        taken = 0
        if defended:
            if not self._defended:
                self._defended = True
                self._limit = self._compute_limit()  # R-B4b: the first defence lifts it to 6
        elif self._duren and self.rules.partial_defence:
            # R-P5: the covered pairs are discarded, the uncovered cards taken.
            for x, c in self._table:
                if c is None:
                    taken |= 1 << x
        else:
            taken = self._table_mask  # R-B8: attack and cover cards alike
        gone = self._table_mask & ~taken
        self._last_bout = tuple(self._table)
        self._last_bout_taken = bool(taken)
        self.discard_count += gone.bit_count()
        self._discard_mask |= gone
        self._hands[d] |= taken
        self._pub[d] |= taken  # everyone saw the cards he picked up
        events: list[Event] = [_ENDED[d][bool(taken)][gone.bit_count()]]
        if taken:
            # Table order, each attack card before its cover.
            cards: list[Card | None] = [*_flat(self._table)]
            whole = taken == self._table_mask
            if whole:
                for _ in range(cards.count(None)):
                    cards.remove(None)
            else:
                cards = [x for x in cards if x is not None and taken >> x & 1]
            events.append(_new(Taken, (d, tuple(cards), whole)))
        last_attack = att  # _start_bout makes a new list
        if self.stock_count:
            refilled = self._refill(d)
            if refilled is not None:
                events.append(refilled)
        else:
            self._last_refill = []
        if not self.stock_count:
            # R-B13: with the stock empty, a player without cards is out (seat order).
            # reading: judged after the refill, so whoever drew the last cards stays in.
            hands, unknown = self._hands, self._unknown
            for s in range(self.seats):
                if not self._out_mask >> s & 1 and not hands[s] and not unknown[s]:
                    self._out.append(s)
                    self._out_mask |= 1 << s
                    events.append(_OUT[s])
            if self._game_over(d, last_attack):
                assert self.result is not None
                events.append(_new(Over, (self.result,)))
                return tuple(events)
        # R-B11 / R-P4: who attacks next.
        nxt = d if defended and not self._out_mask >> d & 1 else self._next_active(d)
        assert nxt is not None
        self._bout_no += 1
        self._start_bout(nxt)
        return tuple(events)

    def _refill(self, d: int) -> Refilled | None:
        """R-B12 (R-P6): draw up to the hand size; the trump card is drawn last.  Returns
        the refill's event (None: nobody drew)."""
        opener, out = self._opener, self._out_mask
        if self._duren:
            order = [opener, d]
        else:
            # The attackers from the main attacker clockwise, the defender last.
            order = [s for s in self._clockwise[opener] if s != d and not out >> s & 1]
            order.append(d)
        hands, unknown, hs, stock = self._hands, self._unknown, self._hs, self._stock
        pos = self._refill_from = self._stock_pos
        sched: list[int] = []
        for s in order:
            k = min(hs - hands[s].bit_count() - unknown[s], self.stock_count)
            if k <= 0:
                continue
            self.stock_count -= k
            sched += [s] * k
            if self._full:
                for c in stock[pos : pos + k]:
                    hands[s] |= 1 << c
                pos += k
            else:
                unknown[s] += k  # hidden: the card-privacy protocol tells the drawer alone
        self._stock_pos = pos
        self._last_refill = sched
        if not sched:
            return None
        if not self.stock_count and self._turned is not None:
            # R-D2: the turned trump card, the stock's last, was drawn in everyone's sight.
            s, b = sched[-1], 1 << self._turned
            if not self._full:
                unknown[s] -= 1
                hands[s] |= b
            self._pub[s] |= b
        return _new(Refilled, (tuple(sched), self._drawn_cards()))

    def _drawn_cards(self) -> tuple[Card | None, ...]:
        """The cards of the last refill, one per step, as this game knows them."""
        n = len(self._last_refill)
        if self._full:
            return tuple(self._stock[self._refill_from : self._refill_from + n])
        if not self.stock_count and self._turned is not None:
            return (*(None,) * (n - 1), self._turned)  # only the turned card is seen
        return (None,) * n

    def _game_over(self, d: int, last_attack: list[Card]) -> bool:
        """R-B14, R-T3, R-B15: end the game when at most one player (team) holds cards
        (asked once the stock is empty: nobody is out before, R-B13)."""
        out = self._out_mask
        live = [t for t in self._team_masks if t & ~out]  # the teams still holding cards
        if len(live) > 1:
            return False
        if live:
            durak = _seats_of(live[0])
        elif self.rules.tie is Tie.LAST_DEFENDER_LOSES:
            durak = tuple(s for s in range(self.seats) if self._team[s] == self._team[d])
        else:
            durak = ()
        pogony = 0
        # reading: with tie = last_defender_loses the durak did defend the last bout, so his
        # epaulettes count too; a draw has none.
        if d in durak:
            # R-B15: the non-trump attack cards of the deck's lowest rank.
            low = lowest_rank(self.rules.deck)
            pogony = sum(1 for c in last_attack if c.rank == low and c.suit != self.trump)
        self.result = GameResult(durak, not durak, pogony)
        self.phase = _OVER
        self.attacker = self.defender = None
        self._attackers = 0
        self._passed = 0
        self._att, self._table = [], []
        self._uncovered = 0
        self._table_mask = self._rank_cards = 0
        self._info = {}
        self._snaps = []
        return True

    # --- views ------------------------------------------------------------------------

    def view(self, seat: int | None) -> PlayerView:
        """What ``seat`` may know (None: a spectator): its hand, public cards, counts."""
        if seat is not None and not 0 <= seat < self.seats:
            raise ValueError(f"there is no seat {seat} at this table (R-C3)")
        trump = self.trump
        others = tuple(
            SeatView(
                known=sort_mask(self._hands[s] if s == seat else self._pub[s], trump),
                count=self.count(s),
                team=self._team[s],
                out=bool(self._out_mask >> s & 1),
                marked=bool(self._marked_mask >> s & 1),
                passed=bool(self._passed >> s & 1),
            )
            for s in range(self.seats)
        )
        hand = () if seat is None else sort_mask(self._hands[seat], trump)
        return PlayerView(
            seat=seat,
            rules=self.rules,
            seats=self.seats,
            dealer=self.dealer,
            hand=hand,
            others=others,
            trump=trump,
            trump_card=self.trump_card,
            stock_count=self.stock_count,
            discard_count=self.discard_count,
            table=tuple(self._table),
            attacker=self.attacker,
            defender=self.defender,
            attackers=tuple(self.attackers),
            passed=tuple(self.passed),
            phase=self.phase,
            out=tuple(self._out),
            marked=tuple(self._marked),
            teams=self._team,
            bout=self._bout_no,
            defended=self._defended,
            limit=self._limit,
            result=self.result,
            legal=() if seat is None else tuple(self.legal_actions(seat)),
            last_bout=self._last_bout,
            last_bout_taken=self._last_bout_taken,
        )
