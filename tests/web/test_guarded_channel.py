"""The web front end's HTTP connection (:class:`hub.frontends.web.limits.GuardedChannel`)
without sockets: a StringTransport, the hub's clock a MemoryReactorClock advanced by
hand.  Its deadlines share one timer a connection (moved, not remade, per request),
its header rules are checked line by line only on a connection that sent a byte they
concern, and its addresses are read once."""

from __future__ import annotations

import pytest
from twisted.internet.address import IPv4Address
from twisted.internet.testing import MemoryReactorClock, StringTransport

from hub.frontends.web import Root, WebSite
from hub.frontends.web.limits import GuardedChannel
from tests.support import FakeHub

HEADER_TIMEOUT = 10.0
BODY_TIMEOUT = 30.0
GET = b"GET /api/games?limit=5 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


@pytest.fixture
def clock() -> MemoryReactorClock:
    return MemoryReactorClock()


@pytest.fixture
def site(clock) -> WebSite:
    hub = FakeHub(reactor=clock, web_header_timeout=HEADER_TIMEOUT, web_body_timeout=BODY_TIMEOUT)
    return WebSite(Root(hub))


def connect(site: WebSite) -> tuple[GuardedChannel, StringTransport]:
    channel = site.buildProtocol(IPv4Address("TCP", "127.0.0.1", 40000))
    transport = StringTransport(
        hostAddress=IPv4Address("TCP", "127.0.0.1", 8080),
        peerAddress=IPv4Address("TCP", "127.0.0.1", 40000),
    )
    channel.makeConnection(transport)
    return channel, transport


def answers(transport: StringTransport) -> list[int]:
    """The status codes written so far (and clear them)."""
    text = transport.value()
    transport.clear()
    return [
        int(part[9:12]) for part in text.split(b"HTTP/1.1 ")[1:] for part in [b"HTTP/1.1 " + part]
    ]


def timers(clock: MemoryReactorClock, channel: GuardedChannel) -> list:
    """The clock's pending calls of this channel's deadlines."""
    return [c for c in clock.getDelayedCalls() if c.func == channel._expired]


def test_keep_alive_requests_share_one_deadline_timer(clock, site):
    channel, transport = connect(site)
    first = timers(clock, channel)
    assert len(first) == 1
    for _ in range(50):
        channel.dataReceived(GET)
        clock.advance(1)
    assert answers(transport) == [200] * 50
    assert timers(clock, channel) == first  # the same timer, moved
    assert not transport.disconnecting


def test_each_request_gets_its_own_header_deadline(clock, site):
    channel, transport = connect(site)
    channel.dataReceived(GET)
    clock.advance(HEADER_TIMEOUT - 1)  # the first request's deadline would be near
    channel.dataReceived(b"GET /api/games HTTP/1.1\r\n")  # the second one starts now
    clock.advance(HEADER_TIMEOUT - 1)
    assert answers(transport) == [200] and not transport.disconnecting
    clock.advance(2)  # past the second request's own deadline
    text = transport.value()
    assert text.startswith(b"HTTP/1.1 408") and b"request headers" in text
    assert transport.disconnecting


def test_an_idle_connection_after_an_answer_is_not_refused(clock, site):
    channel, transport = connect(site)
    channel.dataReceived(GET)
    answers(transport)
    clock.advance(HEADER_TIMEOUT + 5)  # the timer fires with nothing awaited, and goes
    assert transport.value() == b"" and timers(clock, channel) == []
    channel.dataReceived(GET)  # the next request makes a timer again
    assert answers(transport) == [200] and len(timers(clock, channel)) == 1


def test_a_body_that_does_not_come_is_refused_at_its_deadline(clock, site):
    channel, transport = connect(site)
    channel.dataReceived(
        b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50\r\n\r\n{"
    )
    clock.advance(BODY_TIMEOUT - 1)
    assert transport.value() == b""
    clock.advance(2)
    text = transport.value()
    assert text.startswith(b"HTTP/1.1 408") and b"the body" in text


def test_a_control_character_split_across_chunks_is_a_bad_request(site):
    channel, transport = connect(site)
    channel.dataReceived(GET)
    assert answers(transport) == [200]
    assert "headerReceived" not in vars(channel)  # clean so far: no line-by-line checks
    channel.dataReceived(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: ab")
    channel.dataReceived(b"c\x1ed\r\n\r\n")
    assert transport.value().startswith(b"HTTP/1.1 400")
    assert "headerReceived" in vars(channel)


def test_a_non_ascii_content_type_is_a_bad_request(site):
    channel, transport = connect(site)
    channel.dataReceived(
        b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\x85"
        b"\r\nContent-Length: 2\r\n\r\n{}"
    )
    assert transport.value().startswith(b"HTTP/1.1 400")


def test_control_bytes_in_a_body_do_not_make_its_headers_bad(site):
    channel, transport = connect(site)
    body = b'{"x": "\x01\x02"}'
    channel.dataReceived(
        b"POST /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
        b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    assert answers(transport) == [405]  # the address's answer, not the header rule's 400
    channel.dataReceived(GET)  # the next request, checked line by line, is fine
    assert answers(transport) == [200]


def test_a_connections_addresses_are_read_once(site):
    channel, transport = connect(site)
    host, peer = channel.getHost(), channel.getPeer()
    assert (host.host, host.port, peer.host, peer.port) == ("127.0.0.1", 8080, "127.0.0.1", 40000)
    transport.hostAddress = IPv4Address("TCP", "127.0.0.1", 9999)  # not asked again
    assert channel.getHost() is host and channel.getPeer() is peer
