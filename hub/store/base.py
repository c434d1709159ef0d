"""The common part of the store: the connection pool, transactions, start and stop,
and the account row type.

Each database interaction runs in a pool thread and touches only its cursor; it returns
plain values (never a protocol, never a Deferred).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from twisted.internet import defer, threads
from twisted.logger import Logger
from twisted.python.failure import Failure

from . import accounts as acc
from . import schema
from .dialect import Dialect, dialect_for
from .errors import (
    CommitUnknown,
    StoreError,
    StoreUnavailable,
    UnknownAccount,
)
from .liveness import FOREVER, Continuity, alive
from .locks import process_gone
from .money import amount as check_amount

ZERO = Decimal("0.00")
#: ledger kinds that create or destroy chips; every other kind only moves them
ISSUING = ("grant", "close")
KINDS = ("grant", "close", "buy_in", "cash_out", "settle", "refund")


@dataclass(frozen=True)
class Account:
    """An account as the store knows it.

    :ivar type: ``player``, ``bot`` or ``admin``; :attr:`type_code` is 0, 1 or 2.
    :ivar created: seconds since the epoch.
    """

    id: int
    name: str
    type: str
    balance: Decimal
    created: float | None = None

    @property
    def type_code(self) -> int:
        """0 player, 1 bot, 2 admin (the XML ``accounttype``)."""
        return acc.TYPES[self.type]


class _Cursor:
    """A transaction's cursor that speaks ``?`` placeholders."""

    def __init__(self, txn: Any, dialect: Dialect) -> None:
        self.txn = txn
        self.d = dialect

    def run(self, query: str, *params: Any) -> None:
        self.txn.execute(self.d.sql(query), params)

    def one(self, query: str, *params: Any) -> Any:
        self.run(query, *params)
        return self.txn.fetchone()

    def all(self, query: str, *params: Any) -> list[Any]:
        self.run(query, *params)
        return list(self.txn.fetchall())

    def batch(
        self, statements: Sequence[tuple[str, Sequence[Any]]], alone: bool = False
    ) -> list[Any]:
        """Run ``statements`` (``(query, params)`` each) in order; the rows of the last.

        A dialect that can (:attr:`Dialect.batches`: PostgreSQL) sends them in one
        round trip, each statement still run, and its locks taken, in order (the
        statements prepared once per connection: :meth:`Dialect.batch_text`).

        ``alone``: the batch is the whole transaction (its function's only call):
        PostgreSQL runs the one message as a transaction of its own, without the
        round trips of a ``BEGIN`` and a ``COMMIT`` (:meth:`Dialect.execute_alone`).
        Its statements must be safe to run twice: a connection lost while the message
        was under way may have committed it, and :meth:`StoreBase._run` tries once more.
        """
        if self.d.batches:
            query = self.d.batch_text(self.txn, [q for q, _ in statements])
            values = [p for _, ps in statements for p in ps]
            if alone:
                self.d.execute_alone(self.txn, query, values)
            else:
                self.txn.execute(query, values)
        else:
            for query, params in statements:
                self.txn.execute(self.d.sql(query), tuple(params))
        return list(self.txn.fetchall())


class SlowPath(Exception):
    """A transaction's fast path cannot do it (a replayed key, a refusal to explain):
    :meth:`StoreBase._run` rolls it back and runs its ``fallback`` instead, in a new
    transaction of the same interaction."""


