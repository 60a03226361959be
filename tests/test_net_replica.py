"""The host's authority and the seats' replicas joined in memory: whole games under card
privacy, each seat's engine fed only its own view, every relayed step signed and checked."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from localdurak.game.actions import Action, Do
from localdurak.game.rules import Rules
from localdurak.net.replica import SeatGame
from localdurak.protocol.codec import AuthFailed, IllegalMove, NotYourTurn, Replayed
from localdurak.protocol.privacy_audit import audit
from tests.net_play import MemoryGame


@pytest.mark.parametrize(
    ("n", "opts"),
    [
        (2, {"deck": 24}),
        (3, {"variant": "perevodnoy", "trump_show": True}),
        (4, {"teams": "2v2", "japanese": True}),
        (3, {"variant": "duren"}),
        (6, {}),  # R-D3: the dealer's last card is shown
    ],
)
def test_whole_game_in_memory_ends_alike_everywhere_and_audits_clean(
    n: int, opts: dict[str, Any]
) -> None:
    g = MemoryGame(n, Rules(**opts), seed=n)
    g.deal()
    assert g.host.game is not None
    assert all(p.game is not None and p.hand_complete() for p in g.seats)
    g.play_out()
    result = g.host.game.result
    assert result is not None
    assert all(p.result() == result for p in g.seats)
    assert all(p.keys_revealed for p in g.seats)
    report = audit(g.record())
    assert report.clean, report.faults


def _game() -> MemoryGame:
    g = MemoryGame(2, Rules(deck=24), seed=7)
    g.deal()
    return g


def test_an_action_out_of_turn_is_refused_for_its_sender() -> None:
    g = _game()
    assert g.host.game is not None
    defender = g.host.game.defender
    assert defender is not None
    seat = g.seats[defender]
    assert seat.game is not None
    card = seat.game.hand(defender)[0]
    # The defender's own engine refuses; force it past by asking the host directly.
    bad = seat.player.play(card, {"seat": defender, "do": "attack", "cards": [str(card)]})
    signed = seat._sign([bad])
    with pytest.raises(NotYourTurn):
        g.host.receive(defender, signed.command(0))


def test_an_illegal_move_is_refused_with_its_rule() -> None:
    g = _game()
    game = g.host.game
    assert game is not None and game.attacker is not None
    att = g.seats[game.attacker]
    assert att.game is not None
    att.send_pass = att._sign([att.player.act({"seat": att.seat, "do": "pass"})])  # type: ignore[attr-defined]
    with pytest.raises(IllegalMove) as e:
        g.host.receive(att.seat, att.send_pass.command(0))  # type: ignore[attr-defined]
    assert e.value.rule is not None and e.value.rule.startswith("R-")


def test_a_forged_or_replayed_step_is_refused() -> None:
    g = _game()
    game = g.host.game
    assert game is not None and game.attacker is not None
    att: SeatGame = g.seats[game.attacker]
    view = att.view()
    assert view is not None
    action = next(a for a in view.legal if a.do is Do.ATTACK)
    signed = att.act(action)
    forged = dataclasses.replace(signed, sig=bytes(64))
    with pytest.raises(AuthFailed):
        g.host.receive(att.seat, forged.command(0))
    other = g.seats[1 - att.seat]
    with pytest.raises(AuthFailed):
        g.host.receive(other.seat, signed.command(0))  # in another seat's name
    g.host.receive(att.seat, signed.command(0))
    assert g.host.duplicate(att.seat, signed.command(0))
    with pytest.raises(Replayed):
        g.host.receive(att.seat, signed.command(0))
    assert isinstance(action, Action)
