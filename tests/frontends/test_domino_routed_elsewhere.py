"""A Domino login that another hub of the cluster routes (an entrant of a tournament
that hub runs, issue 31): the route answers :class:`hub.model.Elsewhere` at once, and
the door passes the connection through to that hub instead of refusing it; any other
refusal of the route is still the door's ``ERROR``."""

from __future__ import annotations

import random

from twisted.internet import defer
from twisted.internet.testing import MemoryReactorClock

from bots.kingdomino import GreedyBotFactory
from games.kingdomino.server import KingDominoGameFactory
from hub.frontends.domino import make_factory
from hub.frontends.domino.states import State
from hub.model import Conflict, Elsewhere
from hub.play.routes import Routes
from tests.frontends.test_domino_protocol import Client
from tests.support import DictRegistry, FakeHub

OWNER = ("127.0.0.1", 4321, False)


def door(answer):
    hub = FakeHub(
        DictRegistry(games=[KingDominoGameFactory()], bots=[GreedyBotFactory()]),
        reactor=MemoryReactorClock(),
        lobby={"rng": random.Random(1)},
    )
    hub.routes = Routes()
    hub.routes.add(lambda frontend, key: answer() if key == "entrant" else None)
    return hub, make_factory(hub)


def test_a_login_another_hub_routes_is_passed_through_to_that_hub():
    hub, factory = door(
        lambda: defer.fail(
            Elsewhere("tournament t1-ab runs on hub ab", "ab", {}, {"domino": OWNER})
        )
    )
    client = Client(factory)
    client.send("LOGIN entrant")
    assert client.proto.machine.state is State.PASSED
    assert [c[:2] for c in hub.reactor.tcpClients] == [OWNER[:2]]  # connecting to the owner
    assert not client.closed


def test_another_refusal_of_the_route_is_still_an_error_here():
    hub, factory = door(lambda: defer.fail(Conflict("the tournament is over")))
    client = Client(factory)
    client.send("LOGIN entrant")
    assert "ERROR" in client.lines() and client.closed
    assert hub.reactor.tcpClients == []
