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
    is lost (the store then cannot know whether they were applied)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.down = False
        self.lose_commits = 0
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

    def cursor(self) -> Any:
        if self._faults.down:
            raise driver_error(self._faults.store)
        return self._conn.cursor()

    def commit(self) -> None:
        self._conn.commit()
        if self._faults.lose_commits > 0:
            self._faults.lose_commits -= 1
            raise driver_error(self._faults.store)

    def rollback(self) -> None:
        self._conn.rollback()
