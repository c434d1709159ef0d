"""A hub's lease on the database: who it is, that it lives, which chip tables it owns.

A store started for a hub (``start(recover=True)``) takes a lock that shows every other
process it is alive (:mod:`hub.store.locks`: a PostgreSQL advisory lock, a file lock
for SQLite), then writes its lease row (table ``hub_lease``: hub id, lock key, host,
process id, start, heartbeat) and refreshes the heartbeat every ``lease_interval``
seconds.  Each chip table it opens is a ``chip_table`` row naming it.  A hub is
*live* while its lease is open (``ended`` empty) and its lock is held; the lock goes
with the process, however it ends.  Crash recovery and the ledger check trust chips
only to live hubs' open tables; recovery ends the leases of dead hubs.

Several hubs may share one PostgreSQL database this way: a hub that starts refunds the
tables of dead hubs only, never a running hub's.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable
from typing import Any

from twisted.internet import defer, task

from .base import StoreBase, _Cursor
from .errors import StoreUnavailable


class LeaseMixin(StoreBase):
    """The hub's lease: taken at start, refreshed, ended at stop."""

    @defer.inlineCallbacks
    def _open_lease(self) -> Any:
        """Take the lock and write the lease row (the store becomes a hub's)."""
        hub_id = uuid.uuid4().hex[:16]
        lock = self.dialect.hub_lock()
        key = yield self._in_thread(lock.acquire, hub_id)
        now = self._now()

        def txn(cur: _Cursor) -> None:
            cur.run(
                "INSERT INTO hub_lease (hub_id, lock_key, host, pid, started, heartbeat)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                hub_id,
                int(key),
                socket.gethostname()[:256],
                os.getpid(),
                self.dialect.t_in(now),
                self.dialect.t_in(now),
            )

        try:
            yield self._run(txn)
        except BaseException:
            yield self._in_thread(lock.release)
            raise
        self._lock, self.hub_id = lock, hub_id
        self._heartbeat = task.LoopingCall(self._beat)
        self._heartbeat.clock = self._reactor
        self._heartbeat.start(self.lease_interval, now=False)
        # after an outage, take the lock again (and beat) at once
        self.on_availability(lambda up: self._beat() if up and self.hub_id == hub_id else None)
        self.log.info("store: this hub's lease is {hub}", hub=hub_id)

    def on_beat(self, step: Callable[[], Callable[[_Cursor, float], None]]) -> None:
        """Write more with each heartbeat, in its transaction: ``step()`` is called on
        the reactor thread at each beat and returns a function ``(cursor, now)`` that
        touches only the cursor (a hub's load figures, :mod:`hub.cluster`)."""
        self._beat_steps.append(step)

    def on_recovery(
        self,
        step: Callable[[_Cursor, list[str], float], Any],
        done: Callable[[list[str], Any], None] | None = None,
    ) -> None:
        """Do more for the dead hubs a :meth:`recover` finds: ``step(cursor, hub ids,
        now)`` runs in recovery's transaction, only for the hubs whose lease that very
        transaction ended (so once per dead hub, however many hubs recover at once);
        ``done(hub ids, what step returned)`` runs on the reactor thread after the
        commit."""
        self._recovery_steps.append((step, done))

    def beat(self) -> defer.Deferred[None]:
        """Refresh the heartbeat now (it also runs every :attr:`lease_interval`)."""
        return self._beat()

    def _beat(self) -> defer.Deferred[None]:
        """Refresh the heartbeat (and the lock, after a lost connection)."""
        hub_id, now = self.hub_id, self._now()
        steps = [make() for make in self._beat_steps]

        def txn(cur: _Cursor) -> int:
            cur.run(
                "UPDATE hub_lease SET heartbeat = ? WHERE hub_id = ? AND ended IS NULL",
                self.dialect.t_in(now),
                hub_id,
            )
            count = int(cur.txn.rowcount)
            if count:
                for step in steps:
                    step(cur, now)
            return count

        def updated(count: int) -> None:
            if count == 0 and self.hub_id == hub_id:
                self.log.error(
                    "store: the lease of this hub ({hub}) was ended by another hub, which"
                    " refunded its tables; its chip tables can move no chips any more",
                    hub=hub_id,
                )

        d = self._in_thread(self._lock.keep)
        d.addCallback(lambda held: self._run(txn))
        d.addCallback(updated)
        d.addErrback(lambda f: f.trap(StoreUnavailable))
        d.addErrback(lambda f: self.log.failure("store: heartbeat failed", f))
        return d

    @defer.inlineCallbacks
    def _close_lease(self) -> Any:
        """End the lease and let go of the lock (the hub stops)."""
        heartbeat, self._heartbeat = self._heartbeat, None
        if heartbeat is not None and heartbeat.running:
            heartbeat.stop()
        hub_id = self.hub_id
        if hub_id is None:
            return
        now = self._now()
        try:
            yield self._run(
                lambda cur: cur.run(
                    "UPDATE hub_lease SET ended = ? WHERE hub_id = ?",
                    self.dialect.t_in(now),
                    hub_id,
                )
            )
        except Exception as e:  # its tables are refunded by the next hub anyway
            self.log.warn("store: could not end the lease {hub}: {e}", hub=hub_id, e=e)
        self.hub_id = None
        yield self._in_thread(self._lock.release)

    def live_hubs(self) -> defer.Deferred[set[str]]:
        """The ids of the hubs alive now (see :meth:`_live_hubs`)."""
        return self._run(self._live_hubs, write=False)

    def hubs(self) -> defer.Deferred[list[dict[str, Any]]]:
        """Every lease, newest first: ``hub_id``, ``host``, ``pid``, ``started``,
        ``heartbeat``, ``ended``, ``live``, ``tables`` (open chip tables)."""

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            d = self.dialect
            live = self._live_hubs(cur)
            tables = {
                r[0]: int(r[1])
                for r in cur.all(
                    "SELECT hub_id, COUNT(*) FROM chip_table WHERE closed IS NULL GROUP BY hub_id"
                )
            }
            return [
                {
                    "hub_id": r[0],
                    "host": r[1],
                    "pid": int(r[2]),
                    "started": d.t_out(r[3]),
                    "heartbeat": d.t_out(r[4]),
                    "ended": d.t_out(r[5]),
                    "live": r[0] in live,
                    "tables": tables.get(r[0], 0),
                }
                for r in cur.all(
                    "SELECT hub_id, host, pid, started, heartbeat, ended FROM hub_lease"
                    " ORDER BY started DESC, hub_id"
                )
            ]

        return self._run(txn, write=False)
