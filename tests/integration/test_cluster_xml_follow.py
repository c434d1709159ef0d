"""A relayed XML game session follows its game when the game's hub is drained
(issue 31, docs/cluster.md "XML: relayed game sessions"): three ``twistd gamehub``
processes on one PostgreSQL database; hub A runs the games, the XML clients play them
through B's and C's doors (their game sessions relayed); ``gamehub cluster drain A``
moves the games, and each door's relay follows its session to the game's new hub: the
client keeps its connection, its session id and its seat, and plays on to the end.

- a hello game (``hub.client``, no reconnecting): bob says hello before the drain
  (or A's SIGTERM), ann after it, on the same connections and sessions; both see the
  game end;
- a hold'em chip table (the blocking XML client of the privacy tests): two hands
  before the drain and two after it, with the same session ids, the hole cards still
  only at their own seat, every chip accounted for (``gamehub ledger check``).

Waits poll with a deadline; nothing is timed.
"""

from __future__ import annotations

import signal

import pytest
import pytest_twisted
from lxml import etree
from twisted.internet import reactor, threads

from hub.client import HubClient
from hub.frontends.xml.payload import wire_game_id
from tests.integration.test_cluster import cluster_dsn, create, health, three, wait_for
from tests.integration.test_cluster_handover import hub_of
from tests.integration.test_privacy import _leaks, _own_holes, _play, join, sit
from tests.store.test_cli_and_crash import gamehub

from .xmlsocket import XMLClient, ok

__all__ = ["cluster_dsn", "three"]  # the fixtures, used by name

LIMIT = 60.0
TABLE = {"stakes": "10/20", "buyin": 400, "showdown_pause": 0, "auto_post": True}


def listed(hub, game_id: str) -> bool:  # type: ignore[no-untyped-def]
    return game_id in {g["id"] for g in hub.get_json("/api/games")}


def drain(hub_id: str, dsn: str) -> str:
    r = gamehub("cluster", "drain", hub_id, "--db", dsn, "--wait", "30")
    assert r.returncode == 0, r.stdout + r.stderr
    return str(r.stdout)


def moved(hubs, game_id: str, old: str) -> str:  # type: ignore[no-untyped-def]
    """The game's new hub (bounded wait): listed by every hub elsewhere than ``old``."""
    return str(
        wait_for(
            lambda: (h := hub_of(hubs[1], game_id)) not in (None, old) and h,
            f"{game_id} runs on another hub than {old}",
        )
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "how",
    [
        "drain",
        "sigterm",
    ],
)
@pytest_twisted.ensureDeferred
async def test_relayed_hello_sessions_follow_their_game_when_its_hub_is_drained(three, how):
    a, b, c = three
    a_id = health(a)["cluster"]["hub"]
    dsn = a.extra[1]
    game = create(a, {"type": "hello", "seats": ["open", "open"], "hub": a_id})
    gameid = wire_game_id(game["id"])
    for hub in (b, c):
        wait_for(lambda h=hub: listed(h, game["id"]), "B and C list A's game")
    ann = await HubClient.connect(reactor, "127.0.0.1", b.ports["xml"]).addTimeout(LIMIT, reactor)
    bob = await HubClient.connect(reactor, "127.0.0.1", c.ports["xml"]).addTimeout(LIMIT, reactor)
    try:
        for client, name in ((ann, "ann"), (bob, "bob")):
            await client.create_account(name, f"pw-{name}-123").addTimeout(LIMIT, reactor)
            await client.login(name, f"pw-{name}-123").addTimeout(LIMIT, reactor)
        joined = await ann.join(gameid).addTimeout(LIMIT, reactor)
        assert joined.description == "seated at seat 0", joined.description
        joined = await bob.join(gameid).addTimeout(LIMIT, reactor)
        assert joined.description == "seated at seat 1", joined.description
        sessions = (ann.game_sessions[gameid], bob.game_sessions[gameid])
        await bob.act(gameid, "<hello>before the move</hello>").addTimeout(LIMIT, reactor)

        if how == "drain":
            out = await threads.deferToThread(drain, a_id, dsn)
            assert "drained: 1 game(s)" in out, out
        else:  # SIGTERM: A hands its game over as it stops, and closes the relays
            await threads.deferToThread(a.stop, signal.SIGTERM)
            assert "1 game(s) handed to hub(s)" in a.log(), a.log()
        new = await threads.deferToThread(moved, three, game["id"], a_id)
        await ann.act(gameid, "<hello>after the move</hello>").addTimeout(LIMIT, reactor)
        for client in (ann, bob):

            def over(u, c=client):  # type: ignore[no-untyped-def]
                return u.gameid == gameid and u.payload is not None and u.payload.tag == "over"

            await client.wait_for(over).addTimeout(LIMIT, reactor)
        # the same connections and sessions all along: nothing failed, nothing resumed
        assert (ann.game_sessions[gameid], bob.game_sessions[gameid]) == sessions
        for client in (ann, bob):
            assert client.invalid == [] and not client.closed.called
            assert client.reconnected == 0
            ended = [u for us in client.updates.values() for u in us if not u.success]
            assert ended == [], ended
        owner = {health(h)["cluster"]["hub"]: h for h in (b, c)}[new]
        final = owner.get_json(f"/api/games/{game['id']}")
        assert final["state"] == "over" and [s["player"] for s in final["seats"]] == ["ann", "bob"]
        for door in (b, c):
            if door is not owner:  # (a game that moved to the door itself is its own)
                assert f"game {game['id']} followed to hub" in door.log(), door.log()
    finally:
        for client in (ann, bob):
            await client.close()
    for hub in three:
        assert hub.errors() == [], hub.log()


