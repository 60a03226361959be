"""What the audit says (privacy/audit.py): its faults, who played, what it could not check."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...game.cards import Card


class NotARecord(ValueError):
    """The input is not a game record with a card-privacy transcript."""


@dataclass(frozen=True, slots=True)
class AuditFault:
    seat: int | None
    """The seat that broke the protocol (None: the host or the record itself)."""
    what: str

    def __str__(self) -> str:
        who = f"seat {self.seat}" if self.seat is not None else "the host/record"
        return f"{who}: {self.what}"


@dataclass(frozen=True, slots=True)
class AuditedSeat:
    """Who played a seat, as the record's identity section says and the seat's signatures
    prove: its name and its device identity key's fingerprint (`signing.key_fingerprint`)."""

    seat: int
    name: str
    fingerprint: str

    def __str__(self) -> str:
        return f"seat {self.seat}: {self.name}, identity {self.fingerprint}"


@dataclass(frozen=True, slots=True)
class AuditReport:
    faults: tuple[AuditFault, ...] = ()
    deck: tuple[Card, ...] | None = None
    """The whole deck in deal order, decoded with the revealed keys (None if it could not be)."""
    checked: dict[str, int] = field(default_factory=dict)
    seats: tuple[AuditedSeat, ...] = ()
    """Who played (a /3 record); empty for a record that does not say."""
    unchecked: tuple[str, ...] = ()
    """What the audit could not check in this record, and why (an old format, the host's word
    on a forfeit)."""
    missing_keys: tuple[int, ...] = ()
    """Seats whose key is not in the record: reported, never a verdict on the seat."""

    @property
    def clean(self) -> bool:
        return not self.faults

    @property
    def guilty(self) -> tuple[int, ...]:
        return tuple(sorted({f.seat for f in self.faults if f.seat is not None}))
