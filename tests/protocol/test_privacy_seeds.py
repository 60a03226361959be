"""Step 2b (docs/privacy.md): the nonce of step 0 commits to a secret seed; after the last
shuffle stage every seat reveals its seed (collected by the host), every receiver checks it
against its commitment, and the schedule deals from the last stage in the order H(every seed,
game id) fixes.  No shuffler knows, while it shuffles, where a slot of its stage is dealt."""

from __future__ import annotations

from typing import Any

import pytest

from localdurak.protocol.errors import RemoteProtocolError
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.privacy.messages import Message, Nonce, Seed, Shuffle, Strip
from localdurak.protocol.privacy.transcript import deal_order, seed_commitment
from tests.support.privacy_play import order_of, table
from tests.support.privacy_sim import dealt_deck


def test_step2b_deal_order_is_a_permutation_fixed_by_every_seed_and_the_game_id() -> None:
    seeds = [bytes([s]) * 32 for s in range(4)]
    gid = b"\x01" * 32
    order = deal_order(gid, seeds, 52)
    assert sorted(order) == list(range(52))
    assert deal_order(gid, seeds, 52) == order  # public: everybody derives the same
    assert deal_order(b"\x02" * 32, seeds, 52) != order  # bound to the game
    for s in range(4):  # each seed changes it: one honest seed makes it unpredictable
        other = list(seeds)
        other[s] = b"\xff" * 32
        assert deal_order(gid, other, 52) != order
    assert seed_commitment(0, seeds[1]) != seed_commitment(1, seeds[1])  # bound to the seat


def test_step2b_seeds_come_after_the_last_shuffle_collected_and_order_the_dealt_deck() -> None:
    seen: list[tuple[str, int, Message]] = []
    tab = table(4, 36, seed=31, tap=lambda d, s, m: seen.append((d, s, m)))
    tab.start()
    kinds = [(d, m.KIND) for d, _, m in seen]
    last_shuffle = max(i for i, (d, k) in enumerate(kinds) if k == "shuffle")
    seeds_in = [i for i, (d, k) in enumerate(kinds) if k == "seed" and d == "to_host"]
    seeds_out = [i for i, (d, k) in enumerate(kinds) if k == "seed" and d == "to_player"]
    first_strip = min(i for i, (d, k) in enumerate(kinds) if k == "strip")
    assert len(seeds_in) == 4 and len(seeds_out) == 16
    # Sent only once the last stage is fixed, relayed only once all are in, and no layer comes
    # off before every seat has every seed.
    assert last_shuffle < min(seeds_in) and max(seeds_in) < min(seeds_out)
    assert max(seeds_out) < first_strip
    # Each nonce was the commitment to the seed revealed.
    nonces = {m.seat: m.nonce for d, _, m in seen if isinstance(m, Nonce) and d == "to_host"}
    for _, _, m in seen:
        if isinstance(m, Seed):
            assert seed_commitment(m.seat, m.seed) == nonces[m.seat]
    t = tab.host.t
    assert t.order == order_of(4, 36, seed=31) and t.final_deck is not None
    assert t.final_deck == tuple(t.decks[-1][i] for i in t.order)
    assert t.order != tuple(range(36))
    assert all(p.t.order == t.order for p in tab.players)
    # The hands are the dealt deck's positions, as the schedule says.
    deck = dealt_deck(tab)
    for p in tab.players:
        assert all(deck[pos] == card for pos, card in p.hand.items())
    tab.reveal()
    assert audit(tab.record()).clean


def test_step2b_a_seed_that_is_not_the_committed_one_is_refused_naming_its_seat() -> None:
    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Seed) and sender == 1:
            return Seed(1, b"\x00" * 32)  # chosen after the shuffles: would steer the order
        return msg

    tab = table(3, 36, seed=32, tamper=tamper)
    with pytest.raises(RemoteProtocolError, match="not the one its nonce committed to") as e:
        tab.start()
    assert e.value.seat == 1 and tab.host.refused[-1]["seat"] == 1
    assert tab.host.t.final_deck is None  # nothing dealt


def test_step2b_a_seed_before_the_last_shuffle_is_refused() -> None:
    tab = table(3, 36, seed=33)
    host = tab.host
    for p in tab.players:
        for m in p.start():
            host.receive(p.seat, m)
    early = Seed(0, tab.players[0].seed)
    with pytest.raises(RemoteProtocolError, match="before the last shuffle"):
        host.receive(0, early)
    assert host.t.seeds == [None, None, None]


def _log_edit(record: dict[str, Any], kind: str, seat: int, field: str, value: Any) -> None:
    for m in record["privacy"]["log"]:
        if m["kind"] == kind and m["seat"] == seat:
            m[field] = value
            return
    raise AssertionError(f"no {kind} of seat {seat} in the log")


def test_step2b_the_audit_checks_every_seed_and_the_order_it_derives() -> None:
    tab = table(3, 24, seed=34)
    tab.start()
    tab.reveal()
    record = tab.record()
    assert audit(record).clean
    # A host that writes another seed into the log (to make the record deal another deck):
    # it does not match the commitment; the log is refused, no seat named (seeds are not
    # signed: the host could have written it).
    _log_edit(record, "seed", 2, "seed", "ab" * 32)
    report = audit(record)
    assert not report.clean and report.guilty == ()
    assert any("seed" in f.what for f in report.faults)


def test_step2b_a_shuffler_that_withholds_its_seed_is_still_judged_for_its_shuffle() -> None:
    # A cheater told the order by a colluding host (the host sees the seeds first) might keep
    # its seed back when the substitution missed its hand.  With proofs of shuffle it never
    # gets that far: its stage is refused before any seed is revealed, and the audit names it
    # from the stage it signed, without any seed or key of its.
    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Shuffle) and sender == 2:
            deck = list(msg.deck)
            deck[0], deck[1] = deck[1], tab.host.t.deck_points[5]  # a card under no key
            return Shuffle(2, tuple(deck), msg.proof)
        return msg

    tab = table(3, 36, seed=35, tamper=tamper)
    for p in tab.players:
        tab.to_host(p.seat, p.start())
    with pytest.raises(RemoteProtocolError) as e:
        while tab.queue:
            tab.step()
    assert e.value.seat == 2
    assert tab.host.t.final_deck is None
    assert not any(isinstance(m, Seed | Strip) for m in tab.host.t.log)
    tab.queue.clear()
    for p in tab.players[:2]:  # the cheater keeps its key too
        tab.to_host(p.seat, [p.reveal()])
    tab.run()
    report = audit(tab.record())
    assert 2 in report.guilty and set(report.guilty) <= {2}
    assert any("shuffle" in f.what and f.seat == 2 for f in report.faults)
