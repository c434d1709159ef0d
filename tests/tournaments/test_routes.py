"""Routed keys on the line front ends (StringTransport and a task.Clock): an MNM client
that knows only ``ID <Game-ID>`` and a Domino client that knows only ``LOGIN <name>``
reach their tournament games, wait for them, and are refused once it is over."""

from __future__ import annotations

import random

from twisted.internet import defer
from twisted.internet.task import Clock

from bots.kingdomino import GreedyBotFactory
from bots.morris import RandomMorrisBotFactory
from games.kingdomino.server import KingDominoGameFactory
from games.morris.server import MorrisGameFactory
from hub.frontends.domino import make_factory as domino_factory
from hub.frontends.mnm import make_factory as mnm_factory
from hub.frontends.mnm.states import State
from hub.play.routes import Routes
from hub.tournaments.service import TournamentService
from tests.support import DictRegistry, FakeHub, TCPStringTransport


def make_hub(**options):
    registry = DictRegistry(
        games=[MorrisGameFactory(), KingDominoGameFactory()],
        bots=[RandomMorrisBotFactory(), GreedyBotFactory()],
    )
    hub = FakeHub(registry, reactor=Clock(), lobby={"rng": random.Random(3)}, **options)
    hub.routes = Routes()
    hub.tournaments = TournamentService(hub, options)
    return hub


class Line:
    """One line client on a StringTransport."""

    def __init__(self, factory):
        self.proto = factory.buildProtocol(None)
        self.tr = TCPStringTransport()
        self.proto.makeConnection(self.tr)

    def send(self, text: str) -> None:
        self.proto.dataReceived(text.encode() + b"\n")

    def lines(self) -> list[str]:
        out = self.tr.value().decode("ascii").splitlines()
        self.tr.clear()
        return out


def test_an_mnm_entry_key_waits_for_its_game_and_takes_its_seat():
    hub = make_hub(tournament_route_wait=100.0)
    service = hub.tournaments
    t = service.create({"type": "nmmorris", "format": "swiss", "rounds": 1, "max_entrants": 2,
                        "start_when_full": False, "bots": ["morris-random"]})  # fmt: skip
    entry = service.register(t.id, "netA", "client", "mnm")
    client = Line(mnm_factory(hub))
    client.send("VERSION 3.1")
    client.send(f"ID {entry.key}")
    assert client.proto.state is State.ROUTING
    hub.reactor.advance(60)  # no prolog timeout while it waits
    client.send("PLAYER")  # too early: the server has the word
    assert client.lines()[-1] == "- Unexpected command PLAYER: wait for your game"
    assert client.tr.disconnecting
    # again, and this time wait properly
    client = Line(mnm_factory(hub))
    client.send("VERSION 3.1")
    client.send(f"ID {entry.key}")
    client.lines()
    defer.ensureDeferred(service.start_tournament(t.id))
    game = hub.lobby.get(t.games[0].game_id)
    seat = t.games[0].entries.index(entry.id)
    assert client.lines()[:2] == ["+ PLAYING NMMorris", f"+ {game.name}"]
    client.send(f"PLAYER {1 - seat}")  # the other seat is not theirs
    assert client.lines()[-1] == "- No free player"
    client = Line(mnm_factory(hub))
    client.send("VERSION 3.1")
    client.send(f"ID {entry.key}")
    client.send("PLAYER")
    lines = client.lines()
    assert f"+ YOU {seat} netA" in lines and game.seats[seat].player == "netA"
    # a stranger with the game's own id cannot take a reserved seat
    assert game.free_seats("client") == []


def test_an_mnm_key_of_a_finished_tournament_is_refused_and_a_wait_is_bounded():
    hub = make_hub(tournament_route_wait=30.0, tournament_grace=5.0)
    service = hub.tournaments
    t = service.create({"type": "nmmorris", "format": "swiss", "rounds": 1, "max_entrants": 2,
                        "start_when_full": False})  # fmt: skip
    a = service.register(t.id, "a", "client", "mnm")
    service.register(t.id, "b", "client", "mnm")
    waiting = Line(mnm_factory(hub))
    waiting.send("VERSION 3.1")
    waiting.send(f"ID {a.key}")
    hub.reactor.advance(31)
    assert waiting.lines()[-1] == "- Not a valid game ID: no game for you within 30 seconds"
    defer.ensureDeferred(service.start_tournament(t.id))
    hub.reactor.advance(6)  # nobody came: both lose by forfeit, the tournament is over
    assert t.state == "finished" and t.games[0].absent == (True, True)
    late = Line(mnm_factory(hub))
    late.send("VERSION 3.1")
    late.send(f"ID {a.key}")
    assert late.lines()[-1] == "- Not a valid game ID: the tournament is over"


def test_a_domino_login_goes_to_its_tournament_game_not_the_queue():
    hub = make_hub()
    service = hub.tournaments
    t = service.create({"type": "kingdomino", "format": "rotation", "rounds": 1, "max_entrants": 4,
                        "bots": ["greedy", "greedy"], "options": {"answer_seconds": 5}})  # fmt: skip
    factory = domino_factory(hub)
    ann = Line(factory)
    ann.send("LOGIN ann")  # a public player: the queue
    assert factory.waiting and factory.waiting[0].login == "ann"
    service.register(t.id, "kd1", "client", "domino")
    kd1 = Line(factory)
    kd1.send("LOGIN kd1")
    assert [p.login for p in factory.waiting] == ["ann"]  # kd1 waits for its tournament
    service.register(t.id, "kd2", "client", "domino")
    hub.reactor.advance(0)  # full: the tournament starts
    game = hub.lobby.get(t.games[0].game_id)
    assert [s.player for s in game.seats].count("kd1") == 1
    kd2 = Line(factory)
    kd2.send("LOGIN kd2")
    assert sorted(s.player for s in game.seats) == ["greedy", "greedy-2", "kd1", "kd2"]
    assert any(line.startswith("START") for line in kd2.lines())
    assert [p.login for p in factory.waiting] == ["ann"]
