"""The start of a game: a step the host relays reaches the players before the host's own seats
work on it (docs/privacy.md, "Where a 6-process start's wall time goes").  A seat played in the
host's process checks each shuffle stage it is relayed (tens of milliseconds) and makes its own
stage, strips and seed from it; written only at the end of that loop turn, every relay of the
start waited for the host's seat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from localdurak.game.rules import Rules
from localdurak.net import transport
from localdurak.net.host_bots import HostBots
from localdurak.protocol.messages import PrivacyEvent
from localdurak.protocol.table.common import GAME_STEPS
from tests.support.hosts import host_with_guest, until_hand_decoded


async def test_the_start_s_steps_are_written_before_the_host_s_seats_take_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: set[int] = set()  # the relayed steps written to a player's connection
    write_now = transport.Channel.write_now

    def recording_write(self: transport.Channel, messages: list[Any]) -> int:
        written.update(x.seq for x in messages if isinstance(x, PrivacyEvent))
        return write_now(self, messages)

    fed: list[str] = []  # the start's steps the host's seats took, in order
    late: list[tuple[int, str]] = []  # ... and those not written to the player by then
    feed_all = HostBots.feed_all

    def recording_feed(self: HostBots, event: Any) -> None:
        if isinstance(event, PrivacyEvent) and event.step not in GAME_STEPS:
            fed.append(event.step)
            # (Once the guest has its hand it leaves: the public card's last strips have
            # nobody to go to.)
            there = [s.peer for s in host.seats if s.peer is not None and s.peer.synced]
            if any(not p.channel.closed for p in there) and event.seq not in written:
                late.append((event.seq, event.step))
        feed_all(self, event)

    monkeypatch.setattr(transport.Channel, "write_now", recording_write)
    monkeypatch.setattr(HostBots, "feed_all", recording_feed)
    async with host_with_guest(
        tmp_path, name="Start", seats=2, bots=1, bot_level="random", rules=Rules(deck=24)
    ) as (host, guest):
        await guest.set_ready(True)
        await until_hand_decoded(guest)
    # Both seats' nonces, commitments, stages and seeds, and the deal's strips.
    assert {"nonce", "commit", "shuffle", "seed", "strip"} <= set(fed), fed
    assert fed.count("shuffle") == 2, fed
    assert late == [], late
