"""A client connection passed through to the hub that runs its game: a byte splice.

A front end that meets :class:`hub.model.Elsewhere` for the game a client names hands
the connection to a :class:`Splice`: it opens a TCP connection to the owner's
advertised front end (bounded by ``cluster_connect_seconds``), writes the *replay*
(what the owner must hear to reach the same point: the lines or frames the door
already answered), drops the owner's answers to it that the client already had from
the door (``skip``, counted in lines), and then copies bytes both ways unchanged.

Flow control is Twisted's own: each transport is the other's push producer
(``registerProducer``, through a :class:`_Flow` that passes pause and resume on), so a
slow reader pauses the fast writer's socket instead of filling memory.  Bytes go to a
plain TCP socket at once when nothing waits there (:func:`hub.connections.sockets.write_now`: no
``epoll`` round of their own).  While the connection to the owner is being made the
client's transport is paused and what it already sent is kept, at most
``cluster_splice_buffer`` bytes.  When either side closes, the other is closed once its
pending bytes are written: its producer is unregistered first (Twisted closes a
transport whose paused producer is still registered only once that producer resumes,
and a closed one never does: the door stayed open and the owner's last lines stayed
in it, issue 31).  The splice knows no protocol: the front end decides
what to replay and how many lines to skip, and how to tell its client when the owner
cannot be reached (``failed``).

**Following a game that moves** (issue 31).  With a :class:`Follow`, an owner that
closes without the session's end (``Follow.final`` of its last bytes: a game's last
line, a refusal) may have handed the game to another hub, or died and been resumed
elsewhere: the splice asks where the game is now (``Follow.where``, bounded:
:mod:`hub.cluster.moves`) while it keeps what the client sends (bounded as while
connecting), and passes the connection through to the new owner with
``Follow.replay()`` (what seats the client there again), dropping the ``Follow.skip``
lines of its answer the client already had.  The client keeps its connection; when
the game did not move (it ended, was aborted, stayed), the client is closed as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from twisted.internet import defer
from twisted.internet.interfaces import IPushProducer
from twisted.internet.protocol import Factory, Protocol, connectionDone
from twisted.logger import Logger
from zope.interface import implementer

from hub.connections.sockets import write_now
from hub.tls import ClientTLS, client_endpoint

#: the settings of the splice, with their defaults
DEFAULTS: dict[str, Any] = {
    "cluster_connect_seconds": 5.0,  # to connect to the owner and hear its first lines
    "cluster_splice_buffer": 65536,  # bytes kept from the client while connecting
    "cluster_splice_line": 4096,  # the longest line skipped from the owner
}


#: a route to a front end: (host, port, TLS)
Route = tuple[str, int, bool]
#: how many of the owner's last bytes a following splice keeps (for ``Follow.final``)
TAIL = 512


class SpliceError(Exception):
    """The owner could not be reached, or closed before the splice began."""


@dataclass(frozen=True)
class Follow:
    """How a splice follows its client's game to a new owner (see the module's
    docstring).

    :ivar where: fires with the route to the game's new owner, or ``None``.
    :ivar replay: what the new owner must hear to seat the client again.
    :ivar skip: how many lines of the new owner's answer the client already had (at
        most, with ``until``).
    :ivar until: the last line of those (without its newline): the lines are dropped
        up to it, however many there are (``None``: exactly ``skip`` lines).
    :ivar final: whether the owner's last bytes (at most :data:`TAIL`) end the
        session (no follow: the client is closed at once).
    """

    where: Callable[[], defer.Deferred[Route | None]]
    replay: Callable[[], bytes]
    skip: int
    final: Callable[[bytes], bool]
    until: bytes | None = None


def settings(options: Any) -> dict[str, Any]:
    """The splice's settings from a hub's options (defaults filled in)."""
    out = dict(DEFAULTS)
    out.update({k: v for k, v in dict(options).items() if k in DEFAULTS})
    return out


@implementer(IPushProducer)
class _Flow:
    """One side's transport as the producer of the other side: pausing and resuming
    pass on; stopping does nothing (Twisted stops the producer of a transport that
    closes: the splice closes the other side itself, after its pending bytes)."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport

    def pauseProducing(self) -> None:  # noqa: N802
        """The other side's buffer is full: stop reading this side."""
        self.transport.pauseProducing()

    def resumeProducing(self) -> None:  # noqa: N802
        """The other side's buffer is empty: read this side again."""
        self.transport.resumeProducing()

    def stopProducing(self) -> None:  # noqa: N802
        """(The splice closes both sides itself.)"""


