"""Hosts this device has played with (lan.md "remembers hosts it has played with").

A small JSON file in the data directory (0600): fingerprint → table name, the addresses it
was reached at, when it was last seen, and whether a person confirmed the pairing code.
A client that joins by ``--address`` without a fingerprint pins the one remembered for that
address, and warns loudly when a known table's name now comes with another fingerprint.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from localdurak.net.identity import data_dir, normalize_fingerprint

FILE: Final = "known_hosts.json"
MAX_ADDRESSES: Final = 8


@dataclass
class KnownHost:
    fingerprint: str
    name: str
    addresses: list[str] = field(default_factory=list)
    last_seen: float = 0.0
    confirmed: bool = False
    """A person compared the pairing code on both screens."""


class KnownHosts:
    def __init__(self, path: Path, hosts: dict[str, KnownHost] | None = None) -> None:
        self.path = path
        self.hosts: dict[str, KnownHost] = hosts or {}

    @classmethod
    def load(cls, directory: Path | None = None) -> KnownHosts:
        """The file in ``directory`` (default: the data directory); a missing or damaged
        file is an empty list, never an error (it is a convenience, not a trust root)."""
        path = (directory if directory is not None else data_dir()) / FILE
        hosts: dict[str, KnownHost] = {}
        try:
            raw: Any = json.loads(path.read_text(encoding="utf-8"))
            for entry in raw.get("hosts", []):
                host = KnownHost(
                    fingerprint=normalize_fingerprint(str(entry["fingerprint"])),
                    name=str(entry.get("name", ""))[:64],
                    addresses=[str(a) for a in entry.get("addresses", [])][:MAX_ADDRESSES],
                    last_seen=float(entry.get("last_seen", 0.0)),
                    confirmed=bool(entry.get("confirmed", False)),
                )
                hosts[host.fingerprint] = host
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            pass
        return cls(path, hosts)

    def get(self, fingerprint: str) -> KnownHost | None:
        return self.hosts.get(normalize_fingerprint(fingerprint))

    def for_address(self, address: str) -> KnownHost | None:
        """The host most recently seen at ``address`` ("host:port" or "host")."""
        matches = [h for h in self.hosts.values() if address in h.addresses]
        return max(matches, key=lambda h: h.last_seen, default=None)

    def remember(
        self,
        fingerprint: str,
        *,
        name: str,
        address: str | None = None,
        now: float,
        confirmed: bool = False,
    ) -> KnownHost:
        """Record a successful connection and save the file."""
        fp = normalize_fingerprint(fingerprint)
        host = self.hosts.get(fp) or KnownHost(fp, name)
        host.name = name[:64]
        host.last_seen = now
        host.confirmed = host.confirmed or confirmed
        if address is not None:
            host.addresses = [address, *(a for a in host.addresses if a != address)]
            del host.addresses[MAX_ADDRESSES:]
        self.hosts[fp] = host
        self.save()
        return host

    def save(self) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = {"hosts": [asdict(h) for h in self.hosts.values()]}
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
        os.replace(tmp, self.path)
