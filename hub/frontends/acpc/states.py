"""The life of an ACPC connection, as data: its states and the moves between them.

:data:`TRANSITIONS` (a :class:`hub.connections.states.Machine` follows it)::

    CONNECTED --VERSION--> READY --SEATED--> PLAYING --REPLY--> PLAYING
    READY --REPLY--> READY                       (a reply before the match: ignored)
    PLAYING --MATCH_OVER--> OVER                 (then closed)
    CONNECTED, READY, PLAYING --DROP--> DROPPED  (silent, hostile or too slow: closed)
    any --LOST--> CLOSED

A program's version line is taken only while connected (a second one is ignored with
a warning comment), a reply only once the program has sent its version; whatever a
state does not take is answered with a warning comment, never a close, as the
competition's dealer does.
"""

from __future__ import annotations

from enum import StrEnum


class State(StrEnum):
    """Where an ACPC connection is."""

    CONNECTED = "connected"  #: waiting for ``VERSION:2.0.0``
    READY = "ready"  #: version said: waiting for its match to start
    PLAYING = "playing"  #: in a match: states out, replies in
    OVER = "over"  #: its match ended: closing
    DROPPED = "dropped"  #: dropped by the front end: closing
    CLOSED = "closed"  #: the connection is gone


class Input(StrEnum):
    """What moves a connection: a program's line, or the front end's step."""

    VERSION = "version"  #: ``VERSION:x.y.z``
    REPLY = "reply"  #: a reply to a match state
    SEATED = "seated"  #: its match started with it at a seat
    MATCH_OVER = "match over"  #: its match ended
    DROP = "drop"  #: silent too long, too many bad lines, or the match could not start
    LOST = "lost"  #: the transport went away


TRANSITIONS: dict[State, dict[Input, State]] = {
    State.CONNECTED: {Input.VERSION: State.READY, Input.DROP: State.DROPPED,
                      Input.LOST: State.CLOSED},
    State.READY: {Input.REPLY: State.READY, Input.SEATED: State.PLAYING,
                  Input.DROP: State.DROPPED, Input.LOST: State.CLOSED},
    State.PLAYING: {Input.REPLY: State.PLAYING, Input.MATCH_OVER: State.OVER,
                    Input.DROP: State.DROPPED, Input.LOST: State.CLOSED},
    State.OVER: {Input.LOST: State.CLOSED},
    State.DROPPED: {Input.LOST: State.CLOSED},
    State.CLOSED: {Input.LOST: State.CLOSED},
}  # fmt: skip

#: the warning comment for a program's line its state does not take
REFUSALS: dict[Input, str] = {
    Input.VERSION: "version already received; line ignored",
    Input.REPLY: "send VERSION:2.0.0 first; line ignored",
}
