"""The network poker player (:class:`bots.poker.netplay.NetPlayer`) across a resumed
session: a turn announced while its action is out is played once the action is
answered (the hub may have taken the action before the cut and refuses it when
``hub.client`` sends it again), unless another seat's turn came meanwhile."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lxml import etree
from twisted.internet import defer

from bots.poker.netplay import NetPlayer
from games.poker.adapters import ACTION_INDEX, EVENT_TYPES
from hub.client import RequestFailed

GAME = 7


class Update:
    def __init__(self, payload: Any) -> None:
        self.gameid = GAME
        self.payload = payload


class Client:
    """The part of :class:`hub.client.HubClient` a player uses; its requests wait for
    the test to answer them."""

    account = {"name": "me"}

    def __init__(self) -> None:
        self.on_state = None
        self.updates: dict[int, list[Update]] = {}
        self.closed: defer.Deferred = defer.Deferred()
        self.proto = object()
        self.resuming = False
        self.sent: list[tuple[bytes, defer.Deferred]] = []

    def act(self, gameid: int, xml: bytes) -> defer.Deferred:
        d: defer.Deferred = defer.Deferred()
        self.sent.append((xml, d))
        return d

    def announce(self, seat: int) -> None:
        turn = EVENT_TYPES["turn"]
        call = ACTION_INDEX["call"]
        document = (
            f'<texasmessage><event type="{turn}" seat="{seat}"><action><index>{call}</index>'
            "</action><timeleft>5000</timeleft></event></texasmessage>"
        )
        assert self.on_state is not None
        self.on_state(Update(etree.fromstring(document)))


def calls(view: Mapping[str, Any], legal: list[dict[str, Any]], deadline: float) -> Any:
    return {"name": "call"}


def player() -> tuple[Client, NetPlayer]:
    client = Client()
    played = NetPlayer(client, GAME, calls, reactor=None, threaded=False)
    played.table.seat = 1
    return client, played


def test_a_turn_announced_while_the_action_is_out_is_played_when_it_is_answered():
    client, played = player()
    client.announce(1)
    assert len(client.sent) == 1  # the action, out when the connection was cut
    client.announce(1)  # the resumed session announces the turn again: not answered twice
    assert len(client.sent) == 1
    # the hub had taken that action before the cut: sent again, it is refused...
    client.sent[0][1].errback(RequestFailed(422, "not your turn"))
    # ...and the turn announced meanwhile (the hand moved on to ours again) is played
    assert len(client.sent) == 2
    client.sent[1][1].callback(None)
    assert played.errors == ["422 not your turn"]


def test_a_turn_kept_back_is_dropped_when_another_seat_is_to_act():
    client, played = player()
    client.announce(1)
    client.announce(1)  # announced again while the action is out
    client.announce(0)  # the action was taken: the other seat is to act
    client.sent[0][1].callback(None)
    assert len(client.sent) == 1  # nothing more to play
    assert played.errors == []
