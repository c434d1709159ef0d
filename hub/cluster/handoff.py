"""A door on the same machine as a game's hub hands the client's connection over
instead of splicing it: the socket itself goes to the owner (issue 31).

A splice costs the door a read and a write for every message of the game, for the
game's whole life.  When the owner runs on the same machine (two hubs on two cores,
the usual layout: docs/cluster.md "N hubs on M machines"), the door passes the client's
TCP socket to the owner over a Unix socket (``SCM_RIGHTS``) with what the owner must
hear first (the replay: the lines the door already answered) and how many lines of
its answer the client already has; the owner adopts the socket as a connection of its
own front end (:meth:`Adopter.adopt`), and the door forgets it.  From then on the
client is the owner's client: no byte passes the door, the owner sees the client's
real address, and the game ends on the owner as for any of its clients.

- **The owner** (:class:`HandoffServer`) listens on ``handoff.sock`` in a private
  folder of its own (mode 0700, under the system's temporary folder: a Unix socket's
  path is short) and advertises it in its member row (``endpoints["handoff"]``: the
  path and this machine's name).  Each hand-over is one message: the socket and a
  line of JSON (``{"frontend", "replay", "skip"}``, the replay in base64), at most
  :data:`MAX_HEADER` bytes.
- **The door** (:class:`HandoffClient`) hands a connection over only when the owner
  advertises a hand-off socket on this very machine, the connection is plain TCP
  (TLS lives in the door's process) and nothing waits in its output buffer; the send
  is one non-blocking ``sendmsg`` on a Unix socket it keeps per owner.  Whatever
  fails, it splices the connection as before (:mod:`.splice`).

Setting ``cluster_handoff`` (true): false splices every connection (the bench uses it
to measure the splice).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import shutil
import socket
import tempfile
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from twisted.internet import defer, tcp
from twisted.internet.error import ConnectionDone
from twisted.internet.interfaces import IFileDescriptorReceiver
from twisted.internet.protocol import Factory
from twisted.logger import Logger
from twisted.protocols.basic import LineOnlyReceiver
from twisted.python.failure import Failure
from zope.interface import implementer

#: the longest header line of a hand-over (the replay is a few short lines)
MAX_HEADER = 16384
#: descriptors received and not yet paired with their header, at most
MAX_WAITING = 64


class Adopter(Protocol):
    """A front end's factory that takes a connection another hub's door handed over."""

    def adopt(self, fd: int, family: int, replay: bytes, skip: int) -> None:
        """Make a connection of the socket ``fd`` (the caller closes its copy): drop
        the first ``skip`` lines it would write (the client has them), then take
        ``replay`` as if the client had sent it."""
        ...


@implementer(IFileDescriptorReceiver)
class _Receiver(LineOnlyReceiver):
    """One door's Unix connection to this hub: sockets, each followed by its header."""

    delimiter = b"\n"
    MAX_LENGTH = MAX_HEADER
    log = Logger()

    def __init__(self, server: HandoffServer) -> None:
        self.server = server
        self.fds: deque[int] = deque()

    def fileDescriptorReceived(self, descriptor: int) -> None:  # noqa: N802
        """A socket of the next header."""
        if len(self.fds) >= MAX_WAITING:
            os.close(descriptor)
            self.transport.loseConnection()  # type: ignore[union-attr]
            return
        self.fds.append(descriptor)

    def lineReceived(self, line: bytes) -> None:  # noqa: N802
        """A header: adopt the socket that came with it."""
        if not self.fds:
            self.log.warn("cluster: a hand-over without a socket; the door is dropped")
            self.transport.loseConnection()  # type: ignore[union-attr]
            return
        fd = self.fds.popleft()
        try:
            self.server.adopt(fd, line)
        finally:
            os.close(fd)

    def lineLengthExceeded(self, line: bytes) -> None:  # noqa: N802
        """A header over :data:`MAX_HEADER`: the door is dropped."""
        self.transport.loseConnection()  # type: ignore[union-attr]

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802
        """Close the sockets no header claimed."""
        while self.fds:
            os.close(self.fds.popleft())


