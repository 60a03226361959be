"""Checking an action (each refusal names its rule) and the cheating mode's challenge.

`Game.check` / `Game.apply` judge an action nobody listed (a network message, a hand-typed
move, a cheat): `IllegalAction` names the rule it breaks; in the cheating mode (R-S1..R-S5) an
illegal card play is a cheat the table may challenge, and a challenge rolls the bout back
(R-S3, `BoutState`) or marks the challenger (R-S4).

One layer of `engine.Game` (state.py says how the layers stack).
"""

from __future__ import annotations

from collections.abc import Sequence

from localdurak.game import duren
from localdurak.game.actions import Action, IllegalAction
from localdurak.game.bout import BoutState
from localdurak.game.cards import (
    CARDS,
    Card,
    Suit,
)
from localdurak.game.ending import BoutEnding
from localdurak.game.outcome import (
    NOTHING,
    Outcome,
    Returned,
)
from localdurak.game.state import (
    _ATTACK,
    _BOUT,
    _CHALLENGE,
    _COVER,
    _MARKED,
    _PASS,
    _SHOW,
    _TAKE,
    _TAKING,
    _TRANSFER,
    _cards,
    _n_cards,
    _new,
    _seats_of,
)


class Checking(BoutEnding):
    """The rules' judgement of one action, and R-S3 / R-S4."""

    __slots__ = ()

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
                    f"{', '.join(map(str, _seats_of(self._attackers)))})",
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

    def _snapshot(self) -> BoutState:
        """The bout's state before a card-playing action, for the rollback of R-S3."""
        # Positional, in BoutState's field order (one C call, not the generated __new__).
        return tuple.__new__(
            BoutState,
            (
                tuple(self._hands),
                tuple(self._unknown),
                tuple(self._pub),
                tuple(self._table),
                self._uncovered,
                self._table_mask,
                self._rank_cards,
                self._passed,
                self._taking,
                self.attacker,
                self.defender,
                self._attackers,
                tuple(self._shown),
            ),
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
