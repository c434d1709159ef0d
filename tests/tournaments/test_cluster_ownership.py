"""Who runs a tournament on a cluster (``hub.tournaments.cluster``, issue 31): two hubs'
tournament runners on one PostgreSQL database (real stores with their leases, real
notices on the cluster's channel, real lobbies on test clocks).

- only the owner runs a tournament: a second hub that starts while it runs lists it
  and creates no game, and refuses its entrants' keys naming the owner;
- a registration at the other hub's door is written into the stored tournament and
  reaches the owner (by the channel's notice); the owner's saves of an older view keep
  it; the name is taken for both doors; a start asked for at the other door is the
  owner's;
- an owner whose lease ended is fenced: another hub adopts the tournament (once),
  the old owner's save is refused and it runs the tournament no more;
- the adopting hub counts the result of a game that ended on another hub (read from
  the history) and creates again a game nobody has.
"""

from __future__ import annotations

import json
import select
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, closing
from typing import Any

import psycopg2
import pytest
import pytest_twisted
from twisted.internet import defer
from twisted.internet.task import Clock

from bots.hello import HelloBotFactory
from games.hello.server import HelloGameFactory
from hub.model import Elsewhere, GameError
from hub.play.routes import Routes
from hub.tournaments.model import DONE, PLAYING, REGISTERING, RUNNING
from hub.tournaments.service import TournamentService
from tests.store.conftest import fresh_pg_schema, make_store, pg_base_dsn
from tests.support import DictRegistry, FakeHub
from tests.tournaments.test_service import make


class Link:
    """A hub's cluster as the tournaments see it: its id and its notices."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.hear: Any = None

    @property
    def hub_id(self) -> str:
        return str(self.store.hub_id)

    def on_notice(self, op: str, hear: Any) -> None:
        assert op == "tournament"
        self.hear = hear

    def route_to(self, hub_id: str, reason: str) -> Elsewhere:
        return Elsewhere(reason, hub_id, {"mnm": "127.0.0.1:1"}, {"mnm": ("127.0.0.1", 1, False)})


class Member:
    """One hub: its store, lobby and tournament runner (on a test clock), the runner
    made as ``HubService`` makes it on a cluster."""

    def __init__(self, store: Any, **options: Any) -> None:
        self.store = store
        self.link = Link(store)
        self.clock = Clock()
        registry = DictRegistry([HelloGameFactory()], [HelloBotFactory()])
        self.hub = FakeHub(registry, reactor=self.clock, store=store)
        self.hub.routes = Routes()
        self.service = TournamentService(self.hub, options, self.link)
        self.hub.tournaments = self.service

    @property
    def id(self) -> str:
        return self.link.hub_id

    async def saved(self) -> None:
        await self.service.saved()

    async def until(self, check: Any, what: str) -> None:
        """Wait (bounded) for the store's answers until ``check()``."""
        for _ in range(300):
            if check():
                return
            await pause()
        raise AssertionError(f"never: {what}")


@pytest.fixture
def pg_dsn():
    with fresh_pg_schema(pg_base_dsn()) as dsn:
        yield dsn


async def member(dsn: str, **options: Any) -> Member:
    store = make_store(dsn)
    await store.start()
    await store.cluster_channel()
    return Member(store, tournament_grace=30.0, **options)


@asynccontextmanager
async def hubs(pg_dsn: str, count: int) -> AsyncIterator[list[Member]]:
    """``count`` members on one database, each stopped at the end whatever happened."""
    made: list[Member] = []
    try:
        for _ in range(count):
            made.append(await member(pg_dsn))
        yield made
    finally:
        for m in made:
            await m.service.stop()
            await m.store.stop()


class Channel:
    """The cluster's channel, heard on a connection of the test's own and handed to
    every member's runner (as :class:`hub.cluster.Cluster` does)."""

    def __init__(self, dsn: str, channel: str, members: list[Member]) -> None:
        self.connection = psycopg2.connect(dsn)
        self.connection.autocommit = True
        self.connection.cursor().execute(f'LISTEN "{channel}"')
        self.members = members

    async def deliver(self) -> int:
        """Hand every notice sent so far to every member; returns how many."""
        select.select([self.connection], [], [], 0.2)
        self.connection.poll()
        told, self.connection.notifies[:] = list(self.connection.notifies), []
        for n in told:
            if json.loads(n.payload)["op"] == "tournament":
                for m in self.members:
                    m.link.hear(n.payload)
        for m in self.members:  # the reads the notices started
            for _ in range(100):
                if not m.service.cluster._loading:
                    break
                await pause()
        return len(told)

    def close(self) -> None:
        self.connection.close()


