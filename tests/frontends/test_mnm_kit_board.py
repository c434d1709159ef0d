"""Acceptance (issue 34): a kit game that declares a board (the Tic-Tac-Toe fixture,
dropped into a running hub as a plain plugin folder and its ``.meta``) is played over
the hub's MNM port by scripted clients on real loopback sockets, with no adapter code
in the game; bad moves get a clear ``- <reason>`` and change nothing on the board; a
kit game without a board (Nim) is refused on MNM.

The hub runs the drop-ins isolated (the default for unsigned plugins: the hub never
imports their code) and, as a second case, in its own process."""

from __future__ import annotations

import json

import pytest

from tests.hubprocess import HubProcess
from tests.kit.support import KIT_GAMES, drop, wait_loaded
from tests.mnm_strict import ServerError, StrictClient

MOVE_MS = 60_000
FIELDS = [row + col for row in "ABC" for col in "012"]


@pytest.fixture(scope="module", params=["isolated", "in_process"])
def hub(request, tmp_path_factory):
    running = HubProcess(
        tmp_path_factory.mktemp("mnmkit"),
        web="tcp:0:interface=127.0.0.1",
        mnm="tcp:0:interface=127.0.0.1",
    )
    running.extra = ["--set", "mnm_wait_interval=600"]  # no WAIT: every line is scripted
    if request.param == "in_process":
        running.extra += ["--set", "in_process_plugins=" + ",".join(KIT_GAMES)]
    running.start()
    try:
        for name in KIT_GAMES:
            drop(running.data, name)
        wait_loaded(running, *KIT_GAMES)
        index = {p["name"]: p for p in running.get_json("/plugins/index.json")["plugins"]}
        assert index["noughts"]["isolated"] is (request.param == "isolated")
        yield running
    finally:
        running.stop()
    assert running.errors() == [], running.log()


def create(hub: HubProcess, kind: str = "noughts") -> str:
    status, body, _ = hub.request(
        "POST",
        "/api/games",
        {
            "type": kind,
            "name": "Board Game",
            "seats": ["open", "open"],
            "options": {"move_time": MOVE_MS},
        },
    )
    assert status == 201, body
    return json.loads(body)["id"]


def pair(hub: HubProcess, gid: str) -> list[StrictClient]:
    """Two clients seated at X (0) and O (1): every prolog line checked."""
    clients = [StrictClient(hub.ports["mnm"], kind="TicTacToe") for _ in range(2)]
    assert clients[0].prolog(gid) == (0, "X")
    assert clients[0].others == [(1, "O", False)]
    assert clients[1].prolog(gid, 1) == (1, "O")
    assert clients[1].others == [(0, "X", True)]
    assert clients[0].game_name == "Board Game"
    return clients


def piecelist(marks: dict[str, int]) -> list[str]:
    """The piece list of a board where ``marks`` maps a field to its player."""
    lines = ["+ PIECELIST 2,5"]
    for p in range(2):
        row = [f for f in FIELDS if marks.get(f) == p]
        row += ["A"] * (5 - len(row))
        lines += [f"+ PIECE{p}.{i} {pos}" for i, pos in enumerate(row)]
    return lines + ["+ ENDPIECELIST"]


def expect_request(client: StrictClient, marks: dict[str, int]) -> None:
    for line in [f"+ MOVE {MOVE_MS}", "+ CAPTURE 0", *piecelist(marks)]:
        client.expect(line)


def play(client: StrictClient, field: str) -> None:
    client.send("THINKING")
    client.expect("+ OKTHINK")
    client.send(f"PLAY {field}")


def expect_gameover(client: StrictClient, marks: dict[str, int], won: tuple[str, str]) -> None:
    for line in ["+ GAMEOVER", *piecelist(marks)]:
        client.expect(line)
    client.expect(f"+ PLAYER0WON {won[0]}")
    client.expect(f"+ PLAYER1WON {won[1]}")
    client.expect("+ QUIT")
    assert client.at_eof()


