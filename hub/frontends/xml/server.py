"""The XML front end: sessions, accounts, the lobby and games, for every connection.

:class:`XMLFrontend` is the protocol factory (one per hub).  Each request event
(:mod:`codec`) is handled by one ``_on_<event>`` method that returns the response
document; game events reach the connections that joined through :class:`GameSession`
observers, lobby changes through :meth:`XMLFrontend.lobby_changed`.

Sessions (spec: xml-protocol.md): a lobby session at login, one game session per joined
game; ids are random 63-bit integers from ``secrets``, bound to the connection.  A request
naming a session it does not own gets 403 and changes nothing.
"""

from __future__ import annotations

import secrets
from collections import Counter, OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from lxml import etree
from twisted.internet import defer, protocol
from twisted.logger import Logger
from zope.interface import implementer

import hub as hub_package
from hub.chat import LOBBY, ChatLine
from hub.interfaces import IChatListener, IGameObserver, ILobbyListener, IXMLHandHistory
from hub.limits import creation_limits
from hub.model import OVER, PAUSED, RESUMED, RUNNING, GameError, GameEvent

from . import codec
from .adapters import adapter_for, parse_action, seats_on_join
from .protocol import XMLProtocol

ACCOUNT_TYPES = {0: "player", 1: "bot", 2: "admin"}
#: the lobby transcript of this front end (``lobby-xml``; admin only)
LOBBY_TRANSCRIPT = "xml"
#: wire ids of games no longer in the lobby remembered for ``lobby/history``
KNOWN_IDS = 10_000
#: most games whose type ``lobby/history`` looks up in the store for their hands
TYPE_LOOKUPS = 16


