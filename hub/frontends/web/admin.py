"""The admin API (``/api/admin/...``) and the web front end's ``/metrics``.

An admin is a request with the hub's API token (``Authorization: Bearer …``; the
hub compares digests, and ``api_token_sha256`` lets a config file hold only the
token's SHA-256) or a browser session of an ``admin`` account (its writes carry the
session's CSRF token, as every write of the pages).  Anyone else gets 401 (no
credentials) or 403 (an account that is not an admin).  Every action goes through
:class:`hub.ops.admin.Admin`, which writes its audit row:

- ``POST /api/admin/kick`` ``{"player", "reason"?}``
- ``POST /api/admin/games/<id>/close``
- ``POST /api/admin/chips`` ``{"account", "amount"}`` (negative: revoke)
- ``POST /api/admin/ban`` ``{"address", "reason"?, "force"?}`` (a ban wider than
  ``ban_widest_ipv4``/``ban_widest_ipv6``, or covering loopback or the asking admin's
  own address, needs ``"force": true``), ``POST /api/admin/unban``
  ``{"address"}``, ``GET /api/admin/bans``
- ``POST /api/admin/plugins/<name>/unload`` and ``.../reload``
- ``GET /api/admin/audit?limit=&action=&actor=&target=``
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet import defer

from hub.model import GameError
from hub.ops.admin import Actor, amount_text, ban_key

from .api import query_arg, query_limit
from .play import WebFrontend, WebResource


def client_address(request: Any) -> str:
    """The client's address (``local`` for in-memory transports)."""
    return str(getattr(request.getClientAddress(), "host", None) or "local")


class AdminResource(WebResource):
    """``/api/admin/...`` (see the module docstring)."""

    isLeaf = True

    def __init__(self, hub: Any, web: WebFrontend) -> None:
        super().__init__(hub, web)

    def actor(self, request: Any, write: bool) -> Actor:
        """Who asks: the API token or an admin session (a write checks its origin and
        CSRF token), as :class:`hub.connections.access.Access` decides for every route.

        :raises hub.model.GameError: 401 without credentials, 403 for a non-admin.
        """
        source = client_address(request)
        caller = self.caller(request)
        caller.require_admin("the admin API")
        if caller.token:
            return Actor("api-token", "api", source)
        if write:
            self.session_for_write(request)
        return Actor(str(caller.account), "api", source)

    def _parts(self, request: Any) -> list[str]:
        return [p.decode("utf-8", "replace") for p in request.postpath if p]

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"GET": self.json_GET, "POST": self.json_POST}

    def json_GET(self, request: Any) -> Any:
        """``bans`` or ``audit``."""
        self.actor(request, write=False)
        parts = self._parts(request)
        admin = self.hub.admin
        if parts == ["bans"]:
            return defer.ensureDeferred(admin.bans()).addCallback(lambda rows: (200, rows))
        if parts == ["audit"]:
            return self._audit(request)
        raise GameError("no such admin resource", 404)

    def _audit(self, request: Any) -> Any:
        store = self.hub.store
        if store is None:
            raise GameError("this hub has no store, so no audit log", 503)

        filters = {name: query_arg(request, name) for name in ("action", "actor", "target")}
        d = store.audit_log(query_limit(request, 100, 1000), **filters)
        return d.addCallback(lambda rows: (200, rows))

    def json_POST(self, request: Any) -> Any:
        """One admin action."""
        actor = self.actor(request, write=True)
        parts = self._parts(request)
        body = self.body(request)
        admin = self.hub.admin
        if parts == ["kick"]:
            player = _text(body, "player")
            reason = str(body.get("reason") or "kicked by an admin")[:200]
            work = lambda: admin.kick(player, reason)  # noqa: E731
            return self._run(actor, "kick", player, {"reason": reason}, work)
        if parts == ["chips"]:
            account, amount = _text(body, "account"), amount_text(body.get("amount"))
            return self._run(
                actor, "chips", account, {"amount": amount}, lambda: admin.chips(account, amount)
            )
        if parts in (["ban"], ["unban"]):
            key = ban_key(body.get("address"))
            if parts == ["unban"]:
                return self._run(actor, "unban", key, None, lambda: admin.unban(key))
            why = None if body.get("reason") is None else str(body["reason"])[:200]
            force = body.get("force", False)
            if not isinstance(force, bool):
                raise GameError("'force' is true or false", 400)
            detail = {"reason": why, "force": force}
            return self._run(actor, "ban", key, detail, lambda: admin.ban(key, why, actor, force))
        if len(parts) == 3 and parts[0] == "games" and parts[2] == "close":
            game_id = parts[1]
            return self._run(actor, "close_game", game_id, None, lambda: admin.close_game(game_id))
        if len(parts) == 3 and parts[0] == "plugins" and parts[2] in ("unload", "reload"):
            name, verb = parts[1], parts[2]
            return self._run(actor, f"plugin_{verb}", name, None, lambda: admin.plugin(name, verb))
        raise GameError("no such admin action", 404)

    def _run(self, actor: Actor, action: str, target: str, detail: Any, work: Any) -> Any:
        d = defer.ensureDeferred(self.hub.admin.run(actor, action, target, detail, work))
        return d.addCallback(lambda result: (200, result))


def _text(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not value.strip() or len(value) > 256:
        raise GameError(f"'{name}' is required (a name)", 400)
    return value.strip()
