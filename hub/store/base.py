"""The common part of the store: the connection pool, transactions, start and stop,
and the account row type.

Each database interaction runs in a pool thread and touches only its cursor; it returns
plain values (never a protocol, never a Deferred).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from twisted.internet import defer, threads
from twisted.logger import Logger

from . import accounts as acc
from . import schema
from .dialect import Dialect, dialect_for
from .errors import (
    StoreError,
    UnknownAccount,
)
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


def _now_default(reactor: Any) -> float:
    return float(reactor.seconds())


class StoreBase:
    """The plumbing every part of :class:`hub.store.store.Store` shares.

    :param dsn: ``sqlite:<path>`` or ``postgresql://user:pass@host:port/db``.
    :param reactor: provides ``IReactorCore``, ``IReactorThreads``, ``IReactorTime``.
    :param grant: chips a new account receives (``Decimal``; default 1000.00).
    :param clock: what the login throttle reads time from (default: ``reactor``).
    :param scrypt: :class:`hub.store.accounts.ScryptParams` (tests may lower the cost).
    :param throttle: the :class:`hub.store.accounts.LoginThrottle` of failed logins
        (default: one with its default limits on ``clock``).
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
        **dialect_options: Any,
    ) -> None:
        self._reactor = reactor
        self.dialect = dialect_for(dsn, **dialect_options)
        self.dsn = dsn
        self.new_account_grant = check_amount(grant, allow_zero=True)
        self._scrypt = scrypt or acc.ScryptParams()
        self._throttle = throttle if throttle is not None else acc.LoginThrottle(clock or reactor)
        self._pool: Any = None
        self._started = False
        self.recovered: list[tuple[str, str, Decimal]] = []

    # -- plumbing ------------------------------------------------------------------

    def _now(self) -> float:
        return _now_default(self._reactor)

    def _in_thread(self, f: Any, *args: Any) -> defer.Deferred[Any]:
        return threads.deferToThreadPool(self._reactor, self._reactor.getThreadPool(), f, *args)

    def _run(self, fn: Any, *args: Any, write: bool = True) -> defer.Deferred[Any]:
        """Run ``fn(cursor, *args)`` in one transaction in a pool thread."""
        if self._pool is None:
            return defer.fail(StoreError("the store is not started (call start() first)"))

        def interaction(txn: Any) -> Any:
            self.dialect.begin(txn, write)
            return fn(_Cursor(txn, self.dialect), *args)

        return self._pool.runInteraction(interaction)

    def _snapshot(self, fn: Any, *args: Any) -> defer.Deferred[Any]:
        if self._pool is None:
            return defer.fail(StoreError("the store is not started (call start() first)"))

        def interaction(txn: Any) -> Any:
            self.dialect.begin_snapshot(txn)
            return fn(_Cursor(txn, self.dialect), *args)

        return self._pool.runInteraction(interaction)

    def _retry_integrity(self, fn: Any, *args: Any) -> defer.Deferred[Any]:
        """Run a movement; if a concurrent transaction with the same key won the race
        (a unique violation), run it once more, which then finds the key."""

        def again(failure: Any) -> Any:
            failure.trap(*self.dialect.integrity_errors)
            return self._run(fn, *args)

        return self._run(fn, *args).addErrback(again)

    # -- life ------------------------------------------------------------------------

    @defer.inlineCallbacks
    def start(self, recover: bool = True) -> Any:
        """Open the database, migrate it to the current schema, then return chips left
        at tables by a previous run to their accounts (:meth:`recover`).

        :param recover: ``False`` for tools that share the database with a running
            hub (``gamehub ledger check``): they must not touch chips in play.

        Starting a started store does nothing (recovery runs once per start).

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

    def stop(self) -> defer.Deferred[None]:
        """Close the connections."""
        pool, self._pool = self._pool, None
        self._started = False
        if pool is not None:
            pool.close()
        return defer.succeed(None)

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

    def recover(self) -> defer.Deferred[Any]:
        """See :meth:`hub.store.ledger.LedgerMixin.recover`."""
        raise NotImplementedError
