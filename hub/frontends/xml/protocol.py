"""The XML front end's Twisted protocol: bytes, timers and the transport.  Nothing else.

A plain :class:`~twisted.internet.protocol.Protocol` around the sans-I/O
:class:`.framing.FrameReader`: the frames it reads go, in order, to the connection's
session (:class:`.connection.Connection`), which answers each with exactly one
response document.

- A declared length of 0 or above ``max_frame`` gets a ``general`` 413 and a close;
  nothing is allocated for a declared length.
- An idle connection (no complete frame for ``idle_timeout`` seconds, and no state
  update sent) and a frame that is not complete ``frame_deadline`` seconds after its
  first byte get a ``general`` 408 notice and a close.  The idle timer is lazy: a
  frame or an update only notes the time (:attr:`.connection.Connection.active_at`);
  the timer, when it fires, closes the connection or waits for the rest.
- A refused connection is half-closed first (the client reads the error), then closed
  after ``close_grace`` seconds.
- The protocol is the transport's push producer; the session counts what it writes
  while the transport is paused.
- Frames written while a chunk of bytes from a client is being answered (its
  pipelined requests' answers, the copies of a lobby chat line it said for every
  client) are held per connection (:class:`Outbox`): the client's own when the chunk
  is done, every other connection's at the end of the reactor's turn (the chunks of
  all the clients read in that turn), one write for each connection, as Twisted's own
  ``transport.write`` would at the reactor's next turn.  A frame written at any other
  time goes at once, after what its connection holds.  The bytes and their order on
  each connection are the same.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from twisted.internet.interfaces import IDelayedCall, IPushProducer
from twisted.internet.protocol import Protocol
from twisted.logger import Logger
from zope.interface import implementer

from hub.connections.sockets import no_delay, write_now

from . import encoding
from .connection import Connection, ConnectionHost
from .framing import BadLength, FrameReader
from .states import GONE

if TYPE_CHECKING:
    from lxml import etree


class Outbox:
    """The front end's frames held while a chunk of a client's bytes is answered.

    ``with outbox.answering(proto):`` around the answering of ``proto``'s bytes;
    :meth:`XMLProtocol.write_frame` holds a frame (:meth:`hold`) while one is open.
    When the outermost ``with`` ends, ``proto``'s held frames go to its socket at once
    (its answers); the other connections' (a lobby chat line's copies) wait for the
    end of the reactor's turn (:meth:`release`, called by the reactor with
    ``callLater(0)``), so that a connection gets one write a turn for the copies of
    every chunk read in that turn, not one a chunk.  A connection's own chunk, and
    any frame written to it outside a chunk, send what it holds first: its bytes keep
    their order.

    :param call_later: the reactor's ``callLater`` (the end of the turn).
    """

    __slots__ = ("_call_later", "_depth", "_reader", "_turn", "_waiting", "holding")

    def __init__(self, call_later: Callable[[float, Callable[[], None]], IDelayedCall]) -> None:
        self._call_later = call_later
        self._depth = 0
        self._reader: XMLProtocol | None = None
        #: connections holding frames until the end of the turn (each once a turn)
        self._waiting: list[XMLProtocol] = []
        #: the call of :meth:`release` at the end of this turn, while one is due
        self._turn: IDelayedCall | None = None
        #: whether frames written now are held
        self.holding = False

    def hold(self, proto: XMLProtocol) -> None:
        """``proto`` holds frames: flush it at the end of the turn (or before; the
        client whose chunk is answered, when the chunk is done)."""
        if proto is not self._reader:
            self._waiting.append(proto)

    def answering(self, proto: XMLProtocol) -> Outbox:
        """The outbox, for ``with``: ``proto``'s bytes are being answered."""
        if not self._depth:
            self._reader = proto
        return self

    def __enter__(self) -> None:
        self._depth += 1
        self.holding = True

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if not self._depth:
            self.holding = False
            reader, self._reader = self._reader, None
            if reader is not None:
                reader.flush()  # its answers (and what it held before) now
            if self._waiting and self._turn is None:
                self._turn = self._call_later(0, self.release)

    def release(self) -> None:
        """The reactor's turn ends: write every frame held, one write a connection."""
        if self._turn is not None:
            if self._turn.active():
                self._turn.cancel()
            self._turn = None
        while self._waiting:
            waiting, self._waiting = self._waiting, []
            for proto in waiting:
                proto.flush()


