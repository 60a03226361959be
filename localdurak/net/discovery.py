"""Finding tables on the local network with mDNS / DNS-SD (lan.md "Discovery").

A host advertises one ``_localdurak._tcp.local.`` service (`Advertiser`).  Its instance name
carries a short fingerprint, "Anna's table (3fa2)", so that two tables of the same name do not
collide; its TXT record carries (docs/protocol.md §6):

=========  ===============================================================
``v``      protocol version the host speaks (``min-max``, e.g. ``1`` or ``1-2``)
``name``   the table's name
``seats``  seats taken / total, ``2/4``
``state``  ``lobby`` or ``playing``
``rules``  a short rules summary (`Rules.summary`)
``fp``     the SHA-256 fingerprint of the host's certificate (64 hex digits)
=========  ===============================================================

The record is registered once and updated in place when seats change; it is withdrawn on
exit.  A browser (`TableBrowser`) keeps a live list of `TableInfo` for the lobby;
`browse` is the one-shot form behind ``localdurak tables``.

Only real LAN addresses are advertised (`lan_addresses`: no loopback, link-local or known
virtual bridges), IPv4 unless asked otherwise, and a failing interface or a network without
multicast never stops the program: the advertiser records the ``problem`` and the host still
runs (players can join with ``--address``).

About 700 lines, one module on purpose: the advertiser and the browser are the two ends of one
TXT format and of one announcement timing (a count updated while the table is announced, a
record heard last), and read best side by side.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from types import TracebackType
from typing import Any, Final, Self

import ifaddr
from zeroconf import (
    IPVersion,
    RecordUpdate,
    RecordUpdateListener,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
)
from zeroconf._dns import DNSText  # not re-exported by name; the TXT record's class
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from localdurak.protocol.messages import MIN_PROTOCOL_VERSION, NAME_MAX, PROTOCOL_VERSION

log = logging.getLogger(__name__)

SERVICE_TYPE: Final = "_localdurak._tcp.local."
RULES_MAX: Final = 120
"""Longest rules summary in the TXT record, in characters (a TXT string holds 255 bytes)."""
RESOLVE_TIMEOUT_MS: Final = 3000
NO_MDNS_ENV: Final = "LOCALDURAK_NO_MDNS"
"""Set to 1 to turn advertising and browsing off (tests, ``--address`` only networks)."""

# Interface names of virtual adapters we never advertise on (lan.md: Docker, VirtualBox,
# VMware, libvirt, Hyper-V, VPNs), and interfaces we never browse through.
VIRTUAL_PREFIXES: Final = (
    "docker",
    "br-",
    "virbr",
    "vboxnet",
    "vmnet",
    "vethernet",
    "tun",
    "tap",
    "wg",
    "tailscale",
    "zt",
    "utun",
    "lxcbr",
    "lxdbr",
    "cni",
    "flannel",
    "podman",
)


class DiscoveryError(ValueError):
    """A TXT record that is not a Local Durak table."""


class TableStatus(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"


def instance_name(table: str, fingerprint: str) -> str:
    """The DNS-SD instance name, "Anna's table (3fa2)", at most 63 bytes of UTF-8."""
    suffix = f" ({fingerprint[:4].lower()})"
    name = table.strip() or "Local Durak"
    while len((name + suffix).encode()) > 63:
        name = name[:-1]
    return name.rstrip() + suffix


@dataclass(frozen=True, slots=True)
class TableAd:
    """What a host advertises."""

    name: str
    fingerprint: str
    port: int
    seats_taken: int = 0
    seats_total: int = 2
    state: TableStatus = TableStatus.LOBBY
    rules: str = ""
    pin: bool = False
    """The table asks for a PIN (`pin=1` in the TXT record; absent when it does not, so
    older browsers read it as before): the lobby asks for it before joining."""

    def txt(self) -> dict[str, str]:
        versions = (
            str(PROTOCOL_VERSION)
            if MIN_PROTOCOL_VERSION == PROTOCOL_VERSION
            else f"{MIN_PROTOCOL_VERSION}-{PROTOCOL_VERSION}"
        )
        txt = {
            "v": versions,
            "name": self.name[:NAME_MAX],
            "seats": f"{self.seats_taken}/{self.seats_total}",
            "state": self.state.value,
            "rules": self.rules[:RULES_MAX],
            "fp": self.fingerprint,
        }
        if self.pin:
            txt["pin"] = "1"
        return txt


@dataclass(frozen=True, slots=True)
class TableInfo:
    """A table a browser found.  ``addresses`` are every address it advertised: a client
    tries each (lan.md)."""

    instance: str
    name: str
    fingerprint: str
    port: int
    addresses: tuple[str, ...]
    seats_taken: int
    seats_total: int
    state: TableStatus
    rules: str
    min_version: int
    max_version: int
    pin: bool = False
    """The table asks for a PIN."""

    @property
    def full(self) -> bool:
        return self.seats_taken >= self.seats_total

    @property
    def compatible(self) -> bool:
        """Whether this program can speak the host's protocol."""
        return self.min_version <= PROTOCOL_VERSION and self.max_version >= MIN_PROTOCOL_VERSION

    @property
    def short_fingerprint(self) -> str:
        return self.fingerprint[:4]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "instance": self.instance,
            "addresses": list(self.addresses),
            "port": self.port,
            "seats": [self.seats_taken, self.seats_total],
            "state": self.state.value,
            "rules": self.rules,
            "fingerprint": self.fingerprint,
            "version": [self.min_version, self.max_version],
            "compatible": self.compatible,
            "pin": self.pin,
        }


