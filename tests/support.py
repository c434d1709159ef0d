"""Small helpers shared by the tests."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from twisted.internet.testing import MemoryReactorClock, StringTransport
from zope.interface import implementer

import hub
from hub.connections.chat import ChatService
from hub.connections.transcript import Transcripts
from hub.interfaces import IHub, IRegistry
from hub.model import NotFound
from hub.play.lobby import Lobby
from hub.plugins.registry import default_client_module
from hub.service import Seating

#: how often the polling helpers look (seconds)
POLL_STEP = 0.01


def _looks(seconds: float, step: float) -> range:
    """The bounded number of looks a wait of ``seconds`` takes."""
    return range(max(1, int(seconds / step)) + 1)


def wait_until(predicate, what: str = "the condition", seconds: float = 10.0, step: float = 0.05):
    """Wait, blocking, until ``predicate()`` is true (for tests that drive threads and
    child processes: hubs in a child process, browsers) and return its value; fail
    naming ``what`` after ``seconds``.  The one polling helper, with :func:`until`
    for tests on the reactor."""
    for _ in _looks(seconds, step):
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out waiting for {what} ({seconds:g} s)")


async def until(predicate, what: str = "the condition", seconds: float = 30.0):
    """:func:`wait_until` for tests on the global reactor: each look waits a turn of
    :data:`POLL_STEP` seconds there instead of sleeping."""
    from twisted.internet import reactor, task

    for _ in _looks(seconds, POLL_STEP):
        value = predicate()
        if value:
            return value
        await task.deferLater(reactor, POLL_STEP, lambda: None)
    raise AssertionError(f"never: {what} ({seconds:g} s)")


@implementer(IRegistry)
class DictRegistry:
    """A registry holding factories handed to it directly (for lobby unit tests)."""

    def __init__(self, games=(), bots=()):
        self._games = {g.name: g for g in games}
        self._bots = {b.name: b for b in bots}

    def game_factory(self, name):
        try:
            return self._games[name]
        except (KeyError, TypeError):
            raise NotFound(f"no game type {name!r}") from None

    def bot_factory(self, name):
        try:
            return self._bots[name]
        except (KeyError, TypeError):
            raise NotFound(f"no bot {name!r}") from None

    def game_types(self):
        return list(self._games.values())

    def bots(self):
        return list(self._bots.values())

    def client_module(self, factory):
        return default_client_module(factory)

    def load(self):
        pass

    def start(self):
        pass

    def stop(self):
        pass

    def plugins(self):
        return []

    def add_listener(self, listener):
        pass

    def remove_listener(self, listener):
        pass


class Recorder:
    """An IGameObserver / ILobbyListener that keeps what it is told."""

    def __init__(self):
        self.events = []
        self.changes = []

    def game_event(self, game, event):
        self.events.append(event)

    def lobby_changed(self, change, game):
        self.changes.append((change, game.id))

    def kinds(self):
        return [e.kind for e in self.events]


@implementer(IHub)
class FakeHub(Seating):
    """A hub of real parts on a fake clock, without table money (chip games play for
    play chips here): what a front end may use of the hub (``IHub``), for front-end
    tests that need no ``HubService``.

    :param registry: the registry (default: the ``hello`` game only).
    :param reactor: the clock (default: a fresh ``MemoryReactorClock``); a
        ``task.Clock`` will not do for the ACPC front end (built with the web front
        end's ``Root`` too), which ends its matches on the reactor's shutdown.
    :param data: the data folder (``hub.data_dir``), transcripts under it (``None``: no
        transcripts, and the working folder as the data folder: give one to a test
        whose front end writes files, as ACPC matches their logs).
    :param store: the ``IStore`` (or a fake of its part in use), or ``None``.
    :param lobby: more keyword arguments of the ``Lobby``.
    :param endpoints: front-end name → endpoint description.
    :param options: the hub's other settings (``hub.options``).
    """

    money = None
    cluster = None  # a single hub
    version = hub.__version__

    def __init__(
        self,
        registry: Any = None,
        *,
        reactor: Any = None,
        data: Path | None = None,
        store: Any = None,
        lobby: dict[str, Any] | None = None,
        endpoints: dict[str, str] | None = None,
        **options: Any,
    ) -> None:
        if registry is None:
            from games.hello.server import HelloGameFactory

            registry = DictRegistry([HelloGameFactory()])
        self.reactor = reactor if reactor is not None else MemoryReactorClock()
        self.registry = registry
        self.data_dir = Path(data) if data is not None else Path(".")
        self.transcripts = (
            Transcripts(Path(data) / "transcripts", self.reactor) if data is not None else None
        )
        self.lobby = Lobby(registry, self.reactor, transcripts=self.transcripts, **(lobby or {}))
        self.chat = ChatService(self.reactor, self.lobby)
        self.store = store
        self.options: dict[str, Any] = dict(options)
        self.endpoints: dict[str, str] = dict(endpoints or {})
        self.bound_ports: dict[str, int | None] = {}


class TCPStringTransport(StringTransport):
    """A ``StringTransport`` that, like a TCP one, can switch Nagle's algorithm off."""

    no_delay = False

    def setTcpNoDelay(self, enabled: bool) -> None:
        self.no_delay = bool(enabled)

    def getTcpNoDelay(self) -> bool:
        return self.no_delay
