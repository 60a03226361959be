"""The last guard of privacy.md "Blame goes to the cheater": a seat whose own hand does not decode
to cards proves what it saw — a DLEQ that the position's value is k·(what it decoded) under its
committed key — without revealing its key, so nobody can blame it for reporting it.  (With every
stage's proof of shuffle and every layer removal's proof checked before decoding, this cannot
happen in a game; the test makes the transcript say it.)"""

from __future__ import annotations

import pytest

from localdurak.protocol.privacy.group import GROUP
from localdurak.protocol.privacy.transcript import BadDecode, check_bad_decode
from tests.support.privacy_play import table


def test_a_bad_decode_is_proven_by_the_seat_that_saw_it() -> None:
    tab = table(3, 24, seed=6)
    tab.start()
    p = tab.players[1]
    t = p.t
    chunk = t.schedule.chunk(0, 1)
    assert chunk is not None
    q = chunk.positions[0]
    stranger = GROUP.hash_to_group(b"not a card", b"")
    stage = list(t.stages[chunk.key][-1])
    stage[0] = GROUP.mul(p.secret, stranger)  # what a dishonest chain would have left there
    t.stages[chunk.key][-1] = tuple(stage)
    for d in range(len(chunk.route)):
        t.mark_verified(chunk, d)
    p.hand.clear()
    with pytest.raises(BadDecode) as e:
        p._decode(chunk)
    bad = e.value
    assert bad.seat is None and bad.position == q and bad.value == stranger
    assert check_bad_decode(t, 1, q, bad.value, bad.proof)
    # Not another seat's, not a card, not another proof.
    assert not check_bad_decode(t, 2, q, bad.value, bad.proof)
    real = GROUP.mul(p.secret_inverse, t.stages[chunk.key][-1][1])
    assert not check_bad_decode(t, 1, chunk.positions[1], real, bad.proof)
    assert not check_bad_decode(t, 1, q, bad.value, bytes(64))
