"""Browser sessions of the web front end: cookie tokens, CSRF tokens, seats held.

A browser gets a session on its first ``GET /api/session``: a random token in an
``HttpOnly; SameSite=Strict`` cookie and a separate random CSRF token the page sends
back in the ``X-CSRF-Token`` header of every write.  A session is a guest
(``guest-xxxxxx``) until it logs in with an account of the store (the same accounts as
the XML protocol); logging in or out replaces the token.

With a store, every session is also kept there (:mod:`hub.store.websessions`: the
cookie's SHA-256, never the cookie; the name, the account, the expiry) and a hub
restarted on that database takes the live ones back when it starts
(:meth:`Sessions.restore`): the page's cookie still names its player, who keeps the
seats of the games the hub resumed (issue 31).  A cookie it does not know in memory
(another hub of the cluster made it after this one started, or it was forgotten here)
is looked up in the store (:mod:`.lookups`: asynchronously, bounded; 503 with
``Retry-After`` meanwhile) and then known as well.  In memory, sessions are also keyed by
the cookie's hash, and the CSRF token is derived from the cookie (an HMAC), so that a
restored session answers the page's writes with the token the page already holds.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from twisted.internet import defer
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.model import GameError
from hub.store.accounts import GUEST_PREFIX
from hub.store.websessions import WebSessionRow

from .lookups import Answer, LookupLimits, Lookups

COOKIE = b"gamehub_session"
CSRF_HEADER = b"x-csrf-token"
#: sessions idle longer than this are forgotten (seconds)
IDLE_LIMIT = 7 * 24 * 3600.0
MAX_SESSIONS = 10_000
#: games a session remembers having created
CREATED_KEPT = 100
#: a session in use has its expiry in the store moved on at most this often (seconds)
KEEP_EVERY = 3600.0
#: store writes of sessions waiting at most (more are skipped and logged)
MAX_PENDING = 1000


def token_hash(token: str) -> str:
    """The SHA-256 (hex) of a cookie value: the only form it is kept in."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def csrf_of(token: str) -> str:
    """The CSRF token of the session whose cookie is ``token`` (one-way: it tells
    nothing of the cookie)."""
    return hmac.new(token.encode("utf-8", "replace"), b"gamehub csrf", "sha256").hexdigest()


class WebSessionStore(Protocol):
    """What :class:`Sessions` needs of the store (:class:`hub.store.websessions.WebSessionMixin`)."""

    def web_session_keep(
        self, token_hash: str, name: str, account: str | None, admin: bool, expires: float
    ) -> defer.Deferred[None]: ...

    def web_sessions_live(self, now: float) -> defer.Deferred[list[WebSessionRow]]: ...

    def web_session_find(
        self, token_hash: str, now: float
    ) -> defer.Deferred[WebSessionRow | None]: ...

    def web_session_drop(self, token_hash: str) -> defer.Deferred[None]: ...

    def web_session_drop_account(self, account: str) -> defer.Deferred[None]: ...

    def web_session_purge(self, now: float) -> defer.Deferred[int]: ...


