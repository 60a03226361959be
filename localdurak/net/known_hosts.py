"""Hosts this device has played with (lan.md "remembers hosts it has played with").

A small JSON file in the data directory (0600): fingerprint → table name, the addresses it
was reached at, when it was last seen, and whether a person confirmed the pairing code.
A client that joins by ``--address`` without a fingerprint pins the one remembered for that
address, and refuses a known table that now comes with another fingerprint (`HostChanged`,
trust on first use keyed by the host device's fingerprint, docs/lan.md "Trust"): the message
says what changed and how to accept the new one knowingly (``--fingerprint``).

reading: "a known table" is a table this device played at before, found again at the same
address (host:port), or under the same name on the same machine (host): a new port after a
restart is the same table; another name on the same machine is another table.
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


class HostChanged(Exception):
    """A table this device knows shows another certificate than the one it trusted."""

    def __init__(self, name: str, where: str, old: str, new: str) -> None:
        self.name, self.where, self.old = name, where, old
        self.new = normalize_fingerprint(new)
        super().__init__(
            f"{name} at {where} shows another certificate than the one this device trusted"
        )


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

    def known_as(self, *, where: str, name: str) -> KnownHost | None:
        """The host this device knows at ``where`` ("host:port"), else the one of that table
        name on the same machine (a restarted table may listen on another port)."""
        host = self.for_address(where)
        if host is not None:
            return host
        machine = where.rsplit(":", 1)[0]
        same = [
            h
            for h in self.hosts.values()
            if h.name == name and any(a.rsplit(":", 1)[0] == machine for a in h.addresses)
        ]
        return max(same, key=lambda h: h.last_seen, default=None)

    def check(self, *, where: str, name: str, fingerprint: str) -> None:
        """Trust on first use: raise `HostChanged` when the table known at ``where`` (or by
        ``name`` on that machine) had another fingerprint."""
        known = self.known_as(where=where, name=name)
        if known is not None and known.fingerprint != normalize_fingerprint(fingerprint):
            raise HostChanged(name or known.name, where, known.fingerprint, fingerprint)

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
            for other in self.hosts.values():  # an accepted new certificate replaces the old
                if other.fingerprint != fp and address in other.addresses:
                    other.addresses.remove(address)
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
