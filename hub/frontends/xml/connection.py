"""One client's session on the XML front end: its state, account and game sessions,
and its two queues (requests waiting for their answers, frames waiting to be written).

:class:`Connection` is what the front end's handlers speak to; it knows nothing of
sockets.  Its protocol (:class:`.protocol.XMLProtocol`) gives it each frame that arrives
and writes what it sends.

- Requests are answered one at a time, in order of arrival: a frame waits in the
  request queue while the one before it is answered (at most ``max_pending``; one more
  is a ``general`` 429 and a close).
- Each request gets exactly one response document, written before any state update
  made while it was answered (those are held, then written after it).
- Flow control: the protocol is the transport's push producer; while the transport is
  paused at most ``max_backlog`` bytes are written, then the client (one that does not
  read) is dropped.
- A token bucket (``rate`` requests a second, bursts of ``burst``) says whether one more
  request is within the limit.
"""

from __future__ import annotations

import itertools
from collections import deque
from typing import TYPE_CHECKING, Any, Protocol

from twisted.internet import defer
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.connections.states import Machine

from . import encoding
from .states import GONE, TRANSITIONS, Input, State

if TYPE_CHECKING:
    from twisted.internet.interfaces import IReactorTime

    from hub.interfaces import IXMLGameAdapter
    from hub.ops.telemetry import FrontendTelemetry

_ids = itertools.count(1)


# -- what a connection uses of the parts above it (they import this module) -----------


class ConnectionHost(Protocol):
    """What a connection uses of its front end (:class:`.server.XMLFrontend`): its
    limits, its clock and the answer to each frame."""

    @property
    def reactor(self) -> IReactorTime: ...
    @property
    def telemetry(self) -> FrontendTelemetry: ...
    @property
    def max_pending(self) -> int: ...
    @property
    def max_backlog(self) -> int: ...
    @property
    def rate(self) -> float: ...
    @property
    def burst(self) -> float: ...
    def handle_frame(self, conn: Connection, frame: bytes) -> bytes | defer.Deferred[Any]: ...


class Wire(Protocol):
    """What a connection (and who refuses it) uses of its protocol
    (:class:`.protocol.XMLProtocol`): it writes frames, refuses and drops."""

    def write_frame(self, document: bytes) -> None: ...
    def write_parts(self, length: bytes, head: bytes, middle: bytes, tail: bytes) -> None: ...
    def fail(self, code: int, reason: str, notice: bool = False) -> None: ...
    def abort(self) -> None: ...


class JoinedGame(Protocol):
    """One game a connection joined, as its users read it (:class:`.sessions.GameSession`)."""

    @property
    def conn(self) -> Connection: ...
    @property
    def game(self) -> Any: ...  # the lobby's game (a GameInstance), as GameSession holds it
    @property
    def adapter(self) -> IXMLGameAdapter: ...
    @property
    def wire_id(self) -> int: ...
    @property
    def seat(self) -> int | None: ...
    @property
    def closed(self) -> bool: ...
    def held_seat(self) -> int | None: ...
    def follow(self, seat: int | None) -> None: ...


