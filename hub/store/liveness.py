"""When a hub counts as dead: only on evidence gathered while the database was up.

A hub's lease (:mod:`hub.store.lease`) shows it alive two ways: its lock (an advisory
lock on PostgreSQL, held by a session of its own; an ``flock`` on SQLite) and its
heartbeat, written every ``lease_interval`` seconds *with the database's clock*.  The
lock goes with the process (``kill -9`` included), but also with the database: a
PostgreSQL restart drops every session's locks, and a hub cut off from the database
cannot beat.  So a lease without its lock is dead only when one of these holds:

- its process is known to have ended (it ran on this machine and no process has its
  id): evidence of this machine, whatever the database did;
- its heartbeat is older than ``lease_grace`` (database clock), **and** the one who
  judges has been connected to the database without a break for longer than the grace
  (its :class:`Continuity`), **and** the database server has been up that long (it did
  not restart meanwhile, unseen between two looks).  Then the heartbeat was missing
  for a whole grace while the database was up and reachable: not an outage that every
  hub shared, but a hub that is gone or cut off from the database alone (a partition).

A survivor therefore never recovers its peers on what an outage did to everyone: after
PostgreSQL is back (12 s later or 5 min), each hub's first try reaches it within
``probe_delays`` (at most 5 s) and beats at once, long before any survivor has been
connected for the grace (15 s).  A tool that only reports (``gamehub ledger check``,
``gamehub cluster status``) judges as if connected for ever: what it says is "not
beating now", and it acts on nothing.

Everything here is pure (numbers in, a verdict out) or driven by an injected clock.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: the window of one who judges without acting (a tool): as if connected for ever
FOREVER = math.inf


@dataclass(frozen=True)
class LeaseSeen:
    """An open lease as one transaction saw it.

    :ivar age: seconds since its last heartbeat, by the database's clock.
    :ivar locked: whether its lock is held now.
    """

    hub_id: str
    host: str
    pid: int
    age: float
    locked: bool


def alive(
    lease: LeaseSeen,
    *,
    grace: float,
    window: float,
    uptime: float,
    gone: Callable[[str, int], bool],
) -> bool:
    """Whether ``lease``'s hub counts as alive (see the module's docstring).

    :param grace: ``lease_grace``, seconds.
    :param window: how long the one who judges has been connected without a break.
    :param uptime: how long the database server has been up.
    :param gone: ``(host, pid) →`` whether that process is known to have ended.
    """
    if lease.locked:
        return True
    if gone(lease.host, lease.pid):
        return False
    evidence = min(window, uptime)
    return lease.age < grace or evidence < grace


class Continuity:
    """How long this hub has been connected to the database without a break.

    Fed on the reactor thread: :meth:`observe` after each transaction that read the
    database server's start time (the cluster's member check every second, each
    heartbeat), :meth:`lost` when the store finds the database unavailable.  The
    window starts again after a loss, after a gap of more than ``max_gap`` seconds
    between two observations (an outage may have passed unseen in it), and when the
    server's start time changes (it restarted, or a standby took over).

    :param clock: ``IReactorTime`` (the window is measured on this hub's clock: a
        duration, so the clocks of the hubs and the database need not agree).
    """

    def __init__(self, clock: Any, max_gap: float) -> None:
        self._clock = clock
        self.max_gap = max_gap
        self._since: float | None = None
        self._last = -math.inf
        self._server: float | None = None

    def observe(self, server_started: float | None) -> None:
        """A transaction just worked; the server says it started at ``server_started``
        (seconds since the epoch; ``None`` when it cannot say)."""
        now = self._clock.seconds()
        restarted = server_started is not None and server_started != self._server
        if self._since is None or now - self._last > self.max_gap or restarted:
            self._since = now
        self._server = server_started if server_started is not None else self._server
        self._last = now

    def lost(self) -> None:
        """The database could not be reached: the window starts again at the next
        observation."""
        self._since = None

    def window(self) -> float:
        """Seconds connected without a break, as of the last observation (0 before
        the first, or after a loss or a long gap)."""
        if self._since is None or self._clock.seconds() - self._last > self.max_gap:
            return 0.0
        return self._last - self._since
