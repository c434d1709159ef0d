"""The MNM front end's timers: places in queues that one sweep checks
(:mod:`hub.connections.deadlines`), not a ``DelayedCall`` a connection.

- the prolog's answers (``mnm_prolog_timeout``, swept every ``timeout_granularity``);
- when an idle connection is sent its ``WAIT`` (``mnm_wait_interval``, or the game's
  ``wait_interval_ms``) and when the ``OKWAIT`` is late (``mnm_wait_timeout``, or
  ``wait_timeout_ms``), swept every :data:`WAIT_GRANULARITY`.

At 2,500 games a ``DelayedCall`` for each idle spell, with its three bound methods, was
a third of what the collector walked; a place in a queue is a dict entry and a float.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from twisted.internet.interfaces import IReactorTime

from hub.connections.deadlines import Deadlines, Timeouts

#: seconds between two sweeps of the WAIT timers: a WAIT (due after the interval; the
#: protocol asks for one at least every 2 s) is at most this late
WAIT_GRANULARITY = 0.05

#: connections a WAIT sweep serves in one turn of the reactor at most (a sweep with
#: more goes on in the next turn, after the moves that came meanwhile; at 2,500 games
#: one sweep took up to 11.6 ms)
WAIT_BATCH = 64


class Timed(Protocol):
    """A connection these timers call."""

    def timeoutConnection(self) -> None:  # noqa: N802  (Twisted's name)
        """The prolog's answer did not come in time."""

    def send_wait(self) -> None:
        """The connection has been idle for its interval: ``WAIT``, if it still is."""

    def wait_expired(self) -> None:
        """The ``OKWAIT`` did not come in time."""


def _prolog_late(conn: Timed) -> None:
    conn.timeoutConnection()


def _wait_due(conn: Timed) -> None:
    conn.send_wait()


def _answer_late(conn: Timed) -> None:
    conn.wait_expired()


def prolog_deadlines(clock: IReactorTime, options: Mapping[str, Any]) -> Deadlines[Timed]:
    """The deadlines of the prolog's answers (``mnm_prolog_timeout``), swept every
    ``timeout_granularity`` seconds: a silent client is closed at most that late."""
    return Deadlines(
        clock,
        float(options["mnm_prolog_timeout"]),
        _prolog_late,
        float(options["timeout_granularity"]),
    )


class WaitTimers:
    """The ``WAIT`` timers of a front end's connections: when an idle one is sent its
    ``WAIT`` (``waits``) and when its answer is late (``answers``)."""

    __slots__ = ("answers", "waits")

    def __init__(self, clock: IReactorTime) -> None:
        self.waits: Timeouts[Timed] = Timeouts(clock, _wait_due, WAIT_GRANULARITY, WAIT_BATCH)
        self.answers: Timeouts[Timed] = Timeouts(clock, _answer_late, WAIT_GRANULARITY, WAIT_BATCH)


__all__ = ["WAIT_BATCH", "WAIT_GRANULARITY", "Timed", "WaitTimers", "prolog_deadlines"]
