"""What a request handler of the XML front end may use of it: :class:`HandlerContext`.

The handlers (:mod:`.handlers`) get this narrow context, not the front end's class, so
they do not import :mod:`.server` (which imports them for its dispatch table,
:data:`.handlers.HANDLERS`): the hub and its lobby, the sessions and relays, the game
ids of this wire, the shared listings and the transcripts.  No module of the front end
imports :mod:`.server` but the package's ``make_factory``.

The parts below the handlers (the protocol, the connection, the sessions, the relays,
the resumes and the connection's rules) name neither this module nor the parts above
them: each says what it uses of the front end, and of its neighbours above, as a
typing Protocol of its own (:class:`.protocol.ProtocolHost`,
:class:`.connection.ConnectionHost`, :class:`.sessions.SessionsHost`,
:class:`.relay.RelaysHost`, :class:`.resume.ResumesHost`, :class:`.states.Checked`),
so they lean one way: rules, connection, sessions, relays, resumes, protocol, then
this context and the handlers (``tests/hub/test_layering.py``: no circle).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from lxml import etree

if TYPE_CHECKING:
    from hub.connections.limits import Buckets
    from hub.interfaces import GameLobby, IHub

    from .connection import Connection
    from .encoding import GameRow
    from .relay import Relays, RelayTo
    from .resume import Resumes
    from .sessions import Sessions
    from .shared import Shared


class HandlerContext(Protocol):
    """The part of :class:`.server.XMLFrontend` the request handlers use."""

    hub: IHub
    lobby: GameLobby
    sessions: Sessions
    relays: Relays
    resumes: Resumes
    create_limits: Buckets
    connections: set[Connection]
    listings: Shared
    answers: Shared
    rows: dict[str, GameRow]
    lists: dict[tuple[str | None, str | None], tuple[tuple[GameRow, ...], tuple[str, int]]]

    @property
    def following(self) -> bool:
        """Whether the front end hears of every change to the lobby now."""

    def encode(self, root: etree._Element) -> bytes:
        """One of our documents as bytes."""

    def encode_chat(self, gameid: int, sender: str, text: str, sessionid: int, type: int) -> bytes:
        """A chat line's ``stateupdate`` as bytes."""

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

    def send_lobby(self, audience: list[Connection], shared: bytes) -> None:
        """Send a lobby update serialised once (session id 1) to each of ``audience``
        with its lobby session id, and record each copy."""


#: a request handler: ``(context, connection, request) → response`` (or a coroutine or
#: Deferred of one)
Handler = Callable[[HandlerContext, "Connection", Any], Any]
