"""The byte splice of :mod:`hub.cluster.splice` over real loopback sockets: a door
whose every connection is passed through to an "owner" server of the test's own.

Each wait is bounded (``addTimeout``); nothing is timed.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest
import pytest_twisted
from twisted.internet import defer, protocol, reactor
from twisted.internet.endpoints import TCP4ClientEndpoint, connectProtocol
from twisted.internet.task import deferLater

from hub.cluster.splice import Splice

BOUND = 30


class Door(protocol.Protocol):
    """Passes each connection through to ``route``; a failure is one ``- reason`` line."""

    def connectionMade(self) -> None:
        conf = self.factory.conf  # type: ignore[attr-defined]

        def failed(reason: str) -> None:
            self.transport.write(f"- {reason}\n".encode())
            self.transport.loseConnection()

        self.splice = Splice(
            reactor,
            self.transport,
            conf["route"],
            b"HELLO\n",
            conf["skip"],
            failed,
            conf,
            tls=conf.get("tls"),
        )
        self.splice.start()
        self.splice.client_data(conf.get("leftover", b""))  # what a framer had read already

    def dataReceived(self, data: bytes) -> None:
        self.splice.client_data(data)

    def connectionLost(self, reason: Any = None) -> None:
        self.splice.client_lost()


class Owner(protocol.Protocol):
    """Says its prolog; then echoes upper-cased; remembers what it heard."""

    def connectionMade(self) -> None:
        self.factory.heard = b""  # type: ignore[attr-defined]
        self.transport.write(self.factory.prolog)  # type: ignore[attr-defined]
        if self.factory.close:  # type: ignore[attr-defined]
            self.transport.loseConnection()

    def dataReceived(self, data: bytes) -> None:
        self.factory.heard += data  # type: ignore[attr-defined]
        if self.factory.echo:  # type: ignore[attr-defined]
            self.transport.write(data.upper())


class Client(protocol.Protocol):
    def __init__(self) -> None:
        self.got = b""
        self.done: defer.Deferred = defer.Deferred()

    def dataReceived(self, data: bytes) -> None:
        self.got += data

    def connectionLost(self, reason: Any = None) -> None:
        self.done.callback(self.got)


def listen(factory: protocol.Factory) -> Any:
    return reactor.listenTCP(0, factory, interface="127.0.0.1")


def owner(prolog: bytes = b"", close: bool = False, echo: bool = True) -> protocol.Factory:
    factory = protocol.Factory.forProtocol(Owner)
    factory.prolog, factory.close, factory.echo = prolog, close, echo  # type: ignore[attr-defined]
    return factory


async def through(route_port: int, skip: int, send: bytes, **conf: Any) -> tuple[bytes, Any]:
    """Connect a client to a door passing on to ``route_port``; send, read to the end."""
    door_factory = protocol.Factory.forProtocol(Door)
    door_factory.conf = {"route": ("127.0.0.1", route_port, False), "skip": skip, **conf}  # type: ignore[attr-defined]
    door = listen(door_factory)
    try:
        client = Client()
        endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", door.getHost().port)
        await connectProtocol(endpoint, client).addTimeout(BOUND, reactor)
        client.transport.write(send)
        got = await client.done.addTimeout(BOUND, reactor)
        return got, door_factory
    finally:
        await door.stopListening()


@pytest_twisted.ensureDeferred
async def test_the_replay_goes_first_the_skipped_lines_are_dropped_then_bytes_pass():
    factory = owner(b"banner\nversion ok\ngame line\n")
    port = listen(factory)
    try:
        client = Client()
        door_factory = protocol.Factory.forProtocol(Door)
        door_factory.conf = {"route": ("127.0.0.1", port.getHost().port, False), "skip": 2}  # type: ignore[attr-defined]
        door = listen(door_factory)
        endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", door.getHost().port)
        await connectProtocol(endpoint, client).addTimeout(BOUND, reactor)
        client.transport.write(b"play 1\n")
        for _ in range(300):  # bounded: until the echo is back
            if b"PLAY 1" in client.got:
                break
            await deferLater(reactor, 0.01, lambda: None)
        client.transport.loseConnection()
        await client.done.addTimeout(BOUND, reactor)
        await door.stopListening()
    finally:
        await port.stopListening()
    assert client.got.startswith(b"game line\n"), client.got  # banner and version dropped
    assert b"PLAY 1\n" in client.got and b"HELLO" in client.got  # the replay, echoed
    assert factory.heard.startswith(b"HELLO\nplay 1\n")  # type: ignore[attr-defined]


@pytest_twisted.ensureDeferred
async def test_an_owner_that_cannot_be_reached_is_a_clear_error():
    gone = listen(owner())
    port = gone.getHost().port
    await gone.stopListening()  # nobody listens there any more
    got, _ = await through(port, 1, b"")
    assert got.startswith(b"- the hub that runs that game cannot be reached"), got


@pytest_twisted.ensureDeferred
async def test_an_owner_that_does_not_answer_in_time():
    port = listen(owner(echo=False))
    try:
        got, _ = await through(port.getHost().port, 1, b"", cluster_connect_seconds=0.5)
    finally:
        await port.stopListening()
    assert got == b"- the hub that runs that game did not answer within 0.5 s\n", got


@pytest_twisted.ensureDeferred
async def test_an_owner_that_closes_before_the_splice():
    port = listen(owner(b"banner\n", close=True))
    try:
        got, _ = await through(port.getHost().port, 2, b"")
    finally:
        await port.stopListening()
    assert got == b"- the hub that runs that game closed the connection\n", got


@pytest_twisted.ensureDeferred
async def test_what_the_client_sends_before_the_owner_answers_is_bounded():
    gone = listen(owner())
    port = gone.getHost().port
    await gone.stopListening()  # connecting fails, slowly or fast: the bound comes first
    got, _ = await through(port, 1, b"", leftover=b"x" * 5000, cluster_splice_buffer=1000)
    assert got.startswith(b"- more than 1000 bytes sent before"), got


@pytest_twisted.ensureDeferred
async def test_an_overlong_line_of_the_owner_before_the_splice():
    port = listen(owner(b"y" * 10000))
    try:
        got, _ = await through(port.getHost().port, 1, b"", cluster_splice_line=100)
    finally:
        await port.stopListening()
    assert got == b"- the hub of that game sent an overlong line\n", got


class Flood(protocol.Protocol):
    """An owner that says its prolog, sends ``size`` bytes and a last line, and closes
    (a game's end: its last lines, then the close)."""

    def connectionMade(self) -> None:
        self.transport.write(b"banner\n")

    def dataReceived(self, data: bytes) -> None:  # the replay: then the game, and its end
        factory: Any = self.factory
        self.transport.write(b"x" * factory.size + b"\n+ PLAYER1WON Yes\n+ QUIT\n")
        self.transport.loseConnection()


class SlowReader(Client):
    """A client that reads nothing until the door's buffer towards it is full (its
    producer, the owner, paused), then reads on to the end."""

    def __init__(self, door_factory: Any) -> None:
        super().__init__()
        self.door_factory = door_factory

    def connectionMade(self) -> None:
        self.transport.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.transport.pauseProducing()

    async def read_when_full(self) -> None:
        def door_is_full() -> bool:
            doors = self.door_factory.doors
            return bool(doors) and bool(getattr(doors[0].transport, "producerPaused", False))

        for _ in range(3000):  # bounded: until the door stops reading from the owner
            if door_is_full():
                break
            await deferLater(reactor, 0.01, lambda: None)
        assert door_is_full(), "the door never paused the owner"
        self.transport.resumeProducing()


class RecordingDoor(Door):
    """A door that keeps what its client's transport had registered as its producer
    each time it was asked to close (Twisted closes a transport only once its producer
    is unregistered or resumed: a closed owner left there may keep it open)."""

    def connectionMade(self) -> None:
        self.factory.doors.append(self)  # type: ignore[attr-defined]
        self.producers_at_close: list[Any] = []
        transport = self.transport
        transport.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        close = transport.loseConnection

        def recorded(*args: Any) -> Any:
            self.producers_at_close.append(transport.producer)
            return close(*args)

        transport.loseConnection = recorded
        super().connectionMade()


@pytest.mark.parametrize("owner_tls", [False, True], ids=["tcp", "tls"])
@pytest_twisted.ensureDeferred
async def test_every_byte_of_the_owner_reaches_a_slow_client_and_the_door_closes_with_the_owner(
    owner_tls, tmp_path
):
    """The known bug (issue 31): the client's transport still had the closed owner
    registered as its producer, paused, when it was asked to close: it never closed,
    and the owner's last lines stayed in the door.  (Over TLS the owner's last records
    and its close are read together, while the client's transport is full.)"""
    from twisted.internet.endpoints import serverFromString

    from hub.tls import ClientTLS
    from tests.tlscerts import make_pki

    factory = protocol.Factory.forProtocol(Flood)
    factory.size = 128 * 1024  # type: ignore[attr-defined]
    conf: dict[str, Any] = {"skip": 1}
    if owner_tls:
        pki = make_pki(tmp_path, "owner")
        port = await serverFromString(reactor, pki.endpoint()).listen(factory)
        conf["tls"] = ClientTLS(ca=str(pki.ca))
    else:
        port = listen(factory)
    conf["route"] = ("127.0.0.1", port.getHost().port, owner_tls)
    door_factory = protocol.Factory.forProtocol(RecordingDoor)
    door_factory.conf = conf  # type: ignore[attr-defined]
    door_factory.doors = []  # type: ignore[attr-defined]
    door = listen(door_factory)
    try:
        client = SlowReader(door_factory)
        endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", door.getHost().port)
        await connectProtocol(endpoint, client).addTimeout(BOUND, reactor)
        await client.read_when_full()
        got = await client.done.addTimeout(BOUND, reactor)
    finally:
        await door.stopListening()
        await port.stopListening()
    assert len(got) == 128 * 1024 + 1 + len(b"+ PLAYER1WON Yes\n+ QUIT\n"), len(got)
    assert got.endswith(b"\n+ PLAYER1WON Yes\n+ QUIT\n")
    (door_protocol,) = door_factory.doors  # type: ignore[attr-defined]
    producers = door_protocol.producers_at_close
    assert producers and all(p is None for p in producers), producers


@pytest_twisted.ensureDeferred
async def test_a_tls_client_of_the_door_gets_the_owners_last_lines_and_the_close(tmp_path):
    """A TLS door (``ssl:`` MNM endpoint) closes its client once the owner closed,
    after the owner's last lines (TLS does not shut down while a producer is
    registered)."""
    from twisted.internet import ssl
    from twisted.internet.endpoints import serverFromString, wrapClientTLS

    from tests.tlscerts import make_pki

    pki = make_pki(tmp_path, "door")
    factory = owner(b"banner\ngame line\n+ PLAYER1WON Yes\n+ QUIT\n", close=True)
    port = listen(factory)
    door_factory = protocol.Factory.forProtocol(Door)
    door_factory.conf = {"route": ("127.0.0.1", port.getHost().port, False), "skip": 1}  # type: ignore[attr-defined]
    door = await serverFromString(reactor, pki.endpoint()).listen(door_factory)
    try:
        client = Client()
        trust = ssl.Certificate.loadPEM(pki.ca.read_bytes())
        endpoint = wrapClientTLS(
            ssl.optionsForClientTLS("127.0.0.1", trustRoot=trust),
            TCP4ClientEndpoint(reactor, "127.0.0.1", door.getHost().port),
        )
        await connectProtocol(endpoint, client).addTimeout(BOUND, reactor)
        got = await client.done.addTimeout(BOUND, reactor)
    finally:
        await door.stopListening()
        await port.stopListening()
    assert got == b"game line\n+ PLAYER1WON Yes\n+ QUIT\n", got


class Scripted(protocol.Protocol):
    """An owner that says ``prolog`` at once, answers what it hears: ``bye`` closes the
    connection after ``last`` (a game handed over: no last line; or its end); anything
    else is echoed upper-cased after the first ``seat`` lines it hears (the replay)."""

    def connectionMade(self) -> None:
        self.factory.heard = b""  # type: ignore[attr-defined]
        self.transport.write(self.factory.prolog)  # type: ignore[attr-defined]

    def dataReceived(self, data: bytes) -> None:
        factory: Any = self.factory
        factory.heard += data
        for line in data.splitlines():
            if line == b"bye":
                self.transport.write(factory.last)
                self.transport.loseConnection()
                return
            if line not in factory.replay:
                self.transport.write(line.upper() + b"\n")


def scripted(prolog: bytes, replay: tuple[bytes, ...] = (b"HELLO",), last: bytes = b"") -> Any:
    factory = protocol.Factory.forProtocol(Scripted)
    factory.prolog, factory.replay, factory.last = prolog, replay, last  # type: ignore[attr-defined]
    return factory


class FollowingDoor(Door):
    """A door whose splice follows the game to the hub ``where`` names."""

    def connectionMade(self) -> None:
        from hub.cluster.splice import Follow, Rejoin

        conf = self.factory.conf  # type: ignore[attr-defined]

        def failed(reason: str) -> None:
            self.transport.write(f"- {reason}\n".encode())
            self.transport.loseConnection()

        def where() -> defer.Deferred:
            conf["asked"] += 1
            return defer.succeed(conf["where"])

        follow = Follow(
            where=where,
            replay=lambda: Rejoin(b"HELLO\nSEAT\n", 10, b"+ ENDPLAYERS"),
            final=lambda tail: tail.rstrip(b"\n").rsplit(b"\n", 1)[-1] == b"+ QUIT",
        )
        self.splice = Splice(
            reactor, self.transport, conf["route"], b"HELLO\n", 1, failed, conf, follow=follow
        )
        self.splice.start()


async def follow_through(conf: dict[str, Any], script: list[tuple[bytes, bytes]]) -> bytes:
    """A client of a following door sends ``script`` (a line at a time, each once the
    answer to the one before is in, or the door asked where the game went); returns
    all it got, to the close."""
    door_factory = protocol.Factory.forProtocol(FollowingDoor)
    conf = door_factory.conf = {"asked": 0, **conf}  # type: ignore[attr-defined]
    door = listen(door_factory)
    try:
        client = Client()
        endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", door.getHost().port)
        await connectProtocol(endpoint, client).addTimeout(BOUND, reactor)
        for line, answer in script:
            asked = conf["asked"]
            client.transport.write(line)
            for _ in range(500):  # bounded: until the answer is in
                if answer in client.got if answer else conf["asked"] > asked:
                    break
                await deferLater(reactor, 0.01, lambda: None)
        client.transport.loseConnection()
        return await client.done.addTimeout(BOUND, reactor)
    finally:
        await door.stopListening()


@pytest_twisted.ensureDeferred
async def test_a_spliced_client_follows_its_game_to_the_new_owner():
    """Issue 31: the owner lets the game go (closes without its last line); the door
    passes the client on to the new owner with the replay that seats it there, drops
    the new owner's answer to it up to its last seating line, and the client keeps its
    connection; what it sent meanwhile reaches the new owner after the replay."""
    old = listen(scripted(b"banner\ngame line\n"))
    new_factory = scripted(b"banner\nversion\n+ YOU 1\n+ ENDPLAYERS\n", (b"HELLO", b"SEAT"))
    new = listen(new_factory)
    try:
        conf = {
            "route": ("127.0.0.1", old.getHost().port, False),
            "where": ("127.0.0.1", new.getHost().port, False),
        }
        got = await follow_through(
            conf,
            [
                (b"play 1\n", b"PLAY 1"),
                (b"bye\n", b""),
                (b"more\n", b"MORE"),
                (b"again\n", b"AGAIN"),
            ],
        )
    finally:
        await old.stopListening()
        await new.stopListening()
    assert got == b"game line\nPLAY 1\nMORE\nAGAIN\n", got
    assert new_factory.heard.startswith(b"HELLO\nSEAT\nmore\n")  # type: ignore[attr-defined]


@pytest_twisted.ensureDeferred
async def test_a_game_that_ends_or_does_not_move_closes_the_client():
    ended = listen(scripted(b"banner\ngame line\n", last=b"+ PLAYER0WON Yes\n+ QUIT\n"))
    stayed = listen(scripted(b"banner\ngame line\n"))
    try:
        conf = {"route": ("127.0.0.1", ended.getHost().port, False), "where": None}
        got = await follow_through(conf, [(b"bye\n", b"+ QUIT")])
        assert got == b"game line\n+ PLAYER0WON Yes\n+ QUIT\n", got
        conf = {"route": ("127.0.0.1", stayed.getHost().port, False), "where": None}
        got = await follow_through(conf, [(b"bye\n", b"")])
        assert got == b"game line\n", got
    finally:
        await ended.stopListening()
        await stayed.stopListening()
