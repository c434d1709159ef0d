"""What a request handler of the XML front end may use of it: :class:`HandlerContext`.

The handlers (:mod:`.handlers`) get this narrow context, not the front end's class, so
they do not import :mod:`.server` (which imports them for its dispatch table,
:data:`.handlers.HANDLERS`): the hub and its lobby, the sessions and relays, the game
ids of this wire, the shared listings and the transcripts.  The connections, sessions,
relays and the protocol get :class:`FrontendContext` (that and a connection's limits),
so no module of the front end imports :mod:`.server` but the package's
``make_factory``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from lxml import etree
from twisted.internet import defer

if TYPE_CHECKING:
    from hub.connections.limits import Buckets
    from hub.interfaces import IHub
    from hub.ops.telemetry import FrontendTelemetry

    from .connection import Connection
    from .encoding import GameRow
    from .relay import Relays, RelayTo
    from .resume import Resumes
    from .sessions import Sessions
    from .shared import Shared


class HandlerContext(Protocol):
    """The part of :class:`.server.XMLFrontend` the request handlers use."""

    hub: IHub
    #: the hub's lobby (``hub.play.lobby``)
    lobby: Any
    sessions: Sessions
    relays: Relays
    resumes: Resumes
    create_limits: Buckets
    connections: set[Connection]
    listings: Shared
    answers: Shared
    rows: dict[str, GameRow]

    @property
    def following(self) -> bool:
        """Whether the front end hears of every change to the lobby now."""

    def encode(self, root: etree._Element) -> bytes:
        """One of our documents as bytes."""

    def wire_id(self, game: Any) -> int:
        """The ``xs:long`` id of ``game`` on this wire."""

    def seen_in_history(self, game_id: str) -> int:
        """The wire id of a game a history lists."""

    def forget_game(self, game: Any) -> None:
        """``game`` left the lobby."""

    def game_id(self, wire_id: int) -> str | None:
        """The lobby id of a game listed here."""

    def find_game(self, wire_id: int) -> Any:
        """The lobby game with wire id ``wire_id``."""

    def with_game(
        self, wire_id: int, then: Callable[[Any], Any], elsewhere: Callable[[RelayTo], Any]
    ) -> Any:
        """``then(game)`` for the game ``wire_id`` names, ``elsewhere(relay_to)`` for a
        game of another hub."""

    def record(
        self,
        conn: Connection,
        direction: str,
        frame: bytes,
        game: Any = None,
        seat: int | None = None,
    ) -> None:
        """Write one frame to the game's transcript (or the XML lobby transcript)."""

    def send_game(
        self, conn: Connection, game: Any, document: bytes, seat: int | None = None
    ) -> None:
        """Send a state update of ``game`` and record it."""


class FrontendContext(HandlerContext, Protocol):
    """What the connections, sessions, relays and the protocol use of the front end
    (:class:`.server.XMLFrontend`): the handlers' part and the limits of a connection."""

    reactor: Any
    telemetry: FrontendTelemetry
    max_frame: int
    max_pending: int
    max_backlog: int
    rate: float
    burst: float
    idle_timeout: float
    frame_deadline: float
    close_grace: float

    def handle_frame(self, conn: Connection, frame: bytes) -> bytes | defer.Deferred[Any]:
        """Answer one frame."""

    def greeting(self) -> etree._Element:
        """The ``info`` message every connection gets first."""

    def connection_lost(self, conn: Connection) -> None:
        """End the connection's sessions and forget it."""


#: a request handler: ``(context, connection, request) → response`` (or a coroutine or
#: Deferred of one)
Handler = Callable[[HandlerContext, "Connection", Any], Any]