def _text(props: Mapping[bytes, bytes | None], key: str) -> str:
    raw = props.get(key.encode())
    if raw is None:
        raise DiscoveryError(f"the TXT record has no {key!r}")
    try:
        value = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DiscoveryError(f"the TXT record's {key!r} is not UTF-8") from None
    if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in value):
        raise DiscoveryError(f"the TXT record's {key!r} holds control characters")
    return value


def parse_txt(
    instance: str, props: Mapping[bytes, bytes | None], port: int, addresses: Iterable[str]
) -> TableInfo:
    """A `TableInfo` from a resolved service; `DiscoveryError` when it is not a table of ours
    (mDNS is open to anyone: every field is checked)."""
    v = _text(props, "v")
    lo, _, hi = v.partition("-")
    if not lo.isdigit() or (hi and not hi.isdigit()):
        raise DiscoveryError(f"the TXT record's version {v!r} is not N or N-M")
    taken_s, _, total_s = _text(props, "seats").partition("/")
    if not (taken_s.isdigit() and total_s.isdigit()):
        raise DiscoveryError("the TXT record's seats are not N/M")
    taken, total = int(taken_s), int(total_s)
    if not (2 <= total <= 6 and 0 <= taken <= total):
        raise DiscoveryError(f"the TXT record's seats {taken}/{total} are out of range")
    state_s = _text(props, "state")
    try:
        state = TableStatus(state_s)
    except ValueError:
        raise DiscoveryError(f"the TXT record's state {state_s!r} is unknown") from None
    fp = _text(props, "fp").lower()
    if len(fp) != 64 or any(c not in "0123456789abcdef" for c in fp):
        raise DiscoveryError("the TXT record's fingerprint is not 64 hex digits")
    name = _text(props, "name")[:NAME_MAX]
    if not name:
        raise DiscoveryError("the TXT record has an empty table name")
    if not 0 < port < 65536:
        raise DiscoveryError(f"port {port} is not a TCP port")
    return TableInfo(
        instance=instance,
        name=name,
        fingerprint=fp,
        port=port,
        addresses=tuple(addresses),
        seats_taken=taken,
        seats_total=total,
        state=state,
        rules=_text(props, "rules")[:RULES_MAX],
        min_version=int(lo),
        max_version=int(hi or lo),
        pin=props.get(b"pin") == b"1",
    )


# --- addresses ---------------------------------------------------------------------------


