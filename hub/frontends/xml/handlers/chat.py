"""Chat: ``game/chat`` requests, and the hub's chat lines sent to this front end's
connections.

A line is said at a joined game (its game session) or in the lobby (``gameid`` 0 with
the lobby session); the hub's chat service (:mod:`hub.connections.chat`) checks it and tells every
front end, this one through :func:`chat_line`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hub.connections.chat import LOBBY
from hub.interfaces import ChatLine

from .. import encoding, events
from ..context import HandlerContext
from ..states import GONE

if TYPE_CHECKING:
    from ..connection import Connection


def chat(frontend: HandlerContext, conn: Connection, r: events.Chat) -> Any:
    """``game/chat``: say a line in the lobby or at a joined game."""
    room = LOBBY if r.gameid == 0 else conn.game_sessions[r.sessionid].game.id
    frontend.hub.chat.say(room, conn.account.name, r.text, type=r.type)
    return frontend.answers.get(
        ("chat", r.gameid),
        r.sessionid,
        lambda sid: encoding.build_response("game", "chat", sessionid=sid, gameid=r.gameid),
    )


def chat_line(frontend: HandlerContext, line: ChatLine) -> None:
    """A chat line of the lobby (to every logged-in connection, ``gameid`` 0) or of
    a game (to every session that joined it)."""
    if line.room == LOBBY:
        audience = [
            c for c in frontend.connections if c.lobby_session and c.machine.state not in GONE
        ]
        if audience:  # one document for all: only the envelope's session id differs
            shared = frontend.encode_chat(0, line.sender, line.text, 1, line.type)
            frontend.send_lobby(audience, shared)
        return
    for session in frontend.sessions:
        game = session.game
        if session.kind == "game" and game.id == line.room and session.observer is not None:
            wid = frontend.wire_id(game)
            doc = frontend.encode_chat(wid, line.sender, line.text, session.id, line.type)
            frontend.send_game(session.conn, game, doc)
