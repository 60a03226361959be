"""The `normal` level: a greedy heuristic with card counting and an exact endgame."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from localdurak.game.actions import Action, Do
from localdurak.game.bots.base import NOTICE_RATES, WAIT, Rng, hand_mask, table_mask
from localdurak.game.cards import CARDS, Card, beats, cards_of, deck_mask, lowest_rank
from localdurak.game.endgame import LOSS, WIN, Solver
from localdurak.game.rules import ThrowInOrder, Tie, Variant
from localdurak.game.view import PlayerView

# --- normal ---------------------------------------------------------------------------


@dataclass
class _Memory:
    """What the bot remembers of the game so far (all of it public or its own)."""

    discarded: int = 0
    """Cards seen going to the discard pile."""
    unseen_discards: int = 0
    """Discarded cards the bot did not see (it was not asked in between)."""
    table: int = 0
    hand: int = 0
    table_pairs: tuple[tuple[Card, Card | None], ...] = ()
    counts: tuple[int, ...] = ()
    known: tuple[int, ...] = ()
    defender: int | None = None
    bout: int = -1
    stock: int = 1 << 30
    discard_count: int = 0
    owner: dict[int, int] = field(default_factory=dict)
    """Who played each card on the table (when the bot could tell)."""
    illegal: set[int] = field(default_factory=set)
    """Cards on the table this bot saw played against the rules (R-S1)."""
    challenged_by: set[int] = field(default_factory=set)
    """Seats seen challenging (they are watching: do not cheat against them)."""
    marked: tuple[int, ...] = ()
    solver: Solver | None = None
    """The endgame solver of this game (its memo carries over between calls)."""
    solved: int | None = None
    """The value the last search found (WIN, DRAW, LOSS), None if it ran out of budget."""
    idle_bouts: int = 0
    """Bouts in a row that sent nothing to the discard pile and drew nothing (a cycle?)."""


class NormalBot:
    """A sensible player: cheapest cover, keeps trumps, throws in cheap cards, takes when
    covering costs too much, counts cards in the endgame, transfers, plays Dureń pairs,
    never hurts a partner, and in the cheating mode sometimes cheats and challenges."""

    name = "normal"

    # How often the bot tries a cheat when one would help (cheating mode, R-S1).
    CHEAT_RATE: Final = 0.15
    # How often it notices a card played against the rules (R-S5: noticing is the game; a
    # bot that caught every cheat would leave people no chance).
    NOTICE_RATE = NOTICE_RATES["normal"]
    # The price of covering against the price of taking (tuned on benchmarks/bots.py).
    EARLY_DIV = 12.0
    T_BASE = 3.0
    T_EARLY = 4.0
    T_RANK = 1.0
    T_SCARCE = 0.0
    P_FREE = 5
    P_RANK = 0.5
    TK_BASE = 3.0
    TK_LOW = 1.6
    TK_RANK = 0.25
    TK_TABLE = 0.8
    TK_LATE = 4.0
    LATE = 6
    SEARCH_NODES = 600
    # The dearest plain card (its rank in the deck, 0 the lowest) thrown in, by stage.
    TH_EARLY = 4
    TH_MID = 6
    TH_LATE = 8
    TH_TAKE = 6
    TH_TAKE_LATE = 9
    TH_MULTI = 3
    # Dureń: a lead scores, per card, (pivot share of the ranks - the card's strength) plus
    # a bonus per card: long leads of cheap cards (against greedy, 1,500 games: durak 39%
    # -> 35%); the price of covering it accepts before it takes.
    DU_PIVOT = 0.0
    DU_LEN = 10.0
    DU_COVER = 4.0
    DU_COVER_PER = 2.0
    STUCK = 12

    def __init__(self, rng: Rng) -> None:
        self.rng = rng
        self.mem = _Memory()

    # --- memory ---------------------------------------------------------------------

    def _observe(self, v: PlayerView) -> None:
        m = self.mem
        if v.stock_count > m.stock or v.discard_count < m.discard_count or v.bout < m.bout:
            m = self.mem = _Memory()  # a new game
        table = table_mask(v)
        counts = tuple(s.count for s in v.others)
        known = tuple(hand_mask(s.known) for s in v.others)
        hand = hand_mask(v.hand)
        if v.discard_count > m.discard_count:
            # A bout ended in a defence: the cards the bot saw (on the table, in its hand, known
            # in a hand) that are nowhere now went to the discard pile — its own last cover
            # too, which ends a bout at once (R-B10) and is never seen on the table; the rest
            # of the increase it did not see.
            visible = table | hand
            before = m.table | m.hand
            for k in known:
                visible |= k
            for k in m.known:
                before |= k
            gone = before & ~visible & ~m.discarded
            m.discarded |= gone
            m.unseen_discards += v.discard_count - m.discard_count - gone.bit_count()
        if v.bout != m.bout:
            m.owner = {}
            m.illegal = set()
            if v.stock_count == m.stock and v.discard_count == m.discard_count:
                m.idle_bouts += 1
            else:
                m.idle_bouts = 0
        elif v.rules.cheating and m.counts:
            self._watch(v, table, counts)
        m.table = table
        m.table_pairs = v.table
        m.counts = counts
        m.known = known
        m.hand = hand
        m.defender = v.defender
        m.bout = v.bout
        m.stock = v.stock_count
        m.discard_count = v.discard_count
        m.marked = v.marked

    def _watch(self, v: PlayerView, table: int, counts: tuple[int, ...]) -> None:
        """Cheating mode: who played the new cards on the table, and were they legal?"""
        m = self.mem
        new = table & ~m.table
        if table & m.table != m.table:
            # Cards went back to the hands: a challenge caught a cheat (R-S3).  Whoever
            # has more cards than before challenged... we only note that someone watches.
            for s in range(v.seats):
                if s != v.seat:
                    m.challenged_by.add(s)  # reading: be careful from now on
            for c in list(m.owner):
                if not table >> c & 1:
                    del m.owner[c]
                    m.illegal.discard(c)
            return
        if not new:
            newly_marked = set(v.marked) - set(m.marked)
            # A legal card was challenged: its challenger got marked (R-S4); he watches.
            m.challenged_by |= newly_marked
            return
        drop = [s for s in range(v.seats) if counts[s] < m.counts[s]]
        n_new = new.bit_count()
        player = None
        if len(drop) == 1 and m.counts[drop[0]] - counts[drop[0]] == n_new:
            player = drop[0]
        prev_ranks = {c % 13 for c in cards_of(m.table)}
        attack_cards = [a for a, _ in v.table]
        transfer = v.defender != m.defender and bool(m.table_pairs)
        for a, cov in v.table:
            if new >> a & 1:
                if player is not None:
                    m.owner[a] = player
                if not m.table_pairs:
                    ok = all(x % 13 == a % 13 for x in attack_cards if new >> x & 1)
                elif transfer:
                    ok = all(x % 13 == a % 13 for x in attack_cards)
                else:
                    ok = a % 13 in prev_ranks
                if not ok and self.rng.random() < self.NOTICE_RATE:
                    m.illegal.add(a)
            if cov is not None and new >> cov & 1:
                if player is not None:
                    m.owner[cov] = player
                if not beats(cov, a, v.trump, v.rules.japanese) and (
                    self.rng.random() < self.NOTICE_RATE
                ):
                    m.illegal.add(cov)

    # --- card values ----------------------------------------------------------------

    def _val(self, v: PlayerView, c: int) -> int:
        """A card's strength: its rank in the deck, trumps above every plain card."""
        r = c % 13 + 2 - self._low
        if c // 13 == v.trump:
            return r + self._nranks
        return r

    def _unknown_pool(self, v: PlayerView) -> int:
        """Cards the bot cannot place: in the other hands' unknown parts or the stock."""
        pool = self._deck & ~hand_mask(v.hand) & ~table_mask(v) & ~self.mem.discarded
        for s, sv in enumerate(v.others):
            if s != v.seat:
                pool &= ~hand_mask(sv.known)
        if v.trump_card is not None and v.stock_count:
            pool &= ~(1 << v.trump_card)
        return pool

    # --- choosing -------------------------------------------------------------------

    def choose(self, view: PlayerView) -> Action | None:
        v = view
        self._low = lowest_rank(v.rules.deck)
        self._nranks = 15 - self._low
        self._deck = deck_mask(v.rules.deck)
        self._observe(v)
        seat = v.seat
        if seat is None or v.result is not None or seat in v.out:
            return None
        challenge = self._challenge(v)
        if challenge is not None:
            return challenge
        if not v.legal:
            return None
        if v.rules.variant is Variant.DUREN:
            return self._pick(v, self._duren(v))
        solved = self._solve(v)
        if solved is not None and self.mem.solved == WIN:
            return None if solved is WAIT else solved  # a forced win ends the game
        stuck = self._unstick(v)
        if stuck is not None:
            return stuck
        if solved is not None:
            return None if solved is WAIT else solved
        if seat == v.defender:
            return self._defend(v)
        if not v.table:
            return self._lead(v) if seat == v.attacker else None
        return self._throw_in(v)

    def _pick(self, v: PlayerView, act: Action | None) -> Action | None:
        stuck = self._unstick(v)
        return act if stuck is None else stuck

    def _unstick(self, v: PlayerView) -> Action | None:
        """Fixed choices can pass the same cards round the table for ever (every defender
        takes, nothing is discarded or drawn); after a while a growing share of random moves
        breaks the cycle."""
        stuck = self.mem.idle_bouts - self.STUCK
        if stuck > 0 and self.rng.random() < min(0.6, stuck / 40):
            acts = [a for a in v.legal if a.do is not Do.CHALLENGE]
            if acts:
                return self.rng.choice(acts)
        return None

    # --- cheating mode: challenges ----------------------------------------------------

    def _challenge(self, v: PlayerView) -> Action | None:
        """R-S2: challenge a card this bot saw played against the rules by an opponent."""
        if not v.rules.cheating or not self.mem.illegal:
            return None
        assert v.seat is not None
        my_team = v.teams[v.seat]
        for a in v.legal:
            if a.do is Do.CHALLENGE and a.card is not None and a.card in self.mem.illegal:
                by = self.mem.owner.get(a.card)
                if by is None or v.teams[by] == my_team:
                    continue  # never hurt a partner (R-T2); unsure who: leave it
                return a
        return None

    def _may_cheat(self, v: PlayerView) -> bool:
        if not v.rules.cheating or v.seat in v.marked:
            return False
        assert v.seat is not None
        watchers = {
            s for s in self.mem.challenged_by if v.teams[s] != v.teams[v.seat] and s not in v.out
        }
        return not watchers and self.rng.random() < self.CHEAT_RATE

    # --- attacking --------------------------------------------------------------------

    def _lead(self, v: PlayerView) -> Action:
        """Open a bout (R-B1): the cheapest plain card, a rank we hold several of first; in
        the endgame a card the defender cannot beat if there is one."""
        assert v.seat is not None
        cards = [a.cards[0] for a in v.legal if a.do is Do.ATTACK]
        hand = hand_mask(v.hand)
        endgame = v.stock_count == 0
        best: tuple[float, Card] | None = None
        d = v.defender
        dhand = 0
        if endgame and d is not None:
            dhand = self._known_or_possible(v, d)
        for c in cards:
            same = sum(1 for x in v.hand if x % 13 == c % 13 and x // 13 != v.trump)
            score = float(self._val(v, c)) - 1.5 * (same - 1)
            if endgame and d is not None:
                if not self._can_beat(v, dhand, c):
                    score -= 20 if v.seats - len(v.out) == 2 else 6  # he must take it
                # A little noise: among several players fixed choices can pass the same
                # cards round the table for ever.
                score += 3 * self.rng.random()
            best = (score, c) if best is None or score < best[0] else best
        assert best is not None
        c = best[1]
        # Lead every card of that rank in the endgame when he cannot beat them (R-B1).
        if endgame and d is not None:
            group = [x for x in v.hand if x % 13 == c % 13 and x // 13 != v.trump and x != c]
            lead = [c] + [x for x in group if not self._can_beat(v, dhand, x)]
            room = min(v.limit, v.count(d))
            lead = lead[:room]
            if len(lead) > 1:
                return Action.attack(v.seat, *lead)
        del hand
        return Action.attack(v.seat, c)

    def _throw_in(self, v: PlayerView) -> Action | None:
        """R-B3 / R-B8: throw in cheap cards of the table's ranks, else pass."""
        assert v.seat is not None
        d = v.defender
        legal = v.legal
        can_pass = any(a.do is Do.PASS for a in legal)
        throws = [a.cards[0] for a in legal if a.do is Do.ATTACK]
        taking = v.phase == "taking"
        if v.uncovered and not taking and v.seat != v.attacker:
            return None  # let the defender answer first; more ranks may appear
        if v.uncovered and not taking and v.seat == v.attacker and not throws:
            return None
        if not throws and not can_pass:
            return None
        if (
            not throws
            and v.rules.throw_in_order is ThrowInOrder.FIRST_WORD
            and v.seat != v.attacker
            and v.attacker not in v.passed
            and v.attacker is not None
            and v.count(v.attacker)
        ):
            # R-B3 first_word: throw-ins open once the main attacker has said Done; a pass
            # now would last past it, so wait if there is a card to add then.
            ranks = {a % 13 for a, _ in v.table} | {c % 13 for _, c in v.table if c is not None}
            if any(c % 13 in ranks for c in v.hand):
                return None
        endgame = v.stock_count == 0
        stage = v.stock_count
        best: Action | None = None
        best_val = 1 << 30
        for c in throws:
            val = self._val(v, c)
            trump = c // 13 == v.trump
            more = self.TH_MULTI if v.seats - len(v.out) > 2 else 0
            if endgame:
                ok = not trump or len(v.hand) <= 2
            elif taking:
                ok = not trump and val <= (self.TH_TAKE if stage > 6 else self.TH_TAKE_LATE) + more
            else:
                limit = self.TH_MID if stage > 4 else self.TH_LATE
                if stage > 12:
                    limit = self.TH_EARLY
                ok = not trump and val <= limit + more
            if ok and val < best_val:
                best, best_val = Action.attack(v.seat, c), val
        if best is None and v.rules.cheating and d is not None and self._may_cheat(v):
            best = self._cheat_throw(v)
        if best is not None:
            return best
        if v.uncovered and not taking:
            return None  # the main attacker waits for the defender too
        return Action.pass_(v.seat) if can_pass else None

    def _cheat_throw(self, v: PlayerView) -> Action | None:
        """R-S1: throw in a cheap card of a rank not on the table (a cheat)."""
        assert v.seat is not None and v.defender is not None
        room = min(v.limit - len(v.table), v.count(v.defender) - len(v.uncovered))
        if room <= 0:
            return None
        ranks = {a % 13 for a, _ in v.table} | {c % 13 for _, c in v.table if c is not None}
        cheap = [c for c in v.hand if c // 13 != v.trump and c % 13 not in ranks]
        if not cheap:
            return None
        c = min(cheap, key=lambda x: self._val(v, x))
        if self._val(v, c) > 4:
            return None
        return Action.attack(v.seat, c)

    # --- defending ----------------------------------------------------------------------

    def _cover_plan(
        self, v: PlayerView, hand: Sequence[Card], attacks: Sequence[Card] | None = None
    ) -> list[tuple[Card, Card]] | None:
        """The cheapest way to cover every uncovered attack card, or None if impossible.

        Attack cards in descending strength, each with the cheapest card of its own suit
        that beats it; what is left with the cheapest trump (R-B5)."""
        trump, jap = v.trump, v.rules.japanese
        free = sorted(hand, key=lambda c: self._val(v, c))
        plan: list[tuple[Card, Card]] = []
        todo = sorted(v.uncovered if attacks is None else attacks, key=lambda c: -self._val(v, c))
        later: list[Card] = []
        for a in todo:
            pick = next((c for c in free if c // 13 == a // 13 and beats(c, a, trump, jap)), None)
            if pick is None:
                later.append(a)
                continue
            free.remove(pick)
            plan.append((pick, a))
        for a in later:
            pick = next((c for c in free if beats(c, a, trump, jap)), None)
            if pick is None:
                return None
            free.remove(pick)
            plan.append((pick, a))
        return plan

    def _defend(self, v: PlayerView) -> Action | None:
        assert v.seat is not None
        legal = v.legal
        if v.phase == "taking" or not v.uncovered:
            return None  # nothing to answer: the attackers throw in or pass
        shows = [a for a in legal if a.do is Do.SHOW]
        if shows:
            return shows[0]  # R-B7: a free transfer; the trump stays in the hand
        plan = self._cover_plan(v, v.hand)
        cost = self._plan_cost(v, plan) if plan is not None else None
        transfers = [a for a in legal if a.do is Do.TRANSFER]
        if transfers:
            t = min(transfers, key=lambda a: self._val(v, a.card or 0))
            assert t.card is not None
            tval = self._val(v, t.card)
            trump = t.card // 13 == v.trump
            if not trump or cost is None or cost > tval + 6:
                return t
        if plan is not None and cost is not None and not self._should_take(v, plan, cost):
            cover, on = max(plan, key=lambda p: self._val(v, p[1]))
            return Action.cover(v.seat, cover, on)
        if self._may_cheat(v):
            cheat = self._cheat_cover(v)
            if cheat is not None:
                return cheat
        return Action.take(v.seat)

    def _cheat_cover(self, v: PlayerView) -> Action | None:
        """R-S1: "cover" an attack card with a cheap card that does not beat it."""
        assert v.seat is not None
        a = max(v.uncovered, key=lambda c: self._val(v, c))
        if a // 13 == v.trump:
            return None
        same = [c for c in v.hand if c // 13 == a // 13 and c < a]
        if not same:
            return None
        return Action.cover(v.seat, max(same), a)

    def _plan_cost(self, v: PlayerView, plan: list[tuple[Card, Card]]) -> float:
        """What covering costs: trumps and high cards spent, dearer while the stock is big."""
        early = min(1.0, v.stock_count / self.EARLY_DIV)
        trumps = sum(1 for c in v.hand if c // 13 == v.trump)
        cost = 0.0
        for c, _a in plan:
            val = self._val(v, c)
            if c // 13 == v.trump:
                scarce = 1 + self.T_SCARCE / trumps
                cost += scarce * (
                    self.T_BASE + early * (self.T_EARLY + self.T_RANK * (val - self._nranks))
                )
            else:
                cost += early * max(0, val - self.P_FREE) * self.P_RANK
        return cost

    def _should_take(self, v: PlayerView, plan: list[tuple[Card, Card]], cost: float) -> bool:
        if v.stock_count == 0:
            return False  # taking in the endgame loses the game: cover whatever it costs
        table = len(v.table) + sum(1 for _, c in v.table if c is not None)
        burden = 0.0
        for a, c in v.table:
            for x in (a, c):
                if x is None:
                    continue
                val = self._val(v, x)
                burden += self.TK_LOW - self.TK_RANK * val if x // 13 != v.trump else -1.0
        take_cost = self.TK_BASE + max(0.0, burden) + self.TK_TABLE * table
        if v.stock_count <= self.LATE:
            take_cost += self.TK_LATE
        return cost > take_cost

    # --- the endgame ------------------------------------------------------------------

    def _solve(self, v: PlayerView) -> Action | None:
        """Two players, the stock empty, every card placed: search the rest of the game
        (endgame.py).  None when the search does not apply, runs out of budget or finds
        only losses (the heuristics then make the win hardest for the opponent)."""
        seat = v.seat
        rules = v.rules
        if (
            seat is None
            or v.stock_count
            or rules.variant is Variant.DUREN
            or rules.cheating
            or v.seats - len(v.out) != 2
            or self.mem.unseen_discards
            or v.attacker is None
            or v.defender is None
        ):
            return None
        opp = v.defender if seat == v.attacker else v.attacker
        if seat not in (v.attacker, v.defender) or v.teams[opp] == v.teams[seat]:
            return None
        ov = v.others[opp]
        pool = self._unknown_pool(v)
        if pool.bit_count() != ov.count - len(ov.known):
            return None  # some card is not placed
        mine = hand_mask(v.hand)
        theirs = hand_mask(ov.known) | pool
        unc = hand_mask(v.uncovered)
        table = table_mask(v)
        taking = v.phase == "taking"
        attacker = seat == v.attacker
        if unc and not taking:
            if attacker:
                return WAIT  # the defender answers first
            mover_attacks = False
        elif attacker:
            mover_attacks = True
        else:
            return WAIT
        if self.mem.solver is None:
            self.mem.solver = Solver(
                trump=v.trump,
                japanese=rules.japanese,
                first_bout_five=rules.first_bout_five,
                last_defender_loses=rules.tie is Tie.LAST_DEFENDER_LOSES,
                transfers=rules.transfers,
                budget=self.SEARCH_NODES,
            )
        a, d = (mine, theirs) if attacker else (theirs, mine)
        found = self.mem.solver.best(
            a, d, unc, table, len(v.table), taking, v.defended, mover_attacks
        )
        self.mem.solved = None if found is None else found[0]
        if found is None or found[0] == LOSS:
            return None
        kind, card, on = found[1]
        if kind in ("open", "throw"):
            act = Action.attack(seat, CARDS[card])
        elif kind == "cover":
            act = Action.cover(seat, CARDS[card], CARDS[on])
        elif kind == "take":
            act = Action.take(seat)
        elif kind == "transfer":
            act = Action.transfer(seat, CARDS[card])
        else:
            act = Action.pass_(seat)
        return act if act in v.legal else None

    def _known_or_possible(self, v: PlayerView, seat: int) -> int:
        """The cards ``seat`` may hold: his known cards, plus the unknown pool if he holds
        more than those."""
        sv = v.others[seat]
        known = hand_mask(sv.known)
        if sv.count > len(sv.known):
            known |= self._unknown_pool(v)
        return known

    def _can_beat(self, v: PlayerView, hand: int, attack: int) -> bool:
        trump, jap = v.trump, v.rules.japanese
        return any(beats(c, attack, trump, jap) for c in cards_of(hand))

    # --- Dureń ----------------------------------------------------------------------

    def _duren(self, v: PlayerView) -> Action | None:
        assert v.seat is not None
        if v.seat == v.defender and v.table:
            return self._duren_defend(v)
        leads = [a for a in v.legal if a.do is Do.ATTACK]
        if not leads:
            return None
        pivot = self._nranks * self.DU_PIVOT

        def score(a: Action) -> float:
            # Shed as many low cards as possible; a trump or a high card in a lead is waste.
            s = 0.0
            for c in a.cards:
                val = self._val(v, c)
                s += (pivot - val) if c // 13 != v.trump else -(val - self._nranks + 6)
            return s + self.DU_LEN * len(a.cards)

        return max(leads, key=lambda a: (score(a), -len(a.cards)))

    def _duren_defend(self, v: PlayerView) -> Action | None:
        assert v.seat is not None
        if not v.uncovered:
            return None
        plan = self._cover_plan(v, v.hand)
        if plan is not None:
            cost = self._plan_cost(v, plan)
            if v.stock_count == 0 or cost <= self.DU_COVER + self.DU_COVER_PER * len(v.table):
                cover, on = max(plan, key=lambda p: self._val(v, p[1]))
                return Action.cover(v.seat, cover, on)
        if v.rules.partial_defence:
            # R-P5: the covered pairs are discarded anyway; cover what is cheap first.
            trump = v.trump
            for a in sorted(v.uncovered, key=lambda c: -self._val(v, c)):
                cheap = [c for c in v.hand if c // 13 == a // 13 and c // 13 != trump and c > a]
                if cheap:
                    return Action.cover(v.seat, min(cheap), a)
        return Action.take(v.seat)
