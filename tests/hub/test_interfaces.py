"""The seams are typed (issue 14): the hub provides ``IHub``, the registry
``IRegistry``, and the test fakes of the hub, the registry, games, factories, bots and
adapters provide what they stand in for, checked with ``verifyObject``."""

from __future__ import annotations

import random

import pytest
from twisted.internet.testing import MemoryReactorClock
from zope.interface.verify import verifyObject

from games.hello.server import HelloGameFactory
from hub.frontends.xml.adapters import GenericXMLAdapter, adapter_for
from hub.interfaces import (
    IBot,
    IBotFactory,
    IChipGame,
    IChipGameFactory,
    IGame,
    IGameFactory,
    IHub,
    IRegistry,
    IWebView,
    IXMLGameAdapter,
)
from hub.model import GameConfig, GameContext, GameEvent
from hub.plugins.registry import Registry
from hub.service import HubService
from tests.frontends.acpc_support import Hub as ACPCFakeHub
from tests.hub.chipgame import CoinsFactory, PassBotFactory
from tests.support import DictRegistry, FakeHub
from tests.web.plugins import FirstLegalBotFactory, PressGameFactory
from tests.xml_support import FakeHub as XMLFakeHub


def test_the_hub_service_provides_ihub(tmp_path):
    reactor = MemoryReactorClock()
    hub = HubService(reactor, tmp_path, {"web": "tcp:0"}, Registry(tmp_path, reactor))
    assert verifyObject(IHub, hub)
    assert hub.endpoints["web"] == "tcp:0" and hub.endpoints["xml"] == "none"
    assert verifyObject(IRegistry, hub.registry)


def test_the_fake_hubs_provide_ihub(tmp_path):
    assert verifyObject(IHub, FakeHub())
    assert verifyObject(IHub, FakeHub(data=tmp_path, web_max_streams=2))
    assert verifyObject(IHub, XMLFakeHub(tmp_path))
    assert verifyObject(IHub, ACPCFakeHub(tmp_path / "acpc"))
    assert verifyObject(IRegistry, DictRegistry())


def _context() -> GameContext:
    return GameContext(clock=MemoryReactorClock(), emit=lambda event: None, rng=random.Random(1))


@pytest.mark.parametrize(
    ("factory", "interface"),
    [
        (CoinsFactory(), IChipGameFactory),
        (PressGameFactory(), IGameFactory),
        (PassBotFactory(), IBotFactory),
        (FirstLegalBotFactory(), IBotFactory),
    ],
    ids=lambda x: getattr(x, "name", None) or getattr(x, "__name__", "?"),
)
def test_the_fake_factories_provide_their_interfaces(factory, interface):
    assert verifyObject(interface, factory)


def test_the_fake_games_bots_and_adapters_provide_theirs():
    coins = CoinsFactory()
    config = GameConfig("coins", None, coins.default_seats)
    assert verifyObject(IChipGame, coins.create(config, _context()))
    press = PressGameFactory()
    assert verifyObject(
        IGame, press.create(GameConfig("press", None, press.default_seats), _context())
    )
    assert verifyObject(IWebView, press.adapter("web"))
    assert verifyObject(IBot, PassBotFactory().create("coins", 0, {}))
    assert verifyObject(IBot, FirstLegalBotFactory().create("press", 0, {}))


def test_an_xml_adapter_has_every_optional_part_with_its_default():
    adapter = adapter_for(HelloGameFactory())
    assert verifyObject(IXMLGameAdapter, adapter)
    generic = GenericXMLAdapter()
    assert verifyObject(IXMLGameAdapter, generic)
    assert generic.seat_on_join is True
    event = GameEvent("said", {}, seats=frozenset({1}))
    assert generic.private_to(event, 1) and not generic.private_to(GameEvent("said", {}), 1)
    assert generic.snapshot_on(event) is False


def test_an_xml_adapter_without_the_optional_parts_is_not_hosted():
    class Bare:
        def parse_action(self, element):
            return {}

        def render_event(self, event, seat):
            return None

        def render_view(self, view):
            return None

    class Factory(HelloGameFactory):
        def adapter(self, frontend):
            return Bare() if frontend == "xml" else None

    assert adapter_for(Factory()) is None
