"""Private network namespaces for network tests and benchmarks (lan.md; never a real interface).

`NetnsLan(n)` makes a small LAN of its own: a "switch" namespace holding a Linux bridge, and
``n`` host namespaces, each with one veth interface plugged into the bridge, an address in
192.0.2.0/24 (TEST-NET-1, RFC 5737: documentation only, routed nowhere) and multicast on.
Nothing is created in the caller's namespace: every interface is made inside a namespace.
`close` deletes the namespaces (which deletes their interfaces), also after a failure; stale
namespaces of a killed run are removed by the next one.

Needs root and ``ip`` (iproute2); `unavailable_reason` says why not, for a skip message.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

PREFIX = "ldtest"
SUBNET = "192.0.2"
REPO = Path(__file__).resolve().parents[2]


def unavailable_reason() -> str | None:
    if sys.platform != "linux":
        return "network namespaces need Linux"
    if os.geteuid() != 0:
        return "network namespaces need root (CI runs as root; run with sudo to include them)"
    if shutil.which("ip") is None:
        return "network namespaces need iproute2's `ip` command"
    return None


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True, timeout=20)


def remove_stale() -> None:
    """Delete namespaces left by test runs whose process is gone."""
    out = _ip("netns", "list", check=False).stdout
    for line in out.splitlines():
        name = line.split()[0] if line.strip() else ""
        parts = name.split("-")
        if len(parts) >= 3 and parts[0] == PREFIX and parts[1].isdigit():
            pid = int(parts[1])
            if pid != os.getpid() and not Path(f"/proc/{pid}").exists():
                _ip("netns", "del", name, check=False)


class NetnsLan:
    def __init__(self, hosts: int) -> None:
        tag = f"{PREFIX}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.switch = f"{tag}-sw"
        self.hosts = [f"{tag}-h{i}" for i in range(hosts)]
        self.addresses = [f"{SUBNET}.{10 + i}" for i in range(hosts)]
        self._made: list[str] = []

    def __enter__(self) -> NetnsLan:
        try:
            self.create()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def create(self) -> None:
        remove_stale()
        sw = self.switch
        _ip("netns", "add", sw)
        self._made.append(sw)
        _ip("-n", sw, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
        _ip("-n", sw, "link", "set", "br0", "up")
        for i, (ns, addr) in enumerate(zip(self.hosts, self.addresses, strict=True)):
            _ip("netns", "add", ns)
            self._made.append(ns)
            port = f"p{i}"
            _ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", sw)
            _ip("-n", sw, "link", "set", port, "master", "br0")
            _ip("-n", sw, "link", "set", port, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "addr", "add", f"{addr}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "multicast", "on", "up")
            _ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0")

    def close(self) -> None:
        for ns in reversed(self._made):
            _ip("netns", "del", ns, check=False)
        self._made.clear()

    def command(self, host: int, argv: Sequence[str]) -> list[str]:
        return ["ip", "netns", "exec", self.hosts[host], *argv]

    def popen(self, host: int, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[str]:
        """Start ``argv`` inside host namespace ``host`` (stdout piped, text mode)."""
        env = dict(os.environ)
        env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
        env.pop("LOCALDURAK_NO_MDNS", None)
        return subprocess.Popen(
            self.command(host, argv),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=env,
            **kwargs,
        )


def python(script: Path | str, *args: str) -> list[str]:
    return [sys.executable, str(script), *args]
