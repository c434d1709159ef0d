"""Any door works (docs/cluster.md, issue 15 stage 2): three ``twistd gamehub``
processes on one PostgreSQL database; a client of any hub plays a game another hub
runs, passed through to it.

Waits poll with a deadline; nothing is timed.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.hubprocess import ROOT, HubProcess
from tests.integration.test_cluster import (
    cluster_dsn,
    create,
    games_of,
    health,
    start_hub,
    three,
    wait_for,
)

__all__ = ["cluster_dsn", "three"]  # the fixtures, used by name

FAST_MORRIS = {"move_time_ms": 2000, "grace_ms": 2000, "max_turns": 40}


@pytest.fixture
def doors(three: list[HubProcess]) -> list[HubProcess]:
    """Hubs A, B and C (every front end on loopback), each knowing the three."""
    return three


def listed_on(hub: HubProcess, game_id: str) -> dict[str, Any]:
    """Wait until ``hub`` lists ``game_id``; its entry."""
    return wait_for(
        lambda: {g["id"]: g for g in hub.get_json("/api/games")}.get(game_id),  # type: ignore[union-attr]
        f"the game is listed on {hub.ports}",
    )


def morris_bot(
    port: int, game_id: str, player: int, cwd: Path, think: float = 0.05
) -> subprocess.Popen:
    """The project's network morris bot (a course-style MNM client) on ``port``."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bots.morris",
            "--port",
            str(port),
            "--game-id",
            game_id,
            "--player",
            str(player),
            "--max-seconds",
            str(think),
            "--seed",
            str(player + 1),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        cwd=cwd,
    )


