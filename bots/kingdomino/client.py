"""The King Domino bots as network clients of the domino line protocol.

:class:`BotClient` is the thin Twisted receiver around the game's own client module
(:class:`games.kingdomino.client.Mirror`, no I/O): it logs in, feeds the mirror each
line and thinks in a worker thread within its time budget when prompted.
"""

from __future__ import annotations

import random
from typing import Any

from twisted.internet import defer, threads
from twisted.internet.protocol import ClientFactory
from twisted.logger import Logger
from twisted.protocols.basic import LineOnlyReceiver

from games.kingdomino import rules
from games.kingdomino.client import Mirror, ProtocolError

from . import Brain


class BotClient(LineOnlyReceiver):
    """Logs in, follows the game and answers prompts with a :class:`Brain`."""

    delimiter = b"\n"
    MAX_LENGTH = 4096
    log = Logger()

    def __init__(self, login: str, brain: Brain, seconds: float, reactor: Any) -> None:
        self.login = login
        self.brain = brain
        self.seconds = seconds
        self._reactor = reactor
        self.mirror = Mirror()
        self.done: defer.Deferred = defer.Deferred()
        self.lines: list[str] = []
        #: why the connection ended (a ``Failure``), once it has
        self.ended: Any = None

    def connectionMade(self) -> None:
        """Log in at once (the server sends CONNECT first anyway)."""
        self.sendLine(f"LOGIN {self.login}".encode("ascii"))

    def lineReceived(self, line: bytes) -> None:
        """Follow the game; think when prompted."""
        text = line.decode("ascii", "replace").rstrip("\r")
        self.lines.append(text)
        try:
            prompt = self.mirror.feed(text)
        except (ProtocolError, rules.RuleError, ValueError, IndexError) as e:
            self.log.error("cannot follow the server: {error}", error=e)
            self._close()
            return
        if prompt in ("choose", "move"):
            self._think()
        elif prompt in ("over", "refused"):
            self._close()

    def _close(self) -> None:
        if self.transport is not None:
            self.transport.loseConnection()

    def _think(self) -> None:
        state, me = self.mirror.state, self.mirror.me
        assert state is not None and me is not None
        if self.mirror.errors > 3:  # something is off: fall back to anything legal
            rng = self.brain.rng
            decision: Any = (
                rng.choice(state.available())
                if state.phase == rules.CHOOSE
                else state.kingdoms[me].random_placement(rng)
            )
            self.sendLine(self.mirror.command(decision).encode("ascii"))
            return
        d = threads.deferToThreadPool(
            self._reactor,
            self._reactor.getThreadPool(),
            self.brain.decide,
            state.copy(),
            me,
            self.seconds,
        )
        d.addCallback(lambda decision: self.sendLine(self.mirror.command(decision).encode()))
        d.addErrback(lambda f: self.log.failure("thinking failed", f))

    def connectionLost(self, reason: Any = None) -> None:
        """The game is over (or the server closed on us)."""
        self.ended = reason
        if not self.done.called:
            self.done.callback(self.mirror.results)


class BotClientFactory(ClientFactory):
    """Builds one :class:`BotClient`; ``done`` fires with the results (or the error)."""

    def __init__(self, login: str, brain: Brain, seconds: float, reactor: Any) -> None:
        self.client = BotClient(login, brain, seconds, reactor)
        self.done = self.client.done

    def buildProtocol(self, addr: Any) -> BotClient:
        """The one client."""
        return self.client

    def clientConnectionFailed(self, connector: Any, reason: Any) -> None:
        """Could not connect."""
        if not self.done.called:
            self.done.errback(reason)


def make_brain(kind: str, seed: int | None) -> Brain:
    """``domino`` (Monte-Carlo), ``greedy`` or ``random``."""
    names = {"domino": "montecarlo", "greedy": "greedy", "random": "random"}
    return Brain(names[kind], random.Random(seed))
