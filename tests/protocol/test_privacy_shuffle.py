"""Card privacy against dishonest shuffles (privacy.md "The proof of shuffle").

Before step 2b the last shuffler knew which final deck positions the public schedule gives to
whom: putting a multiple ``a·X`` of a victim's final value X into one of its own positions, it
had the honest seats strip that position for it and read the victim's card at the deal, alone.
Step 2b (the deal order fixed by seeds revealed after every stage) took the aim away but a
substituted slot still read a card in about hand/D of the games.  Now every stage carries a
proof of shuffle (privacy/shuffle.py): a stage that is not a permutation of its input under
its shuffler's committed key is refused at once, before any seed is revealed or any layer
removed, naming the shuffler; the audit names it from the signed stage in the log.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from localdurak.protocol.errors import RemoteProtocolError
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.privacy.cardpoints import CARD_POINTS
from localdurak.protocol.privacy.group import GROUP
from localdurak.protocol.privacy.messages import Message, Shuffle, Strip
from localdurak.protocol.privacy.schedule import Chunk
from tests.support.privacy_play import table
from tests.support.privacy_sim import MemoryTable, unwire, wire

CARD_OF = {p: i for i, p in enumerate(CARD_POINTS)}
A = GROUP.scalar_reduce(b"\x09" * 64)
"""The attacker's blinding factor."""


def _aimed_substitution(seed: int, defer: bool) -> MemoryTable:
    """4 seats × 24 cards, dealer 3.  Seat 3 shuffles last and aims: its stage's slot 3
    becomes a·(slot 0) — valid and distinct, which is all a stage was checked for before the
    proofs of shuffle.  Its decoder keeps its chunk's values and reports nothing."""
    victim_slot, own_slot = 0, 3

    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Shuffle) and sender == 3:
            deck = list(msg.deck)
            deck[own_slot] = GROUP.mul(A, deck[victim_slot])
            return replace(msg, deck=tuple(deck))
        return msg

    tab = table(4, 24, seed=seed, tamper=tamper, defer_verification=defer)
    seen: dict[int, bytes] = {}

    def malicious_decode(chunk: Chunk) -> None:
        seen.update(zip(chunk.positions, tab.host.t.final_values(chunk), strict=True))

    tab.players[3]._decode = malicious_decode  # type: ignore[method-assign]
    with pytest.raises(RemoteProtocolError, match="proof of shuffle") as e:
        tab.start()
    assert e.value.seat == 3
    assert not seen
    return tab


@pytest.mark.parametrize("defer", [False, True])
def test_review_aimed_substitution_is_refused_before_any_seed_and_the_audit_names_it(
    defer: bool,
) -> None:
    # Host checking at once, or relaying first (then every other seat refuses the stage itself
    # before revealing its seed).
    for seed in range(100, 104):
        tab = _aimed_substitution(seed, defer)
        assert tab.host.t.order is None  # no seed was relayed: nothing dealt, nothing read
        assert not any(isinstance(m, Strip) for m in tab.host.t.log)
        if defer:
            # The stage was relayed before the host checked it: the honest seats refused it.
            for p in tab.players[:3]:
                assert p.t.final_deck is None
        tab.queue.clear()
        tab.reveal()
        report = audit(tab.record())
        assert report.guilty == (3,)
        assert any("shuffle" in f.what and f.seat == 3 for f in report.faults)


def test_review_shuffle_with_a_key_per_card_refused_at_once_and_named_by_the_audit() -> None:
    # A shuffler re-keying one card with another key (a mark it could recognise later): the
    # proof of shuffle binds every slot to the committed key, so the stage is refused at once.
    other = GROUP.scalar_reduce(b"\x0b" * 64)

    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Shuffle) and sender == 1:
            deck = list(msg.deck)
            deck[0] = GROUP.mul(other, deck[0])
            return replace(msg, deck=tuple(deck))
        return msg

    tab = table(3, 36, seed=22, tamper=tamper)
    with pytest.raises(RemoteProtocolError, match="proof of shuffle") as e:
        tab.start()
    assert e.value.seat == 1
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
