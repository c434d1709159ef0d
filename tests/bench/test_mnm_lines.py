"""``bench/mnm_lines.py``: the driver keeps a game's lines in the order the hub wrote
them, and the bare server writes each event's lines to the connection they went to."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from bench.hubproc import Hub
from bench.mnm_lines import Game, bare_pass, bare_server, count, hub_pass, new_games
from tests.support import wait_until

#: a made-up game: two connections, a line from each, the server closing both
GAME: Game = [
    {"conn": 0, "line": None, "out": [["+ hello 0"], []], "close": [False, False]},
    {"conn": 1, "line": None, "out": [[], ["+ hello 1"]], "close": [False, False]},
    {"conn": 0, "line": "A", "out": [["+ to 0"], ["+ to 1", "+ and 1"]], "close": [False, False]},
    {"conn": 1, "line": "B", "out": [["+ end 0"], ["+ end 1"]], "close": [True, True]},
]


def transcript_events(path: Path) -> Game:
    """A game's events as the hub's transcript orders its MNM lines: a connection's
    first record starts a connect event, a line in starts an event, a line out joins
    the last one."""
    conns: list[str] = []
    events: Game = []
    for record in path.read_text().splitlines():
        _, who, direction, text = record.split(" ", 3)
        if not who.startswith("mnm") or direction not in ("in", "out"):
            continue
        if who not in conns:
            conns.append(who)
            events.append({"conn": len(conns) - 1, "line": None, "out": [[], []]})
        if direction == "in":
            events.append({"conn": conns.index(who), "line": text[1:], "out": [[], []]})
        else:
            events[-1]["out"][conns.index(who)].append(text)
    return events


def written(path: Path) -> bool:
    """Whether the transcript has both connections' last line."""
    return path.exists() and path.read_text().count(" out + QUIT") == 2


def test_the_driver_keeps_each_line_out_with_the_line_the_hub_answered():
    with Hub(("mnm",), {"mnm_wait_interval": 30}) as hub:
        ids = new_games(hub, 3)
        games: list[Game] = []
        lines = hub_pass(hub, ids, 5, games)
        assert lines == sum(count(game) for game in games) > 0
        transcripts = Path(hub._tmp.name) / "data" / "transcripts"  # type: ignore[union-attr]
        for game_id, game in zip(ids, games, strict=True):
            path = transcripts / f"{game_id}.log"
            mine = [{k: e[k] for k in ("conn", "line", "out")} for e in game]
            # the transcript is written on a timer
            wait_until(lambda p=path: written(p), f"the transcript of {game_id}", 10)
            assert mine == transcript_events(path)
            assert game[-1]["close"] == [True, True]
            assert not any(any(e["close"]) for e in game[:-1])


def connect(port: int) -> tuple[socket.socket, Any]:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    return sock, sock.makefile("rb")


def lines(file: Any, n: int) -> list[bytes]:
    return [file.readline() for _ in range(n)]


def test_the_bare_server_writes_each_event_to_its_connections_and_closes_them():
    with bare_server([GAME]) as (_pid, port):
        first, one = connect(port)
        assert lines(one, 1) == [b"+ hello 0\n"]
        second, two = connect(port)
        assert lines(two, 1) == [b"+ hello 1\n"]
        first.sendall(b"A\n")
        assert lines(one, 1) == [b"+ to 0\n"]
        assert lines(two, 2) == [b"+ to 1\n", b"+ and 1\n"]
        second.sendall(b"B\n")
        assert lines(one, 2) == [b"+ end 0\n", b""]
        assert lines(two, 2) == [b"+ end 1\n", b""]
        for closing in (one, two, first, second):
            closing.close()
        assert bare_pass(port, [GAME], 3) == 3 * count(GAME) == 3 * 9


def test_a_line_on_the_wrong_connection_ends_the_bare_servers_game():
    with bare_server([GAME]) as (_pid, port):
        first, one = connect(port)
        second, two = connect(port)
        assert lines(one, 1) == [b"+ hello 0\n"] and lines(two, 1) == [b"+ hello 1\n"]
        second.sendall(b"A\n")  # the first connection's line
        for sock, file in ((first, one), (second, two)):
            try:
                assert file.readline() == b""
            except ConnectionResetError:
                pass
            file.close()
            sock.close()
        wrong = [{**e, "conn": 1 - e["conn"]} if e["line"] else e for e in GAME]
        with pytest.raises(ConnectionError):
            bare_pass(port, [wrong], 1)
