"""Tournaments on a real hub process over real sockets: a Swiss tournament of eight
morris players (in-hub bots and two network clients over MNM, each connecting with
its entry's key as the Game-ID, once a round) and a four-player King Domino rotation of
network clients over the Domino protocol (each logging in with its registered name
once a round), both run to the end with their standings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.hubprocess import LOOPBACK, ROOT, HubProcess

#: quick games: short move clocks, few turns, quick WAITs
MORRIS = {"move_time_ms": 300, "grace_ms": 1500, "max_turns": 30, "wait_interval_ms": 200}


def client_rounds(argv: list[str], most: int, out: list[subprocess.CompletedProcess]) -> None:
    """Run one network client again and again (one game a run) until a run fails (the
    tournament is over: the hub refuses the key) or ``most`` runs."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for _ in range(most):
        done = subprocess.run(
            [sys.executable, *argv], capture_output=True, text=True, timeout=240,
            env=env, cwd=str(ROOT),
        )  # fmt: skip
        out.append(done)
        if done.returncode != 0:
            return


def run_clients(argvs: list[list[str]], most: int) -> list[list[subprocess.CompletedProcess]]:
    """:func:`client_rounds` of each client at once, in threads (bounded)."""
    runs: list[list[subprocess.CompletedProcess]] = [[] for _ in argvs]
    threads = [
        threading.Thread(target=client_rounds, args=(argv, most, runs[i]))
        for i, argv in enumerate(argvs)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    return runs


def post(hub: HubProcess, path: str, body: dict) -> dict:
    status, raw, _ = hub.request("POST", path, body, admin=True)
    assert status in (200, 201), (status, raw)
    data = json.loads(raw)
    assert isinstance(data, dict)
    return data


def wait_finished(hub: HubProcess, tid: str, seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        t = hub.get_json(f"/api/tournaments/{tid}")
        assert isinstance(t, dict)
        if t["state"] in ("finished", "cancelled"):
            return t
        time.sleep(0.2)
    raise AssertionError(f"tournament {tid} did not finish: {t}")


def start_hub(tmp_path: Path, **frontends: str) -> HubProcess:
    """A hub for ``with``: the with statement starts it and stops it (started here too,
    a second process would run on and outlive the test)."""
    hub = HubProcess(tmp_path, web=LOOPBACK, **frontends)
    hub.extra += ["--set", "tournament_grace=60", "--set", "mnm_wait_interval=0.2"]
    return hub


def test_swiss_of_eight_morris_players_with_two_mnm_clients(tmp_path):
    with start_hub(tmp_path, mnm=LOOPBACK) as hub:
        t = post(hub, "/api/tournaments", {
            "type": "nmmorris", "format": "swiss", "rounds": 3, "max_entrants": 8,
            "name": "Sunday Swiss", "options": MORRIS,
            "bots": ["morris", "morris", "morris-random", "morris-random", "morris-random",
                     "morris-random"],
        })  # fmt: skip
        assert t["state"] == "registering" and len(t["entries"]) == 6
        keys = []
        for name in ("netA", "netB"):
            entry = post(
                hub,
                f"/api/tournaments/{t['id']}/entries",
                {"kind": "client", "name": name, "frontend": "mnm"},
            )
            assert len(entry["key"]) == 13  # an MNM Game-ID
            keys.append(entry["key"])
        listed = hub.get_json(f"/api/tournaments/{t['id']}")
        assert isinstance(listed, dict) and all("key" not in e for e in listed["entries"])
        runs = run_clients(
            [
                ["-m", "bots.morris", "--port", str(hub.ports["mnm"]), "--game-id", key,
                 "--max-seconds", "0.05", "--seed", str(i)]
                for i, key in enumerate(keys)
            ], 5)  # fmt: skip
        final = wait_finished(hub, t["id"], 120)
        assert final["state"] == "finished" and final["round"] == 3
        for i, played in enumerate(runs):
            # one game a round, then the key is refused: the tournament is over
            assert [p.returncode for p in played] == [0, 0, 0, 1], [p.stderr for p in played]
            assert all(f"game {keys[i]} over" in p.stdout for p in played[:3])
            assert "tournament is over" in played[3].stderr
        table = final["standings"]
        assert len(table) == 8 and final["tiebreak"] == "buchholz"
        assert sum(s["points"] for s in table) == 12  # 4 games a round, 1 point each
        assert all(s["games"] == 3 for s in table)
        points = {s["entry"]: s["points"] for s in table}
        opponents: dict[str, list[str]] = {e: [] for e in points}
        for g in final["games"]:
            assert g["state"] == "done" and not any(g["absent"] or [])  # nobody forfeited
            a, b = g["entries"]
            opponents[a].append(b)
            opponents[b].append(a)
        for s in table:
            assert s["tiebreak"] == sum(points[o] for o in opponents[s["entry"]])  # Buchholz
            assert len(set(opponents[s["entry"]])) == 3  # no pair met twice
        ordered = [(s["points"], s["tiebreak"]) for s in table]
        assert ordered == sorted(ordered, reverse=True)
        assert not hub.errors(), hub.errors()


def test_king_domino_rotation_of_four_domino_clients(tmp_path):
    with start_hub(tmp_path, domino=LOOPBACK) as hub:
        t = post(hub, "/api/tournaments", {
            "type": "kingdomino", "format": "rotation", "rounds": 2, "max_entrants": 4,
            "options": {"answer_seconds": 10, "think_seconds": 0.05},
        })  # fmt: skip
        names = ["kd-ann", "kd-ben", "kd-cid", "kd-dee"]
        for name in names:
            post(
                hub,
                f"/api/tournaments/{t['id']}/entries",
                {"kind": "client", "name": name, "frontend": "domino"},
            )
        runs = run_clients(
            [
                ["-m", "bots.kingdomino", "--port", str(hub.ports["domino"]), "--login", name,
                 "--think", "0.05", "--bot", "greedy"]
                for name in names
            ], 3)  # fmt: skip
        final = wait_finished(hub, t["id"], 120)
        assert final["state"] == "finished" and final["round"] == 2
        for played in runs:
            assert [p.returncode for p in played] == [0, 0, 1], [p.stderr for p in played]
            assert all(p.stdout.startswith("GAME OVER RESULTS") for p in played[:2])
        games = final["games"]
        assert [len(g["entries"]) for g in games] == [4, 4]
        assert (
            games[1]["entries"] == games[0]["entries"][1:] + games[0]["entries"][:1]
        )  # seats turn
        assert all(g["state"] == "done" and not any(g["absent"] or []) for g in games)
        table = final["standings"]
        assert sum(s["points"] for s in table) == 12  # 6 a game
        assert all(s["games"] == 2 for s in table)
        assert not hub.errors(), hub.errors()


def gamehub(*argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "hub.cli", *argv], capture_output=True, text=True, timeout=60,
        env=env, cwd=str(ROOT),
    )  # fmt: skip


def test_the_command_line_creates_registers_starts_and_shows(tmp_path):
    with start_hub(tmp_path) as hub:
        at = ["--hub", hub.url(""), "--token", hub.TOKEN]
        made = gamehub("tournament", "create", "nmmorris", "--format", "round-robin",
                       "--name", "cli cup", "--bot", "morris-random", "--option",
                       "move_time_ms=300", "--option", "max_turns=30", *at)  # fmt: skip
        assert made.returncode == 0, made.stderr
        tid = made.stdout.split()[1]
        assert made.stdout == f"tournament {tid} created: cli cup (registering)\n"
        bot = gamehub("tournament", "register", tid, "--bot", "morris-random", *at)
        assert bot.stdout.startswith("entry e2: morris-random-2 (bot, hub)"), bot.stderr
        client = gamehub("tournament", "register", tid, "white-1", "--frontend", "mnm", *at)
        assert client.returncode == 0 and "key " in client.stdout
        listed = gamehub("tournament", "list", *at)
        assert (
            f"{tid}" in listed.stdout and "registering" in listed.stdout and "3/64" in listed.stdout
        )
        started = gamehub("tournament", "start", tid, *at)
        assert started.stdout == f"tournament {tid} started: round 1\n", started.stderr
        again = gamehub("tournament", "start", tid, *at)
        assert again.returncode == 1 and "started already" in again.stderr
        shown = gamehub("tournament", "show", tid, *at)
        assert shown.returncode == 0 and "round 1 board" in shown.stdout
        assert "sonneborn-berger" in shown.stdout and "white-1" in shown.stdout
        unknown = gamehub("tournament", "show", "t99", *at)
        assert unknown.returncode == 1 and "no tournament" in unknown.stderr


def test_a_restart_keeps_the_standings_and_plays_the_round_in_progress_again(tmp_path):
    (tmp_path / "a").mkdir()
    with start_hub(tmp_path / "a", mnm=LOOPBACK) as hub:
        t = post(hub, "/api/tournaments", {
            "type": "nmmorris", "format": "round-robin", "max_entrants": 3, "options": MORRIS,
            "bots": ["morris-random", "morris-random"],
        })  # fmt: skip
        key = post(hub, f"/api/tournaments/{t['id']}/entries",
                   {"kind": "client", "name": "late", "frontend": "mnm"})["key"]  # fmt: skip
        # three entrants: round 1 is a bye for the first bot and the second bot against
        # "late", who does not come before the hub stops
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            now = hub.get_json(f"/api/tournaments/{t['id']}")
            assert isinstance(now, dict)
            if now["round"] == 1:
                break
            time.sleep(0.2)
        assert now["state"] == "running" and now["round"] == 1
        waiting = [g for g in now["games"] if g["round"] == 1 and len(g["entries"]) == 2]
        assert waiting and waiting[0]["state"] == "playing"  # waits for "late"
        old_game = waiting[0]["game_id"]
        assert [s["points"] for s in now["standings"]] == [1.0, 0.0, 0.0]  # the bye
        standings = now["standings"]
        data = hub.data
    # the second hub starts on the first one's data (and its SQLite store)
    second = HubProcess(tmp_path / "b", data=data, web=LOOPBACK, mnm=LOOPBACK)
    second.extra += ["--set", "tournament_grace=60"]
    (tmp_path / "b").mkdir()
    with second as hub:
        back = hub.get_json(f"/api/tournaments/{t['id']}")
        assert isinstance(back, dict) and back["state"] == "running" and back["round"] == 1
        assert back["standings"] == standings  # the bye of round 1 survived
        again = [g for g in back["games"] if g["round"] == 1 and len(g["entries"]) == 2][0]
        # resumed from its journal and followed again (tests/journal/test_resume_tournament.py)
        assert again["state"] == "playing" and again["game_id"] == old_game
        runs: list[subprocess.CompletedProcess] = []
        client_rounds(["-m", "bots.morris", "--port", str(hub.ports["mnm"]), "--game-id", key,
                       "--max-seconds", "0.05"], 4, runs)  # fmt: skip
        final = wait_finished(hub, t["id"], 120)
        assert final["state"] == "finished" and final["round"] == 3
        assert [r.returncode for r in runs] == [0, 0, 1], [r.stderr for r in runs]
        assert all(s["games"] + s["byes"] == 3 for s in final["standings"])
        assert not hub.errors(), hub.errors()
