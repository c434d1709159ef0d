"""Sessions (spec: xml-protocol.md): a lobby session at login, one game session per
joined game.

Ids are random 63-bit integers from ``secrets``, bound to the connection that got
them (:class:`Sessions`); a request naming a session it does not own is refused by
the connection's rules (:mod:`.states`).  A :class:`GameSession` follows its game for
its connection and sends what that connection may see.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from twisted.logger import Logger
from zope.interface import implementer

from hub.interfaces import IGameObserver, IXMLGameAdapter
from hub.model import PAUSED, RESUMED, GameEvent

from . import encoding
from .adapters import adapter_for

if TYPE_CHECKING:
    from lxml import etree
    from twisted.internet.interfaces import IReactorTime

    from hub.interfaces import GameLobby

    from .connection import Connection


# -- what the sessions use of the parts above them (they import this module) ----------


class _Changes(Protocol):
    """The resumes (:class:`.resume.Resumes`): told when a connection's sessions change."""

    def changed(self, conn: Connection) -> None: ...


class _Drops(Protocol):
    """The relays (:class:`.relay.Relays`): a connection's relayed sessions end with it."""

    def drop(self, conn: Connection) -> None: ...


class SessionsHost(Protocol):
    """What the sessions use of their front end (:class:`.server.XMLFrontend`)."""

    @property
    def reactor(self) -> IReactorTime: ...
    @property
    def lobby(self) -> GameLobby: ...
    @property
    def resumes(self) -> _Changes: ...
    @property
    def relays(self) -> _Drops: ...
    def encode(self, root: etree._Element) -> bytes: ...
    def wire_id(self, game: Any) -> int: ...
    def send_game(
        self, conn: Connection, game: Any, document: bytes, seat: int | None = None
    ) -> None: ...


def seat_back(game: Any, name: str) -> int | None:
    """The seat account ``name`` holds in ``game``: where it sits, or the seat a
    resumed game kept for its XML player (:attr:`hub.play.game.GameInstance.awaiting`), taken
    again now (``come_back``: no chips move), as the web page does for its own."""
    seat: int | None = game.seat_of(name)
    if seat is not None:
        return seat
    back = [i for i, player in game.awaiting.items() if player == name]
    if back and game.seats[back[0]].kind == "client":
        seat = game.come_back(name, "client", back[0])
    return seat


@dataclass
class Session:
    """One session id: the lobby session of a connection, or one joined game."""

    id: int
    conn: Connection
    kind: str  # "lobby" | "game"
    game: Any = None
    observer: GameSession | None = None


@implementer(IGameObserver)
@dataclass(eq=False)
class GameSession:
    """Follows one game for one connection and sends what it may see.

    :ivar wire_id: the game's id on this wire.
    :ivar seat: the seat followed (``None``: watching).
    """

    frontend: SessionsHost
    conn: Connection
    session_id: int
    game: Any
    adapter: IXMLGameAdapter
    wire_id: int = 0
    seat: int | None = None
    closed: bool = field(default=False)

    @property
    def viewer(self) -> str | None:
        """The account following the game (listed among the watchers without a seat)."""
        account = self.conn.account
        return None if account is None else account.name

    def held_seat(self) -> int | None:
        """The seat this connection's account still holds (``None``: it watches).

        A seat left elsewhere (on another connection of the account, or by the game)
        or taken by someone else is given up here: the game is then followed as a
        watcher, so nothing meant for the seat's next player comes here.
        """
        seat = self.seat
        if seat is None:
            return None
        account = self.conn.account
        if 0 <= seat < len(self.game.seats) and account is not None:
            if self.game.seats[seat].player == account.name:
                return seat
        self.seat = None
        if not self.closed:
            self.game.observe(self, None)
        return None

    def follow(self, seat: int | None) -> None:
        """Follow the game from ``seat`` (``None``: as a watcher)."""
        self.seat = seat
        self.game.observe(self, seat)

    def game_event(self, game: Any, event: GameEvent) -> None:
        """Render the event for this seat and send it as ``updatedgamestate``."""
        if self.closed:
            return
        if self.held_seat() is None and event.seats is not None:
            return  # meant for the seat this connection no longer holds
        if event.kind in (PAUSED, RESUMED):  # the hub's, for every game
            text = f"paused: {event.data.get('reason')}" if event.kind == PAUSED else "resumed"
            doc = encoding.build_game_state(
                self.frontend.wire_id(game), [], self.session_id, description=text
            )
            self.frontend.send_game(self.conn, game, self.frontend.encode(doc))
            return
        payload = self.adapter.render_event(event, self.seat)
        if payload is None:
            return
        doc = encoding.build_game_state(self.frontend.wire_id(game), [payload], self.session_id)
        self.frontend.send_game(
            self.conn, game, self.frontend.encode(doc), self.private_seat(event)
        )
        if self.adapter.snapshot_on(event):
            # on the next turn: the game emits the rest of this step's events first, and
            # the snapshot then shows exactly what the events sent before it did
            self.frontend.reactor.callLater(0, self._send_snapshot)

    def private_seat(self, event: GameEvent) -> int | None:
        """The seat a frame of ``event`` is private to in the transcript (``None``:
        public): the event is meant for some seats only, or the adapter says so."""
        if self.seat is None:
            return None
        return self.seat if self.adapter.private_to(event, self.seat) else None

    def _send_snapshot(self) -> None:
        if not self.closed and not self.conn.closing:
            snapshot = self.snapshot()
            self.frontend.send_game(self.conn, self.game, snapshot, self.seat)

    def snapshot(self) -> bytes:
        """The full state as this seat sees it."""
        view = self.game.view(self.held_seat())
        payload = self.adapter.render_view(view)
        return self.frontend.encode(
            encoding.build_game_state(self.frontend.wire_id(self.game), [payload], self.session_id)
        )


