"""Break a real store's database connections on demand, as a lost server or a full
disk would: the store's own classification (``Dialect.unavailable``), availability
tracking and probing then run as in production."""

from __future__ import annotations

import sqlite3
from typing import Any


def driver_error(store: Any) -> Exception:
    """The error the store's driver raises when the database is gone."""
    if store.dialect.name == "sqlite":
        error = sqlite3.OperationalError("disk I/O error")
        error.sqlite_errorname = "SQLITE_IOERR"  # type: ignore[attr-defined]
        return error
    import psycopg2

    return psycopg2.OperationalError("server closed the connection unexpectedly")


class Faults:
    """Installed on a started store: while :attr:`down`, every new transaction fails
    to reach the database; :attr:`lose_commits` commits are applied but their answer
    is lost (the store then cannot know whether they were applied).  Only commits of
    transactions that moved chips (wrote the ledger) lose their answer: the hub's own
    heartbeats and directory writes run at any moment and must not use the fault up."""

    #: what a transaction whose commit answer may be lost has executed
    LOSE_AFTER = "INSERT INTO ledger"

    def __init__(self, store: Any) -> None:
        self.store = store
        self.down = False
        self.lose_commits = 0
        #: the prepared statements (PostgreSQL) that write the ledger
        self.writers: set[str] = set()
        pool = store._pool
        self._connect = pool.connect
        pool.connect = self._connect_or_fail

    def _connect_or_fail(self) -> Any:
        if self.down:
            raise driver_error(self.store)
        return _Connection(self._connect(), self)


class _Connection:
    def __init__(self, conn: Any, faults: Faults) -> None:
        self._conn = conn
        self._faults = faults
        self.moved_chips = False  # in the transaction now open

    def cursor(self) -> Any:
        if self._faults.down:
            raise driver_error(self._faults.store)
        return _Cursor(self._conn.cursor(), self)

    def commit(self) -> None:
        self._conn.commit()
        moved, self.moved_chips = self.moved_chips, False
        if moved and self._faults.lose_commits > 0:
            self._faults.lose_commits -= 1
            raise driver_error(self._faults.store)

    def rollback(self) -> None:
        self.moved_chips = False
        self._conn.rollback()


class _Cursor:
    """A cursor that notes whether its transaction moved chips."""

    def __init__(self, cursor: Any, conn: _Connection) -> None:
        self._cursor = cursor
        self._conn = conn

    def execute(self, sql: str, *args: Any) -> Any:
        faults = self._conn._faults
        if Faults.LOSE_AFTER in sql:
            self._conn.moved_chips = True
            if sql.startswith("PREPARE "):  # its EXECUTEs write the ledger too
                faults.writers.add(sql.split()[1])
        elif "EXECUTE " in sql and any(f"EXECUTE {name}(" in sql for name in faults.writers):
            self._conn.moved_chips = True
        return self._cursor.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        if Faults.LOSE_AFTER in sql:
            self._conn.moved_chips = True
        return self._cursor.executemany(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)

    def __iter__(self) -> Any:
        return iter(self._cursor)
