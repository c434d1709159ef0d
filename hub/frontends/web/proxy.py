"""Another hub's game through this hub's web front end: a small reverse proxy.

In a cluster (docs/cluster.md) ``/api/games/<id>/…`` of a game another hub runs is
served by that hub: :class:`GameProxy` sends the request on to the owner's advertised
web endpoint (``hub.model.Elsewhere.routes["web"]``) and streams the answer back, an
event stream included, with flow control (the owner's response body is the door
request's push producer, so a slow browser pauses the owner's socket).  The game page
itself (``/game/<id>``) is the same on every hub; its script asks the door, which
passes its API calls on.

What is passed on, and nothing more:

- the method, the path and query, the body (already bounded by the door's request
  limits) and ``Content-Type``, ``Accept``, ``Last-Event-ID``;
- ``Authorization`` (the API token) only when the browser sent one: the owner checks
  it against its own; it is never logged;
- not the browser's cookie nor its CSRF token, which are the door's: each door session
  gets a session of its own on the owner (:class:`OwnerSessions`, asked for with
  ``GET /api/session`` the first time), whose cookie and CSRF token the door adds. A
  write is checked by the door first (origin, its own CSRF token).  So a browser's
  seats on a remote game belong to its door session's session on the owner; on the
  owner it plays as a guest of that hub (an account's login stays on its door);
- ``X-Gamehub-Door: <door hub id>``: the owner never treats a proxied request as one
  from its own machine (:class:`hub.connections.access.Caller`, ``loopback``).

A response body other than an event stream is cut at ``web_proxy_max_body`` bytes; the
owner must answer within ``cluster_connect_seconds``; an owner that cannot be reached is
a 502 naming its hub.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable
from io import BytesIO
from typing import Any

from twisted.internet import defer, protocol
from twisted.logger import Logger
from twisted.web.client import (
    Agent,
    BrowserLikePolicyForHTTPS,
    FileBodyProducer,
    HTTPConnectionPool,
)
from twisted.web.http_headers import Headers
from twisted.web.server import NOT_DONE_YET

from hub.model import Elsewhere, GameError, NotFound

from .api import send_error
from .sessions import COOKIE, CSRF_HEADER

#: the header that marks a request passed on by another hub (never loopback there)
DOOR_HEADER = b"x-gamehub-door"
_PASSED_ON = (b"content-type", b"accept", b"last-event-id")
_ANSWERED = (b"content-type", b"cache-control", b"retry-after", b"allow")
_EVENT_STREAM = b"text/event-stream"


def _url(route: tuple[str, int, bool], path: bytes) -> bytes:
    host, port, tls = route
    scheme = "https" if tls else "http"
    return f"{scheme}://{host}:{port}".encode("ascii") + path


class OwnerSessions:
    """Door session → the session it has on each owner hub: ``(cookie, csrf)``; at
    most ``limit`` kept (the least recently used forgotten first)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._known: OrderedDict[tuple[str, str], tuple[bytes, bytes]] = OrderedDict()

    def get(self, door: str, owner: str) -> tuple[bytes, bytes] | None:
        """The owner session of ``door`` on hub ``owner``, if there is one."""
        found = self._known.get((door, owner))
        if found is not None:
            self._known.move_to_end((door, owner))
        return found

    def put(self, door: str, owner: str, cookie: bytes, csrf: bytes) -> None:
        """Keep a new owner session."""
        self._known[(door, owner)] = (cookie, csrf)
        self._known.move_to_end((door, owner))
        while len(self._known) > self.limit:
            self._known.popitem(last=False)


