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

The class is cut into layers, one module each (state.py says how they stack): the state and
its seat arithmetic (state.py), the end of a bout (ending.py), checking and the cheating
challenge (checks.py), listing (legal.py); this module deals, shows the public state and
hidden information, applies an action and gives the views.  What has a boundary of its own
lives apart: what an action caused (outcome.py), the bout's state R-S3 rolls back (bout.py),
the position notation (position.py), R-B5 (cards.beats), Dureń's leads (duren.py), the views
(view.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from localdurak.game.actions import Action, GameResult
from localdurak.game.cards import (
    CARDS,
    RANK_MASK,
    SUIT_MASK,
    Card,
    Suit,
    mask_of,
)
from localdurak.game.legal import Listing
from localdurak.game.outcome import (
    NOTHING,
    Outcome,
)
from localdurak.game.rules import (
    NextFirstAttack,
    Rules,
    RulesError,
)
from localdurak.game.state import (
    _ATTACK,
    _CHALLENGE,
    _COVER,
    _OPENED,
    _PASS,
    _TAKE,
    _TAKING,
    _TRANSFER,
    _deck_set,
)
from localdurak.game.view import PlayerView, SeatView, sort_mask


class Game(Listing):
    """One game at a table: deal it with `Game.deal` (or `Game.hidden`), then `apply` actions."""

    __slots__ = ()

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
