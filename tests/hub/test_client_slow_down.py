"""``hub.client.HubClient``: a game action the hub refuses as too fast (429, its rate
limit) is sent again after a pause that doubles, a bounded number of times; any other
refusal fails at once."""

from __future__ import annotations

import struct

from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

from hub.client import HubClient, RequestFailed, XMLClientProtocol

GAME, SESSION = 5, 7


def answer(code: int | None) -> bytes:
    """The hub's answer to a game action: refused with ``code``, or done."""
    if code is None:
        op = '<action success="true"/>'
    else:
        op = f'<action success="false" errorcode="{code}"><description>no</description></action>'
    return (
        f'<message sessionid="{SESSION}"><response><game gameid="{GAME}">{op}'
        "</game></response></message>"
    ).encode()


def connected():
    clock = Clock()
    client = HubClient(validate=False, reactor=clock)
    proto = XMLClientProtocol(client)
    transport = StringTransport()
    proto.makeConnection(transport)
    client.game_sessions[GAME] = SESSION
    return client, proto, transport, clock


def frames(transport: StringTransport) -> int:
    data, count = transport.value(), 0
    while data:
        (size,) = struct.unpack("!I", data[:4])
        data, count = data[4 + size :], count + 1
    return count


def test_an_action_refused_as_too_fast_is_sent_again_after_a_pause():
    client, proto, transport, clock = connected()
    done = []
    client.act(GAME, "<texasmessage/>").addBoth(done.append)
    assert frames(transport) == 1
    proto.stringReceived(answer(429))
    assert frames(transport) == 1 and not done  # a pause first
    clock.advance(HubClient.SLOW_DOWN)
    assert frames(transport) == 2
    proto.stringReceived(answer(429))
    clock.advance(HubClient.SLOW_DOWN)  # the second pause is twice as long
    assert frames(transport) == 2
    clock.advance(HubClient.SLOW_DOWN)
    assert frames(transport) == 3
    proto.stringReceived(answer(None))
    assert len(done) == 1 and done[0].success


def test_the_retries_are_bounded_and_other_refusals_fail_at_once():
    client, proto, transport, clock = connected()
    failed = []
    client.act(GAME, "<texasmessage/>").addErrback(failed.append)
    for _ in range(HubClient.RETRIES):
        proto.stringReceived(answer(429))
        clock.advance(60)
    proto.stringReceived(answer(429))
    assert frames(transport) == HubClient.RETRIES + 1
    assert failed and failed[0].check(RequestFailed) and failed[0].value.code == 429

    client, proto, transport, clock = connected()
    failed = []
    client.act(GAME, "<texasmessage/>").addErrback(failed.append)
    proto.stringReceived(answer(403))
    clock.advance(60)
    assert frames(transport) == 1 and failed[0].value.code == 403
