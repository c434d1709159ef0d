"""ACPC matches as a hostile user and an operator meet them, on a real ``twistd -n
gamehub`` over loopback sockets (issue 32): the log of a match in play is for admins
and, for its own lines, each program; the seats' ports take only the addresses the
match allows; the front end listens on loopback unless told otherwise."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from bots.acpc.state import GAMES, parse
from tests.hubprocess import LOOPBACK, HubProcess

GAME = "holdem.limit.2p.reverse_blinds"
#: a STATE line's cards field with both players' hole cards
BOTH = re.compile(r"^STATE:0:[^:]*:[2-9TJQKA][cdhs]{1}[2-9TJQKA][cdhs]\|[2-9TJQKA][cdhs]")


class Program:
    """A program of the protocol on a raw socket that folds whenever it must act."""

    def __init__(self, port: int, host: str = "127.0.0.1", source: str | None = None) -> None:
        bind = (source, 0) if source else None
        self.sock = socket.create_connection((host, port), timeout=30, source_address=bind)
        self.reader = self.sock.makefile("rb")
        self.sock.sendall(b"VERSION:2.0.0\r\n")
        self.states: list[str] = []

    def line(self) -> str | None:
        raw = self.reader.readline(8192)
        return raw.decode("ascii", "replace").rstrip("\r\n") if raw else None

    def play_until(self, hand: int) -> bool:
        """Fold at every turn until a state of ``hand`` arrives (``False``: the
        connection closed first)."""
        rules = GAMES[GAME]
        for _ in range(500):
            line = self.line()
            if line is None:
                return False
            if not line.startswith("MATCHSTATE"):
                continue
            self.states.append(line)
            state = parse(line, rules)
            assert state is not None, line
            if not state.over and state.next == state.position:
                self.sock.sendall(f"{line}:f\r\n".encode())
            if state.number >= hand:
                return True
        raise AssertionError(self.states[-3:])

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


def create(hub: HubProcess, **spec) -> dict:
    status, body, _ = hub.request("POST", "/acpc/matches", spec)
    assert status == 201, body
    return json.loads(body)


def wait_over(hub: HubProcess, match_id: str) -> dict:
    for _ in range(600):
        match = hub.get_json(f"/acpc/matches/{match_id}")
        if match["state"] == "over":
            return match
        import time

        time.sleep(0.1)
    raise AssertionError(match)


@pytest.fixture
def hub(tmp_path: Path):
    h = HubProcess(tmp_path, web=LOOPBACK, acpc=LOOPBACK)
    with h:
        yield h


def test_the_log_of_a_match_in_play_is_for_admins_and_each_program_its_own(hub):
    match = create(hub, game=GAME, players=["acpc:ann", "bot:raiser"], hands=3)
    key = match["players"][0]["key"]
    assert "seed" not in match
    program = Program(match["ports"][0])
    try:
        assert program.play_until(1)  # hand 0 is over and in the log; hand 1 runs
        path = f"/acpc/matches/{match['id']}/log"
        for headers in ({}, {"X-Gamehub-Door": "forged"}, {"Authorization": "Bearer nope"}):
            status, body, answer = hub.request("GET", path, headers=headers)
            assert status == 401, (headers, status, body)
            assert b"STATE:" not in body and answer["WWW-Authenticate"].startswith("Bearer")
        status, body, _ = hub.request("GET", path, admin=True)
        full = body.decode()
        assert status == 200 and any(BOTH.match(line) for line in full.splitlines()), full
        status, body, _ = hub.request("GET", path, headers={"Authorization": f"Bearer {key}"})
        own = [line for line in body.decode().splitlines() if line.startswith("STATE:0:")]
        assert status == 200 and len(own) == 1, body
        cards = own[0].split(":")[3]
        assert cards.count("|") == 1 and "||" not in cards
        assert min(len(h) for h in cards.split("/")[0].split("|")) == 0, own  # folded: hidden
        assert not BOTH.match(own[0])
        for shown in (hub.get_json(f"/acpc/matches/{match['id']}"), hub.get_json("/acpc/matches")):
            assert key not in json.dumps(shown) and "seed" not in json.dumps(shown)
        (table,) = hub.get_json(f"/acpc/matches/{match['id']}")["games"]
        status, _, _ = hub.request("GET", f"/api/games/{table}/transcript")
        assert status in (401, 403)
        assert program.play_until(10**6) is False  # to the end
    finally:
        program.close()
    over = wait_over(hub, match["id"])
    assert "seed" in over
    status, body, _ = hub.request("GET", f"/acpc/matches/{match['id']}/log")
    assert status == 200 and any(BOTH.match(line) for line in body.decode().splitlines())
    # the table's transcript, public now, has no line private to a seat: no match state
    status, body, _ = hub.request("GET", f"/api/games/{table}/transcript")
    assert status == 200 and b"MATCHSTATE" not in body and b"seat 0" in body
    status, body, _ = hub.request("GET", f"/api/games/{table}/transcript", admin=True)
    assert status == 200 and b"MATCHSTATE" in body
    assert hub.errors() == []
