"""The morris bot as a network client of the MNM protocol.

As in the course's design, a *connector* talks to the server and a *thinker* computes
the move: the connector is the game's client module
(:class:`games.morris.client.Connector`, a pure state machine: server line in →
client lines out, plus "think now" requests), :class:`MNMBotProtocol` the thin Twisted
line receiver around it, and the thinker (:func:`bots.morris.decide`) runs in a worker
thread with a deadline, so the connection keeps answering while it thinks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet import defer, threads
from twisted.internet.protocol import ClientFactory
from twisted.logger import Logger
from twisted.protocols.basic import LineOnlyReceiver

from games.morris.client import Connector, ConnectorError, MoveRequest
from hub.tls import describe


class MNMBotProtocol(LineOnlyReceiver):
    """Connector on the wire; the thinker runs in a thread."""

    delimiter = b"\n"
    MAX_LENGTH = 4096
    log = Logger()

    def __init__(
        self,
        connector: Connector,
        think: Callable[[MoveRequest], str],
        done: defer.Deferred,
        reactor: Any,
    ) -> None:
        self.connector = connector
        self.think = think
        self.done = done
        self._reactor = reactor
        self._error: Exception | None = None

    def lineReceived(self, line: bytes) -> None:
        """Feed the connector; start the thinker when a move is wanted."""
        try:
            out = self.connector.line(line.decode("ascii", "replace"))
        except ConnectorError as e:
            self._error = e
            if self.transport is not None:
                self.transport.loseConnection()
            return
        self._send(out)
        request = self.connector.request
        if request is not None and self.connector.state == "thinking" and out == ["THINKING"]:
            d = threads.deferToThreadPool(
                self._reactor, self._reactor.getThreadPool(), self.think, request
            )
            d.addCallback(lambda text: self._send(self.connector.move(text)))
            d.addErrback(self._think_failed)

    def _think_failed(self, failure: Any) -> None:
        self.log.failure("the thinker failed", failure)
        self._error = ConnectorError("the thinker failed")
        if self.transport is not None:
            self.transport.loseConnection()

    def _send(self, lines: list[str]) -> None:
        for text in lines:
            self.sendLine(text.encode("ascii"))

    def connectionLost(self, reason: Any = None) -> None:
        """Report how it ended."""
        if self.done.called:
            return
        if self.connector.finished:
            self.done.callback(self.connector.won)
        else:
            ended = describe(reason) if reason is not None else "the connection ended"
            self.done.errback(
                self._error or ConnectorError(f"the server closed the connection ({ended})")
            )


class MNMBotFactory(ClientFactory):
    """Builds the one connection of a network bot."""

    def __init__(self, connector: Connector, think: Callable[[MoveRequest], str], reactor: Any):
        self.connector = connector
        self.think = think
        self.reactor = reactor
        self.done: defer.Deferred = defer.Deferred()

    def buildProtocol(self, addr: Any) -> MNMBotProtocol:
        """The connector protocol."""
        return MNMBotProtocol(self.connector, self.think, self.done, self.reactor)

    def clientConnectionFailed(self, connector: Any, reason: Any) -> None:
        """Could not connect at all."""
        if not self.done.called:
            self.done.errback(reason)
