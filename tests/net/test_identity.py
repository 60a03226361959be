"""Device identity, pairing code and signatures (lan.md "Trust")."""

from __future__ import annotations

import asyncio
import os
import ssl
import stat
from pathlib import Path

import pytest

from localdurak.game.actions import Action
from localdurak.game.cards import Card
from localdurak.net import identity as idm
from localdurak.protocol.errors import AuthFailed
from localdurak.protocol.signing import verify_action

GAME = b"\x01" * 16


def test_identity_is_made_once_and_kept_private(tmp_path: Path) -> None:
    home = tmp_path / "home"
    a = idm.load_or_create(home)
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    for path in (a.key_path, a.cert_path):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    b = idm.load_or_create(home)
    assert b.fingerprint == a.fingerprint and b.public_key == a.public_key
    assert len(a.fingerprint) == 64 and len(a.public_key) == 32
    assert idm.cert_public_key(a.cert_der) == a.public_key
    c = idm.load_or_create(tmp_path / "other")
    assert c.fingerprint != a.fingerprint


def test_loosened_permissions_are_tightened(tmp_path: Path) -> None:
    a = idm.load_or_create(tmp_path)
    os.chmod(a.key_path, 0o644)
    idm.load_or_create(tmp_path)
    assert stat.S_IMODE(a.key_path.stat().st_mode) == 0o600


def test_mismatched_files_refused(tmp_path: Path) -> None:
    a = idm.load_or_create(tmp_path / "a")
    b = idm.load_or_create(tmp_path / "b")
    a.cert_path.write_bytes(b.cert_path.read_bytes())
    with pytest.raises(idm.IdentityError, match="does not belong"):
        idm.load_or_create(tmp_path / "a")
    a.key_path.write_text("garbage")
    with pytest.raises(idm.IdentityError, match="cannot read"):
        idm.load_or_create(tmp_path / "a")


def test_localdurak_home_overrides_the_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCALDURAK_HOME", str(tmp_path / "x"))
    assert idm.data_dir() == tmp_path / "x"
    assert idm.load_or_create().key_path.parent == tmp_path / "x"
    monkeypatch.delenv("LOCALDURAK_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert idm.data_dir() == tmp_path / "xdg" / "localdurak"


def test_pairing_code_is_symmetric_and_short() -> None:
    k1, k2 = bytes(range(32)), bytes(range(1, 33))
    code = idm.pairing_code(k1, k2)
    assert code == idm.pairing_code(k2, k1)
    assert (
        len(code) == 9
        and code[4] == "-"
        and all(c in "0123456789ABCDEF" for c in code[:4] + code[5:])
    )
    assert code != idm.pairing_code(k1, bytes(32))


def test_fingerprint_forms() -> None:
    fp = "ab" * 32
    assert idm.normalize_fingerprint(":".join(["AB"] * 32)) == fp
    with pytest.raises(idm.IdentityError):
        idm.normalize_fingerprint("abc")


def test_auth_signature_is_bound_to_nonce_and_fingerprint(tmp_path: Path) -> None:
    client = idm.load_or_create(tmp_path)
    nonce, fp = os.urandom(32), "cd" * 32
    sig = idm.sign_auth(client, nonce, fp)
    idm.verify_auth(client.public_key, sig, nonce, fp)
    with pytest.raises(AuthFailed):
        idm.verify_auth(client.public_key, sig, os.urandom(32), fp)
    with pytest.raises(AuthFailed):  # relayed to another host (a man in the middle)
        idm.verify_auth(client.public_key, sig, nonce, "ef" * 32)
    with pytest.raises(AuthFailed, match="not an Ed25519 public key"):
        idm.verify_auth(b"short", sig, nonce, fp)


def test_signed_action_checks_and_forgeries_fail(tmp_path: Path) -> None:
    player = idm.load_or_create(tmp_path / "p")
    other = idm.load_or_create(tmp_path / "o")
    action = Action.cover(1, Card.parse("7S"), Card.parse("6S"))
    body = action.to_dict()
    sig = idm.sign_action(player, game=GAME, seat=1, n=5, kind="act", body=body)
    # The host relays it; any client checks it, whatever order the map's keys arrive in.
    verify_action(
        player.public_key,
        sig,
        game=GAME,
        seat=1,
        n=5,
        kind="act",
        body=dict(reversed(body.items())),
    )
    altered = Action.cover(1, Card.parse("8S"), Card.parse("6S")).to_dict()
    for kwargs in (
        {"game": GAME, "seat": 1, "n": 5, "body": altered},  # the host altered the card
        {"game": GAME, "seat": 1, "n": 4, "body": body},  # replayed under another counter
        {"game": b"\x02" * 16, "seat": 1, "n": 5, "body": body},  # from another game
        {"game": GAME, "seat": 2, "n": 5, "body": body},  # attributed to another seat
    ):
        with pytest.raises(AuthFailed, match="forged or altered"):
            verify_action(player.public_key, sig, kind="act", **kwargs)  # type: ignore[arg-type]
    forged = idm.sign_action(other, game=GAME, seat=1, n=5, kind="act", body=body)
    with pytest.raises(AuthFailed):
        verify_action(player.public_key, forged, game=GAME, seat=1, n=5, kind="act", body=body)


async def test_certificate_passes_x509_strict_as_its_own_anchor(tmp_path: Path) -> None:
    """lan.md: Python 3.13 sets VERIFY_X509_STRICT by default; our certificate passes it."""
    ident = idm.load_or_create(tmp_path)
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(ident.cert_path, ident.key_path)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"ok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server_ctx)
    port = server.sockets[0].getsockname()[1]
    ctx = ssl.create_default_context(cafile=str(ident.cert_path))
    ctx.verify_flags |= ssl.VERIFY_X509_STRICT | ssl.VERIFY_X509_PARTIAL_CHAIN
    try:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, ssl=ctx, server_hostname=idm.CERT_HOSTNAME
        )
        assert await reader.read() == b"ok"
        assert writer.get_extra_info("ssl_object").version() == "TLSv1.3"
        writer.close()
    finally:
        server.close()
        await server.wait_closed()


def test_known_hosts_remembered_privately(tmp_path: Path) -> None:
    from localdurak.net.known_hosts import KnownHosts

    known = KnownHosts.load(tmp_path)
    assert known.hosts == {}
    known.remember("AB" * 32, name="Anna's table", address="192.0.2.10:47823", now=1.0)
    known.remember("cd" * 32, name="Bob's", address="192.0.2.10:47823", now=2.0, confirmed=True)
    again = KnownHosts.load(tmp_path)
    assert again.get("ab" * 32) is not None and again.get("ab" * 32).name == "Anna's table"  # type: ignore[union-attr]
    found = again.for_address("192.0.2.10:47823")
    assert found is not None and found.fingerprint == "cd" * 32 and found.confirmed
    assert stat.S_IMODE(again.path.stat().st_mode) == 0o600
    again.path.write_text("{not json")
    assert KnownHosts.load(tmp_path).hosts == {}  # a damaged file is forgotten, not fatal


def test_ephemeral_identity_signs_without_files() -> None:
    bot = idm.Identity.ephemeral()
    assert bot.key_path is None and idm.cert_public_key(bot.cert_der) == bot.public_key
    action = Action.take(3)
    body = action.to_dict()
    sig = idm.sign_action(bot, game=GAME, seat=3, n=0, kind="play", body=body)
    verify_action(bot.public_key, sig, game=GAME, seat=3, n=0, kind="play", body=body)
