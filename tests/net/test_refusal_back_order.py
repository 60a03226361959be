"""A resumed host takes the refusals its players give back only when the gathering ends,
after every lost step they gave back (docs/protocol.md §7, "Refusals given back"): a
"refusal" a cheater gives back under the counter of his own lost move, which the old host
accepted and an honest seat saw relayed, cannot undo that move."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any
from unittest import mock

from localdurak.game.actions import Action, Do
from localdurak.game.rules import Rules
from localdurak.net.host import TableHost
from localdurak.net.host_core import Phase
from localdurak.net.identity import load_or_create
from localdurak.protocol.signing import action_payload
from localdurak.protocol.table.common import Signed, body_of
from localdurak.protocol.table.host import REFUSALS_BACK, HostGame
from tests.protocol.test_attacks_refusal_back import (
    Logged,
    _advance_to_cheaters_move,
    cheaters_move_lost,
)
from tests.support.hosts import loopback

NAMES = ("Anna", "Boris")


def _resumed(tmp_path: Path, h2: HostGame, giving_back: set[int]) -> TableHost:
    """A table host resumed with ``h2``, gathering, ``giving_back`` giving back."""
    host = TableHost(load_or_create(tmp_path / "host"), loopback(tmp_path, name="Order", seats=2))
    host.game = h2
    host.phase = Phase.PLAYING
    host._gathering = True
    host._giving_back = set(giving_back)
    host._restoring = set(giving_back)
    return host


async def test_a_forged_refusal_under_a_lost_moves_counter_waits_for_the_lost_move(
    tmp_path: Path,
) -> None:
    with mock.patch("os.urandom", random.Random(31).randbytes):
        cheater, honest = 0, 1
        g, idx, lost, h2 = cheaters_move_lost(31)
        # Another step signed under the lost move's counter, given back as "refused".
        p = g.seats[cheater]
        body = body_of([p.player.act(Action(cheater, Do.TAKE).to_dict())])
        sig = g.keys[cheater].sign(
            action_payload(h2.bound, cheater, lost.n, "act", body, seen=lost.seen)
        )
        fake = Signed(lost.game, lost.n, "act", body, sig, lost.seen)
        assert fake.sig != lost.sig
        host = _resumed(tmp_path, h2, {cheater, honest})
        at = len(h2.privacy.t.log)
        # First in the gathering: held, not taken yet.
        host._command(cheater, None, dataclasses.replace(fake.command(1), refused=at))  # type: ignore[arg-type]
        assert h2.refusal(cheater, lost.n) is None
        # The honest seat gives back what it saw relayed: the lost move is taken.
        for seat, signed, _ in g.accepted[idx:]:
            host._command(honest, None, dataclasses.replace(signed.command(2), seat=seat))  # type: ignore[arg-type]
        assert (cheater, lost.n) in h2.received
        host._end_gathering()
        # The "refusal" under a counter the move claimed: ignored, the move stays.
        assert h2.refusal(cheater, lost.n) is None
        assert h2.received[(cheater, lost.n)] == lost.sig
        assert len(h2.privacy.t.log) == len(g.seats[honest].player.t.log)
        assert not host._restoring and not host._refusals_back


async def test_given_back_refusals_past_what_a_seat_keeps_are_ignored(tmp_path: Path) -> None:
    with mock.patch("os.urandom", random.Random(32).randbytes):
        g = Logged(2, Rules(deck=24), seed=32, names=NAMES)
        g.deal()
        for _ in range(3):
            assert g.step()
        cheater = 0
        _advance_to_cheaters_move(g, cheater)
        p = g.seats[cheater]
        msgs: list[Any] = [p.player.act(Action(cheater, Do.TAKE).to_dict())]
        h = g.host
        host = _resumed(tmp_path, h, {cheater})
        at = len(h.privacy.t.log)
        sent = []
        for k in range(3 * REFUSALS_BACK):
            s = p.sign(msgs)
            p.refused(s.n)
            sent.append(s.n)
            host._command(cheater, None, dataclasses.replace(s.command(k), refused=at))  # type: ignore[arg-type]
        assert len(host._refusals_back) == REFUSALS_BACK
        host._end_gathering()
        taken = [n for n in sent if h.refusal(cheater, n) is not None]
        assert taken == sent[:REFUSALS_BACK]
