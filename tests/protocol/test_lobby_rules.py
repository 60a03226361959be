"""The lobby's rules (localdurak.protocol.table.lobby, docs/protocol.md §4) on plain seats, with
no host, socket or clock: which seat a key takes, what the owner may change, when a game starts.
The host's own tests (tests/net, tests/cli/test_lobby.py) check it obeys them over TLS."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from localdurak.game.rules import Rules
from localdurak.protocol.errors import BadMessage, Forbidden, TableFull, Unavailable
from localdurak.protocol.messages import SeatKind, TableState
from localdurak.protocol.table import lobby


@dataclass
class S:
    kind: SeatKind = SeatKind.EMPTY
    key: bytes | None = None
    ready: bool = False
    connected: bool = True


def human(key: bytes, ready: bool = False, connected: bool = True) -> S:
    return S(SeatKind.HUMAN, key, ready, connected)


def bot() -> S:
    return S(SeatKind.BOT, b"bot", True)


def test_a_newcomer_takes_the_first_free_seat_in_the_lobby_only() -> None:
    seats = [human(b"a"), S(), S()]
    assert lobby.new_seat(seats, b"b", TableState.LOBBY) == 1
    with pytest.raises(TableFull, match="has started"):
        lobby.new_seat(seats, b"b", TableState.PLAYING)
    with pytest.raises(TableFull, match="already plays"):
        lobby.new_seat(seats, b"a", TableState.LOBBY)
    with pytest.raises(TableFull, match="every seat"):
        lobby.new_seat([human(b"a"), bot()], b"b", TableState.LOBBY)


def test_a_person_gets_back_the_seat_he_holds_a_bot_key_holds_none() -> None:
    seats = [S(), human(b"a"), S(SeatKind.BOT, b"k", True)]
    assert lobby.held_seat(seats, b"a") == 1 and lobby.known_key(seats, b"a")
    assert lobby.held_seat(seats, b"k") is None and not lobby.known_key(seats, b"k")
    assert lobby.held_seat(seats, b"x") is None


def test_sit_and_stand() -> None:
    lobby.check_sit(None, 2)
    lobby.check_sit(2, 2)
    with pytest.raises(TableFull):
        lobby.check_sit(1, 2)
    lobby.check_stand(TableState.LOBBY)
    with pytest.raises(Unavailable):
        lobby.check_stand(TableState.PLAYING)


def test_the_owner_is_the_host_seat_with_the_host_key_before_the_first_game() -> None:
    seats = [human(b"host"), human(b"b")]
    assert lobby.is_owner(seats, 0, own_seat=True, host_key=b"host")
    assert not lobby.is_owner(seats, 1, own_seat=True, host_key=b"host")
    assert not lobby.is_owner(seats, 0, own_seat=False, host_key=b"host")  # headless: nobody
    assert not lobby.is_owner([human(b"b")], 0, own_seat=True, host_key=b"host")
    lobby.check_owner(True, TableState.LOBBY, 0)
    with pytest.raises(Forbidden):
        lobby.check_owner(False, TableState.LOBBY, 0)
    with pytest.raises(Unavailable):
        lobby.check_owner(True, TableState.LOBBY, 1)  # a series keeps its table
    with pytest.raises(Unavailable):
        lobby.check_owner(True, TableState.PLAYING, 0)


def test_bots_sit_on_free_seats_never_the_hosts_own() -> None:
    seats = [S(), human(b"a"), S()]
    assert lobby.bot_seat(seats, None, own_seat=True) == 2
    assert lobby.bot_seat(seats, None, own_seat=False) == 0
    with pytest.raises(TableFull):
        lobby.bot_seat(seats, 1, own_seat=False)
    lobby.check_add_bot(seats, 2)
    lobby.check_add_bot(seats, None)
    for at in (1, 3, -1):
        with pytest.raises(TableFull):
            lobby.check_add_bot(seats, at)
    lobby.check_remove_bot([S(), bot()], 1)
    for at in (0, 2):
        with pytest.raises(BadMessage):
            lobby.check_remove_bot([S(), bot()], at)


def test_a_table_gets_smaller_only_past_its_last_taken_seat() -> None:
    seats = [human(b"a"), S(), human(b"b"), S()]
    lobby.check_resize(seats, Rules(), 3)
    with pytest.raises(Unavailable, match="seat 3 is taken"):
        lobby.check_resize(seats, Rules(), 2)
    with pytest.raises(BadMessage, match="R-C3"):
        lobby.check_resize(seats, Rules(), 7)


def test_a_game_starts_when_every_seat_is_taken_ready_and_connected() -> None:
    assert lobby.all_ready([human(b"a", ready=True), bot()])
    assert not lobby.all_ready([human(b"a"), bot()])
    assert not lobby.all_ready([human(b"a", ready=True), S()])
    assert not lobby.all_ready([human(b"a", ready=True, connected=False), bot()])
