"""Cookies a hub does not know, looked up in the store (issue 31, in a cluster).

Every hub of a cluster keeps its browser sessions in the one database
(:mod:`hub.store.websessions`), so a cookie made by another hub after this one started
is found there: a page that comes to this hub's door (its hub drained or killed, or a
load balancer sending it here) keeps its name and seats.  A cookie that is not in
memory is looked up once, without blocking (adbapi), and the request is answered
``503`` with ``Retry-After`` meanwhile; the page asks again and is then known.

Nothing here is unbounded, whoever sends the cookies:

- at most ``web_session_lookup_rate`` look-ups a second in all, in bursts of
  ``web_session_lookup_burst`` (a token bucket), and at most
  ``web_session_lookups_pending`` at once: past either, the request is answered 503
  with ``Retry-After`` (never a new guest over its cookie, never a query);
- a cookie found in no row is remembered as unknown for ``web_session_unknown_seconds``
  (the ``web_session_unknown_kept`` most recent ones): it is then answered at once, as
  a cookie this hub never made (a fresh guest), with no query;
- a look-up that meets a store outage is not remembered: the request is answered 503
  and the next one asks again (within the same bounds).
"""

from __future__ import annotations

import enum
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from twisted.internet import defer
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.connections.limits import Buckets
from hub.store.websessions import WebSessionRow


class SessionFinder(Protocol):
    """What the look-ups need of the store (:class:`hub.store.websessions.WebSessionMixin`)."""

    def web_session_find(
        self, token_hash: str, now: float
    ) -> defer.Deferred[WebSessionRow | None]: ...


@dataclass(frozen=True)
class LookupLimits:
    """The bounds of the look-ups (the settings ``web_session_lookup_rate`` and
    ``_burst``, ``web_session_lookups_pending``, ``web_session_unknown_kept`` and
    ``web_session_unknown_seconds``)."""

    rate: float = 20.0
    burst: float = 100.0
    pending: int = 32
    unknown_kept: int = 10_000
    unknown_seconds: float = 60.0

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> LookupLimits:
        """The limits the hub's settings give (defaults for the ones not set).

        :raises ValueError: a negative or zero bound.
        """
        limits = cls(
            rate=float(options.get("web_session_lookup_rate", cls.rate)),
            burst=float(options.get("web_session_lookup_burst", cls.burst)),
            pending=int(options.get("web_session_lookups_pending", cls.pending)),
            unknown_kept=int(options.get("web_session_unknown_kept", cls.unknown_kept)),
            unknown_seconds=float(options.get("web_session_unknown_seconds", cls.unknown_seconds)),
        )
        if min(limits.rate, limits.burst, limits.pending, limits.unknown_kept) <= 0:
            raise ValueError("the web_session_lookup… and web_session_unknown… limits are > 0")
        if limits.unknown_seconds < 0:
            raise ValueError("web_session_unknown_seconds is 0 or more")
        return limits


class Unknown:
    """Cookie hashes known to name no session (a bounded negative cache): each kept
    ``seconds``, at most ``size`` (the oldest forgotten first)."""

    def __init__(self, clock: Any, size: int, seconds: float) -> None:
        self._clock = clock
        self.size = size
        self.seconds = seconds
        self._seen: OrderedDict[str, float] = OrderedDict()

    def __len__(self) -> int:
        return len(self._seen)

    def add(self, key: str) -> None:
        """``key`` names no session (as of now)."""
        self._seen[key] = self._clock.seconds()
        self._seen.move_to_end(key)
        while len(self._seen) > self.size:
            self._seen.popitem(last=False)

    def discard(self, key: str) -> None:
        """``key`` names a session after all (this hub made it)."""
        self._seen.pop(key, None)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        seen = self._seen.get(key)
        if seen is None:
            return False
        if self._clock.seconds() - seen >= self.seconds:
            del self._seen[key]
            return False
        return True


class Answer(enum.Enum):
    """What :meth:`Lookups.ask` says of a cookie hash."""

    #: it names no session: a cookie this hub never made
    UNKNOWN = "unknown"
    #: its look-up runs (or was just started): ask again in a moment
    PENDING = "pending"
    #: too many look-ups now (rate or pending): ask again after :meth:`Lookups.wait`
    BUSY = "busy"


class Lookups:
    """Look-ups in the store of cookies this hub does not know.

    :param clock: ``IReactorTime`` (``seconds()``).
    :param store: where the sessions are kept.
    :param limits: the bounds.
    :param found: called with each row found (the caller keeps the session).
    """

    log = Logger()

    def __init__(
        self,
        clock: Any,
        store: SessionFinder,
        limits: LookupLimits,
        found: Callable[[WebSessionRow], None],
    ) -> None:
        self._clock = clock
        self._store = store
        self.limits = limits
        self._found = found
        self.unknown = Unknown(clock, limits.unknown_kept, limits.unknown_seconds)
        self._bucket = Buckets(clock, limits.rate, limits.burst, max_keys=1)
        self._pending: dict[str, defer.Deferred[None]] = {}
        #: look-ups started since the hub started (each one query)
        self.asked = 0
        #: the last look-up failed (the store is unavailable)
        self.failing = False

    def __len__(self) -> int:
        """Look-ups running now."""
        return len(self._pending)

    def wait(self) -> int:
        """Whole seconds a refused look-up should wait (for ``Retry-After``)."""
        return max(1, int(self._bucket.wait("all") + 0.999))

    def ask(self, key: str) -> Answer:
        """What is known of the cookie hash ``key`` (not in memory): unknown, or
        pending (a look-up runs or was started now), or busy (no look-up may start)."""
        if key in self.unknown:
            return Answer.UNKNOWN
        if key in self._pending:
            return Answer.PENDING
        if len(self._pending) >= self.limits.pending or not self._bucket.allow("all"):
            return Answer.BUSY
        self.asked += 1
        d = defer.maybeDeferred(self._store.web_session_find, key, self._clock.seconds())
        done: defer.Deferred[None] = d.addBoth(self._answered, key)
        if not done.called:
            self._pending[key] = done
        elif key in self.unknown:  # answered at once (a store in memory)
            return Answer.UNKNOWN
        return Answer.PENDING

    def _answered(self, result: WebSessionRow | None | Failure, key: str) -> None:
        self._pending.pop(key, None)
        if isinstance(result, Failure):
            self.failing = True
            self.log.warn("web sessions: cannot look a cookie up: {e}", e=result.getErrorMessage())
            return
        self.failing = False
        if result is None:
            self.unknown.add(key)
            return
        try:
            self._found(result)
        except Exception:
            self.log.failure("web sessions: keeping a looked-up session failed")

    def settled(self) -> defer.Deferred[Any]:
        """Fires once the look-ups running now are done (for tests and shutdown)."""
        return defer.DeferredList(list(self._pending.values()))
