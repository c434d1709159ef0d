"""An XML client resumes its session through another door of a cluster (issue 31:
players come back by themselves): three ``twistd gamehub`` processes on one PostgreSQL
database; hub A runs a game, ann plays it through B's door (her game session relayed),
B becomes unreachable for her mid-game, and ``hub.client`` resumes the session through
C with its resume token (kept in the shared database): C joins the game again at A,
where her seat waited, and the game goes on to its end.

Waits poll with a deadline; nothing is timed.
"""

from __future__ import annotations

import pytest_twisted
from twisted.internet import reactor
from twisted.internet.task import deferLater

from hub.client import HubClient
from hub.frontends.xml.payload import wire_game_id
from tests.integration.test_cluster import cluster_dsn, create, three, wait_for
from tests.tcpproxy import TcpProxy

__all__ = ["cluster_dsn", "three"]  # the fixtures, used by name

DEADLINE = 30.0


def said(tag: str):
    return lambda u: u.payload is not None and u.payload.tag == tag


async def until(check, what: str) -> None:
    for _ in range(int(DEADLINE / 0.05)):
        if check():
            return
        await deferLater(reactor, 0.05, lambda: None)
    raise AssertionError(f"never: {what}")


@pytest_twisted.ensureDeferred
async def test_an_xml_client_resumes_through_another_door_and_plays_on(three):
    a, b, c = three
    game = create(a, {"type": "hello", "name": "doors", "seats": ["open", "open"]})
    gameid = wire_game_id(game["id"])
    for hub in (b, c):
        wait_for(lambda h=hub: game["id"] in {g["id"] for g in h.get_json("/api/games")}, "listed")
    with TcpProxy(("127.0.0.1", b.ports["xml"])) as door_b:
        ann = await HubClient.connect(
            reactor, "127.0.0.1", door_b.port, reconnect=True,
            hubs=[("127.0.0.1", c.ports["xml"])],
        ).addTimeout(DEADLINE, reactor)  # fmt: skip
        ann.RECONNECT_DELAY = 0.05
        bob = await HubClient.connect(reactor, "127.0.0.1", a.ports["xml"]).addTimeout(
            DEADLINE, reactor
        )
        try:
            for client, name in ((ann, "ann"), (bob, "bob")):
                await client.create_account(name, f"pw-{name}-123").addTimeout(DEADLINE, reactor)
                await client.login(name, f"pw-{name}-123").addTimeout(DEADLINE, reactor)
            joined = await ann.join(gameid).addTimeout(DEADLINE, reactor)
            assert joined.description == "seated at seat 0"
            await bob.join(gameid).addTimeout(DEADLINE, reactor)
            await bob.act(gameid, "<hello>hi ann</hello>").addTimeout(DEADLINE, reactor)
            door_b.cut()  # B is gone for ann (and stays so): she comes back through C
            await until(lambda: ann.reconnected == 1, "ann resumed through C")
            await ann.act(gameid, "<hello>back through C</hello>").addTimeout(DEADLINE, reactor)
            await bob.wait_for(said("over")).addTimeout(DEADLINE, reactor)
            await ann.wait_for(said("over")).addTimeout(DEADLINE, reactor)
            assert ann.invalid == [] and not ann.closed.called
            seats = [s["player"] for s in a.get_json(f"/api/games/{game['id']}")["seats"]]
            assert seats == ["ann", "bob"]
        finally:
            for client in (ann, bob):
                await client.close()
    for hub in three:
        assert hub.errors() == [], hub.log()