class Refused(Exception):
    """A request is refused with ``code`` (answered as ``response/general``)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass
class Session:
    """One session id: the lobby session of a connection, or one joined game."""

    id: int
    conn: XMLProtocol
    kind: str  # "lobby" | "game"
    game: Any = None
    observer: GameSession | None = None


@implementer(IGameObserver)
@dataclass(eq=False)
class GameSession:
    """Follows one game for one connection and sends what it may see."""

    frontend: XMLFrontend
    conn: XMLProtocol
    session_id: int
    game: Any
    adapter: Any
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

    def game_event(self, game: Any, event: GameEvent) -> None:
        """Render the event for this seat and send it as ``updatedgamestate``."""
        if self.closed:
            return
        if self.held_seat() is None and event.seats is not None:
            return  # meant for the seat this connection no longer holds
        if event.kind in (PAUSED, RESUMED):  # the hub's, for every game
            text = f"paused: {event.data.get('reason')}" if event.kind == PAUSED else "resumed"
            doc = codec.build_game_state(
                self.frontend.wire_id(game), [], self.session_id, description=text
            )
            self.frontend.send_game(self.conn, game, codec.encode(doc))
            return
        payload = self.adapter.render_event(event, self.seat)
        if payload is None:
            return
        doc = codec.build_game_state(self.frontend.wire_id(game), [payload], self.session_id)
        self.frontend.send_game(self.conn, game, codec.encode(doc), self.private_seat(event))
        snapshot_on = getattr(self.adapter, "snapshot_on", None)
        if snapshot_on is not None and snapshot_on(event):
            # on the next turn: the game emits the rest of this step's events first, and
            # the snapshot then shows exactly what the events sent before it did
            self.frontend.reactor.callLater(0, self._send_snapshot)

    def private_seat(self, event: GameEvent) -> int | None:
        """The seat a frame of ``event`` is private to in the transcript (``None``:
        public): the event is meant for some seats only, or the adapter says so."""
        if self.seat is None:
            return None
        private_to = getattr(self.adapter, "private_to", None)
        if private_to is not None:
            return self.seat if private_to(event, self.seat) else None
        return self.seat if event.seats is not None else None

    def _send_snapshot(self) -> None:
        if not self.closed and not self.conn.closing:
            snapshot = self.snapshot()
            self.frontend.send_game(self.conn, self.game, snapshot, self.seat)

    def snapshot(self) -> bytes:
        """The full state as this seat sees it."""
        view = self.game.view(self.held_seat())
        payload = self.adapter.render_view(view)
        return codec.encode(
            codec.build_game_state(self.frontend.wire_id(self.game), [payload], self.session_id)
        )


@implementer(ILobbyListener, IChatListener)
class XMLFrontend(protocol.ServerFactory):
    """The XML front end of one hub.

    :param hub: the root service (``lobby``, ``registry``, ``store``, ``transcripts``,
        ``reactor``, ``options``, ``bound_ports``).

    Options (``hub.options``): ``xml_max_frame`` (65536), ``xml_idle_timeout`` (600 s),
    ``xml_frame_deadline`` (30 s), ``xml_max_per_address`` (16), ``xml_max_connections``
    (4096), ``xml_max_pending`` (32),
    ``xml_close_grace`` (2 s: how long a refused connection stays half-closed),
    ``xml_rate`` / ``xml_burst`` (20 requests a second, bursts of 60),
    ``xml_max_backlog`` (1 MiB written to a client that does not read).
    """

    log = Logger()
    protocol = XMLProtocol

    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self.reactor = hub.reactor
        self.lobby = hub.lobby
        options = getattr(hub, "options", {}) or {}
        self.max_frame = int(options.get("xml_max_frame", 65536))
        self.idle_timeout = float(options.get("xml_idle_timeout", 600))
        self.frame_deadline = float(options.get("xml_frame_deadline", 30))
        self.max_per_address = int(options.get("xml_max_per_address", 16))
        self.max_connections = int(options.get("xml_max_connections", 4096))
        self.max_pending = int(options.get("xml_max_pending", 32))
        self.close_grace = float(options.get("xml_close_grace", 2))
        self.rate = float(options.get("xml_rate", 20))
        self.burst = float(options.get("xml_burst", 60))
        self.max_backlog = int(options.get("xml_max_backlog", 1 << 20))
        self.server_name = str(options.get("server_name", "gamehub"))
        self.create_limits = creation_limits(options, self.reactor)
        self.connections: set[XMLProtocol] = set()
        self.per_address: Counter[str] = Counter()
        self.sessions: dict[int, Session] = {}
        #: wire id → game id: the lobby's games, and the last KNOWN_IDS seen in history
        self._wire: dict[int, str] = {}
        self._known: OrderedDict[int, str] = OrderedDict()
        self._listening = False

    # -- factory ------------------------------------------------------------------------

    def startFactory(self) -> None:
        """Follow the lobby and the chat while listening."""
        if not self._listening:
            self.lobby.add_listener(self)
            self.hub.chat.add_listener(self)
            self._listening = True

    def stopFactory(self) -> None:
        """Tell every client the hub is going away; stop following the lobby."""
        notice = codec.encode(codec.build_notice("the hub is shutting down"))
        for conn in list(self.connections):
            if not conn.closing:
                conn.send_update(notice)
        if self._listening:
            self.lobby.remove_listener(self)
            self.hub.chat.remove_listener(self)
            self._listening = False

    def buildProtocol(self, addr: Any) -> XMLProtocol:
        """A protocol for a new connection (one that will refuse itself above the cap)."""
        peer = str(getattr(addr, "host", addr))
        over = (
            self.per_address[peer] >= self.max_per_address
            or len(self.connections) >= self.max_connections
        )
        proto = self.protocol(self, peer, over_cap=over)
        proto.factory = self
        self.per_address[peer] += 1
        self.connections.add(proto)
        return proto

    def connection_lost(self, conn: XMLProtocol) -> None:
        """End the connection's sessions and forget it."""
        if conn in self.connections:
            self.connections.discard(conn)
            self.per_address[conn.peer] -= 1
            if self.per_address[conn.peer] <= 0:
                del self.per_address[conn.peer]
        games = [s.game for s in self.sessions.values() if s.conn is conn and s.game is not None]
        self._end_sessions(conn)
        for transcript in {id(t): t for t in map(self._transcript, [None, *games])}.values():
            if transcript is not None:
                transcript.end_connection(conn.conn_id)

    def greeting(self) -> etree._Element:
        """The ``info`` message every connection gets first."""
        ports = dict(getattr(self.hub, "bound_ports", {}) or {})
        root = codec.build_info(self.server_name, ports)
        server = root.find("info/parameters/server")
        server.set("version", str(getattr(hub_package, "__version__", "1.0")))
        return root

    # -- game ids -------------------------------------------------------------------------

    def wire_id(self, game: Any) -> int:
        """The ``xs:long`` id of ``game`` on this wire."""
        wid = codec.wire_game_id(game.id)
        self._wire[wid] = game.id
        return wid

    def _remember(self, wire_id: int, game_id: str) -> None:
        """Keep the wire id of a game seen in history (the last :data:`KNOWN_IDS`)."""
        self._known[wire_id] = game_id
        self._known.move_to_end(wire_id)
        while len(self._known) > KNOWN_IDS:
            self._known.popitem(last=False)

    def _game_id(self, wire_id: int) -> str | None:
        return self._wire.get(wire_id) or self._known.get(wire_id)

    def find_game(self, wire_id: int) -> Any:
        """The lobby game with wire id ``wire_id``; 404 if none, 400 if not hosted here."""
        game_id = self._wire.get(wire_id)
        if game_id is None:
            for game in self.lobby.games():
                if self.wire_id(game) == wire_id:
                    game_id = game.id
                    break
        if game_id is None:
            raise Refused(404, f"no game with id {wire_id}")
        try:
            game = self.lobby.get(game_id)
        except GameError:
            raise Refused(404, f"no game with id {wire_id}") from None
        if adapter_for(game.factory) is None:
            raise Refused(400, f"game {wire_id} ({game.type}) cannot be played over XML")
        return game

    # -- transcripts ----------------------------------------------------------------------

    def _transcript(self, game: Any) -> Any:
        if game is not None:
            return getattr(game, "transcript", None)
        transcripts = getattr(self.hub, "transcripts", None)
        if transcripts is None:
            return None
        try:
            return transcripts.for_lobby(LOBBY_TRANSCRIPT)
        except Exception:
            return None

    def record(
        self,
        conn: XMLProtocol,
        direction: str,
        frame: bytes,
        game: Any = None,
        seat: int | None = None,
    ) -> None:
        """Write one frame to the game's transcript (or the XML lobby transcript).

        :param frame: what the transcript may keep: :attr:`codec.Request.record` of a
            request, :func:`codec.outgoing_record` of what we send.
        :param seat: the frame is private to this seat.
        """
        transcript = self._transcript(game)
        if transcript is None:
            return
        owner = conn.account.name if conn.account is not None else None
        try:
            transcript.record(conn.conn_id, direction, frame, owner=owner, seat=seat)
        except Exception:
            self.log.failure("xml: transcript write failed")

    def send_game(
        self, conn: XMLProtocol, game: Any, document: bytes, seat: int | None = None
    ) -> None:
        """Send a state update of ``game`` and record it (private to ``seat`` if given)."""
        self.record(conn, "out", codec.outgoing_record(document), game, seat)
        conn.send_update(document)

    # -- requests -------------------------------------------------------------------------

    def handle_frame(self, conn: XMLProtocol, frame: bytes) -> defer.Deferred:
        """Answer one frame; fires with the response document (bytes).

        Only frames within the connection's rate limit are recorded (the 429 answers
        to the others are not), and only in their secret-free form.
        """
        try:
            request = codec.decode(frame, max_size=self.max_frame)
        except codec.ProtocolError as e:
            if not conn.take_token():
                return defer.succeed(codec.encode(codec.build_error(429, "too many requests")))
            self.record(conn, "in", e.record)
            return defer.succeed(self._reply(conn, codec.build_error(e.code, e.reason), None))
        if not conn.take_token():
            error = refusal(request, 429, "too many requests; slow down")
            return defer.succeed(codec.encode(error))
        game = None
        if isinstance(request, codec.GameRequest) and request.gameid:
            try:
                game = self.find_game(request.gameid)
            except Refused:
                game = None
        self.record(conn, "in", request.record, game)
        handler = getattr(self, "_on_" + type(request).__name__)
        try:
            codec.check_fields(request)
        except GameError as e:
            d = defer.fail(e)
        else:
            d = defer.maybeDeferred(handler, conn, request)

        def refused(failure: Any) -> etree._Element:
            error = failure.check(Refused, GameError)
            if error is None:
                return failure
            value = failure.value
            return refusal(request, value.code, value.reason)

        d.addErrback(refused)
        d.addCallback(lambda root: self._reply(conn, root, game, self._answer_seat(conn, request)))
        return d

    def _reply(
        self, conn: XMLProtocol, root: etree._Element, game: Any, seat: int | None = None
    ) -> bytes:
        data = codec.encode(root)
        self.record(conn, "out", codec.outgoing_record(data), game, seat)
        return data

    def _answer_seat(self, conn: XMLProtocol, request: codec.Request) -> int | None:
        """The seat the answer to ``request`` is private to in the transcript: a game's
        custom answer is made for the asker's seat (a poker hand history shows its hole
        cards), so it is that seat's; other answers are public."""
        if not isinstance(request, codec.Custom):
            return None
        session = self._owned(conn, request.sessionid)
        observer = session.observer if session is not None else None
        return None if observer is None else observer.seat

    # -- session checks -------------------------------------------------------------------

    def _owned(self, conn: XMLProtocol, session_id: int) -> Session | None:
        session = self.sessions.get(session_id)
        return session if session is not None and session.conn is conn else None

    def _require_lobby(self, conn: XMLProtocol, request: codec.Request) -> None:
        if conn.account is None:
            if request.sessionid and self._owned(conn, request.sessionid) is None:
                raise Refused(403, "not your session")
            raise Refused(401, "log in first")
        if request.sessionid != conn.lobby_session:
            raise Refused(403, "not your lobby session")

    def _require_game(self, conn: XMLProtocol, request: codec.GameRequest) -> Session:
        if conn.account is None:
            raise Refused(401, "log in first")
        session = self._owned(conn, request.sessionid)
        if session is None or session.kind != "game":
            raise Refused(403, "not your game session")
        if self.wire_id(session.game) != request.gameid:
            raise Refused(403, "that session belongs to another game")
        return session

    def _new_session(self, conn: XMLProtocol, kind: str, game: Any = None) -> Session:
        while True:
            sid = secrets.randbits(63)
            if sid and sid not in self.sessions:
                break
        session = Session(sid, conn, kind, game)
        self.sessions[sid] = session
        return session

    def _end_game_session(self, session: Session, leave: bool = True) -> None:
        self.sessions.pop(session.id, None)
        conn, observer = session.conn, session.observer
        conn.game_sessions.pop(session.id, None)
        if observer is None:
            return
        observer.closed = True
        game = session.game
        try:
            game.unobserve(observer)
            seat = observer.held_seat()  # not a seat someone else holds now
            if leave and seat is not None and game.id in self._lobby_ids():
                game.leave_seat(seat)
        except Exception:
            self.log.failure("xml: leaving game {game} failed", game=getattr(game, "id", "?"))

    def _lobby_ids(self) -> set[str]:
        return {g.id for g in self.lobby.games()}

    def _end_sessions(self, conn: XMLProtocol) -> None:
        for sid in list(conn.game_sessions):
            session = self.sessions.get(sid)
            if session is not None:
                self._end_game_session(session)
        conn.game_sessions.clear()
        if conn.lobby_session:
            self.sessions.pop(conn.lobby_session, None)
        conn.lobby_session = 0
        conn.account = None

    # -- accounts -------------------------------------------------------------------------

    def _store(self) -> Any:
        store = getattr(self.hub, "store", None)
        if store is None:
            raise Refused(503, "accounts are not available on this hub")
        return store

    def _account_session_ok(self, conn: XMLProtocol, request: codec.Request) -> None:
        if request.sessionid and request.sessionid != conn.lobby_session:
            raise Refused(403, "not your session")

    def _is_admin(self, conn: XMLProtocol) -> bool:
        return conn.account is not None and _type_name(conn.account) == "admin"

    async def _on_CreateAccount(self, conn: XMLProtocol, r: codec.CreateAccount) -> Any:
        self._account_session_ok(conn, r)
        kind = ACCOUNT_TYPES.get(r.accounttype)
        if kind is None:
            raise Refused(400, "accounttype is 0 (player), 1 (bot) or 2 (admin)")
        if kind == "admin" and not (self._is_admin(conn) and r.sessionid == conn.lobby_session):
            raise Refused(403, "only an admin creates admin accounts")
        await self._store().create_account(r.accountname, r.password, kind)
        return codec.build_response(
            "accountmanagement", "create", description=f"account {r.accountname} created",
            sessionid=r.sessionid,
        )  # fmt: skip

    async def _on_DeleteAccount(self, conn: XMLProtocol, r: codec.DeleteAccount) -> Any:
        self._account_session_ok(conn, r)
        store = self._store()
        me = conn.account.name if conn.account is not None else None
        if me is not None and r.sessionid and self._is_admin(conn) and r.accountname != me:
            await store.authenticate(me, r.password, conn.peer)
        else:
            await store.authenticate(r.accountname, r.password, conn.peer)
        await store.delete_account(r.accountname)
        if me is not None and me.lower() == r.accountname.lower():
            self._end_sessions(conn)
        return codec.build_response(
            "accountmanagement", "delete", description=f"account {r.accountname} deleted",
        )  # fmt: skip

    async def _on_ChangePassword(self, conn: XMLProtocol, r: codec.ChangePassword) -> Any:
        self._account_session_ok(conn, r)
        await self._store().change_password(r.accountname, r.oldpassword, r.newpassword, conn.peer)
        return codec.build_response(
            "accountmanagement", "changepassword", description="password changed",
            sessionid=r.sessionid,
        )  # fmt: skip

    async def _on_Login(self, conn: XMLProtocol, r: codec.Login) -> Any:
        if r.sessionid and self._owned(conn, r.sessionid) is None:
            raise Refused(403, "not your session")
        if conn.account is not None:
            raise Refused(409, f"already logged in as {conn.account.name}")
        account = await self._store().authenticate(r.accountname, r.password, conn.peer)
        if conn.account is not None or conn.closing:
            raise Refused(409, "already logged in")
        conn.account = account
        session = self._new_session(conn, "lobby")
        conn.lobby_session = session.id
        self.log.info(
            "xml {conn}: {name} logged in from {peer}",
            conn=conn.conn_id, name=account.name, peer=conn.peer,
        )  # fmt: skip
        return codec.build_response(
            "authentication", "login", sessionid=session.id, name=account.name,
            type=_type_code(account), balance=codec.money(_balance(account)),
        )  # fmt: skip

    def _on_Logout(self, conn: XMLProtocol, r: codec.Logout) -> Any:
        self._require_lobby(conn, r)
        sid = conn.lobby_session
        self._end_sessions(conn)
        return codec.build_response("authentication", "logout", sessionid=sid)

    # -- lobby ----------------------------------------------------------------------------

    def _xml_types(self) -> list[Any]:
        registry = self.hub.registry
        return [f for f in registry.game_types() if adapter_for(f) is not None]

    def _client_module(self, factory: Any) -> str:
        plugin = getattr(self.hub.registry, "plugin", None)
        if plugin is not None:
            try:
                client = plugin(factory.name).client
                if client:
                    return str(client)
            except Exception:
                pass
        client = getattr(factory, "client", None)
        if client:
            return str(client)
        package = type(factory).__module__.rpartition(".")[0]
        return f"{package}.client" if package else ""

    def _on_AvailableGames(self, conn: XMLProtocol, r: codec.AvailableGames) -> Any:
        self._require_lobby(conn, r)
        types = [
            codec.GameType(
                type=f.name,
                clientgame=self._client_module(f),
                servergame=f"{type(f).__module__}:{type(f).__name__}",
                variants=tuple(f.variants),
                summary=getattr(f, "summary", None),
                minplayers=int(f.min_seats),
                maxplayers=int(f.max_seats),
            )
            for f in sorted(self._xml_types(), key=lambda f: f.name)
        ]
        return codec.build_available_games(types, r.sessionid)

    def row(self, game: Any) -> codec.GameRow:
        """The lobby row of ``game``."""
        return codec.GameRow(
            gameid=self.wire_id(game),
            name=game.name,
            gametype=game.type,
            gamevariant=game.variant or "",
            players=[s.player for s in game.seats if s.player is not None and s.present],
            maxplayers=len(game.seats),
            state=game.state,
            paused=game.paused,
        )

    def _xml_games(self) -> list[Any]:
        return [g for g in self.lobby.games() if adapter_for(g.factory) is not None]

    def _on_GameList(self, conn: XMLProtocol, r: codec.GameList) -> Any:
        self._require_lobby(conn, r)
        rows = [
            self.row(g)
            for g in self._xml_games()
            if (r.gametype is None or g.type == r.gametype)
            and (r.gamevariant is None or g.variant == r.gamevariant)
        ]
        return codec.build_game_list(rows, r.gametype, r.gamevariant, r.sessionid)

    def _on_GameDetails(self, conn: XMLProtocol, r: codec.GameDetails) -> Any:
        self._require_lobby(conn, r)
        game = self.find_game(r.gameid)
        players = [{"seat": s.index, "name": s.player or "", "kind": s.kind} for s in game.seats]
        rules = [
            f"type: {game.type}",
            f"summary: {getattr(game.factory, 'summary', '')}",
            f"variant: {game.variant or '-'}",
            f"seats: {len(game.seats)}",
            f"state: {game.state}",
        ]
        rules += [f"{k}: {v}" for k, v in sorted(dict(game.config.options).items())]
        return codec.build_game_details(self.row(game), players, rules, r.sessionid)

    def _on_FindPlayer(self, conn: XMLProtocol, r: codec.FindPlayer) -> Any:
        self._require_lobby(conn, r)
        wanted = r.name.lower()
        matches = []
        for game in self._xml_games():
            for seat in game.seats:
                if seat.player and seat.present and seat.player.lower().startswith(wanted):
                    matches.append((seat.player, seat.index, self.row(game)))
        matches.sort(key=lambda m: (m[0].lower() != wanted, m[0].lower(), m[2].name))
        return codec.build_find_player(r.name, matches[:200], r.sessionid)

    async def _on_History(self, conn: XMLProtocol, r: codec.History) -> Any:
        self._require_lobby(conn, r)
        game_id = None
        if r.gameid is not None:
            game_id = self._game_id(r.gameid)
            if game_id is None:
                try:
                    game_id = self.find_game(r.gameid).id
                except Refused:
                    raise Refused(404, f"no game with id {r.gameid}") from None
        entries: list[codec.HistoryEntry] = []
        seen: dict[str, str] = {}  # game id → type, of the finished games listed
        store = getattr(self.hub, "store", None)
        if store is not None and hasattr(store, "games"):
            for g in await store.games(game_id=game_id, player=r.accountname, limit=r.limit):
                seen[str(g.get("game_id"))] = str(g.get("type"))
                entries.append(self._history_entry(g))
        if store is not None and hasattr(store, "hands"):
            hands = await store.hands(game_id=game_id, player=r.accountname, limit=r.limit)
            types = await self._game_types(store, {str(h.get("game_id")) for h in hands}, seen)
            for h in hands:
                entries.append(self._hand_entry(h, types.get(str(h.get("game_id")))))
        for game in self.lobby.games():
            if game.state != OVER or game.id in seen:
                continue
            if game_id is not None and game.id != game_id:
                continue
            names = [s.player for s in game.seats if s.player]
            if r.accountname is not None and r.accountname.lower() not in (
                n.lower() for n in names
            ):
                continue
            entries.append(self._lobby_history(game))
        return codec.build_history(entries[: r.limit], r.sessionid)

    def _history_entry(self, g: dict[str, Any]) -> codec.HistoryEntry:
        gid = str(g.get("game_id"))
        wid = codec.wire_game_id(gid)
        if wid not in self._wire:
            self._remember(wid, gid)
        finished = g.get("finished")
        return codec.HistoryEntry(
            id=gid,
            gameid=wid,
            gametype=g.get("type"),
            name=g.get("name"),
            time=_iso(finished) if finished is not None else None,
            players=[
                (
                    str(p.get("name")),
                    p.get("seat"),
                    _result_text(p),
                )
                for p in g.get("players", ())
            ],
            summary=g.get("summary"),
        )

    async def _game_types(
        self, store: Any, game_ids: set[str], known: dict[str, str]
    ) -> dict[str, str]:
        """The game type of each of ``game_ids``: from the lobby, the finished games
        listed already (``known``), else the store (at most :data:`TYPE_LOOKUPS`)."""
        types: dict[str, str] = {}
        missing = []
        for gid in sorted(game_ids):
            try:
                types[gid] = self.lobby.get(gid).type
            except GameError:
                if gid in known:
                    types[gid] = known[gid]
                else:
                    missing.append(gid)
        for gid in missing[:TYPE_LOOKUPS] if hasattr(store, "games") else ():
            for g in await store.games(game_id=gid, limit=1):
                types[gid] = str(g.get("type"))
        return types

    def _describe_hand(self, gametype: str | None, h: dict[str, Any]) -> str | None:
        """The summary of a stored hand: its game's words
        (:class:`hub.interfaces.IXMLHandHistory`), else its showdown text."""
        adapter = None
        if gametype is not None:
            try:
                adapter = adapter_for(self.hub.registry.game_factory(gametype))
            except GameError:
                adapter = None
        if IXMLHandHistory.providedBy(adapter):
            return adapter.describe_hand(h)
        return h.get("showdown") or None

    def _hand_entry(self, h: dict[str, Any], gametype: str | None) -> codec.HistoryEntry:
        """One stored hand of a chip game (``id`` is the store's hand id)."""
        gid = str(h.get("game_id"))
        wid = codec.wire_game_id(gid)
        if wid not in self._wire:
            self._remember(wid, gid)
        summary = self._describe_hand(gametype, h)
        return codec.HistoryEntry(
            id=str(h.get("hand_id")),
            gameid=wid,
            gametype=gametype,
            name=h.get("hand_key"),
            time=_iso(h["time"]) if h.get("time") is not None else None,
            players=[
                (
                    str(p.get("name")),
                    p.get("seat"),
                    str(Decimal(p.get("winnings", 0)) - Decimal(p.get("money_in", 0))),
                )
                for p in h.get("players", ())
            ],
            summary=summary or None,
        )

    def _lobby_history(self, game: Any) -> codec.HistoryEntry:
        result = game.result() or {}
        scores = list(result.get("scores") or [])
        return codec.HistoryEntry(
            id=game.id,
            gameid=self.wire_id(game),
            gametype=game.type,
            name=game.name,
            time=_iso(game.finished) if game.finished is not None else None,
            players=[
                (s.player, s.index, str(scores[s.index]) if s.index < len(scores) else None)
                for s in game.seats
                if s.player
            ],
            summary=result.get("summary"),
        )

    # -- games ----------------------------------------------------------------------------

    async def _on_CreateGame(self, conn: XMLProtocol, r: codec.CreateGame) -> Any:
        self._require_lobby(conn, r)
        account = conn.account.name.lower()
        if not self.create_limits.allow(f"address:{conn.peer}", f"account:{account}"):
            raise Refused(429, "too many games created; wait a little")
        factory = self.hub.registry.game_factory(r.gametype)
        if adapter_for(factory) is None:
            raise Refused(400, f"{r.gametype} cannot be played over XML")
        seats: list[str] | None = list(r.seats) if r.seats else None
        if seats is None and r.seat_count is not None:
            seats = ["open"] * r.seat_count
        game = await self.hub.create_game(
            r.gametype,
            name=r.name,
            variant=r.variant,
            seats=seats,
            options=dict(r.options),
            creator=conn.account.name,
        )
        wid = self.wire_id(game)
        return codec.build_response(
            "game", "create", sessionid=r.sessionid, gameid=wid,
            description=f"game {game.name} created",
        )  # fmt: skip

    async def _on_DeleteGame(self, conn: XMLProtocol, r: codec.DeleteGame) -> Any:
        self._require_lobby(conn, r)
        game = self.find_game(r.gameid)
        if game.creator != conn.account.name and not self._is_admin(conn):
            raise Refused(403, "only its creator or an admin deletes a game")
        if game.state == RUNNING:
            raise Refused(409, "the game is running")
        store = getattr(self.hub, "store", None)
        if store is not None and hasattr(store, "chips_at"):
            chips = await store.chips_at(game.id)
            if any(Decimal(v) for v in dict(chips).values()):
                raise Refused(409, "chips are in play at this game")
        self.lobby.remove(game.id)
        return codec.build_response("game", "delete", sessionid=r.sessionid, gameid=r.gameid)

    def _on_JoinGame(self, conn: XMLProtocol, r: codec.JoinGame) -> Any:
        self._require_lobby(conn, r)
        game = self.find_game(r.gameid)
        for sid in conn.game_sessions:
            if self.sessions[sid].game is game:
                raise Refused(409, "you have joined this game already")
        adapter = adapter_for(game.factory)
        session = self._new_session(conn, "game", game)
        observer = GameSession(self, conn, session.id, game, adapter)
        session.observer = observer
        conn.game_sessions[session.id] = observer
        name = conn.account.name
        description = "watching"
        try:
            seat = game.seat_of(name)
            if seat is not None:
                observer.seat = seat
                game.observe(observer, seat)
                description = f"back at seat {seat}"
            elif seats_on_join(adapter) and game.free_seats("client") and game.state != OVER:
                seat = game.free_seats("client")[0]
                observer.seat = seat
                game.observe(observer, seat)
                game.take_seat(name, seat)
                description = f"seated at seat {seat}"
            else:
                game.observe(observer, None)
        except BaseException:
            self._end_game_session(session, leave=False)
            raise
        if conn._held is not None:
            conn._held.insert(0, observer.snapshot())
            self.record(conn, "out", codec.outgoing_record(conn._held[0]), game, observer.seat)
        return codec.build_response(
            "game", "join", sessionid=session.id, gameid=r.gameid, description=description
        )

    def _on_PartGame(self, conn: XMLProtocol, r: codec.PartGame) -> Any:
        session = self._require_game(conn, r)
        self._end_game_session(session)
        return codec.build_response("game", "part", sessionid=r.sessionid, gameid=r.gameid)

    def _on_GameAction(self, conn: XMLProtocol, r: codec.GameAction) -> Any:
        session = self._require_game(conn, r)
        observer = session.observer
        assert observer is not None
        game = session.game
        action = parse_action(observer.adapter, r.parameters)
        if "take_seat" in action and set(action) <= {"take_seat", "buyin"}:
            return self._take_seat(conn, r, observer, action)
        if "add_bot" in action and set(action) <= {"add_bot", "seat", "buyin"}:
            return self._add_bot(r, observer, action)
        seat = observer.held_seat()
        if action == {"leave_seat": True}:
            if seat is None:
                raise Refused(422, "you do not sit in this game")
            self.hub.leave_seat(game, seat)
            observer.seat = None
            game.observe(observer, None)
        else:
            if seat is None:
                raise Refused(403, "you watch this game; take a seat to play")
            game.act(seat, action)
        return codec.build_response("game", "action", sessionid=r.sessionid, gameid=r.gameid)

    async def _take_seat(
        self, conn: XMLProtocol, r: codec.GameAction, observer: GameSession, action: Any
    ) -> Any:
        """Take a seat (at a chip table: the buy-in moves from the account first, and
        from one's own seat it adds chips) and follow the game from it."""
        game = observer.game

        def observe(seat: int | None) -> None:
            if not observer.closed:
                observer.seat = seat
                game.observe(observer, seat)

        wanted = action["take_seat"]
        wanted = wanted if isinstance(wanted, int) and not isinstance(wanted, bool) else None
        name = conn.account.name
        seat = await self.hub.take_seat(game, name, wanted, buyin=action.get("buyin"),
                                        observe=observe)  # fmt: skip
        if observer.closed and observer.seat is None:
            game.leave_seat(seat)  # the connection went while the buy-in was moving
        return codec.build_response("game", "action", sessionid=r.sessionid, gameid=r.gameid)

    async def _add_bot(self, r: codec.GameAction, observer: GameSession, action: Any) -> Any:
        """Seat an in-hub bot (funded through the ledger at a chip table)."""
        await self.hub.add_bot(observer.game, action["add_bot"], action.get("seat"),
                               action.get("buyin"))  # fmt: skip
        return codec.build_response("game", "action", sessionid=r.sessionid, gameid=r.gameid)

    def _on_Chat(self, conn: XMLProtocol, r: codec.Chat) -> Any:
        """Say a line at a joined game (its game session), or in the lobby (``gameid``
        0 with the lobby session); the hub's chat service checks it and tells every
        front end (:meth:`chat_line` sends it here)."""
        if r.gameid == 0:
            self._require_lobby(conn, r)
            room = LOBBY
        else:
            room = self._require_game(conn, r).game.id
        self.hub.chat.say(room, conn.account.name, r.text, type=r.type)
        return codec.build_response("game", "chat", sessionid=r.sessionid, gameid=r.gameid)

    def chat_line(self, line: ChatLine) -> None:
        """A chat line of the lobby (to every logged-in connection, ``gameid`` 0) or of
        a game (to every session that joined it)."""
        if line.room == LOBBY:
            for conn in list(self.connections):
                if conn.lobby_session and not conn.closing:
                    doc = codec.build_chat(0, line.sender, line.text, conn.lobby_session, line.type)
                    data = codec.encode(doc)
                    self.record(conn, "out", codec.outgoing_record(data))
                    conn.send_update(data)
            return
        for session in list(self.sessions.values()):
            game = session.game
            if session.kind == "game" and game.id == line.room and session.observer is not None:
                wid = self.wire_id(game)
                doc = codec.build_chat(wid, line.sender, line.text, session.id, line.type)
                self.send_game(session.conn, game, codec.encode(doc))

    def _on_Custom(self, conn: XMLProtocol, r: codec.Custom) -> Any:
        session = self._require_game(conn, r)
        observer = session.observer
        assert observer is not None
        custom = getattr(observer.adapter, "custom", None)
        if custom is None:
            raise Refused(400, f"{session.game.type} has no custom requests")
        answer = custom(session.game, observer.held_seat(), r.payload)
        if answer is None:
            answer = codec.element("ok")
        return codec.build_response(
            "game", "custom", sessionid=r.sessionid, gameid=r.gameid, parameters=[answer]
        )

    # -- lobby updates --------------------------------------------------------------------

    def lobby_changed(self, change: str, game: Any) -> None:
        """Tell every logged-in connection; end the game sessions of a removed game."""
        if change == "removed":
            wid = codec.wire_game_id(game.id)
            if self._wire.pop(wid, None) is not None:
                self._remember(wid, game.id)
        if adapter_for(game.factory) is None:
            return
        wid = self.wire_id(game)
        if change == "removed":
            for session in [s for s in self.sessions.values() if s.game is game]:
                doc = codec.build_game_state(
                    wid, [], session.id, description="the game was removed", success=False
                )
                self.send_game(session.conn, game, codec.encode(doc))
                self._end_game_session(session, leave=False)
        if change == "removed":
            self._wire.pop(wid, None)
        row = None if change == "removed" else self.row(game)
        template = codec.build_lobby_update(change, row, wid)
        for conn in list(self.connections):
            if conn.lobby_session and not conn.closing:
                template.set("sessionid", str(conn.lobby_session))
                data = codec.encode(template)
                self.record(conn, "out", codec.outgoing_record(data))
                conn.send_update(data)


