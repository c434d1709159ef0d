"""The byte splice of :mod:`hub.cluster.splice` over real loopback sockets: a door
whose every connection is passed through to an "owner" server of the test's own.

Each wait is bounded (``addTimeout``); nothing is timed.
"""

from __future__ import annotations

from typing import Any

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
            reactor, self.transport, conf["route"], b"HELLO\n", conf["skip"], failed, conf
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