def _reason(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


class StoreBase:
    """The plumbing every part of :class:`hub.store.store.Store` shares.

    :param dsn: ``sqlite:<path>`` or ``postgresql://user:pass@host:port/db``.
    :param reactor: provides ``IReactorCore``, ``IReactorThreads``, ``IReactorTime``.
    :param grant: chips a new account receives (``Decimal``; default 1000.00).
    :param clock: what the login throttle reads time from (default: ``reactor``).
    :param scrypt: :class:`hub.store.accounts.ScryptParams` (tests may lower the cost).
    :param throttle: the :class:`hub.store.accounts.LoginThrottle` of failed logins
        (default: one with its default limits on ``clock``).
    :param probe_delays: ``(first, most)`` seconds between tries to reach the database
        again after it became unavailable (doubling from ``first`` up to ``most``).
    :param hand_record_max: most characters of each JSON part of a stored hand (the
        ``hand_record_max`` setting; see :meth:`hub.store.history.HistoryMixin.record_hand`).
    :param history_batch_seconds: how long a finished game may wait to be written with
        others in one transaction (0: each alone); the ``history_*`` settings, see
        :meth:`hub.store.history.HistoryMixin.record_game`.
    :param history_batch_max: most finished games in one transaction.
    :param history_queue_max: most finished games waiting to be written
        (while the database is away, say); past it a game is refused.
    :param lease_interval: seconds between a hub's heartbeats (default
        :attr:`lease_interval`).
    :param lease_grace: seconds without a heartbeat before a hub may be judged dead
        (default :attr:`lease_grace`; :mod:`hub.store.liveness`).

    :ivar available: ``False`` from a failed connection to the database until a
        transaction or a probe works again (see :meth:`on_availability`).
    """

    log = Logger()

    def __init__(
        self,
        dsn: str,
        reactor: Any,
        *,
        grant: Decimal | int | str = Decimal("1000.00"),
        clock: Any = None,
        scrypt: acc.ScryptParams | None = None,
        throttle: acc.LoginThrottle | None = None,
        probe_delays: tuple[float, float] = (0.25, 5.0),
        hand_record_max: int = 65536,
        history_batch_seconds: float = 0.1,
        history_batch_max: int = 64,
        history_queue_max: int = 10000,
        lease_interval: float | None = None,
        lease_grace: float | None = None,
        **dialect_options: Any,
    ) -> None:
        self._reactor = reactor
        self._lease_settings(lease_interval, lease_grace)
        self.dialect = dialect_for(dsn, **dialect_options)
        self.dsn = dsn
        self.new_account_grant = check_amount(grant, allow_zero=True)
        self._scrypt = scrypt or acc.ScryptParams()
        self._throttle = throttle if throttle is not None else acc.LoginThrottle(clock or reactor)
        self._pool: Any = None
        self._started = False
        self.recovered: list[tuple[str, str, Decimal]] = []
        self.available = True
        self._availability: list[Callable[[bool], Any]] = []
        self._probe_delays = probe_delays
        if isinstance(hand_record_max, bool) or not isinstance(hand_record_max, int):
            raise TypeError("hand_record_max is a number of characters")
        self.hand_record_max = hand_record_max
        if history_batch_seconds < 0 or history_batch_max < 1 or history_queue_max < 1:
            raise ValueError(
                "history_batch_seconds is 0 or more, history_batch_max and history_queue_max"
                " 1 or more"
            )
        self.history_batch_seconds = float(history_batch_seconds)
        self.history_batch_max = int(history_batch_max)
        self.history_queue_max = int(history_queue_max)
        #: finished games waiting for their message (:mod:`hub.store.history`)
        self._history: deque[Any] = deque()
        self._history_timer: Any = None
        #: the message carrying finished games now (one at a time: they commit in order)
        self._history_sending: defer.Deferred[Any] | None = None
        #: games of a refused message being written one by one
        self._history_alone: set[defer.Deferred[Any]] = set()
        self._availability.append(self._history_availability)
        self._probe_delay = probe_delays[0]
        self._probe: Any = None
        #: how many times the store was found unavailable so far
        self._outages = 0
        #: this hub's id while the store holds a lease (:mod:`hub.store.lease`)
        self.hub_id: str | None = None
        self._lock = self.dialect.hub_lock()
        self._heartbeat: Any = None
        #: whether this hub's lease was found ended by another hub (:mod:`hub.store.lease`)
        self.fenced = False
        #: this hub's earlier leases that another hub ended (:meth:`renew_lease`)
        self.ended_leases: set[str] = set()
        self._fenced_listeners: list[Callable[[str], Any]] = []
        self._beat_on_return = False
        #: how long this hub has been connected to the database without a break: the
        #: evidence window a recovery needs (:mod:`hub.store.liveness`)
        self.continuity = Continuity(reactor, 2 * self.lease_interval)
        self._availability.append(lambda up: None if up else self.continuity.lost())
        #: what else each heartbeat writes (:meth:`hub.store.lease.LeaseMixin.on_beat`)
        self._beat_steps: list[Callable[[], Callable[[_Cursor, float], None]]] = []
        #: what else recovery does for the hubs it finds dead
        #: (:meth:`hub.store.lease.LeaseMixin.on_recovery`)
        self._recovery_steps: list[Any] = []
        #: ``observer(fn, seconds, ok, result)`` after each transaction (on the reactor
        #: thread): the hub's metrics (:meth:`hub.ops.telemetry.Telemetry.store_transaction`)
        self.query_observer: Callable[[Any, float, bool, Any], None] | None = None

    def _lease_settings(self, interval: float | None, grace: float | None) -> None:
        if interval is not None:
            self.lease_interval = float(interval)
        if grace is not None:
            self.lease_grace = float(grace)
        if not 0 < self.lease_interval < self.lease_grace:
            raise ValueError("lease_interval is more than 0 and less than lease_grace")

    # -- plumbing ------------------------------------------------------------------

    def _now(self) -> float:
        return float(self._reactor.seconds())

    def _in_thread(self, f: Any, *args: Any) -> defer.Deferred[Any]:
        return threads.deferToThreadPool(self._reactor, self._reactor.getThreadPool(), f, *args)

    def _run(
        self, fn: Any, *args: Any, write: bool = True, fallback: Any = None
    ) -> defer.Deferred[Any]:
        """Run ``fn(cursor, *args)`` in one transaction in a pool thread.

        :param fallback: when ``fn`` raises :class:`SlowPath`, its transaction is rolled
            back and ``fallback(cursor, *args)`` runs in a new one (same thread, same
            interaction: one result, one observation).
        :raises hub.store.errors.StoreUnavailable: the database cannot be reached (the
            store is then :attr:`available` no more until it can).
        """
        return self._interact(fn, args, lambda cursor: self.dialect.begin(cursor, write), fallback)

    def _snapshot(self, fn: Any, *args: Any) -> defer.Deferred[Any]:
        """Run ``fn(cursor, *args)`` in a read-only transaction that sees one snapshot."""
        return self._interact(fn, args, self.dialect.begin_snapshot)

    def _interact(
        self, fn: Any, args: tuple[Any, ...], begin: Any, fallback: Any = None
    ) -> defer.Deferred[Any]:
        pool = self._pool
        if pool is None:
            return defer.fail(StoreError("the store is not started (call start() first)"))
        d = threads.deferToThreadPool(
            self._reactor, pool.threadpool, self._transaction, pool, fn, args, begin, fallback
        )
        if self.available:
            # a success then says nothing new: the store is still available, or a
            # transaction that began later found it unavailable (see _worked)
            d.addErrback(self._failed)
        else:
            d.addCallbacks(self._worked, self._failed, callbackArgs=(self._outages,))
        observer = self.query_observer
        if observer is not None:
            started = time.perf_counter()

            def observe(result: Any) -> Any:
                ok = not isinstance(result, Failure)
                try:
                    observer(fn, time.perf_counter() - started, ok, result if ok else None)
                except Exception:
                    self.log.failure("store query observer failed")
                return result

            d.addBoth(observe)
        return d

    def _transaction(
        self, pool: Any, fn: Any, args: tuple[Any, ...], begin: Any, fallback: Any = None
    ) -> Any:
        """(In a pool thread.)  One transaction on this thread's connection.  A
        connection the server dropped is replaced, and the transaction tried once more on
        the new one when it failed before committing (so nothing was applied).  When
        ``fn`` raises :class:`SlowPath`, ``fallback`` runs instead (see :meth:`_run`)."""
        for attempt in (1, 2):
            conn = self._connect(pool)
            try:
                try:
                    result = self._once(conn, fn, args, begin)
                except SlowPath:
                    if fallback is None:
                        raise
                    self._rollback(pool, conn)
                    result = self._once(conn, fallback, args, begin)
            except BaseException as e:
                self._rollback(pool, conn)
                if not self.dialect.unavailable(e):
                    raise
                if attempt == 2:
                    raise StoreUnavailable(f"the database is unavailable: {_reason(e)}") from e
                continue
            try:
                conn.commit()
            except BaseException as e:
                self._rollback(pool, conn)
                if self.dialect.unavailable(e):
                    raise CommitUnknown(
                        f"the database failed while committing: {_reason(e)}"
                    ) from e
                raise
            return result
        raise AssertionError("unreachable")

    def _once(self, conn: Any, fn: Any, args: tuple[Any, ...], begin: Any) -> Any:
        cursor = conn.cursor()
        try:
            begin(cursor)
            return fn(_Cursor(cursor, self.dialect), *args)
        finally:
            cursor.close()

    def _connect(self, pool: Any) -> Any:
        try:
            return pool.connect()
        except BaseException as e:
            if self.dialect.unavailable(e):
                raise StoreUnavailable(f"the database is unavailable: {_reason(e)}") from e
            raise

    @staticmethod
    def _rollback(pool: Any, conn: Any) -> None:
        """Roll back; a connection that cannot even do that is closed and dropped."""
        try:
            conn.rollback()
        except Exception:
            try:
                pool.disconnect(conn)
            except Exception:  # not this thread's connection any more
                pass

    # -- availability ----------------------------------------------------------------

    def on_availability(self, listener: Callable[[bool], Any]) -> None:
        """Call ``listener(available)`` each time the store becomes unavailable or
        available again (on the reactor thread)."""
        self._availability.append(listener)

    def _worked(self, result: Any, outages: int = -1) -> Any:
        # a transaction that began before the store was found unavailable proves
        # nothing about now (another one failed since it began)
        if not self.available and outages in (-1, self._outages):
            self._set_available(True)
        return result

    def _failed(self, failure: Any) -> Any:
        if failure.check(StoreUnavailable) and self.available:
            self._set_available(False, failure.getErrorMessage())
        return failure

    def _set_available(self, up: bool, reason: str = "") -> None:
        self.available = up
        if not up:
            self._outages += 1
        if up:
            self._probe_delay = self._probe_delays[0]
            if self._probe is not None and self._probe.active():
                self._probe.cancel()
            self._probe = None
            self.log.info("store {db} is available again", db=self.dialect.describe())
        else:
            self.log.error(
                "store {db} unavailable: {reason}", db=self.dialect.describe(), reason=reason
            )
            self._schedule_probe()
        for listener in list(self._availability):
            try:
                listener(up)
            except Exception:
                self.log.failure("store availability listener failed")

    def _schedule_probe(self) -> None:
        if self._pool is None or (self._probe is not None and self._probe.active()):
            return
        delay, self._probe_delay = (
            self._probe_delay,
            min(self._probe_delay * 2, self._probe_delays[1]),
        )
        self._probe = self._reactor.callLater(delay, self._try_again)

    def _try_again(self) -> None:
        self._probe = None
        if self.available or self._pool is None:
            return
        d = self._run(lambda cur: cur.one("SELECT 1"), write=False)
        d.addErrback(lambda f: f.trap(StoreUnavailable))
        d.addErrback(lambda f: self.log.failure("store probe failed", f))
        d.addBoth(lambda _: None if self.available else self._schedule_probe())

    def _retry_integrity(self, fn: Any, *args: Any, fallback: Any = None) -> defer.Deferred[Any]:
        """Run a movement; if a concurrent transaction with the same key won the race
        (a unique violation), run it once more, which then finds the key."""

        def again(failure: Any) -> Any:
            failure.trap(*self.dialect.integrity_errors)
            return self._run(fn, *args, fallback=fallback)

        return self._run(fn, *args, fallback=fallback).addErrback(again)

    # -- life ------------------------------------------------------------------------

    @defer.inlineCallbacks
    def start(self, recover: bool = True) -> Any:
        """Open the database and migrate it to the current schema; then, for a hub,
        take this hub's lease (:mod:`hub.store.lease`) and return chips left at the
        tables of dead hubs to their accounts (:meth:`recover`).

        :param recover: ``False`` for tools that share the database with running hubs
            (``gamehub ledger check``): no lease, and they must not touch chips in play.

        Starting a started store does nothing.

        :raises hub.store.errors.SchemaTooNew: the database is newer than this code.
        """
        if self._started:
            return
        if self._pool is None:
            self._pool = self.dialect.pool(self._reactor)
            self._pool.start()
        try:
            before, after = yield self.migrate()
            if before != after:
                self.log.info(
                    "store {db}: schema upgraded from {before} to {after}",
                    db=self.dialect.describe(),
                    before=before,
                    after=after,
                )
            if recover:
                yield self._open_lease()
                yield self.recover()
        except Exception:
            yield self.stop()
            raise
        self._started = True
        self.log.info("store {db} ready", db=self.dialect.describe())

    def migrate(self, target: int | None = None) -> defer.Deferred[tuple[int, int]]:
        """Bring the schema to ``target`` (default: the newest); fires with
        ``(version before, version after)``."""
        if self._pool is None:
            self._pool = self.dialect.pool(self._reactor)
            self._pool.start()
        return self._run(lambda cur: schema.migrate(cur.txn, self.dialect, target))

    @defer.inlineCallbacks
    def stop(self) -> Any:
        """Write the finished games still waiting, end this hub's lease and close the
        connections."""
        if self._pool is not None:
            yield self._history_drain()
        if self.hub_id is not None and self._pool is not None:
            yield self._close_lease()
        pool, self._pool = self._pool, None
        self._started = False
        if self._probe is not None and self._probe.active():
            self._probe.cancel()
        self._probe = None
        if pool is not None:
            pool.close()

    # -- accounts ------------------------------------------------------------------

    def _account(self, row: Sequence[Any]) -> Account:
        return Account(
            id=int(row[0]),
            name=row[1],
            type=acc.TYPE_NAMES.get(int(row[2]), "player"),
            balance=self.dialect.m_out(row[3]),
            created=self.dialect.t_out(row[4]),
        )

    _ACCOUNT_COLUMNS = "id, name, type, balance, created"

    def _find(self, cur: _Cursor, name: str, lock: bool = False) -> Account:
        if not isinstance(name, str):
            raise UnknownAccount("no such account")
        row = cur.one(
            f"SELECT {self._ACCOUNT_COLUMNS} FROM account WHERE name_key = ?"
            + (self.dialect.for_update if lock else ""),
            acc.name_key(name),
        )
        if row is None:
            raise UnknownAccount(f"no account named {name!r}")
        return self._account(row)

    #: seconds between a hub's heartbeats, and how long a lease whose lock is not held
    #: (a PostgreSQL restart drops every session's locks) still counts as alive after
    #: its last heartbeat (database clock): a survivor judges it dead only once it has
    #: itself been connected for longer than that (:mod:`hub.store.liveness`)
    lease_interval = 5.0
    lease_grace = 15.0

    def _window(self) -> float:
        """(On the reactor thread.)  The evidence window this store judges other hubs
        with: a hub's own :attr:`continuity`; a tool's (no lease), and SQLite's (whose
        lock is proof), for ever."""
        if self.hub_id is None or self.dialect.clock_sql is None:
            return FOREVER
        return self.continuity.window()

    def _live_hubs(self, cur: _Cursor, window: float) -> set[str]:
        """(In a transaction.)  The ids of the live hubs (:func:`hub.store.liveness.alive`
        of each open lease, judged with ``window``, :meth:`_window`)."""
        seen = self.dialect.leases(cur.txn, self._lock, self._now())
        live = {
            lease.hub_id
            for lease in seen.leases
            if alive(
                lease,
                grace=self.lease_grace,
                window=window,
                uptime=seen.uptime,
                gone=process_gone,
            )
        }
        if self.hub_id is not None:
            live.add(self.hub_id)
        return live

    def recover(self) -> defer.Deferred[Any]:
        """See :meth:`hub.store.tables.TablesMixin.recover`."""
        raise NotImplementedError

    def _history_availability(self, up: bool) -> None:
        """See :meth:`hub.store.history.HistoryMixin._history_availability`."""

    def _history_take(self) -> list[Any]:
        """See :meth:`hub.store.history.HistoryMixin._history_take`."""
        return []

    def _history_statements(self, games: list[Any]) -> list[tuple[str, list[Any]]]:
        """See :meth:`hub.store.history.HistoryMixin._history_statements`."""
        return []

    def _history_sent(self, result: Any, games: list[Any]) -> Any:
        """See :meth:`hub.store.history.HistoryMixin._history_sent`."""
        return result

    def _history_drain(self) -> defer.Deferred[Any]:
        """See :meth:`hub.store.history.HistoryMixin._history_drain`."""
        return defer.succeed(None)

    def _open_lease(self) -> defer.Deferred[Any]:
        """See :meth:`hub.store.lease.LeaseMixin._open_lease`."""
        raise NotImplementedError

    def _close_lease(self) -> defer.Deferred[Any]:
        """See :meth:`hub.store.lease.LeaseMixin._close_lease`."""
        raise NotImplementedError
