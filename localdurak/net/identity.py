"""A device's persistent identity, the pairing code, and signatures (lan.md "Trust").

Each device has one Ed25519 key pair and a self-signed certificate for it, made with
`cryptography` and kept in the user's data directory (`data_dir`; ``LOCALDURAK_HOME``
overrides it), the directory 0700 and the files 0600.  The host serves TLS with this
certificate; clients pin its SHA-256 fingerprint (`Identity.fingerprint`).  The same key:

- proves a client's identity to the host: it signs the host's nonce bound to the host's
  fingerprint (`auth_payload`, `sign_auth`, `verify_auth`), since Python's ``ssl`` cannot
  accept an unknown client certificate and decide later (CPython #75425);
- signs every game action and card-privacy step the player originates (`sign_action`; the
  pure checks are in `localdurak.protocol.signing`), so that the host can only relay them,
  never forge or alter them.

The signing helpers are pure functions of their inputs; only `load_or_create` and `claim`
touch files.

One identity sits at one seat: a second process sitting at a table with the same identity
would take the first one's seat and be displaced by it in turn, without end.  `claim` (an
advisory lock on ``seat.lock`` in the identity's folder, held until the process ends and
released by the system even after ``kill -9``) refuses it at once with `IdentityInUse`;
``--profile NAME`` gives the second process an identity of its own (`datadir`).
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import functools
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from localdurak.datadir import data_dir as data_dir
from localdurak.protocol.codec import canonical
from localdurak.protocol.errors import AuthFailed
from localdurak.protocol.signing import action_payload, public_key_bytes

KEY_FILE: Final = "identity.key.pem"
CERT_FILE: Final = "identity.cert.pem"
LOCK_FILE: Final = "seat.lock"
CERT_HOSTNAME: Final = "localdurak.invalid"
"""The certificate's only DNS name.  Nobody resolves it: clients pin the fingerprint instead
of checking a host name (lan.md; mDNS names are not authenticated anyway)."""

AUTH_DOMAIN: Final = b"localdurak-auth/1"
PAIR_DOMAIN: Final = b"localdurak-pair/1"


class IdentityError(ValueError):
    """The identity files are missing, unreadable or not ours."""


class IdentityInUse(IdentityError):
    """Another running process sits at a table with this identity (`claim`); ``pid``: its
    process id, when it could be read."""

    def __init__(self, directory: Path, pid: int | None) -> None:
        who = f"process {pid}" if pid is not None else "another process"
        super().__init__(
            f"{who} already plays with the identity in {directory}; give this one its own "
            "identity with --profile NAME"
        )
        self.directory = directory
        self.pid = pid


_claimed: dict[str, int] = {}
"""The folders this process holds the seat lock of (their real paths), and its descriptor."""


def claim(directory: Path | None = None) -> None:
    """Hold the identity in ``directory`` (default `data_dir`) for this process, which is
    about to sit at a table with it; `IdentityInUse` when another process holds it.

    Claiming again in the same process is a no-op (the lobby joins table after table).
    reading: a folder where no lock file can be made or opened (read-only with none in it),
    or a file system without locks, is not guarded: the process goes on, as before."""
    d = directory if directory is not None else data_dir()
    where = os.path.realpath(d)
    if where in _claimed:
        return
    try:
        import fcntl
    except ImportError:  # reading: Windows is not guarded (no flock; nothing tests it there)
        return
    with contextlib.suppress(OSError):
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = d / LOCK_FILE
    fd: int | None = None
    for flags in (os.O_RDWR | os.O_CREAT, os.O_RDONLY):
        try:
            fd = os.open(path, flags, 0o600)
            break
        except OSError:
            continue
    if fd is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        pid = _lock_holder(fd)
        os.close(fd)
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise IdentityInUse(d, pid) from None
        return  # no locks on this file system
    with contextlib.suppress(OSError):  # who holds it, for the message of the next one
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _claimed[where] = fd


def _lock_holder(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def fingerprint_of(cert_der: bytes) -> str:
    """The SHA-256 of a certificate's DER bytes, 64 lower-case hex digits (lan.md)."""
    return hashlib.sha256(cert_der).hexdigest()


def short_fingerprint(fingerprint: str) -> str:
    """The first 4 hex digits, for instance names: "Anna's table (3fa2)"."""
    return fingerprint[:4].lower()


