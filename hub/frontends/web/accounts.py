"""Accounts in the browser: the same accounts as the XML protocol (the hub's store).

``GET /api/session`` (creates a guest session), ``POST /api/session`` (log in),
``DELETE /api/session`` (log out), ``POST /api/accounts`` (create and log in),
``GET /api/account`` (name, type, balance), ``POST /api/account/password``,
``DELETE /api/account`` (with the password).  Failed logins are throttled by the
store, per name and per client address, exactly as for the XML protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet import defer

from hub.connections import fields
from hub.connections.access import client_host
from hub.interfaces import IHub
from hub.model import GameError

from .api import read_json
from .play import WebResource


def _store(hub: IHub) -> Any:
    if hub.store is None:
        raise GameError("this hub has no account store", 503)
    return hub.store


def _credentials(request: Any, **rules: fields.Field) -> list[str]:
    """The body's fields ``name=rule``, each checked by its rule of :mod:`hub.connections.fields`."""
    body = read_json(request)
    if not isinstance(body, dict):
        raise GameError("the body must be a JSON object", 400)
    values = []
    for name, rule in rules.items():
        value = body.get(name)
        if not isinstance(value, str) or not value:
            raise GameError(f"'{name}' is required", 400)
        try:
            values.append(rule.check(value))
        except fields.FieldError as e:
            raise fields.FieldError(f"'{name}': {e.reason}") from None
    return values


def account_json(account: Any) -> dict[str, Any]:
    """An account as the page shows it (balance as a decimal string)."""
    return {"name": account.name, "type": account.type, "balance": str(account.balance)}


def _source(request: Any) -> str | None:
    """The client's address: logins are throttled per address on every front end."""
    return client_host(request)


class SessionResource(WebResource):
    """``/api/session``: who this browser is; log in and out."""

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"GET": self.json_GET, "POST": self.json_POST, "DELETE": self.json_DELETE}

    def json_GET(self, request: Any) -> Any:
        """The session (a new guest session if the browser has none)."""
        session = self.web.sessions.get_or_create(request)
        return 200, session.to_json()

    def json_POST(self, request: Any) -> Any:
        """Log in with ``{"name", "password"}``."""
        session = self.session_for_write(request, required=False)
        name, password = _credentials(
            request, name=fields.ACCOUNT_NAME, password=fields.GIVEN_PASSWORD
        )
        d = defer.maybeDeferred(_store(self.hub).authenticate, name, password, _source(request))

        def logged_in(account: Any) -> Any:
            admin = account.type == "admin"
            new = self.web.sessions.log_in(request, session, account.name, admin=admin)
            return 200, dict(new.to_json(), account_info=account_json(account))

        return d.addCallback(logged_in)

    def json_DELETE(self, request: Any) -> Any:
        """Log out; the browser continues as a guest."""
        session = self.session_for_write(request)
        new = self.web.sessions.log_out(request, session)
        return 200, new.to_json()


class AccountsResource(WebResource):
    """``POST /api/accounts``: create an account (and log in as it)."""

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"POST": self.json_POST}

    def json_POST(self, request: Any) -> Any:
        """Create ``{"name", "password"}``."""
        session = self.session_for_write(request, required=False)
        name, password = _credentials(request, name=fields.ACCOUNT_NAME, password=fields.PASSWORD)
        d = defer.maybeDeferred(_store(self.hub).create_account, name, password)

        def created(account: Any) -> Any:
            new = self.web.sessions.log_in(request, session, account.name)
            return 201, dict(new.to_json(), account_info=account_json(account))

        return d.addCallback(created)


class AccountResource(WebResource):
    """``/api/account``: the logged-in account; ``/api/account/password``."""

    isLeaf = True

    def _account_session(self, request: Any, write: bool) -> Any:
        session = self.session_for_write(request) if write else self.web.sessions.find(request)
        if session is None or session.account is None:
            raise GameError("log in first", 401)
        return session

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"GET": self.json_GET, "POST": self.json_POST, "DELETE": self.json_DELETE}

    def json_GET(self, request: Any) -> Any:
        """Name, type and balance."""
        if [p for p in request.postpath if p]:
            raise GameError("no such resource", 404)
        session = self._account_session(request, write=False)
        d = defer.maybeDeferred(_store(self.hub).get_account, session.account)
        return d.addCallback(lambda account: (200, account_json(account)))

    def json_POST(self, request: Any) -> Any:
        """``/api/account/password`` with ``{"old", "new"}``."""
        if [p for p in request.postpath if p] != [b"password"]:
            raise GameError("no such resource", 404)
        session = self._account_session(request, write=True)
        old, new = _credentials(request, old=fields.GIVEN_PASSWORD, new=fields.PASSWORD)
        d = defer.maybeDeferred(
            _store(self.hub).change_password, session.account, old, new, _source(request)
        )
        return d.addCallback(lambda _: (200, {"changed": True}))

    def json_DELETE(self, request: Any) -> Any:
        """Delete the account after checking ``{"password"}``; logs out."""
        if [p for p in request.postpath if p]:
            raise GameError("no such resource", 404)
        session = self._account_session(request, write=True)
        (password,) = _credentials(request, password=fields.GIVEN_PASSWORD)
        store = _store(self.hub)
        name = session.account

        @defer.inlineCallbacks
        def delete() -> Any:
            yield store.authenticate(name, password, _source(request))
            closed = yield store.delete_account(name)
            self.web.sessions.drop_account(name)
            guest = self.web.sessions.log_out(request, None)
            return 200, dict(guest.to_json(), deleted=name, closed_balance=str(closed))

        return delete()
