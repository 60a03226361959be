"""What a seat's identity signature costs per step (docs/privacy.md "The order of a seat's
steps"): the signed payload's size, a relayed ``privacy_event`` frame's size, and the time to
build the payload, sign it and verify it, for a typical one-card play.

    python benchmarks/signing.py          # best of 5 runs of 4000 steps

``PYTHONPATH=another/checkout python benchmarks/signing.py`` measures that checkout's code (one
whose steps do not sign ``seen`` is measured without it), to compare.
"""

from __future__ import annotations

import inspect
import os
import sys
import time
from pathlib import Path

if not os.environ.get("PYTHONPATH"):  # else the checkout it names is measured
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from localdurak.net.identity import EphemeralKey
from localdurak.protocol import signing
from localdurak.protocol.connection import encoded_frame
from localdurak.protocol.messages import PrivacyEvent

STEPS = 4000
RUNS = 5


def main() -> int:
    key = EphemeralKey()
    game = os.urandom(32)
    body = [
        {
            "kind": "play",
            "seat": 1,
            "index": 7,
            "position": 17,
            "card": 23,
            "shown": False,
            "action": {"seat": 1, "do": "cover", "card": "TS", "on": "6S"},
            "proof": os.urandom(96),
        }
    ]
    has_seen = "seen" in inspect.signature(signing.action_payload).parameters
    kw = {"seen": 137} if has_seen else {}
    payload = signing.action_payload(game, 1, 41, "play", body, **kw)
    sig = key.sign(payload)
    frame = encoded_frame(
        PrivacyEvent(seq=999, game=game, seat=1, n=41, step="play", body=body, sig=sig, **kw)
    )
    best = float("inf")
    for _ in range(RUNS):
        t = time.perf_counter()
        for _ in range(STEPS):
            p = signing.action_payload(game, 1, 41, "play", body, **kw)
            s = key.sign(p)
            signing.verify_action(
                key.public_key, s, game=game, seat=1, n=41, kind="play", body=body, **kw
            )
        best = min(best, (time.perf_counter() - t) / STEPS)
    print(
        f"signs seen: {has_seen}; payload {len(payload)} B; privacy_event frame {len(frame)} B; "
        f"payload + sign + verify {best * 1e6:.1f} us (best of {RUNS} x {STEPS})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
