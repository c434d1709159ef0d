"""The life of a relay connection, as data: its states and the moves between them.

:data:`TRANSITIONS` (a :class:`hub.connections.states.Machine` follows it)::

    CONNECTED --JOIN--> CHALLENGED --AUTH--> JOINED --SEND--> JOINED
    CONNECTED, CHALLENGED, JOINED --LIST--> (the same state)
    any --REMOVE--> REMOVED (then closed);  any --LOST--> CLOSED

``join`` is taken only while connected, ``auth`` only once challenged, ``send`` only
once joined; anything else is answered ``error`` and the connection is removed.
"""

from __future__ import annotations

from enum import StrEnum


class State(StrEnum):
    """Where a relay connection is."""

    CONNECTED = "connected"  #: it asks to join a table (or lists the tables)
    CHALLENGED = "challenged"  #: it must sign the challenge
    JOINED = "joined"  #: a peer of a table: its frames are passed on
    REMOVED = "removed"  #: refused: closing
    CLOSED = "closed"  #: the connection is gone


class Input(StrEnum):
    """What moves a connection: the peer's request, or the front end's step."""

    JOIN = "join"
    AUTH = "auth"
    SEND = "send"
    LIST = "list"
    REMOVE = "remove"  #: a refusal, a limit, a timeout
    LOST = "lost"  #: the transport went away


TRANSITIONS: dict[State, dict[Input, State]] = {
    State.CONNECTED: {Input.JOIN: State.CHALLENGED, Input.LIST: State.CONNECTED,
                      Input.REMOVE: State.REMOVED, Input.LOST: State.CLOSED},
    State.CHALLENGED: {Input.AUTH: State.JOINED, Input.LIST: State.CHALLENGED,
                       Input.REMOVE: State.REMOVED, Input.LOST: State.CLOSED},
    State.JOINED: {Input.SEND: State.JOINED, Input.LIST: State.JOINED,
                   Input.REMOVE: State.REMOVED, Input.LOST: State.CLOSED},
    State.REMOVED: {Input.LOST: State.CLOSED},
    State.CLOSED: {Input.LOST: State.CLOSED},
}  # fmt: skip

#: why a request its state does not take is refused
REFUSALS: dict[Input, str] = {
    Input.JOIN: "already joined",
    Input.AUTH: "join first",
    Input.SEND: "not at a table yet",
}
