"""ACPC matches over HTTP, mounted by the web front end at ``/acpc``:

- ``POST /acpc/matches`` ``{"game", "players", "hands", "duplicate", "strict",
  "seed", "allow"}`` creates a match; the answer (201) has its ``id``, its ``ports``
  (one per ``acpc`` player, in order, as the competition's dealer prints them), each
  program's ``key`` and the addresses that may take its seats (``allow``: the
  creator's by default).  Who may: as creating a game (:mod:`hub.connections.access`: loopback, or the
  API token).
- ``GET /acpc/matches``: every match; ``GET /acpc/matches/<id>``: one, with its
  results (total, mbb/hand and its 95% confidence interval per player);
  ``GET /acpc/matches/<id>/log``: its log in the dealer's format (``text/plain``):
  while the match runs only for admins, or a program's own lines for its key
  (``Authorization: Bearer <key>``); for everyone once it is over (:mod:`.logs`).

Every request is checked by the web front end's :class:`hub.connections.access.Access`, as every
other route: the door header, tokens and loopback mean the same here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from twisted.internet import defer
from twisted.logger import Logger
from twisted.protocols.basic import FileSender
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET

from hub.connections import fields
from hub.connections.access import Access, challenge
from hub.interfaces import IHub
from hub.model import GameError

from .match import Match, Matches

#: the largest request body read
MAX_BODY = 16 * 1024


def _send(request: Any, status: int, payload: Any) -> bytes:
    request.setResponseCode(status)
    request.setHeader(b"content-type", b"application/json; charset=utf-8")
    request.setHeader(b"cache-control", b"no-store")
    if status == 401:
        challenge(request)
    return json.dumps(payload).encode() + b"\n"


def _bearer(request: Any) -> str | None:
    sent = request.getHeader(b"authorization") or b""
    if not sent.startswith(b"Bearer "):
        return None
    return sent[len(b"Bearer ") :].strip().decode("latin-1")


class MatchesResource(Resource):
    """``/acpc/matches[/<id>[/log]]`` (see the module).

    :param hub: the hub (an :class:`hub.interfaces.IHub`).
    :param matches: the hub's matches (:func:`hub.frontends.acpc.matches_of`).
    :param access: the web front end's access check.
    """

    isLeaf = True
    log = Logger()

    def __init__(self, hub: IHub, matches: Matches, access: Access) -> None:
        super().__init__()
        self.hub = hub
        self.matches = matches
        self.access = access

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
                match = self.matches.get(path[1])
                return self._send_file(request, self._log(request, match), match.log_path)
        except GameError as e:
            return _send(request, e.code, {"error": e.reason})
        return _send(request, 404, {"error": "no such resource"})

    def _log(self, request: Any, match: Match) -> Path:
        """The file of the log as ``request`` may read it (see the module).

        :raises hub.model.GameError: 401/403 not allowed.
        """
        if not match.over:
            own = match.log_file_for(_bearer(request))
            if own is not None:
                return Path(own)
            self.access.caller(request).require_admin("the log of a match in play")
        return Path(match.log_path)

    def _send_file(self, request: Any, path: Path, public: Path) -> Any:
        """Stream ``path`` (a log may be large: never read whole); a program's own
        file gone because the match just ended is the public log now.

        :raises hub.model.GameError: 404, no log yet.
        """
        try:
            file = open(path, "rb")  # noqa: SIM115 - closed when sent
        except FileNotFoundError:
            try:
                file = open(public, "rb")  # noqa: SIM115 - closed when sent
            except FileNotFoundError:
                raise GameError("the match has not started: no log yet", 404) from None
        request.setHeader(b"content-type", b"text/plain; charset=us-ascii")
        request.setHeader(b"cache-control", b"no-store")
        gone: list[bool] = []
        request.notifyFinish().addErrback(lambda _: gone.append(True))

        def sent(_: Any) -> None:
            file.close()
            if not gone:
                request.finish()

        d = FileSender().beginFileTransfer(file, request)
        d.addBoth(sent)
        d.addErrback(lambda f: self.log.failure("acpc: sending a log", f))
        return NOT_DONE_YET

    def render_POST(self, request: Any) -> Any:  # noqa: N802
        """Create a match (201 with its JSON)."""
        if self._path(request) != ["matches"]:
            return _send(request, 404, {"error": "no such resource"})
        try:  # the caller's session cookie may be looked up first (503)
            caller = self.access.caller(request)
            caller.require_writer("creating matches")
        except GameError as e:
            return _send(request, e.code, {"error": e.reason})
        body = request.content.read(MAX_BODY + 1)
        if len(body) > MAX_BODY:
            return _send(request, 413, {"error": f"the body is larger than {MAX_BODY} bytes"})
        try:  # bounded depth, scalar strings (hub.connections.fields)
            spec = fields.loads(body or b"{}")
        except fields.FieldError as e:
            return _send(request, 400, {"error": e.reason})
        d = defer.ensureDeferred(self.matches.create(spec, caller.address))
        gone: list[bool] = []
        request.notifyFinish().addErrback(lambda _: gone.append(True))

        def done(match: Match) -> None:
            if not gone:
                request.write(_send(request, 201, match.created_json()))
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
