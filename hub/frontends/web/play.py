"""Web play: browser sessions taking seats, acting, leaving; bots in open seats; live
streams; game types.  A person's seat is a real seat of the lobby game (kind
``human``): the same engine, timers and transcript as a network client's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from twisted.internet import defer
from twisted.logger import Logger
from twisted.web.server import NOT_DONE_YET

from hub.connections.access import Access, client_host
from hub.connections.chat import LOBBY
from hub.connections.limits import Buckets, creation_limits
from hub.connections.transcript import owner_token
from hub.interfaces import IGameOptions, IHub
from hub.model import OVER, WAITING, GameError
from hub.play.money import plays_for_chips
from hub.store.websessions import WebSessionMixin

from . import transcripts
from .api import JSONResource, game_fields, read_json, send_error
from .events import GameStream, LobbyStream, Streams
from .limits import web_endpoint
from .listing import GameIndex
from .lookups import LookupLimits
from .proxy import DOOR_HEADER, GameProxy
from .scripts import history_url, read_rules, rules_path, script_url, styles_url
from .sessions import MAX_SESSIONS, Session, Sessions, WebSessionStore, check_origin


def web_session_store(hub: IHub) -> WebSessionStore | None:
    """The hub's store where it keeps web sessions (an SQL store), or ``None``."""
    return hub.store if isinstance(hub.store, WebSessionMixin) else None


def served_over_tls(hub: IHub) -> bool:
    """Whether the web front end listens with TLS (its cookies then say ``Secure``)."""
    if hub.options.get("web_secure_cookies"):
        return True
    return web_endpoint(hub).lower().startswith(("ssl:", "tls:"))