@dataclass
class Session:
    """One browser's session.

    :ivar name: the player name: the account name when logged in, else a guest name.
    :ivar account: the account name, ``None`` for a guest.
    :ivar seats: ``game id → seat`` of the seats this browser holds.
    :ivar admin: the account is an admin account (it reads every transcript).
    :ivar created: ids of the games this browser created, newest last (the last
        :data:`CREATED_KEPT`): its creator may cancel a game while it waits.
    :ivar token: the SHA-256 of the cookie (the key of the session, never the cookie).
    :ivar restored: taken back from the store after a restart: a guest's seats of the
        games the hub resumed are found through its name (it was this cookie's before).
    """

    token: str
    csrf: str
    name: str
    account: str | None = None
    seats: dict[str, int] = field(default_factory=dict)
    last_used: float = 0.0
    admin: bool = False
    created: list[str] = field(default_factory=list)
    restored: bool = False
    kept: float = 0.0

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
    :param store: keeps the sessions across restarts (``None``: memory only).
    :param limits: the bounds of looking up unknown cookies in the store.
    :param most: sessions kept in memory at most (``web_max_sessions``).
    """

    log = Logger()

    def __init__(
        self,
        clock: Any,
        secure: bool = False,
        store: WebSessionStore | None = None,
        limits: LookupLimits | None = None,
        most: int = MAX_SESSIONS,
    ) -> None:
        if most < 1:
            raise ValueError("web_max_sessions is 1 or more")
        self._clock = clock
        self._secure = secure
        self._store = store
        self.most = most
        self._by_token: dict[str, Session] = {}
        #: unknown cookies looked up in the store (``None``: no store)
        self.lookups = (
            None
            if store is None
            else Lookups(clock, store, limits or LookupLimits(), self._looked_up)
        )
        #: the store writes, one after the other (:meth:`_write`)
        self._writes: defer.Deferred[None] = defer.succeed(None)
        self._pending = 0
        #: the kept sessions are being taken back (:meth:`restore`): an unknown cookie
        #: is answered 503 meanwhile, not given a new guest
        self.restoring = False

    async def restore(self) -> int:
        """Take back the live sessions kept in the store (a restart) → how many."""
        if self._store is None:
            return 0
        self.restoring = True
        try:
            return await self._restore(self._store)
        finally:
            self.restoring = False

    async def _restore(self, store: WebSessionStore) -> int:
        now = self._clock.seconds()
        await store.web_session_purge(now)
        rows = await store.web_sessions_live(now)
        restored = 0
        names = {s.name for s in self._by_token.values()}
        for row in rows[: self.most]:
            if row[0] in self._by_token:
                continue
            self._take(row, twin=row[2] is None and row[1] in names)
            names.add(row[1])
            restored += 1
        return restored

    def _take(self, row: WebSessionRow, twin: bool) -> Session:
        """Keep in memory the session of a row of the store (restored or looked up).

        ``twin``: a guest whose name another session here has (hubs of a cluster
        draw guest names each on its own): it finds no seat through its name, only
        the seats it takes now (never the other guest's)."""
        key, name, account, admin, expires = row
        session = self._by_token[key] = Session(
            token=key,
            csrf="",  # derived from the cookie when the browser comes back
            name=name,
            account=account,
            admin=admin,
            last_used=expires - IDLE_LIMIT,
            restored=not twin,
            kept=expires - IDLE_LIMIT,
        )
        return session

    def _looked_up(self, row: WebSessionRow) -> None:
        """A cookie looked up in the store names this kept session (:mod:`.lookups`)."""
        if row[0] in self._by_token:
            return
        if len(self._by_token) >= self.most:
            self._expire()
        key, name, account = row[:3]
        twin = account is None and any(
            s.name == name and s.token != key for s in self._by_token.values()
        )
        self._take(row, twin)

    def _write(self, what: str, write: Callable[[WebSessionStore], defer.Deferred[Any]]) -> None:
        """Run one store write after the ones before (in order: a drop never overtakes
        the keep it undoes); at most :data:`MAX_PENDING` wait, further ones are skipped
        and logged (the store is too slow: sessions are still kept in memory)."""
        store = self._store
        if store is None:
            return
        if self._pending >= MAX_PENDING:
            self.log.warn("web sessions: {what} not written (the store is behind)", what=what)
            return
        self._pending += 1

        def run(_: object) -> defer.Deferred[Any]:
            return write(store)

        def done(result: object) -> None:
            self._pending -= 1
            if isinstance(result, Failure):
                self.log.warn(
                    "web sessions: cannot {what}: {e}", what=what, e=result.getErrorMessage()
                )

        self._writes.addCallback(run)
        self._writes.addBoth(done)

    def _keep(self, session: Session) -> None:
        session.kept = self._clock.seconds()
        token, name, account, admin = session.token, session.name, session.account, session.admin
        expires = session.kept + IDLE_LIMIT
        self._write(
            "keep a session", lambda s: s.web_session_keep(token, name, account, admin, expires)
        )

    def _drop(self, session: Session) -> None:
        token = session.token
        if self.lookups is not None:  # a look-up racing the drop finds nothing
            self.lookups.unknown.add(token)
        self._write("drop a session", lambda s: s.web_session_drop(token))

    def __len__(self) -> int:
        return len(self._by_token)

    def find(self, request: Any) -> Session | None:
        """The session named by the request's cookie, or ``None``.

        :raises hub.model.GameError: 503 while the kept sessions are being restored.
        """
        token = request.getCookie(COOKIE)
        if not token:
            return None
        raw = token.decode("ascii", "replace")
        session = self._by_token.get(token_hash(raw))
        if session is None:
            if self.restoring:
                _retry(request, 1)
                raise GameError("the hub is starting: try again in a moment", 503)
            session = self._look_up(request, token_hash(raw))
            if session is None:
                return None
        now = self._clock.seconds()
        if now - session.last_used > IDLE_LIMIT:
            del self._by_token[session.token]
            self._drop(session)
            return None
        session.last_used = now
        if not session.csrf:
            session.csrf = csrf_of(raw)
        if now - session.kept > KEEP_EVERY:
            self._keep(session)
        return session

    def _look_up(self, request: Any, key: str) -> Session | None:
        """The session of a cookie not in memory, as far as the store is asked
        (:mod:`.lookups`): ``None`` when it names none.

        :raises hub.model.GameError: 503 with ``Retry-After`` while it is looked up,
            or no look-up may start now.
        """
        lookups = self.lookups
        if lookups is None:
            return None
        answer = lookups.ask(key)
        if answer is Answer.UNKNOWN:
            return None
        found = self._by_token.get(key)  # answered at once (a store in memory)
        if found is not None:
            return found
        if answer is Answer.BUSY:
            wait = lookups.wait()
            _retry(request, wait)
            raise GameError(f"too many unknown session cookies at once: try again in {wait} s", 503)
        _retry(request, 1)
        if lookups.failing:
            raise GameError("the hub cannot reach its database: try again in a moment", 503)
        raise GameError("looking your session up: try again in a moment", 503)

    def get_or_create(self, request: Any) -> Session:
        """The request's session, or a new guest session (and its cookie)."""
        session = self.find(request)
        if session is None:
            session = self._new(request, name=self._guest_name())
        return session

    def _guest_name(self) -> str:
        """A new guest name no session of this hub has (a restored guest keeps its own)."""
        taken = {s.name for s in self._by_token.values()}
        name = GUEST_PREFIX + secrets.token_hex(3)
        while name in taken:
            name = GUEST_PREFIX + secrets.token_hex(3)
        return name

    def _new(
        self, request: Any, name: str, account: str | None = None, admin: bool = False
    ) -> Session:
        if len(self._by_token) >= self.most:
            self._expire()
        cookie = secrets.token_urlsafe(32)
        session = Session(
            token=token_hash(cookie),
            csrf=csrf_of(cookie),
            name=name,
            account=account,
            admin=admin,
            last_used=self._clock.seconds(),
        )
        self._by_token[session.token] = session
        self._set_cookie(request, cookie)
        self._keep(session)
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
        if len(self._by_token) >= self.most:
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
            self._drop(old)
        return self._new(request, name=account, account=account, admin=admin)

    def log_out(self, request: Any, session: Session | None) -> Session:
        """Forget ``session``; the browser continues as a new guest."""
        if session is not None:
            self._by_token.pop(session.token, None)
            self._drop(session)
        return self._new(request, name=self._guest_name())

    def drop_account(self, account: str) -> int:
        """Forget every session of ``account`` (it was deleted, or kicked) → how many."""
        dropped = 0
        for token, session in list(self._by_token.items()):
            if session.account == account:
                del self._by_token[token]
                if self.lookups is not None:
                    self.lookups.unknown.add(token)
                dropped += 1
        self._write("drop an account's sessions", lambda s: s.web_session_drop_account(account))
        return dropped

    def check_csrf(self, request: Any, session: Session) -> None:
        """Refuse a write whose ``X-CSRF-Token`` header is not the session's token.

        :raises hub.model.GameError: 403.
        """
        sent = request.getHeader(CSRF_HEADER) or b""
        if not hmac.compare_digest(sent, session.csrf.encode()):
            raise GameError("missing or wrong CSRF token: reload the page and try again", 403)


def _retry(request: Any, seconds: int) -> None:
    """Tell the client when to ask again (a 503 that follows)."""
    request.setHeader(b"retry-after", str(seconds).encode("ascii"))


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
