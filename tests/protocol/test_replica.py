"""The host's authority and the seats' replicas joined in memory: whole games under card
privacy, each seat's engine fed only its own view, every relayed step signed and checked."""

from __future__ import annotations

import copy
import dataclasses
import os
from typing import Any

import pytest

from localdurak.game.actions import Action, Do
from localdurak.game.cards import deck_cards
from localdurak.game.rules import Rules
from localdurak.protocol.errors import AuthFailed, IllegalMove, NotYourTurn, Replayed
from localdurak.protocol.messages import PrivacyEvent
from localdurak.protocol.privacy.audit import audit
from localdurak.protocol.privacy.record import transcript_to_dict
from localdurak.protocol.table.seat import SeatGame
from tests.support.net_play import MemoryGame


@pytest.mark.parametrize(
    ("n", "opts"),
    [
        (2, {"deck": 24}),
        (3, {"variant": "perevodnoy", "trump_show": True}),
        (4, {"teams": "2v2", "japanese": True}),
        (3, {"variant": "duren"}),
        (6, {}),  # R-D3: the dealer's last card is shown
        (3, {"variant": "duren", "partial_defence": True}),  # R-P5: only uncovered are taken
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
    signed = seat.sign([bad])
    with pytest.raises(NotYourTurn):
        g.host.receive(defender, signed.command(0))
    # Told of the refusal, the seat stops waiting for the step's echo (it would otherwise
    # keep it to the game's end: a refused action per race).
    assert seat.player.remembers(bad)
    seat.refused(signed.n)
    assert not seat.player.remembers(bad) and not seat.player.unechoed


def test_an_illegal_move_is_refused_with_its_rule() -> None:
    g = _game()
    game = g.host.game
    assert game is not None and game.attacker is not None
    att = g.seats[game.attacker]
    assert att.game is not None
    att.send_pass = att.sign([att.player.act({"seat": att.seat, "do": "pass"})])  # type: ignore[attr-defined]
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


def test_R_S3_a_challenged_cheat_goes_back_to_the_hand_and_can_be_played_again() -> None:
    for seed in range(60):
        g = MemoryGame(2, Rules(deck=24, cheating=True), seed=seed)
        g.deal()
        game = g.host.game
        assert game is not None and game.attacker is not None and game.defender is not None
        att, dfn = g.seats[game.attacker], g.seats[game.defender]
        view = att.view()
        assert view is not None and dfn.game is not None
        attack = next(a for a in view.legal if a.do is Do.ATTACK)
        g.send(att.seat, [att.act(attack)])
        g.pump()
        dview = dfn.view()
        assert dview is not None
        covers = {a.card for a in dview.legal if a.do is Do.COVER}
        cheats = [c for c in dfn.game.hand(dfn.seat) if c not in covers]
        if not cheats:
            continue
        cheat = Action(dfn.seat, Do.COVER, card=cheats[0], on=attack.cards[0])
        g.send(dfn.seat, [dfn.act(cheat)])  # R-S1: a cover that does not beat
        g.pump()
        g.send(att.seat, [att.act(Action(att.seat, Do.CHALLENGE, card=cheats[0]))])
        g.pump()
        assert game.marked == [dfn.seat]  # R-S3: the cheater is marked
        # Back in his hand, public there, on every party's books alike.
        assert cheats[0] in dfn.game.hand(dfn.seat)
        assert all(p.player.t.taken.get(cheats[0]) == dfn.seat for p in g.seats)
        assert g.host.privacy.t.taken.get(cheats[0]) == dfn.seat
        dfn.player.play(cheats[0], {"probe": 1})  # a proof of holding it can be made
        g.play_out()
        assert audit(g.record()).clean
        return
    raise AssertionError("no deal gave the defender a cheat to play")


def _attack_relayed(g: MemoryGame) -> tuple[SeatGame, Action, PrivacyEvent]:
    """The attacker opens with the first attack its view allows, through the host: the
    attacker, its action and the step as relayed."""
    game = g.host.game
    assert game is not None and game.attacker is not None
    att = g.seats[game.attacker]
    view = att.view()
    assert view is not None
    action = next(a for a in view.legal if a.do is Do.ATTACK)
    signed = att.act(action)
    g.send(att.seat, [signed])
    g.pump()
    relayed = g.events[-1]
    assert relayed.seat == att.seat and relayed.n == signed.n
    return att, action, relayed


def test_a_host_that_forges_alters_or_replays_a_relayed_step_is_caught_by_the_seats() -> None:
    """privacy.md promise 5: the host orders, it does not forge."""
    g = MemoryGame(3, Rules(deck=24), seed=11)
    g.deal()
    att, action, relayed = _attack_relayed(g)
    witness = next(p for p in g.seats if p.seat != att.seat)
    # Altered: another card in the same signed body.
    body = [dict(m) for m in relayed.body]
    # (a card other than the one played: the same card would be a replay, not an alteration)
    altered = "AS" if [str(c) for c in action.cards] != ["AS"] else "KS"
    body[0]["action"] = {**body[0]["action"], "cards": [altered]}
    with pytest.raises(AuthFailed):
        witness.receive(dataclasses.replace(relayed, seq=relayed.seq + 1, body=body))
    # Forged: in another seat's name.
    other = next(s for s in range(3) if s not in (att.seat, witness.seat))
    with pytest.raises(AuthFailed):
        witness.receive(dataclasses.replace(relayed, seq=relayed.seq + 1, seat=other))
    # Replayed: the same step again.
    with pytest.raises(Replayed):
        witness.receive(dataclasses.replace(relayed, seq=relayed.seq + 1))


def _attack_once(g: MemoryGame) -> int:
    """The attacker opens with the first attack its view allows; returns the defender."""
    game = g.host.game
    assert game is not None and game.attacker is not None and game.defender is not None
    att = g.seats[game.attacker]
    view = att.view()
    assert view is not None
    g.send(att.seat, [att.act(next(a for a in view.legal if a.do is Do.ATTACK))])
    g.pump()
    return game.defender


def test_a_bad_game_key_proof_on_an_act_is_refused_by_the_host_and_left_to_the_audit_by_seats() -> (
    None
):
    """An act's Schnorr proof only says who acted.  The host checks it (the record keeps the
    transcript without identity signatures: its audit could not tell a seat's bad proof from a
    host's forgery); a seat, which has just checked the identity signature, leaves it to its
    own audit (`Transcript.accept`, ``signed``) instead of repeating it on its path to the
    screen."""
    g = MemoryGame(2, Rules(deck=24), seed=7)
    g.deal()
    defender = _attack_once(g)
    seat = g.seats[defender]
    take = seat.player.act({"seat": defender, "do": "take"})
    bad = dataclasses.replace(take, proof=bytes(64))
    seat.player._sent[-1] = bad  # a client that made it so
    signed = seat.sign([bad])
    with pytest.raises(IllegalMove, match="not signed by its key"):
        g.host.receive(defender, signed.command(0))
    # A careless host relays it anyway: the seats take the act (its signature is good) ...
    witness = g.seats[1 - defender]
    witness.receive(signed.relayed(g.seq + 1, defender))
    assert witness.game is not None and witness.game.phase == "taking"
    # ... and their own audit of what they saw does not let it pass.
    report = audit({"privacy": transcript_to_dict(witness.setup, witness.player.t.log, [])})
    assert not report.clean
    assert any("not signed by its key" in f.what for f in report.faults), report.faults


def test_a_signed_play_of_a_card_the_seat_was_not_dealt_is_refused_by_host_and_seats() -> None:
    """A card's proof is checked whatever the signature says: a seat cannot play a card it
    was not dealt, even with a colluding host relaying it."""
    g = MemoryGame(3, Rules(deck=24), seed=11)
    g.deal()
    game = g.host.game
    assert game is not None and game.attacker is not None
    att = g.seats[game.attacker]
    assert att.game is not None
    own = att.game.hand(att.seat)
    real = own[0]
    witness = next(p for p in g.seats if p.seat != att.seat)
    assert witness.game is not None
    # A card the witness cannot tell is elsewhere (not its own, not the turned trump, not one
    # the attacker said "not me" for, R-F1): only the card's proof can catch it.
    assert witness.game.stock_count and witness.game.trump_card is not None
    known = [*own, *witness.game.hand(witness.seat), witness.game.trump_card]
    t = witness.player.t
    fake = next(
        c for c in deck_cards(24) if c not in known and not t.claimed_not_to_hold(att.seat, c)
    )
    play = att.player.play(real, {"seat": att.seat, "do": "attack", "cards": [str(fake)]})
    forged = dataclasses.replace(play, card=int(fake))
    att.player._sent[-1] = forged
    signed = att.sign([forged])
    # (The host's engine may know already that the card is elsewhere, R-S1: the turned
    # trump; its card-privacy check says so otherwise.)
    with pytest.raises(IllegalMove, match=r"wrong proof|does not hold"):
        g.host.receive(att.seat, signed.command(0))
    later = copy.deepcopy(witness)
    relayed = signed.relayed(g.seq + 1, att.seat)
    with pytest.raises(IllegalMove, match="wrong proof"):
        witness.receive(relayed)
    # A client shows the play first (``defer``) and checks the card's proof at the table's
    # next quiet moment: the same refusal, naming the same seat, a moment later.
    later.receive(relayed, defer=True)
    assert later.unverified_waiting()
    with pytest.raises(IllegalMove, match=rf"seat {att.seat}: played .* wrong proof"):
        while later.verify_ahead():
            pass


def test_a_seat_checks_other_hands_deals_ahead_of_their_plays_one_strip_at_a_time() -> None:
    """`SeatGame.verify_ahead`: what a play from another hand would have checked at once (its
    chunk's strips after our own) is checked while the table is quiet, a strip per call."""
    g = MemoryGame(4, Rules(deck=36), seed=5)
    g.deal()
    total = 0
    for p in g.seats:
        t = p.player.t
        todo = [
            (chunk.key, d)
            for batch in t.schedule.batches
            for chunk in batch
            if t.complete(chunk)
            for d in range(len(chunk.route))
            if (chunk.key, d) not in t.verified
        ]
        total += len(todo)
        calls = 1
        while p.verify_ahead():
            calls += 1
        assert calls == max(1, len(todo))
        assert t.next_unverified() is None
        assert all(k in t.verified for k in todo)
    assert total > 0, "every strip was checked at the deal already"


def _unverified_somewhere(g: MemoryGame) -> SeatGame:
    for p in g.seats:
        if p.player.t.next_unverified() is not None:
            return p
    raise AssertionError("no seat has a strip to check ahead")


def test_a_bad_strip_found_ahead_names_its_seat() -> None:
    g = MemoryGame(4, Rules(deck=36), seed=5)
    g.deal()
    p = _unverified_somewhere(g)
    t = p.player.t
    item = t.next_unverified()
    assert item is not None
    chunk, d = item
    stripper = chunk.route[d]
    stage = list(t.stages[chunk.key][d + 1])
    stage[0], stage[-1] = stage[-1], stage[0]  # a removal that does not match its proof
    if stage[0] == stage[-1]:
        stage[0] = t.stages[chunk.key][d][0]
    t.stages[chunk.key][d + 1] = tuple(stage)
    with pytest.raises(IllegalMove, match=f"seat {stripper}"):
        while p.verify_ahead():
            pass


def test_the_host_verifies_deferred_strips_a_step_at_a_time() -> None:
    g = MemoryGame(3, Rules(deck=24), seed=5)
    for p in g.seats:
        g.send(p.seat, p.start())
    g.pump()
    h = g.host
    assert h.idle_work
    before = h.privacy.pending
    # The relayed shuffle stages first, checked as one step (one combination of the three);
    # then the strips, one a step.
    assert h.verify_idle(limit=1) is None
    assert h.privacy.pending == before - 3
    assert h.verify_idle(limit=1) is None
    assert h.privacy.pending == before - 4
    assert h.verify_idle() is None
    assert not h.idle_work


def test_nobody_plays_before_every_hand_of_the_deal_is_complete() -> None:
    """A seat whose hand was complete could open while another hand was still on its ring
    pass (a slow player's strip); the seat still waiting had no engine yet, refused the play
    and never played again (found by the load soak once the host stopped stalling after each
    deal).  The host refuses a game step until the whole deal is in, and no bot tries.  The
    slow strip is made here by taking the last strip of one hand off a copy."""
    g = MemoryGame(3, Rules(deck=24), seed=4)
    g.deal()
    game = g.host.game
    assert game is not None and game.attacker is not None
    att = g.seats[game.attacker]
    view = att.view()
    assert view is not None and att.hand_complete()
    action = next(a for a in view.legal if a.do is Do.ATTACK)
    other = next(s for s in range(3) if s != att.seat)

    def lagging(t: Any) -> None:
        chunk = t.schedule.chunk(0, other)
        t.stages[chunk.key].pop()
        assert not t.deal_complete()

    host = copy.deepcopy(g.host)
    lagging(host.privacy.t)
    seat = copy.deepcopy(att)
    lagging(seat.player.t)
    assert not seat.hand_complete()  # its bot waits
    with pytest.raises(NotYourTurn, match="still being dealt"):
        host.receive(att.seat, seat.act(action).command(0))
    # The real table, whole: the play goes on.
    g.send(att.seat, [att.act(action)])
    g.pump()
    g.play_out()
    assert audit(g.record()).clean


def test_a_seat_restored_from_a_save_before_its_action_adopts_it_from_the_host() -> None:
    """A client saves after a game action at a quiet moment (`SAVE_LATER_S`), so
    a crash may lose its memory of an action the host relayed.  Restored, it learns the action
    from the host's replay: signed by its own key, checked like another seat's, its hand and
    its counters move on, and the game plays out with a clean audit.  A step in its name that
    its key did not sign is refused."""
    g = MemoryGame(3, Rules(deck=24), seed=5)
    g.deal()
    game = g.host.game
    assert game is not None and game.attacker is not None
    saved = g.seats[game.attacker].freeze()
    att, action, relayed = _attack_relayed(g)

    forged = SeatGame.thaw(saved, g.keys[att.seat], os.urandom)
    with pytest.raises(AuthFailed):
        forged.receive(dataclasses.replace(relayed, sig=bytes(64)))

    restored = SeatGame.thaw(saved, g.keys[att.seat], os.urandom)
    assert all(c in restored.player.cards() for c in action.cards)
    restored.receive(relayed)
    assert not any(c in restored.player.cards() for c in action.cards)
    assert restored.view() == att.view()
    g.seats[att.seat] = restored
    g.play_out()
    assert g.host.game.result is not None
    assert all(p.result() == g.host.game.result for p in g.seats)
    report = audit(g.record())
    assert report.clean, report.faults


def test_a_client_checks_every_deferred_card_proof_before_the_game_ends_for_it() -> None:
    """Played cards' proofs wait for quiet moments (`SeatGame.receive` with ``defer``), but
    none is left unchecked: the seat checks what is left before it reveals its key."""
    g = MemoryGame(3, Rules(deck=24), seed=4, defer=True)
    g.deal()
    g.play_out()
    assert g.most_deferred > 0
    assert all(p.revealed and not p.player.t.deferred_plays for p in g.seats)
    report = audit(g.record())
    assert report.clean, report.faults