class WebFrontend:
    """The state of one web front end: sessions, streams, finished games.

    :param hub: the hub service.
    :param clock: ``IReactorTime`` (the hub's reactor).
    """

    log = Logger()
    #: finished games kept in memory for ``/history`` when the store keeps none
    HISTORY_LIMIT = 1000
    #: past events a game page gets when it opens
    SNAPSHOT_EVENTS = 500

    def __init__(self, hub: IHub, clock: Any) -> None:
        self.hub = hub
        self.clock = clock
        self.sessions = Sessions(
            clock,
            secure=served_over_tls(hub),
            store=web_session_store(hub),
            limits=LookupLimits.from_options(hub.options),
            most=int(hub.options.get("web_max_sessions", MAX_SESSIONS)),
        )
        #: the one access check of every route (:mod:`hub.connections.access`)
        self.access = Access(hub.options, self.sessions)
        self.proxy = GameProxy(hub, self.sessions)
        heartbeat = float(hub.options.get("web_heartbeat", 15.0))
        #: the lobby list, indexed for ``GET /api/games`` in O(page) (:mod:`.listing`)
        self.listing = GameIndex(hub, lambda: [f.name for f in hub.registry.game_types()])
        self.streams = Streams(hub, clock, self.snapshot, heartbeat=heartbeat)
        self.streams.index = self.listing
        self.finished: list[dict[str, Any]] = []
        self.history_limit = int(hub.options.get("web_history_limit", self.HISTORY_LIMIT))
        self.create_limits = creation_limits(hub.options, clock)
        self.chat_limits = Buckets(
            clock,
            float(hub.options.get("web_chat_rate", 5)),
            float(hub.options.get("web_chat_burst", 50)),
        )
        hub.lobby.on_game_over(self._game_over)
        restoring = defer.ensureDeferred(self.sessions.restore())
        restoring.addErrback(
            lambda f: self.log.warn("web sessions not restored: {e}", e=f.getErrorMessage())
        )

    def refuse_stream(self, request: Any) -> bytes | None:
        """A 503 answer when the hub already serves ``web_max_streams`` streams, or
        ``web_max_streams_per_address`` to this client's address."""
        limit = int(self.hub.options.get("web_max_streams", 1000))
        per_address = int(self.hub.options.get("web_max_streams_per_address", 128))
        address = str(client_host(request) or "")
        if len(self.streams) >= limit:
            reason = "too many live streams; try again later"
        elif self.streams.from_address(address) >= per_address:
            reason = f"too many live streams from {address}; close some first"
        else:
            return None
        request.setHeader(b"retry-after", b"10")
        return send_error(request, 503, reason)

    def may_create(self, request: Any, account: str | None) -> None:
        """Count one game created by ``account`` from this client's address.

        :raises hub.model.GameError: 429 over ``create_rate``/``create_burst``.
        """
        address = str(client_host(request) or "")
        keys = [f"address:{address}"] + ([f"account:{account.lower()}"] if account else [])
        _limit(request, self.create_limits, keys, "too many games created")

    def may_chat(self, request: Any) -> None:
        """Count one chat line from this client's address (each speaker has the chat
        service's own limit too; this one holds for the many guest names one address
        can take).

        :raises hub.model.GameError: 429 over ``web_chat_rate``/``web_chat_burst``.
        """
        address = str(client_host(request) or "")
        _limit(request, self.chat_limits, [f"address:{address}"], "too many chat lines")

    def stop(self) -> None:
        """Close every stream (the front end stops)."""
        self.streams.close_all()
        self.listing.close()

    # -- what pages see --------------------------------------------------------------

    def snapshot(
        self, game: Any, seat: int | None, player: str | None = None, full: bool = False
    ) -> dict[str, Any]:
        """The game, the view from ``seat``, its legal actions and whose turn it is
        (``turn`` with the server's ``deadline`` and the ``timeleft_ms`` as of now, or
        ``None``); ``full`` adds the events so far that ``seat`` (held by ``player``)
        may see and the table's chat."""
        legal: list[Any] = []
        if seat is not None and game.state != OVER:
            legal = list(game.legal_actions(seat))
        data = {
            "game": self.hub.game_json(game),
            "view": game.view(seat),
            "seat": seat,
            "legal": legal,
            "turn": game.current_turn(),
        }
        if full:
            events = game.events_for(seat, player)[-self.SNAPSHOT_EVENTS :]
            data["events"] = [e.to_json(game.created) for e in events]
            data["chat"] = [line.to_json() for line in self.hub.chat.history(game.id)]
        return data

    def seat_of(self, session: Session | None, game: Any) -> int | None:
        """The seat ``session`` holds in ``game`` (and still sits in), or ``None``."""
        if session is None:
            return None
        seat = session.seats.get(game.id)
        if seat is None and (session.account is not None or session.restored):
            # an account's web seat stays its own after logging out and in again (a
            # guest's is found only through the session that took it, or its cookie
            # kept across a restart: another guest may draw the same random name)
            found = game.seat_of(session.name)
            back = [i for i, name in game.awaiting.items() if name == session.name]
            if found is None and back and game.seats[back[0]].kind == "human":
                # a web seat of a resumed game: the page is back at it (not an XML one)
                found = game.come_back(session.name, "human", back[0])
            if found is not None and game.seats[found].kind == "human":
                seat = session.seats[game.id] = found
        if seat is None or not 0 <= seat < len(game.seats):
            return None
        record = game.seats[seat]
        if record.player != session.name or not record.present:
            session.seats.pop(game.id, None)  # the seat was left, reopened or taken over
            return None
        return seat

    # -- history ---------------------------------------------------------------------

    def _game_over(self, game: Any, event: Any) -> None:
        result = dict(event.data.get("result") or game.result() or {})
        players = game.seat_results(result)
        self.finished.insert(
            0,
            {
                "game_id": game.id,
                "type": game.type,
                "variant": game.variant,
                "name": game.name,
                "started": game.created,
                "finished": game.finished or self.clock.seconds(),
                "summary": result.get("summary"),
                "result": result,
                "players": players,
            },
        )
        del self.finished[self.history_limit :]


def _limit(request: Any, buckets: Buckets, keys: list[str], what: str) -> None:
    """Take a token of each of ``keys``, or refuse with 429 and ``Retry-After``."""
    if not buckets.allow(*keys):
        wait = int(max(buckets.wait(k) for k in keys)) + 1
        request.setHeader(b"retry-after", str(wait).encode())
        raise GameError(f"{what}; try again in {wait} s", 429)


def needs_account(game: Any) -> bool:
    """Whether a person must be logged in to sit in ``game`` (its chips are an account's)."""
    return type_needs_account(game.factory)


def type_needs_account(factory: Any) -> bool:
    """Whether people must be logged in to sit at games of this factory's type: those
    whose chips the hub's table money keeps in the ledger."""
    return plays_for_chips(factory)


