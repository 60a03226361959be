"""Security review (issue 3): the shuffle has no proof, so a dishonest shuffler is caught only
when a wrong card is opened or at the audit.  These tests pin what that means.

The last shuffler knows which final deck positions the public schedule gives to whom.  If it
puts a multiple ``a·X`` of a victim's final value X into one of its own positions, the honest
seats strip that position for it like any other, and it reads the victim's card at the deal —
alone, with no accomplice.  The audit names it (its shuffle is not a permutation of its input
under its key), but only after the game.  docs/privacy.md, "Limits", says so; the fix is a
verifiable shuffle (a proof that deck_j is a permutation of k_j·deck_{j−1}), not done.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from localdurak.protocol.cardpoints import CARD_POINTS
from localdurak.protocol.group import GROUP
from localdurak.protocol.privacy import Player, RemoteProtocolError
from localdurak.protocol.privacy_audit import audit
from localdurak.protocol.privacy_messages import Message, Shuffle
from localdurak.protocol.privacy_sim import unwire, wire
from localdurak.protocol.schedule import Chunk
from tests.privacy_play import table

CARD_OF = {p: i for i, p in enumerate(CARD_POINTS)}
A = GROUP.scalar_reduce(b"\x09" * 64)
"""The attacker's blinding factor."""


def test_review_last_shuffler_substitution_reads_a_card_and_is_named_by_the_audit() -> None:
    # 3 seats, dealer 2: position p goes to seat p mod 3.  Seat 2 shuffles last.
    victim_pos, own_pos = 0, 2

    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Shuffle) and sender == 2:
            deck = list(msg.deck)
            deck[own_pos] = GROUP.mul(A, deck[victim_pos])  # valid, distinct: accepted
            return replace(msg, deck=tuple(deck))
        return msg

    tab = table(3, 36, seed=21, tamper=tamper)
    attacker = tab.players[2]
    seen: dict[int, bytes] = {}

    def malicious_decode(chunk: Chunk) -> None:  # keeps its chunk's values, reports nothing
        seen.update(zip(chunk.positions, tab.host.t.final_values(chunk), strict=True))

    attacker._decode = malicious_decode  # type: ignore[method-assign]
    tab.start()

    # The honest victim was dealt its card normally and noticed nothing.
    victim: Player = tab.players[0]
    card = victim.hand[victim_pos]
    # The attacker reads it from its own position: k_2·a·M -> M.
    unblind = GROUP.scalar_invert(GROUP.scalar_mul(A, attacker._k))
    assert CARD_OF[GROUP.mul(unblind, seen[own_pos])] == card  # the known limit

    # The audit, with the keys, names the shuffler.
    tab.queue.clear()
    tab.reveal()
    report = audit(tab.record())
    assert report.guilty == (2,)
    assert any("shuffle" in f.what and f.seat == 2 for f in report.faults)


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
