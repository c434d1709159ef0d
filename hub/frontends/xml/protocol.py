"""The XML front end's Twisted protocol: framing, timeouts, ordering. Nothing else.

A frame is a 4-byte big-endian length and that many bytes of one XML document.  The
protocol turns frames into :mod:`codec` request events and hands them, one at a time
and in order of arrival, to the front end (:class:`hub.frontends.xml.server.XMLFrontend`),
which answers each with exactly one response document.

- A declared length of 0 or above ``MAX_LENGTH`` gets a ``general`` 413 and a close;
  nothing is allocated for a declared length: the buffer only ever holds bytes that
  arrived (at most ``MAX_LENGTH + 4`` of them).
- An idle connection (no complete frame for ``idle_timeout`` seconds) and a frame that
  is not complete ``frame_deadline`` seconds after its first byte get a ``general``
  408 notice and a close.
- A client with more than ``max_pending`` requests waiting for their answers gets a
  ``general`` 429 and a close; one that sends more than ``rate`` requests a second
  (bursts of ``burst``) gets 429 answers for the excess.
- A client that does not read: the protocol is the transport's push producer; while
  the transport is paused, at most ``max_backlog`` bytes are written, then the
  connection is dropped.
"""

from __future__ import annotations

import itertools
from collections import deque
from typing import Any

from twisted.internet import defer
from twisted.internet.interfaces import IPushProducer
from twisted.logger import Logger
from twisted.protocols.basic import Int32StringReceiver
from twisted.protocols.policies import TimeoutMixin
from zope.interface import implementer

from . import codec

_ids = itertools.count(1)


