"""A broken connection's message always has a reason (once it said "the connection
broke while sending:" ended with an empty one)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from localdurak.net.transport import Channel, ConnectionClosed
from localdurak.protocol.connection import Role
from localdurak.protocol.messages import Ping


class _Writer:
    def get_extra_info(self, name: str) -> Any:
        return None

    def write(self, data: bytes) -> None:
        pass

    async def drain(self) -> None:
        raise ConnectionResetError()  # what the loop raises: no text at all

    def close(self) -> None:
        pass

    async def wait_closed(self) -> None:
        pass

    def is_closing(self) -> bool:
        return True

    transport = None


async def test_a_bare_reset_still_says_why() -> None:
    channel = Channel(asyncio.StreamReader(), _Writer(), Role.CLIENT)  # type: ignore[arg-type]
    with pytest.raises(ConnectionClosed) as broke:
        await channel.send(Ping(nonce=1))
    text = str(broke.value)
    assert text.startswith("the connection broke while sending: ")
    assert text.removeprefix("the connection broke while sending: ").strip()
