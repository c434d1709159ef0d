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


def test_a_login_of_a_player_seated_in_another_hubs_game_goes_to_that_hub():
    """Issue 31: the player's game moved to hub ``ab`` (its hub stopped or was drained)
    and was resumed there: its login at any door is passed through to ``ab``, which
    seats it back; another name still waits in the cluster's queue (here: no cluster
    queue, this hub's own)."""
    hub, factory = door(lambda: defer.succeed(None))
    hub.lobby.kept_seat = lambda player, frontend: (
        ("ab", OWNER) if (player, frontend) == ("ann", "domino") else None
    )
    client = Client(factory)
    client.send("LOGIN ann")
    assert client.proto.machine.state is State.PASSED
    assert [c[:2] for c in hub.reactor.tcpClients] == [OWNER[:2]]
    other = Client(factory)
    other.send("LOGIN bob")
    assert other.lines() == ["CONNECT", "OK"] and factory.waiting == [other.proto]


def test_the_cluster_names_the_hub_whose_running_game_keeps_the_players_seat():
    from types import SimpleNamespace

    from hub.cluster.remote import RemoteGame
    from hub.cluster.service import Cluster

    hub = FakeHub(reactor=MemoryReactorClock())
    hub.journaling = None  # type: ignore[attr-defined]
    ignore = lambda hook: None  # noqa: E731 (the store's hooks: not used here)
    hub.store = SimpleNamespace(hub_id="door", on_beat=ignore, on_fenced=ignore)
    cluster = Cluster(hub)

    def row(game: str, state: str, frontends: list[str], awaiting: list[str]) -> RemoteGame:
        seats = [
            {"seat": i, "kind": "client", "player": p, "present": True}
            for i, p in enumerate(["ann", "bob"])
        ]
        info = {"frontends": frontends, "awaiting": awaiting}
        return RemoteGame.of(
            {"id": game, "hub": game[:2], "rev": 1, "type": "t", "name": "x", "state": state,
             "seats": seats, "info": info}
        )  # fmt: skip

    games = [
        row("ab1", "over", ["domino"], ["ann"]),  # over: not a game to come back to
        row("cd2", "running", ["web"], ["ann"]),  # not played over Domino
        row("ij5", "running", ["domino"], []),  # ann plays there, present: not kept
        row("ef3", "running", ["domino", "web"], ["ann"]),
        row("gh4", "running", ["domino"], ["bob"]),  # its hub advertises no Domino route
    ]

    def awaiting(player: str) -> list[RemoteGame]:  # (the directory's index by name)
        return [g for g in games if player in g.awaiting]

    cluster.directory = SimpleNamespace(games=lambda: games, awaiting=awaiting)  # type: ignore[assignment]
    for hub_id in ("ab", "cd", "ef", "ij"):
        cluster.members[hub_id] = {"endpoints": {"domino": {"host": hub_id, "port": 7000}}}
    cluster.members["gh"] = {"endpoints": {"mnm": {"host": "10.0.0.6", "port": 7001}}}
    assert cluster.kept_seat("ann", "domino") == ("ef", ("ef", 7000, False))
    assert cluster.kept_seat("bob", "domino") is None and cluster.kept_seat("cy", "domino") is None


def test_a_second_login_of_a_player_who_plays_at_a_hub_that_does_not_gather_is_refused():
    """Passed on to the gathering hub, it could be passed back here by a hub whose
    view of this one is behind: refused here instead (a clear ERROR)."""
    hub, factory = door(lambda: defer.succeed(None))
    hub.place = lambda hub=None, gather=False: Elsewhere(  # type: ignore[method-assign]
        "the cluster's players meet on hub gg", "gg", {}, {"domino": OWNER}
    )
    game = hub.lobby.create_game("kingdomino", seats=["open"] * 4)
    for seat, name in enumerate(["ann", "bob", "cy", "dee"]):
        game.take_seat(name, seat)
    factory = make_factory(hub)
    twice = Client(factory)
    twice.send("LOGIN ann")
    assert twice.lines() == ["CONNECT", "ERROR"] and hub.reactor.tcpClients == []
    other = Client(factory)
    other.send("LOGIN zed")  # anyone else: to the gathering hub
    assert other.proto.machine.state is State.PASSED
    assert [c[:2] for c in hub.reactor.tcpClients] == [OWNER[:2]]