@pytest.mark.slow
def test_a_relayed_chip_table_follows_its_table_when_its_hub_is_drained(three):
    a, b, c = three
    a_id = health(a)["cluster"]["hub"]
    dsn = a.extra[1]
    game = create(
        a, {"type": "texas-holdem", "seats": ["open", "open"], "options": TABLE, "hub": a_id}
    )
    gameid = wire_game_id(game["id"])
    for hub in (b, c):
        wait_for(lambda h=hub: listed(h, game["id"]), "B and C list A's table")
    ann, bob = XMLClient(b.ports["xml"]), XMLClient(c.ports["xml"])
    try:
        for client, name in ((ann, "ann"), (bob, "bob")):
            assert ok(client.login(name, f"pw-{name}-123"))
        for seat, client in enumerate((ann, bob)):
            client.game_sid = join(client, gameid)
            sit(client, gameid, seat)
        sessions = (ann.game_sid, bob.game_sid)
        _play({0: ann, 1: bob}, gameid, hands=2)

        drain(a_id, dsn)  # (its count is of the games; the table moves all the same)
        wait_for(lambda: "1 game(s) handed to hub(s)" in a.log(), "A hands the table over")
        new = moved(three, game["id"], a_id)
        before = len(ann.frames)
        _play({0: ann, 1: bob}, gameid, hands=2)  # the same clients, sessions and seats
        assert (ann.game_sid, bob.game_sid) == sessions
        after = [etree.fromstring(f) for f in ann.frames[before:]]
        assert any(d.get("sessionid") == str(ann.game_sid) for d in after)
        for doc in after:  # nothing ended the session
            assert doc.find("stateupdate/game/updatedgamestate[@success='false']") is None
        ann_holes, bob_holes = _own_holes(ann, 0), _own_holes(bob, 1)
        assert len(ann_holes) >= 4 and len(bob_holes) >= 4  # own cards before and after
        assert _leaks(b"".join(ann.frames).decode(), 1, bob_holes - ann_holes) == []
        assert _leaks(b"".join(bob.frames).decode(), 0, ann_holes - bob_holes) == []
        owner = {health(h)["cluster"]["hub"]: h for h in (b, c)}[new]
        seats = [s["player"] for s in owner.get_json(f"/api/games/{game['id']}")["seats"]]
        assert seats == ["ann", "bob"]
    finally:
        ann.close()
        bob.close()
    r = gamehub("ledger", "check", "--db", dsn)
    assert r.returncode == 0, r.stdout + r.stderr
    for hub in three:
        assert hub.errors() == [], hub.log()
