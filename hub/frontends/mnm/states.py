"""The life of an MNM connection, as data: its states, the moves between them, and
the answer to a client command its state does not take.

The client's commands (:data:`.codec.VERBS`) and what the server does are the inputs
(:class:`Input`); :data:`TRANSITIONS` is the whole life (a :class:`hub.connections.states.Machine`
follows it)::

    VERSION --VERSION--> ID --ID--> ROUTING --ROUTED--> PLAYER --PLAYER--> JOINING
    JOINING --SEATED--> IDLE           (ROUTING: a routed Game-ID waits for its game)
    IDLE --WAIT--> OKWAIT --OKWAIT--> IDLE
    IDLE --MOVE--> THINK --THINKING--> PLAY --PLAY--> ACTING --MOVED--> IDLE
    THINK, PLAY --OVERDUE--> IDLE      (the game ended; the client took too long)
    ROUTING --PASS--> PASSED          (another hub runs the game: bytes pass through)
    any --CLOSE--> CLOSED

A client command that is not a move of the current state is refused with the line of
:func:`refusal` (``- <reason>``) and the connection is closed.
"""

from __future__ import annotations

from enum import StrEnum


class State(StrEnum):
    """Where an MNM connection is; in the prolog and the game, who has the word."""

    VERSION = "version"  #: banner sent: the client sends VERSION
    ID = "id"  #: version accepted: the client sends ID
    ROUTING = "routing"  #: a routed Game-ID (a tournament entry): waiting for its game
    PLAYER = "player"  #: game named: the client sends PLAYER
    JOINING = "joining"  #: taking the seat: the server has the word
    IDLE = "idle"  #: seated: the server has the word (WAIT, a move request, GAMEOVER)
    OKWAIT = "okwait"  #: WAIT sent: the client sends OKWAIT
    THINK = "think"  #: a move request sent: the client sends THINKING
    PLAY = "play"  #: OKTHINK sent: the client sends PLAY
    ACTING = "acting"  #: the move is being played: the server has the word
    PASSED = "passed"  #: passed through to the hub that runs the game (a byte splice)
    CLOSED = "closed"  #: the connection is over


class Input(StrEnum):
    """What moves a connection: a client's command (by its verb) or a server's step."""

    VERSION = "VERSION"
    ID = "ID"
    PLAYER = "PLAYER"
    OKWAIT = "OKWAIT"
    THINKING = "THINKING"
    PLAY = "PLAY"
    ROUTED = "routed"  #: the game of the Game-ID is known (at once, or once routed)
    SEATED = "seated"  #: the seat is taken and the players listed
    WAIT = "wait"  #: WAIT sent
    MOVE = "move"  #: a move request sent
    MOVED = "moved"  #: MOVEOK sent
    OVERDUE = "overdue"  #: the game is over and the move exchange took too long
    PASS = "pass"  #: another hub runs the game: the connection is passed through to it
    CLOSE = "close"  #: closed (an error, the game's end, the transport gone)


TRANSITIONS: dict[State, dict[Input, State]] = {
    State.VERSION: {Input.VERSION: State.ID, Input.CLOSE: State.CLOSED},
    State.ID: {Input.ID: State.ROUTING, Input.CLOSE: State.CLOSED},
    State.ROUTING: {Input.ROUTED: State.PLAYER, Input.PASS: State.PASSED,
                    Input.CLOSE: State.CLOSED},
    State.PLAYER: {Input.PLAYER: State.JOINING, Input.CLOSE: State.CLOSED},
    State.JOINING: {Input.SEATED: State.IDLE, Input.CLOSE: State.CLOSED},
    State.IDLE: {Input.WAIT: State.OKWAIT, Input.MOVE: State.THINK, Input.CLOSE: State.CLOSED},
    State.OKWAIT: {Input.OKWAIT: State.IDLE, Input.CLOSE: State.CLOSED},
    State.THINK: {Input.THINKING: State.PLAY, Input.OVERDUE: State.IDLE,
                  Input.CLOSE: State.CLOSED},
    State.PLAY: {Input.PLAY: State.ACTING, Input.OVERDUE: State.IDLE,
                 Input.CLOSE: State.CLOSED},
    State.ACTING: {Input.MOVED: State.IDLE, Input.CLOSE: State.CLOSED},
    State.PASSED: {Input.CLOSE: State.CLOSED},
    State.CLOSED: {Input.CLOSE: State.CLOSED},
}  # fmt: skip

_THE_SERVER_HAS_THE_WORD = "Unexpected command {verb}: the server has the word"

#: the answer to a client command a state does not take
REFUSALS: dict[State, str] = {
    State.VERSION: "We expected VERSION <major>.<minor>",
    State.ID: "We expected ID <Game-ID>",
    State.ROUTING: "Unexpected command {verb}: wait for your game",
    State.PLAYER: "We expected PLAYER [number]",
    State.JOINING: _THE_SERVER_HAS_THE_WORD,
    State.IDLE: _THE_SERVER_HAS_THE_WORD,
    State.OKWAIT: "We expected OKWAIT",
    State.THINK: "We expected you to THINK!",
    State.PLAY: "We expected PLAY <move>",
    State.ACTING: "Unexpected command {verb}",
    State.PASSED: "Unexpected command {verb}",
}
#: the answer to particular commands in a state, where it says more
REFUSALS_OF: dict[tuple[State, str], str] = {
    (State.IDLE, "PLAY"): "It is not your turn to PLAY",
    (State.IDLE, "THINKING"): "We did not ask you for a move",
}


def refusal(state: State, verb: str) -> str:
    """The reason a client's ``verb`` is refused in ``state``."""
    text = REFUSALS_OF.get((state, verb)) or REFUSALS[state]
    return text.format(verb=verb)