class Sessions:
    """Every session id of the front end: who owns it and what it is for.

    :param frontend: the front end (its lobby; the game sessions' sending).
    """

    log = Logger()

    def __init__(self, frontend: SessionsHost) -> None:
        self.frontend = frontend
        self._by_id: dict[int, Session] = {}

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._by_id

    def __iter__(self) -> Iterator[Session]:
        """Every open session (a copy: ending one while iterating is safe)."""
        return iter(list(self._by_id.values()))

    def _new(self, conn: Connection, kind: str, game: Any = None) -> Session:
        while True:
            sid = secrets.randbits(63)
            if sid and sid not in self._by_id:
                break
        session = Session(sid, conn, kind, game)
        self._by_id[sid] = session
        return session

    def open_lobby(self, conn: Connection) -> int:
        """A new lobby session of ``conn``: its id."""
        return self._new(conn, "lobby").id

    def open_game(self, conn: Connection, game: Any, adapter: IXMLGameAdapter) -> GameSession:
        """A new game session of ``conn`` following ``game`` (not observing it yet)."""
        session = self._new(conn, "game", game)
        observer = GameSession(
            self.frontend, conn, session.id, game, adapter, self.frontend.wire_id(game)
        )
        session.observer = observer
        conn.game_sessions[session.id] = observer
        self.frontend.resumes.changed(conn)
        return observer

    def open_relayed(self, conn: Connection) -> int:
        """A new session id of ``conn`` for a game session relayed to another hub
        (:mod:`.relay`)."""
        self.frontend.resumes.changed(conn)
        return self._new(conn, "relay").id

    def adopt(self, session_id: int, game: Any) -> GameSession | None:
        """The relayed session ``session_id`` becomes a game session of this hub's
        ``game`` (its game moved here, :meth:`.relay.Relays.follow`), with the same id
        (not observing it yet); ``None`` when there is no such session or ``game``
        is not played over XML."""
        session = self._by_id.get(session_id)
        adapter = adapter_for(game.factory)
        if session is None or session.kind != "relay" or adapter is None:
            return None
        conn = session.conn
        observer = GameSession(
            self.frontend, conn, session_id, game, adapter, self.frontend.wire_id(game)
        )
        session.kind, session.game, session.observer = "game", game, observer
        conn.game_sessions[session_id] = observer
        self.frontend.resumes.changed(conn)
        return observer

    def end_game(self, session_id: int, leave: bool = True) -> None:
        """End a game session: stop following the game, and (``leave``) give up the
        seat its account still holds there, while the game is in the lobby."""
        session = self._by_id.pop(session_id, None)
        if session is None:
            return
        conn, observer = session.conn, session.observer
        conn.game_sessions.pop(session.id, None)
        self.frontend.resumes.changed(conn)
        if observer is None:
            return
        observer.closed = True
        game = session.game
        try:
            game.unobserve(observer)
            seat = observer.held_seat()  # not a seat someone else holds now
            if leave and seat is not None and game.id in self.frontend.lobby:
                game.leave_seat(seat)
        except Exception:
            self.log.failure("xml: leaving game {game} failed", game=game.id)

    def end_all(self, conn: Connection, leave: bool = True) -> None:
        """End every session of ``conn`` (logout, its account deleted, its end);
        ``leave``: give up the seats it holds (not while they wait for a resume)."""
        self.frontend.relays.drop(conn)
        for sid in list(conn.game_sessions):
            self.end_game(sid, leave)
        conn.game_sessions.clear()
        if conn.lobby_session:
            self._by_id.pop(conn.lobby_session, None)
        conn.log_out()
