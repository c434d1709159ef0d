"""A door hands a client's connection over to the game's hub on the same machine
(``hub.cluster.handoff``), over real sockets: the client then talks to the owner
alone, with nothing lost or repeated; when the hand-over cannot be (another machine,
no socket there), nothing changes and the door keeps the connection."""

from __future__ import annotations

import socket
from typing import Any

import pytest_twisted
from twisted.internet import protocol, reactor
from twisted.internet.endpoints import TCP4ClientEndpoint, connectProtocol
from twisted.internet.task import deferLater

from hub.cluster.handoff import HandoffClient, HandoffServer

BOUND = 30


class Owner(protocol.Protocol):
    """The game's hub: drops its first ``mute`` lines, echoes upper-cased, and says
    who its peer is."""

    def __init__(self, factory: Any, mute: int) -> None:
        self.factory, self.mute = factory, mute

    def connectionMade(self) -> None:
        self.factory.made.append(self)
        self.say(b"banner\n")

    def say(self, data: bytes) -> None:
        if self.mute:
            self.mute -= 1
            return
        self.transport.write(data)

    def dataReceived(self, data: bytes) -> None:
        self.factory.heard += data
        for line in data.splitlines():
            self.say(line.upper() + b"\n")


class OwnerFactory(protocol.Factory):
    """An :class:`~hub.cluster.handoff.Adopter`."""

    def __init__(self) -> None:
        self.made: list[Owner] = []
        self.heard = b""
        self._mute = 0

    def buildProtocol(self, addr: Any) -> Owner:
        return Owner(self, self._mute)

    def adopt(self, fd: int, family: int, replay: bytes, skip: int) -> None:
        self._mute = skip
        reactor.adoptStreamConnection(fd, family, self)
        self._mute = 0
        self.made[-1].dataReceived(replay)


class Door(protocol.Protocol):
    """Says its own banner; hands the connection over at the client's first line."""

    def connectionMade(self) -> None:
        self.lost: list[str] = []
        self.transport.write(b"door banner\n")

    def dataReceived(self, data: bytes) -> None:
        conf: Any = self.factory.conf  # type: ignore[attr-defined]
        handed = conf["client"].hand_off(conf["where"], "mnm", self.transport, data, 1)
        conf["handed"].append(handed)
        if not handed:
            self.transport.write(b"kept: " + data)

    def connectionLost(self, reason: Any = None) -> None:
        self.factory.conf["lost"].append(reason.getErrorMessage())  # type: ignore[attr-defined]


class Client(protocol.Protocol):
    def __init__(self) -> None:
        self.got = b""

    def dataReceived(self, data: bytes) -> None:
        self.got += data


async def until_got(client: Client, what: bytes) -> None:
    for _ in range(BOUND * 100):
        if what in client.got:
            return
        await deferLater(reactor, 0.01, lambda: None)
    raise AssertionError(f"never got {what!r}: {client.got!r}")


async def door_with(where: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    factory = protocol.Factory.forProtocol(Door)
    conf: dict[str, Any] = {"client": HandoffClient(), "where": where, "handed": [], "lost": []}
    factory.conf = conf  # type: ignore[attr-defined]
    return reactor.listenTCP(0, factory, interface="127.0.0.1"), conf


async def connect(port: Any) -> Client:
    client = Client()
    endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", port.getHost().port)
    await connectProtocol(endpoint, client).addTimeout(BOUND, reactor)
    await until_got(client, b"door banner\n")
    return client


@pytest_twisted.ensureDeferred
async def test_the_owner_takes_the_socket_and_the_client_talks_to_it_alone():
    owner = OwnerFactory()
    server = HandoffServer(reactor, lambda frontend: owner if frontend == "mnm" else None)
    path = server.start()
    door, conf = await door_with({"host": socket.gethostname(), "path": path})
    try:
        client = await connect(door)
        client.transport.write(b"id 7\n")
        await until_got(client, b"ID 7\n")  # the owner's answer to the replay
        assert conf["handed"] == [True] and len(conf["lost"]) == 1
        assert "handed over to the game's hub" in conf["lost"][0]
        client.transport.write(b"play\n")  # now to the owner directly
        await until_got(client, b"PLAY\n")
        (adopted,) = owner.made
        assert adopted.transport.getPeer().port == client.transport.getHost().port
        assert client.got == b"door banner\nID 7\nPLAY\n"  # its banner dropped: skip 1
        assert owner.heard == b"id 7\nplay\n" and server.adopted == 1
        client.transport.loseConnection()
    finally:
        await door.stopListening()
        await server.stop()
        conf["client"].close()


@pytest_twisted.ensureDeferred
async def test_a_connection_that_cannot_be_handed_over_stays_with_the_door(tmp_path):
    owner = OwnerFactory()
    server = HandoffServer(reactor, lambda frontend: owner)
    path = server.start()
    cases = [
        {"host": "another-machine", "path": path},  # not this machine
        {"host": socket.gethostname(), "path": str(tmp_path / "nobody.sock")},  # no socket
        {"host": socket.gethostname()},  # no path
    ]
    try:
        for where in cases:
            door, conf = await door_with(where)
            try:
                client = await connect(door)
                client.transport.write(b"id 7\n")
                await until_got(client, b"kept: id 7\n")
                assert conf["handed"] == [False] and conf["lost"] == []
                client.transport.loseConnection()
                await deferLater(reactor, 0.05, lambda: None)
            finally:
                await door.stopListening()
                conf["client"].close()
        assert owner.made == [] and server.adopted == 0
    finally:
        await server.stop()


@pytest_twisted.ensureDeferred
async def test_a_bad_header_is_refused_and_its_socket_closed():
    owner = OwnerFactory()
    server = HandoffServer(reactor, lambda frontend: owner)
    path = server.start()
    a, b = socket.socketpair()
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        unix.connect(path)
        socket.send_fds(unix, [b'{"frontend": "mnm", "replay": "%%%", "skip": 1}\n'], [a.fileno()])
        for _ in range(BOUND * 100):
            if server.refused:
                break
            await deferLater(reactor, 0.01, lambda: None)
        assert server.refused == 1 and owner.made == []
        a.close()
        b.settimeout(BOUND)
        assert b.recv(10) == b""  # the owner closed its copy: nothing holds the socket
    finally:
        for s in (a, b, unix):
            s.close()
        await server.stop()