def declared_options(factory: Any) -> list[Any]:
    """The options a game factory declares (:class:`hub.interfaces.IGameOptions`)."""
    return list(factory.options) if IGameOptions.providedBy(factory) else []


def _json_safe(data: Any) -> Any:
    return json.loads(json.dumps(data, default=str))


class WebResource(JSONResource):
    """A JSON resource that knows the web front end's sessions."""

    def __init__(self, hub: IHub, web: WebFrontend) -> None:
        super().__init__(hub, web.access)
        self.web = web

    def session_for_write(self, request: Any, required: bool = True) -> Session | None:
        """Check a write: same-site origin and, with a session cookie, its CSRF token.

        :raises hub.model.GameError: 403 on a bad origin or token, 401 when a session
            is ``required`` and there is none.
        """
        check_origin(request)
        session = self.web.sessions.find(request)
        if session is not None:
            self.web.sessions.check_csrf(request, session)
        elif required:
            raise GameError("no session: reload the page (cookies must be enabled)", 401)
        return session

    def reader(self, request: Any) -> tuple[bool, frozenset[str]]:
        """Who reads: the API token or an admin session is an admin; a session's
        own lines are its owner's."""
        admin = self.caller(request).admin
        session = self.web.sessions.find(request)
        if session is None:
            return admin, frozenset()
        return admin, frozenset({owner_token(session.owner)})

    def body(self, request: Any) -> dict[str, Any]:
        """The request's JSON object body (``{}`` when empty).

        :raises hub.model.GameError: 400, not a JSON object; 413, too large.
        """
        request.content.seek(0)
        if not request.content.read(1):
            return {}
        found = read_json(request)
        if not isinstance(found, dict):
            raise GameError("the body must be a JSON object", 400)
        return found

    def may_manage(self, request: Any, what: str = "creating games") -> None:
        """Creating games and seating bots: a logged-in session, loopback or the token.

        :raises hub.model.GameError: 401 without any of them.
        """
        self.caller(request).require_manager(what)