@implementer(IPushProducer)
class XMLProtocol(Int32StringReceiver, TimeoutMixin):
    """One client connection of the XML front end.

    :ivar conn_id: ``x<n>``, the connection's name in logs and transcripts.
    :ivar peer: the client's host address.
    """

    log = Logger()
    MAX_LENGTH = 65536

    def __init__(self, frontend: Any, peer: str, over_cap: bool = False) -> None:
        self.frontend = frontend
        self.peer = peer
        self.over_cap = over_cap
        self.conn_id = f"x{next(_ids)}"
        self.MAX_LENGTH = frontend.max_frame
        self.callLater = frontend.reactor.callLater  # type: ignore[method-assign]  # TimeoutMixin's timer source
        self._buffer = bytearray()
        self._frame_timer: Any = None
        self._close_timer: Any = None
        self._queue: deque[bytes] = deque()
        self._busy = False
        self._in_next = False
        self._held: list[bytes] | None = None
        self.closing = False
        self.connected_ = False
        self._paused = False
        self._backlog = 0
        self._tokens = float(frontend.burst)
        self._tokens_at = frontend.reactor.seconds()
        #: filled in by the front end: the logged-in account and the sessions
        self.account: Any = None
        self.lobby_session = 0
        self.game_sessions: dict[int, Any] = {}

    # -- connection life ----------------------------------------------------------------

    def connectionMade(self) -> None:
        """Greet (or refuse, above the per-address cap) and start the idle timer."""
        self.connected_ = True
        if self.transport is not None and hasattr(self.transport, "registerProducer"):
            self.transport.registerProducer(self, True)
        if self.over_cap:
            self.fail(429, f"too many connections from {self.peer}")
            return
        self.setTimeout(self.frontend.idle_timeout)
        self.send(codec.encode(self.frontend.greeting()))

    def connectionLost(self, reason: Any = None) -> None:
        """End every session of this connection."""
        self.connected_ = False
        self.closing = True
        self.setTimeout(None)
        self._cancel_frame_timer()
        if self._close_timer is not None and self._close_timer.active():
            self._close_timer.cancel()
        self._close_timer = None
        self._queue.clear()
        self._buffer = bytearray()
        self.frontend.connection_lost(self)

    def timeoutConnection(self) -> None:
        """Idle for too long: say so and close."""
        self.fail(408, f"idle for {self.frontend.idle_timeout:g} seconds", notice=True)

    def fail(self, code: int, reason: str, notice: bool = False) -> None:
        """Send one ``general`` error (or notice) and close after it is written."""
        if self.closing:
            return
        self.log.info(
            "xml {conn} from {peer}: {code} {reason}; closing",
            conn=self.conn_id,
            peer=self.peer,
            code=code,
            reason=reason,
        )
        if notice:
            root = codec.envelope(0)
            node = codec.sub(codec.sub(root, "stateupdate"), "general", success=False)
            node.set("errorcode", str(code))
            codec.sub(node, "description", reason)
        else:
            root = codec.build_error(code, reason)
        self._held = None
        self.send(codec.encode(root))
        self.closing = True
        self.setTimeout(None)
        self._cancel_frame_timer()
        self._queue.clear()
        self._buffer = bytearray()
        if self.transport is None:
            return
        # Half-close first: the peer reads the error before anything it still sends
        # (and we discard) could turn our close into a reset; then close for good.
        lose_write = getattr(self.transport, "loseWriteConnection", None)
        if lose_write is not None:
            lose_write()
            self._close_timer = self.callLater(self.frontend.close_grace, self._close_now)
        else:
            self.transport.loseConnection()

    def _close_now(self) -> None:
        self._close_timer = None
        if self.transport is not None:
            self.transport.loseConnection()

    # -- framing --------------------------------------------------------------------------

    def dataReceived(self, data: bytes) -> None:
        """Split the stream into frames without trusting any declared length."""
        if self.closing:
            return
        self._buffer += data
        while not self.closing and len(self._buffer) >= 4:
            length = int.from_bytes(self._buffer[:4], "big")
            if length == 0 or length > self.MAX_LENGTH:
                self.lengthLimitExceeded(length)
                return
            if len(self._buffer) < 4 + length:
                break
            frame = bytes(self._buffer[4 : 4 + length])
            del self._buffer[: 4 + length]
            self.stringReceived(frame)
        if self.closing:
            return
        if self._buffer and self._frame_timer is None:
            self._frame_timer = self.callLater(self.frontend.frame_deadline, self._frame_late)
        elif not self._buffer:
            self._cancel_frame_timer()

    def lengthLimitExceeded(self, length: int) -> None:
        """A declared length of 0 or above the limit: 413 and close."""
        if length == 0:
            self.fail(413, "a frame of length 0 is not a document")
        else:
            self.fail(413, f"frame of {length} bytes exceeds the limit of {self.MAX_LENGTH}")

    def _frame_late(self) -> None:
        self._frame_timer = None
        self.fail(408, f"frame not completed within {self.frontend.frame_deadline:g} seconds")

    def _cancel_frame_timer(self) -> None:
        if self._frame_timer is not None:
            if self._frame_timer.active():
                self._frame_timer.cancel()
            self._frame_timer = None

    def stringReceived(self, frame: bytes) -> None:
        """One complete frame: queue it for the front end, in order."""
        self.resetTimeout()
        if len(self._queue) >= self.frontend.max_pending:
            self.fail(429, f"more than {self.frontend.max_pending} requests waiting")
            return
        self._queue.append(frame)
        if not self._busy:
            self._next()

    def _next(self) -> None:
        self._in_next = True
        try:
            while self._queue and not self._busy and not self.closing:
                frame = self._queue.popleft()
                self._busy = True
                self._held = []
                d = defer.maybeDeferred(self.frontend.handle_frame, self, frame)
                d.addErrback(self._internal_error)
                d.addBoth(self._answered)
        finally:
            self._in_next = False

    def _internal_error(self, failure: Any) -> bytes:
        self.log.failure(
            "xml {conn}: internal error handling a request", failure, conn=self.conn_id
        )
        return codec.encode(codec.build_error(500, "internal error; it has been logged"))

    def _answered(self, response: bytes | None) -> None:
        held, self._held = self._held, None
        if response is not None:
            self.send(response)
        for update in held or ():
            self.send(update)
        self._busy = False
        if not self._in_next:
            self._next()

    # -- output ----------------------------------------------------------------------------

    def send(self, document: bytes) -> None:
        """Write one frame (dropping the connection of a client that stopped reading)."""
        if not self.connected_ or self.transport is None:
            return
        if self._paused:
            self._backlog += len(document) + 4
            if self._backlog > self.frontend.max_backlog:
                self.log.info(
                    "xml {conn} from {peer}: not reading; dropped",
                    conn=self.conn_id,
                    peer=self.peer,
                )
                self.connected_ = False
                self.closing = True
                self.transport.abortConnection()  # type: ignore[attr-defined]
                return
        self.sendString(document)

    def pauseProducing(self) -> None:  # noqa: N802
        """The transport's buffer is full: the client is not reading fast enough."""
        self._paused = True
        self._backlog = 0

    def resumeProducing(self) -> None:  # noqa: N802
        """The transport's buffer drained."""
        self._paused = False
        self._backlog = 0

    def stopProducing(self) -> None:  # noqa: N802
        """The connection is going away."""
        self.closing = True

    def take_token(self) -> bool:
        """Whether one more request is within the rate limit (token bucket)."""
        now = self.frontend.reactor.seconds()
        rate, burst = self.frontend.rate, self.frontend.burst
        self._tokens = min(burst, self._tokens + (now - self._tokens_at) * rate)
        self._tokens_at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False

    def send_update(self, document: bytes) -> None:
        """Write a state update; while a request of this connection is being answered it
        waits until that response is written, so a response always comes first."""
        if self.closing:
            return
        self.resetTimeout()  # a connection that follows a game is not idle
        if self._held is not None:
            self._held.append(document)
        else:
            self.send(document)
