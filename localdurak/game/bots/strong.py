"""The `strong` level (docs/bots.md): determinized Monte Carlo search from the seat's view alone.

At a decision with more than one sensible answer the bot samples *worlds* — the cards it cannot
see dealt at random to the places it cannot see into (the other hands' unknown parts, the
stock under the trump card, the discards it missed) — builds a full-information `Game` of each
world with the real engine, plays every candidate action in it and then, with a cheap
heuristic policy for every seat, the rest of the bout; while more than a few cards are left in
the stock a logistic evaluation of the next bout's start scores the world (`evaluate`, fitted on
`normal`'s games by benchmarks/train_eval.py), else the playout goes on to the game's end (a
small heads-up ending solved exactly, game/endgame.py).  It
picks the action that scores best.  The same
world serves every candidate of a round (common random numbers: the candidates are compared
on the same cards), and candidates that fall clearly behind are dropped (successive halving).
This is information-set Monte Carlo with a one-level tree: with the hundreds of playouts a
100 ms budget allows in Python, a deeper tree has too few visits to learn from.  Whole-game
playouts were tried first: their noise drowned the differences between moves (durak 46% of
100 games against normal at 100 playouts a move, against 33% with the evaluation).

What a sample respects (R-T4: only the view and what the bot saw): its own hand, the table,
every card publicly known in a hand (taken from the table, a shown trump, the turned trump
card drawn, cards a challenge sent back), the turned trump card at the bottom of the stock,
the discards it saw go out (each bout's last table is public, ``PlayerView.last_bout``) and the
counts.  reading: no void is inferred from a take — taking is always legal (R-B8), so a seat
that took when it could have covered proves nothing about its hand; the sampler is uniform
over every deal consistent with the public record.

Heads-up with the stock empty and every card placed the game is one of perfect information:
normal's exact endgame search (game/endgame.py) then runs on this bot's budget (`_ClockSolver`,
a deadline), and a forced win or draw it finds is played.

No clock and no randomness of its own (game/ is pure): the caller passes an `Rng` and, for a
time budget, a ``clock`` (seconds, e.g. ``time.perf_counter``).  Without a clock the budget is
in playouts only and a game is deterministic for a given seed.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Final

from localdurak.game.actions import Action, Do
from localdurak.game.bots.base import NOTICE_RATES, Rng, hand_mask
from localdurak.game.bots.normal import NormalBot
from localdurak.game.cards import (
    CARDS,
    RANK_MASK,
    Card,
    beat_masks,
    beats,
    cards_of,
    deck_mask,
    lowest_rank,
)
from localdurak.game.endgame import LOSS, Budget, Solver
from localdurak.game.engine import Game
from localdurak.game.outcome import Phase
from localdurak.game.rules import Rules, Tie, Variant
from localdurak.game.view import PlayerView

Clock = Callable[[], float]
"""Seconds from any origin (``time.perf_counter`` at a people's table)."""

DEFAULT_BUDGET_MS: Final = 100
"""The time a move may take at people's tables (docs/bots.md "The strong level, measured")."""
MAX_SIMULATIONS: Final = 4000
"""The cap on playouts per move whatever the clock says."""


@dataclasses.dataclass
class _Seen:
    """What the strong bot adds to `normal`'s memory: the discards, the bout's opener."""

    bout: int = -1
    discarded: int = 0
    """Cards seen going to the discard pile (each bout's last table is public)."""
    complete: bool = True
    """Whether every bout's end was seen (else some discards are unknown cards)."""
    opener: int | None = None
    """The seat that opened this bout (R-B12: the refill starts with him, after transfers)."""


class StrongBot:
    """Determinized Monte Carlo search over the real engine, `normal` as its instinct.

    `normal` (asked every time, so its memory follows the game) proposes the moment to act and
    a default answer; the search chooses among the candidate answers when there are several.
    """

    name = "strong"

    # The share of the budget the search plans to use (the rest is slack for a loaded machine).
    BUDGET_SHARE: Final = 0.85
    # A playout stops after this many actions (a cycle of takes); it then counts as a draw.
    PLAYOUT_CAP: Final = 600
    # The heuristic's own answer is preferred unless another is this much better (in the
    # share of games won): the search's noise should not overrule a sound default.
    PRIOR: Final = 0.02
    # Successive halving: after this many rounds a candidate whose mean trails the best by
    # more than HALVE standard errors is dropped.
    HALVE_AFTER: Final = 3
    HALVE: Final = 2.0
    # The heuristic's answer is overruled when another is ahead by this many standard errors.
    OVERRULE: Final = 1.0
    # A playout stops at the start of the HORIZON-th bout after this one and evaluates the
    # position (while the stock lasts; with the stock empty it plays to the end).
    HORIZON: Final = 0
    # With at most this many cards left in the stock at that bout the playout goes on to the
    # game's end instead (the evaluation knows little of who draws the last cards).
    PLAY_ON: Final = 4
    # How often a playout seat plays a random legal action instead of the policy's.
    NOISE: Final = 0.0
    # The exact endgame search (two players, the stock empty, every card placed) may use this
    # share of the planned budget; budgeted in playouts, this many nodes a playout.
    SOLVER_SHARE: Final = 0.9
    SOLVER_NODES_PER_PLAYOUT: Final = 20
    # A playout that reaches a heads-up bout's start with the stock empty and at most this
    # many cards in the two hands solves the rest exactly (a few hundred nodes at most, the
    # memo kept for the whole game) instead of playing it out with the policy.
    PLAYOUT_SOLVE_CARDS: Final = 8
    PLAYOUT_SOLVE_NODES: Final = 400
    PLAYOUT_MEMO: Final = 60_000  # about 16 MB of keys at most

    def __init__(
        self,
        rng: Rng,
        *,
        budget_ms: float = DEFAULT_BUDGET_MS,
        clock: Clock | None = None,
        simulations: int | None = None,
    ) -> None:
        self.rng = rng
        self.budget_ms = budget_ms
        self.clock = clock
        # Budgeted in playouts (no clock): a fixed count, so that a seed decides the game.
        self.simulations = (
            simulations
            if simulations is not None
            else (MAX_SIMULATIONS if clock is not None else max(8, int(budget_ms * 2)))
        )
        self.normal = NormalBot(rng)
        # A sharper eye than the normal bot's, but a person's: not every cheat (R-S5,
        # a program could read every card, which leaves people no chance).
        self.normal.NOTICE_RATE = NOTICE_RATES["strong"]
        self.seen = _Seen()
        self._psolver: Solver | None = None
        """The playouts' endgame solver (its memo serves every world of a game)."""
        self._psolver_key: tuple[object, ...] = ()
        self._start = 0.0
        self.last_simulations = 0
        """Playouts the last decision ran (for tests and benchmarks)."""
        self.searches = 0
        """Decisions searched so far."""

    # --- memory -----------------------------------------------------------------------

    def _observe(self, v: PlayerView) -> None:
        s = self.seen
        if v.bout < s.bout or (v.bout == 0 and v.discard_count == 0 and s.discarded):
            s = self.seen = _Seen()  # a new game
        if v.bout != s.bout:
            if s.bout >= 0 and v.bout == s.bout + 1:
                if not v.last_bout_taken:
                    for a, c in v.last_bout:
                        s.discarded |= 1 << a | (0 if c is None else 1 << c)
                elif v.rules.partial_defence and v.rules.variant is Variant.DUREN:
                    for a, c in v.last_bout:  # R-P5: the covered pairs are discarded
                        if c is not None:
                            s.discarded |= 1 << a | 1 << c
            elif s.bout >= 0 or v.discard_count:
                s.complete = False
            s.bout = v.bout
            s.opener = v.attacker
        if s.discarded.bit_count() != v.discard_count:
            s.complete = s.complete and s.discarded.bit_count() == v.discard_count

    # --- choosing -----------------------------------------------------------------------

    def choose(self, view: PlayerView) -> Action | None:
        v = view
        self._start = self.clock() if self.clock is not None else 0.0
        self._observe(v)
        self.normal.mem.solved = None
        self._arm_solver(v)
        h = self.normal.choose(v)
        self.last_simulations = 0
        seat = v.seat
        if h is None or seat is None or v.result is not None:
            return h  # not its moment (the heuristic knows when to wait)
        if h.do is Do.CHALLENGE or (h not in v.legal and not _one_rank_opening(h, v)):
            return h  # a challenge of a card seen played against the rules, or a cheat
        if self.normal.mem.solved is not None and self.normal.mem.solved != LOSS:
            return h  # the exact endgame search found a forced win or draw
        cands = self._candidates(v, h)
        if len(cands) < 2:
            return h
        return self._search(v, cands, cands.index(h) if h in cands else -1)

    def _arm_solver(self, v: PlayerView) -> None:
        """Give normal's exact endgame search (game/endgame.py: two players, the stock empty,
        every card placed) a share of this move's budget instead of normal's few hundred
        nodes: a clock deadline, or budgeted in playouts a fixed count of nodes (so that a
        seed still decides the game).  Its memo carries over between moves, so a search cut
        off now goes on from where it stopped at the next move."""
        if v.stock_count or v.seats - len(v.out) != 2:
            return
        mem = self.normal.mem
        if v.stock_count > mem.stock or v.bout < mem.bout:
            return  # a new game: normal forgets this one first
        if not isinstance(mem.solver, _ClockSolver):
            r = v.rules
            mem.solver = _ClockSolver(
                trump=v.trump,
                japanese=r.japanese,
                first_bout_five=r.first_bout_five,
                last_defender_loses=r.tie is Tie.LAST_DEFENDER_LOSES,
                transfers=r.transfers,
            )
        if self.clock is None:
            nodes = max(NormalBot.SEARCH_NODES, self.SOLVER_NODES_PER_PLAYOUT * self.simulations)
            mem.solver.arm(None, 0.0, nodes)
        else:
            share = self.budget_ms / 1000 * self.BUDGET_SHARE * self.SOLVER_SHARE
            mem.solver.arm(self.clock, self._start + share, 1 << 40)

    def _candidates(self, v: PlayerView, h: Action) -> list[Action]:
        """The answers worth comparing: the honest legal ones (a defender's covers only on the
        attack card the heuristic would cover: the order of covers changes little)."""
        acts = [a for a in v.legal if a.do is not Do.CHALLENGE]
        if v.seat == v.defender and h.do is Do.COVER:
            acts = [a for a in acts if a.do is not Do.COVER or a.on == h.on]
        elif v.seat == v.defender and v.uncovered:
            on = max(v.uncovered, key=lambda c: _val(c, v.trump, lowest_rank(v.rules.deck)))
            acts = [a for a in acts if a.do is not Do.COVER or a.on == on]
        if h not in acts:
            acts.append(h)
        return acts

    def _playout_solver(self, v: PlayerView) -> Solver | None:
        """The exact solver the playouts use at a small heads-up endgame (game/endgame.py:
        not Dureń): its memo holds for any game of the same trump and rules, and is kept
        while it is small."""
        r = v.rules
        if r.variant is Variant.DUREN:
            return None
        ps = self._psolver
        key = (v.trump, r.japanese, r.first_bout_five, r.tie, r.transfers)
        if ps is None or key != self._psolver_key or len(ps.memo) > self.PLAYOUT_MEMO:
            self._psolver_key = key
            ps = self._psolver = Solver(
                trump=v.trump,
                japanese=r.japanese,
                first_bout_five=r.first_bout_five,
                last_defender_loses=r.tie is Tie.LAST_DEFENDER_LOSES,
                transfers=r.transfers,
                budget=self.PLAYOUT_SOLVE_NODES,
            )
        return ps

    # --- the search ---------------------------------------------------------------------

    def _search(self, v: PlayerView, cands: Sequence[Action], prior: int) -> Action:
        """Compare ``cands`` on sampled worlds; ``prior`` (an index, or -1) is the heuristic's
        answer, kept unless another is better by more than its noise."""
        assert v.seat is not None
        default = cands[prior] if prior >= 0 else cands[0]
        sampler = _Sampler.of(v, self.seen)
        if sampler is None:
            return default
        clock = self.clock
        start = self._start  # the budget counts from the call (normal's answer included)
        budget = self.budget_ms / 1000 * self.BUDGET_SHARE
        k = len(cands)
        # vals[i][r]: candidate i's playout value in round r's world (None: not played).
        vals: list[list[float | None]] = [[] for _ in range(k)]
        alive = list(range(k))
        sims = 0
        mean_sim = 0.0
        sim_rules = dataclasses.replace(v.rules, cheating=False)
        team = v.teams[v.seat]
        rng = self.rng
        policy = _Policy(v, rng, self.NOISE)
        policy.solver = self._playout_solver(v)
        policy.solve_cards = self.PLAYOUT_SOLVE_CARDS
        stop = False
        rounds = 0
        horizon = v.bout + 1 + self.HORIZON
        while not stop and len(alive) > 1:
            world = sampler.sample(rng)
            for i in range(k):
                vals[i].append(None)
            for i in alive:
                if sims >= self.simulations:
                    stop = True
                    break
                if clock is not None and clock() - start + 1.5 * mean_sim > budget:
                    stop = True
                    break
                game = sampler.build(v, sim_rules, world, self.seen.opener)
                game.apply(cands[i])
                vals[i][rounds] = policy.playout(
                    game, team, self.PLAYOUT_CAP, v.seat, horizon, self.PLAY_ON
                )
                sims += 1
                if clock is not None:
                    mean_sim = (clock() - start) / sims
            rounds += 1
            if not sampler.pool:
                break  # every card placed: every world is this one, and the policy is fixed
            if rounds >= self.HALVE_AFTER and not stop:
                ref = max(alive, key=lambda i: _mean(vals[i]))
                alive = [
                    i for i in alive if i in (ref, prior) or _edge(vals[i], vals[ref]) > -self.HALVE
                ]
        self.last_simulations = sims
        self.searches += 1
        best = max(range(k), key=lambda i: (_mean(vals[i]), i == prior))
        if prior < 0 or best == prior:
            return cands[best]
        # Overrule the heuristic only when the paired difference is clear.
        if sampler.pool:
            diff, se = _paired(vals[best], vals[prior])
        else:  # one world, played out exactly as the policy plays: no noise
            diff, se = _mean(vals[best]) - _mean(vals[prior]), 0.0
        if diff > self.PRIOR and diff > self.OVERRULE * se:
            return cands[best]
        return default


def _mean(xs: Sequence[float | None]) -> float:
    got = [x for x in xs if x is not None]
    return sum(got) / len(got) if got else -1.0


def _paired(a: Sequence[float | None], b: Sequence[float | None]) -> tuple[float, float]:
    """The mean of a - b over the worlds both played, and its standard error."""
    d = [x - y for x, y in zip(a, b, strict=False) if x is not None and y is not None]
    if len(d) < 2:
        return (0.0, 1.0)
    m = sum(d) / len(d)
    var = sum((x - m) ** 2 for x in d) / (len(d) - 1)
    return (m, max(var, 0.01) ** 0.5 / len(d) ** 0.5)


def _edge(a: Sequence[float | None], b: Sequence[float | None]) -> float:
    """How many standard errors a is ahead of b (negative: behind)."""
    m, se = _paired(a, b)
    return m / se


def _one_rank_opening(a: Action, v: PlayerView) -> bool:
    """A multi-card opening of one rank (R-B1): legal, though `legal` lists single cards."""
    if a.do is not Do.ATTACK or len(a.cards) < 2 or v.table:
        return False
    single = {x.cards[0] for x in v.legal if x.do is Do.ATTACK and len(x.cards) == 1}
    return all(c in single and c % 13 == a.cards[0] % 13 for c in a.cards)


def _val(c: int, trump: int, low: int) -> int:
    """A card's strength: its rank in the deck, trumps above every plain card."""
    r = c % 13 + 2 - low
    return r + 15 - low if c // 13 == trump else r


class _ClockSolver(Solver):
    """The endgame solver with a deadline on a clock as well as its node budget."""

    CHECK: Final = 64

    def arm(self, clock: Clock | None, deadline: float, nodes: int) -> None:
        self.clock = clock
        self.deadline = deadline
        self.budget = nodes
        self._tick = 0

    def _value(self, key: tuple[int, ...]) -> int:
        self._tick += 1
        if self._tick >= self.CHECK and self.clock is not None:
            self._tick = 0
            if self.clock() > self.deadline:
                raise Budget
        return super()._value(key)


# --- the evaluation of a position --------------------------------------------------------

EVAL_WEIGHTS: Final = (0.2528, 1.5070, 0.5270, -0.5027, 1.0102, -0.3584, 0.2596, -2.1365)
"""The logistic model of "not the durak" over `features` (benchmarks/train_eval.py fits it)."""


def features(g: Game, seat: int) -> list[float]:
    """A few numbers about ``seat``'s hand against its active opponents' (a full-information
    game: a world's), for `EVAL_WEIGHTS`: a bias, the card count, the hand's strength, the
    trumps (each: own minus the opponents' mean), the first two weighted by the stock left,
    the seat's role in the coming bout, and the count again once the stock is empty."""
    trump = g.trump
    low = lowest_rank(g.rules.deck)
    nr = 15 - low
    team = g.team(seat)
    hands = g._hands

    def stats(s: int) -> tuple[float, float, float]:
        n = 0
        strength = 0.0
        trumps = 0
        for c in cards_of(hands[s]):
            n += 1
            v = _val(c, trump, low)
            strength += (v - nr) / nr
            trumps += c // 13 == trump
        return (n / 6, strength, trumps / 3)

    mine = stats(seat)
    opps = [stats(s) for s in range(g.seats) if g.team(s) != team and s not in g._out]
    if opps:
        theirs = tuple(sum(o[i] for o in opps) / len(opps) for i in range(3))
    else:
        theirs = (0.0, 0.0, 0.0)
    dn, ds, dt = (mine[i] - theirs[i] for i in range(3))
    stock = g.stock_count / g.rules.deck
    role = 1.0 if g.attacker == seat else -1.0 if g.defender == seat else 0.0
    return [1.0, dn, ds, dt, stock * dn, stock * ds, role, dn if not g.stock_count else 0.0]


def evaluate(g: Game, seat: int) -> float:
    """The model's chance that ``seat`` is not the durak."""
    z = sum(w * x for w, x in zip(EVAL_WEIGHTS, features(g, seat), strict=True))
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


# --- worlds -------------------------------------------------------------------------------


@dataclasses.dataclass
class _Sampler:
    """The unseen cards and the places they may be; `sample` deals them, `build` makes the
    world's `Game`."""

    pool: list[Card]
    """The cards the bot cannot place."""
    slots: list[int]
    """Per seat, how many unknown cards its hand holds."""
    stock_unknown: int
    """The stock's cards above the turned trump card (all of it in a Japanese game)."""
    hands: list[int]
    """Per seat, the cards known to be there (the bot's own hand: all of it)."""
    discarded: int

    @classmethod
    def of(cls, v: PlayerView, seen: _Seen) -> _Sampler | None:
        seat = v.seat
        assert seat is not None
        hands = [0] * v.seats
        hands[seat] = hand_mask(v.hand)
        placed = hands[seat]
        slots = [0] * v.seats
        for s, sv in enumerate(v.others):
            if s == seat:
                continue
            hands[s] = hand_mask(sv.known)
            placed |= hands[s]
            slots[s] = sv.count - len(sv.known)
        for a, c in v.table:
            placed |= 1 << a
            if c is not None:
                placed |= 1 << c
        discarded = seen.discarded & ~placed if seen.complete else 0
        placed |= discarded
        turned = v.trump_card if v.stock_count else None
        if turned is not None:
            placed |= 1 << turned
        pool = [CARDS[c] for c in cards_of(deck_mask(v.rules.deck) & ~placed)]
        stock_unknown = v.stock_count - (1 if turned is not None else 0)
        missing_discards = v.discard_count - discarded.bit_count()
        if missing_discards < 0 or sum(slots) + stock_unknown + missing_discards != len(pool):
            return None  # the bot's record does not add up (it missed too much): no search
        return cls(pool, slots, stock_unknown, hands, discarded)

    def sample(self, rng: Rng) -> tuple[list[int], list[Card], int]:
        """One deal of the unseen cards: the hands, the stock (top first), the discards."""
        pool = list(self.pool)
        n = len(pool)
        for i in range(n - 1, 0, -1):  # Fisher-Yates with the bot's own generator
            j = rng.randrange(i + 1)
            pool[i], pool[j] = pool[j], pool[i]
        hands = list(self.hands)
        pos = 0
        for s, k in enumerate(self.slots):
            for c in pool[pos : pos + k]:
                hands[s] |= 1 << c
            pos += k
        stock = pool[pos : pos + self.stock_unknown]
        pos += self.stock_unknown
        discarded = self.discarded
        for c in pool[pos:]:
            discarded |= 1 << c
        return hands, stock, discarded

    @staticmethod
    def build(
        v: PlayerView,
        rules: Rules,
        world: tuple[list[int], list[Card], int],
        opener: int | None,
    ) -> Game:
        """A full-information `Game` at the view's position with the world's cards (the
        engine's own state, as tests/support/engine_helpers.position builds one)."""
        hands, stock, discarded = world
        g = Game(rules, v.seats, v.dealer, v.trump)
        g._hands = list(hands)
        g._pub = [hand_mask(sv.known) if s != v.seat else 0 for s, sv in enumerate(v.others)]
        turned = v.trump_card if v.stock_count else None
        g._stock = [*stock, turned] if turned is not None else list(stock)
        g.stock_count = len(g._stock)
        g._turned = turned
        g.discard_count = v.discard_count
        g._discard_mask = discarded
        g._out = list(v.out)
        g._out_mask = hand_mask(v.out)
        g._marked = list(v.marked)
        g._marked_mask = hand_mask(v.marked)
        g._defended = v.defended
        g._limit = v.limit
        g._bout_no = v.bout
        g.attacker = v.attacker
        g.defender = v.defender
        g._opener = opener if opener is not None else (v.attacker or 0)
        g._att = [CARDS[a] for a, _ in v.table]
        g._table = list(v.table)
        unc = 0
        tm = 0
        ranks = 0
        for a, c in v.table:
            tm |= 1 << a
            ranks |= RANK_MASK[a % 13]
            if c is None:
                unc += 1
            else:
                tm |= 1 << c
                ranks |= RANK_MASK[c % 13]
        g._uncovered = unc
        g._table_mask = tm
        g._rank_cards = ranks
        g._passed = hand_mask(v.passed)
        g._taking = v.phase == "taking"
        g.phase = Phase(v.phase)
        g._attackers = hand_mask(v.attackers)
        return g


# --- the playout policy -------------------------------------------------------------------


class _Policy:
    """A cheap `normal`-like player for every seat of a world (it reads the world's hands:
    they are the sample's, not anybody's real cards)."""

    def __init__(self, v: PlayerView, rng: Rng, noise: float) -> None:
        self.rng = rng
        self.noise = noise
        self.trump = v.trump
        self.jap = v.rules.japanese
        self.low = lowest_rank(v.rules.deck)
        self.nr = 15 - self.low
        self.duren = v.rules.variant is Variant.DUREN
        t, low = self.trump, self.low
        self.val = [_val(c, t, low) for c in range(52)]
        self.beats = beat_masks(t, self.jap)
        self.solver: Solver | None = None
        """The exact endgame solver, for heads-up endings of at most ``solve_cards`` cards."""
        self.solve_cards = 0

    def playout(
        self, g: Game, team: int, cap: int, seat: int, horizon: int, play_on: int = 0
    ) -> float:
        """Play the world to its end, 1 if ``team`` is not the durak, 0.5 a draw, else 0; or
        while the stock lasts, to the start of bout ``horizon`` and `evaluate` it there."""
        act = self.act
        solver = self.solver
        for _ in range(cap):
            if g.result is not None:
                break
            if solver is not None and not g._att and not g.stock_count:
                value = self._solve(g, solver, team)
                if value is not None:
                    return value
            if not g._att and g.stock_count > play_on and g._bout_no >= horizon:
                return evaluate(g, seat)
            d = g.defender
            a: Action | None = None
            if g._att and g._uncovered and not g._taking and d is not None:
                a = act(g, d)
            elif not g._att:
                if g.attacker is not None:
                    a = act(g, g.attacker)
            else:
                m = g._attackers & ~g._passed
                start = g.attacker if g.attacker is not None else 0
                n = g.seats
                for k in range(n):
                    s = (start + k) % n
                    if m >> s & 1:
                        a = act(g, s)
                        if a is not None:
                            break
            if a is None:
                break
            g.apply(a)
        r = g.result
        if r is None or r.draw:
            return 0.5
        return 0.0 if any(g.team(s) == team for s in r.durak) else 1.0

    def _solve(self, g: Game, solver: Solver, team: int) -> float | None:
        """A heads-up bout's start, the stock empty, few cards: the exact value for ``team``
        (1 not the durak, 0.5 a draw, 0 the durak), or None (too big, or out of nodes)."""
        att, dfd = g.attacker, g.defender
        if att is None or dfd is None or g.seats - len(g._out) != 2:
            return None
        ta, td = g.team(att), g.team(dfd)
        if ta == td or team not in (ta, td):
            return None
        a, d = g._hands[att], g._hands[dfd]
        if a.bit_count() + d.bit_count() > self.solve_cards:
            return None
        found = solver.best(a, d, 0, 0, 0, False, g._defended, True)
        if found is None:
            return None
        val = found[0] if ta == team else -found[0]
        return (val + 1) / 2

    def act(self, g: Game, s: int) -> Action | None:
        acts = g.legal_actions(s)
        if not acts:
            return None
        if self.noise and self.rng.random() < self.noise:
            return acts[self.rng.randrange(len(acts))]
        if s == g.defender and g._att:
            return self._defend(g, s, acts)
        if not g._att:
            return self._lead(g, s, acts)
        return self._throw(g, s, acts)

    def _lead(self, g: Game, s: int, acts: list[Action]) -> Action:
        val, nr, trump = self.val, self.nr, self.trump
        if self.duren:

            def dscore(a: Action) -> float:
                sc = 0.0
                for c in a.cards:
                    sc += -val[c] if c // 13 != trump else -(val[c] - nr + 6)
                return sc + 10.0 * len(a.cards)

            return max(acts, key=dscore)
        hand = g._hands[s]
        best = acts[0]
        best_score = 1e9
        d = g.defender
        # The endgame (the stock empty): a card the defender cannot beat first, as normal
        # leads (the world's defender hand is the sample's, not anybody's real cards).
        dh = g._hands[d] if not g.stock_count and d is not None else -1
        bm = self.beats
        hard = 20.0 if g.seats - len(g._out) == 2 else 6.0
        for a in acts:
            if a.do is not Do.ATTACK:
                continue
            c = a.cards[0]
            same = (hand & RANK_MASK[c % 13]).bit_count()
            score = val[c] - 1.5 * (same - 1)
            if dh >= 0 and not dh & bm[c]:
                score -= hard
            if score < best_score:
                best, best_score = a, score
        if dh >= 0 and d is not None and best.do is Do.ATTACK:
            # R-B1: every card of that rank he cannot beat goes with it.
            c = best.cards[0]
            group = [
                x
                for x in cards_of(hand & RANK_MASK[c % 13])
                if x != c and x // 13 != trump and not dh & bm[x]
            ]
            room = min(g._limit, dh.bit_count()) - 1
            if group and room > 0:
                return Action.attack(s, c, *group[:room])
        return best

    def _throw(self, g: Game, s: int, acts: list[Action]) -> Action | None:
        val, trump = self.val, self.trump
        stock = g.stock_count
        taking = g._taking
        best: Action | None = None
        best_val = 99
        pass_: Action | None = None
        small = g._hands[s].bit_count() <= 2
        for a in acts:
            if a.do is Do.PASS:
                pass_ = a
                continue
            if a.do is not Do.ATTACK:
                continue
            c = a.cards[0]
            x = val[c]
            is_trump = c // 13 == trump
            if stock == 0:
                ok = not is_trump or small
            elif taking:
                ok = not is_trump and x <= (6 if stock > 6 else 9)
            else:
                ok = not is_trump and x <= (4 if stock > 12 else 6 if stock > 4 else 8)
            if ok and x < best_val:
                best, best_val = a, x
        if best is not None:
            return best
        if g._uncovered and not taking:
            return None
        return pass_

    def _defend(self, g: Game, s: int, acts: list[Action]) -> Action | None:
        if g._taking or not g._uncovered:
            return None
        val, trump, jap, nr = self.val, self.trump, self.jap, self.nr
        take: Action | None = None
        covers: dict[tuple[int, int], Action] = {}
        transfer: Action | None = None
        for a in acts:
            do = a.do
            if do is Do.SHOW:
                return a  # R-B7: free
            if do is Do.TAKE:
                take = a
            elif do is Do.COVER:
                assert a.card is not None and a.on is not None
                covers[(a.card, a.on)] = a
            elif do is Do.TRANSFER:
                assert a.card is not None
                cheaper = transfer is None or val[a.card] < val[transfer.card or 0]
                if a.card // 13 != trump and cheaper:
                    transfer = a
        if transfer is not None:
            return transfer
        # The cheapest full cover: strongest attack card first, own suit first, then trumps.
        free = sorted(cards_of(g._hands[s]), key=val.__getitem__)
        todo: list[int] = sorted((x for x, y in g._table if y is None), key=lambda c: -val[c])
        plan: list[tuple[int, int]] = []
        later: list[int] = []
        for t in todo:
            pick = next((c for c in free if c // 13 == t // 13 and c > t), None)
            if pick is None:
                later.append(t)
                continue
            free.remove(pick)
            plan.append((pick, t))
        for u in later:
            pick = next((c for c in free if beats(c, u, trump, jap)), None)
            if pick is None:
                return take
            free.remove(pick)
            plan.append((pick, u))
        stock = g.stock_count
        if stock:
            early = min(1.0, stock / 12)
            cost = 0.0
            for c, _t in plan:
                x = val[c]
                if c // 13 == trump:
                    cost += 3.0 + early * (4.0 + (x - nr))
                else:
                    cost += early * max(0, x - 5) * 0.5
            burden = 0.0
            n_table = 0
            for pair in g._table:
                for y in pair:
                    if y is None:
                        continue
                    n_table += 1
                    burden += 1.6 - 0.25 * val[y] if y // 13 != trump else -1.0
            take_cost = 3.0 + max(0.0, burden) + 0.8 * n_table + (4.0 if stock <= 6 else 0.0)
            if cost > take_cost and take is not None:
                return take
        cover, on = plan[0]
        return covers.get((cover, on)) or take