class WebGames(WebResource):
    """``/api/games``: ``GET`` the list, one game, its ``transcript`` (by permission),
    ``replay`` and ``events``; ``POST`` a new game (the one path that creates games over
    HTTP, for pages and API clients alike) and the web-play writes on one game:
    ``seats``, ``actions``, ``leave``, ``bots``, ``chat``."""

    isLeaf = True

    def render(self, request: Any) -> Any:
        """Stream a transcript or the events; everything else is JSON.  A game of
        another hub: its owner answers (:mod:`.proxy`); one this hub has not heard of
        is looked up in the cluster's directory first (another hub may have made it a
        moment ago)."""
        if request.method == b"GET" and not any(request.postpath):
            return self.web.listing.serve(request)  # the list: a page, from the index
        return self._render(request, look=True)

    def _render(self, request: Any, look: bool) -> Any:
        parts = [p for p in request.postpath if p]
        if request.method == b"GET" and not parts:
            return self.web.listing.serve(request)  # the list: a page, from the index
        if request.method == b"POST" and not parts:
            placed = self._placed(request)
            if placed is not None:
                return placed
        game_id = parts[0].decode("utf-8", "replace") if parts else None
        if look and game_id is not None and self.web.proxy.unknown(game_id):
            return self._looked_up(request, game_id)
        remote = self.web.proxy.route(game_id) if game_id is not None else None
        if remote is not None:
            if request.method != b"GET":
                try:
                    self.session_for_write(request, required=False)  # the door's own check
                except GameError as e:
                    return send_error(request, e.code, e.reason)
            return self.web.proxy.serve(request, *remote)
        if request.method == b"GET" and len(parts) == 2 and parts[1] == b"transcript":
            try:
                admin, owners = self.reader(request)  # 503 while its cookie is looked up
                return transcripts.serve(
                    self.hub, request, parts[0].decode("utf-8", "replace"), admin, owners
                )
            except GameError as e:
                return send_error(request, e.code, e.reason)
        if request.method == b"GET" and len(parts) == 2 and parts[1] == b"events":
            try:
                game = self.hub.lobby.get(parts[0].decode("utf-8", "replace"))
            except GameError as e:
                return send_error(request, e.code, e.reason)
            refused = self.web.refuse_stream(request)
            if refused is not None:
                return refused
            try:
                session = self.web.sessions.find(request)
            except GameError as e:
                return send_error(request, e.code, e.reason)
            seat = self.web.seat_of(session, game)
            player = session.name if session is not None and seat is not None else None
            conn = f"web:{player}" if player is not None else None
            owner = session.owner if session is not None and seat is not None else None
            viewer = session.name if session is not None else None
            GameStream(request, self.web.streams, game, seat, conn, player, owner, viewer)
            return NOT_DONE_YET
        return super().render(request)

    def _looked_up(self, request: Any, game_id: str) -> Any:
        """Answer ``request`` once the directory was asked for ``game_id``."""

        def again(_: Any) -> None:
            if request.finished or request._disconnected:
                return
            body = self._render(request, look=False)
            if body is not NOT_DONE_YET:
                request.write(body)
                request.finish()

        d = self.hub.lobby.find(game_id)
        d.addBoth(again)
        d.addErrback(lambda f: self.log.failure("web: answering after a lookup failed", f))
        return NOT_DONE_YET

    def _placed(self, request: Any) -> Any:
        """A new game that goes to another hub (its ``hub`` field, else the cluster's
        least loaded live hub): that hub answers, through :mod:`.proxy`.  ``None``:
        it is made here.  Unnamed, it stays here when only this hub would let its
        creator make it (no API token: loopback, a logged-in session of this hub)."""
        if request.getHeader(DOOR_HEADER) is not None:
            return None  # placed by the hub that passed it on
        try:
            body = read_json(request)
            named = body.get("hub") if isinstance(body, dict) else None
            if named is not None and not isinstance(named, str):
                raise GameError("'hub' is the id of a hub of the cluster", 400)
            if named is None and not self.has_api_token(request):
                return None  # it stays here: the other hubs would not take it without the token
            elsewhere = self.hub.place(named)
            if elsewhere is None:
                return None
            if "web" not in elsewhere.routes:
                if named is None:
                    return None
                raise GameError(f"{elsewhere.reason}: it has no web front end to ask", 409)
            self.session_for_write(request, required=False)  # the door's own check
        except GameError as e:
            return send_error(request, e.code, e.reason)
        rest = {k: v for k, v in body.items() if k != "hub"}
        raw = json.dumps(rest).encode("utf-8")
        owner = elsewhere.hub

        def answered(status: int, answer: bytes) -> None:  # in this hub's view at once
            cluster = self.hub.cluster
            if status == 201 and cluster is not None:
                cluster.adopt(json.loads(answer), owner)

        return self.web.proxy.serve(request, elsewhere.routes["web"], owner, raw, answered)

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"GET": self.json_GET, "POST": self.json_POST, "DELETE": self.json_DELETE}

    def json_GET(self, request: Any) -> Any:
        """The list, one game, or its replay."""
        parts = [p for p in request.postpath if p]
        lobby = self.hub.lobby
        if len(parts) == 1:
            return 200, self.hub.game_json(lobby.get(parts[0].decode("utf-8", "replace")), True)
        if len(parts) == 2 and parts[1] == b"replay":
            return self._replay(parts[0].decode("utf-8", "replace"))
        raise GameError("no such resource", 404)

    def _replay(self, game_id: str) -> Any:
        """A game's replay (public events only): from the lobby while it is listed and
        not retired, else from the store; none of a sealed game."""
        if game_id in self.hub.lobby.sealed:
            raise GameError(f"no game with id {game_id[:40]!r}", 404)
        try:
            game = self.hub.lobby.get(game_id)
        except GameError:
            game = None
        replay = None if game is None else game.replay()
        if replay is not None:
            replay["script"] = script_url(game.factory)
            replay["styles"] = styles_url(game.factory)
            return 200, _json_safe(replay)
        store = self.hub.store
        if store is None:
            if game is not None:  # retired: only a summary of it is kept
                raise GameError(f"the replay of game {game_id[:40]!r} is no longer kept", 404)
            raise GameError(f"no game with id {game_id[:40]!r}", 404)

        def found(replay: Any) -> Any:
            if replay is None:
                raise GameError(f"no replay of game {game_id[:40]!r}", 404)
            try:
                factory = self.hub.registry.game_factory(replay["game"]["type"])
                replay["script"] = script_url(factory)
                replay["styles"] = styles_url(factory)
            except (GameError, KeyError, TypeError):
                replay["script"] = replay["styles"] = None
            return 200, replay

        return defer.maybeDeferred(store.replay, game_id).addCallback(found)

    def json_POST(self, request: Any) -> Any:
        """Create a game, or a web-play write on one game."""
        parts = [p.decode("utf-8", "replace") for p in request.postpath if p]
        if not parts:
            session = self.session_for_write(request, required=False)
            self.may_manage(request)
            return self._create(request, session)
        if len(parts) != 2:
            raise GameError("no such resource", 404)
        game = self.hub.lobby.get(parts[0])
        handler = {
            "seats": self._take_seat,
            "actions": self._act,
            "leave": self._leave,
            "bots": self._add_bot,
            "chat": self._chat,
        }.get(parts[1])
        if handler is None:
            raise GameError("no such resource", 404)
        return handler(request, game)

    def _create(self, request: Any, session: Session | None) -> Any:
        self.web.may_create(request, session.account if session is not None else None)
        body = read_json(request)
        if not isinstance(body, dict):
            raise GameError("the body must be a JSON object", 400)
        unknown = set(body) - {
            "type", "name", "variant", "seats", "options", "sit", "rated", "hub",
            "bots_only", "broke_bots",
        }  # fmt: skip
        if unknown:
            raise GameError(f"unknown field(s): {', '.join(sorted(unknown))}", 400)
        if "type" not in body:
            raise GameError("'type' is required (a game type name)", 400)
        name = body.get("name")
        if isinstance(name, str) and not name.strip():
            name = None
        game_fields({**body, "name": name})
        sit = body.get("sit")
        if sit is not None:
            if not isinstance(sit, int) or isinstance(sit, bool):
                raise GameError("'sit' is the number of the seat you take", 400)
            if session is None:
                raise GameError("no session: reload the page (cookies must be enabled)", 401)
            seats = body.get("seats")
            if not isinstance(seats, list) or not 0 <= sit < len(seats) or seats[sit] != "human":
                raise GameError("'sit' must name a 'human' seat of 'seats'", 400)
            if isinstance(body["type"], str) and session.account is None:
                factory = self.hub.registry.game_factory(body["type"])
                if type_needs_account(factory):
                    raise GameError(
                        f"log in to sit at a {body['type']} table: the chips come from your"
                        " account",
                        401,
                    )
        return defer.ensureDeferred(self._create_game(body, name, session, sit))

    async def _create_game(
        self, body: Mapping[str, Any], name: Any, session: Session | None, sit: int | None
    ) -> tuple[int, dict[str, Any]]:
        # through the hub: a chip table's bots are funded, its creator buys in
        game = await self.hub.create_game(
            body["type"],
            name=name,
            variant=body.get("variant") or None,
            seats=body.get("seats"),
            options=body.get("options"),
            creator=session.name if session is not None else "api",
            seat_bots=sit is None,
            rated=body.get("rated"),
            bots_only=body.get("bots_only", False),
            broke_bots=body.get("broke_bots", "leave"),
        )
        if session is not None:
            session.made(game.id)
        if sit is None:
            return 201, self.hub.game_json(game)
        assert session is not None
        # the creator sits down before the bots do, so the game does not start without them
        try:
            _, answer = await self._seat_session(session, game, sit, None)
            await self.hub.seat_bots(game)
        except BaseException:
            self.hub.lobby.remove(game.id)  # at a chip table every chip goes back
            session.seats.pop(game.id, None)
            raise
        return 201, {**self.hub.game_json(game), "seat": answer["seat"]}

    def json_DELETE(self, request: Any) -> Any:
        """Cancel a game that waits for players: by its creator (the browser session
        that made it, or a logged-in account of that name), an admin or the API token
        (loopback too, for the games the API made); 401 without credentials, 403 with
        others'; refused (409) once it runs or while another person sits in it.  A chip table's
        chips go back to their accounts as when any table is removed."""
        parts = [p.decode("utf-8", "replace") for p in request.postpath if p]
        if len(parts) != 1:
            raise GameError("DELETE /api/games/<id> cancels a game", 404)
        session = self.session_for_write(request, required=False)
        game = self.hub.lobby.get(parts[0])
        self._require_creator(request, session, game, "cancelling a game")
        if game.state != WAITING:
            raise GameError(f"the game is {game.state}: only a waiting game is cancelled", 409)
        others = [
            s.player
            for s in game.seats
            if s.player and s.present and s.kind != "bot" and s.player != game.creator
        ]
        if others:
            raise GameError(f"{', '.join(others)} sit(s) here: the game is not yours alone", 409)
        who = session.name if session is not None else "api"
        if game.transcript is not None:
            game.transcript.note(f"cancelled by {who}")
        self.log.info("web: game {game} cancelled by {who}", game=game.id, who=who)
        self.hub.lobby.remove(game.id)
        if session is not None:
            session.seats.pop(game.id, None)
        return 200, {"cancelled": game.id}

    def _my_seat(self, session: Session, game: Any) -> int:
        seat = self.web.seat_of(session, game)
        if seat is None:
            raise GameError(f"you ({session.name}) have no seat in game {game.id}", 409)
        return seat

    def _take_seat(self, request: Any, game: Any) -> Any:
        session = self.session_for_write(request)
        assert session is not None
        body = self.body(request)
        wanted = body.get("seat")
        if wanted is not None and (not isinstance(wanted, int) or isinstance(wanted, bool)):
            raise GameError("'seat' must be a seat number or null", 400)
        return self._seat_session(session, game, wanted, body.get("amount"))

    def _seat_session(self, session: Session, game: Any, wanted: Any, amount: Any) -> Any:
        """Seat the browser's player (through the hub: at a chip table the buy-in moves
        from the account first) → (200, …)."""
        if session.account is None and needs_account(game):
            raise GameError(
                f"log in to sit at a {game.type} table: the chips come from your account", 401
            )
        # at a chip table the buy-in moves from the account before the seat is taken
        d = defer.ensureDeferred(
            self.hub.take_seat(game, session.name, wanted, kind="human", buyin=amount)
        )

        def seated(seat: int) -> tuple[int, dict[str, Any]]:
            session.seats[game.id] = seat
            return 200, {"seat": seat, "game": self.hub.game_json(game)}

        return d.addCallback(seated)

    def _act(self, request: Any, game: Any) -> Any:
        session = self.session_for_write(request)
        assert session is not None
        body = self.body(request)
        action = body.get("action")
        if not isinstance(action, Mapping):
            raise GameError('the body must be {"action": {...}}', 400)
        seat = self._my_seat(session, game)
        text = json.dumps(action, separators=(",", ":"))[:2000]
        conn = f"web:{session.name}"
        if game.transcript is not None:
            game.transcript.record(conn, "in", f"seat {seat} action {text}", owner=session.owner)

        def act(_: object) -> tuple[int, dict[str, Any]]:  # on an up-to-date game
            try:
                game.act(seat, dict(action))
            except GameError as e:
                if game.transcript is not None:
                    game.transcript.record(
                        conn, "out", f"refused ({e.code}): {e.reason}", owner=session.owner
                    )
                raise
            legal = [] if game.state == OVER else list(game.legal_actions(seat))
            return 200, {"ok": True, "seat": seat, "legal": _json_safe(legal)}

        return game.caught_up().addCallback(act)

    def _leave(self, request: Any, game: Any) -> Any:
        session = self.session_for_write(request)
        assert session is not None
        seat = self._my_seat(session, game)
        self.hub.leave_seat(game, seat)
        session.seats.pop(game.id, None)
        return 200, {"left": seat, "game": self.hub.game_json(game)}

    def _chat(self, request: Any, game: Any) -> Any:
        session = self.session_for_write(request)
        assert session is not None
        self.web.may_chat(request)
        line = say(self.hub, game.id, session, self.body(request))
        if game.transcript is not None:  # as the XML front end records its chat frames
            game.transcript.record(
                f"web:{session.name}", "in", f"chat {line['text']}", owner=session.owner
            )
        return 200, line

    def _require_creator(self, request: Any, session: Session | None, game: Any, what: str) -> None:
        """Only the game's creator (the browser session that made it, or a logged-in
        account of that name), an admin or the API token (loopback too, for the games
        the API made) may do ``what``.

        :raises hub.model.GameError: 401 without credentials, 403 with others'.
        """
        caller = self.caller(request)
        mine = (
            session is not None
            and game.creator == session.name
            and (session.account is not None or game.id in session.created)
        )
        # the token (or loopback) made the games of the API: it may manage those
        ours = caller.admin or (caller.writer and game.creator == "api")
        if not (mine or ours):
            if session is not None and not caller.bad_token:  # known, but not its creator
                raise GameError(f"{what}: only the game's creator or an admin may", 403)
            raise caller.refuse(what, "its creator's session, an admin's or the hub's API token")

    def _add_bot(self, request: Any, game: Any) -> Any:
        session = self.session_for_write(request, required=False)
        self.may_manage(request, "seating bots")
        self._require_creator(request, session, game, "seating a bot")
        body = self.body(request)
        seat, bot = body.get("seat"), body.get("bot")
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise GameError("'seat' must be a seat number", 400)
        if not isinstance(bot, str):
            raise GameError("'bot' must be a bot name", 400)
        d = defer.ensureDeferred(self.hub.add_bot(game, bot, seat, body.get("amount")))
        return d.addCallback(
            lambda seated: (
                200,
                {"seat": seated[0], "player": seated[1], "game": self.hub.game_json(game)},
            )
        )


