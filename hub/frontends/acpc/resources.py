"""ACPC matches over HTTP, mounted by the web front end at ``/acpc``:

- ``POST /acpc/matches`` ``{"game", "players", "hands", "duplicate", "strict",
  "seed"}`` creates a match; the answer (201) has its ``id`` and ``ports``: one per
  ``acpc`` player, in order, as the competition's dealer prints them.  Open from
  loopback; from other hosts it needs ``Authorization: Bearer <--api-token>``.
- ``GET /acpc/matches``: every match; ``GET /acpc/matches/<id>``: one, with its
  results (total, mbb/hand and its 95% confidence interval per player);
  ``GET /acpc/matches/<id>/log``: its log in the dealer's format (``text/plain``).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from typing import Any

from twisted.internet import defer
from twisted.logger import Logger
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET

from hub.model import GameError

#: the largest request body read
MAX_BODY = 16 * 1024


def _send(request: Any, status: int, payload: Any) -> bytes:
    request.setResponseCode(status)
    request.setHeader(b"content-type", b"application/json; charset=utf-8")
    return json.dumps(payload).encode() + b"\n"


def _loopback(request: Any) -> bool:
    host = getattr(request.getClientAddress(), "host", None)
    if host is None:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class MatchesResource(Resource):
    """``/acpc/matches[/<id>[/log]]`` (see the module)."""

    isLeaf = True
    log = Logger()

    def __init__(self, hub: Any, matches: Any) -> None:
        super().__init__()
        self.hub = hub
        self.matches = matches

    def _path(self, request: Any) -> list[str]:
        return [p.decode("utf-8", "replace") for p in request.postpath if p]

    def render_GET(self, request: Any) -> bytes:  # noqa: N802
        """A list, a match or a match's log."""
        path = self._path(request)
        try:
            if path == ["matches"]:
                return _send(request, 200, [m.to_json() for m in self.matches.matches.values()])
            if len(path) == 2 and path[0] == "matches":
                return _send(request, 200, self.matches.get(path[1]).to_json())
            if len(path) == 3 and path[0] == "matches" and path[2] == "log":
                text = self.matches.get(path[1]).log_text()
                if text is None:
                    raise GameError("the match has not started: no log yet", 404)
                request.setHeader(b"content-type", b"text/plain; charset=us-ascii")
                return text.encode("ascii", "replace")
        except GameError as e:
            return _send(request, e.code, {"error": e.reason})
        return _send(request, 404, {"error": "no such resource"})

    def _allowed(self, request: Any) -> bool:
        token = (getattr(self.hub, "options", {}) or {}).get("api_token")
        if token:
            sent = request.getHeader(b"authorization") or b""
            if hmac.compare_digest(sent, f"Bearer {token}".encode()):
                return True
        return _loopback(request)

    def render_POST(self, request: Any) -> Any:  # noqa: N802
        """Create a match (201 with its JSON)."""
        if self._path(request) != ["matches"]:
            return _send(request, 404, {"error": "no such resource"})
        if not self._allowed(request):
            return _send(request, 403, {"error": "creating matches needs an API token"})
        body = request.content.read(MAX_BODY + 1)
        if len(body) > MAX_BODY:
            return _send(request, 413, {"error": f"the body is larger than {MAX_BODY} bytes"})
        try:
            spec = json.loads(body.decode("utf-8") or "{}")
        except (UnicodeDecodeError, ValueError):
            return _send(request, 400, {"error": "the body is not JSON"})
        d = defer.ensureDeferred(self.matches.create(spec))
        gone: list[bool] = []
        request.notifyFinish().addErrback(lambda _: gone.append(True))

        def done(match: Any) -> None:
            if not gone:
                request.write(_send(request, 201, match.to_json()))
                request.finish()

        def failed(failure: Any) -> None:
            if failure.check(GameError):
                status, reason = failure.value.code, failure.value.reason
            else:
                self.log.failure("acpc: creating a match failed", failure)
                status, reason = 500, "the match could not be made"
            if not gone:
                request.write(_send(request, status, {"error": reason}))
                request.finish()

        d.addCallbacks(done, failed)
        d.addErrback(lambda f: self.log.failure("acpc: answering a match request", f))
        return NOT_DONE_YET