def _close(transport: Any) -> None:
    """Close ``transport`` once its pending bytes are written (its producer, the other
    side, unregistered first)."""
    transport.unregisterProducer()
    transport.loseConnection()


class _Owner(Protocol):
    """The door's connection to the owner's front end."""

    def __init__(self, splice: Splice) -> None:
        self.splice = splice
        self._buffer = b""

    def connectionMade(self) -> None:
        self.splice._owner_made(self.transport)

    def dataReceived(self, data: bytes) -> None:
        splice = self.splice
        if splice.skip > 0:
            self._buffer += data
            while splice.skip > 0 and b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                splice.skip -= 1
                if splice.until is not None and line.rstrip(b"\r") == splice.until:
                    splice.skip = 0
                elif splice.until is not None and splice.skip == 0:
                    splice._fail("the hub of that game did not seat the client again")
                    return
            if splice.skip > 0:
                if len(self._buffer) > splice.max_line:
                    splice._fail("the hub of that game sent an overlong line")
                return
            data, self._buffer = self._buffer, b""
            splice._begin()
            if not data:
                return
        if splice.follow is not None:
            splice.tail = (splice.tail + data)[-TAIL:]
        write_now(splice.client, data)

    def connectionLost(self, reason: Any = connectionDone) -> None:
        self.splice._owner_lost()


class _OwnerFactory(Factory):
    """Builds the one connection to the owner."""

    def __init__(self, splice: Splice) -> None:
        self.splice = splice

    def buildProtocol(self, addr: Any) -> _Owner:
        """The owner side of ``splice``."""
        return _Owner(self.splice)


