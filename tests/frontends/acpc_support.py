"""A hub on a MemoryReactorClock for the ACPC front end's protocol tests: StringTransport
programs, decks laid out by hand, matches made without sockets."""

from __future__ import annotations

import random
from typing import Any

from twisted.internet import defer
from twisted.internet.testing import MemoryReactorClock

from bots.poker.plugin import CallerFactory, RaiserFactory
from games.poker import cards
from games.poker.server import TexasHoldemFactory
from hub.frontends.acpc import matches_of
from tests.support import DictRegistry, FakeHub, TCPStringTransport


class FakePort:
    """What ``Matches.listen`` gives in these tests: a port that was never opened."""

    def __init__(self, factory: Any, number: int) -> None:
        self.factory = factory
        self.number = number
        self.stopped = False

    def getHost(self) -> Any:  # noqa: N802
        return type("Address", (), {"port": self.number, "host": "127.0.0.1"})()

    def stopListening(self) -> None:  # noqa: N802
        self.stopped = True


class Hub(FakeHub):
    """A :class:`tests.support.FakeHub` for the front end: a lobby on a
    ``MemoryReactorClock`` (its shutdown trigger ends the matches), poker and two bots,
    no store (so no table money), ``tmp_path`` as the data folder (the matches' logs);
    every port a match opens is a :class:`FakePort`."""

    def __init__(self, tmp_path: Any, **options: Any) -> None:
        registry = DictRegistry(
            games=[TexasHoldemFactory()], bots=[CallerFactory(), RaiserFactory()]
        )
        self.clock = MemoryReactorClock()
        super().__init__(
            registry,
            reactor=self.clock,
            data=tmp_path,
            lobby={"rng": random.Random(7)},
            **{"acpc_version_seconds": 10.0, **options},
        )
        self.matches = matches_of(self)
        self.ports: list[FakePort] = []
        self.matches.listen = self._listen  # type: ignore[method-assign]

    def _listen(self, factory: Any) -> defer.Deferred:
        port = FakePort(factory, 20000 + len(self.ports))
        self.ports.append(port)
        return defer.succeed(port)

    def match(self, **spec: Any) -> Any:
        """A match made now (everything runs on the Clock, so it is made at once)."""
        d = defer.ensureDeferred(self.matches.create(spec))
        out: list[Any] = []
        d.addBoth(out.append)
        self.clock.advance(0)
        assert out, "the match was not made at once"
        if isinstance(out[0], Exception) or hasattr(out[0], "raiseException"):
            out[0].raiseException()
        return out[0]

    def program(self, index: int = 0) -> Program:
        """A program connected to the ``index``-th port opened."""
        return Program(self.ports[index].factory)

    def run(self, seconds: float = 0.0, steps: int = 20) -> None:
        """Let the clock run (timers at 0 first)."""
        for _ in range(steps):
            self.clock.advance(0)
        if seconds:
            self.clock.advance(seconds)
            for _ in range(steps):
                self.clock.advance(0)


class Program:
    """A program of the protocol on a StringTransport."""

    def __init__(self, factory: Any) -> None:
        self.proto = factory.buildProtocol(None)
        self.transport = TCPStringTransport()
        if self.proto is not None:
            self.proto.makeConnection(self.transport)
        self.seen: list[str] = []

    def send(self, text: str | bytes, end: bytes = b"\r\n") -> None:
        data = text.encode() + end if isinstance(text, str) else text
        self.proto.dataReceived(data)

    def lines(self) -> list[str]:
        """Lines written since the last call (each must end with \\r\\n)."""
        raw = self.transport.value().decode("ascii")
        self.transport.clear()
        out = raw.split("\r\n")
        assert out[-1] == "", f"a line without \\r\\n: {out[-1]!r}"
        self.seen.extend(out[:-1])
        return out[:-1]

    def states(self) -> list[str]:
        """Match states written since the last call (comments left out)."""
        return [line for line in self.lines() if not line.startswith(("#", ";"))]

    def comments(self) -> list[str]:
        """Every comment line written so far."""
        self.lines()
        return [line for line in self.seen if line.startswith("#")]

    @property
    def closed(self) -> bool:
        return bool(self.transport.disconnecting)

    def drop(self) -> None:
        self.transport.loseConnection()
        self.proto.connectionLost(None)


def deck(*text: str) -> list[int]:
    """A deck starting with the cards ``text`` (``"Td 8h As Tc"``...), the rest after."""
    first = cards.parse_many(" ".join(text))
    return first + [c for c in range(52) if c not in first]


def lay_decks(monkeypatch: Any, decks: list[list[int]]) -> None:
    """The tables deal ``decks`` in order (then fresh decks by seed)."""
    import games.poker.shuffle as shuffle  # (the tables' decks come from it)

    queue = list(decks)
    real = shuffle.deck_from_seed

    def fake(seed: Any) -> list[int]:
        return queue.pop(0) if queue else real(seed)

    monkeypatch.setattr(shuffle, "deck_from_seed", fake)


__all__ = ["Hub", "Program", "deck", "lay_decks"]
