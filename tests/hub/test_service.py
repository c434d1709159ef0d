"""The root service with a MemoryReactorClock: start order, ports, stop."""

from __future__ import annotations

from twisted.internet.testing import MemoryReactorClock
from twisted.web.server import Site

from hub.plugins.registry import Registry
from hub.service import HubService


class RecordingStore:
    """A store stand-in that only records the order of start/stop calls."""

    available = True

    def __init__(self, calls):
        self.calls = calls

    def on_availability(self, listener):
        pass

    def start(self):
        self.calls.append("store.start")

    def stop(self):
        self.calls.append("store.stop")


def test_start_order_ports_and_stop(tmp_path):
    reactor = MemoryReactorClock()
    calls = []
    registry = Registry(tmp_path, reactor)
    hub = HubService(
        reactor,
        tmp_path,
        {"web": "tcp:8080", "xml": "none"},
        registry,
        store=RecordingStore(calls),
        options={"mnm_version": "3.1"},
    )
    hub.startService()
    assert calls == ["store.start"]
    (port, factory, backlog, interface) = reactor.tcpServers[0]
    web = hub.getServiceNamed("web")
    assert port == 8080 and factory is web.gate and isinstance(web.factory, Site)
    assert set(hub.bound_ports) == {"web"}
    assert registry.game_factory("hello").name == "hello"
    for folder in ("plugins/meta", "bots/meta", "transcripts"):
        assert (tmp_path / folder).is_dir()
    game = hub.lobby.create_game("hello")
    assert hub.game_json(game)["port"] is None  # hello is hosted by xml, which is off
    d = hub.stopService()
    assert d.called
    assert calls == ["store.start", "store.stop"]
    assert hub.bound_ports == {}
    assert hub.lobby.games() == []


def test_mnm_v1_hub_uses_11_character_ids(tmp_path):
    reactor = MemoryReactorClock()
    hub = HubService(
        reactor, tmp_path, {}, Registry(tmp_path, reactor), options={"mnm_version": "1.0"}
    )
    hub.startService()
    assert len(hub.lobby.create_game("hello").id) == 11
    hub.stopService()
