"""The hub's chat: one service for the lobby and every game, shared by the front ends.

A front end hands what a person typed to :meth:`ChatService.say`; the service checks
it once for every front end (the same limits: :data:`MAX_CHAT` characters, no control
characters, a rate per speaker and room), keeps the last lines of each room, and tells
every :class:`hub.interfaces.IChatListener` (the XML front end sends
``stateupdate/game/chat``, the web front end an event on its streams).  The text is
kept as it was typed: each front end escapes it for its own wire (XML text, JSON).

Rooms: :data:`LOBBY` for the lobby, a game's id for its table.  A game's room is
forgotten when the game leaves the lobby.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import Any

from twisted.logger import Logger
from zope.interface import implementer

from hub.connections import fields
from hub.interfaces import ILobbyListener
from hub.model import GameError

#: the lobby's room
LOBBY = ""
#: longest chat text, in characters (the XML protocol's limit too)
MAX_CHAT = fields.MAX_CHAT
_SPACES = re.compile(r"[\t\n\r]+")


@dataclass(frozen=True)
class ChatLine:
    """One line said in a room.

    :ivar room: :data:`LOBBY` or a game id.
    :ivar sender: who said it (set by the hub, never taken from the client).
    :ivar text: what was said.
    :ivar at: the clock's time.
    :ivar guest: whether the sender is a guest without an account (web).
    :ivar type: the XML protocol's chat ``type`` (0 for ordinary lines).
    """

    room: str
    sender: str
    text: str
    at: float
    guest: bool = False
    type: int = 0

    def to_json(self) -> dict[str, Any]:
        """The line as the web API sends it."""
        return {
            "room": self.room,
            "sender": self.sender,
            "text": self.text,
            "at": self.at,
            "guest": self.guest,
        }


def clean(text: Any) -> str:
    """The text of a chat line, checked: tabs and line breaks become spaces, then it
    keeps the rules of :data:`hub.connections.fields.CHAT_TEXT` (1 to :data:`MAX_CHAT` characters,
    no control characters).

    :raises hub.model.GameError: 400, or 413 when too long.
    """
    if not isinstance(text, str):
        raise GameError("a chat line is a text", 400)
    if not (text.isascii() and text.isprintable()):  # else no surrogate, tab or break
        if not fields.is_scalar_text(text):
            raise GameError("a chat line must be valid Unicode text", 400)
        text = _SPACES.sub(" ", text)
    text = text.strip()
    if not text:
        raise GameError("an empty chat message", 400)
    return fields.CHAT_TEXT.check(text)


@implementer(ILobbyListener)
class ChatService:
    """Chat rooms of one hub.

    :param clock: ``IReactorTime``.
    :param lobby: the hub's lobby (rooms of removed games are forgotten), or ``None``.
    :param history: lines kept per room for people who arrive later.
    :param rate: lines one speaker may say in one room per ``window`` seconds.
    :param window: seconds.
    :param max_rooms: rooms kept at most (the oldest is forgotten first).
    """

    log = Logger()

    def __init__(
        self,
        clock: Any,
        lobby: Any = None,
        *,
        history: int = 50,
        rate: int = 20,
        window: float = 10.0,
        max_rooms: int = 10_000,
    ) -> None:
        self._clock = clock
        self.history_size = max(0, history)
        self.rate = rate
        self.window = window
        self.max_rooms = max_rooms
        self._rooms: dict[str, deque[ChatLine]] = {}
        self._said: dict[tuple[str, str], deque[float]] = {}
        self._listeners: list[Any] = []
        if lobby is not None:
            lobby.add_listener(self)

    def add_listener(self, listener: Any) -> None:
        """Tell ``listener`` (an :class:`hub.interfaces.IChatListener`) every line."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Any) -> None:
        """Stop telling ``listener``."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def say(
        self, room: str, sender: str, text: Any, *, guest: bool = False, type: int = 0
    ) -> ChatLine:
        """``sender`` says ``text`` in ``room``; every listener hears it.

        :raises hub.model.GameError: 400/413 for a text :func:`clean` refuses, 429 when
            the speaker says more than ``rate`` lines in ``window`` seconds here.
        """
        text = clean(text)
        now = self._clock.seconds()
        if len(self._said) > 4 * self.max_rooms:
            self._said = {k: v for k, v in self._said.items() if v and now - v[-1] < self.window}
        said = self._said.setdefault((room, sender), deque())
        while said and now - said[0] >= self.window:
            said.popleft()
        if len(said) >= self.rate:
            raise GameError(f"at most {self.rate} chat lines in {self.window:g} s; slow down", 429)
        said.append(now)
        line = ChatLine(room, sender, text, now, guest, type)
        lines = self._rooms.get(room)
        if lines is None:
            if len(self._rooms) >= self.max_rooms:
                self.forget(next(iter(self._rooms)))
            lines = self._rooms[room] = deque(maxlen=self.history_size)
        lines.append(line)
        for listener in list(self._listeners):
            try:
                listener.chat_line(line)
            except Exception:
                self.log.failure("chat listener {listener!r} failed", listener=listener)
        return line

    def history(self, room: str) -> list[ChatLine]:
        """The last lines of ``room``, oldest first."""
        return list(self._rooms.get(room, ()))

    def forget(self, room: str) -> None:
        """Drop a room's lines and rates."""
        self._rooms.pop(room, None)
        for key in [k for k in self._said if k[0] == room]:
            del self._said[key]

    def lobby_changed(self, change: str, game: Any) -> None:
        """A removed game's room goes with it."""
        if change == "removed":
            self.forget(game.id)
