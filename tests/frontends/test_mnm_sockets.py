"""The MNM front end over real loopback sockets, in a real ``twistd gamehub``.

Games are created through the JSON API (``POST /api/games``); the clients are plain
blocking sockets: a scripted pair whose every line is checked, and the strict client
of :mod:`tests.mnm_strict` in v1, v2 and v3 modes.
"""

from __future__ import annotations

import json
import random

import pytest

from bots.morris.search import Searcher, position_from_pieces, turn_text
from games.morris import rules
from tests.hubprocess import HubProcess
from tests.mnm_strict import ServerError, StrictClient

#: A random game (seed 7) that has captures, flying moves on both sides, and ends
#: with white reducing black to two pieces.
SCRIPT = (
    "B2 A4 B6 C7 A1 A3 C6 A6 C1 B7 A0 C0 B0 A2 A0 B5 C2 A5 B3 A1:B1 C2 B3:C3 B1:A1 C3:C2 "
    "A1:B1 B7 C7:B7 B1:A1 C0:C7 C6:C5 C7 A3:B3 B2:B1 A2 C2:C3 B1:B2 B7:A7 B5:B4 A7:A0 "
    "B6:B7 A0:A7 C1:B1 A7 C3:C4 A5:B5 A4:A3 B5:A5 A6:A7 A1:A2 C4:C3 A2 C5:C4 A3:A2 B1:A1 "
    "B3:A3 B7:B6 A7:B7 B2:B1 B7:A7 B4:B3 C3:C2 B3:B2 A7 A3:B4 A5:B5 A2:C5 B1:C1 B4:A6 "
    "B6:B7 C2:A7 B5:B6 A7"
).split()
#: Placing without mills, then a loop that repeats the position three times: a draw.
DRAW = (
    "A0 A1 A2 A3 A5 A6 B1 B0 B3 B2 B6 B5 C0 C2 C4 C3 C7 C5".split()
    + [
        "A0:A7",
        "B0:B7",
        "A7:A0",
        "B7:B0",
    ]
    * 2
)

MOVE_MS = 60_000


def _hub(tmp_path, version: str) -> HubProcess:
    hub = HubProcess(tmp_path, web="tcp:0:interface=127.0.0.1", mnm="tcp:0:interface=127.0.0.1")
    hub.extra = ["--mnm-version", version]
    return hub.start()


@pytest.fixture(scope="module")
def hub3(tmp_path_factory):
    hub = _hub(tmp_path_factory.mktemp("mnm3"), "3.1")
    yield hub
    hub.stop()
    assert hub.errors() == []


def create(hub: HubProcess, seats, **options) -> str:
    status, body, _ = hub.request(
        "POST",
        "/api/games",
        {"type": "nmmorris", "name": "Socket Game", "seats": seats, "options": options},
    )
    assert status == 201, body
    game = json.loads(body)
    assert game["port"] == hub.ports["mnm"]
    return game["id"]


def expected_request(state: rules.MorrisState) -> list[str]:
    lines = [f"+ MOVE {MOVE_MS}", f"+ CAPTURE {state.pending_captures}", "+ PIECELIST 2,9"]
    for p, row in enumerate(state.piece_list()):
        lines += [f"+ PIECE{p}.{i} {pos}" for i, pos in enumerate(row)]
    return lines + ["+ ENDPIECELIST"]


def expected_gameover(state: rules.MorrisState, won: tuple[bool, bool]) -> list[str]:
    lines = ["+ GAMEOVER", "+ PIECELIST 2,9"]
    for p, row in enumerate(state.piece_list()):
        lines += [f"+ PIECE{p}.{i} {pos}" for i, pos in enumerate(row)]
    lines += ["+ ENDPIECELIST"]
    lines += [f"+ PLAYER{n}WON {'Yes' if w else 'No'}" for n, w in enumerate(won)]
    return lines + ["+ QUIT"]


