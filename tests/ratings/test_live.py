"""A rated game over a real front end updates the ratings: a hub in a subprocess, the
network morris bot on the MNM port against an in-hub bot; the leaderboard, the history
and a rebuild afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from tests.hubprocess import ROOT, HubProcess
from tests.integration.xmlsocket import XMLClient, ok
from tests.store.test_cli_and_crash import gamehub


def leaderboard(hub: HubProcess, want: int) -> dict:
    """The nmmorris leaderboard once it has ``want`` players (the rating is stored in a
    pool thread after the game is over); bounded."""
    board: dict = {}
    for _ in range(200):
        board = hub.get_json("/api/ratings/nmmorris")  # type: ignore[assignment]
        if len(board["players"]) >= want:
            break
        time.sleep(0.05)
    return board


def test_a_rated_mnm_game_updates_the_ratings(tmp_path) -> None:
    local = "tcp:0:interface=127.0.0.1"
    hub = HubProcess(tmp_path, web=local, mnm=local, xml=local)
    hub.start()
    try:
        # MNM clients sit as "white"/"black": the seat is rated as the account of that name
        made = gamehub(
            "account", "create", "black", "--password-stdin", "--data", str(hub.data),
            stdin="pw-black-1\n",
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        casual = {"type": "nmmorris", "seats": ["bot:morris-random", "open"]}
        status, body, _ = hub.request("POST", "/api/games", casual)
        assert status == 201 and json.loads(body)["rated"] is False
        status, body, _ = hub.request("POST", "/api/games", {**casual, "rated": True})
        assert status == 201, body
        game = json.loads(body)
        assert game["rated"] is True
        status, body, _ = hub.request("POST", "/api/games", {**casual, "rated": "yes"})
        assert status == 400 and b"'rated' is true" in body
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        proc = subprocess.run(
            [
                sys.executable, "-m", "bots.morris", "--port", str(hub.ports["mnm"]),
                "--game-id", game["id"], "--player", "1", "--max-seconds", "0.05", "--seed", "3",
            ],
            capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        over = hub.get_json(f"/api/games/{game['id']}")
        assert over["state"] == "over"  # type: ignore[index]
        winners = over["result"]["winners"]  # type: ignore[index]
        board = leaderboard(hub, 2)
        players = {p["name"]: p for p in board["players"]}
        assert set(players) == {"black", "morris-random"}
        assert players["black"]["kind"] == "account" and players["morris-random"]["kind"] == "bot"
        assert all(p["games"] == 1 for p in players.values())
        if winners:  # a draw (a repetition) leaves both near where they started
            winner = "black" if winners == [1] else "morris-random"
            assert board["players"][0]["name"] == winner and players[winner]["mu"] > 25
        for p in board["players"]:
            assert p["low"] < p["mu"] < p["high"]
        assert hub.get_json("/api/ratings") == {
            "pools": [{"type": "nmmorris", "variant": "", "players": 2}]
        }
        history = hub.get_json("/api/ratings/nmmorris/history?player=black&kind=account")
        [series] = history["series"]  # type: ignore[index]
        assert series["name"] == "black" and len(series["points"]) == 1
        assert series["points"][0][1] == players["black"]["mu"]
        status, body, _ = hub.request("GET", "/api/ratings/nmmorris/history?player=x&kind=guest")
        assert status == 400
        status, body, _ = hub.request("GET", "/ratings/nmmorris")
        assert status == 200 and b"ratings.js" in body
        # the XML lobby: the same leaderboard (lobby/ratings), and a rated game/create
        xml = XMLClient(hub.ports["xml"])
        try:
            assert ok(xml.login("black", "pw-black-1", create=False))
            answer = xml.request('<lobby><ratings gametype="nmmorris" limit="5"/></lobby>')
            node = answer.find("response/lobby/ratings")
            assert node is not None and node.get("gametype") == "nmmorris"
            rows = [(p.get("place"), p.get("name"), p.get("kind")) for p in node]
            assert rows == [
                (str(i), p["name"], p["kind"]) for i, p in enumerate(board["players"], 1)
            ]
            assert float(node[0].get("mu")) == round(board["players"][0]["mu"], 6)
            made = xml.request(
                '<game><create gametype="hello" name="rated hello"><parameters>'
                "<seat>open</seat><seat>bot:hello-bot</seat><rated>true</rated>"
                "</parameters></create></game>"
            )
            assert ok(made)
        finally:
            xml.close()
        listed = hub.get_json("/api/games")
        assert [g["rated"] for g in listed if g["name"] == "rated hello"] == [True]  # type: ignore[index, union-attr]
    finally:
        hub.stop()
    assert hub.errors() == []
    check = gamehub("ratings", "rebuild", "--check", "--data", str(hub.data))
    assert check.returncode == 0 and "2 ratings from 1 rated games" in check.stdout, check.stdout
