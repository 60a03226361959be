"""What a resumed table takes back besides its event log (docs/sessions.md, "Recovery").

The host writes every game twice: the event log (``events.bin``, every event as a frame)
and the journal (JSON Lines: the privacy messages, and each signed step as
``privacy_signed``).  A resume rebuilds the table from the event log as far as its frames
read and check out; the journal gives the signed steps after that (`journal_commands`);
the players give back what both lost (the last frames before a power cut: they hold the
same signed steps, `Privacy.seat`).  Each step goes through the same checks as live, so
nothing that a seat did not sign comes back."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from localdurak.net.table_store import journal_steps
from localdurak.protocol.messages import Privacy, PrivacyEvent
from localdurak.protocol.privacy.messages import message_from_json
from localdurak.protocol.table.host import HostGame
from localdurak.protocol.table.seat import SeatGame

RESUME_GAP = 1_000_000
"""How far a resumed host's event numbers jump past the last event its log kept: past
anything the old host may have told before it stopped (the players' numbers of the lost
events fall in between, which tells the host a player saw what it lost)."""


def signed_item(step: dict[str, Any]) -> list[Any]:
    """One accepted signed step as a journal item (``privacy_signed``): seat, counter, step,
    signature (hex), the positions of its messages in the journal's ``privacy_log``, and how
    many messages its seat had seen (signed with it)."""
    return [
        step["seat"],
        step["n"],
        step["step"],
        step["sig"].hex(),
        list(step["at"]),
        step.get("seen", 0),
    ]


def journal_commands(journal: Path, g: HostGame) -> Iterator[tuple[int, Privacy]]:
    """The journal's signed steps after those ``g`` holds, as the commands their seats
    sent, in the host's order; it stops at the first one that does not read (the checks
    are the caller's: `HostGame.receive`)."""
    log, steps = journal_steps(journal)
    for item in steps:
        try:
            seat, n, step, sig, at, *more = item
            seen = more[0] if more else 0  # a journal written before steps signed it
            signature = bytes.fromhex(sig)
            if g.received.get((seat, n)) == signature:
                continue  # in the event log too
            body = [message_from_json(log[i]).to_dict() for i in at]
            cmd = Privacy(
                id=0, game=g.started.game, n=n, step=step, body=body, sig=signature, seen=seen
            )
        except (ValueError, TypeError, IndexError, KeyError, AttributeError):
            return
        if not isinstance(seat, int) or not 0 <= seat < g.seats:
            return
        yield seat, cmd


def relayed_before(g: SeatGame, event: PrivacyEvent, held: Iterable[PrivacyEvent]) -> bool:
    """Whether ``g`` took ``event``'s step already: a resumed host relays again what it
    rebuilt from its journal or got back from a player, and a seat ignores a step it has
    instead of taking it for a replay.  "Has": its seat's counter is at or past it, and the
    step the seat holds under that counter (``held``: the seat's last relayed steps, a
    client's ``_recent``, a bot's ``recent``) is this one: the same signature.  Another step
    under a counter taken (one its seat never signed, or a second one it signed under that
    counter) is no step the seat has: its own checks refuse it as a replay, as any broken
    relay, rather than take it silently for the one it holds (the seat's game and the host's
    record would then tell two different games).

    reading: a step the seat took before what it still holds is judged by its counter
    alone: it cannot be compared, and a resumed host relays again only what came lately
    (what its event log lost, a few steps; what a seat holds covers more)."""
    last = g.counters.last
    if not (0 <= event.seat < len(last) and last[event.seat] >= event.n):
        return False
    for h in held:
        if h.game == event.game and h.seat == event.seat and h.n == event.n:
            # The signature binds the step (its body, what its seat had seen): the same
            # signature is the same step (the bodies' forms may differ: a rebuilt step's
            # lists against a decoded one's, say).
            return h.sig == event.sig
    return True