def normalize_fingerprint(text: str) -> str:
    """Accept ``AB:CD:...``, upper or lower case; return 64 lower-case hex digits."""
    hexits = text.replace(":", "").replace(" ", "").strip().lower()
    if len(hexits) != 64 or any(c not in "0123456789abcdef" for c in hexits):
        raise IdentityError(f"{text!r} is not a SHA-256 fingerprint (64 hex digits)")
    return hexits


def load_public_key(raw: bytes) -> Ed25519PublicKey:
    try:
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        raise AuthFailed("not an Ed25519 public key (32 bytes)") from None


@dataclass(frozen=True)
class Identity:
    """One device's key pair and certificate.  ``key_path``/``cert_path`` are PEM files that
    `ssl.SSLContext.load_cert_chain` reads."""

    private_key: Ed25519PrivateKey
    cert_der: bytes
    key_path: Path | None
    cert_path: Path | None

    @classmethod
    def ephemeral(cls, name: str = "Local Durak bot") -> Identity:
        """A throwaway identity kept in memory only (a bot's seat key, a test): it can sign
        and verify, but not serve TLS (no files for ``ssl`` to load)."""
        key = Ed25519PrivateKey.generate()
        return cls(key, make_certificate(key, name), None, None)

    @functools.cached_property
    def public_key(self) -> bytes:
        """The 32-byte raw public key: what `Auth` and `GameStarted` carry."""
        return public_key_bytes(self.private_key.public_key())

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the certificate, hex: what the TXT record advertises, and clients pin."""
        return fingerprint_of(self.cert_der)

    def sign(self, data: bytes) -> bytes:
        return self.private_key.sign(data)


def make_certificate(key: Ed25519PrivateKey, name: str = "Local Durak") -> bytes:
    """A self-signed certificate for ``key`` (DER), valid 20 years.

    Built to pass OpenSSL's strict checks (Python 3.13's ``VERIFY_X509_STRICT``) when a peer
    chooses to trust it directly as its own anchor: version 3, a positive random serial,
    basic constraints CA:false (critical; it signs nothing else), key usage (critical),
    subject and authority key ids, a subject alternative name.  Checked by a test with
    ``VERIFY_X509_STRICT``.  Our own clients pin the fingerprint without CA checks.
    """
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, name[:64] or "Local Durak"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Local Durak"),
        ]
    )
    public = key.public_key()
    now = datetime.datetime.now(datetime.UTC)
    ski = x509.SubjectKeyIdentifier.from_public_key(public)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=20 * 365))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
            ),
            critical=False,
        )
        .add_extension(ski, critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski), critical=False
        )
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(CERT_HOSTNAME)]), critical=False)
    )
    cert = builder.sign(key, None)  # Ed25519 signs without a separate hash
    return cert.public_bytes(serialization.Encoding.DER)


def _write_private(path: Path, data: bytes) -> None:
    # Created 0600 from the start (no window in which another user could read it).
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.chmod(path, 0o600)


def load_or_create(directory: Path | None = None, *, name: str = "Local Durak") -> Identity:
    """This device's identity, made on first use.  ``directory`` defaults to `data_dir`."""
    d = directory if directory is not None else data_dir()
    key_path, cert_path = d / KEY_FILE, d / CERT_FILE
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        if d.stat().st_mode & 0o077:
            os.chmod(d, 0o700)
    except OSError as e:
        # A read-only home with an identity in it is fine: only tightening failed.
        if not (key_path.exists() and cert_path.exists()):
            raise IdentityError(f"cannot make the identity's folder {d}: {e.strerror}") from None
    if key_path.exists() and cert_path.exists():
        try:
            key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
            cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        except (ValueError, TypeError, OSError) as e:
            raise IdentityError(f"cannot read the identity in {d}: {e}") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise IdentityError(f"{key_path} does not hold an Ed25519 key")
        if public_key_bytes(key.public_key()) != public_key_bytes(_cert_key(cert, cert_path)):
            raise IdentityError(f"{cert_path} does not belong to the key in {key_path}")
        for path in (key_path, cert_path):
            if path.stat().st_mode & 0o077:
                with contextlib.suppress(OSError):  # a read-only home: left as it is
                    os.chmod(path, 0o600)  # tighten what someone loosened
        return Identity(key, cert.public_bytes(serialization.Encoding.DER), key_path, cert_path)
    key = Ed25519PrivateKey.generate()
    der = make_certificate(key, name)
    pem_key = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    pem_cert = x509.load_der_x509_certificate(der).public_bytes(serialization.Encoding.PEM)
    # The certificate before the key: a crash in between leaves no key without a certificate.
    try:
        _write_private(cert_path, pem_cert)
        _write_private(key_path, pem_key)
    except OSError as e:
        raise IdentityError(f"cannot save a new identity in {d}: {e.strerror}") from None
    return Identity(key, der, key_path, cert_path)