def scripted_game(hub: HubProcess, moves: list[str]) -> tuple[rules.MorrisState, dict]:
    """Two clients play ``moves``; every line each receives is compared with the spec."""
    gid = create(hub, ["open", "open"], move_time_ms=MOVE_MS, wait_interval_ms=600_000)
    clients = [StrictClient(hub.ports["mnm"]), StrictClient(hub.ports["mnm"])]
    try:
        assert clients[0].prolog(gid) == (0, "white")
        assert clients[0].others == [(1, "black", False)]
        assert clients[1].prolog(gid, 1) == (1, "black")
        assert clients[1].others == [(0, "white", True)]
        for c in clients:
            assert c.received[:2] == [
                "+ MNM Gameserver v3.1 accepting connections",
                "+ Announcement: welcome to Gamehub",
            ]
            assert c.received[3:5] == ["+ PLAYING NMMorris", "+ Socket Game"]
        state = rules.MorrisState()
        seen = {"capture": 0, "fly": 0}
        for text in moves:
            me = clients[state.to_move]
            for line in expected_request(state):
                me.expect(line)
            if state.pending_captures:
                seen["capture"] += 1
            move = state.parse(text)
            if move.kind == "move" and move.dst not in rules.NEIGHBOURS[move.src]:
                seen["fly"] += 1
            me.send("THINKING")
            me.expect("+ OKTHINK")
            me.send(f"PLAY {text}")
            me.expect("+ MOVEOK")
            state.apply(move)
        assert state.over and state.outcome is not None
        won = (
            (True, True)
            if state.outcome.winner is None
            else (
                state.outcome.winner == 0,
                state.outcome.winner == 1,
            )
        )
        for c in clients:
            for line in expected_gameover(state, won):
                c.expect(line)
            assert c.at_eof()
        seen["id"] = gid
        return state, seen
    finally:
        for c in clients:
            c.close()


def test_scripted_game_every_line(hub3) -> None:
    state, seen = scripted_game(hub3, SCRIPT)
    assert state.outcome is not None and state.outcome.winner == 0
    assert state.outcome.reason == "pieces"
    assert seen["capture"] >= 3 and seen["fly"] >= 2
    # read through the API: records are buffered, and a read writes what is waiting
    status, raw, _ = hub3.request("GET", f"/api/games/{seen['id']}/transcript", admin=True)
    assert status == 200
    transcript = raw.decode()
    assert transcript.count(" in  PLAY ") == len(SCRIPT)
    assert transcript.count(" out + MOVEOK") == len(SCRIPT)
    assert transcript.count(" out + QUIT") == 2
    assert transcript.count(" in  VERSION 3.0") == 2


def test_scripted_draw_report(hub3) -> None:
    state, _ = scripted_game(hub3, DRAW)
    assert state.outcome is not None and state.outcome.winner is None
    assert state.outcome.reason == "repetition"


def search_thinker(seed: int):
    searcher = Searcher(max_depth=2, rng=random.Random(seed))

    def think(pieces, me, capture):
        result = searcher.best(position_from_pieces(pieces, me), None, capture)
        return turn_text(result.turn)[0]

    return think


@pytest.mark.parametrize("version,mode", [("1.0", "v1"), ("2.3", "v2"), ("3.1", "v3")])
def test_strict_client_plays_to_the_end(tmp_path, version, mode) -> None:
    hub = _hub(tmp_path, version)
    try:
        gid = create(hub, ["open", "bot:morris-random"], wait_interval_ms=200)
        assert len(gid) == (11 if mode == "v1" else 13)
        client = StrictClient(hub.ports["mnm"], version=version, mode=mode)
        try:
            assert client.prolog(gid) == (0, "white")
            assert client.others == [(1, "morris-random", True)]
            won = client.play(search_thinker(1))
        finally:
            client.close()
        # depth-2 search never loses to the random bot; a draw by repetition is rare
        # but possible (the hub's bot is not seeded) and is reported as won by both
        assert won[0] is True
        assert sum(1 for line in client.received if line.startswith("+ MOVE ")) >= 9
    finally:
        hub.stop()
    assert hub.errors() == []


def test_hostile_client_and_a_proper_game_over(hub3) -> None:
    gid = create(hub3, ["open", "open"], move_time_ms=MOVE_MS, wait_interval_ms=600_000)
    good, bad = StrictClient(hub3.ports["mnm"]), StrictClient(hub3.ports["mnm"])
    try:
        good.prolog(gid)
        bad.prolog(gid)
        # black plays out of turn
        bad.send("PLAY A0")
        with pytest.raises(ServerError, match="- It is not your turn to PLAY"):
            bad.read()
        assert bad.at_eof()
        assert good.play(lambda pieces, me, cap: "A0") == [True, False]
    finally:
        good.close()
        bad.close()


def test_huge_line_without_newline(hub3) -> None:
    client = StrictClient(hub3.ports["mnm"])
    try:
        client.read()
        client.read()
        try:
            client.sock.sendall(b"X" * (1 << 20))
        except OSError:
            pass  # the server may close before all of it is sent
        with pytest.raises(ServerError, match="- Line too long"):
            client.read()
    finally:
        client.close()
