"""Games survive their hub in a cluster (issue 31): two ``twistd`` hubs on one
PostgreSQL; ``gamehub cluster drain A`` and then SIGTERM of A hand A's games to B,
which resumes them from their journal with the same moves; the player comes back to
her seat on B and the games end normally.  (kill -9 of a hub: its games resumed by the
survivor, ``test_cluster.py``.)"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.integration.test_cluster import cluster_dsn, health, start_hub, wait_for  # noqa: F401
from tests.integration.test_resume_restart import Player, create, game, play, still
from tests.store.test_cli_and_crash import gamehub


def hub_of(hub, game_id: str) -> str | None:  # type: ignore[no-untyped-def]
    status, raw, _ = hub.request("GET", f"/api/games/{game_id}")
    if status != 200:
        return None
    import json

    return str(json.loads(raw).get("hub"))


@pytest.mark.slow
def test_drain_and_sigterm_hand_the_games_to_another_hub(tmp_path: Path, cluster_dsn: str):  # noqa: F811
    a = start_hub(tmp_path, "a", cluster_dsn)
    b = start_hub(tmp_path, "b", cluster_dsn)
    try:
        a_id, b_id = health(a)["cluster"]["hub"], health(b)["cluster"]["hub"]
        for hub in (a, b):
            wait_for(lambda h=hub: health(h)["cluster"]["alive"] == 2, "both hubs alive")
        alice = Player(a, "alice", "alice-pw-1", create=True)
        morris = create(
            a,
            {
                "type": "nmmorris",
                "seats": ["human", "bot:morris-random"],
                "options": {"move_time_ms": 60_000},  # no loss on time under any load
                "hub": a_id,
            },
        )
        hello = create(a, {"type": "hello", "seats": ["open", "bot:hello-bot"], "hub": a_id})
        status, answer = alice.call("POST", f"/api/games/{morris}/seats", {"seat": 0})
        assert status == 200, answer
        assert play(alice, morris, 3) == 3
        before = game(a, morris)

        # gamehub cluster drain A: its games move to B
        r = gamehub("cluster", "drain", a_id, "--db", cluster_dsn, "--wait", "30")
        assert r.returncode == 0, r.stdout + r.stderr + a.log()[-4000:] + b.log()[-4000:]
        assert "drained: 2 game(s)" in r.stdout, r.stdout
        for g in (morris, hello):
            wait_for(lambda g=g: hub_of(b, g) == b_id, f"B runs {g}")
        after = game(b, morris)
        assert still(after["view"]) == still(before["view"])
        assert after["seats"][0]["player"] == "alice"
        # alice comes back to her seat on B and plays the game to its end
        alice = Player(b, "alice", "alice-pw-1", create=False)
        status, answer = alice.call("POST", f"/api/games/{morris}/seats", {"seat": 0})
        assert status == 200 and answer["seat"] == 0, answer
        play(alice, morris, 400)
        wait_for(lambda: game(b, morris)["state"] == "over", "the game ends on B")

        # SIGTERM of A: a game it runs then moves to B too
        later = create(a, {"type": "hello", "seats": ["open", "bot:hello-bot"], "hub": a_id})
        a.stop(signal.SIGTERM)
        assert "handed to hub(s)" in a.log(), a.log()
        wait_for(lambda: hub_of(b, later) == b_id, "B runs A's last game")
        assert game(b, later)["state"] == "waiting"
        r = gamehub("ledger", "check", "--db", cluster_dsn)
        assert r.returncode == 0, r.stdout + r.stderr
        for hub in (a, b):
            assert hub.errors() == [], hub.log()
    finally:
        a.stop()
        b.stop()
