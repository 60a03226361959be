"""Security review of card privacy: the curious host, everything it sees.  The first curious-host
test skips the host's own messages and looks only at points; this one also reads every card
number any message carries — the host's own `Refill` (taken cards) and `Return` (R-S3) included —
in a cheating-mode game where challenged cheats do go back to hands, and every event of the
host's own seat: nothing names a card of another seat before it is played or shown."""

from __future__ import annotations

import random

from localdurak.game.cards import Card
from localdurak.game.rules import Rules
from localdurak.protocol.privacy.cardpoints import CARD_POINTS
from localdurak.protocol.privacy.events import (
    CardPlayed,
    CardTurned,
    FirstAttacker,
    HandDealt,
    TrumpCardDrawn,
)
from localdurak.protocol.privacy.group import GROUP
from localdurak.protocol.privacy.messages import Answer, Message, Play, Refill, Return
from localdurak.protocol.privacy.schedule import Setup
from tests.protocol.test_privacy_curious_host import points_in
from tests.support.privacy_play import rngs
from tests.support.privacy_sim import MemoryTable, play_engine_game

CARD_OF = {p: i for i, p in enumerate(CARD_POINTS)}


def test_review_curious_host_with_returns_sees_no_card_number_or_point_early() -> None:
    seen: list[Message] = []

    def tap(direction: str, seat: int, msg: Message) -> None:
        if direction == "to_host" or seat == 0:
            seen.append(msg)

    rules = Rules(variant="perevodnoy", deck=36, cheating=True)
    for seed in range(3, 12):
        seen.clear()
        tab = MemoryTable(Setup.from_rules(rules, 4, 3), rngs(4, seed), tap=tap)
        tab.start()
        play_engine_game(tab, rules, random.Random(seed))
        if any(isinstance(m, Return) for m in seen):
            break
    else:
        raise AssertionError("no game with a challenged cheat")

    k0inv = GROUP.scalar_invert(tab.players[0].secret)
    own: set[int] = set()
    public: set[int] = set()
    for e in tab.events[0]:
        if isinstance(e, HandDealt):
            own |= set(e.cards)
        elif isinstance(e, CardTurned | TrumpCardDrawn):
            public.add(e.card)

    def known(card: int) -> bool:
        return card in own or card in public

    numbers = 0
    for msg in seen:
        if msg.KIND == "key":
            break  # from here on everything is public by design (the audit)
        if isinstance(msg, Play | Answer) and msg.card >= 0:
            public.add(msg.card)  # played or shown by this very message (its proof checked)
            numbers += 1
        elif isinstance(msg, Refill):
            assert all(known(c) for c in msg.taken), "a refill named a card not yet public"
            numbers += len(msg.taken)
        elif isinstance(msg, Return):
            assert all(known(c) for c in msg.cards), "a return named a card not yet public"
            numbers += len(msg.cards)
        if msg.KIND in ("commit", "nonce", "seed"):
            continue
        for point in points_in(msg):
            for candidate in (point, GROUP.mul(k0inv, point)):
                card = CARD_OF.get(candidate)
                if card is not None and msg.seat != 0:
                    assert known(card), f"the host identified {Card(card)} early"
    assert numbers > 20

    # The host's own seat's events name only its cards and public ones.
    for e in tab.events[0]:
        if isinstance(e, FirstAttacker) and e.card is not None:
            assert e.card in own or e.card in public
        if isinstance(e, CardPlayed):
            assert e.card in public
