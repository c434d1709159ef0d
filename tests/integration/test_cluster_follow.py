"""An MNM client spliced through another hub's door keeps its connection when the
game's hub is drained (issue 31, docs/cluster.md "A game that moves"): three ``twistd
gamehub`` processes on one PostgreSQL database; A runs a morris game, the project's
network morris bot (a course-style MNM client, which connects once and never again)
plays it through B's door, which splices (``cluster_handoff=false``, as between
machines); ``gamehub cluster drain A`` (or SIGTERM of A) moves the game, B's splice
follows it to its new hub, and the bot's one connection goes on to the end of the game.

Waits poll with a deadline; nothing is timed.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.integration.test_cluster import cluster_dsn, create, health, start_hub, wait_for
from tests.integration.test_cluster_doors import listed_on, morris_bot
from tests.integration.test_cluster_handover import hub_of
from tests.store.test_cli_and_crash import gamehub

__all__ = ["cluster_dsn"]  # the fixture, used by name

#: a game long enough to be drained in its middle: the bot thinks ``THINK`` s a move
LONG_MORRIS = {"move_time_ms": 20_000, "grace_ms": 2000, "max_turns": 80}
THINK = 0.4


@pytest.mark.slow
@pytest.mark.parametrize("how", ["drain", "sigterm"])
def test_a_spliced_mnm_client_keeps_its_connection_when_the_owner_is_drained(
    tmp_path: Path,
    cluster_dsn: str,  # noqa: F811
    how: str,
):
    a = start_hub(tmp_path, "a", cluster_dsn)
    b = start_hub(tmp_path, "b", cluster_dsn, extra=["--set", "cluster_handoff=false"])
    c = start_hub(tmp_path, "c", cluster_dsn)
    hubs = [a, b, c]
    bot = None
    try:
        ids = [health(h)["cluster"]["hub"] for h in hubs]
        for hub in hubs:
            wait_for(lambda h=hub: health(h)["cluster"]["alive"] == 3, "the three alive")
        game = create(
            a,
            {
                "type": "nmmorris",
                "seats": ["open", "bot:morris-random"],
                "options": LONG_MORRIS,
                "hub": ids[0],
            },
        )
        assert listed_on(b, game["id"])["hub"] == ids[0]
        bot = morris_bot(b.ports["mnm"], game["id"], 0, tmp_path, think=THINK)
        wait_for(lambda: "passed through" in b.log(), "B splices the client to A")
        wait_for(
            lambda: a.get_json(f"/api/games/{game['id']}")["state"] == "running",  # type: ignore[index]
            "the game runs on A",
        )
        if how == "drain":
            r = gamehub("cluster", "drain", ids[0], "--db", cluster_dsn, "--wait", "30")
            assert r.returncode == 0, r.stdout + r.stderr + a.log()[-4000:]
            assert "drained: 1 game(s)" in r.stdout, r.stdout
        else:  # a stop hands its games over the same way
            assert a.stop(signal.SIGTERM) in (0, -signal.SIGTERM), a.log()[-4000:]
            assert "game(s) handed to hub(s)" in a.log(), a.log()[-4000:]
        out, err = bot.communicate(timeout=60)
        # the bot connects once: it played to the end on the connection it opened
        assert bot.returncode == 0, (out, err, b.log()[-4000:])
        assert f"game {game['id']} over" in out, out
        assert "splice: the game moved; passed on to" in b.log(), b.log()
        new = wait_for(lambda: hub_of(b, game["id"]), "the game's new hub")
        assert new in ids[1:]
        owner = hubs[ids.index(new)]
        assert owner.get_json(f"/api/games/{game['id']}")["state"] == "over"  # type: ignore[index]
        for hub in hubs:
            assert hub.errors() == [], hub.log()
    finally:
        if bot is not None and bot.poll() is None:
            bot.kill()
            bot.wait(timeout=10)
        for hub in hubs:
            hub.stop()
