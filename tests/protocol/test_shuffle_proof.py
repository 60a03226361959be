"""The proof of shuffle (docs/privacy.md "The proof of shuffle").

First the proof alone: an honest stage verifies; every way of making a stage that is not a
permutation of its input under the committed key, and every proof moved to another statement,
fails.  Then at the table: each attack is refused at once, before any seed is revealed or any
layer removed, naming the shuffler and nobody else — at the host, at every honest seat when
the host relays without checking, and in the audit of the record.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import nacl.bindings as nb
import pytest

from localdurak.protocol.errors import RemoteProtocolError
from localdurak.protocol.privacy import roles
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.privacy.cardpoints import CARD_POINTS
from localdurak.protocol.privacy.group import GROUP, T2, Point, Scalar
from localdurak.protocol.privacy.messages import Message, Seed, Shuffle, Strip
from localdurak.protocol.privacy.proofs import Context
from localdurak.protocol.privacy.shuffle import (
    proof_size,
    proof_size_v1,
    shuffle_prove,
    shuffle_verify,
    shuffle_verify_many,
)
from tests.support.privacy_play import table
from tests.support.privacy_sim import MemoryTable, resign_stage, unwire
from tests.support.shuffle_v1 import shuffle_prove_v1

RNG = random.Random(7).randbytes
CTX = Context(b"\x01" * 32, 2, "shuffle/2")


def stage(
    n: int, seed: int = 1, inputs: list[Point] | None = None
) -> tuple[Scalar, Point, list[Point], list[Point], list[int]]:
    rng = random.Random(seed)
    k = GROUP.random_scalar(rng.randbytes)
    ins = list(CARD_POINTS[:n]) if inputs is None else inputs
    perm = list(range(n))
    rng.shuffle(perm)
    outs = [GROUP.mul(k, ins[perm[i]]) for i in range(n)]
    return k, GROUP.mul_base(k), ins, outs, perm


@pytest.mark.parametrize("n", [1, 2, 5, 24, 52])
def test_an_honest_stage_verifies(n: int) -> None:
    k, y, ins, outs, perm = stage(n, seed=n)
    proof = shuffle_prove(RNG, k, y, ins, outs, perm, CTX)
    assert len(proof) == proof_size(n) == (2 * n + 7) * 32
    before = GROUP.counts["mul"]
    assert shuffle_verify(y, ins, outs, proof, CTX)
    # 3N + 6 multiplications (the first version's proof took 4N + 4).
    assert GROUP.counts["mul"] - before == 3 * n + 6


@pytest.mark.parametrize("n", [1, 12, 24])
def test_a_first_version_proof_is_still_judged(n: int) -> None:
    # Records and saved games made before the links were proven as one combination carry
    # first-version proofs: they verify as they did, alone and among second-version stages,
    # and one over a stage that is no permutation fails.
    k, y, ins, outs, perm = stage(n, seed=n + 40)
    old = shuffle_prove_v1(RNG, k, y, ins, outs, perm, CTX)
    assert len(old) == proof_size_v1(n) == (4 * n + 5) * 32
    assert shuffle_verify(y, ins, outs, old, CTX)
    k2, y2, _, outs2, perm2 = stage(n, seed=n + 41, inputs=outs)
    ctx2 = replace(CTX, seat=3, step="shuffle/3")
    new = shuffle_prove(RNG, k2, y2, outs, outs2, perm2, ctx2)
    if n > 1:
        # (For one card the two versions have one size: the combination reads the second,
        # and only the check of each alone, which tries both, passes a first-version one.)
        assert shuffle_verify_many([(y, ins, outs, old, CTX), (y2, outs, outs2, new, ctx2)])
        bad = copied_slot(k, ins, outs)
        assert not shuffle_verify(
            y, ins, bad, shuffle_prove_v1(RNG, k, y, ins, bad, perm, CTX), CTX
        )
        assert not shuffle_verify_many([(y, ins, bad, old, CTX), (y2, outs, outs2, new, ctx2)])
    # A first-version proof moved to another stage fails there too.
    assert not shuffle_verify(y, ins, outs, old, ctx2)


def test_the_proof_of_a_later_stage_over_an_earlier_one_verifies() -> None:
    _, _, _, first, _ = stage(36, seed=3)
    k, y, ins, outs, perm = stage(36, seed=4, inputs=first)
    assert shuffle_verify(y, ins, outs, shuffle_prove(RNG, k, y, ins, outs, perm, CTX), CTX)


def test_consecutive_stages_checked_together_pass_only_if_each_passes() -> None:
    # Three consecutive stages (each the input of the next), as the seats and the host check
    # the stages that waited together: one combination, the shared decks merged.
    decks: list[list[Point]] = [list(CARD_POINTS[:24])]
    stages = []
    for j in range(3):
        k, y, ins, outs, perm = stage(24, seed=20 + j, inputs=decks[-1])
        ctx = Context(CTX.game_id, j, f"shuffle/{j}")
        stages.append((y, ins, outs, shuffle_prove(RNG, k, y, ins, outs, perm, ctx), ctx))
        decks.append(outs)
    assert shuffle_verify_many([]) and shuffle_verify_many(stages)
    before = GROUP.counts["mul"]
    assert shuffle_verify_many(stages)
    # 3·(N + 5) + 4·N + 1 multiplications, not 3·(3N + 6).
    assert GROUP.counts["mul"] - before == 3 * (24 + 5) + 4 * 24 + 1 < 3 * (3 * 24 + 6)
    # One stage's proof moved to another stage, a slot copied, two proofs swapped: the
    # combination fails (and each stage alone says which).
    y1, ins1, outs1, proof1, ctx1 = stages[1]
    bad_slot = [*outs1[:3], GROUP.mul(GROUP.scalar_reduce(b"\x09" * 64), outs1[7]), *outs1[4:]]
    for bad in (
        [stages[0], (y1, ins1, outs1, proof1, stages[2][4]), stages[2]],
        [stages[0], (y1, ins1, bad_slot, proof1, ctx1), stages[2]],
        [stages[0], (*stages[1][:3], stages[2][3], ctx1), (*stages[2][:3], proof1, stages[2][4])],
    ):
        assert not shuffle_verify_many(bad)
        assert [shuffle_verify(*st) for st in bad].count(False) >= 1
        assert shuffle_verify(*bad[0])


def best_effort_proof(k: Scalar, y: Point, ins: list[Point], outs: list[Point]) -> bytes:
    """What a cheater can send for a stage that is no permutation: an honest proof of the
    closest honest stage (here: of the stage before the change)."""
    perm = list(range(len(ins)))
    honest = [GROUP.mul(k, p) for p in ins]
    return shuffle_prove(RNG, k, y, ins, honest, perm, CTX)


def copied_slot(k: Scalar, ins: list[Point], outs: list[Point]) -> list[Point]:
    # a·X of another slot's value X: the copy reads X's card later (privacy.md "Shuffles are
    # proven").
    a = GROUP.scalar_reduce(b"\x09" * 64)
    return [*outs[:3], GROUP.mul(a, outs[7]), *outs[4:]]


def duplicated_slot(k: Scalar, ins: list[Point], outs: list[Point]) -> list[Point]:
    return [*outs[:3], outs[7], *outs[4:]]


def planted_combination(k: Scalar, ins: list[Point], outs: list[Point]) -> list[Point]:
    # The first shuffler's attack: Σ aᵢ·k·M_cᵢ in one slot locates the cards it chose.
    acc = GROUP.mul(GROUP.scalar_reduce(b"\x02" * 64), GROUP.mul(k, ins[0]))
    for i, c in enumerate((5, 11, 17)):
        a = GROUP.scalar_reduce(bytes([i + 3]) * 64)
        acc = GROUP.add(acc, GROUP.mul(a, GROUP.mul(k, ins[c])))
    return [acc, *outs[1:]]


def another_key(k: Scalar, ins: list[Point], outs: list[Point]) -> list[Point]:
    # A permutation, but under a key that is not the committed one.
    other = GROUP.scalar_reduce(b"\x0d" * 64)
    return [GROUP.mul(other, GROUP.mul(GROUP.scalar_invert(k), p)) for p in outs]


def one_card_marked(k: Scalar, ins: list[Point], outs: list[Point]) -> list[Point]:
    # One slot under another key (a mark), the product of the changes being one: k·M·d and
    # k·M'·d⁻¹ pass a product-only check, not this proof (the shift z).
    d = GROUP.scalar_reduce(b"\x0e" * 64)
    return [GROUP.mul(d, outs[0]), GROUP.mul(GROUP.scalar_invert(d), outs[1]), *outs[2:]]


ATTACKS = [copied_slot, duplicated_slot, planted_combination, another_key, one_card_marked]


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_stage_that_is_no_permutation_under_the_key_has_no_proof(
    attack: Callable[[Scalar, list[Point], list[Point]], list[Point]],
) -> None:
    k, y, ins, outs, perm = stage(36, seed=5)
    bad = attack(k, ins, outs)
    # Neither the honest stage's proof nor the best a cheater can build verifies.
    assert not shuffle_verify(y, ins, bad, shuffle_prove(RNG, k, y, ins, outs, perm, CTX), CTX)
    assert not shuffle_verify(y, ins, bad, best_effort_proof(k, y, ins, bad), CTX)


def test_the_prover_refuses_what_is_not_a_permutation() -> None:
    k, y, ins, outs, _ = stage(5)
    with pytest.raises(ValueError):
        shuffle_prove(RNG, k, y, ins, outs, [0, 0, 1, 2, 3], CTX)


def test_a_proof_does_not_move_to_another_statement() -> None:
    k, y, ins, outs, perm = stage(24, seed=6)
    proof = shuffle_prove(RNG, k, y, ins, outs, perm, CTX)
    # Re-ordered output (a proof for the order before).
    assert not shuffle_verify(y, ins, [outs[1], outs[0], *outs[2:]], proof, CTX)
    # Another input (the same cards in another order).
    assert not shuffle_verify(y, [ins[1], ins[0], *ins[2:]], outs, proof, CTX)
    # Another game, another seat, another stage.
    for ctx in (
        replace(CTX, game_id=b"\x02" * 32),
        replace(CTX, seat=3),
        replace(CTX, step="shuffle/3"),
    ):
        assert not shuffle_verify(y, ins, outs, proof, ctx)
    # Another key.
    assert not shuffle_verify(
        GROUP.mul_base(GROUP.scalar_reduce(b"\x04" * 64)), ins, outs, proof, CTX
    )
    # A stage proven in one game replayed in another game's stage of the same input.
    k2, y2, _, outs2, perm2 = stage(24, seed=8)
    other = shuffle_prove(RNG, k2, y2, ins, outs2, perm2, replace(CTX, game_id=b"\x03" * 32))
    assert not shuffle_verify(y2, ins, outs2, other, CTX)


def test_a_damaged_proof_fails_and_never_raises() -> None:
    k, y, ins, outs, perm = stage(5, seed=9)
    proof = shuffle_prove(RNG, k, y, ins, outs, perm, CTX)
    n = 5
    torsion = bytes(nb.crypto_core_ed25519_add(proof[:32], T2))
    bad_scalar = (2**255 - 1).to_bytes(32, "little")
    variants = [
        b"",
        proof[:-1],
        proof + b"\x00",
        torsion + proof[32:],  # a point off the prime-order group
        (1).to_bytes(32, "little") + proof[32:],  # the identity
        proof[: (n + 4) * 32] + bad_scalar + proof[(n + 5) * 32 :],  # not reduced
        proof[: (n + 4) * 32] + b"\x00" * 32 + proof[(n + 5) * 32 :],  # zero response
    ]
    for i in range(0, len(proof), 32):  # one bit flipped in every field
        variants.append(proof[:i] + bytes([proof[i] ^ 1]) + proof[i + 1 :])
    for v in variants:
        assert shuffle_verify(y, ins, outs, v, CTX) is False
    # An output point off the group: false, not an exception.
    assert not shuffle_verify(y, ins, [torsion, *outs[1:]], proof, CTX)


# --- at the table ----------------------------------------------------------------------------


def cheat(seat: int, change: Callable[[MemoryTable, Shuffle], Shuffle]) -> Callable[..., Message]:
    holder: list[MemoryTable] = []

    def tamper(sender: int, msg: Message) -> Message:
        if isinstance(msg, Shuffle) and sender == seat:
            return change(holder[0], msg)
        return msg

    tamper.holder = holder  # type: ignore[attr-defined]
    return tamper


def with_deck(change: Callable[[MemoryTable, int, list[Point]], None]) -> Callable[..., Shuffle]:
    def f(tab: MemoryTable, msg: Shuffle) -> Shuffle:
        deck = list(msg.deck)
        change(tab, msg.seat, deck)
        return replace(msg, deck=tuple(deck))

    return f


def _copy(tab: MemoryTable, seat: int, deck: list[Point]) -> None:
    deck[4] = GROUP.mul(GROUP.scalar_reduce(b"\x09" * 64), deck[9])


def _planted(tab: MemoryTable, seat: int, deck: list[Point]) -> None:
    k = tab.players[seat].secret
    acc = GROUP.mul(k, tab.host.t.deck_points[0])
    for i, c in enumerate((3, 8, 13)):
        a = GROUP.scalar_reduce(bytes([i + 3]) * 64)
        acc = GROUP.add(acc, GROUP.mul(a, GROUP.mul(k, tab.host.t.deck_points[c])))
    deck[0] = acc


def _other_key(tab: MemoryTable, seat: int, deck: list[Point]) -> None:
    # Every slot under another key: a true permutation, of the wrong statement.
    p = tab.players[seat]
    r = GROUP.scalar_mul(GROUP.scalar_reduce(b"\x0d" * 64), p.secret_inverse)
    deck[:] = [GROUP.mul(r, x) for x in deck]


def _replayed(tab: MemoryTable, msg: Shuffle) -> Shuffle:
    # Seat 2 replays seat 1's stage and its proof (the proof of another seat and stage).
    first = tab.host.t.decks[1]
    return resign_stage(
        tab.players[msg.seat], replace(msg, deck=first, shuffle_proof=tab.host.t.shuffle_proofs[1])
    )


def _reordered(tab: MemoryTable, msg: Shuffle) -> Shuffle:
    # Its own honest proof, but the stage re-ordered after proving (two slots swapped).
    deck = list(msg.deck)
    deck[0], deck[1] = deck[1], deck[0]
    return replace(msg, deck=tuple(deck))


def _from_another_game(tab: MemoryTable, msg: Shuffle) -> Shuffle:
    # A stage with its valid proof from another game (another game id).
    other = table(4, 24, seed=5)
    other.start()
    t = other.host.t
    return resign_stage(
        tab.players[msg.seat], replace(msg, deck=t.decks[2], shuffle_proof=t.shuffle_proofs[2])
    )


TABLE_ATTACKS = {
    "copied slot": with_deck(_copy),
    "duplicated slot": with_deck(lambda tab, s, d: d.__setitem__(4, d[9])),
    "planted combination": with_deck(_planted),
    "stage under another key": with_deck(_other_key),
    "replayed proof": _replayed,
    "re-ordered proof": _reordered,
    "proof from another game": _from_another_game,
}


def run_collecting(tab: MemoryTable) -> dict[int, int | None]:
    """Deliver everything; a party whose step raises stops there.  Returns who raised, naming
    whom (receiver → seat named; -1 for the host)."""
    blamed: dict[int, int | None] = {}
    for p in tab.players:
        tab.to_host(p.seat, p.start())
    while tab.queue:
        direction, seat, data = tab.queue.popleft()
        receiver = -1 if direction == "to_host" else seat
        if receiver in blamed:
            continue
        msg = unwire(data)
        try:
            if direction == "to_host":
                tab.to_players(tab.host.receive(seat, msg))
                tab.host.verify_pending()
            else:
                tab.to_host(seat, tab.players[seat].receive(msg))
        except RemoteProtocolError as e:
            blamed[receiver] = e.seat
    return blamed


@pytest.mark.parametrize("defer", [False, True], ids=["host checks", "host relays first"])
@pytest.mark.parametrize(
    ("attack", "cheater"),
    # The first shuffler (the host's own seat under `localdurak host`) and a later one; seat 0
    # has no earlier stage to replay.
    [(a, c) for a in TABLE_ATTACKS for c in (0, 2) if (a, c) != ("replayed proof", 0)],
)
def test_a_dishonest_stage_is_refused_at_once_naming_its_shuffler(
    attack: str, cheater: int, defer: bool
) -> None:
    tamper = cheat(cheater, TABLE_ATTACKS[attack])
    tab = table(4, 24, seed=2, tamper=tamper, defer_verification=defer)
    tamper.holder.append(tab)  # type: ignore[attr-defined]
    blamed = run_collecting(tab)
    # Everybody who raised named the cheater, and only the cheater.
    assert blamed and set(blamed.values()) == {cheater}, blamed
    assert cheater not in blamed
    if not defer or attack == "duplicated slot":
        # The host refused it (a duplicate costs nothing to see): nobody else ever saw it.
        assert blamed == {-1: cheater}
    else:
        # Relayed unchecked: the host refused it in its checks beside the relaying, and so
        # did every honest seat but the next shuffler, which proves its own stage first and
        # checks this one when the host relays that (the host has stopped by then).
        assert set(blamed) == {-1} | {s for s in range(4) if s not in (cheater, cheater + 1)}
    # Nothing dealt: no seed was relayed, no layer removed.
    assert tab.host.t.final_deck is None
    assert not any(isinstance(m, Seed | Strip) for m in tab.host.t.log)
    # The audit names the cheater alone, from the stage it signed.
    tab.queue.clear()
    tab.reveal()
    report = audit(tab.record())
    assert report.guilty == (cheater,), report.faults
    why = "a card twice" if attack == "duplicated slot" else "proof of shuffle"
    assert any(f.seat == cheater and why in f.what for f in report.faults)


def test_an_honest_game_has_every_stage_proven_in_its_record() -> None:
    tab = table(4, 24, seed=3)
    tab.start()
    t = tab.host.t
    assert len(t.shuffle_proofs) == 4 and t.shuffles_verified == {0, 1, 2, 3}
    for p in tab.players:
        assert p.t.shuffles_verified == {0, 1, 2, 3}
    tab.reveal()
    record = tab.record()
    assert record["privacy"]["format"] == "localdurak-privacy/3"
    stages = [m for m in record["privacy"]["log"] if m["kind"] == "shuffle"]
    assert all(len(bytes.fromhex(m["shuffle_proof"])) == proof_size(24) for m in stages)
    assert audit(record).clean


def test_a_game_proven_with_first_version_proofs_still_audits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A game played before the links were proven as one combination: live every seat and the
    # host check its stages, its record audits clean, and a dishonest stage in it is named.
    monkeypatch.setattr(roles, "shuffle_prove", shuffle_prove_v1)
    tab = table(4, 24, seed=3)
    tab.start()
    tab.reveal()
    record = tab.record()
    stages = [m for m in record["privacy"]["log"] if m["kind"] == "shuffle"]
    assert all(len(bytes.fromhex(m["shuffle_proof"])) == proof_size_v1(24) for m in stages)
    assert audit(record).clean
    tamper = cheat(2, with_deck(_copy))
    tab = table(4, 24, seed=2, tamper=tamper)
    tamper.holder.append(tab)  # type: ignore[attr-defined]
    assert run_collecting(tab) == {-1: 2}
    tab.queue.clear()
    tab.reveal()
    assert audit(tab.record()).guilty == (2,)


def test_a_withheld_key_no_longer_hides_a_dishonest_stage() -> None:
    # The cheater keeps its key: the audit still names it, from its own proof.
    tamper = cheat(1, with_deck(_copy))
    tab = table(3, 24, seed=4, tamper=tamper)
    tamper.holder.append(tab)  # type: ignore[attr-defined]
    with pytest.raises(RemoteProtocolError):
        tab.start()
    tab.queue.clear()
    for p in (tab.players[0], tab.players[2]):
        tab.to_host(p.seat, [p.reveal()])
    tab.run()
    report = audit(tab.record())
    assert any(f.seat == 1 and "proof of shuffle" in f.what for f in report.faults)
    assert 0 not in report.guilty and 2 not in report.guilty