def _is_virtual(name: str) -> bool:
    return name.lower().startswith(VIRTUAL_PREFIXES)


def lan_addresses(*, ipv6: bool = False) -> list[str]:
    """The addresses worth advertising: real LAN interfaces, no loopback, link-local or
    virtual bridges.  An adapter that cannot be read is skipped, never fatal (lan.md)."""
    try:
        adapters = ifaddr.get_adapters()
    except Exception as e:  # enumeration itself failed: advertise nothing, say why
        log.warning("cannot list network interfaces: %s", e)
        return []
    out: list[str] = []
    for adapter in adapters:
        try:
            name = adapter.nice_name or adapter.name
            if _is_virtual(str(adapter.name)) or _is_virtual(str(name)):
                continue
            for ip in adapter.ips:
                if isinstance(ip.ip, str):
                    address = ipaddress.ip_address(ip.ip)
                elif ipv6:
                    address = ipaddress.ip_address(ip.ip[0])
                else:
                    continue
                if address.is_loopback or address.is_link_local or address.is_unspecified:
                    continue
                if address.is_multicast or (address.version == 6 and not ipv6):
                    continue
                out.append(str(address))
        except Exception as e:
            log.warning("skipping network interface %r: %s", getattr(adapter, "name", "?"), e)
    return sorted(set(out), key=out.index)


async def open_zeroconf(
    addresses: list[str], *, ipv6: bool = False
) -> tuple[AsyncZeroconf, list[str]]:
    """An `AsyncZeroconf` on ``addresses``, and the addresses it really uses.

    zeroconf gives up on the whole list when one interface fails (a VPN adapter going away,
    an address that is no longer there); then we try each address alone and keep those that
    work, so that one failing interface never stops the program (lan.md).  Raises the first
    error only when no address works."""
    version = IPVersion.All if ipv6 else IPVersion.V4Only
    try:
        return AsyncZeroconf(interfaces=list(addresses), ip_version=version), list(addresses)
    except OSError as first:
        if len(addresses) < 2:
            raise
        good: list[str] = []
        for address in addresses:
            try:
                probe = AsyncZeroconf(interfaces=[address], ip_version=version)
            except OSError as e:
                log.warning("skipping network address %s: %s", address, e)
                continue
            await probe.async_close()
            good.append(address)
        if not good:
            raise first from None
        return AsyncZeroconf(interfaces=good, ip_version=version), good


def mdns_disabled() -> bool:
    return os.environ.get(NO_MDNS_ENV, "") not in ("", "0")


class Probe(StrEnum):
    """How the advertiser makes sure its instance name is free (benchmarks/net.py)."""

    FULL = "full"
    """RFC 6762 probing as zeroconf does it: ~0.2 s wait, three probes 0.5 s apart."""
    QUICK = "quick"
    """Our default: one query for the name (``quick_probe_ms``), rename on an answer, then
    register without zeroconf's probes.  Safe because the name already carries the
    fingerprint of a key only this device holds: a conflict needs the same table name on
    the same device (a second host process), which the query catches."""
    NONE = "none"
    """Register at once (``cooperating_responders``): tests and benchmarks only."""


# --- advertising -------------------------------------------------------------------------


