"""Tournaments over HTTP: ``GET /api/tournaments`` (the list), ``GET
/api/tournaments/<id>`` (one, with rounds, games and standings), ``POST
/api/tournaments`` (create), ``POST /api/tournaments/<id>/entries`` (register) and
``POST /api/tournaments/<id>/start``.  The pages are ``static/tournaments.html`` and
``static/tournament.html``; a tournament's changes stream on ``GET
/api/tournaments/<id>/events`` (server-sent events, one ``tournament`` event each).

Creating: a logged-in session, loopback or the API token (as creating a game).
Registering: a logged-in person registers themself (``kind`` ``account``); entering a
bot or a network client (``kind`` ``bot`` or ``client``, ``frontend`` ``mnm``,
``domino`` or ``xml``) and starting need the tournament's creator, an admin, loopback
or the API token.  The answer to a
registration is the only place an entry's ``key`` (the MNM Game-ID of its games) is
shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet import defer
from twisted.web.server import NOT_DONE_YET

from hub.model import GameError

from .api import read_json, send_error
from .events import EventStream, Streams
from .play import WebResource


class TournamentsResource(WebResource):
    """``/api/tournaments[/<id>[/entries|start|events]]``."""

    isLeaf = True

    def _service(self) -> Any:
        if self.hub.tournaments is None:
            raise GameError("this hub runs no tournaments", 404)
        return self.hub.tournaments

    def render(self, request: Any) -> Any:
        """The event stream; everything else is JSON."""
        parts = [p for p in request.postpath if p]
        if request.method == b"GET" and len(parts) == 2 and parts[1] == b"events":
            try:
                t = self._service().get(parts[0].decode("utf-8", "replace"))
            except GameError as e:
                return send_error(request, e.code, e.reason)
            refused = self.web.refuse_stream(request)
            if refused is not None:
                return refused
            TournamentStream(request, self.web.streams, self._service(), t.id)
            return NOT_DONE_YET
        return super().render(request)

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"GET": self.json_GET, "POST": self.json_POST}

    def json_GET(self, request: Any) -> Any:
        """The list (newest first), or one tournament."""
        service = self._service()
        parts = [p.decode("utf-8", "replace") for p in request.postpath if p]
        if not parts:
            return 200, {"tournaments": [_summary(t) for t in service.listed()]}
        if len(parts) != 1:
            raise GameError("no such resource", 404)
        return 200, service.get(parts[0]).to_json()

    def json_POST(self, request: Any) -> Any:
        """Create, register, start."""
        service = self._service()
        parts = [p.decode("utf-8", "replace") for p in request.postpath if p]
        session = self.session_for_write(request, required=False)
        if not parts:
            self.may_manage(request, "creating tournaments")
            body = read_json(request)
            if not isinstance(body, dict):
                raise GameError("the body must be a JSON object", 400)
            creator = session.account if session is not None else None
            admin = session is not None and session.admin
            return 201, service.create(body, creator, admin).to_json()
        if len(parts) != 2:
            raise GameError("no such resource", 404)
        t = service.get(parts[0])
        if parts[1] == "start":
            self._may_run(request, session, t)
            d = defer.ensureDeferred(service.start_tournament(t.id))
            return d.addCallback(lambda t: (200, t.to_json()))
        if parts[1] != "entries":
            raise GameError("no such resource", 404)
        body = read_json(request)
        if not isinstance(body, dict):
            raise GameError("the body must be a JSON object", 400)
        kind = body.get("kind", "account")
        if kind == "account":
            if session is None or session.account is None:
                raise GameError("log in to register yourself", 401)
            entered = service.enter(t.id, session.account, "account", "web")
        else:
            self._may_run(request, session, t)
            entered = service.enter(
                t.id,
                str(body.get("name") or ""),
                str(kind),
                str(body.get("frontend") or ("hub" if kind == "bot" else "mnm")),
                body.get("bot"),
            )
        d = defer.ensureDeferred(entered)  # (on a cluster: into the store, any door)
        return d.addCallback(lambda entry: (201, entry.to_json(private=True)))

    def _may_run(self, request: Any, session: Any, t: Any) -> None:
        """Starting a tournament, entering bots and network clients: its creator, an
        admin, loopback or the API token."""
        account = session.account if session is not None else None
        if account is not None and account == t.settings.get("creator"):
            return
        self.require_write_access(request, "starting a tournament and entering bots or clients")


def _summary(t: Any) -> dict[str, Any]:
    return {
        "id": t.id,
        "name": t.name,
        "game_type": t.game_type,
        "format": t.format,
        "state": t.state,
        "round": t.round,
        "total_rounds": t.total_rounds if t.entries else None,
        "entrants": len(t.entries),
        "max_entrants": t.settings["max_entrants"],
        "starts_at": t.settings.get("starts_at"),
    }


class TournamentStream(EventStream):
    """One browser following one tournament: a ``tournament`` event (its JSON) now and
    on every change, until the connection goes (counted, bounded and kept awake as the
    web front end's other streams)."""

    def __init__(self, request: Any, streams: Streams, service: Any, tournament_id: str) -> None:
        super().__init__(request, streams)
        self.service = service
        self.tid = tournament_id
        service.add_listener(self.changed)
        self.send("tournament", service.get(tournament_id).to_json())

    def changed(self, change: str, t: Any) -> None:
        """A tournament changed: send this one's new state."""
        if t.id == self.tid:
            self.send("tournament", t.to_json())

    def detach(self) -> None:
        """The stream is gone: follow the tournament no more."""
        self.service.remove_listener(self.changed)
