"""The life of an XML connection, as data: its states, their moves, and which requests
each state takes.

:data:`TRANSITIONS` is the connection's life (a :class:`hub.connections.states.Machine` follows
it)::

    CONNECTED --LOGIN--> LOGGED_IN --LOGOUT--> CONNECTED
    CONNECTED, LOGGED_IN --REFUSE--> CLOSING        (an error frame, then a close)
    any --LOST--> CLOSED                            (the transport is gone or dropped)

:data:`RULES` says what a request of each :class:`Area` must pass in each state before
its handler runs, in order; the first rule that fails refuses it (403 for a session of
someone else, 401 before login, 409 a second login).  No handler checks the
connection's state itself.  A closing connection reads no requests at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from . import events
from .errors import Refused

if TYPE_CHECKING:
    from hub.connections.states import Machine


class State(StrEnum):
    """Where a connection is in its life."""

    CONNECTED = "connected"  #: greeted; no account (before login, after logout)
    LOGGED_IN = "logged in"  #: an account and its lobby session
    CLOSING = "closing"  #: a last error written, half-closed: nothing more is read
    CLOSED = "closed"  #: the transport is gone


#: the states of a connection that reads and sends no more
GONE = frozenset({State.CLOSING, State.CLOSED})


class Input(StrEnum):
    """What moves a connection."""

    LOGIN = "login"  #: ``authentication/login`` succeeded
    LOGOUT = "logout"  #: ``authentication/logout``, or the account deleted
    REFUSE = "refuse"  #: the connection is refused: an error frame and a close
    LOST = "lost"  #: the transport went away (or a client that does not read is dropped)


TRANSITIONS: dict[State, dict[Input, State]] = {
    State.CONNECTED: {Input.LOGIN: State.LOGGED_IN, Input.REFUSE: State.CLOSING,
                      Input.LOST: State.CLOSED},
    State.LOGGED_IN: {Input.LOGOUT: State.CONNECTED, Input.REFUSE: State.CLOSING,
                      Input.LOST: State.CLOSED},
    State.CLOSING: {Input.LOST: State.CLOSED},
    State.CLOSED: {Input.LOST: State.CLOSED},
}  # fmt: skip


class Area(StrEnum):
    """Which session a request speaks in."""

    ACCOUNT = "account"  #: ``accountmanagement/*``: with the lobby session or none
    LOGIN = "login"  #: ``authentication/login``
    LOBBY = "lobby"  #: the lobby session: listings, logout, create/delete/join, lobby chat
    GAME = "game"  #: a joined game's session: part, action, chat at the table, custom


#: the area of each kind of request (a chat with ``gameid`` 0 is said in the lobby)
AREAS: dict[type[events.Request], Area] = {
    events.CreateAccount: Area.ACCOUNT,
    events.DeleteAccount: Area.ACCOUNT,
    events.ChangePassword: Area.ACCOUNT,
    events.Login: Area.LOGIN,
    events.Resume: Area.LOGIN,
    events.Logout: Area.LOBBY,
    events.AvailableGames: Area.LOBBY,
    events.GameList: Area.LOBBY,
    events.GameDetails: Area.LOBBY,
    events.FindPlayer: Area.LOBBY,
    events.History: Area.LOBBY,
    events.Ratings: Area.LOBBY,
    events.CreateGame: Area.LOBBY,
    events.DeleteGame: Area.LOBBY,
    events.JoinGame: Area.LOBBY,
    events.PartGame: Area.GAME,
    events.GameAction: Area.GAME,
    events.Chat: Area.GAME,
    events.Custom: Area.GAME,
}


# -- the rules ---------------------------------------------------------------------------
# Each takes the connection and the request and raises Refused when it is not met.


class _Joined(Protocol):
    """A game session, as the rules read it (:class:`.sessions.GameSession`)."""

    @property
    def wire_id(self) -> int: ...


class Checked(Protocol):
    """What the rules read of a connection (:class:`.connection.Connection`, which
    imports this module)."""

    @property
    def machine(self) -> Machine[State, Input]: ...
    @property
    def account(self) -> Any: ...  # the logged-in account (the store's or a test's), or None
    @property
    def lobby_session(self) -> int: ...
    @property
    def game_sessions(self) -> Mapping[int, _Joined]: ...


def lobby_session_or_none(conn: Checked, request: events.Request) -> None:
    """The request names no session, or the connection's lobby session."""
    if request.sessionid and request.sessionid != conn.lobby_session:
        raise Refused(403, "not your session")


def own_session_or_none(conn: Checked, request: events.Request) -> None:
    """The request names no session, or one of the connection's own."""
    sid = request.sessionid
    if sid and sid != conn.lobby_session and sid not in conn.game_sessions:
        raise Refused(403, "not your session")


def lobby_session(conn: Checked, request: events.Request) -> None:
    """The request names the connection's lobby session."""
    if request.sessionid != conn.lobby_session:
        raise Refused(403, "not your lobby session")


def game_session(conn: Checked, request: Any) -> None:
    """The request names one of the connection's game sessions, of the game it names."""
    session = conn.game_sessions.get(request.sessionid)
    if session is None:
        raise Refused(403, "not your game session")
    if session.wire_id != request.gameid:
        raise Refused(403, "that session belongs to another game")


def log_in_first(conn: Checked, request: events.Request) -> None:
    """Always refused: the connection has no account."""
    raise Refused(401, "log in first")


def already_logged_in(conn: Checked, request: events.Request) -> None:
    """Always refused: the connection has an account."""
    raise Refused(409, f"already logged in as {conn.account.name}")


Rule = Callable[[Checked, Any], None]

#: state → area → the rules a request passes, in order, before its handler runs
RULES: dict[State, dict[Area, tuple[Rule, ...]]] = {
    State.CONNECTED: {
        Area.ACCOUNT: (lobby_session_or_none,),
        Area.LOGIN: (lobby_session_or_none,),
        Area.LOBBY: (lobby_session_or_none, log_in_first),
        Area.GAME: (log_in_first,),
    },
    State.LOGGED_IN: {
        Area.ACCOUNT: (lobby_session_or_none,),
        Area.LOGIN: (own_session_or_none, already_logged_in),
        Area.LOBBY: (lobby_session,),
        Area.GAME: (game_session,),
    },
}


def check(conn: Checked, request: events.Request) -> None:
    """Refuse ``request`` unless the connection's state takes it now.

    :raises Refused: the first rule of :data:`RULES` it does not pass.
    """
    area = AREAS[type(request)]
    if area is Area.GAME and isinstance(request, events.Chat) and request.gameid == 0:
        area = Area.LOBBY  # a chat line said in the lobby
    for rule in RULES[conn.machine.state][area]:
        rule(conn, request)