def close(clients: list[StrictClient]) -> None:
    for c in clients:
        c.close()


def test_tictactoe_is_played_to_the_end_over_mnm(hub) -> None:
    gid = create(hub)
    clients = pair(hub, gid)
    try:
        marks: dict[str, int] = {}
        # X takes the middle column; O answers in the corners
        for turn, field in enumerate(["B1", "A0", "A1", "C2", "C1"]):
            me = clients[turn % 2]
            expect_request(me, marks)
            play(me, field)
            me.expect("+ MOVEOK")
            marks[field] = turn % 2
        for c in clients:
            expect_gameover(c, marks, ("Yes", "No"))
    finally:
        close(clients)
    status, raw, _ = hub.request("GET", f"/api/games/{gid}/transcript", admin=True)
    assert status == 200
    assert raw.decode().count(" out + MOVEOK") == 5


def test_a_draw_is_won_by_both(hub) -> None:
    gid = create(hub)
    clients = pair(hub, gid)
    try:
        marks: dict[str, int] = {}
        for turn, cell in enumerate((0, 1, 2, 4, 3, 5, 7, 6, 8)):
            me, field = clients[turn % 2], FIELDS[cell]
            expect_request(me, marks)
            play(me, field)
            me.expect("+ MOVEOK")
            marks[field] = turn % 2
        for c in clients:
            expect_gameover(c, marks, ("Yes", "Yes"))
    finally:
        close(clients)


@pytest.mark.parametrize(
    "move,reason",
    [
        ("Z9", "- Invalid move: Z9 is not a field"),
        ("B1:", "- Invalid move: B1: is not a field"),
        ("B1", "- Invalid move: B1 is not a legal move now"),  # taken by X
    ],
)
def test_a_bad_move_is_refused_and_changes_nothing(hub, move, reason) -> None:
    gid = create(hub)
    x, o = clients = pair(hub, gid)
    try:
        expect_request(x, {})
        play(x, "B1")
        x.expect("+ MOVEOK")
        expect_request(o, {"B1": 0})
        play(o, move)
        with pytest.raises(ServerError, match="^" + reason.replace("+", r"\+") + "$"):
            o.read()
        assert o.at_eof()
        # the move was not made; the player who broke the protocol lost (MNM's rule)
        expect_gameover(x, {"B1": 0}, ("Yes", "No"))
    finally:
        close(clients)
    game = hub.get_json(f"/api/games/{gid}")
    assert game["state"] == "over"


def test_a_move_out_of_turn_is_refused_and_changes_nothing(hub) -> None:
    gid = create(hub)
    x, o = clients = pair(hub, gid)
    try:
        expect_request(x, {})
        play(x, "B1")
        x.expect("+ MOVEOK")
        x.send("PLAY A0")  # O is to move
        with pytest.raises(ServerError, match="^- It is not your turn to PLAY$"):
            x.read()
        expect_request(o, {"B1": 0})
        play(o, "A0")  # the game ended meanwhile: MOVEOK all the same, then the end
        o.expect("+ MOVEOK")
        expect_gameover(o, {"B1": 0}, ("No", "Yes"))
    finally:
        close(clients)


def test_a_kit_game_without_a_board_is_refused_on_mnm(hub) -> None:
    gid = create(hub, "nim")
    client = StrictClient(hub.ports["mnm"])
    try:
        client.read()
        client.read()
        client.send("VERSION 3.0")
        client.expect("+ Client version accepted - please send Game-ID to join")
        client.send(f"ID {gid}")
        with pytest.raises(ServerError) as refused:
            client.read()
        assert str(refused.value) == (
            "- Not a valid game ID: nim is not played over MNM"
            " (MNM plays two-player games that declare a board)"
        )
        assert client.at_eof()
    finally:
        client.close()
    game = hub.get_json(f"/api/games/{gid}")
    assert game["state"] == "waiting"
    assert [s["player"] for s in game["seats"]] == [None, None]