async def pause() -> None:
    from twisted.internet import reactor, task

    await task.deferLater(reactor, 0.01, lambda: None)


def hello(**more: Any) -> dict[str, Any]:
    return {"type": "hello", "format": "swiss", "rounds": 1, **more}


@pytest_twisted.ensureDeferred
async def test_a_second_hub_lists_the_owners_tournament_and_creates_no_game(pg_dsn):
    a = await member(pg_dsn)
    b = None
    try:
        t = a.service.create(hello(max_entrants=4))
        assert t.owner == a.id and t.id.endswith("-" + a.id[:6])
        entries = [a.service.register(t.id, n, "client", "mnm") for n in ("ann", "bob", "cy")]
        a.service.register(t.id, "dee", "client", "mnm")
        a.clock.advance(0)  # full: round 1 starts on A
        await a.until(lambda: len(a.hub.lobby.games()) == 2, "round 1 made on A")
        assert t.state == RUNNING
        await a.saved()
        b = await member(pg_dsn)
        await b.service.start()  # B starts while A's round runs
        seen = b.service.get(t.id)
        assert seen.state == RUNNING and seen.owner == a.id
        assert [g.game_id for g in seen.games] == [g.game_id for g in t.games]
        assert b.hub.lobby.games() == []  # nothing made again
        assert not b.service.mine(seen) and a.service.mine(t)
        assert seen.to_json()["hub"] == a.id
        refused: list = []
        b.service.route("mnm", entries[0].key).addErrback(refused.append)
        assert refused and f"runs on hub {a.id}" in refused[0].getErrorMessage()
        assert refused[0].value.hub == a.id and refused[0].value.routes["mnm"]  # passed through
        b.clock.advance(60)  # B times nothing of A's
        assert b.hub.lobby.games() == [] and all(g.state == PLAYING for g in seen.games)
    finally:
        for m in (a, b):
            if m is not None:
                await m.service.stop()
                await m.store.stop()


@pytest_twisted.ensureDeferred
async def test_a_registration_at_another_door_reaches_the_owner(pg_dsn):
    async with hubs(pg_dsn, 2) as (a, b):
        with closing(Channel(pg_dsn, a.store.channel, [a, b])) as channel:
            await a.service.start()
            await b.service.start()
            t = a.service.create(hello(max_entrants=3, bots=["hello-bot"]))
            await a.saved()
            for _ in range(100):
                if t.id in b.service.tournaments:
                    break
                await channel.deliver()
            at_b = b.service.get(t.id)
            assert at_b.owner == a.id and [e.name for e in at_b.entries] == ["hello-bot"]
            entry = await b.service.enter(t.id, "bob", "client", "mnm")
            assert entry.id == "e2" and len(entry.key) == a.hub.lobby.id_length
            # A saves its own view (without bob) before it hears: bob stays
            a.service._changed(t)
            await a.saved()
            for _ in range(100):
                if len(t.entries) == 2:
                    break
                await channel.deliver()
            assert [e.name for e in t.entries] == ["hello-bot", "bob"]  # the owner has it
            assert t.entry_keyed(entry.key) is not None  # and the key that routes bob
            [stored] = await a.store.load_tournaments([t.id])
            assert [e["name"] for e in stored["entries"]] == ["hello-bot", "bob"]
            with pytest.raises(GameError) as taken:
                await a.service.enter(t.id, "BOB", "client", "mnm")
            assert taken.value.code == 409 and "registered already" in taken.value.reason
            # the last place, at B: full, and A (only A) starts it
            await b.service.enter(t.id, "cy", "client", "mnm")
            for _ in range(100):  # the notice reaches A, which starts it
                await channel.deliver()
                a.clock.advance(0)
                b.clock.advance(0)
                if a.hub.lobby.games():
                    break
                await pause()
            assert t.state == RUNNING and [e.name for e in t.entries] == ["hello-bot", "bob", "cy"]
            assert len(a.hub.lobby.games()) == 1 and b.hub.lobby.games() == []
            await a.saved()
            for _ in range(100):
                if b.service.get(t.id).state == RUNNING:
                    break
                await channel.deliver()
            assert b.service.get(t.id).state == RUNNING
            with pytest.raises(GameError) as closed:
                await b.service.enter(t.id, "dan", "client", "mnm")
            assert closed.value.code == 409


