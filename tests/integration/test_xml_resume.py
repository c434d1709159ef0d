"""Resume tokens of the XML front end (docs/xml.md "Resuming a session"): a real hub
on loopback sockets, on SQLite and on PostgreSQL, driven by ``hub.client``.

A lost connection keeps its seat; ``authentication/resume`` with the login's token
gives the session back (its games, a fresh state of each) on this hub or on another
hub of the same database; every bad token is refused with 403 and changes nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import pytest_twisted
from twisted.internet import defer, error, reactor, task
from twisted.logger import globalLogPublisher

from hub.client import HubClient, RequestFailed
from hub.plugins.registry import Registry
from hub.service import HubService
from hub.store import open_store
from hub.store.accounts import ScryptParams
from tests.store.conftest import fresh_pg_schema, pg_base_dsn
from tests.tcpproxy import TcpProxy

LIMIT = 10.0


def bounded(d: defer.Deferred, seconds: float = LIMIT) -> defer.Deferred:
    return d.addTimeout(seconds, reactor)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def dsn(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:{tmp_path}/hub.sqlite"
        return
    with fresh_pg_schema(pg_base_dsn()) as fresh:
        yield fresh


class Hubs:
    """Hubs on one database, each stopped at the end."""

    def __init__(self, tmp_path: Path, dsn: str) -> None:
        self.tmp_path, self.dsn = tmp_path, dsn
        self.running: list[HubService] = []

    async def start(self, name: str = "a", **options) -> HubService:
        store = open_store(self.dsn, reactor, scrypt=ScryptParams(n=16, r=8, p=1))
        data = self.tmp_path / f"data-{name}"
        service = HubService(
            reactor,
            data,
            {"xml": "tcp:0:interface=127.0.0.1"},
            Registry(data, reactor),
            store=store,
            options={"xml_max_per_address": 64, "xml_check_output": True, **options},
        )
        self.running.append(service)
        service.startService()
        await bounded(service._starting)
        return service

    async def stop(self, service: HubService) -> None:
        self.running.remove(service)
        await bounded(service.stopService())


@pytest.fixture
def hubs(tmp_path, dsn):
    made = Hubs(tmp_path, dsn)
    yield made
    for service in list(made.running):
        made.running.remove(service)
        pytest_twisted.blockon(bounded(service.stopService()))


async def connect(hub: HubService) -> HubClient:
    return await bounded(HubClient.connect(reactor, "127.0.0.1", hub.bound_ports["xml"]))


async def refused(d: defer.Deferred) -> RequestFailed:
    try:
        await bounded(d)
    except RequestFailed as e:
        return e
    raise AssertionError("the request was not refused")


def said(tag: str):
    return lambda u: u.payload is not None and u.payload.tag == tag


async def cut(client: HubClient) -> None:
    """The client's TCP connection dies (reset, no logout)."""
    assert client.proto is not None and client.proto.transport is not None
    client.proto.transport.abortConnection()
    await bounded(client.closed)


async def two_players(hub: HubService):
    ann, bob = await connect(hub), await connect(hub)
    await bounded(ann.create_account("ann", "secret1"))
    await bounded(bob.create_account("bob", "secret2"))
    await bounded(ann.login("ann", "secret1"))
    await bounded(bob.login("bob", "secret2"))
    gameid = await bounded(ann.create_game("hello", "resume", seats=2))
    await bounded(ann.join(gameid))
    await bounded(bob.join(gameid))
    return ann, bob, gameid


async def until(predicate, seconds: float = LIMIT) -> None:
    """Wait (bounded) until ``predicate()`` holds."""
    for _ in range(int(seconds / 0.02)):
        if predicate():
            return
        await task.deferLater(reactor, 0.02, lambda: None)
    raise AssertionError("never happened")


def game_of(hub: HubService):
    return next(g for g in hub.lobby.games() if g.name == "resume")


@pytest_twisted.ensureDeferred
async def test_a_lost_connection_keeps_its_seat_and_resumes_with_its_token(hubs):
    hub = await hubs.start()
    ann, bob, gameid = await two_players(hub)
    token = ann.resume_token
    assert token and len(token) >= 43  # 256 bits
    await bounded(bob.wait_for(said("turn")))
    await cut(ann)
    await until(lambda: not any(c.account and c.account.name == "ann" for c in hub_conns(hub)))
    assert [(s.player, s.present) for s in game_of(hub).seats] == [("ann", True), ("bob", True)]
    await bounded(bob.act(gameid, "<hello>hi ann</hello>"))  # missed by ann
    back = await connect(hub)
    me = await bounded(back.resume("ann", token))
    assert me["name"] == "ann" and back.session
    assert list(back.game_sessions) == [gameid]
    assert back.resume_token and back.resume_token != token  # used once, a new one
    # a fresh state of the game follows, with what was said meanwhile
    state = await bounded(back.wait_for(said("hellogame")))
    assert "hi ann" in "".join(state.payload.itertext())
    await bounded(back.act(gameid, "<hello>back again</hello>"))
    await bounded(bob.wait_for(said("over")))
    await bounded(back.wait_for(said("over")))
    assert back.invalid == [] and bob.invalid == []
    # the used token resumes nothing any more
    again = await connect(hub)
    assert (await refused(again.resume("ann", token))).code == 403
    for client in (back, bob, again):
        await client.close()