class Connection:
    """The session of one XML connection (see the module docstring).

    :param frontend: the front end (limits, ``handle_frame``).
    :param wire: the connection's protocol (writes frames, refuses and closes).
    :param peer: the client's host address.

    :ivar conn_id: ``x<n>``, the connection's name in logs and transcripts.
    :ivar account: the logged-in account (``None`` before login).
    :ivar lobby_session: the lobby session id (0 before login).
    :ivar game_sessions: game session id → the :class:`.sessions.GameSession` of a
        joined game.
    """

    log = Logger()

    def __init__(self, frontend: ConnectionHost, wire: Wire, peer: str) -> None:
        self.frontend = frontend
        self.wire = wire
        self.peer = peer
        self.conn_id = f"x{next(_ids)}"
        self.machine: Machine[State, Input] = Machine(TRANSITIONS, State.CONNECTED)
        self.account: Any = None
        self.lobby_session = 0
        #: the lobby session id as its envelope writes it (``b"%d"``)
        self.lobby_sid = b"0"
        self.game_sessions: dict[int, JoinedGame] = {}
        #: the SHA-256 of the session's resume token (:mod:`.resume`; ``None``: none)
        self.resume_hash: str | None = None
        #: the tag of what it is sent in the lobby transcript (made when first used
        #: after a login or logout: :meth:`.server.XMLFrontend.record`)
        self.lobby_tag: bytes | None = None
        #: the same for what it sends
        self.in_tag: bytes | None = None
        #: whether a loss of the connection keeps its seats for a resume
        self.resumable = False
        self._requests: deque[bytes] = deque()
        self._busy = False
        self._in_next = False
        self._held: list[bytes] | None = None
        self._paused = False
        self._backlog = 0
        self._seconds = frontend.reactor.seconds
        self._tokens = float(frontend.burst)
        self._tokens_at = self._seconds()
        #: the clock's time of the last complete frame or state update: the protocol's
        #: idle timer reads it when it fires (a note per frame, not a timer reset)
        self.active_at = self._tokens_at

    # -- state ----------------------------------------------------------------------------

    @property
    def state(self) -> State:
        """Where the connection is in its life (:mod:`.states`)."""
        return self.machine.state

    @property
    def closing(self) -> bool:
        """Whether the connection is refused or gone: it reads and sends no more."""
        return self.machine.state in GONE

    def log_in(self, account: Any, lobby_session: int) -> None:
        """``account`` logged in; ``lobby_session`` is its lobby session id."""
        self.machine.move(Input.LOGIN)
        self.account = account
        self.lobby_session = lobby_session
        self.lobby_sid = b"%d" % lobby_session
        self.lobby_tag = self.in_tag = None

    def log_out(self) -> None:
        """Forget the account and the lobby session (the sessions are ended)."""
        if self.machine.allows(Input.LOGOUT):
            self.machine.move(Input.LOGOUT)
        self.lobby_session = 0
        self.lobby_sid = b"0"
        self.account = None
        self.lobby_tag = self.in_tag = None

    def refused(self) -> None:
        """The connection is refused (its last frame is written): it reads and answers
        no more."""
        if self.machine.allows(Input.REFUSE):
            self.machine.move(Input.REFUSE)
        self._held = None
        self._requests.clear()

    def lost(self) -> None:
        """The transport is gone."""
        self.machine.move(Input.LOST)
        self._requests.clear()

    # -- requests -------------------------------------------------------------------------

    def frame_received(self, frame: bytes) -> None:
        """One complete frame: queue it, and answer it when its turn comes."""
        if len(self._requests) >= self.frontend.max_pending:
            self.wire.fail(429, f"more than {self.frontend.max_pending} requests waiting")
            return
        self._requests.append(frame)
        if not self._busy:
            self._next()

    def _next(self) -> None:
        self._in_next = True
        try:
            while self._requests and not self._busy and self.machine.state not in GONE:
                frame = self._requests.popleft()
                self._busy = True
                self._held = []
                try:
                    answer = self.frontend.handle_frame(self, frame)
                except Exception:
                    answer = self._internal_error(Failure())
                if isinstance(answer, defer.Deferred):  # a handler that waits (the store)
                    answer.addErrback(self._internal_error)
                    answer.addBoth(self._answered)
                else:  # answered at once: no Deferred to build and fire
                    self._answered(answer)
        finally:
            self._in_next = False

    def _internal_error(self, failure: Failure) -> bytes:
        self.log.failure(
            "xml {conn}: internal error handling a request", failure, conn=self.conn_id
        )
        self.frontend.telemetry.refused("internal", "internal error", self.conn_id, peer=self.peer)
        return encoding.encode(encoding.build_error(500, "internal error; it has been logged"))

    def _answered(self, response: bytes | None) -> None:
        held, self._held = self._held, None
        if response is not None:
            self.send(response)
        for update in held or ():
            self.send(update)
        self._busy = False
        if not self._in_next:
            self._next()

    def take_token(self) -> bool:
        """Whether one more request is within the rate limit (token bucket)."""
        now = self._seconds()
        rate, burst = self.frontend.rate, self.frontend.burst
        self._tokens = min(burst, self._tokens + (now - self._tokens_at) * rate)
        self._tokens_at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False

    # -- output ---------------------------------------------------------------------------

    def send(self, document: bytes) -> None:
        """Write one frame now (dropping the connection of a client that stopped reading)."""
        if self.machine.state is State.CLOSED:
            return
        if self._paused:
            self._backlog += len(document) + 4
            if self._backlog > self.frontend.max_backlog:
                self.log.info(
                    "xml {conn} from {peer}: not reading; dropped",
                    conn=self.conn_id,
                    peer=self.peer,
                )
                self.machine.move(Input.LOST)
                self.wire.abort()
                return
        self.wire.write_frame(document)

    def send_update(self, document: bytes) -> None:
        """Write a state update; while a request of this connection is being answered it
        waits until that response is written, so a response always comes first."""
        if self.machine.state in GONE:
            return
        self.active_at = self._seconds()  # a connection that follows a game is not idle
        if self._held is not None:
            self._held.append(document)
        elif self._paused:
            self.send(document)  # counted against the backlog
        else:  # as send, whose state check this one covers (GONE holds CLOSED)
            self.wire.write_frame(document)

    def send_lobby_copy(self, head: bytes, tail: bytes, size: int, now: float) -> None:
        """:meth:`send_update` of ``head``, the lobby session id, ``tail`` (a lobby
        document made once for many, :meth:`.server.XMLFrontend.send_lobby`; ``size``
        is the length of ``head`` and ``tail``), at the clock's time ``now``: written
        in its parts unless it must wait."""
        if self.machine.state in GONE:
            return
        self.active_at = now
        sid = self.lobby_sid
        if self._held is not None:
            self._held.append(head + sid + tail)
        elif self._paused:
            self.send(head + sid + tail)  # counted against the backlog
        else:
            self.wire.write_parts((size + len(sid)).to_bytes(4, "big"), head, sid, tail)

    def send_first(self, document: bytes) -> bool:
        """Write ``document`` right after the response being made, before the updates
        held meanwhile; ``False`` when no request is being answered."""
        if self._held is None:
            return False
        self._held.insert(0, document)
        return True

    def pause(self) -> None:
        """The transport's buffer is full: the client is not reading fast enough."""
        self._paused = True
        self._backlog = 0

    def resume(self) -> None:
        """The transport's buffer drained."""
        self._paused = False
        self._backlog = 0