class Splice:
    """One client connection passed through to another hub.

    :param reactor: the reactor (timers, connecting).
    :param client: the client's transport (a push producer, as every TCP/TLS transport).
    :param route: ``(host, port, tls)`` of the owner's front end.
    :param replay: the bytes the owner must hear first.
    :param skip: how many lines the owner answers first that the client already had.
    :param failed: called with a reason when the owner cannot be reached (the front end
        tells its client, as it would any refusal, and closes).
    :param options: the hub's options (:data:`DEFAULTS`).
    :param tls: how to check the owner's certificate when its front end is TLS
        (default: the platform's certificate authorities).
    :param follow: how to follow the game when the owner lets it go (:class:`Follow`;
        ``None``: the client is closed when the owner closes).
    """

    log = Logger()

    def __init__(
        self,
        reactor: Any,
        client: Any,
        route: tuple[str, int, bool],
        replay: bytes,
        skip: int,
        failed: Callable[[str], None],
        options: Any = (),
        tls: ClientTLS | None = None,
        follow: Follow | None = None,
    ) -> None:
        self._reactor = reactor
        self._tls = tls
        self.follow = follow
        #: the owner's last bytes (while following)
        self.tail = b""
        #: how many times the connection was passed on to a new owner
        self.moves = 0
        self._following: defer.Deferred[Route | None] | None = None
        #: (following) the last line of the new owner's answer the client already had
        self.until: bytes | None = None
        self.client = client
        self.route = route
        self.skip = skip
        self.failed = failed
        conf = settings(options)
        self.connect_seconds = float(conf["cluster_connect_seconds"])
        self.max_buffer = int(conf["cluster_splice_buffer"])
        self.max_line = int(conf["cluster_splice_line"])
        self._pending = [replay]
        self._size = 0
        self._owner: Any = None  #: the owner's transport, once connected
        self._timer: Any = None
        self._connecting: defer.Deferred | None = None
        self.spliced = False  #: bytes flow both ways
        self.closed = False

    def start(self) -> None:
        """Pause the client and connect to the owner."""
        self.client.pauseProducing()
        self._connect()

    def _connect(self) -> None:
        host, port, tls = self.route
        endpoint = client_endpoint(
            self._reactor,
            host,
            port,
            (self._tls or ClientTLS()) if tls else None,
            timeout=self.connect_seconds,
        )
        self._timer = self._reactor.callLater(self.connect_seconds, self._too_slow)
        self._connecting = endpoint.connect(_OwnerFactory(self))
        self._connecting.addErrback(self._not_connected)

    # -- from the client ----------------------------------------------------------------

    def client_data(self, data: bytes) -> None:
        """Bytes from the client: to the owner, or kept (bounded) until connected."""
        if self.closed or not data:
            return
        if self._owner is not None:
            write_now(self._owner, data)
            return
        self._size += len(data)
        if self._size > self.max_buffer:
            self._fail(f"more than {self.max_buffer} bytes sent before the game's hub answered")
            return
        self._pending.append(data)

    def client_lost(self) -> None:
        """The client is gone: close the owner's side too."""
        if self.closed:
            return
        self.closed = True
        self._cancel_timer()
        if self._owner is not None:
            _close(self._owner)
        elif self._connecting is not None:
            self._connecting.cancel()
        if self._following is not None:
            self._following.cancel()

    # -- the owner ------------------------------------------------------------------------

    def _owner_made(self, transport: Any) -> None:
        if self.closed:
            transport.loseConnection()
            return
        self._owner = transport
        transport.write(b"".join(self._pending))
        self._pending = []
        if self.skip <= 0:
            self._begin()

    def _begin(self) -> None:
        """The owner has answered the replay: splice both ways, with flow control."""
        assert self._owner is not None
        self._cancel_timer()
        self.spliced = True
        owner = self._owner
        owner.registerProducer(_Flow(self.client), True)
        self.client.unregisterProducer()  # the front end's own, if it had one
        self.client.registerProducer(_Flow(owner), True)
        self.client.resumeProducing()

    def _owner_lost(self) -> None:
        if self.closed:
            return
        if not self.spliced:
            self._fail("the hub that runs that game closed the connection")
            return
        if self.follow is not None and not self.follow.final(self.tail):
            self._follow(self.follow)
            return
        self.closed = True
        _close(self.client)

    def _follow(self, follow: Follow) -> None:
        """The owner let the game go: find its new owner, keeping the client's bytes."""
        self.spliced, self._owner, self.tail = False, None, b""
        self.client.unregisterProducer()  # the old owner
        self.client.pauseProducing()
        self._pending, self._size = [], 0
        d = self._following = follow.where()
        d.addCallback(self._moved, follow)
        d.addErrback(lambda f: f.trap(defer.CancelledError))
        d.addErrback(lambda f: self.log.failure("splice: following the game failed", f))

    def _moved(self, route: Route | None, follow: Follow) -> None:
        self._following = None
        if self.closed:
            return
        if route is None:  # it ended, was aborted, or stayed: close as before
            self.closed = True
            _close(self.client)
            return
        self.moves += 1
        self.log.info(
            "splice: the game moved; passed on to {host}:{port}", host=route[0], port=route[1]
        )
        self.route, self.skip, self.until = route, follow.skip, follow.until
        self._pending.insert(0, follow.replay())
        self._connect()

    def _not_connected(self, failure: Any) -> None:
        if self.closed:
            return
        error = failure.value
        self._fail(f"the hub that runs that game cannot be reached ({type(error).__name__})")

    def _too_slow(self) -> None:
        self._timer = None
        self._fail(f"the hub that runs that game did not answer within {self.connect_seconds:g} s")

    def _fail(self, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self._cancel_timer()
        host, port, _ = self.route
        self.log.warn(
            "splice to {host}:{port} failed: {reason}", host=host, port=port, reason=reason
        )
        if self._owner is not None:
            self._owner.abortConnection()
        elif self._connecting is not None:
            self._connecting.cancel()
        self.client.resumeProducing()
        self.failed(reason)

    def _cancel_timer(self) -> None:
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None