class Advertiser:
    """Advertise a table while the ``async with`` block runs.

    >>> async with Advertiser(ad) as adv:        # doctest: +SKIP
    ...     await adv.update(seats_taken=3)

    ``enabled=False`` (or ``LOCALDURAK_NO_MDNS=1``) advertises nothing.  When mDNS cannot run
    (no LAN address, no multicast, a broken interface) ``active`` is false and ``problem``
    says why; nothing is raised."""

    def __init__(
        self,
        ad: TableAd,
        *,
        addresses: list[str] | None = None,
        enabled: bool = True,
        ipv6: bool = False,
        probe: Probe = Probe.QUICK,
        quick_probe_ms: int = 250,
    ) -> None:
        self.ad = ad
        self.enabled = enabled and not mdns_disabled()
        self.ipv6 = ipv6
        self.addresses = addresses
        self.probe = probe
        self.quick_probe_ms = quick_probe_ms
        self.problem: str | None = None
        self.instance: str = instance_name(ad.name, ad.fingerprint)
        self._zc: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None
        self._announcing: Awaitable[Any] | None = None
        self.registered_at: float | None = None
        """`time.monotonic()` when the service was registered (benchmarks)."""

    @property
    def active(self) -> bool:
        return self._info is not None

    @property
    def service_name(self) -> str:
        return f"{self.instance}.{SERVICE_TYPE}"

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def _service_info(self) -> AsyncServiceInfo:
        assert self.addresses is not None
        return AsyncServiceInfo(
            SERVICE_TYPE,
            self.service_name,
            port=self.ad.port,
            properties=self.ad.txt(),
            # A host name per device and port: two tables on one device (two processes, so two
            # ports) must not claim one name with different records.
            server=f"localdurak-{self.ad.fingerprint[:12]}-{self.ad.port}.local.",
            parsed_addresses=list(self.addresses),
        )

    async def start(self) -> None:
        if not self.enabled:
            self.problem = "advertising is turned off"
            return
        if self.addresses is None:
            self.addresses = lan_addresses(ipv6=self.ipv6)
        if not self.addresses:
            self.problem = (
                "no local network address to advertise on; players can join with "
                f"--address HOST:{self.ad.port}"
            )
            log.warning("%s", self.problem)
            return
        try:
            self._zc, self.addresses = await open_zeroconf(self.addresses, ipv6=self.ipv6)
            await self._pick_free_name()
            registering = self.ad
            info = self._service_info()
            # Returns once registered; the announcements (the first one at once, then two
            # more) go on in the returned task, which we keep but do not wait for.
            self._announcing = await self._zc.async_register_service(
                info,
                allow_name_change=False,
                cooperating_responders=self.probe is not Probe.FULL,
            )
            self._info = info
            self.registered_at = time.monotonic()
            if self.ad != registering:
                # A change while we registered (probing takes seconds; the host's own player
                # sits down meanwhile): it could not be sent to a service not yet registered.
                await self.update()
        except Exception as e:  # a broken network never stops the host (lan.md)
            self.problem = (
                f"cannot advertise the table on the local network ({type(e).__name__}: {e}); "
                f"players can join with --address HOST:{self.ad.port}"
            )
            log.warning("%s", self.problem)
            self._info = None
            await self._close_zc()

    async def _pick_free_name(self) -> None:
        if self.probe is not Probe.QUICK:
            return
        assert self._zc is not None
        base, n = self.instance, 2
        for _ in range(8):
            answer = await self._zc.async_get_service_info(
                SERVICE_TYPE, self.service_name, timeout=self.quick_probe_ms
            )
            if answer is None:
                return
            log.info("the name %r is taken on this network: trying another", self.instance)
            self.instance = f"{base} {n}"
            n += 1

    async def update(self, **changes: Any) -> None:
        """Change the advertised fields (``seats_taken``, ``state``, ``rules``, ...) in place:
        one announcement, no new probing (lan.md).  Before the service is registered this
        only records the change; `start` sends it once registered."""
        self.ad = replace(self.ad, **changes)
        if self._zc is None or self._info is None:
            return
        self._info = self._service_info()
        # The announcements still going out (zeroconf repeats each 225 and 450 ms later) carry
        # the record before this change: stop them.  Else a browser that first heard the new
        # record hears the old one after it, which it had not seen — and in zeroconf's cache
        # an unseen record goes last and wins, while the new one's repeats, already known,
        # change nothing (the lobby showed 0/3 for a table whose host sits at it).
        self._stop_announcing()
        try:
            self._announcing = await self._zc.async_update_service(self._info)
        except Exception as e:
            log.warning("cannot update the table's advertisement: %s", e)

    def _stop_announcing(self) -> None:
        if self._announcing is not None:
            if isinstance(self._announcing, asyncio.Future):
                self._announcing.cancel()
            self._announcing = None

    async def close(self) -> None:
        """Withdraw the service (goodbye packets) and stop."""
        # An announcement after the goodbye would bring the table back in every lobby.
        self._stop_announcing()
        if self._zc is not None and self._info is not None:
            with contextlib.suppress(Exception):
                # The first await removes the service; the second waits until the goodbye
                # packets are out, so browsers drop the table at once (not at TTL expiry).
                goodbyes = await self._zc.async_unregister_service(self._info)
                await asyncio.wait_for(goodbyes, 3)
        self._info = None
        await self._close_zc()

    async def _close_zc(self) -> None:
        if self._zc is not None:
            zc, self._zc = self._zc, None
            with contextlib.suppress(Exception):
                await asyncio.wait_for(zc.async_close(), 3)


