"""Small helpers shared by the tests."""

from __future__ import annotations

from twisted.internet.testing import StringTransport

from hub.model import NotFound


async def until(predicate, what: str = "the condition", tries: int = 3000) -> None:
    """Wait (bounded: ``tries`` turns of 10 ms on the global reactor) until
    ``predicate()`` holds."""
    from twisted.internet import reactor, task

    for _ in range(tries):
        if predicate():
            return
        await task.deferLater(reactor, 0.01, lambda: None)
    raise AssertionError(f"never: {what}")


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


class TCPStringTransport(StringTransport):
    """A ``StringTransport`` that, like a TCP one, can switch Nagle's algorithm off."""

    no_delay = False

    def setTcpNoDelay(self, enabled: bool) -> None:
        self.no_delay = bool(enabled)

    def getTcpNoDelay(self) -> bool:
        return self.no_delay
