"""Browser sessions of the web front end: cookie tokens, CSRF tokens, seats held.

A browser gets a session on its first ``GET /api/session``: a random token in an
``HttpOnly; SameSite=Strict`` cookie and a separate random CSRF token the page sends
back in the ``X-CSRF-Token`` header of every write.  A session is a guest
(``guest-xxxxxx``) until it logs in with an account of the store (the same accounts as
the XML protocol); logging in or out replaces the token.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from typing import Any

from hub.model import GameError
from hub.store.accounts import GUEST_PREFIX

COOKIE = b"gamehub_session"
CSRF_HEADER = b"x-csrf-token"
#: sessions idle longer than this are forgotten (seconds)
IDLE_LIMIT = 7 * 24 * 3600.0
MAX_SESSIONS = 10_000
#: games a session remembers having created
CREATED_KEPT = 100


@dataclass
class Session:
    """One browser's session.

    :ivar name: the player name: the account name when logged in, else a guest name.
    :ivar account: the account name, ``None`` for a guest.
    :ivar seats: ``game id → seat`` of the seats this browser holds.
    :ivar admin: the account is an admin account (it reads every transcript).
    :ivar created: ids of the games this browser created, newest last (the last
        :data:`CREATED_KEPT`): its creator may cancel a game while it waits.
    """

    token: str
    csrf: str
    name: str
    account: str | None = None
    seats: dict[str, int] = field(default_factory=dict)
    last_used: float = 0.0
    admin: bool = False
    created: list[str] = field(default_factory=list)

    def made(self, game_id: str) -> None:
        """This browser created ``game_id`` (bounded: the oldest are forgotten)."""
        self.created.append(game_id)
        del self.created[:-CREATED_KEPT]

    @property
    def owner(self) -> str:
        """Who this browser's lines in a transcript belong to: the account, or the
        guest (``!guest-…``, which no account name can be)."""
        return self.account if self.account is not None else "!" + self.name

    def to_json(self) -> dict[str, Any]:
        """What the page learns of its own session."""
        return {
            "name": self.name,
            "account": self.account,
            "logged_in": self.account is not None,
            "admin": self.admin,
            "csrf": self.csrf,
            "seats": dict(self.seats),
        }


class Sessions:
    """Every browser session of one web front end (in memory).

    :param clock: ``IReactorTime`` for idle expiry.
    :param secure: add ``Secure`` to the cookie (the web endpoint is TLS).
    """

    def __init__(self, clock: Any, secure: bool = False) -> None:
        self._clock = clock
        self._secure = secure
        self._by_token: dict[str, Session] = {}

    def __len__(self) -> int:
        return len(self._by_token)

    def find(self, request: Any) -> Session | None:
        """The session named by the request's cookie, or ``None``."""
        token = request.getCookie(COOKIE)
        if not token:
            return None
        session = self._by_token.get(token.decode("ascii", "replace"))
        if session is None:
            return None
        now = self._clock.seconds()
        if now - session.last_used > IDLE_LIMIT:
            del self._by_token[session.token]
            return None
        session.last_used = now
        return session

    def get_or_create(self, request: Any) -> Session:
        """The request's session, or a new guest session (and its cookie)."""
        session = self.find(request)
        if session is None:
            session = self._new(request, name=GUEST_PREFIX + secrets.token_hex(3))
        return session

    def _new(self, request: Any, name: str, account: str | None = None) -> Session:
        if len(self._by_token) >= MAX_SESSIONS:
            self._expire()
        session = Session(
            token=secrets.token_urlsafe(32),
            csrf=secrets.token_urlsafe(32),
            name=name,
            account=account,
            last_used=self._clock.seconds(),
        )
        self._by_token[session.token] = session
        self._set_cookie(request, session.token)
        return session

    def _set_cookie(self, request: Any, token: str, max_age: int | None = None) -> None:
        parts = [f"{COOKIE.decode()}={token}", "Path=/", "HttpOnly", "SameSite=Strict"]
        if max_age is not None:
            parts.append(f"Max-Age={max_age}")
        if self._secure:
            parts.append("Secure")
        request.responseHeaders.addRawHeader(b"set-cookie", "; ".join(parts).encode("ascii"))

    def _expire(self) -> None:
        now = self._clock.seconds()
        old = [t for t, s in self._by_token.items() if now - s.last_used > IDLE_LIMIT]
        for token in old:
            del self._by_token[token]
        if len(self._by_token) >= MAX_SESSIONS:
            oldest = sorted(self._by_token.values(), key=lambda s: s.last_used)
            for session in oldest[: len(oldest) // 10 + 1]:
                del self._by_token[session.token]

    def log_in(
        self, request: Any, old: Session | None, account: str, admin: bool = False
    ) -> Session:
        """A new session for ``account`` (a fresh token: no session fixation).

        Seats the browser held as a guest stay with the guest name and are dropped
        from the new session.
        """
        if old is not None:
            self._by_token.pop(old.token, None)
        session = self._new(request, name=account, account=account)
        session.admin = admin
        return session

    def log_out(self, request: Any, session: Session | None) -> Session:
        """Forget ``session``; the browser continues as a new guest."""
        if session is not None:
            self._by_token.pop(session.token, None)
        return self._new(request, name=GUEST_PREFIX + secrets.token_hex(3))

    def drop_account(self, account: str) -> int:
        """Forget every session of ``account`` (it was deleted, or kicked) → how many."""
        dropped = 0
        for token, session in list(self._by_token.items()):
            if session.account == account:
                del self._by_token[token]
                dropped += 1
        return dropped

    def check_csrf(self, request: Any, session: Session) -> None:
        """Refuse a write whose ``X-CSRF-Token`` header is not the session's token.

        :raises hub.model.GameError: 403.
        """
        sent = request.getHeader(CSRF_HEADER) or b""
        if not hmac.compare_digest(sent, session.csrf.encode()):
            raise GameError("missing or wrong CSRF token: reload the page and try again", 403)


def check_origin(request: Any) -> None:
    """Refuse a write sent by a page of another site (``Origin`` names another host).

    :raises hub.model.GameError: 403.
    """
    raw = request.getHeader(b"origin")
    if not raw:
        return
    origin = raw.decode("latin-1")
    host = (request.getHeader(b"host") or b"").decode("latin-1")
    stripped = origin.split("://", 1)[-1].rstrip("/")
    if stripped != host:
        raise GameError("cross-site requests may not change anything here", 403)
