"""Who an HTTP request comes from, and what it may do: one check for every web route.

Every route of the web front end (its own JSON API, ``/metrics``, and what other front
ends mount there, such as ``/acpc``) asks the same :class:`Access` for the request's
:class:`Caller`, so the API token, the sessions, loopback and the door header mean the
same everywhere (docs/operations.md, "Who may do what"):

- the **API token** (``Authorization: Bearer <token>``, compared by SHA-256 with
  ``--api-token`` or the ``api_token_sha256`` setting) is an admin;
- a **session** of an ``admin`` account is an admin; a session of another account is
  that account;
- **loopback**: a request from this machine, unless another hub of the cluster passed it
  on (``X-Gamehub-Door``: :mod:`hub.frontends.web.proxy`), may do what the API token
  may do to create and run things (games, matches, tournaments), unless the setting
  ``api_require_token`` is on; it is never an admin;
- 401 (with ``WWW-Authenticate: Bearer``) answers a request that lacks the credentials
  a route needs: none at all, or an ``Authorization`` that is not the token; 403
  answers credentials that are not enough (an account that is not an admin, a
  session whose CSRF token or origin is wrong).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from hub.model import GameError
from hub.settings import boolean

#: the header that marks a request passed on by another hub (never loopback here)
DOOR_HEADER = b"x-gamehub-door"
#: the challenge of a 401 answer
CHALLENGE = b'Bearer realm="gamehub"'


class SessionView(Protocol):
    """What the access check reads of a browser session."""

    @property
    def account(self) -> str | None:
        """The account logged in, or ``None`` (a guest)."""

    @property
    def admin(self) -> bool:
        """Whether the account is an admin account."""


class SessionFinder(Protocol):
    """Finds the session a request's cookie names (the web front end's sessions)."""

    def find(self, request: Any) -> SessionView | None:
        """The session, or ``None``."""


def token_digest(options: Mapping[str, Any]) -> str | None:
    """The SHA-256 (hex) of the hub's API token: the setting ``api_token_sha256`` (a
    config file then never holds the token itself), else that of ``--api-token``;
    ``None`` when the hub has none.  Requests are compared by digest."""
    digest = options.get("api_token_sha256")
    if digest:
        return str(digest).strip().lower()
    token = options.get("api_token")
    if not token:
        return None
    return hashlib.sha256(str(token).encode("utf-8")).hexdigest()


def client_host(request: Any) -> str | None:
    """The host of the request's client address (``None``: a UNIX socket or an
    in-memory transport, whose addresses have no ``host``)."""
    return getattr(request.getClientAddress(), "host", None)  # foreign: an IAddress


def is_loopback_host(host: str | None) -> bool:
    """Whether ``host`` is this machine (``None``: a UNIX socket or in memory: yes)."""
    if host is None:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def challenge(request: Any) -> None:
    """Add the ``WWW-Authenticate`` header every 401 answer carries."""
    request.setHeader(b"www-authenticate", CHALLENGE)


@dataclass(frozen=True)
class Caller:
    """Who sent one request (see the module).

    :ivar address: the client's address (``""``: a UNIX socket or in memory).
    :ivar door: the hub that passed the request on (``X-Gamehub-Door``), or ``None``.
    :ivar token: it carries the hub's API token.
    :ivar bad_token: it carries an ``Authorization`` header that is not the token.
    :ivar loopback: it comes from this machine and not through a door.
    :ivar local_writes: loopback, and ``api_require_token`` is off: it may create and
        run things as the token may.
    :ivar session: its browser session, or ``None``.
    """

    address: str
    door: str | None
    token: bool
    bad_token: bool
    loopback: bool
    local_writes: bool
    session: SessionView | None = None

    @property
    def account(self) -> str | None:
        """The account its session is logged in as, or ``None``."""
        return self.session.account if self.session is not None else None

    @property
    def admin(self) -> bool:
        """The API token, or a session of an admin account."""
        return self.token or (
            self.session is not None and self.session.account is not None and self.session.admin
        )

    @property
    def writer(self) -> bool:
        """It may create and run things as the token may (the token, or loopback)."""
        return self.token or self.local_writes

    def refuse(self, what: str, needs: str) -> GameError:
        """The refusal of ``what``: 401 when the request has no credentials that count
        (none, or a wrong token), 403 when it has some that are not enough."""
        if self.bad_token:
            return GameError(f"{what}: the Authorization header is not the hub's API token", 401)
        if self.account is None:
            return GameError(f"{what} needs {needs}", 401)
        return GameError(f"{what}: {self.account} may not ({what} needs {needs})", 403)

    def require_admin(self, what: str) -> None:
        """Let only an admin through.

        :raises hub.model.GameError: 401 or 403 (:meth:`refuse`).
        """
        if self.admin:
            return
        if self.account is not None and not self.bad_token:
            raise GameError(f"{what}: {self.account} is not an admin account", 403)
        raise self.refuse(
            what,
            "the hub's API token (Authorization: Bearer ...) or the session of an admin account",
        )

    def require_writer(self, what: str) -> None:
        """Let through the API token, an admin session, or loopback (unless
        ``api_require_token``).

        :raises hub.model.GameError: 401 or 403 (:meth:`refuse`).
        """
        if not (self.writer or self.admin):
            raise self.refuse(what, "the hub's API token from this address")

    def require_manager(self, what: str) -> None:
        """Let through a logged-in account, or what :meth:`require_writer` lets through.

        :raises hub.model.GameError: 401 (:meth:`refuse`).
        """
        if self.account is None:
            self.require_writer(what)


class Access:
    """The access check of one web front end.

    :param options: the hub's settings (``api_token``, ``api_token_sha256``,
        ``api_require_token``).
    :param sessions: the front end's browser sessions (``None``: no sessions, so
        nobody is logged in).
    """

    def __init__(self, options: Mapping[str, Any], sessions: SessionFinder | None = None) -> None:
        self.options = options
        self.sessions = sessions

    def has_token(self, request: Any) -> bool:
        """Whether ``request`` carries the hub's API token."""
        expected = token_digest(self.options)
        sent = request.getHeader(b"authorization")
        if expected is None or not sent or not sent.startswith(b"Bearer "):
            return False
        given = hashlib.sha256(sent[len(b"Bearer ") :].strip()).hexdigest()
        return hmac.compare_digest(given.encode(), expected.encode())

    def caller(self, request: Any) -> Caller:
        """Who sent ``request``."""
        host = client_host(request)
        door_header = request.getHeader(DOOR_HEADER)
        door = None if door_header is None else door_header.decode("latin-1", "replace")[:64]
        token = self.has_token(request)
        loopback = door is None and is_loopback_host(host)
        required = boolean(self.options.get("api_require_token", False))
        session = self.sessions.find(request) if self.sessions is not None else None
        return Caller(
            address=host or "",
            door=door,
            token=token,
            bad_token=not token and request.getHeader(b"authorization") is not None,
            loopback=loopback,
            local_writes=loopback and not required,
            session=session,
        )


__all__ = [
    "CHALLENGE",
    "DOOR_HEADER",
    "Access",
    "Caller",
    "SessionFinder",
    "SessionView",
    "challenge",
    "client_host",
    "is_loopback_host",
    "token_digest",
]
