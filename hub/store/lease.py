"""A hub's lease on the database: who it is, that it lives, which chip tables it owns.

A store started for a hub (``start(recover=True)``) takes a lock that shows every other
process it is alive (:mod:`hub.store.locks`: a PostgreSQL advisory lock, a file lock
for SQLite), then writes its lease row (table ``hub_lease``: hub id, lock key, host,
process id, start, heartbeat) and refreshes the heartbeat every ``lease_interval``
seconds, with the database's clock.  Each chip table it opens is a ``chip_table`` row
naming it.  A hub is *live* while its lease is open (``ended`` empty) and its lock is
held, or its heartbeat is recent, or there is no evidence gathered while the database
was up that it is gone (:mod:`hub.store.liveness`).  Crash recovery and the ledger
check trust chips only to live hubs' open tables; recovery ends the leases of dead
hubs.

**Fencing.**  The lease is the fencing token: every chip movement, a new chip table
and a directory write check, in their own transaction, that this hub's lease is open
and the table is still its own.  A hub whose lease another hub ended all the same (it
was cut off from the database for longer than the grace: a real partition) can
therefore move no chip any more, whatever it still believes.  It learns of it at its
next heartbeat (no lease row to refresh) or from a refused movement
(:class:`~hub.store.errors.LeaseEnded`), tells its :meth:`LeaseMixin.on_fenced`
listeners once, stops beating, and may take a new lease (:meth:`LeaseMixin.renew_lease`:
a new hub id, a new member of the cluster) without a restart.

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
from .liveness import FOREVER


class LeaseMixin(StoreBase):
    """The hub's lease: taken at start, refreshed, ended at stop."""

    @defer.inlineCallbacks
    def _open_lease(self) -> Any:
        """Take the lock and write the lease row (the store becomes a hub's)."""
        hub_id = uuid.uuid4().hex[:16]
        lock = self.dialect.hub_lock()
        try:
            key = yield self._in_thread(lock.acquire, hub_id)
        except Exception as e:
            if self.dialect.unavailable(e):  # (a rejoin tries again)
                raise StoreUnavailable(f"the database is unavailable: {e}") from e
            raise
        now, clock = self._now(), self.dialect.clock_sql

        def txn(cur: _Cursor) -> None:
            beat = clock or "?"
            cur.run(
                "INSERT INTO hub_lease (hub_id, lock_key, host, pid, started, heartbeat)"
                f" VALUES (?, ?, ?, ?, ?, {beat})",
                hub_id,
                int(key),
                socket.gethostname()[:256],
                os.getpid(),
                self.dialect.t_in(now),
                *([] if clock else [self.dialect.t_in(now)]),
            )

        try:
            yield self._run(txn)
        except BaseException:
            yield self._in_thread(lock.release)
            raise
        self._lock, self.hub_id, self.fenced = lock, hub_id, False
        self.continuity.max_gap = 2 * self.lease_interval
        self._heartbeat = task.LoopingCall(self._beat)
        self._heartbeat.clock = self._reactor
        self._heartbeat.start(self.lease_interval, now=False)
        if not self._beat_on_return:  # after an outage, take the lock again (and beat) at once
            self._beat_on_return = True
            self.on_availability(lambda up: self._beat() if up and self._beating() else None)
        self.log.info("store: this hub's lease is {hub}", hub=hub_id)

    def _beating(self) -> bool:
        return self.hub_id is not None and not self.fenced

    def on_fenced(self, listener: Callable[[str], Any]) -> None:
        """Call ``listener(old hub id)`` (on the reactor thread) when this hub finds its
        lease ended by another hub (see the module's docstring): its chip tables were
        taken over, it moves no chip any more, and it beats no more until
        :meth:`renew_lease`."""
        self._fenced_listeners.append(listener)

    def lease_ended(self, hub_id: str) -> None:
        """This hub's lease ``hub_id`` was found ended (by a heartbeat, or a refused
        movement): fence this hub, once, and tell the :meth:`on_fenced` listeners."""
        if hub_id != self.hub_id or self.fenced:
            return
        self.fenced = True
        heartbeat, self._heartbeat = self._heartbeat, None
        if heartbeat is not None and heartbeat.running:
            heartbeat.stop()
        self.log.error(
            "store: the lease of this hub ({hub}) was ended by another hub, which took over"
            " its chip tables (it was cut off from the database for longer than the grace);"
            " this hub moves no chips under that lease any more",
            hub=hub_id,
        )
        for listener in list(self._fenced_listeners):
            try:
                listener(hub_id)
            except Exception:
                self.log.failure("store: a fencing listener failed")

    @defer.inlineCallbacks
    def renew_lease(self) -> Any:
        """(A fenced hub.)  Let go of the ended lease's lock and take a new lease: a new
        hub id, a new lock, a new heartbeat.  Returns the new hub id."""
        heartbeat, self._heartbeat = self._heartbeat, None
        if heartbeat is not None and heartbeat.running:
            heartbeat.stop()
        old, lock = self.hub_id, self._lock
        if old is not None:
            self.ended_leases.add(old)
        self.hub_id = None
        yield self._in_thread(lock.release)
        yield self._open_lease()
        self.log.info("store: lease {old} replaced by {new}", old=old, new=self.hub_id)
        return self.hub_id

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
        hub_id, now, clock = self.hub_id, self._now(), self.dialect.clock_sql
        if hub_id is None or self.fenced:
            return defer.succeed(None)
        steps = [make() for make in self._beat_steps]

        def txn(cur: _Cursor) -> tuple[int, float | None]:
            cur.run(
                f"UPDATE hub_lease SET heartbeat = {clock or '?'}"
                " WHERE hub_id = ? AND ended IS NULL",
                *([] if clock else [self.dialect.t_in(now)]),
                hub_id,
            )
            count = int(cur.txn.rowcount)
            if count:
                for step in steps:
                    step(cur, now)
            return count, self.dialect.server_started(cur.txn)

        def updated(result: tuple[int, float | None]) -> None:
            count, started = result
            self.continuity.observe(started)
            if count == 0:
                self.lease_ended(hub_id)

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
                    "UPDATE hub_lease SET ended = ? WHERE hub_id = ? AND ended IS NULL",
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
        return self._run(self._live_hubs, self._window(), write=False)

    def hubs(self) -> defer.Deferred[list[dict[str, Any]]]:
        """Every lease, newest first: ``hub_id``, ``host``, ``pid``, ``started``,
        ``heartbeat``, ``ended``, ``live``, ``tables`` (open chip tables)."""

        window = FOREVER if self.hub_id is None else self._window()

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            d = self.dialect
            live = self._live_hubs(cur, window)
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
