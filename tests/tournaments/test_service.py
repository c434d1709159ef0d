"""The tournament runner on a fake clock (``hub.tournaments.service``): rounds of
lobby games, routes for network clients, no-shows lose by forfeit after the grace
period, sit-and-go, and a restart from the stored records."""

from __future__ import annotations

import pytest
from twisted.internet import defer
from twisted.internet.task import Clock
from zope.interface import implementer
from zope.interface.verify import verifyObject

from bots.hello import HelloBotFactory
from games.hello.server import HelloGameFactory
from hub.interfaces import ITournamentStore, IWholeTournamentFactory
from hub.model import GameError
from hub.play.routes import Routes
from hub.tournaments.model import DONE, FINISHED, RUNNING, Tournament
from hub.tournaments.service import TournamentService
from tests.support import DictRegistry, FakeHub


@implementer(IWholeTournamentFactory)
class WholeHello(HelloGameFactory):
    """Hello, declared as a game that is a whole tournament (for sit-and-go)."""

    name = "hello-sng"


class WholeHelloBot(HelloBotFactory):
    name = "sng-bot"
    games = ("hello-sng",)


@implementer(ITournamentStore)
class MemoryTournaments:
    """The tournaments' part of the store, in memory (the SQL one is tested in
    tests/store/test_tournaments.py)."""

    def __init__(self):
        self.rows = {}

    def save_tournament(self, data):
        self.rows[data["id"]] = data
        return defer.succeed(None)

    def load_tournaments(self):
        return defer.succeed(list(self.rows.values()))

    def delete_tournament(self, tid):
        self.rows.pop(tid, None)
        return defer.succeed(None)


def test_the_memory_store_is_a_tournament_store():
    verifyObject(ITournamentStore, MemoryTournaments())


def make(store=None, **options):
    clock = Clock()
    registry = DictRegistry(
        [HelloGameFactory(), WholeHello()], [HelloBotFactory(), WholeHelloBot()]
    )
    hub = FakeHub(registry, reactor=clock, store=store)
    hub.routes = Routes()
    service = TournamentService(hub, options)
    hub.tournaments = service
    return hub, service, clock


def seated(hub, routed):
    game = routed.game
    hub.lobby.get(game.id).take_seat(routed.name, routed.seat, kind="client")
    return game


def test_swiss_no_show_loses_by_forfeit_after_the_grace_period():
    hub, service, clock = make(tournament_grace=30.0)
    t = service.create(
        {
            "type": "hello",
            "format": "swiss",
            "rounds": 2,
            "max_entrants": 4,
        }
    )
    service.register(t.id, "hello-bot", "bot", "hub", "hello-bot")
    service.register(t.id, "hello-bot", "bot", "hub", "hello-bot")  # named hello-bot-2
    alice = service.register(t.id, "alice", "client", "mnm")
    bob = service.register(t.id, "bob", "client", "mnm")
    assert t.full and [e.name for e in t.entries] == ["hello-bot", "hello-bot-2", "alice", "bob"]
    clock.advance(0)  # full: starts
    assert t.state == RUNNING and t.round == 1
    # alice connects with her key and is routed to her game; bob never shows
    routed = []
    service.route("mnm", alice.key).addCallback(routed.append)
    assert routed and routed[0].name == "alice"
    seated(hub, routed[0])
    mine = next(g for g in t.round_games(1) if alice.id in g.entries)
    assert bob.id in mine.entries  # round 1: by seed, the bots meet, alice meets bob
    clock.advance(29)
    assert not all(g.state == DONE for g in t.round_games(1))
    clock.advance(2)  # the grace period is over: bob's game is lost by forfeit
    done = {g.entries: g for g in t.round_games(1)}
    assert all(g.state == DONE for g in done.values())
    bob_game = next(g for g in done.values() if bob.id in g.entries)
    assert bob_game.absent is not None and bob_game.absent[bob_game.entries.index(bob.id)]
    assert bob_game.points == ((1.0, 0.0) if bob_game.entries[1] == bob.id else (0.0, 1.0))
    assert t.round == 2
    clock.advance(31)  # round 2: bob (and alice, not connected) forfeit again
    assert t.state == FINISHED
    table = t.standings()
    assert [(s.entry, s.points) for s in table][-2:] == [(alice.id, 1.0), (bob.id, 0.0)]
    with pytest.raises(GameError):
        service.register(t.id, "carol", "client", "mnm")
    failed = []
    service.route("mnm", alice.key).addErrback(failed.append)
    assert failed and "over" in failed[0].getErrorMessage()