class HandoffServer(Factory):
    """The owner's side (see the module's docstring).

    :param reactor: provides ``IReactorUNIX`` and ``IReactorSocket``.
    :param adopters: front end name → its :class:`Adopter`, while it listens.
    """

    log = Logger()

    def __init__(self, reactor: Any, adopters: Callable[[str], Adopter | None]) -> None:
        self._reactor = reactor
        self._adopters = adopters
        self._folder: str | None = None
        self._port: Any = None
        #: connections adopted, and hand-overs refused (metrics, tests)
        self.adopted = 0
        self.refused = 0

    @property
    def path(self) -> str | None:
        """The hand-off socket's path, while listening."""
        return None if self._folder is None else os.path.join(self._folder, "handoff.sock")

    def start(self) -> str:
        """Listen; returns the socket's path."""
        self._folder = tempfile.mkdtemp(prefix="gamehub-handoff-")  # mode 0700
        self._port = self._reactor.listenUNIX(self.path, self, mode=0o600)
        return str(self.path)

    def stop(self) -> defer.Deferred[None]:
        """Stop listening and remove the folder."""
        port, self._port = self._port, None
        folder, self._folder = self._folder, None
        d = defer.maybeDeferred(port.stopListening) if port is not None else defer.succeed(None)

        def remove(_: Any) -> None:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)

        return d.addBoth(remove)

    def buildProtocol(self, addr: Any) -> _Receiver:  # noqa: N802
        """A door's connection."""
        return _Receiver(self)

    def adopt(self, fd: int, line: bytes) -> None:
        """Adopt ``fd`` as its header ``line`` says (a bad header: not adopted)."""
        try:
            header = json.loads(line)
            frontend = str(header["frontend"])
            replay = base64.b64decode(str(header["replay"]), validate=True)
            skip = int(header["skip"])
            with socket.socket(fileno=os.dup(fd)) as probe:
                family = probe.family
        except (ValueError, KeyError, TypeError, binascii.Error, OSError) as e:
            self.refused += 1
            self.log.warn("cluster: a hand-over refused: {e}", e=e)
            return
        adopter = self._adopters(frontend)
        if adopter is None or not 0 <= skip <= 64:
            self.refused += 1
            self.log.warn("cluster: a hand-over to {fe} refused", fe=frontend[:20])
            return
        adopter.adopt(fd, family, replay, skip)
        self.adopted += 1


class HandoffClient:
    """The door's side: one Unix connection per owner, used without the reactor (a
    small ``sendmsg`` that either goes at once or not at all)."""

    log = Logger()

    def __init__(self) -> None:
        self.host = socket.gethostname()
        self._sockets: dict[str, socket.socket] = {}
        #: connections handed over (metrics, tests)
        self.handed = 0

    def hand_off(
        self, where: dict[str, Any], frontend: str, transport: Any, replay: bytes, skip: int
    ) -> bool:
        """Hand ``transport``'s socket over to the hub whose ``endpoints["handoff"]``
        is ``where``; ``False`` (nothing changed) when it cannot be."""
        path = where.get("path")
        if where.get("host") != self.host or not isinstance(path, str):
            return False
        if type(transport) is not tcp.Server or not transport.connected:
            return False
        if transport.dataBuffer or transport._tempDataLen or transport.disconnecting:
            return False
        header = json.dumps(
            {"frontend": frontend, "replay": base64.b64encode(replay).decode(), "skip": skip}
        ).encode()
        if len(header) >= MAX_HEADER:
            return False
        if not self._send(path, header + b"\n", transport.fileno()):
            return False
        transport.stopReading()
        transport.stopWriting()
        os.close(transport.socket.detach())  # (the owner holds the connection now)
        transport.connectionLost(Failure(ConnectionDone("handed over to the game's hub")))
        self.handed += 1
        return True

    def _send(self, path: str, data: bytes, fd: int) -> bool:
        sock = self._sockets.get(path)
        try:
            if sock is None:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.setblocking(False)
                sock.connect(path)
                self._sockets[path] = sock
            sent = socket.send_fds(sock, [data], [fd])
        except OSError:
            self._drop(path)
            return False
        if sent != len(data):  # (a full socket: the rest would need the reactor)
            self._drop(path)
            return False
        return True

    def _drop(self, path: str) -> None:
        sock = self._sockets.pop(path, None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.close()

    def close(self) -> None:
        """Close every Unix connection."""
        for path in list(self._sockets):
            self._drop(path)
