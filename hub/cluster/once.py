"""One run at a time: the cluster's reads that a notice may ask for again while they run."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from twisted.internet import defer
from twisted.logger import Logger

from hub.store.errors import StoreUnavailable


class OneAtATime:
    """Calls ``work()`` (a coroutine function) one run at a time: a call while it runs
    returns that run's Deferred and makes it run once more after it.  An unavailable
    store is quiet (the next call tries again), and so is a run cancelled (the hub
    stopping: its store's pending reads are cancelled); any other failure is logged as
    ``failed`` says.

    :param work: what to run.
    :param failed: the log line of a failure (``"cluster: checking the members failed"``).
    """

    log = Logger()

    def __init__(self, work: Callable[[], Coroutine[Any, Any, None]], failed: str) -> None:
        self._work = work
        self._failed = failed
        self._running: defer.Deferred[None] | None = None
        self._again = False

    def __call__(self) -> defer.Deferred[None]:
        """Run (or run once more after the run now)."""
        if self._running is not None:
            self._again = True
            return self._running
        d: defer.Deferred[None] = defer.ensureDeferred(self._work())
        d.addErrback(lambda f: f.trap(StoreUnavailable, defer.CancelledError))
        d.addErrback(lambda f: self.log.failure(self._failed, f))
        self._running = d

        def done(_: Any) -> None:
            self._running = None
            if self._again:
                self._again = False
                self()

        d.addBoth(done)
        return d
