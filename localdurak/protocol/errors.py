"""The protocol's errors: one root, `ProtocolError`.

* `LocalProtocolError` — we asked for something the protocol does not allow now (our own mistake).
* `RemoteProtocolError` — a peer broke the protocol; ``seat`` names the seat at fault.
"""

from __future__ import annotations


class ProtocolError(ValueError):
    """Base of the protocol's errors."""


class LocalProtocolError(ProtocolError):
    """We asked for something the protocol does not allow now (our own mistake)."""


class RemoteProtocolError(ProtocolError):
    """A peer broke the protocol.  ``seat`` is the seat at fault, None when the fault cannot be
    pinned on one seat before the keys are revealed (the audit then names it)."""

    def __init__(self, seat: int | None, reason: str) -> None:
        self.seat = seat
        self.reason = reason
        self.recorded = False
        """Set by the host once the refusal is in its transcript."""
        who = f"seat {seat}" if seat is not None else "someone (the audit will tell who)"
        super().__init__(f"{who}: {reason}")