def hub_conns(hub: HubService):
    return [c for c in xml_frontend(hub).connections if not c.closing]


def xml_frontend(hub: HubService):
    return hub.frontend_factory("xml")


@pytest_twisted.ensureDeferred
async def test_bad_tokens_are_refused_and_change_nothing(hubs):
    hub = await hubs.start()
    ann, bob, gameid = await two_players(hub)
    token, bob_token = ann.resume_token, bob.resume_token
    assert token != bob_token
    mallory = await connect(hub)
    # forged, empty, another account's token, one's own token named for another
    for name, value in [
        ("ann", "x" * 43),
        ("ann", ""),
        ("ann", bob_token),
        ("bob", token),
        ("nobody", token),
    ]:
        e = await refused(mallory.resume(name, value))
        assert (e.code, e.description) == (403, "unknown, expired or used resume token")
    # nothing changed: still logged out, both tokens still good
    assert (await refused(mallory.game_list())).code == 401
    # a resume while logged in is refused as a second login
    assert (await refused(bob.resume("ann", token))).code == 409
    # logged out: the token is dropped and the seat left
    await bounded(ann.logout())
    assert (await refused(mallory.resume("ann", token))).code == 403
    assert [s.present for s in game_of(hub).seats] == [False, True]
    # a password change: the account's other sessions' tokens are dropped, not its own
    first, second = await connect(hub), await connect(hub)
    await bounded(first.create_account("dan", "secret4"))
    await bounded(first.login("dan", "secret4"))
    await bounded(second.login("dan", "secret4"))
    await bounded(second.change_password("dan", "secret4", "secret4-new"))
    assert (await refused(mallory.resume("dan", first.resume_token))).code == 403
    kept = second.resume_token
    await cut(second)
    await bounded(mallory.resume("dan", kept))
    await bounded(mallory.logout())
    await first.close()
    # a live session taken over by its token: the old connection is closed
    other = await connect(hub)
    await bounded(other.resume("bob", bob_token))
    await bounded(bob.closed)
    assert other.game_sessions == {gameid: other.game_sessions[gameid]}
    assert game_of(hub).seats[1].player == "bob"
    for client in (ann, mallory, other):
        await client.close()


@pytest_twisted.ensureDeferred
async def test_the_token_is_never_written_anywhere(hubs, tmp_path):
    logged: list[str] = []

    def observe(event: dict) -> None:
        from twisted.logger import formatEvent

        logged.append(formatEvent(event) + repr(event))

    globalLogPublisher.addObserver(observe)
    try:
        hub = await hubs.start()
        ann, bob, gameid = await two_players(hub)
        token = ann.resume_token
        await cut(ann)
        back = await connect(hub)
        await bounded(back.resume("ann", token))
        new = back.resume_token
        await bounded(back.act(gameid, "<hello>x</hello>"))
        await bounded(bob.act(gameid, "<hello>y</hello>"))
        await bounded(back.wait_for(said("over")))
        for client in (back, bob):
            await client.close()
        await hubs.stop(hub)
    finally:
        globalLogPublisher.removeObserver(observe)
    assert not [line for line in logged if token in line or new in line]
    for root, _, files in os.walk(tmp_path):
        for name in files:
            data = (Path(root) / name).read_bytes()
            assert token.encode() not in data and new.encode() not in data, name


@pytest_twisted.ensureDeferred
async def test_another_hub_of_the_database_accepts_the_token(hubs):
    first = await hubs.start("a", xml_resume_seconds=3)  # its tokens kept alive each second
    ann = await connect(first)
    await bounded(ann.create_account("ann", "secret1"))
    await bounded(ann.login("ann", "secret1"))
    token = ann.resume_token
    second = await hubs.start("b")
    back = await connect(second)
    me = await bounded(back.resume("ann", token))
    assert me["name"] == "ann" and back.game_sessions == {}
    assert await bounded(back.game_list()) == []
    # the first hub learns that the session went on elsewhere: it closes the old one
    await bounded(ann.closed)
    assert "resumed on another connection" in ann.notices[-1]
    # and no longer takes the token the second one used
    again = await connect(first)
    assert (await refused(again.resume("ann", token))).code == 403
    for client in (back, again):
        await client.close()


