"""The life of a domino connection, as data: its states, the moves between them, and
the reason a command its state does not take is answered ``ERROR``.

:data:`TRANSITIONS` (a :class:`hub.connections.states.Machine` follows it)::

    CONNECTED --LOGIN--> WAITING --SEATED--> PLAYING --COMMAND--> PLAYING
    PLAYING --UNSEATED--> WAITING              (seating failed: back in the queue)
    CONNECTED, WAITING, PLAYING --REMOVE--> REMOVED   (then closed)
    PLAYING --GAME_OVER--> OVER                        (then closed)
    any --LOST--> CLOSED

``LOGIN`` is taken only while connected, a game command only while playing; any other
is an invalid command (``ERROR``, counted towards the limit of invalid commands).
"""

from __future__ import annotations

from enum import StrEnum


class State(StrEnum):
    """Where a domino connection is."""

    CONNECTED = "connected"  #: ``CONNECT`` sent: the client logs in
    WAITING = "waiting"  #: logged in, queued for a game
    PLAYING = "playing"  #: seated in a game: its commands
    PASSED = "passed"  #: passed through to the hub where the cluster's players meet
    REMOVED = "removed"  #: taken out of its game or the queue: closing
    OVER = "over"  #: its game is over: closing
    CLOSED = "closed"  #: the connection is gone


class Input(StrEnum):
    """What moves a connection: a client's line, or the front end's step."""

    LOGIN = "login"  #: ``LOGIN <name>``
    PASS = "pass"  #: another hub gathers the cluster's players: passed through to it
    COMMAND = "command"  #: a game command (``CHOOSE 7``)
    SEATED = "seated"  #: the front end seats the player in a game
    UNSEATED = "unseated"  #: taking the seat failed
    REMOVE = "remove"  #: invalid commands, a timeout, or the game's removal
    GAME_OVER = "game over"  #: the game ended
    LOST = "lost"  #: the transport went away


TRANSITIONS: dict[State, dict[Input, State]] = {
    State.CONNECTED: {Input.LOGIN: State.WAITING, Input.REMOVE: State.REMOVED,
                      Input.PASS: State.PASSED, Input.LOST: State.CLOSED},
    State.PASSED: {Input.REMOVE: State.REMOVED, Input.LOST: State.CLOSED},
    State.WAITING: {Input.SEATED: State.PLAYING, Input.REMOVE: State.REMOVED,
                    Input.LOST: State.CLOSED},
    State.PLAYING: {Input.COMMAND: State.PLAYING, Input.UNSEATED: State.WAITING,
                    Input.REMOVE: State.REMOVED, Input.GAME_OVER: State.OVER,
                    Input.LOST: State.CLOSED},
    State.REMOVED: {Input.LOST: State.CLOSED},
    State.OVER: {Input.LOST: State.CLOSED},
    State.CLOSED: {Input.LOST: State.CLOSED},
}  # fmt: skip

#: why a client's line is invalid in a state that does not take it
REFUSALS: dict[Input, str] = {
    Input.LOGIN: "already logged in",
    Input.COMMAND: "not in a game",
}
