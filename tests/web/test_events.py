"""Event streams without sockets: Twisted's DummyRequest, a task.Clock, a real lobby."""

from __future__ import annotations

import json

from twisted.internet.error import ConnectionDone
from twisted.internet.task import Clock
from twisted.python.failure import Failure
from twisted.web.test.requesthelper import DummyRequest

from bots.hello import HelloBotFactory
from games.hello.server import HelloGameFactory
from hub.frontends.web.events import GameStream, LobbyStream, Streams
from tests.support import DictRegistry, FakeHub


def make(heartbeat: float = 15.0):
    clock = Clock()
    hub = FakeHub(DictRegistry([HelloGameFactory()], [HelloBotFactory()]), reactor=clock)
    lobby = hub.lobby

    def snapshot(game, seat, player=None, full=False):
        return {"view": game.view(seat), "seat": seat, "full": full}

    return clock, lobby, Streams(hub, clock, snapshot, heartbeat=heartbeat)


def frames(request: DummyRequest) -> list[tuple[str, dict]]:
    text = b"".join(request.written).decode()
    found = []
    for block in text.split("\n\n"):
        lines = block.splitlines()
        if len(lines) == 2 and lines[0].startswith("event: "):
            found.append((lines[0][7:], json.loads(lines[1][6:])))
    return found


def test_snapshot_events_then_a_fresh_view_after_the_burst():
    clock, lobby, streams = make()
    game = lobby.create_game("hello", seats=["open", "bot:hello-bot"])
    request = DummyRequest([b"events"])
    GameStream(request, streams, game, None)
    assert request.responseHeaders.getRawHeaders(b"content-type") == [
        b"text/event-stream; charset=utf-8"
    ]
    assert b"".join(request.written).startswith(b"retry: 2000\n\n")
    assert frames(request)[0][0] == "snapshot"
    assert game.observer_count == 1
    game.take_seat("ann", 0)
    kinds = [d["kind"] for e, d in frames(request) if e == "game"]
    assert kinds[:3] == ["seated", "state", "turn"]
    assert [e for e, _ in frames(request)].count("view") == 0
    clock.advance(0)  # the bot thinks (inline), then the view is sent once
    assert [e for e, _ in frames(request)][-1] == "view"


def test_heartbeat_and_observer_gone_when_the_connection_drops():
    clock, lobby, streams = make(heartbeat=5)
    game = lobby.create_game("hello", seats=["open", "open"])
    request = DummyRequest([b"events"])
    GameStream(request, streams, game, None)
    clock.advance(5)
    assert request.written.count(b": ping\n\n") == 1
    request.processingFailed(Failure(ConnectionDone()))
    assert game.observer_count == 0 and len(streams) == 0
    written = len(request.written)
    clock.advance(30)
    game.take_seat("ann", 0)
    clock.advance(0)
    assert len(request.written) == written  # no heartbeat, no event on a dead stream


def test_streams_end_when_their_game_is_removed():
    clock, lobby, streams = make()
    game = lobby.create_game("hello", seats=["open", "open"])
    watching = DummyRequest([b"events"])
    GameStream(watching, streams, game, None)
    lobby_request = DummyRequest([b"events"])
    LobbyStream(lobby_request, streams)
    lobby.remove(game.id)
    assert watching.finished == 1
    assert frames(watching)[-1] == ("removed", {"id": game.id})
    assert frames(lobby_request)[-1] == ("removed", {"id": game.id})
    assert lobby_request.finished == 0 and len(streams) == 1
    streams.close_all()
    assert lobby_request.finished == 1 and len(streams) == 0


def test_lobby_stream_batches_changes_per_reactor_turn():
    clock, lobby, streams = make()
    request = DummyRequest([b"events"])
    LobbyStream(request, streams)
    assert frames(request) == [("snapshot", {"games": [], "chat": []})]
    game = lobby.create_game("hello", seats=["open", "open"])
    game.take_seat("ann", 0)
    game.take_seat("bob", 1)
    clock.advance(0)
    updates = [d for e, d in frames(request) if e == "game"]
    assert len(updates) == 1 and updates[0]["id"] == game.id
    assert [s["player"] for s in updates[0]["seats"]] == ["ann", "bob"]


def test_seat_events_are_filtered_per_seat():
    clock, lobby, streams = make()
    game = lobby.create_game("hello", seats=["open", "open"])
    from hub.model import GameEvent

    mine, other = DummyRequest([b"e"]), DummyRequest([b"e"])
    GameStream(mine, streams, game, 0)
    GameStream(other, streams, game, 1)
    game._emit(GameEvent("secret", {"x": 1}, seats=frozenset({0})))
    assert any(d["kind"] == "secret" for e, d in frames(mine) if e == "game")
    assert not any(d["kind"] == "secret" for e, d in frames(other) if e == "game")


def test_streams_are_capped():
    from twisted.web.test.requesthelper import DummyRequest as Request

    from hub.frontends.web.play import LobbyEvents, WebFrontend

    clock = Clock()
    web = WebFrontend(FakeHub(reactor=clock, web_max_streams=2), clock)
    resource = LobbyEvents(web.hub, web)
    answers = []
    for _ in range(3):
        request = Request([b""])
        request.method = b"GET"
        answers.append(resource.render(request))
    assert answers[2] != answers[0] and b"too many live streams" in answers[2]
    assert len(web.streams) == 2


