"""The network's words on the player's screen: why a connection broke, why the host refused
us, why the lobby cannot look for tables — in the player's language.

The network layer and the host word their reasons in English (an ``error`` message carries a
code and an English sentence, protocol.md); `net_reason` finds the sentences a player can meet
and says them in the player's language, with the same names and numbers, a reason inside a
reason too ("the table cannot be reached: the connection broke while sending: the other side
reset the connection").  A sentence it does not know (a peer breaking the protocol: a bug, or
an attack, with its own details) is shown as it is.

reading: "every refusal in five languages" is met at the screen, not on the wire: a code and
arguments for every sentence would change the protocol that older programs speak; the host's
sentences are stable English (the tests build each of them from the real code), so the CLI
maps them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from localdurak.cli.i18n import _, ngettext

Say = Callable[[re.Match[str]], str]


def _fixed(say: Callable[[], str]) -> Say:
    return lambda m: say()


def _pin(m: re.Match[str]) -> str:
    n = int(m["n"])
    if m["what"] == "needs a PIN":
        return ngettext(
            "this table asks for a PIN: ask the host for it ({n} attempt left)",
            "this table asks for a PIN: ask the host for it ({n} attempts left)",
            n,
        ).format(n=n)
    return ngettext(
        "wrong PIN: ask the host for it ({n} attempt left)",
        "wrong PIN: ask the host for it ({n} attempts left)",
        n,
    ).format(n=n)


_ADDR = r"(?P<address>\S+)"
_SECONDS = r"(?P<seconds>\d+(?:\.\d+)?)"

# Whole sentences, tried in order; ``why`` groups are reasons themselves, said again.
_REASONS: list[tuple[str, Say]] = [
    # The connection (net/transport.py, net/client.py).
    (
        r"the connection broke while sending: (?P<why>.*)",
        lambda m: _("the connection broke while sending: {why}").format(why=net_reason(m["why"])),
    ),
    (
        r"the connection broke: (?P<why>.*)",
        lambda m: _("the connection broke: {why}").format(why=net_reason(m["why"])),
    ),
    (
        r"the table cannot be reached: (?P<why>.*)",
        lambda m: _("the table cannot be reached: {why}").format(why=net_reason(m["why"])),
    ),
    (r"cannot send: the connection is closed", _fixed(lambda: _("the connection is closed"))),
    (r"the connection was closed|closed", _fixed(lambda: _("the connection is closed"))),
    (
        r"(?:the peer sent )?no '[\w.-]+' within " + _SECONDS + " s",
        lambda m: _("no answer within {seconds} s").format(seconds=m["seconds"]),
    ),
    (
        r"the peer left: (?P<why>.*)",
        lambda m: _("the other side left: {why}").format(why=net_reason(m["why"])),
    ),
    (
        r"the peer hung up mid-message \(.*\)",
        _fixed(lambda: _("the other side hung up in the middle of a message")),
    ),
    (
        r"the host said goodbye: (?P<why>.*)",
        lambda m: _("the host said goodbye: {why}").format(why=net_reason(m["why"])),
    ),
    (
        r"the host paused: (?P<why>.*)",
        lambda m: _("the host paused: {why}").format(why=net_reason(m["why"])),
    ),
    (
        r"no answer from " + _ADDR + " within " + _SECONDS + " s",
        lambda m: _("no answer from {address} within {seconds} s").format(
            address=m["address"], seconds=m["seconds"]
        ),
    ),
    (
        r"cannot connect to " + _ADDR + r": (?P<why>.*)",
        lambda m: _("cannot connect to {address}: {why}").format(
            address=m["address"], why=net_reason(m["why"])
        ),
    ),
    (
        r"TLS with " + _ADDR + r" failed: (?P<why>.*)",
        lambda m: _("the secure connection with {address} failed: {why}").format(
            address=m["address"], why=m["why"]
        ),
    ),
    (r"the table advertised no address", _fixed(lambda: _("the table advertised no address"))),
    (
        r"the peer closed the connection|the other side closed the connection|Broken pipe",
        _fixed(lambda: _("the other side closed the connection")),
    ),
    (
        r"the other side reset the connection|Connection reset by peer",
        _fixed(lambda: _("the other side reset the connection")),
    ),
    (r"the connection was aborted", _fixed(lambda: _("the connection was aborted"))),
    (
        r"the connection to the table dropped",
        _fixed(lambda: _("the connection to the table dropped")),
    ),
    # The operating system's words for a connection (its strerror, English in every locale).
    (
        r"Connect call failed .*|Connection refused",
        _fixed(lambda: _("nothing answers there (the connection was refused)")),
    ),
    (r"No route to host", _fixed(lambda: _("no route to that computer"))),
    (r"Network is unreachable", _fixed(lambda: _("the network is unreachable"))),
    (r"Connection timed out", _fixed(lambda: _("the connection timed out"))),
    # Addresses typed by the player (net/client.py `Address.parse`).
    (
        r"(?P<text>'.*'): an IPv6 address in brackets needs its closing '\]'",
        lambda m: _("{text}: an IPv6 address in brackets needs its closing ']'").format(
            text=m["text"]
        ),
    ),
    (
        r"(?P<text>'.*') is not HOST:PORT",
        lambda m: _("{text} is not HOST:PORT").format(text=m["text"]),
    ),
    (
        r"(?P<text>'.*') has no host: write HOST:PORT, e\.g\. (?P<example>\S+)",
        lambda m: _("{text} has no host: write HOST:PORT, e.g. {example}").format(
            text=m["text"], example=m["example"]
        ),
    ),
    (
        r"(?P<text>'.*'): the port must be a number from 1 to 65535",
        lambda m: _("{text}: the port must be a number from 1 to 65535").format(text=m["text"]),
    ),
    # The host's refusals (net/host.py, net/transport.py), sent in an ``error`` message.
    (r"no game is being played", _fixed(lambda: _("no game is being played at this table"))),
    (
        r"you cannot leave your seat during a game",
        _fixed(lambda: _("you cannot leave your seat during a game")),
    ),
    (
        r"the table can change only before its first game",
        _fixed(lambda: _("the table can change only before its first game")),
    ),
    (
        r"the events you missed are not here: you start afresh",
        _fixed(lambda: _("the moves you missed are gone: you start afresh")),
    ),
    (
        r"not connected to the table right now",
        _fixed(lambda: _("not connected to the table right now")),
    ),
    (
        r"too many wrong PINs at this table: ask the host to restart it",
        _fixed(lambda: _("too many wrong PINs at this table: ask the host to restart it")),
    ),
    (
        r"this table (?P<what>needs a PIN|wrong PIN): ask the host for it "
        r"\((?P<n>\d+) attempt\(s\) left\)",
        _pin,
    ),
    (r"seat (?P<n>\d+) is not free", lambda m: _("seat {n} is not free").format(n=m["n"])),
    (
        r"seat (?P<n>\d+) is taken: free it before the table gets smaller",
        lambda m: _("seat {n} is taken: free it before the table gets smaller").format(n=m["n"]),
    ),
    (
        r"you keep the seat the table gave you",
        _fixed(lambda: _("you keep the seat the table gave you")),
    ),
    (
        r"this key already plays at the table",
        _fixed(lambda: _("you already sit at this table (in another window)")),
    ),
    (
        r"the game has started and no seat is held for you",
        _fixed(lambda: _("the game has started and no seat is held for you")),
    ),
    (r"no free seat for a bot", _fixed(lambda: _("no free seat for a bot"))),
    (r"every seat at this table is taken", _fixed(lambda: _("every seat at this table is taken"))),
    (
        r"only the table's owner \(the host's own seat\) may change the table",
        _fixed(lambda: _("only the host may change the table")),
    ),
    (
        r"not your turn: (?P<why>.*)",
        lambda m: _("not your turn: {why}").format(why=net_reason(m["why"])),
    ),
    (r"the game is over", _fixed(lambda: _("the game is over"))),
    (
        r"the table is catching up",
        _fixed(lambda: _("the table is catching up after its host came back: a moment")),
    ),
    (
        r"only your own steps, but to give back what the host lost",
        _fixed(lambda: _("only your own moves, but to give back what the host lost")),
    ),
    (
        r"only to give back what the host lost",
        _fixed(lambda: _("only to give back what the host lost")),
    ),
    (r"the cards are still being dealt", _fixed(lambda: _("the cards are still being dealt"))),
    (
        r"there is no bot at seat (?P<n>\d+)",
        lambda m: _("there is no bot at seat {n}").format(n=m["n"]),
    ),
    (r"you left the table", _fixed(lambda: _("you left the table"))),
    (
        r"you connected again",
        _fixed(lambda: _("you connected again from another window")),
    ),
    (r"the series is over", _fixed(lambda: _("the series is over"))),
    (r"the host closed the table", _fixed(lambda: _("the host closed the table"))),
    (r"the host left", _fixed(lambda: _("the host left"))),
    (r"the host paused; it will resume", _fixed(lambda: _("the host paused; it will resume"))),
    (
        r"the host cannot save: this game can no longer be resumed after a crash"
        r"(?:: (?P<why>.*))?",
        lambda m: (
            _("the host cannot save: this game can no longer be resumed after a crash")
            if not m["why"]
            else _(
                "the host cannot save ({why}): this game can no longer be resumed after a crash"
            ).format(why=net_reason(m["why"]))
        ),
    ),
    (r"No space left on device", _fixed(lambda: _("the disk is full"))),
    (r"Read-only file system", _fixed(lambda: _("the disk is read-only"))),
    # Protocol versions (protocol/messages.py): who must update, from the reader's side.
    (
        r"your program's protocol version (?P<version>\d+) is too old for the table's host "
        r"\(it speaks (?P<versions>\S+)\): update Local Durak on your laptop",
        lambda m: _(
            "your program is too old for this table (protocol {version}; the host speaks "
            "{versions}): update Local Durak on your laptop"
        ).format(version=m["version"], versions=m["versions"]),
    ),
    (
        r"the table's host speaks protocol version (?P<version>\d+), too old for this "
        r"program \((?P<versions>\S+)\): the host must update Local Durak",
        lambda m: _(
            "the table's host is too old for this program (protocol {version}; this program "
            "speaks {versions}): the host must update Local Durak"
        ).format(version=m["version"], versions=m["versions"]),
    ),
    (
        r"your program's protocol versions (?P<version>\S+) are too new for the table's "
        r"host \(it speaks (?P<versions>\S+)\): the host must update Local Durak",
        lambda m: _(
            "your program is too new for this table (protocol {version}; the host speaks "
            "{versions}): the host must update Local Durak"
        ).format(version=m["version"], versions=m["versions"]),
    ),
    (
        r"the table's host speaks protocol version (?P<version>\d+), too new for this "
        r"program \((?P<versions>\S+)\): update Local Durak on this laptop",
        lambda m: _(
            "the table's host is too new for this program (protocol {version}; this program "
            "speaks {versions}): update Local Durak on this laptop"
        ).format(version=m["version"], versions=m["versions"]),
    ),
    # The host's certificate (net/transport.py; a changed pinned table has its own words).
    (
        _ADDR + r" presented no certificate",
        lambda m: _("{address} showed no certificate").format(address=m["address"]),
    ),
    (
        _ADDR + r" is not the table it claims to be: its certificate fingerprint is "
        r"(?P<actual>\S+), expected (?P<expected>\S+); nothing was sent to it",
        lambda m: _(
            "{address} is not the table it claims to be: its certificate fingerprint is "
            "{actual}, not {expected}; nothing was sent to it"
        ).format(address=m["address"], actual=m["actual"], expected=m["expected"]),
    ),
    # An offline game (net/local.py).
    (
        r"you play seat (?P<mine>\d+), not seat (?P<other>\d+)",
        lambda m: _("you play seat {mine}, not seat {other}").format(
            mine=m["mine"], other=m["other"]
        ),
    ),
    (r"the table is closed", _fixed(lambda: _("the table is closed"))),
    (r"the game is not over yet", _fixed(lambda: _("the game is not over yet"))),
    (
        r"wait a moment: the bout is closing \(challenges only now\)",
        _fixed(lambda: _("wait a moment: the bout is closing (challenges only now)")),
    ),
    (
        r"an offline game has no lobby: its bots are chosen when it starts",
        _fixed(lambda: _("an offline game has no lobby: its bots are chosen when it starts")),
    ),
    # The host's own refusals at its command line: a resume that cannot be (net/host.py,
    # net/table_store.py, net/host_resume.py), a port it cannot listen on (net/transport.py).
    (r"the host stopped", _fixed(lambda: _("the host stopped"))),
    (r"no such journal", _fixed(lambda: _("there is no such journal"))),
    (
        r"this journal does not say where its table keeps its state",
        _fixed(lambda: _("this journal does not say where its table keeps its state")),
    ),
    (
        r"the journal's first line is damaged and no table's state is beside it",
        _fixed(lambda: _("the journal's first line is damaged and no table's state is beside it")),
    ),
    (
        r"the table's saved state is not an object",
        _fixed(lambda: _("the table's saved state is damaged")),
    ),
    (
        r"the journal's first line is damaged, and the table beside it is playing another "
        r"game \((?P<path>.*)\)",
        lambda m: _(
            "the journal's first line is damaged, and the table beside it is playing another "
            "game ({path})"
        ).format(path=m["path"]),
    ),
    (
        r"the table's event log is empty or damaged from its start",
        _fixed(lambda: _("the table's event log is empty or damaged from its start")),
    ),
    (
        r"this table was hosted with another identity \(fingerprint (?P<theirs>\S+), this one "
        r"is (?P<mine>\S+)\): its players would refuse this one\. Resume it with the "
        r"LOCALDURAK_HOME \(and --profile\) it was hosted from",
        lambda m: _(
            "this table was hosted with another identity (fingerprint {theirs}, this one is "
            "{mine}): its players would refuse this one. Resume it with the LOCALDURAK_HOME "
            "(and --profile) it was hosted from"
        ).format(theirs=m["theirs"], mine=m["mine"]),
    ),
    (
        r"that (?P<what>game is over|journal is not this table's current game)"
        r"(?: \(its record: (?P<record>.*?)\))?"
        r"(?:; the table's current game: localdurak host --resume (?P<current>.*))?",
        lambda m: (
            (
                (
                    _("that game is over (its record: {record})").format(record=m["record"])
                    if m["record"]
                    else _("that game is over")
                )
                if m["what"] == "game is over"
                else _("that journal is not this table's current game")
            )
            + (
                "; "
                + _("the table's current game: {command}").format(
                    command="localdurak host --resume " + m["current"]
                )
                if m["current"]
                else ""
            )
        ),
    ),
    (
        r"this table's series is over: there is no game to resume \(its records are in "
        r"(?P<path>.*)\)",
        lambda m: _(
            "this table's series is over: there is no game to resume (its records are in {path})"
        ).format(path=m["path"]),
    ),
    (
        r"this table is being hosted right now \(process (?P<pid>\S+)\): nothing was touched; "
        r"stop that host first \(Ctrl-C pauses it\), then resume",
        lambda m: _(
            "this table is being hosted right now (process {pid}): nothing was touched; stop "
            "that host first (Ctrl-C pauses it), then resume"
        ).format(pid=m["pid"]),
    ),
    (
        r"--record-dir: a resumed table keeps its record folder \((?P<path>.*)\); leave "
        r"--record-dir out",
        lambda m: _(
            "--record-dir: a resumed table keeps its record folder ({path}); leave --record-dir out"
        ).format(path=m["path"]),
    ),
    (
        r"cannot listen on (?P<address>\S+): (?P<why>.*); choose another port with --port",
        lambda m: _("cannot listen on {address}: {why}; choose another port with --port").format(
            address=m["address"], why=net_reason(m["why"])
        ),
    ),
    (
        # asyncio's words for a port it cannot bind (the system's reason, in lower case).
        r"error while attempting to bind on address \(.*?\): (?P<why>.*)",
        lambda m: net_reason(m["why"]),
    ),
    (r"[Aa]ddress already in use", _fixed(lambda: _("the port is already in use"))),
    (
        r"[Cc]annot assign requested address",
        _fixed(lambda: _("this computer has no such address")),
    ),
    (r"[Pp]ermission denied", _fixed(lambda: _("permission denied"))),
    (r"No such file or directory", _fixed(lambda: _("there is no such file"))),
    (r"Is a directory", _fixed(lambda: _("it is a folder"))),
    (
        r"--bots must be 0\.\.(?P<n>\d+)",
        lambda m: _("--bots must be 0..{n}").format(n=m["n"]),
    ),
    (
        r"cannot write in (?P<path>.+?): (?P<why>.*)",
        lambda m: _("cannot write in {path}: {why}").format(
            path=m["path"], why=net_reason(m["why"])
        ),
    ),
    (
        r"(?P<path>.+) has (?P<free>\d+) KB free; a game here needs about (?P<need>\d+) KB",
        lambda m: _("{path} has {free} KB free; a game here needs about {need} KB").format(
            path=m["path"], free=m["free"], need=m["need"]
        ),
    ),
    # This device's identity (net/identity.py).
    (
        r"cannot make the identity's folder (?P<path>.+?): (?P<why>.*)",
        lambda m: _("cannot make the identity's folder {path}: {why}").format(
            path=m["path"], why=net_reason(m["why"])
        ),
    ),
    (
        r"cannot read the identity in (?P<path>.+?): (?P<why>.*)",
        lambda m: _("cannot read the identity in {path}: {why}").format(
            path=m["path"], why=net_reason(m["why"])
        ),
    ),
    (
        r"cannot save a new identity in (?P<path>.+?): (?P<why>.*)",
        lambda m: _("cannot save a new identity in {path}: {why}").format(
            path=m["path"], why=net_reason(m["why"])
        ),
    ),
    (
        r"(?P<path>.+) does not hold an Ed25519 (?P<what>key|certificate)",
        lambda m: (
            _("{path} does not hold an Ed25519 key")
            if m["what"] == "key"
            else _("{path} does not hold an Ed25519 certificate")
        ).format(path=m["path"]),
    ),
    (
        r"(?P<cert>.+) does not belong to the key in (?P<key>.+)",
        lambda m: _("{cert} does not belong to the key in {key}").format(
            cert=m["cert"], key=m["key"]
        ),
    ),
    (
        r"(?P<text>'.*') is not a SHA-256 fingerprint \(64 hex digits\)",
        lambda m: _("{text} is not a SHA-256 fingerprint (64 hex digits)").format(text=m["text"]),
    ),
    # Looking for tables (net/discovery.py).
    (
        r"mDNS is turned off \((?P<env>\w+)\); join with --address HOST:PORT",
        lambda m: _(
            "looking for tables is turned off ({env}); join with --address HOST:PORT"
        ).format(env=m["env"]),
    ),
    (
        r"cannot look for tables on the local network \((?P<why>.*)\); join with --address "
        r"HOST:PORT instead",
        lambda m: _(
            "cannot look for tables on the local network ({why}); join with --address HOST:PORT"
        ).format(why=m["why"]),
    ),
]

_COMPILED = [(re.compile(pattern, re.DOTALL), say) for pattern, say in _REASONS]


def net_reason(text: str) -> str:
    """``text``, a reason the network layer or the host gave, in the player's language (the
    English of the catalog too: a few host sentences read better there); as it is when it is
    not one of the known sentences."""
    text = text.strip()
    for pattern, say in _COMPILED:
        m = pattern.fullmatch(text)
        if m is not None:
            return say(m)
    return text


def exception_reason(e: BaseException, *, named: bool = True) -> str:
    """`net_reason` of an exception: an OSError's own reason without its number, and the
    file it concerns unless the message names it already (``named=False``)."""
    if isinstance(e, OSError) and e.strerror:
        said = net_reason(e.strerror)
        return f"{said}: {e.filename}" if named and e.filename is not None else said
    return net_reason(str(e))


def net_sentence(text: str) -> str:
    """`net_reason` as a sentence for the ▶ line: a capital first letter."""
    said = net_reason(text)
    return said[:1].upper() + said[1:]