#: request type → (group, op) of the response element that can say success="false";
#: other requests (lobby listings, custom) are refused with ``response/general``.
_OWN_RESPONSE = {
    codec.CreateAccount: ("accountmanagement", "create"),
    codec.DeleteAccount: ("accountmanagement", "delete"),
    codec.ChangePassword: ("accountmanagement", "changepassword"),
    codec.Login: ("authentication", "login"),
    codec.Logout: ("authentication", "logout"),
    codec.CreateGame: ("game", "create"),
    codec.DeleteGame: ("game", "delete"),
    codec.JoinGame: ("game", "join"),
    codec.PartGame: ("game", "part"),
    codec.GameAction: ("game", "action"),
    codec.Chat: ("game", "chat"),
}


def refusal(request: codec.Request, code: int, reason: str) -> etree._Element:
    """The answer to a refused request: its own response element with
    ``success="false"`` where the schema allows it (so a client waiting for, say,
    ``authentication/login`` gets that), else ``response/general``."""
    which = _OWN_RESPONSE.get(type(request))
    if which is None:
        return codec.build_error(code, reason, request.sessionid)
    group, op = which
    extra: dict[str, Any] = {}
    if op == "login":
        extra = {"name": getattr(request, "accountname", ""), "type": 0}
    return codec.build_response(
        group,
        op,
        success=False,
        errorcode=code,
        description=reason,
        sessionid=request.sessionid,
        gameid=getattr(request, "gameid", None) if group == "game" else None,
        **extra,
    )


def _type_name(account: Any) -> str:
    kind = getattr(account, "type", "player")
    if isinstance(kind, int):
        return ACCOUNT_TYPES.get(kind, "player")
    return str(kind)


def _type_code(account: Any) -> int:
    code = getattr(account, "type_code", None)
    if isinstance(code, int):
        return code
    return {v: k for k, v in ACCOUNT_TYPES.items()}.get(_type_name(account), 0)


def _balance(account: Any) -> Decimal:
    value = getattr(account, "balance", 0)
    return value if isinstance(value, Decimal) else Decimal(str(value))


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(float(seconds), UTC).isoformat()


def _result_text(player: dict[str, Any]) -> str | None:
    for key in ("net", "score"):
        if player.get(key) is not None:
            return str(player[key])
    return None


def frames(documents: Iterable[bytes]) -> bytes:
    """The framed wire bytes of ``documents`` (tests and clients)."""
    return b"".join(len(d).to_bytes(4, "big") + d for d in documents)
