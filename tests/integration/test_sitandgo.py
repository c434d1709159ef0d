"""A poker sit-and-go on a real hub: created over the JSON API with in-hub bots, played
to the end, its places in the game's JSON, the history and the ratings."""

from __future__ import annotations

import json

from tests.hubprocess import LOOPBACK, HubProcess
from tests.support import wait_until

BOTS = ["bot:raiser", "bot:caller", "bot:poker-random", "bot:holdem"]


def test_a_sit_and_go_of_bots_finishes_with_places(tmp_path) -> None:
    with HubProcess(tmp_path, web=LOOPBACK) as hub:
        options = {"starting_chips": 400, "hands_per_level": 4, "showdown_pause": 0}
        status, body, _ = hub.request(
            "POST", "/api/games",
            {"type": "holdem-sng", "seats": BOTS, "options": options, "rated": True},
        )  # fmt: skip
        assert status == 201, body
        game_id = json.loads(body)["id"]
        status, body, _ = hub.request(
            "POST", "/api/games", {"type": "holdem-sng", "seats": BOTS, "options": {"buyin": 5}}
        )
        assert status == 400 and b"unknown sit-and-go options: buyin" in body

        def over() -> dict | None:
            game = hub.get_json(f"/api/games/{game_id}")
            return game if game["state"] == "over" else None  # type: ignore[index]

        game = wait_until(over, "the sit-and-go to finish", seconds=120, step=0.2)
        result = game["result"]
        assert sorted(p for p in result["places"] if p is not None)[0] == 1
        assert len(result["places"]) == 4 and None not in result["places"]
        assert result["winners"] == [result["places"].index(1)]
        assert [e["place"] for e in result["eliminations"]] == sorted(
            (e["place"] for e in result["eliminations"]), reverse=True
        )
        assert "won the sit-and-go of 4" in result["summary"]
        stacks = [p["bankroll"] for p in game["view"]["players"]]
        assert sorted(stacks) == ["0", "0", "0", "1600"]

        def recorded() -> list:
            return hub.get_json("/api/history?type=holdem-sng")  # type: ignore[return-value]

        [row] = wait_until(recorded, "the history to have the game", seconds=20)
        assert row["game_id"] == game_id
        assert row["result"]["places"] == result["places"]
        by_seat = {p["seat"]: p for p in row["players"]}
        winner = result["places"].index(1)
        assert by_seat[winner]["winner"] is True
        assert by_seat[winner]["score"] == 3  # outlasted three players

        def rated() -> list:
            board = hub.get_json("/api/ratings/holdem-sng")
            return board["players"] if len(board["players"]) == 4 else []  # type: ignore[index]

        players = wait_until(rated, "the ratings of the four bots", seconds=20)
        names = {p: s for s, p in enumerate(n.removeprefix("bot:") for n in BOTS)}
        assert names[players[0]["name"]] == winner  # the winner is rated first
        assert hub.errors() == []