@pytest_twisted.ensureDeferred
async def test_a_start_asked_at_another_door_is_the_owners(pg_dsn):
    async with hubs(pg_dsn, 2) as (a, b):
        with closing(Channel(pg_dsn, a.store.channel, [a, b])) as channel:
            await a.service.start()
            await b.service.start()
            t = a.service.create(hello(max_entrants=4, start_when_full=False))
            for name in ("ann", "bob"):
                a.service.register(t.id, name, "client", "mnm")
            await a.saved()
            for _ in range(100):
                if t.id in b.service.tournaments and len(b.service.get(t.id).entries) == 2:
                    break
                await channel.deliver()
            asked = defer.ensureDeferred(b.service.start_tournament(t.id))
            for _ in range(100):  # the notice reaches A, which starts it and saves
                await channel.deliver()
                a.clock.advance(0)
                if asked.called:
                    break
                await pause()
            started = await asked
            assert started.state == RUNNING and started.owner == a.id
            assert (
                t.state == RUNNING and len(a.hub.lobby.games()) == 1 and b.hub.lobby.games() == []
            )


async def end_lease(store: Any, hub_id: str) -> None:
    """What a recovery does to a dead hub's lease (its tournaments are orphans then)."""

    def txn(cur: Any) -> None:
        cur.run("UPDATE hub_lease SET ended = now() WHERE hub_id = ?", hub_id)

    await store._run(txn)


@pytest_twisted.ensureDeferred
async def test_an_orphan_is_adopted_once_and_its_old_owner_is_fenced(pg_dsn):
    async with hubs(pg_dsn, 3) as (a, b, c):
        t = a.service.create(hello(max_entrants=4, bots=["hello-bot"], start_when_full=False))
        await a.saved()
        await b.service.start()
        await c.service.start()
        assert await b.store.tournament_adopt() == []  # A lives: nothing to adopt
        await end_lease(b.store, a.id)
        await b.service.cluster._tick()
        await c.service.cluster._tick()  # too late: B has it
        assert b.service.mine(b.service.get(t.id)) and not c.service.mine(c.service.get(t.id))
        [stored] = await b.store.load_tournaments([t.id])
        assert stored["owner"] == b.id
        # A, cut off meanwhile, still believes it runs it: its save is refused
        a.service.register(t.id, "ann", "client", "mnm")
        await a.saved()
        assert not a.service.mine(t)
        await a.until(lambda: a.service.get(t.id).owner == b.id, "A reads who runs it now")
        [stored] = await b.store.load_tournaments([t.id])
        assert [e["name"] for e in stored["entries"]] == ["hello-bot"]  # nothing of A's
        asked = defer.ensureDeferred(a.service.start_tournament(t.id))  # asks B
        a.clock.advance(a.service.cluster.ask_seconds)  # (no channel here): no answer
        with pytest.raises(GameError) as late:
            await asked
        assert late.value.code == 503 and b.id in late.value.reason


@pytest_twisted.ensureDeferred
async def test_the_adopter_counts_a_game_that_ended_elsewhere_and_makes_a_lost_one_again(
    pg_dsn,
):
    async with hubs(pg_dsn, 2) as (a, b):
        t = a.service.create(hello(max_entrants=4))
        for name in ("ann", "bob", "cy", "dee"):
            a.service.register(t.id, name, "client", "mnm")
        a.clock.advance(0)
        await a.until(lambda: len(a.hub.lobby.games()) == 2, "round 1 made on A")
        ended, lost = t.round_games(1)
        await a.saved()
        # ``ended`` ended on a third hub: its history says the second seat won
        await a.store.record_game(
            ended.game_id, "hello", "r1 b1", [], result={"winners": [1], "scores": [0, 1]}
        )
        await end_lease(b.store, a.id)  # A is gone; nobody has ``lost``
        await b.service.start()
        mine = b.service.get(t.id)
        assert b.service.mine(mine)
        first, second = mine.round_games(1)
        assert first.state == DONE and first.points == (0.0, 1.0)
        assert second.state == PLAYING and second.game_id not in (None, lost.game_id)
        assert [g.id for g in b.hub.lobby.games()] == [second.game_id]  # made again on B
        assert mine.state == RUNNING and mine.round == 1


def test_a_single_hub_runs_every_tournament():
    hub, service, clock = make()
    assert service.cluster is None
    t = service.create(hello(max_entrants=2))
    assert t.owner is None and service.mine(t) and t.id == "t1"
    assert "hub" not in t.to_json()
    assert t.state == REGISTERING