def test_cookies_are_secure_when_the_web_endpoint_is_tls():
    from hub.frontends.web.play import served_over_tls

    tls = FakeHub(endpoints={"web": "ssl:8443:privateKey=k.pem"})
    plain = FakeHub(endpoints={"web": "tcp:8080"})
    assert served_over_tls(tls) and not served_over_tls(plain)
    forced = FakeHub(endpoints={"web": "none"}, web_secure_cookies=True)
    assert served_over_tls(forced)

    request = DummyRequest([b""])
    from hub.frontends.web.sessions import Sessions

    Sessions(Clock(), secure=True).log_in(request, None, "ann")
    (cookie,) = request.responseHeaders.getRawHeaders(b"set-cookie")
    assert b"; Secure" in cookie and b"HttpOnly" in cookie and b"SameSite=Strict" in cookie


def test_a_seated_stream_ends_when_the_seat_is_no_longer_its_players():
    from hub.model import GameEvent

    clock, lobby, streams = make()
    game = lobby.create_game("hello", seats=["open", "open"])
    game.take_seat("ann", 0)
    request = DummyRequest([b"events"])
    GameStream(request, streams, game, 0, "web:ann", "ann")
    game.leave_seat(0)  # hello reopens the seat (the game has not started)
    game.take_seat("eve", 0)
    game._emit(GameEvent("secret", {"for": "eve"}, seats=frozenset({0})))
    sent = frames(request)
    assert ("seat-lost", {"seat": 0}) in sent
    assert not any(d.get("kind") == "secret" for e, d in sent if e == "game")
    assert request.finished == 1 and game.observer_count == 0


def test_a_retired_games_replay_comes_from_the_store_or_is_no_longer_kept():
    """Retiring a finished game drops its event log (a bounded record per finished
    game): its replay is then the store's, public events only, or a clear 404."""
    from twisted.internet import defer

    from hub.frontends.web.play import WebFrontend, WebGames
    from hub.model import GameError

    clock = Clock()
    hub = FakeHub(reactor=clock, lobby={"retire_after": 5})
    lobby = hub.lobby
    games = WebGames(hub, WebFrontend(hub, clock))
    game = lobby.create_game("hello", seats=["open", "open"])
    game.take_seat("ann", 0)
    game.take_seat("bob", 1)
    game.act(0, {"hello": "hi"})
    game.act(1, {"hello": "bye"})
    status, live = games._replay(game.id)
    assert status == 200 and [e["kind"] for e in live["events"]].count("hello") == 2
    clock.advance(5)
    assert game.retired
    try:
        games._replay(game.id)
        raise AssertionError("a retired game's replay without a store")
    except GameError as e:
        assert e.code == 404 and "no longer kept" in e.reason
    stored = {k: v for k, v in live.items() if k != "script"}
    hub.store = type("Store", (), {"replay": lambda self, gid: defer.succeed(stored)})()
    answered = []
    games._replay(game.id).addCallback(answered.append)
    assert answered == [(200, {**stored, "script": live["script"]})]


def test_only_an_account_gets_its_seat_back_by_name():
    """A guest's seat is found again only through the session that took it: another
    guest session that drew the same random name is no player of it."""
    from hub.frontends.web.play import WebFrontend
    from hub.frontends.web.sessions import Session

    clock = Clock()
    hub = FakeHub(reactor=clock)
    lobby = hub.lobby
    web = WebFrontend(hub, clock)
    game = lobby.create_game("hello", seats=["human", "human"])
    game.take_seat("guest-a1b2c3", 0, kind="human")
    game.take_seat("sticky", 1, kind="human")
    taker = Session("t1", "c1", "guest-a1b2c3", seats={game.id: 0})
    assert web.seat_of(taker, game) == 0
    namesake = Session("t2", "c2", "guest-a1b2c3")
    assert web.seat_of(namesake, game) is None
    account = Session("t3", "c3", "sticky", account="sticky")
    assert web.seat_of(account, game) == 1  # logged in again: the account's seat


def test_a_lobby_change_is_rendered_once_for_every_lobby_stream(monkeypatch):
    """Issue 19 item 2 (counted, not timed): one frame per change (and per chat line)
    for the whole audience, not one per stream."""
    from hub.connections.chat import LOBBY
    from hub.frontends.web import events

    built: list[str] = []
    real = events.sse_frame

    def counting(event, data):
        built.append(event)
        return real(event, data)

    monkeypatch.setattr(events, "sse_frame", counting)
    clock, lobby, streams = make()
    requests = [DummyRequest([b"events"]) for _ in range(6)]
    for request in requests:
        LobbyStream(request, streams)
    built.clear()
    game = lobby.create_game("hello", seats=["open", "open"])
    game.take_seat("ann", 0)
    clock.advance(0)
    assert built == ["game"]  # two changes in one turn: coalesced, rendered once
    streams.chat.say(LOBBY, "ann", "hi")
    lobby.remove(game.id)
    assert built == ["game", "chat", "removed"]
    for request in requests:
        assert [e for e, _ in frames(request)][1:] == ["game", "chat", "removed"]