def say(hub: IHub, room: str, session: Session, body: Mapping[str, Any]) -> dict[str, Any]:
    """A browser's chat line ``{"text": ...}`` in ``room`` (the hub's chat service)."""
    line = hub.chat.say(room, session.name, body.get("text"), guest=session.account is None)
    return line.to_json()


class LobbyChat(WebResource):
    """``POST /api/chat`` ``{"text"}``: a line in the lobby's chat."""

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"POST": self.json_POST}

    def json_POST(self, request: Any) -> Any:
        """Say it (any session: guests are marked as such)."""
        session = self.session_for_write(request)
        assert session is not None
        self.web.may_chat(request)
        body = read_json(request)
        if not isinstance(body, dict):
            raise GameError('the body must be {"text": "..."}', 400)
        return 200, say(self.hub, LOBBY, session, body)


class LobbyEvents(WebResource):
    """``GET /api/lobby/events``: the live game list: its snapshot is the page of
    ``GET /api/games`` the same query asks for, then every change (changes only)."""

    def render(self, request: Any) -> Any:
        """Open a lobby stream."""
        if request.method != b"GET":
            return send_error(request, 405, "GET the lobby's event stream")
        refused = self.web.refuse_stream(request)
        if refused is not None:
            return refused
        try:
            query = self.web.listing.query(request.args)
        except GameError as e:
            return send_error(request, e.code, e.reason)
        LobbyStream(request, self.web.streams, query)
        return NOT_DONE_YET