class ProtocolHost(ConnectionHost, typing.Protocol):
    """What the protocol uses of its front end (:class:`.server.XMLFrontend`): its
    connection's part, the timeouts, the frame limit, the greeting and the outbox."""

    @property
    def outbox(self) -> Outbox: ...
    @property
    def max_frame(self) -> int: ...
    @property
    def idle_timeout(self) -> float: ...
    @property
    def frame_deadline(self) -> float: ...
    @property
    def close_grace(self) -> float: ...
    def encode(self, root: etree._Element) -> bytes: ...
    def greeting(self) -> etree._Element: ...
    def connection_lost(self, conn: Connection) -> None: ...


@implementer(IPushProducer)
class XMLProtocol(Protocol):
    """One client connection of the XML front end.

    :param frontend: the front end (its limits).
    :param peer: the client's host address.
    :param over_cap: refuse the connection (429) instead of greeting it.

    :ivar connection: the connection's session (what the front end speaks to).
    """

    log = Logger()

    def __init__(self, frontend: ProtocolHost, peer: str, over_cap: bool = False) -> None:
        self.frontend = frontend
        self.over_cap = over_cap
        self.callLater = frontend.reactor.callLater
        self._seconds = frontend.reactor.seconds
        self._outbox = frontend.outbox
        self._reader = FrameReader(frontend.max_frame)
        self._idle_timer: Any = None
        self._frame_timer: Any = None
        self._close_timer: Any = None
        #: frames held by the front end's :class:`Outbox` (lengths and documents, or
        #: their parts), and how many
        self._out: list[bytes] | None = None
        self._frames = 0
        self.connection = Connection(frontend, self, peer)

    @property
    def _buffer(self) -> bytearray:
        """The bytes held for an unfinished frame (the reader's)."""
        return self._reader.buffer

    # -- connection life ----------------------------------------------------------------

    def connectionMade(self) -> None:
        """Greet (or refuse, above the per-address cap) and start the idle timer."""
        if self.transport is not None and hasattr(self.transport, "registerProducer"):
            self.transport.registerProducer(self, True)
        no_delay(self.transport)  # many small frames: no Nagle delays
        self.frontend.telemetry.opened()
        if self.over_cap:
            self.fail(429, f"too many connections from {self.connection.peer}")
            return
        self.connection.active_at = self._seconds()
        self._idle_timer = self.callLater(self.frontend.idle_timeout, self._idle_check)
        self.connection.send(self.frontend.encode(self.frontend.greeting()))

    def connectionLost(self, reason: Any = None) -> None:
        """End every session of this connection."""
        self.frontend.telemetry.closed()
        self.connection.lost()
        self._cancel_idle_timer()
        self._cancel_frame_timer()
        if self._close_timer is not None and self._close_timer.active():
            self._close_timer.cancel()
        self._close_timer = None
        self._reader.clear()
        self._out = None
        self.frontend.connection_lost(self.connection)

    def _idle_check(self) -> None:
        """The idle timer: idle for ``idle_timeout`` seconds, say so and close; else
        wait until the connection would be."""
        timeout = self.frontend.idle_timeout
        idle = self._seconds() - self.connection.active_at
        if idle >= timeout:
            self._idle_timer = None
            self.timeoutConnection()
        else:
            self._idle_timer = self.callLater(timeout - idle, self._idle_check)

    def _cancel_idle_timer(self) -> None:
        if self._idle_timer is not None:
            if self._idle_timer.active():
                self._idle_timer.cancel()
            self._idle_timer = None

    def timeoutConnection(self) -> None:
        """Idle for too long: say so and close."""
        self.fail(408, f"idle for {self.frontend.idle_timeout:g} seconds", notice=True)

    def fail(self, code: int, reason: str, notice: bool = False) -> None:
        """Send one ``general`` error (or notice) and close after it is written."""
        conn = self.connection
        if conn.closing:
            return
        self.frontend.telemetry.refused(
            str(code), f"{reason}; closing", conn.conn_id, peer=conn.peer
        )
        if notice:
            root = encoding.build_notice(reason, errorcode=code)
        else:
            root = encoding.build_error(code, reason)
        conn.send(self.frontend.encode(root))
        conn.refused()
        self._cancel_idle_timer()
        self._cancel_frame_timer()
        self._reader.clear()
        if self.transport is None:
            return
        self.flush()  # the error (and what came before it) goes before the close
        # Half-close first: the peer reads the error before anything it still sends
        # (and we discard) could turn our close into a reset; then close for good.
        lose_write = getattr(self.transport, "loseWriteConnection", None)  # foreign: optional
        if lose_write is not None:
            lose_write()
            self._close_timer = self.callLater(self.frontend.close_grace, self._close_now)
        else:
            self.transport.loseConnection()

    def _close_now(self) -> None:
        self._close_timer = None
        if self.transport is not None:
            self.transport.loseConnection()

    def abort(self) -> None:
        """Drop the connection at once (a client that does not read)."""
        self._out = None
        if self.transport is not None:
            self.transport.abortConnection()  # type: ignore[attr-defined]

    # -- bytes ----------------------------------------------------------------------------

    def dataReceived(self, data: bytes) -> None:
        """Hand each complete frame to the session, in order; refuse a bad length."""
        conn = self.connection
        machine = conn.machine
        if machine.state in GONE:
            return
        now = self._seconds()
        telemetry = self.frontend.telemetry
        with self._outbox.answering(self):
            for token in self._reader.feed(data):
                if isinstance(token, BadLength):
                    self._bad_length(token.length)
                    return
                conn.active_at = now  # a complete frame: not idle (the lazy idle timer)
                telemetry.message_in()
                conn.frame_received(token.data)
                if machine.state in GONE:
                    return
        if self._reader.buffer:
            if self._frame_timer is None:
                self._frame_timer = self.callLater(self.frontend.frame_deadline, self._frame_late)
        else:
            self._cancel_frame_timer()

    def _bad_length(self, length: int) -> None:
        if length == 0:
            self.fail(413, "a frame of length 0 is not a document")
        else:
            limit = self._reader.max_length
            self.fail(413, f"frame of {length} bytes exceeds the limit of {limit}")

    def _frame_late(self) -> None:
        self._frame_timer = None
        self.fail(408, f"frame not completed within {self.frontend.frame_deadline:g} seconds")

    def _cancel_frame_timer(self) -> None:
        if self._frame_timer is not None:
            if self._frame_timer.active():
                self._frame_timer.cancel()
            self._frame_timer = None

    def write_frame(self, document: bytes) -> None:
        """Write one document as a frame (held while the front end's outbox holds;
        counted when written, :meth:`flush`)."""
        self._put((len(document).to_bytes(4, "big"), document))

    def write_parts(self, length: bytes, head: bytes, middle: bytes, tail: bytes) -> None:
        """:meth:`write_frame` of the document ``head + middle + tail``, whose frame
        ``length`` (4 bytes) its caller knows, held in its parts (joined once with the
        rest of the write)."""
        self._put((length, head, middle, tail))

    def _put(self, parts: tuple[bytes, ...]) -> None:
        """One frame in ``parts`` (its length first): after the frames held, sent now
        unless the outbox holds (then held until it releases, :meth:`flush`)."""
        if self.transport is None:
            return
        out = self._out
        if out is not None:
            out += parts
            self._frames += 1
            if not self._outbox.holding:
                self.flush()
        elif self._outbox.holding:
            self._out = list(parts)
            self._frames = 1
            self._outbox.hold(self)
        else:
            self.frontend.telemetry.message_out()
            write_now(self.transport, b"".join(parts))

    def flush(self) -> None:
        """Write the frames held (:class:`Outbox`) in one write, to the socket now
        (:func:`~hub.connections.sockets.write_now`)."""
        out, self._out = self._out, None
        if out and self.transport is not None:
            self.frontend.telemetry.message_out(self._frames)
            write_now(self.transport, b"".join(out))

    # -- the transport's producer ---------------------------------------------------------

    def pauseProducing(self) -> None:  # noqa: N802
        """The transport's buffer is full: the client is not reading fast enough."""
        self.connection.pause()

    def resumeProducing(self) -> None:  # noqa: N802
        """The transport's buffer drained."""
        self.connection.resume()

    def stopProducing(self) -> None:  # noqa: N802
        """The connection is going away."""
        self.connection.lost()
