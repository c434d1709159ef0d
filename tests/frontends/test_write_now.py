"""``hub.connections.sockets.write_now``: bytes go to the socket at once when nothing waits,
else through the transport's buffer, in order either way (real sockets on 127.0.0.1)."""

from __future__ import annotations

import socket

import pytest_twisted
from twisted.internet import defer, protocol, reactor
from twisted.internet.endpoints import TCP4ClientEndpoint, TCP4ServerEndpoint
from twisted.internet.interfaces import IPushProducer
from twisted.internet.testing import StringTransport
from zope.interface import implementer

from hub.connections.sockets import write_now
from tests.support import until


class Collect(protocol.Protocol):
    """The client's end: keeps every byte it reads."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.lost = defer.Deferred()

    def dataReceived(self, data: bytes) -> None:  # noqa: N802
        self.data += data

    def connectionLost(self, reason: object = None) -> None:  # noqa: N802
        self.lost.callback(None)


async def listen():
    """A port on loopback and a Deferred that fires with its first connection's
    server protocol."""
    made: defer.Deferred = defer.Deferred()

    class Server(protocol.Protocol):
        def connectionMade(self) -> None:  # noqa: N802
            made.callback(self)

    port = await TCP4ServerEndpoint(reactor, 0, interface="127.0.0.1").listen(
        protocol.Factory.forProtocol(Server)
    )
    return port, made


async def connected_pair():
    """A server protocol and a :class:`Collect` client, connected over loopback."""
    port, made = await listen()
    client = Collect()
    endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", port.getHost().port)
    await endpoint.connect(protocol.Factory.forProtocol(lambda: client))
    server = await made
    return port, server, client


@pytest_twisted.ensureDeferred
async def test_an_idle_connection_sends_at_once_and_keeps_nothing():
    port, server, client = await connected_pair()
    try:
        write_now(server.transport, b"+ OKTHINK\n")
        # sent by the call itself: nothing waits for the reactor's next turn
        assert server.transport.dataBuffer == b"" and server.transport._tempDataLen == 0
        await until(lambda: bytes(client.data) == b"+ OKTHINK\n", "the line to arrive")
    finally:
        server.transport.loseConnection()
        await port.stopListening()
        await client.lost


@pytest_twisted.ensureDeferred
async def test_what_the_socket_does_not_take_waits_in_order():
    """A peer that does not read: the socket fills and the rest waits in the
    transport's buffer; once the peer has read some (room in the socket again, the
    buffer not yet sent), a later write still queues behind the buffer."""
    port, made = await listen()
    peer = socket.create_connection(("127.0.0.1", port.getHost().port))
    try:
        server = await made
        chunks = [bytes([65 + i % 26]) * 4096 + b"\n" for i in range(1000)]
        sent = 0
        while not (server.transport.dataBuffer or server.transport._tempDataLen):
            write_now(server.transport, chunks[sent % len(chunks)])  # until one waits
            sent += 1
            assert sent < 20_000, "the socket never filled"
        peer.setblocking(False)
        received = bytearray(_read_some(peer, 1 << 20))  # room in the socket again
        write_now(server.transport, b"MARKER\n")  # …behind what waits in the buffer
        expected = b"".join(chunks[i % len(chunks)] for i in range(sent)) + b"MARKER\n"

        def more() -> bool:
            received.extend(_read_some(peer, 1 << 22))
            return len(received) >= len(expected)

        await until(more, "every byte", 60)
        assert bytes(received) == expected
    finally:
        peer.close()
        await port.stopListening()


@implementer(IPushProducer)
class Producer:
    """A streaming producer (as the XML session is): counts its pauses and resumes."""

    def __init__(self) -> None:
        self.pauses = 0
        self.resumes = 0

    def pauseProducing(self) -> None:  # noqa: N802
        self.pauses += 1

    def resumeProducing(self) -> None:  # noqa: N802
        self.resumes += 1

    def stopProducing(self) -> None:  # noqa: N802
        pass


@pytest_twisted.ensureDeferred
async def test_a_streaming_producer_is_paused_when_the_buffer_fills_and_resumed():
    """With the connection's streaming producer registered, writes still go at once
    while nothing waits; a peer that does not read fills the socket, then the buffer,
    and the producer is paused; once the peer reads everything it is resumed, and
    every byte arrived in order."""
    port, made = await listen()
    peer = socket.create_connection(("127.0.0.1", port.getHost().port))
    try:
        server = await made
        producer = Producer()
        server.transport.registerProducer(producer, True)
        write_now(server.transport, b"first\n")
        assert server.transport.dataBuffer == b"" and server.transport._tempDataLen == 0
        chunk = b"x" * 4095 + b"\n"
        sent = 0
        while not producer.pauses:
            write_now(server.transport, chunk)
            sent += 1
            assert sent < 20_000, "the producer was never paused"
        assert producer.resumes == 0
        expected = b"first\n" + chunk * sent
        received = bytearray()
        peer.setblocking(False)

        def drained() -> bool:
            received.extend(_read_some(peer, 1 << 22))
            return len(received) >= len(expected) and producer.resumes > 0

        await until(drained, "every byte and the resume", 60)
        assert bytes(received) == expected
        assert producer.pauses == 1
    finally:
        peer.close()
        await port.stopListening()


def _read_some(sock: socket.socket, most: int) -> bytes:
    """What ``sock`` (non-blocking) has now, at most ``most`` bytes."""
    out = bytearray()
    while len(out) < most:
        try:
            data = sock.recv(min(65536, most - len(out)))
        except BlockingIOError:
            break
        if not data:
            break
        out += data
    return bytes(out)


@pytest_twisted.ensureDeferred
async def test_a_closing_connection_sends_through_its_buffer():
    """After ``loseConnection`` the bytes go as ``transport.write`` sends them: still
    delivered before the close."""
    port, server, client = await connected_pair()
    try:
        write_now(server.transport, b"first\n")
        server.transport.loseConnection()
        write_now(server.transport, b"last\n")
        await client.lost
        assert bytes(client.data) == b"first\nlast\n"
    finally:
        await port.stopListening()


def test_another_transport_is_written_to():
    transport = StringTransport()
    write_now(transport, b"+ WAIT\n")
    assert transport.value() == b"+ WAIT\n"