class Line:
    """A blocking line client of a hub's MNM port (bounded by a socket timeout)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.file = self.sock.makefile("rwb")

    def read(self) -> str:
        return self.file.readline().decode("ascii", "replace").rstrip("\r\n")

    def send(self, data: bytes) -> None:
        self.file.write(data)
        self.file.flush()

    def rest(self) -> str:
        """Everything until the hub closes the connection."""
        return self.file.read().decode("ascii", "replace")

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def prolog(port: int, game_id: str) -> tuple[Line, list[str]]:
    """A v3 client through the ``ID`` line: the lines it read so far."""
    client = Line(port)
    lines = [client.read(), client.read()]
    client.send(b"VERSION 3.1\n")
    lines.append(client.read())
    client.send(f"ID {game_id}\n".encode())
    lines += [client.read(), client.read()]
    return client, lines


def test_mnm_clients_on_two_doors_play_a_game_of_a_third_hub(doors, tmp_path):
    a, b, c = doors
    a_id = health(a)["cluster"]["hub"]
    game = create(a, {"type": "nmmorris", "seats": ["open", "open"], "options": FAST_MORRIS})
    for hub in (b, c):
        assert listed_on(hub, game["id"])["hub"] == a_id
    bots = [
        morris_bot(b.ports["mnm"], game["id"], 0, tmp_path),
        morris_bot(c.ports["mnm"], game["id"], 1, tmp_path),
    ]
    outs = [bot.communicate(timeout=180) for bot in bots]
    for bot, (out, err) in zip(bots, outs, strict=True):
        assert bot.returncode == 0, err
        assert f"game {game['id']} over" in out
    over = a.get_json(f"/api/games/{game['id']}")
    assert over["state"] == "over", over  # type: ignore[index]
    for hub in (b, c):  # on one machine, the doors hand the connections over
        assert "handed over" in hub.log() and "passed through" not in hub.log()
    for hub in doors:
        assert hub.errors() == [], hub.log()


def test_a_door_that_splices_as_between_machines(doors, tmp_path, cluster_dsn):
    """``cluster_handoff`` off (as when the game's hub runs on another machine): both
    network bots play A's game through D's splice, to the end."""
    a = doors[0]
    d = start_hub(tmp_path, "d", cluster_dsn, extra=["--set", "cluster_handoff=false"])
    try:
        game = create(a, {"type": "nmmorris", "seats": ["open", "open"], "options": FAST_MORRIS})
        listed_on(d, game["id"])
        bots = [morris_bot(d.ports["mnm"], game["id"], n, tmp_path) for n in (0, 1)]
        outs = [bot.communicate(timeout=180) for bot in bots]
        for bot, (out, err) in zip(bots, outs, strict=True):
            assert bot.returncode == 0, err
            assert f"game {game['id']} over" in out
        assert "passed through" in d.log() and "handed over" not in d.log()
        assert d.errors() == [], d.log()
    finally:
        d.stop()


def test_a_passed_through_client_sees_what_a_client_of_the_owner_sees(doors):
    a, b, _ = doors
    game = create(a, {"type": "nmmorris", "seats": ["open", "open"], "options": FAST_MORRIS})
    listed_on(b, game["id"])
    direct, seen_on_a = prolog(a.ports["mnm"], game["id"])
    passed, seen_on_b = prolog(b.ports["mnm"], game["id"])
    try:
        assert seen_on_b == seen_on_a  # banner, announcement, version, the game's prolog
        # a line too long inside the splice: the owner's own answer, then a close
        passed.send(b"PLAYER " + b"9" * 5000 + b"\n")
        assert passed.rest().startswith("- Line too long"), "the owner's answer"
    finally:
        direct.close()
        passed.close()


def test_hostile_input_at_a_door(doors):
    a, b, _ = doors
    game = create(a, {"type": "nmmorris", "seats": ["open", "open"], "options": FAST_MORRIS})
    listed_on(b, game["id"])
    answers = []
    for hub in (a, b):  # garbage before the ID line: the same answer on both
        client = Line(hub.ports["mnm"])
        client.read(), client.read()
        client.send(b"VERSION 3.1\n")
        client.read()
        client.send(b"\x00\xffGARBAGE\n")
        answers.append(client.rest())
        client.close()
    assert answers[0] == answers[1] and answers[0].startswith("- "), answers
    # the owner dies mid-splice: the game is resumed from its journal by the hub that
    # recovers A (issue 31), and the door sends its clients there
    a_id = health(a)["cluster"]["hub"]
    passed, _ = prolog(b.ports["mnm"], game["id"])
    try:
        a.stop(signal.SIGKILL)
        wait_for(lambda: health(b)["cluster"]["alive"] == 2, "B sees A gone")
        # the survivor that recovers A may be C: B hears of the game's new hub by notice
        owner = wait_for(
            lambda: (
                games_of(b).get(game["id"], {}).get("hub") not in (None, a_id)
                and games_of(b)[game["id"]]
            ),
            "B lists the game on the hub that resumed it",
        )
        assert owner["state"] != "aborted", owner
    finally:
        passed.close()
    client, lines = prolog(b.ports["mnm"], game["id"])
    try:
        assert all(line.startswith("+ ") for line in lines[3:]), lines  # played, not refused
    finally:
        client.close()


class Browser:
    """A cookie-keeping JSON client of one hub's web front end (its own session)."""

    def __init__(self, hub: HubProcess) -> None:
        self.hub = hub
        status, raw, headers = hub.request("GET", "/api/session")
        assert status == 200, raw
        self.cookie = headers["Set-Cookie"].split(";", 1)[0]
        self.csrf = json.loads(raw)["csrf"]

    def call(self, method: str, path: str, body: object = None, **kw: Any) -> tuple[int, Any]:
        headers = {"Cookie": self.cookie, "X-CSRF-Token": self.csrf}
        status, raw, answered = self.hub.request(method, path, body, headers=headers, **kw)
        assert "Set-Cookie" not in answered  # the owner's session stays with the door
        return status, json.loads(raw)


def test_a_web_action_on_a_door_plays_a_game_of_another_hub(doors):
    a, b, _ = doors
    game = create(a, {"type": "hello", "seats": ["human", "bot:hello-bot"]})
    listed_on(b, game["id"])
    browser = Browser(b)
    status, seated = browser.call("POST", f"/api/games/{game['id']}/seats", {"seat": 0})
    assert status == 200, seated
    # the event stream of the seat, through B
    stream = urllib.request.urlopen(  # noqa: S310
        urllib.request.Request(
            b.url(f"/api/games/{game['id']}/events"), headers={"Cookie": browser.cookie}
        ),
        timeout=30,
    )
    with stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        first = next(line for line in iter(stream.readline, b"") if line.startswith(b"data:"))
        assert json.loads(first[5:])["seat"] == 0, first  # the snapshot of seat 0
        status, acted = browser.call(
            "POST", f"/api/games/{game['id']}/actions", {"action": {"hello": "hi through B"}}
        )
        assert status == 200, acted
        for line in iter(stream.readline, b""):  # the stream tells the end (bounded: 30 s)
            if b"over" in line:
                break
    assert a.get_json(f"/api/games/{game['id']}")["state"] == "over"  # type: ignore[index]
    # a write without the door session's CSRF token is refused by the door itself
    status, raw, _ = b.request(
        "POST", f"/api/games/{game['id']}/leave", {}, headers={"Cookie": browser.cookie}
    )
    assert status == 403, raw
    # a proxied request is never one "from the owner's machine": no loopback writes
    status, raw, _ = b.request("POST", f"/api/games/{game['id']}/bots", {"seat": 0})
    assert status == 401, raw
    status, raw, _ = b.request(
        "POST", f"/api/games/{game['id']}/bots", {"seat": 0, "bot": "hello-bot"}, admin=True
    )
    assert status != 403, raw  # the API token is passed on: the owner decides
    for hub in (a, b):
        assert HubProcess.TOKEN not in hub.log() and browser.csrf not in hub.log()
        assert hub.errors() == [], hub.log()


def test_placement_named_hub_or_the_least_loaded(doors):
    a, b, c = doors
    ids = [health(h)["cluster"]["hub"] for h in doors]
    hello = {"type": "hello", "seats": ["open", "bot:hello-bot"]}

    def make(hub: HubProcess, body: dict[str, Any], **kw: Any) -> tuple[int, Any]:
        status, raw, _ = hub.request("POST", "/api/games", body, **kw)
        return status, json.loads(raw)

    # named: B makes it on A (the API token passed on); A runs it and its bot
    status, game = make(b, {**hello, "hub": ids[0]}, admin=True)
    assert status == 201 and game["hub"] == ids[0], game
    mine = {g["id"]: g for g in a.get_json("/api/games")}[game["id"]]  # type: ignore[union-attr]
    assert "remote" not in mine and mine["seats"][1]["player"] == "hello-bot"
    status, again = make(b, {**hello, "hub": ids[0]}, admin=True)
    assert status == 201 and again["hub"] == ids[0]
    # a hub that is not there; and the owner decides who may create (no token: 401)
    status, refused = make(b, {**hello, "hub": "nohub"}, admin=True)
    assert status == 404 and "no live hub" in refused["error"]
    status, refused = make(b, {**hello, "hub": ids[2]})
    assert status == 401, refused
    # unnamed: A has two games, B and C none: A places it on one of them
    for hub in doors:
        wait_for(
            lambda h=hub: {game["id"], again["id"]} <= {g["id"] for g in h.get_json("/api/games")},
            "every hub lists A's two games",
        )
    status, placed = make(a, hello, admin=True)
    assert status == 201 and placed["hub"] in ids[1:], placed
    owner = doors[ids.index(placed["hub"])]
    ran = {g["id"]: g for g in owner.get_json("/api/games")}[placed["id"]]  # type: ignore[union-attr]
    assert ran["seats"][1]["player"] == "hello-bot"  # its bot runs where it runs
    # without the API token it stays on the hub that was asked (only it lets it in)
    status, here = make(a, hello)
    assert status == 201 and here["hub"] == ids[0]
    for hub in doors:
        assert hub.errors() == [], hub.log()


def test_four_domino_clients_on_three_hubs_meet_in_one_game(doors):
    a, b, c = doors
    names = ["ann", "bob", "cid", "dee"]
    spread = [a, b, c, b]
    bots = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bots.kingdomino",
                "--port",
                str(hub.ports["domino"]),
                "--login",
                name,
                "--bot",
                "greedy",
                "--think",
                "0.05",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            cwd=ROOT,
        )  # fmt: skip
        for hub, name in zip(spread, names, strict=True)
    ]
    outs = [bot.communicate(timeout=300) for bot in bots]
    results = set()
    for bot, (out, err) in zip(bots, outs, strict=True):
        assert bot.returncode == 0, err
        line = next(x for x in out.splitlines() if x.startswith("GAME OVER RESULTS"))
        assert all(name in line for name in names), line  # the four in one game
        results.add(line)
    assert len(results) == 1, results  # the same game's results for each
    played = [
        g
        for hub in doors
        for g in hub.get_json("/api/games")  # type: ignore[union-attr]
        if g["type"] == "kingdomino" and "remote" not in g
    ]
    assert len(played) == 1 and {s["player"] for s in played[0]["seats"]} == set(names)
    for hub in doors:
        assert hub.errors() == [], hub.log()
