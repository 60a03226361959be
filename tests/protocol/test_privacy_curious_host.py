"""A curious host: everything the host's machine receives in a whole game — the host role's
inbox and its own seat's — never identifies a card of another seat before that card is played
or shown (privacy.md promise 1)."""

from __future__ import annotations

import random

from localdurak.game.cards import Card
from localdurak.game.rules import Rules
from localdurak.protocol.privacy.cardpoints import CARD_POINTS
from localdurak.protocol.privacy.events import CardTurned, HandDealt, TrumpCardDrawn
from localdurak.protocol.privacy.group import GROUP
from localdurak.protocol.privacy.messages import Message
from localdurak.protocol.privacy.schedule import Setup
from tests.support.privacy_play import rngs
from tests.support.privacy_sim import MemoryTable, play_engine_game

CARD_OF = {p: i for i, p in enumerate(CARD_POINTS)}


def points_in(msg: Message) -> list[bytes]:
    out: list[bytes] = []
    for v in msg.to_dict().values():
        if isinstance(v, bytes) and len(v) == 32:
            out.append(v)
        elif isinstance(v, list):
            out += [x for x in v if isinstance(x, bytes) and len(x) == 32]
    return out


def test_curious_host_learns_no_other_hand_before_it_is_played() -> None:
    seen: list[tuple[int, Message]] = []

    def tap(direction: str, seat: int, msg: Message) -> None:
        if direction == "to_host" or seat == 0:  # the host role and the host's own seat
            seen.append((len(seen), msg))

    rules = Rules(variant="perevodnoy", deck=36, trump_show=True)
    tab = MemoryTable(Setup.from_rules(rules, 4, 3), rngs(4, 11), tap=tap)
    tab.start()
    play_engine_game(tab, rules, random.Random(11))
    tab.reveal()

    # What the host's machine legitimately knows: its own cards, the turned trump card.
    own: set[int] = set()
    public: set[int] = set()
    for e in tab.events[0]:
        if isinstance(e, HandDealt):
            own |= set(e.cards)
        elif isinstance(e, CardTurned | TrumpCardDrawn):
            public.add(e.card)
    k0 = tab.players[0].secret
    k0inv = GROUP.scalar_invert(k0)
    keys_seen = False
    checked = 0
    for _, msg in seen:
        kind = msg.KIND
        if kind == "key":
            keys_seen = True  # from here on everything is public by design (the audit)
        if keys_seen:
            break
        if kind in ("play", "answer") and getattr(msg, "card", -1) >= 0:
            public.add(Card(msg.card))  # played or shown: public from this message on
        if msg.seat == 0:
            continue  # what the host's own seat computed it knows anyway (its own shuffle)
        for point in points_in(msg):
            if kind in ("commit", "nonce", "seed"):
                continue  # a public key, a nonce, a seed: not card values
            # The host may strip its own layer (or not) and compare with the card table.
            for candidate in (point, GROUP.mul(k0inv, point)):
                card = CARD_OF.get(candidate)
                if card is not None:
                    assert card in own or card in public, f"host identified {Card(card)} early"
            checked += 1
    assert checked > 300  # every shuffle stage and layer removal of the game
    # And no message before the reveal carries another seat's secret key.
    secrets = {p.secret for p in tab.players[1:]}
    for _, msg in seen:
        if msg.KIND == "key":
            break
        assert not any(v in secrets for v in msg.to_dict().values() if isinstance(v, bytes))
