"""One timer for many connections' deadlines: a front end's prolog or idle timeout
without a ``DelayedCall`` per connection.

A :class:`Deadlines` holds, for each key it was given (a connection), the time by which
that key must be done, always ``seconds`` after it was (re)started.  Since every key
waits the same time, the keys kept in the order they were started are also in the
order of their deadlines: a plain ``dict`` (insertion-ordered) is the queue, and a key
costs a dict entry and a float (tens of bytes, against ~450 for a ``DelayedCall``, its
bound method and its place in the reactor's heap).

One timer (scheduled only while some key waits) sweeps the queue from its front: each
key whose deadline has passed is removed and handed to ``expired``.  Sweeps are at
least ``granularity`` seconds apart and none is scheduled before the first deadline is
due, so a key expires no earlier than its deadline and at most one granularity after
it, and a front end with many waiting connections wakes at most once a granularity.

A sweep may hand over at most ``batch`` keys in one call of the reactor: the rest of
that sweep goes on in the reactor's next turn (``callLater(0)``), after the messages
that came meanwhile, so a key of a long sweep may expire a few turns later than one
granularity after its deadline.  Work that can wait a few turns (writing transcripts,
sending ``WAIT``) then never holds up the answers to many connections at once: at
2,500 games, one sweep of the transcripts' writes took 3.4 ms of the reactor's CPU, and
up to 12 ms.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger

K = TypeVar("K")


class Deadlines(Generic[K]):
    """Keys that must be done within ``seconds`` of their start, checked by one sweep.

    :param reactor: the clock (``seconds()``, ``callLater()``).
    :param seconds: how long each key may wait.
    :param expired: called with each key whose deadline has passed (the key has been
        removed first, so it may start again); an exception it raises is logged.
    :param granularity: the least time between two sweeps: a key expires at most this
        long after its deadline (and, with a ``batch``, the turns its sweep takes).
    :param batch: the most keys handed to ``expired`` in one turn of the reactor (0: no
        limit); a sweep with more due goes on in the next turn.
    """

    log = Logger()

    __slots__ = ("_due", "_expired", "_reactor", "_sweep", "batch", "granularity", "seconds")

    def __init__(
        self,
        reactor: IReactorTime,
        seconds: float,
        expired: Callable[[K], object],
        granularity: float = 1.0,
        batch: int = 0,
    ) -> None:
        if not granularity > 0:
            raise ValueError(f"the granularity must be more than 0 seconds, not {granularity!r}")
        if batch < 0:
            raise ValueError(f"the batch must be 0 (no limit) or more, not {batch!r}")
        self._reactor = reactor
        self.batch = batch
        self.seconds = float(seconds)
        self.granularity = float(granularity)
        self._expired = expired
        #: key → its deadline, in the order of the deadlines
        self._due: dict[K, float] = {}
        self._sweep: IDelayedCall | None = None

    def __len__(self) -> int:
        return len(self._due)

    def __contains__(self, key: object) -> bool:
        return key in self._due

    def keys(self) -> list[K]:
        """The keys waiting, the first deadline first."""
        return list(self._due)

    def deadline(self, key: K) -> float | None:
        """When ``key`` expires (reactor seconds), or ``None`` if it does not wait."""
        return self._due.get(key)

    def start(self, key: K) -> None:
        """(Re)start ``key``'s wait: it expires ``seconds`` from now unless cancelled."""
        due = self._due
        due.pop(key, None)  # to the end of the queue
        due[key] = self._reactor.seconds() + self.seconds
        if self._sweep is None:
            self._schedule()

    def cancel(self, key: K) -> None:
        """``key`` no longer waits (nothing if it did not)."""
        if self._due.pop(key, None) is not None and not self._due:
            self.stop()

    def stop(self) -> None:
        """Forget every key and cancel the sweep."""
        self._due.clear()
        sweep, self._sweep = self._sweep, None
        if sweep is not None and sweep.active():
            sweep.cancel()

    def _schedule(self) -> None:
        """The next sweep: when the first deadline is due, and a granularity from now
        at the earliest."""
        first = next(iter(self._due.values()))
        delay = max(first - self._reactor.seconds(), self.granularity)
        self._sweep = self._reactor.callLater(delay, self._run)

    def _run(self) -> None:
        self._sweep = None
        now = self._reactor.seconds()
        gone = []
        room = self.batch or -1
        for key, deadline in self._due.items():
            if deadline > now or not room:
                break
            gone.append(key)
            room -= 1
        for key in gone:
            del self._due[key]
        if self._due:
            if room:
                self._schedule()
            else:  # more may be due: the rest of this sweep in the reactor's next turn
                self._sweep = self._reactor.callLater(0, self._run)
        for key in gone:
            try:
                self._expired(key)
            except Exception:
                self.log.failure("a deadline's handler failed for {key!r}", key=key)


class Timeouts(Generic[K]):
    """Waits of several lengths with one handler: a :class:`Deadlines` for each length in
    use (a game's options may set its own), made when first asked for.  Lengths nobody
    waits for are dropped once more than :attr:`KEEP` are held.

    :param reactor: the clock (``seconds()``, ``callLater()``).
    :param expired: called with each key whose wait is over (as :class:`Deadlines`).
    :param granularity: each :class:`Deadlines`' least time between two sweeps.
    :param batch: each :class:`Deadlines`' most keys handed over in a turn (0: no limit).
    """

    KEEP = 16

    __slots__ = ("_by_length", "_expired", "_reactor", "batch", "granularity")

    def __init__(
        self,
        reactor: IReactorTime,
        expired: Callable[[K], object],
        granularity: float = 1.0,
        batch: int = 0,
    ) -> None:
        self._reactor = reactor
        self._expired = expired
        self.granularity = granularity
        self.batch = batch
        self._by_length: dict[float, Deadlines[K]] = {}

    def start(self, key: K, seconds: float) -> Deadlines[K]:
        """(Re)start ``key``'s wait of ``seconds``; the :class:`Deadlines` it waits in
        (its :meth:`Deadlines.cancel` ends the wait)."""
        deadlines = self._by_length.get(seconds)
        if deadlines is None:
            if len(self._by_length) >= self.KEEP:
                for length, held in list(self._by_length.items()):
                    if not held:
                        del self._by_length[length]
            deadlines = Deadlines(
                self._reactor, seconds, self._expired, self.granularity, self.batch
            )
            self._by_length[seconds] = deadlines
        deadlines.start(key)
        return deadlines

    def __len__(self) -> int:
        return sum(len(held) for held in self._by_length.values())

    def stop(self) -> None:
        """Forget every wait and cancel the sweeps."""
        for held in self._by_length.values():
            held.stop()
        self._by_length.clear()