def test_a_routed_client_waits_for_its_game():
    hub, service, clock = make()
    t = service.create(
        {
            "type": "hello",
            "format": "round-robin",
            "max_entrants": 3,
            "start_when_full": False,
        }
    )
    entries = [service.register(t.id, n, "client", "domino") for n in ("ann", "ben", "cid")]
    got = []
    service.route("domino", "ann").addCallback(got.append)
    assert not got  # registering: waits
    assert service.route("domino", "nobody") is None  # not routed: the public queue
    defer.ensureDeferred(service.start_tournament(t.id))
    assert [g.entries for g in t.round_games(1)] == [
        (entries[0].id,),
        (entries[1].id, entries[2].id),
    ]
    assert not got  # ann has the bye of round 1: she waits on
    assert t.total_rounds == 3
    for r in range(1, 4):
        assert t.round == r
        for g in t.round_games(r):
            if len(g.entries) == 2:
                routed = []
                for eid in g.entries:
                    e = t.entry(eid)
                    d = got if (e.name == "ann" and got) else []
                    if not d:
                        service.route("domino", e.name).addCallback(d.append)
                    assert d[-1].name == e.name
                    seated(hub, d[-1])
                    routed.append(d.pop())
                for one in routed:
                    hub.lobby.get(one.game.id).act(one.seat, {"hello": "hi"})
    assert t.state == FINISHED
    assert sorted(s.points for s in t.standings()) == [2.0, 2.0, 2.0]  # 1 a bye, ½ a draw
    assert {s.byes for s in t.standings()} == {1}
    assert entries


def test_sit_and_go_one_game_ranks_are_places():
    hub, service, clock = make()
    with pytest.raises(GameError):
        service.create({"type": "hello", "format": "sit-and-go"})
    t = service.create(
        {
            "type": "hello-sng",
            "format": "sit-and-go",
            "max_entrants": 3,
            "bots": ["sng-bot", "sng-bot"],
        }
    )
    carol = service.register(t.id, "carol", "client", "mnm")
    clock.advance(0)
    assert len(t.games) == 1 and len(t.games[0].entries) == 3
    d = []
    service.route("mnm", carol.key).addCallback(d.append)
    seated(hub, d[0])
    hub.lobby.get(d[0].game.id).leave_seat(d[0].seat)  # carol leaves without a hello
    for _ in range(10):
        clock.advance(1)  # the bots say hello
    assert t.state == FINISHED
    places = [(s.place, t.entry(s.entry).name) for s in t.standings()]
    assert places[-1] == (3, "carol") and places[0][0] == 1


def test_restart_replays_the_round_in_progress():
    store = MemoryTournaments()
    hub, service, clock = make(store)
    t = service.create(
        {
            "type": "hello",
            "format": "swiss",
            "rounds": 1,
            "max_entrants": 2,
        }
    )
    a = service.register(t.id, "a1", "client", "mnm")
    service.register(t.id, "hello-bot", "bot", "hub", "hello-bot")
    clock.advance(0)
    old_game = t.games[0].game_id
    assert store.rows[t.id]["state"] == RUNNING
    # a new hub on the same store: the game is lost with the old lobby, made again
    hub2, service2, clock2 = make(store)
    defer.ensureDeferred(service2.start())
    t2 = service2.get(t.id)
    assert isinstance(t2, Tournament) and t2.state == RUNNING
    assert t2.games[0].game_id not in (None, old_game)
    d = []
    service2.route("mnm", a.key).addCallback(d.append)
    game = seated(hub2, d[0])
    game.act(d[0].seat, {"hello": "hi"})
    for _ in range(10):
        clock2.advance(1)  # the bot says hello
    assert t2.state == FINISHED and store.rows[t.id]["state"] == FINISHED


def test_limits():
    hub, service, clock = make(tournament_max_active=1, tournament_max_entrants=2)
    t = service.create({"type": "hello", "format": "swiss", "start_when_full": False})
    with pytest.raises(GameError):
        service.create({"type": "hello", "format": "swiss"})
    service.register(t.id, "x1", "client", "mnm")
    service.register(t.id, "x2", "client", "mnm")
    with pytest.raises(GameError) as e:
        service.register(t.id, "x3", "client", "mnm")
    assert e.value.code == 409
    with pytest.raises(GameError):
        service.create({"type": "hello", "format": "swiss", "rounds": 99})
    with pytest.raises(GameError) as e:
        service.create({"type": "hello", "format": "swiss", "colour": "blue"})
    assert "unknown field" in e.value.reason
    with pytest.raises(GameError):
        service.create({"type": "hello", "bots": "hello-bot"})


def test_options_are_checked_as_the_game_declares_them():
    from games.morris.server import MorrisGameFactory

    clock = Clock()
    hub = FakeHub(DictRegistry([MorrisGameFactory()]), reactor=clock)
    service = TournamentService(hub)
    with pytest.raises(GameError) as e:
        service.create({"type": "nmmorris", "options": {"move_time_ms": 5}})
    assert "move_time_ms" in e.value.reason
    t = service.create({"type": "nmmorris", "options": {"move_time_ms": 500}})
    assert t.settings["options"] == {"move_time_ms": 500}


def test_only_the_newest_finished_tournaments_are_kept():
    store = MemoryTournaments()
    hub, service, clock = make(store, tournament_keep=2)
    made = []
    for _ in range(4):
        t = service.create({"type": "hello", "format": "swiss", "rounds": 1, "max_entrants": 2,
                            "bots": ["hello-bot", "hello-bot"]})  # fmt: skip
        for _ in range(5):
            clock.advance(1)  # it starts (full) and the bots say hello
        assert t.state == FINISHED
        made.append(t.id)
    assert sorted(service.tournaments) == sorted(made[-2:]) == sorted(store.rows)
