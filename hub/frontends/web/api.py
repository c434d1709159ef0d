"""The JSON API of the web front end (``/api/...``); see spec web.md."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from twisted.internet import defer
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET

from hub.connections import fields
from hub.connections.access import Access, Caller, challenge
from hub.model import GameError
from hub.plugins.distribution import PluginIndexResource

MAX_BODY = 64 * 1024


def send_json(request, status: int, payload: Any) -> bytes:
    """Answer ``request`` with ``payload`` as JSON and status ``status``."""
    request.setResponseCode(status)
    request.setHeader(b"content-type", b"application/json; charset=utf-8")
    request.setHeader(b"cache-control", b"no-store")
    return json.dumps(payload, default=str).encode("utf-8") + b"\n"


def send_error(request, status: int, message: str) -> bytes:
    """Answer with ``{"error": message}`` (kept as ``request.refusal`` for the front
    end's refusal event); a 401 says how to authenticate (``WWW-Authenticate``)."""
    request.refusal = message
    if status == 401:
        challenge(request)
    return send_json(request, status, {"error": message})


def read_json(request) -> Any:
    """The request's JSON body, read by :func:`hub.connections.fields.loads` (bounded depth, every
    string Unicode scalar values).

    :raises hub.model.GameError: 413 when too large, 400 when not such JSON.
    """
    request.content.seek(0)
    body = request.content.read(MAX_BODY + 1)
    if len(body) > MAX_BODY:
        raise GameError(f"the body is larger than {MAX_BODY} bytes", 413)
    return fields.loads(body)


def game_fields(body: dict[str, Any]) -> None:
    """Check the client's strings of a new game's body (name, options) by the rules of
    :mod:`hub.connections.fields`.

    :raises hub.connections.fields.FieldError: one breaks them.
    """
    if body.get("name") is not None:
        fields.GAME_NAME.check(body["name"])
    fields.check_options(body.get("options"))


def query_arg(request, name: str) -> str | None:
    """The first value of the query argument ``name``, or ``None``."""
    values = request.args.get(name.encode())
    return values[0].decode("utf-8", "replace") if values else None


def query_limit(request, default: int, most: int) -> int:
    """The query's ``limit``: a whole number from 1 to ``most`` (``default`` if absent).

    :raises hub.model.GameError: 400, another value.
    """
    text = query_arg(request, "limit") or str(default)
    if not text.isdigit() or not 1 <= int(text) <= most:
        raise GameError(f"limit must be a whole number from 1 to {most}", 400)
    return int(text)


class JSONResource(Resource):
    """A resource whose handlers return JSON-able data or raise ``GameError``; who asks
    is decided by ``access`` (the web front end's :class:`hub.connections.access.Access`, the one
    check of every route; without one: the hub's token and loopback, no sessions)."""

    log = Logger()
    isLeaf = True

    def __init__(self, hub, access: Access | None = None) -> None:
        super().__init__()
        self.hub = hub
        self.access = access if access is not None else Access(hub.options)

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: the resource's dispatch table (none here)."""
        return {}

    def render(self, request) -> bytes | int:
        """Dispatch by :meth:`methods` (``GET`` → ``json_GET``...), mapping errors to
        JSON answers."""
        method = request.method.decode("ascii", "replace")
        table = self.methods()
        handler = table.get(method)
        if handler is None:
            request.setHeader(b"allow", ", ".join(sorted(table)).encode())
            return send_error(request, 405, f"{method} is not allowed here")
        try:
            answer = handler(request)
        except Exception:
            return self._failed(request, Failure())
        if isinstance(answer, defer.Deferred):
            gone: list[bool] = []
            request.notifyFinish().addErrback(lambda _: gone.append(True))

            def reply(body: bytes) -> None:
                if not gone:
                    request.write(body)
                    request.finish()

            answer.addCallback(lambda result: self._answer(request, *result))
            answer.addErrback(lambda failure: self._failed(request, failure))
            answer.addCallback(reply)
            answer.addErrback(lambda f: self.log.failure("JSON API reply failed", f))
            return NOT_DONE_YET
        return self._answer(request, *answer)

    def _failed(self, request, failure: Failure) -> bytes:
        error = failure.value
        if isinstance(error, GameError):
            return send_error(request, error.code, error.reason)
        self.log.failure(
            "JSON API {method} {path} failed", failure, method=request.method, path=request.path
        )
        return send_error(request, 500, "internal error (logged)")

    def _answer(self, request, status: int, payload: Any) -> bytes:
        return send_json(request, status, payload)

    def caller(self, request) -> Caller:
        """Who sent ``request`` (:class:`hub.connections.access.Caller`)."""
        return self.access.caller(request)

    def has_api_token(self, request) -> bool:
        """Whether the request carries the hub's API token (``Authorization: Bearer``;
        see :func:`hub.connections.access.token_digest`)."""
        return self.access.has_token(request)

    def reader(self, request) -> tuple[bool, frozenset[str]]:
        """Who reads: (admin?, owner tokens of the reader's connections)."""
        return self.caller(request).admin, frozenset()

    def require_write_access(self, request, what: str = "creating games") -> None:
        """Writes are open on loopback (unless ``api_require_token``); elsewhere they
        need the API token or an admin session.

        :raises hub.model.GameError: 401 without credentials, 403 with some that are
            not enough.
        """
        self.caller(request).require_writer(what)


class Health(JSONResource):
    """``GET /api/health``."""

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"GET": self.json_GET}

    def json_GET(self, request):
        """Status (``ok``, or ``degraded`` while the store is unavailable: then
        ``store`` is ``down``), bound front-end ports, number of loaded plugins."""
        registry = self.hub.registry
        loaded = len(registry.game_types()) + len(registry.bots())
        return 200, {
            **self.hub.health(),
            "version": self.hub.version,
            "frontends": dict(self.hub.bound_ports),
            "plugins": loaded,
            "games": len(self.hub.lobby),
        }


class API(Resource):
    """``/api``: the JSON API; the web front end mounts the rest of it (``games``,
    ``history``...: :class:`hub.frontends.web.Root`)."""

    def __init__(self, hub) -> None:
        super().__init__()
        self.hub = hub
        self.putChild(b"health", Health(hub))
        self.putChild(b"plugins", PluginIndexResource(hub.registry))

    def getChild(self, path: bytes, request) -> Resource:
        """Unknown API paths answer a JSON 404."""
        return _NotFound(self.hub)


class _NotFound(JSONResource):
    def render(self, request) -> bytes:
        return send_error(request, 404, "no such API resource")
