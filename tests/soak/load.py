"""Suite 3, load: idle and slow connections beside a 6-player game.

The headless host (a process, loopback, advertising off) with five bots of its own; a
`ClientSession` in this process plays the sixth seat with a random bot and times each of its
actions (sent -> the host's ack: the signature, proofs and rules checked, the step relayed
and journalled).  First ``games`` whole games on a quiet host; then a second process opens
``idle`` hostile connections and keeps them open (re-opened whenever the host drops one):

- half-open: a TCP connection that never starts TLS;
- idle: TLS done, then nothing (no ``hello``);
- slow-loris: TLS done, then a ``hello`` frame one byte every second;

and ``games`` more whole games are timed.  Meanwhile a prober opens a fresh TLS connection
every half second and sends a ``hello``: the host must answer with its ``welcome`` (the table
keeps answering newcomers).

Whole games per phase, because the host stalls twice per game, for seconds with six players
on a busy machine: after the deal it verifies the deferred strip proofs
(`HostGame.verify_idle`) and at the end it audits the game (`TableStore.write_record`), both
on its event loop.  Actions over a second are listed with their game."""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from localdurak.net import transport as tr
from localdurak.net.client import Address, ClientSession, play_as_bot
from localdurak.net.identity import load_or_create
from localdurak.protocol import messages as m
from localdurak.protocol.codec import encode_frame
from tests.soak.common import percentile
from tests.support.procs import REPO, Proc, env_for, localdurak

PROBE_TIMEOUT = 30.0
"""A newcomer waits this long for the host's welcome before it counts as unanswered."""
HELLO = encode_frame(m.message_to_wire(m.Hello(features=(), software="load")))


async def _attacker(port: int, kind: str, stop: float, opened: list[int]) -> None:
    while time.monotonic() < stop:
        try:
            if kind == "half-open":
                r, w = await asyncio.open_connection("127.0.0.1", port)
            else:
                r, w = await asyncio.open_connection("127.0.0.1", port, ssl=tr.client_context())
            opened[0] += 1
            if kind == "slow-loris":
                for b in HELLO[:-1]:
                    if time.monotonic() > stop:
                        break
                    w.write(bytes([b]))
                    await w.drain()
                    await asyncio.sleep(1.0)
            # Wait for the host to hang up (or the end).
            with contextlib.suppress(Exception):
                await asyncio.wait_for(r.read(), max(0.1, stop - time.monotonic()))
            w.close()
        except (ConnectionError, OSError, TimeoutError):
            await asyncio.sleep(0.2)


async def attack(port: int, count: int, seconds: float) -> None:
    """``count`` hostile connections for ``seconds``: a third each of the three kinds."""
    stop = time.monotonic() + seconds
    kinds = ["half-open", "idle", "slow-loris"]
    opened = [0]
    await asyncio.gather(*(_attacker(port, kinds[i % 3], stop, opened) for i in range(count)))
    print(opened[0], flush=True)


async def _probe(port: int, stop: asyncio.Event, answered: list[float], failed: list[str]) -> None:
    while not stop.is_set():
        t = time.perf_counter()
        try:
            r, w = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, ssl=tr.client_context()), PROBE_TIMEOUT
            )
            w.write(HELLO)
            head = await asyncio.wait_for(r.readexactly(4), PROBE_TIMEOUT)
            body = await asyncio.wait_for(r.readexactly(int.from_bytes(head, "big")), 5)
            if b"welcome" in body:
                answered.append(time.perf_counter() - t)
            else:
                failed.append(repr(body[:60]))
            w.close()
        except (ConnectionError, OSError, TimeoutError, asyncio.IncompleteReadError) as e:
            failed.append(repr(e))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


async def run_load(
    tmp: Path, *, idle: int, games: int, deck: int = 36, seed: int = 1
) -> dict[str, Any]:
    host = Proc(
        localdurak(
            "host",
            "--headless",
            "--name",
            "Load",
            "--port",
            "0",
            "--no-advertise",
            "--seats",
            "6",
            "--bots",
            "5",
            "--level",
            "random",
            "--games",
            "1000",
            "--deck",
            str(deck),
            "--record-dir",
            str(tmp / "records"),
        ),
        env_for(tmp / "host", LOCALDURAK_NO_MDNS="1"),
        "host",
    )
    attacker: subprocess.Popen[str] | None = None
    session: ClientSession | None = None
    # Whole games per phase, so that each phase has the same share of deals and game ends.
    quiet: list[float] = []
    loaded: list[float] = []
    loaded_from = [10**9]
    slow: list[tuple[float, int]] = []
    answered: list[float] = []
    failed: list[str] = []
    stop_probe = asyncio.Event()
    try:
        listening = await asyncio.to_thread(host.event, "listening")
        port = listening["port"]
        session = ClientSession(
            load_or_create(tmp / "me"),
            "me",
            Address("127.0.0.1", port, listening["fingerprint"]),
            state_dir=tmp / "me" / "sessions",
        )
        act = session.act

        async def timed(action: Any) -> None:
            assert session is not None
            game = len(session.results)
            t = time.perf_counter()
            await act(action)
            took = time.perf_counter() - t
            if took > 1.0:
                slow.append((round(took, 2), game))
            if game < games:
                quiet.append(took)
            elif loaded_from[0] <= game < loaded_from[0] + games:
                loaded.append(took)

        session.act = timed  # type: ignore[method-assign]
        await session.start()
        bot = asyncio.create_task(
            play_as_bot(session, "random", rng=random.Random(seed), delay=0.02)
        )
        while len(session.results) < games:
            await asyncio.wait_for(session.wait_changed(), 300)
        # The load: hostile connections from another process, the prober from this one.
        attacker = subprocess.Popen(
            [sys.executable, "-m", "tests.soak.load", str(port), str(idle), "3600"],
            cwd=REPO,
            env=env_for(tmp / "attacker"),
            stdout=subprocess.PIPE,
            text=True,
        )
        await asyncio.sleep(3.0)  # every hostile connection open
        # The game under way while they opened counts for neither phase.
        loaded_from[0] = len(session.results) + 1
        probe = asyncio.create_task(_probe(port, stop_probe, answered, failed))
        while len(session.results) < loaded_from[0] + games:
            await asyncio.wait_for(session.wait_changed(), 300)
        stop_probe.set()
        await probe
        bot.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await bot
    finally:
        if attacker is not None:
            attacker.kill()
            attacker.wait(10)
        if session is not None:
            await session.close()
        host.kill()
    quiet_p99 = percentile(quiet, 99)
    return {
        "idle_connections": idle,
        "games_per_phase": games,
        "deck": deck,
        "actions_timed_quiet": len(quiet),
        "actions_timed_loaded": len(loaded),
        "quiet_p50_ms": round(percentile(quiet, 50) * 1000, 1),
        "quiet_p99_ms": round(quiet_p99 * 1000, 1),
        "loaded_p50_ms": round(percentile(loaded, 50) * 1000, 1),
        "loaded_p99_ms": round(percentile(loaded, 99) * 1000, 1),
        "p99_ratio": round(percentile(loaded, 99) / quiet_p99, 2),
        "p50_ratio": round(percentile(loaded, 50) / percentile(quiet, 50), 2),
        "actions_over_1s_game": slow,
        "probes_answered": len(answered),
        "probes_failed": failed,
        "probe_p50_ms": round(percentile(answered, 50) * 1000, 1) if answered else None,
        "probe_max_ms": round(max(answered) * 1000, 1) if answered else None,
    }


if __name__ == "__main__":
    asyncio.run(attack(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])))
