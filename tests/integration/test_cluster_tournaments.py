"""Tournaments on a cluster (issue 31: database restarts, deploys and crashes cost
players no game): two ``twistd gamehub`` processes on one PostgreSQL database
(docs/tournaments.md, "On a cluster of hubs"); the second test kills the owner
(``kill -9``) mid-round instead: B recovers A, resumes its game and adopts the
tournament.

One tournament is run by one hub, its owner: a hub started while the owner's round is
under way lists the tournament and makes no game of it; a registration and a start at
the other hub's door reach the owner, and so does an entrant's MNM key (passed
through to the owner); when the owner is stopped (SIGTERM) mid-round,
the other hub adopts the tournament, follows the round's game that moved to it and
plays the tournament to its end with the right standings.  Waits poll with a deadline;
nothing is timed.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

from tests.hubprocess import HubProcess
from tests.integration.test_cluster import cluster_dsn, health, start_hub, wait_for  # noqa: F401
from tests.integration.test_tournaments import MORRIS, run_clients, wait_finished

SETTINGS = ["--set", "tournament_grace=120", "--set", "mnm_wait_interval=0.2"]


def post(hub: HubProcess, path: str, body: dict[str, Any], code: int = 201) -> dict[str, Any]:
    status, raw, _ = hub.request("POST", path, body, admin=True)
    assert status == code, (status, raw)
    data = json.loads(raw)
    assert isinstance(data, dict)
    return data


def tournament(hub: HubProcess, tid: str) -> dict[str, Any]:
    data = hub.get_json(f"/api/tournaments/{tid}")
    assert isinstance(data, dict)
    return data


def listed(hub: HubProcess, tid: str) -> dict[str, Any]:
    """The tournament as ``hub`` lists it (``{}``: not yet)."""
    status, raw, _ = hub.request("GET", f"/api/tournaments/{tid}")
    return json.loads(raw) if status == 200 else {}


def games_named(hub: HubProcess, prefix: str) -> list[dict[str, Any]]:
    """The games of the whole cluster (``hub``'s list: its own and the others') whose
    name begins with ``prefix``."""
    listed = hub.get_json("/api/games")
    assert isinstance(listed, list)
    return [g for g in listed if str(g["name"]).startswith(prefix)]


def test_one_hub_runs_a_tournament_and_another_adopts_it_mid_round(
    tmp_path: Path,
    cluster_dsn: str,  # noqa: F811
) -> None:
    a = start_hub(tmp_path, "a", cluster_dsn, extra=SETTINGS)
    b: HubProcess | None = None
    try:
        a_id = health(a)["cluster"]["hub"]
        t = post(a, "/api/tournaments", {
            "type": "nmmorris", "format": "swiss", "rounds": 2, "max_entrants": 4,
            "name": "Cluster Swiss", "options": MORRIS, "bots": ["morris", "morris-random"],
        })  # fmt: skip
        tid = t["id"]
        assert t["hub"] == a_id
        keys = [
            post(a, f"/api/tournaments/{tid}/entries", {"kind": "client", "name": n})["key"]
            for n in ("netA", "netB")
        ]
        # full: round 1 on A; the bots' game ends, netA and netB's waits for them
        running = wait_for(
            lambda: (
                (r := tournament(a, tid))["state"] == "running"
                and len([g for g in r["games"] if g["game_id"]]) == 2
                and r
            ),
            "round 1 on A",
        )
        waiting = next(g for g in running["games"] if set(g["names"]) == {"netA", "netB"})

        # B starts while A's round runs: it lists the tournament and makes no game of it
        b = start_hub(tmp_path, "b", cluster_dsn, extra=SETTINGS)
        b_id = health(b)["cluster"]["hub"]
        wait_for(lambda: len(health(b)["cluster"]["hubs"]) == 2, "B sees A")
        seen = tournament(b, tid)
        assert seen["hub"] == a_id and seen["state"] == "running"
        assert [g["game_id"] for g in seen["games"]] == [g["game_id"] for g in running["games"]]
        board = f"Cluster Swiss r1 b{waiting['board']}"
        assert [g["id"] for g in games_named(b, board)] == [waiting["game_id"]]
        assert all(g.get("remote") for g in games_named(b, "Cluster Swiss"))  # none of B's
        assert "adopted" not in b.log()

        # at B's door: a registration and a start reach the owner, A
        other = post(a, "/api/tournaments", {
            "type": "nmmorris", "format": "round-robin", "max_entrants": 4,
            "name": "Door Robin", "options": MORRIS, "start_when_full": False,
        })  # fmt: skip
        wait_for(lambda: listed(b, other["id"]).get("hub") == a_id, "B lists A's second one")
        bot = post(b, f"/api/tournaments/{other['id']}/entries", {"kind": "bot", "bot": "morris"})
        assert bot["kind"] == "bot" and bot["id"] == "e1"
        door = post(
            b, f"/api/tournaments/{other['id']}/entries", {"kind": "client", "name": "netC"}
        )
        wait_for(
            lambda: (
                [e["name"] for e in tournament(a, other["id"])["entries"]] == ["morris", "netC"]
            ),
            "A has the entries made at B's door",
        )
        started = post(b, f"/api/tournaments/{other['id']}/start", {}, code=200)
        assert started["state"] == "running" and started["hub"] == a_id
        # netC's key at B's MNM door: passed through to A, which routes it to its game
        [door_runs] = run_clients(
            [["-m", "bots.morris", "--port", str(b.ports["mnm"]), "--game-id", door["key"],
              "--max-seconds", "0.05"]], 3)  # fmt: skip
        assert [p.returncode for p in door_runs] == [0, 1], [p.stderr for p in door_runs]
        assert "tournament is over" in door_runs[1].stderr
        done = wait_finished(b, other["id"], 120)  # played on A, followed from B
        assert done["state"] == "finished" and sum(s["points"] for s in done["standings"]) == 1
        assert not any(done["games"][0]["absent"] or [])  # netC came, through B

        # A stops mid-round: B adopts the tournament and the game that moved to it
        a.stop(signal.SIGTERM)
        adopted = wait_for(
            lambda: (r := tournament(b, tid)).get("hub") == b_id and r, "B adopts the tournament"
        )
        assert adopted["state"] == "running" and adopted["round"] == 1
        runs = run_clients(
            [
                ["-m", "bots.morris", "--port", str(b.ports["mnm"]), "--game-id", key,
                 "--max-seconds", "0.05", "--seed", str(i)]
                for i, key in enumerate(keys)
            ], 4)  # fmt: skip
        final = wait_finished(b, tid, 120)
        assert final["state"] == "finished" and final["round"] == 2, final
        for played in runs:  # a game a round, then the key is refused: it is over
            assert [p.returncode for p in played] == [0, 0, 1], [p.stderr for p in played]
        moved = next(
            g for g in final["games"] if g["round"] == 1 and g["board"] == waiting["board"]
        )
        assert moved["game_id"] == waiting["game_id"]  # the same game, moved, not made again
        assert moved["state"] == "done" and not any(moved["absent"] or [])
        table = final["standings"]
        assert sum(s["points"] for s in table) == 4  # two games a round, a point each
        assert all(s["games"] == 2 for s in table)
        points = {s["entry"]: s["points"] for s in table}
        for g in final["games"]:
            assert g["state"] == "done" and sum(g["points"]) == 1
        for s in table:
            won = sum(
                g["points"][g["entries"].index(s["entry"])]
                for g in final["games"]
                if s["entry"] in g["entries"]
            )
            assert won == points[s["entry"]]
        ordered = [(s["points"], s["tiebreak"]) for s in table]
        assert ordered == sorted(ordered, reverse=True)
        assert f"tournament {tid} adopted" in b.log()
        assert b.errors() == [], b.log()
        assert a.errors() == [], a.log()
    finally:
        for hub in (a, b):
            if hub is not None:
                hub.stop()


def test_kill_9_of_the_owner_mid_round_costs_the_tournament_no_game(
    tmp_path: Path,
    cluster_dsn: str,  # noqa: F811
) -> None:
    a = start_hub(tmp_path, "a", cluster_dsn, extra=SETTINGS)
    b = start_hub(tmp_path, "b", cluster_dsn, extra=SETTINGS)
    try:
        b_id = health(b)["cluster"]["hub"]
        wait_for(lambda: len(health(a)["cluster"]["hubs"]) == 2, "A sees B")
        t = post(a, "/api/tournaments", {
            "type": "nmmorris", "format": "round-robin", "max_entrants": 2,
            "name": "Crash Robin", "options": MORRIS,
        })  # fmt: skip
        tid = t["id"]
        keys = [  # one at each door; full: A starts it
            post(hub, f"/api/tournaments/{tid}/entries", {"kind": "client", "name": n})["key"]
            for hub, n in ((a, "netA"), (b, "netB"))
        ]
        running = wait_for(
            lambda: (
                (r := tournament(a, tid))["state"] == "running" and r["games"][0]["game_id"] and r
            ),
            "the game on A",
        )
        game_id = running["games"][0]["game_id"]
        a.stop(signal.SIGKILL)  # no goodbye: its lease is ended by B's recovery
        wait_for(lambda: tournament(b, tid).get("hub") == b_id, "B adopts the tournament")
        runs = run_clients(
            [
                ["-m", "bots.morris", "--port", str(b.ports["mnm"]), "--game-id", key,
                 "--max-seconds", "0.05", "--seed", str(i)]
                for i, key in enumerate(keys)
            ], 3)  # fmt: skip
        final = wait_finished(b, tid, 120)
        assert final["state"] == "finished", final
        for played in runs:
            assert [p.returncode for p in played] == [0, 1], [p.stderr for p in played]
        [game] = final["games"]
        assert game["game_id"] == game_id and game["state"] == "done"  # resumed, not made again
        assert not any(game["absent"] or []) and sum(game["points"]) == 1
        assert sum(s["points"] for s in final["standings"]) == 1
        assert b.errors() == [], b.log()
    finally:
        for hub in (a, b):
            hub.stop()