# --- browsing ----------------------------------------------------------------------------


class DiscoveryUnavailable(OSError):
    """mDNS cannot run here at all (no multicast); the message points to ``--address``."""


_TYPE_TXT: Final = 16
_CLASS_IN: Final = 1


class _TxtWatch(RecordUpdateListener):
    """Every TXT record of a table heard, new to the cache or not (zeroconf's browser says
    "updated" only for a record its cache had not seen: a seat count going back to one it
    showed before — a friend leaves — would never reach the lobby)."""

    def __init__(self, heard: Callable[[str, bytes], None]) -> None:
        self._heard = heard

    def async_update_records(self, zc: Zeroconf, now: float, records: list[RecordUpdate]) -> None:
        for update in records:
            record = update.new
            if (
                isinstance(record, DNSText)
                and record.ttl > 0
                and record.name.lower().endswith("." + SERVICE_TYPE.lower())
            ):
                self._heard(record.name, record.text)


class TableBrowser:
    """A live list of the tables on the network, for the lobby.

    >>> async with TableBrowser() as browser:       # doctest: +SKIP
    ...     async for tables in browser.updates():
    ...         show(tables)

    ``tables`` is the current list (sorted by name); ``updates()`` yields a new list on
    every change; `wait_for` waits until a condition on the list holds.  Records that do not
    parse as a table are ignored (and logged).  Raises `DiscoveryUnavailable` on entry when
    mDNS cannot start."""

    def __init__(self, *, interfaces: list[str] | None = None, ipv6: bool = False) -> None:
        self._interfaces = interfaces
        self._ipv6 = ipv6
        self._zc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._tables: dict[str, TableInfo] = {}
        self._changed = asyncio.Condition()
        self._version = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._txt_watch = _TxtWatch(self._heard_txt)
        self._shown_txt: dict[str, bytes] = {}
        """The raw TXT record each listed table was read from, by lowercased name."""
        self.first_seen: dict[str, float] = {}
        """`time.monotonic()` when each instance was first resolved (benchmarks)."""

    @property
    def tables(self) -> list[TableInfo]:
        return sorted(self._tables.values(), key=lambda t: (t.name.casefold(), t.instance))

    async def __aenter__(self) -> Self:
        if mdns_disabled():
            raise DiscoveryUnavailable(
                f"mDNS is turned off ({NO_MDNS_ENV}); join with --address HOST:PORT"
            )
        interfaces: Any = self._interfaces
        if interfaces is None:
            # Browse on the real LAN interfaces when we can tell them; otherwise on all.
            interfaces = lan_addresses(ipv6=self._ipv6) or None
        try:
            if interfaces:
                self._zc, _ = await open_zeroconf(interfaces, ipv6=self._ipv6)
            else:
                self._zc = AsyncZeroconf(ip_version=IPVersion.V4Only)
            self._zc.zeroconf.async_add_listener(self._txt_watch, None)
            self._browser = AsyncServiceBrowser(
                self._zc.zeroconf, SERVICE_TYPE, handlers=[self._on_change]
            )
        except Exception as e:
            await self._close()
            raise DiscoveryUnavailable(
                f"cannot look for tables on the local network ({type(e).__name__}: {e}); "
                "join with --address HOST:PORT instead"
            ) from None
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._close()

    async def _close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._browser is not None:
            with contextlib.suppress(Exception):
                await self._browser.async_cancel()
            self._browser = None
        if self._zc is not None:
            with contextlib.suppress(Exception):
                self._zc.zeroconf.async_remove_listener(self._txt_watch)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._zc.async_close(), 3)
            self._zc = None

    def _heard_txt(self, name: str, text: bytes) -> None:
        # Called before the record is in the cache: the resolve runs after (a task).
        key = name.lower()
        if key in self._shown_txt and self._shown_txt[key] != text:
            listed = next((n for n in self._tables if n.lower() == key), None)
            if listed is not None:
                self._spawn(self._resolve(listed))

    def _newest_txt(self, name: str) -> bytes | None:
        """The TXT record of ``name`` heard last.  A host that changes its record leaves the
        old one in our cache for a second more (RFC 6762 §10.2: its TTL is cut to 1 s), and
        zeroconf's `ServiceInfo` reads whichever the cache met first.  The one heard last
        is the one that expires last (one host, one TTL; the cut one expires first)."""
        if self._zc is None:
            return None
        records = self._zc.zeroconf.cache.async_all_by_details(name, _TYPE_TXT, _CLASS_IN)
        live = [r for r in records if isinstance(r, DNSText) and r.ttl > 0]
        return max(live, key=lambda r: r.created + r.ttl * 1000).text if live else None

    def _on_change(
        self,
        zeroconf: Any,
        service_type: str,
        name: str,
        state_change: ServiceStateChange,
    ) -> None:
        if state_change is ServiceStateChange.Removed:
            self._shown_txt.pop(name.lower(), None)
            if self._tables.pop(name, None) is not None:
                self._spawn(self._notify())
            return
        self._spawn(self._resolve(name))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _resolve(self, name: str) -> None:
        if self._zc is None:
            return
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        try:
            if not await info.async_request(self._zc.zeroconf, RESOLVE_TIMEOUT_MS):
                return
        except Exception as e:  # zeroconf closing under us, a socket gone: skip this one
            log.debug("cannot resolve %r: %s", name, e)
            return
        version = IPVersion.All if self._ipv6 else IPVersion.V4Only
        text = self._newest_txt(name) or info.text
        try:
            table = parse_txt(
                name.removesuffix("." + SERVICE_TYPE),
                ServiceInfo(SERVICE_TYPE, name, properties=text).properties,
                info.port or 0,
                info.parsed_scoped_addresses(version),
            )
        except DiscoveryError as e:
            log.info("ignoring %r: %s", name, e)
            return
        if not table.addresses:
            return
        self.first_seen.setdefault(table.instance, time.monotonic())
        self._tables[name] = table
        self._shown_txt[name.lower()] = text
        await self._notify()

    async def _notify(self) -> None:
        async with self._changed:
            self._version += 1
            self._changed.notify_all()

    async def wait_for(
        self, predicate: Callable[[list[TableInfo]], bool], timeout: float
    ) -> list[TableInfo]:
        """Wait until ``predicate(tables)`` holds; `TimeoutError` after ``timeout`` s."""
        async with asyncio.timeout(timeout):
            async with self._changed:
                await self._changed.wait_for(lambda: predicate(self.tables))
        return self.tables

    async def updates(self) -> AsyncIterator[list[TableInfo]]:
        """Yield the table list now and after every change."""
        seen = -1
        while True:
            async with self._changed:
                await self._changed.wait_for(self._changed_since(seen))
                seen = self._version
            yield self.tables

    def _changed_since(self, version: int) -> Callable[[], bool]:
        return lambda: self._version != version


async def browse(timeout: float = 2.0, *, interfaces: list[str] | None = None) -> list[TableInfo]:
    """The tables visible within ``timeout`` seconds (``localdurak tables``)."""
    async with TableBrowser(interfaces=interfaces) as browser:
        await asyncio.sleep(timeout)
        return browser.tables
