"""The King Domino bots as network clients of the domino line protocol.

:class:`Mirror` (no I/O) follows the server's lines with a rules engine of its own;
the protocol never says that a player was removed, so the mirror infers it when the
turn skips someone.  :class:`BotClient` is the thin Twisted receiver that thinks in a
worker thread within its time budget.
"""

from __future__ import annotations

import random
from typing import Any

from twisted.internet import defer, threads
from twisted.internet.protocol import ClientFactory
from twisted.logger import Logger
from twisted.protocols.basic import LineOnlyReceiver

from games.kingdomino import rules

from . import Brain


class ProtocolError(Exception):
    """The server said something the mirror cannot follow."""


class Mirror:
    """The game as one client sees it, rebuilt line by line.

    :meth:`feed` returns ``"choose"`` or ``"move"`` when the server prompts us,
    ``"over"`` at the end, ``"refused"`` when the login was refused, else ``None``.
    """

    def __init__(self) -> None:
        self.state: rules.State | None = None
        self.me: int | None = None
        self.results: list[tuple[str, int]] = []
        self._sent: int | rules.Placement | None = None
        self._announced = 1  # the draw the server last showed (START shows the first)
        self.errors = 0

    def feed(self, line: str) -> str | None:
        """Follow one server line."""
        words = line.split()
        if not words:
            raise ProtocolError("empty line")
        head = words[0]
        if line in ("CONNECT", "OK") and self._sent is None:
            return None
        if line == "OK":
            self._apply(self.me, self._sent)
            self._sent = None
            return None
        if line == "ERROR":
            self.errors += 1
            self._sent = None
            state = self.state
            if state is None:
                return "refused"  # the login was refused
            if state.to_act == self.me:
                return state.phase  # answer again
            return None
        if head == "START":
            numbers = [int(w) for w in words[1:]]
            self.me = numbers[0] - 1
            draws = [tuple(numbers[5:9])] + [()] * (rules.DRAWS - 1)
            self.state = rules.State(4, draws=draws, order=[n - 1 for n in numbers[1:5]])
            return None
        state = self.state
        if state is None:
            raise ProtocolError(f"{line!r} before START")
        if line == "YOUR CHOICE":
            self._sync(self.me, rules.CHOOSE)
            return "choose"
        if line == "YOUR MOVE":
            self._sync(self.me, rules.MOVE)
            return "move"
        if words[:2] == ["PLAYER", "CHOICE"]:
            player = int(words[2]) - 1
            self._sync(player, rules.CHOOSE)
            self._apply(player, int(words[3]))
            return None
        if words[:2] == ["PLAYER", "MOVE"]:
            player = int(words[2]) - 1
            self._sync(player, rules.MOVE)
            self._apply(player, rules.Placement(*(int(w) for w in words[3:6])))
            return None
        if head == "ROUND":
            draw = tuple(int(w) for w in words[1:])
            self._announced += 1
            while state.round < self._announced and state.to_act is not None:
                state.remove(state.to_act)  # whoever had not picked was removed
            if draw:
                state.current = draw
                state.draws[state.round - 1] = draw
            return None
        if words[:3] == ["GAME", "OVER", "RESULTS"]:
            rest = words[3:]
            self.results = [(rest[i], int(rest[i + 1])) for i in range(0, len(rest) - 1, 2)]
            return "over"
        raise ProtocolError(f"unknown line {line!r}")

    def command(self, decision: int | rules.Placement) -> str:
        """The line for ``decision``; remembered until the server's ``OK``."""
        self._sent = decision
        if isinstance(decision, rules.Placement):
            return f"MOVE {decision.x} {decision.y} {decision.orientation}"
        return f"CHOOSE {decision}"

    def _sync(self, player: int | None, phase: str) -> None:
        """Players the turn skipped were removed."""
        state = self.state
        assert state is not None and player is not None
        for _ in range(8):
            if state.over or (state.to_act == player and state.phase == phase):
                return
            if state.to_act == player or state.to_act is None:
                raise ProtocolError(f"player {player + 1} should {state.phase}, not {phase}")
            state.remove(state.to_act)
        raise ProtocolError("cannot follow the turn order")

    def _apply(self, player: int | None, decision: Any) -> None:
        state = self.state
        assert state is not None and player is not None
        if isinstance(decision, rules.Placement):
            state.move(player, decision)
        elif isinstance(decision, int):
            state.choose(player, decision)


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