def load_for_seat(directory: Path | None = None) -> Identity:
    """`claim` the identity (`IdentityInUse` when another process holds it), then
    `load_or_create` it: what a process that sits at a table with it calls."""
    claim(directory)
    return load_or_create(directory)


def _cert_key(cert: x509.Certificate, path: Path) -> Ed25519PublicKey:
    key = cert.public_key()
    if not isinstance(key, Ed25519PublicKey):
        raise IdentityError(f"{path} does not hold an Ed25519 certificate")
    return key


def cert_public_key(cert_der: bytes) -> bytes:
    """The raw Ed25519 public key inside a peer's certificate (DER)."""
    try:
        cert = x509.load_der_x509_certificate(cert_der)
    except ValueError:
        raise AuthFailed("the peer's certificate cannot be read") from None
    key = cert.public_key()
    if not isinstance(key, Ed25519PublicKey):
        raise AuthFailed("the peer's certificate does not hold an Ed25519 key")
    return public_key_bytes(key)


# --- the pairing code ------------------------------------------------------------------


def pairing_code(key_a: bytes, key_b: bytes) -> str:
    """8 hex digits of SHA-256 over both public keys, sorted so both sides agree: "3F9A-1C2E".

    Both screens show it; people compare it to catch a man in the middle that mDNS (which
    is not authenticated) cannot (lan.md, after KDE Connect)."""
    lo, hi = sorted((key_a, key_b))
    digest = hashlib.sha256(PAIR_DOMAIN + lo + hi).hexdigest()[:8].upper()
    return f"{digest[:4]}-{digest[4:]}"


# --- the client's proof of identity ----------------------------------------------------


def auth_payload(nonce: bytes, host_fingerprint: str, client_key: bytes) -> bytes:
    """What a client signs: the host's nonce, bound to the host certificate it pinned.

    Binding the fingerprint means a man in the middle (a different certificate) cannot relay
    the signature to the real host."""
    return canonical([AUTH_DOMAIN, nonce, bytes.fromhex(host_fingerprint), client_key])


def sign_auth(identity: Identity, nonce: bytes, host_fingerprint: str) -> bytes:
    return identity.sign(auth_payload(nonce, host_fingerprint, identity.public_key))


def verify_auth(client_key: bytes, sig: bytes, nonce: bytes, host_fingerprint: str) -> None:
    """Raise `AuthFailed` unless ``sig`` proves the holder of ``client_key`` signed this."""
    try:
        load_public_key(client_key).verify(sig, auth_payload(nonce, host_fingerprint, client_key))
    except InvalidSignature:
        raise AuthFailed("the client's proof of identity does not check out") from None


# --- signed actions ----------------------------------------------------------------------


def sign_action(
    identity: Identity, *, game: bytes, seat: int, n: int, kind: str, body: Any, seen: int = 0
) -> bytes:
    """Sign one action (``kind="act"``, ``body=action.to_dict()``) or privacy step
    (``kind=step``, ``body`` as sent); ``seen``: see `signing.action_payload`."""
    return identity.sign(action_payload(game, seat, n, kind, body, seen=seen))


class EphemeralKey:
    """A signing key that lives in memory only: an in-process bot's seat key."""

    def __init__(self, private: Ed25519PrivateKey | None = None) -> None:
        self.private = private if private is not None else Ed25519PrivateKey.generate()

    @property
    def public_key(self) -> bytes:
        return public_key_bytes(self.private.public_key())

    def sign(self, data: bytes) -> bytes:
        return self.private.sign(data)

    def private_bytes(self) -> bytes:
        return self.private.private_bytes_raw()

    @classmethod
    def from_private_bytes(cls, raw: bytes) -> EphemeralKey:
        return cls(Ed25519PrivateKey.from_private_bytes(raw))