class Types(WebResource):
    """``GET /api/types``: the loaded game types, with the bots that play each."""

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"GET": self.json_GET}

    def json_GET(self, request: Any) -> Any:
        """Game types for the lobby's type list and create form."""
        registry = self.hub.registry
        bots = list(registry.bots())
        types = []
        for factory in registry.game_types():
            types.append(
                {
                    "name": factory.name,
                    "summary": factory.summary,
                    "variants": list(factory.variants),
                    "min_seats": factory.min_seats,
                    "max_seats": factory.max_seats,
                    "default_seats": factory.default_seats,
                    "frontends": list(factory.frontends),
                    "bots": [b.name for b in bots if factory.name in tuple(b.games)],
                    "needs_account": type_needs_account(factory),
                    "script": script_url(factory),
                    "styles": styles_url(factory),
                    "history": history_url(factory),
                    "rules": f"/rules/{factory.name}" if rules_path(factory) else None,
                    "options": [o.to_json() for o in declared_options(factory)],
                }
            )
        return 200, {
            "types": types,
            "bots": [{"name": b.name, "summary": b.summary, "games": list(b.games)} for b in bots],
            "ports": dict(self.hub.bound_ports),
        }


class Rules(WebResource):
    """``GET /api/rules/<type>``: the rules a game's plugin ships (``IGameRules``)."""

    isLeaf = True

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"GET": self.json_GET}

    def json_GET(self, request: Any) -> Any:
        """``{type, summary, text}``; 404 for an unknown type or one without rules."""
        parts = [p.decode("utf-8", "replace") for p in request.postpath if p]
        if len(parts) != 1:
            raise GameError("ask for /api/rules/<game type>", 404)
        factory = self.hub.registry.game_factory(parts[0])
        text = read_rules(factory)
        if text is None:
            raise GameError(f"the plugin of {factory.name} ships no rules", 404)
        return 200, {"type": factory.name, "summary": factory.summary, "text": text}
