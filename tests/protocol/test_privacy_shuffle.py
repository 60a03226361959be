"""Security review of card privacy: the shuffle has no proof, so a dishonest shuffler is caught only
when a wrong card is opened or at the audit.  These tests pin what that means.

Before step 2b the last shuffler knew which final deck positions the public schedule gives to
whom: putting a multiple ``a·X`` of a victim's final value X into one of its own positions, it
had the honest seats strip that position for it and read the victim's card at the deal, alone.
Now the dealt deck is the last stage in an order fixed by seeds revealed only after every stage
is in (docs/privacy.md, step 2b): the substituted value lands where the seeds put it, in the
cheater's own hand with probability about hand/D, otherwise in an honest hand or the stock,
where opening it stops the game.  The audit names the shuffler every time.  A shuffle proof
(deck_j a permutation of k_j·deck_{j−1}) is still the full fix, not done.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from localdurak.protocol.errors import RemoteProtocolError
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.privacy.cardpoints import CARD_POINTS
from localdurak.protocol.privacy.group import GROUP
from localdurak.protocol.privacy.messages import Message, Shuffle
from localdurak.protocol.privacy.schedule import Chunk
from tests.support.privacy_play import table
from tests.support.privacy_sim import MemoryTable, unwire, wire

CARD_OF = {p: i for i, p in enumerate(CARD_POINTS)}
A = GROUP.scalar_reduce(b"\x09" * 64)
"""The attacker's blinding factor."""


def _aimed_substitution(seed: int) -> tuple[MemoryTable, bool, int, dict[int, bytes]]:
    """4 seats × 24 cards, dealer 3: the whole deck is dealt, position p to seat p mod 4, the
    last (23) shown (R-D3).  Seat 3 shuffles last and aims: its stage's slot 3 (its first
    position, were the stage dealt as it stands) becomes a·(slot 0, seat 0's first position).
    Returns the table, whether the deal stopped at once, the dealt position the substituted
    value landed at, and the values the attacker kept from its chunk."""
    victim_slot, own_slot = 0, 3

    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Shuffle) and sender == 3:
            deck = list(msg.deck)
            deck[own_slot] = GROUP.mul(A, deck[victim_slot])  # valid, distinct: accepted
            return replace(msg, deck=tuple(deck))
        return msg

    tab = table(4, 24, seed=seed, tamper=tamper)
    seen: dict[int, bytes] = {}

    def malicious_decode(chunk: Chunk) -> None:  # keeps its chunk's values, reports nothing
        seen.update(zip(chunk.positions, tab.host.t.final_values(chunk), strict=True))

    tab.players[3]._decode = malicious_decode  # type: ignore[method-assign]
    try:
        tab.start()
        stopped = False
    except RemoteProtocolError as e:
        assert "not a card" in e.reason and e.seat is None  # the audit tells who
        stopped = True
    order = tab.host.t.order
    assert order is not None  # every seed was in before any layer came off
    return tab, stopped, order.index(own_slot), seen


def test_review_aimed_substitution_lands_where_the_seeds_say_and_the_audit_names_it() -> None:
    trials = 16
    stopped_at_once = read_own = 0
    for seed in range(trials):
        tab, stopped, landed, seen = _aimed_substitution(100 + seed)
        setup = tab.setup
        in_own_hand = setup.deal_owner(landed) == 3 and landed != setup.turned_position
        if in_own_hand:
            # The value landed among the attacker's own positions (probability 5/24 here): the
            # deal goes on and it reads a card — but the card of wherever the victim's slot was
            # dealt, a position it could not choose.
            assert not stopped
            read_own += 1
            keys = [p._k for p in tab.players]
            total = keys[0]
            for k in keys[1:]:
                total = GROUP.scalar_mul(total, k)
            order = tab.host.t.order
            deck = tab.host.t.final_deck
            assert order is not None and deck is not None
            victim_at = order.index(0)
            card = CARD_OF[GROUP.mul(GROUP.scalar_invert(total), deck[victim_at])]
            unblind = GROUP.scalar_invert(GROUP.scalar_mul(A, tab.players[3]._k))
            assert CARD_OF[GROUP.mul(unblind, seen[landed])] == card
        else:
            # An honest hand or the shown R-D3 card: opening it stops the game at the deal.
            assert stopped
            stopped_at_once += 1
        # Either way the audit, with the keys, names the shuffler.
        tab.queue.clear()
        tab.reveal()
        report = audit(tab.record())
        assert report.guilty == (3,)
        assert any("shuffle" in f.what and f.seat == 3 for f in report.faults)
    # The aim is gone: most attempts stop the game at once (expected 19 in 24).
    assert stopped_at_once + read_own == trials
    assert stopped_at_once > trials // 2 and read_own < trials // 2


def test_review_shuffle_with_a_key_per_card_caught_when_opened_and_named_by_the_audit() -> None:
    # A shuffler re-encrypting one card with another key (a mark it could recognise later):
    # no live check can see it in the shuffle; the honest owner of that card cannot decode it
    # (so the game stops at the deal) and the audit names the shuffler.
    other = GROUP.scalar_reduce(b"\x0b" * 64)

    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Shuffle) and sender == 1:
            deck = list(msg.deck)
            deck[0] = GROUP.mul(other, deck[0])
            return replace(msg, deck=tuple(deck))
        return msg

    tab = table(3, 36, seed=22, tamper=tamper)
    try:
        tab.start()
    except ValueError as e:
        assert "not a card of the deck" in str(e)
    tab.queue.clear()
    tab.reveal()
    report = audit(tab.record())
    assert report.guilty == (1,)


def test_review_a_host_cannot_forge_a_shuffle_stage_to_frame_the_next_shuffler() -> None:
    # The host relays to seat 1 a stage in seat 0's name that seat 0 never made (a deck of its
    # own, cards under a factor it knows).  Unsigned, seat 1 would shuffle it, the others would
    # keep seat 0's real stage, and the audit of the host's log would name seat 1 for a
    # shuffle "not a permutation of its input".  Every stage is signed by its shuffler over its
    # input and output: seat 1 refuses the forgery at once.
    tab = table(3, 36, seed=23)
    for p in tab.players:
        tab.to_host(p.seat, p.start())
    r = GROUP.scalar_reduce(b"\x0c" * 64)
    forged = False
    while tab.queue:
        direction, seat, data = tab.queue[0]
        msg = unwire(data)
        if direction == "to_player" and seat == 1 and isinstance(msg, Shuffle) and msg.seat == 0:
            fake = replace(
                msg, deck=tuple(GROUP.mul(r, p) for p in reversed(tab.host.t.deck_points))
            )
            tab.queue[0] = (direction, seat, wire(fake))
            forged = True
            with pytest.raises(RemoteProtocolError, match="not signed"):
                tab.step()
            break
        tab.step()
    assert forged
