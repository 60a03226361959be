"""A small mDNS peer run inside a test network namespace (tests/support/netns.py).

    python tests/support/mdns_peer.py advertise --address A --name NAME --fingerprint FP [--probe P]
    python tests/support/mdns_peer.py browse --address A --timeout S [--wait-for NAME] [--go]

Prints one JSON object per line.  ``advertise`` reads commands on standard input
(``seats N``, ``playing``) and withdraws the table at end of input (``--then-seats N``: a seat
count changed the moment the table is registered, as when the host's own player sits down);
``browse`` prints the whole table list on every change, with `time.monotonic()` (the same clock
in every namespace of one machine), and exits after ``--timeout`` seconds with the last list
(``--go``: it starts browsing only on a line of standard input, so a test can open a lobby at a
chosen moment without waiting for Python to start).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time

from localdurak.net.discovery import Advertiser, Probe, TableAd, TableBrowser, TableStatus


def emit(**fields: object) -> None:
    print(json.dumps({"t": time.monotonic(), **fields}), flush=True)


async def advertise(args: argparse.Namespace) -> None:
    ad = TableAd(
        args.name,
        args.fingerprint,
        args.port,
        seats_taken=args.seats,
        seats_total=4,
        rules="podkidnoy 36",
    )
    emit(event="start")
    async with Advertiser(ad, addresses=[args.address], probe=Probe(args.probe)) as adv:
        emit(event="registered", instance=adv.instance, active=adv.active, problem=adv.problem)
        if args.then_seats is not None:
            await adv.update(seats_taken=args.then_seats)
            emit(event="updated", command=f"seats {args.then_seats}")
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            word, _, arg = line.strip().partition(" ")
            if word == "seats":
                await adv.update(seats_taken=int(arg))
            elif word == "playing":
                await adv.update(state=TableStatus.PLAYING)
            emit(event="updated", command=line.strip())
    emit(event="withdrawn")


async def browse(args: argparse.Namespace) -> None:
    emit(event="start")
    if args.go:
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    async with TableBrowser(interfaces=[args.address]) as browser:
        if args.wait_for:
            tables = await browser.wait_for(
                lambda ts: any(t.name == args.wait_for for t in ts), args.timeout
            )
            emit(event="found", tables=[t.to_json() for t in tables])
            return

        async def report() -> None:
            async for tables in browser.updates():
                emit(event="tables", tables=[t.to_json() for t in tables])

        task = asyncio.create_task(report())
        await asyncio.sleep(args.timeout)
        task.cancel()
        last = [t.to_json() for t in browser.tables]
    emit(event="done", tables=last)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("role", choices=["advertise", "browse"])
    p.add_argument("--address", required=True)
    p.add_argument("--name", default="Anna's table")
    p.add_argument("--fingerprint", default="3fa2" + "0" * 60)
    p.add_argument("--port", type=int, default=47823)
    p.add_argument("--seats", type=int, default=1, help="advertise: seats taken at first")
    p.add_argument("--then-seats", type=int, help="advertise: seats taken once registered")
    p.add_argument("--go", action="store_true", help="browse: start on a line of stdin")
    p.add_argument("--probe", default="quick", choices=[x.value for x in Probe])
    p.add_argument("--timeout", type=float, default=5.0)
    p.add_argument("--wait-for", default="", help="browse: exit once a table of this name is seen")
    args = p.parse_args()
    asyncio.run(advertise(args) if args.role == "advertise" else browse(args))


if __name__ == "__main__":
    main()
