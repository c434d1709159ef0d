"""``LISTEN`` on a PostgreSQL connection the reactor watches: the cluster's notices.

:class:`NoticeListener` opens an asynchronous psycopg2 connection (``async_=True``:
connecting, ``LISTEN`` and reading never block), hands its socket to the reactor
(``addReader``/``addWriter`` of a duplicate of the socket: it provides
``IReadWriteDescriptor``) and calls ``poll()`` only when the socket is ready.  Each notice's text goes to ``received``;
``ready`` is called each time the connection is listening, the first time and after
every reconnection (notices sent meanwhile were lost: the cluster reads the directory
again then).  A lost connection is retried with a growing delay until :meth:`stop`.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable
from typing import Any

from twisted.internet.interfaces import IReadWriteDescriptor
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

#: TCP keepalives of the listening connection: a database host that vanishes is
#: noticed in about ``idle + interval * count`` seconds
KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
}
#: how the connection names itself in ``pg_stat_activity``
APPLICATION = "gamehub-cluster-listen"


class _Phase(enum.Enum):
    IDLE = "idle"
    CONNECTING = "connecting"
    LISTENING = "sending LISTEN"
    READY = "listening"


def quote_channel(channel: str) -> str:
    """``channel`` as a quoted SQL identifier."""
    return '"' + channel.replace('"', '""') + '"'


@implementer(IReadWriteDescriptor)
class NoticeListener:
    """Listens on ``channel`` of the database ``dsn``.

    :param reactor: provides ``IReactorFDSet`` and ``IReactorTime``.
    :param received: called with each notice's text (on the reactor thread).
    :param ready: called each time the connection listens (again).
    :param delays: ``(first, most)`` seconds between tries to connect again.
    """

    log = Logger()

    def __init__(
        self,
        dsn: str,
        channel: str,
        reactor: Any,
        received: Callable[[str], None],
        ready: Callable[[], None],
        delays: tuple[float, float] = (0.25, 5.0),
    ) -> None:
        self.dsn = dsn
        self.channel = channel
        self._reactor = reactor
        self._received = received
        self._ready = ready
        self._delays = delays
        self._delay = delays[0]
        self._conn: Any = None
        self._cursor: Any = None
        #: the reactor watches a duplicate of the connection's socket: libpq closes its
        #: own when the server goes, and the reactor must never see a closed number
        self._fd: int | None = None
        self._phase = _Phase.IDLE
        self._retry: Any = None
        self._stopped = True
        #: times the connection was listening (1 after the first connection)
        self.connections = 0

    def backend_pid(self) -> int | None:
        """The server process of the connection (``pg_stat_activity.pid``), if any."""
        conn = self._conn
        return None if conn is None or conn.closed else int(conn.get_backend_pid())

    @property
    def listening(self) -> bool:
        """Whether notices arrive now."""
        return self._phase is _Phase.READY

    def start(self) -> None:
        """Connect and listen (and keep doing so until :meth:`stop`)."""
        self._stopped = False
        self._connect()

    def stop(self) -> None:
        """Stop listening and close the connection."""
        self._stopped = True
        if self._retry is not None and self._retry.active():
            self._retry.cancel()
        self._retry = None
        self._close()

    # -- IReadWriteDescriptor ------------------------------------------------------

    def fileno(self) -> int:
        """The reactor's copy of the connection's socket (-1 when there is none)."""
        return -1 if self._fd is None else self._fd

    def doRead(self) -> None:
        """The socket is readable: let psycopg2 read."""
        self._poll()

    def doWrite(self) -> None:
        """The socket is writable: let psycopg2 write."""
        self._poll()

    def connectionLost(self, reason: Failure) -> None:
        """The reactor gave up on the socket."""
        self._lost(reason.getErrorMessage())

    def logPrefix(self) -> str:
        """What the reactor's log lines about this descriptor start with."""
        return "gamehub-cluster-listen"

    # -- the connection --------------------------------------------------------------

    def _connect(self) -> None:
        import psycopg2

        self._retry = None
        if self._stopped:
            return
        try:
            self._conn = psycopg2.connect(
                self.dsn, async_=True, application_name=APPLICATION, **KEEPALIVES
            )
        except psycopg2.Error as e:
            self._lost(str(e))
            return
        self._phase = _Phase.CONNECTING
        self._poll()

    def _poll(self) -> None:
        import psycopg2
        from psycopg2 import extensions

        conn = self._conn
        if conn is None:
            return
        try:
            state = conn.poll()
        except psycopg2.Error as e:
            self._lost(str(e).strip() or type(e).__name__)
            return
        if state == extensions.POLL_OK:
            self._watch(reading=True, writing=False)
            if self._phase is _Phase.CONNECTING:
                self._phase = _Phase.LISTENING
                self._cursor = conn.cursor()  # kept until its command is done
                self._cursor.execute(f"LISTEN {quote_channel(self.channel)}")
                self._poll()
                return
            if self._phase is _Phase.LISTENING:
                self._cursor = None
                self._phase = _Phase.READY
                self._delay = self._delays[0]
                self.connections += 1
                self.log.info("cluster: listening for notices on {channel}", channel=self.channel)
                self._call(self._ready)
            self._deliver()
        elif state == extensions.POLL_READ:
            self._watch(reading=True, writing=False)
        elif state == extensions.POLL_WRITE:
            self._watch(reading=True, writing=True)

    def _deliver(self) -> None:
        conn = self._conn
        while conn is not None and conn.notifies:
            item = conn.notifies.pop(0)
            self._call(self._received, item.payload)

    def _call(self, function: Callable[..., None], *args: Any) -> None:
        try:
            function(*args)
        except Exception:
            self.log.failure("cluster: a notice handler failed")

    def _watch(self, reading: bool, writing: bool) -> None:
        socket_fd = self._conn.fileno()
        if self._fd is None or os.fstat(socket_fd).st_ino != os.fstat(self._fd).st_ino:
            self._unwatch()  # a new socket (libpq tries the next address)
            self._fd = os.dup(socket_fd)
        if reading:
            self._reactor.addReader(self)
        else:
            self._reactor.removeReader(self)
        if writing:
            self._reactor.addWriter(self)
        else:
            self._reactor.removeWriter(self)

    def _unwatch(self) -> None:
        if self._fd is not None:
            self._reactor.removeReader(self)
            self._reactor.removeWriter(self)
            os.close(self._fd)
            self._fd = None

    def _close(self) -> None:
        self._unwatch()
        conn, self._conn, self._cursor = self._conn, None, None
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass
        self._phase = _Phase.IDLE

    def _lost(self, reason: str) -> None:
        was = self._phase
        self._close()
        if self._stopped:
            return
        self.log.warn(
            "cluster: no notice connection ({phase}): {reason}", phase=was.value, reason=reason
        )
        delay, self._delay = self._delay, min(self._delay * 2, self._delays[1])
        if self._retry is None or not self._retry.active():
            self._retry = self._reactor.callLater(delay, self._connect)