@pytest_twisted.ensureDeferred
async def test_a_seat_nobody_comes_back_to_is_left_after_the_resume_time(hubs):
    hub = await hubs.start(xml_resume_seconds=0.3)
    ann, bob, gameid = await two_players(hub)
    await cut(ann)
    assert game_of(hub).seats[0].present
    await until(lambda: not game_of(hub).seats[0].present)
    await bob.close()


@pytest_twisted.ensureDeferred
async def test_without_resume_a_lost_connection_leaves_its_seat_at_once(hubs):
    hub = await hubs.start(xml_resume_seconds=0)
    ann, bob, gameid = await two_players(hub)
    assert ann.resume_token is None
    await cut(ann)
    await until(lambda: not game_of(hub).seats[0].present)
    await bob.close()


# -- hub.client resumes by itself --------------------------------------------------------


async def through(proxy: TcpProxy, hub: HubService, *more: TcpProxy) -> HubClient:
    """A client that reconnects, to the hub through ``proxy`` (then through ``more``)."""
    client = await bounded(
        HubClient.connect(
            reactor, "127.0.0.1", proxy.port, reconnect=True,
            hubs=[("127.0.0.1", p.port) for p in more],
        )
    )  # fmt: skip
    client.RECONNECT_DELAY = 0.05
    return client


@pytest_twisted.ensureDeferred
async def test_the_client_resumes_a_killed_connection_and_the_game_goes_on_to_its_end(hubs):
    hub = await hubs.start()
    with TcpProxy(("127.0.0.1", hub.bound_ports["xml"])) as proxy:
        ann = await through(proxy, hub)
        bob = await connect(hub)
        await bounded(ann.create_account("ann", "secret1"))
        await bounded(bob.create_account("bob", "secret2"))
        await bounded(ann.login("ann", "secret1"))
        await bounded(bob.login("bob", "secret2"))
        gameid = await bounded(ann.create_game("hello", "resume", seats=2))
        await bounded(ann.join(gameid))
        await bounded(bob.join(gameid))
        first = ann.game_sessions[gameid]
        await bounded(bob.act(gameid, "<hello>before the cut</hello>"))
        proxy.cut()  # every connection through it reset, new ones refused for now
        await until(lambda: ann.proto is None)
        acted = ann.act(gameid, "<hello>after the cut</hello>")  # waits, unnoticed
        assert not acted.called
        proxy.restore()
        await bounded(acted)
        await bounded(ann.wait_for(said("over")))
        await bounded(bob.wait_for(said("over")))
        assert ann.reconnected == 1 and ann.game_sessions[gameid] != first
        assert not ann.closed.called and ann.invalid == []
        lines = "".join(
            "".join(u.payload.itertext()) for u in bob.updates[gameid] if u.payload is not None
        )
        assert "after the cut" in lines
        for client in (ann, bob):
            await client.close()


@pytest_twisted.ensureDeferred
async def test_the_client_goes_on_at_the_next_address_and_gives_up_when_none_answers(hubs):
    hub = await hubs.start()
    target = ("127.0.0.1", hub.bound_ports["xml"])
    with TcpProxy(target) as door_a, TcpProxy(target) as door_b:
        ann = await through(door_a, hub, door_b)
        await bounded(ann.create_account("ann", "secret1"))
        await bounded(ann.login("ann", "secret1"))
        door_a.cut()  # door a stays down: the client resumes through door b
        await until(lambda: ann.reconnected == 1)
        assert await bounded(ann.game_list()) == []
        ann.RECONNECTS = 3
        door_b.cut()
        await bounded(ann.closed)  # three tries, then it gives up
        with pytest.raises(error.ConnectionLost):
            await bounded(ann.game_list())


@pytest_twisted.ensureDeferred
async def test_a_watcher_resumes_watching(hubs):
    hub = await hubs.start()
    ann, bob, gameid = await two_players(hub)
    carl = await connect(hub)
    await bounded(carl.create_account("carl", "secret3"))
    await bounded(carl.login("carl", "secret3"))
    joined = await bounded(carl.join(gameid))
    assert joined.description == "watching"
    token = carl.resume_token
    await cut(carl)
    await bounded(ann.act(gameid, "<hello>while carl was away</hello>"))
    back = await connect(hub)
    await bounded(back.resume("carl", token))
    answers = [f for f in back.received if b"<resume " in f]
    assert len(answers) == 1 and b'description="watching"' in answers[0]
    state = await bounded(back.wait_for(said("hellogame")))
    assert "while carl was away" in "".join(state.payload.itertext())
    assert [s.player for s in game_of(hub).seats] == ["ann", "bob"]  # no seat taken
    await bounded(bob.act(gameid, "<hello>bye</hello>"))
    await bounded(back.wait_for(said("over")))
    for client in (ann, bob, back):
        await client.close()