class _Copy(protocol.Protocol):
    """Copies the owner's response body into the door's request (bounded)."""

    def __init__(self, request: Any, limit: int | None, done: defer.Deferred) -> None:
        self.request = request
        self.limit = limit
        self.done = done
        self.size = 0
        self.gone = False

    def connectionMade(self) -> None:
        self.body: Any = self.transport  # the response body's producer
        self.request.registerProducer(self.body, True)
        self.request.notifyFinish().addBoth(self._door_gone)

    def _door_gone(self, _: Any) -> None:
        self.gone = True
        self.body.stopProducing()

    def dataReceived(self, data: bytes) -> None:
        if self.gone:
            return
        self.size += len(data)
        if self.limit is not None and self.size > self.limit:
            self.gone = True
            self.body.stopProducing()
            self.request.unregisterProducer()
            self.request.loseConnection()
            return
        self.request.write(data)

    def connectionLost(self, reason: Any = None) -> None:
        if not self.gone:
            self.gone = True
            self.request.unregisterProducer()
            self.request.finish()
        self.done.callback(None)


class GameProxy:
    """Passes the requests of a remote game's resources on to the hub that runs it.

    :param hub: the hub (``lobby``, ``options``, ``reactor``, ``store.hub_id``).
    :param sessions: the door's browser sessions.
    """

    log = Logger()

    def __init__(self, hub: Any, sessions: Any) -> None:
        self.hub = hub
        self.sessions = sessions
        options = hub.options
        self.timeout = float(options.get("cluster_connect_seconds", 5.0))
        self.max_body = int(options.get("web_proxy_max_body", 4 * 1024 * 1024))
        self.owners = OwnerSessions(int(options.get("web_proxy_sessions", 10_000)))
        self._agent: Any = None

    @property
    def agent(self) -> Any:
        """The HTTP client (made the first time; persistent connections)."""
        if self._agent is None:
            reactor = self.hub.reactor
            pool = HTTPConnectionPool(reactor, persistent=True)
            pool.maxPersistentPerHost = int(self.hub.options.get("web_proxy_connections", 8))
            self._agent = Agent(
                reactor,
                contextFactory=BrowserLikePolicyForHTTPS(),
                connectTimeout=self.timeout,
                pool=pool,
            )
        return self._agent

    def route(self, game_id: str) -> tuple[tuple[str, int, bool], str] | None:
        """``(web route, owner hub id)`` when another hub runs ``game_id``."""
        try:
            self.hub.lobby.get(game_id)
        except Elsewhere as e:
            route = e.routes.get("web")
            return None if route is None else (route, e.hub)
        except GameError:
            return None
        return None

    def door_id(self) -> str:
        """This hub's id, as the owner is told."""
        store = self.hub.store
        return str(store.hub_id or "") if store is not None else ""

    def unknown(self, game_id: str) -> bool:
        """Whether ``game_id`` is no game of this hub's view, and the cluster's
        directory may be asked for it (``lobby.find``)."""
        lobby = self.hub.lobby
        if lobby.look_up is None:
            return False
        try:
            lobby.get(game_id)
        except NotFound:
            return True
        except GameError:
            return False
        return False

    def serve(
        self,
        request: Any,
        route: tuple[str, int, bool],
        owner: str,
        body: bytes | None = None,
        answered: Callable[[int, bytes], None] | None = None,
    ) -> Any:
        """Answer ``request`` with the owner's answer (``NOT_DONE_YET``); ``body``: what
        to send instead of the request's own body; ``answered(status, body)``: called
        with the owner's whole answer (at most ``web_proxy_max_body`` bytes, never an
        event stream) before the door passes it on."""
        d = defer.ensureDeferred(self._serve(request, route, owner, body, answered))

        def failed(failure: Any) -> None:
            if request.finished or request._disconnected:
                return
            error = failure.value
            if isinstance(error, GameError):
                status, reason = error.code, error.reason
            else:
                status = 502
                reason = (
                    f"the hub that runs this game ({owner}) cannot be reached"
                    f" ({type(error).__name__})"
                )
                self.log.warn("web proxy to hub {owner}: {reason}", owner=owner, reason=reason)
            if request.startedWriting:
                request.loseConnection()
                return
            request.write(send_error(request, status, reason))
            request.finish()

        d.addErrback(failed)
        d.addErrback(lambda f: self.log.failure("web proxy: answering failed", f))
        return NOT_DONE_YET

    async def _serve(
        self,
        request: Any,
        route: tuple[str, int, bool],
        owner: str,
        body: bytes | None,
        answered: Callable[[int, bytes], None] | None = None,
    ) -> None:
        headers = Headers({DOOR_HEADER: [self.door_id().encode("ascii")]})
        for name in _PASSED_ON:
            value = request.getHeader(name)
            if value:
                headers.setRawHeaders(name, [value])
        token = request.getHeader(b"authorization")
        if token:
            headers.setRawHeaders(b"authorization", [token])
        session = self.sessions.find(request)
        if session is not None:
            cookie, csrf = await self._owner_session(session.token, route, owner)
            headers.setRawHeaders(b"cookie", [COOKIE + b"=" + cookie])
            headers.setRawHeaders(CSRF_HEADER, [csrf])
        if body is None:
            request.content.seek(0)
            body = request.content.read()
        producer = FileBodyProducer(BytesIO(body)) if body else None
        response = await self._ask(request.method, _url(route, request.uri), headers, producer)
        request.setResponseCode(response.code)
        streaming = False
        for name in _ANSWERED:
            for value in response.headers.getRawHeaders(name, ()):
                request.responseHeaders.addRawHeader(name, value)
                streaming = streaming or value.startswith(_EVENT_STREAM)
        if answered is not None and not streaming:
            whole = await _read(response, self.max_body)
            try:
                answered(response.code, whole)
            except Exception:
                self.log.failure("web proxy: reading the owner's answer failed")
            if not (request.finished or request._disconnected):
                request.write(whole)
                request.finish()
            return
        done: defer.Deferred = defer.Deferred()
        response.deliverBody(_Copy(request, None if streaming else self.max_body, done))
        await done

    async def _ask(self, method: bytes, url: bytes, headers: Headers, body: Any) -> Any:
        d = self.agent.request(method, url, headers, body)
        return await d.addTimeout(self.timeout, self.hub.reactor)

    async def _owner_session(
        self, door: str, route: tuple[str, int, bool], owner: str
    ) -> tuple[bytes, bytes]:
        """The owner session of the door session ``door`` (asked for once)."""
        known = self.owners.get(door, owner)
        if known is not None:
            return known
        headers = Headers({DOOR_HEADER: [self.door_id().encode("ascii")]})
        response = await self._ask(b"GET", _url(route, b"/api/session"), headers, None)
        raw = await _read(response, 65536)
        cookie = b""
        for value in response.headers.getRawHeaders(b"set-cookie", ()):
            first = value.split(b";", 1)[0]
            name, _, token = first.partition(b"=")
            if name.strip() == COOKIE:
                cookie = token.strip()
        try:
            csrf = str(json.loads(raw)["csrf"]).encode("ascii")
        except (ValueError, KeyError, TypeError):
            csrf = b""
        if response.code != 200 or not cookie or not csrf:
            raise GameError(f"the hub that runs this game ({owner}) gave no session", 502)
        self.owners.put(door, owner, cookie, csrf)
        return cookie, csrf


class _Read(protocol.Protocol):
    def __init__(self, limit: int, done: defer.Deferred) -> None:
        self.limit = limit
        self.done = done
        self.parts: list[bytes] = []
        self.size = 0

    def dataReceived(self, data: bytes) -> None:
        self.size += len(data)
        if self.size <= self.limit:
            self.parts.append(data)
        else:
            self.transport.stopProducing()  # type: ignore[union-attr]  # a producer here

    def connectionLost(self, reason: Any = None) -> None:
        if not self.done.called:
            self.done.callback(b"".join(self.parts))


async def _read(response: Any, limit: int) -> bytes:
    """A small response body (at most ``limit`` bytes kept)."""
    done: defer.Deferred = defer.Deferred()
    response.deliverBody(_Read(limit, done))
    return await done
