"""What differs between SQLite and PostgreSQL, in one place.

The store writes its SQL once, with ``?`` placeholders; a dialect turns it into the
driver's parameter style, converts money and times to and from the column types, and
builds the ``adbapi`` connection pool.

Money: PostgreSQL keeps ``NUMERIC(20,2)`` (psycopg2 speaks ``Decimal``); SQLite keeps
integer cents (exact, and SQL arithmetic on it stays exact).  Times: ``TIMESTAMPTZ`` in
PostgreSQL, ISO-8601 UTC text in SQLite (which sorts in time order).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from twisted.enterprise import adbapi

from .liveness import FOREVER, LeaseSeen
from .locks import LEASES_SQL, NAMESPACE, AdvisoryHubLock, FileHubLock, HubLock
from .money import CENT, from_cents, to_cents

#: the first words of the statements PostgreSQL can prepare
PREPARABLE = ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH")


@dataclass(frozen=True)
class Leases:
    """The open leases as one transaction saw them, and the database server's life.

    :ivar uptime: seconds the server has been up (``inf`` where the database is a
        file: SQLite).
    :ivar server_started: when the server started (seconds since the epoch; ``None``
        for SQLite): a change means it restarted.
    """

    leases: list[LeaseSeen]
    uptime: float
    server_started: float | None


class Dialect:
    """The common part; see :class:`SQLiteDialect` and :class:`PostgresDialect`."""

    name = ""
    #: column type of money, of an auto-increment primary key, of a point in time
    money = ""
    serial = ""
    timestamp = ""
    #: appended to a locking ``SELECT`` (exclusive, shared)
    for_update = ""
    for_share = ""
    integrity_errors: tuple[type[BaseException], ...] = ()
    #: the database's own clock in SQL (``None``: the hub's clock is passed instead);
    #: heartbeats are written with it, so their age does not depend on the hubs' clocks
    clock_sql: str | None = None
    #: whether several statements go to the server in one round trip (``"a; b"``)
    batches = False
    #: errors of a transaction the database rolled back to keep it serialisable (a
    #: concurrent update under ``REPEATABLE READ``, a deadlock): trying again may work
    rollback_errors: tuple[type[BaseException], ...] = ()

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn

    def sql(self, query: str) -> str:
        """``query`` in the driver's parameter style."""
        return query

    def m_in(self, value: Decimal) -> Any:
        """A ``Decimal`` → the value bound for a money column."""
        raise NotImplementedError

    def m_out(self, value: Any) -> Decimal:
        """A money column's value → ``Decimal`` (``None`` → 0)."""
        raise NotImplementedError

    def t_in(self, seconds: float) -> Any:
        """Seconds since the epoch → the value bound for a time column."""
        raise NotImplementedError

    def t_out(self, value: Any) -> float | None:
        """A time column's value → seconds since the epoch."""
        raise NotImplementedError

    def begin(self, cursor: Any, write: bool) -> None:
        """Start the transaction of one interaction."""

    def begin_snapshot(self, cursor: Any) -> None:
        """Start a read-only transaction that sees one consistent snapshot."""
        self.begin(cursor, write=False)

    def pool(self, reactor: Any) -> adbapi.ConnectionPool:
        """A new (not yet started) connection pool."""
        raise NotImplementedError

    def restart_serial(self, cursor: Any, table: str, column: str) -> None:
        """After rows were copied into ``table`` with their ids: make the next id of its
        serial ``column`` follow the largest (SQLite's ``AUTOINCREMENT`` does so by
        itself)."""

    def unavailable(self, error: BaseException) -> bool:
        """Whether ``error`` means the database cannot be reached or written now (a lost
        connection, a full disk), rather than a refused statement."""
        return False

    def hub_lock(self) -> HubLock:
        """A new (not yet taken) lock that shows other processes a hub is alive."""
        raise NotImplementedError

    def leases(self, cursor: Any, lock: HubLock, now: float) -> Leases:
        """The open leases (run in a transaction; ``lock`` is this process's, taken or
        not; ``now``: the hub's clock, where the database has none of its own)."""
        raise NotImplementedError

    def server_started(self, cursor: Any) -> float | None:
        """When the database server started (seconds since the epoch), or ``None``
        where it has no server (SQLite)."""
        return None

    def describe(self) -> str:
        """The DSN without a password, for logs."""
        return self.dsn

    def batch_text(self, cursor: Any, queries: Sequence[str]) -> str:
        """The one message that runs ``queries`` (``?`` placeholders) in order, in the
        driver's parameter style (only where :attr:`batches`)."""
        return self.sql("; ".join(queries))

    def execute_alone(self, cursor: Any, query: str, params: Sequence[Any]) -> None:
        """Run the message ``query`` (:meth:`batch_text`) as a whole transaction (only
        where :attr:`batches`)."""
        cursor.execute(query, params)


class SQLiteDialect(Dialect):
    """SQLite through the standard library: one connection, WAL, a busy timeout."""

    name = "sqlite"
    money = "INTEGER"
    serial = "INTEGER PRIMARY KEY AUTOINCREMENT"
    timestamp = "TEXT"
    integrity_errors = (sqlite3.IntegrityError,)

    def __init__(self, dsn: str, busy_timeout: float = 10.0) -> None:
        super().__init__(dsn)
        path = dsn[len("sqlite:") :]
        if path.startswith("//"):
            path = path[2:]
        if not path:
            raise ValueError("sqlite DSN needs a path: sqlite:<path>")
        self.path = path
        self.busy_timeout = busy_timeout

    def m_in(self, value: Decimal) -> int:
        return to_cents(value)

    def m_out(self, value: Any) -> Decimal:
        return from_cents(value or 0)

    def t_in(self, seconds: float) -> str:
        return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def t_out(self, value: Any) -> float | None:
        if value is None:
            return None
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()

    def begin(self, cursor: Any, write: bool) -> None:
        cursor.execute("BEGIN IMMEDIATE" if write else "BEGIN")

    #: error names (``sqlite3`` exceptions' ``sqlite_errorname`` prefixes) of a database
    #: that cannot be used now
    DOWN = (
        "SQLITE_BUSY",
        "SQLITE_LOCKED",
        "SQLITE_IOERR",
        "SQLITE_FULL",
        "SQLITE_CANTOPEN",
        "SQLITE_READONLY",
        "SQLITE_PROTOCOL",
        "SQLITE_NOTADB",
        "SQLITE_CORRUPT",
    )

    def unavailable(self, error: BaseException) -> bool:
        name = getattr(error, "sqlite_errorname", None) or ""
        return isinstance(error, sqlite3.DatabaseError) and name.startswith(self.DOWN)

    def hub_lock(self) -> FileHubLock:
        folder = None if self.path == ":memory:" else os.path.abspath(self.path) + ".hubs"
        return FileHubLock(folder)

    def leases(self, cursor: Any, lock: HubLock, now: float) -> Leases:
        cursor.execute("SELECT hub_id, host, pid, heartbeat FROM hub_lease WHERE ended IS NULL", ())
        rows = cursor.fetchall()
        if not isinstance(lock, FileHubLock):
            raise TypeError("an SQLite store holds a file lock")
        held = lock.live([r[0] for r in rows])
        seen = [
            LeaseSeen(r[0], r[1], int(r[2]), now - (self.t_out(r[3]) or 0.0), r[0] in held)
            for r in rows
        ]
        return Leases(seen, FOREVER, None)

    def pool(self, reactor: Any) -> adbapi.ConnectionPool:
        if self.path != ":memory:":
            folder = os.path.dirname(os.path.abspath(self.path))
            os.makedirs(folder, mode=0o700, exist_ok=True)
            # created readable by the owner only; SQLite gives its -wal and -shm
            # files the database file's permissions
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        busy_ms = int(self.busy_timeout * 1000)

        def setup(connection: sqlite3.Connection) -> None:
            connection.execute(f"PRAGMA busy_timeout = {busy_ms}")
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = FULL")
            connection.execute("PRAGMA foreign_keys = ON")

        return adbapi.ConnectionPool(
            "sqlite3",
            self.path,
            check_same_thread=False,
            isolation_level=None,  # we issue BEGIN ourselves
            timeout=self.busy_timeout,
            cp_min=1,
            cp_max=1,
            cp_openfun=setup,
            cp_reactor=reactor,
        )


class PostgresDialect(Dialect):
    """PostgreSQL through psycopg2: a few connections, ``SELECT … FOR UPDATE``.

    :param pool_size: most connections.
    :param prepared_max: most statements prepared on each connection (see
        :meth:`batch_text`; 0: none).
    """

    name = "postgresql"
    money = "NUMERIC(20,2)"
    serial = "BIGSERIAL PRIMARY KEY"
    timestamp = "TIMESTAMPTZ"
    for_update = " FOR UPDATE"
    for_share = " FOR SHARE"
    batches = True
    clock_sql = "now()"

    def __init__(self, dsn: str, pool_size: int = 4, prepared_max: int = 64) -> None:
        super().__init__(dsn)
        import psycopg2
        from psycopg2 import extensions

        self.integrity_errors = (psycopg2.IntegrityError,)
        self.rollback_errors = (extensions.TransactionRollbackError,)
        self.pool_size = pool_size
        if isinstance(prepared_max, bool) or not isinstance(prepared_max, int) or prepared_max < 0:
            raise ValueError("prepared_max is a number of statements (0 or more)")
        self.prepared_max = prepared_max

    def sql(self, query: str) -> str:
        return query.replace("%", "%%").replace("?", "%s")

    def m_in(self, value: Decimal) -> Decimal:
        return value

    def m_out(self, value: Any) -> Decimal:
        if value is None:
            return Decimal("0.00")
        if not isinstance(value, Decimal | int):
            raise TypeError(f"unexpected money value from the database: {value!r}")
        return Decimal(value).quantize(CENT)

    def t_in(self, seconds: float) -> datetime:
        return datetime.fromtimestamp(seconds, UTC)

    def t_out(self, value: Any) -> float | None:
        return None if value is None else value.timestamp()

    def begin_snapshot(self, cursor: Any) -> None:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")

    #: SQLSTATE classes of a server that cannot serve now: connection exceptions,
    #: insufficient resources, operator intervention, system errors
    DOWN = ("08", "53", "57P", "58")

    def unavailable(self, error: BaseException) -> bool:
        import psycopg2
        from psycopg2 import extensions

        if isinstance(error, psycopg2.InterfaceError):
            return True  # "connection already closed"
        if not isinstance(error, psycopg2.OperationalError) or isinstance(
            error, extensions.TransactionRollbackError | extensions.QueryCanceledError
        ):
            return False
        code = getattr(error, "pgcode", None)
        return code is None or str(code).startswith(self.DOWN)

    def hub_lock(self) -> AdvisoryHubLock:
        return AdvisoryHubLock(self.dsn)

    def leases(self, cursor: Any, lock: HubLock, now: float) -> Leases:
        cursor.execute(self.sql(LEASES_SQL), (NAMESPACE,))
        rows = cursor.fetchall()
        seen = [
            LeaseSeen(r[2], r[3], int(r[4]), float(r[5]), bool(r[6]))
            for r in rows
            if r[2] is not None
        ]
        return Leases(seen, float(rows[0][1]), float(rows[0][0]))

    def server_started(self, cursor: Any) -> float | None:
        cursor.execute("SELECT EXTRACT(EPOCH FROM pg_postmaster_start_time())")
        return float(cursor.fetchone()[0])

    def restart_serial(self, cursor: Any, table: str, column: str) -> None:
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'),"
            f" COALESCE(MAX({column}), 0) + 1, false) FROM {table}",
            (),
        )

    def batch_text(self, cursor: Any, queries: Sequence[str]) -> str:
        """The one message of ``queries``: each an ``EXECUTE`` of the statement
        prepared from it on ``cursor``'s connection (parsed and planned once per
        connection, not once per message), prepared now if it is not yet, while the
        connection holds fewer than :attr:`prepared_max`; beyond that, the text itself.

        A statement is prepared in a round trip of its own, outside any transaction
        when the connection is in none (``PREPARE`` is not transactional, and the
        first query of a transaction would forbid its ``SET TRANSACTION``).  Every
        parameter's type must follow from the statement (a ``CAST`` where it does
        not: a ``CASE`` of parameters, say).
        """
        connection = cursor.connection
        known: set[str] | None = getattr(connection, "prepared", None)
        parts = []
        for query in queries:
            count = query.count("?")
            name = "gh_" + hashlib.blake2b(query.encode(), digest_size=10).hexdigest()
            if (
                known is not None
                and name not in known
                and len(known) < self.prepared_max
                and query.split(None, 1)[0].upper() in PREPARABLE
            ):
                self._prepare(cursor, name, query)
                known.add(name)
            if known is not None and name in known:
                args = ", ".join("%s" for _ in range(count))
                parts.append(f"EXECUTE {name}({args})" if count else f"EXECUTE {name}")
            else:
                parts.append(self.sql(query))
        return "; ".join(parts)

    def execute_alone(self, cursor: Any, query: str, params: Sequence[Any]) -> None:
        """Send the message ``query`` in autocommit mode when the connection is in no
        transaction yet: the server runs the statements of one message as one
        transaction (all or nothing) and commits it, so neither a ``BEGIN`` nor a
        ``COMMIT`` costs a round trip (the store's commit after it has nothing left to
        do).  Inside a transaction it is a part of that transaction."""
        from psycopg2 import extensions

        connection = cursor.connection
        idle = connection.get_transaction_status() == extensions.TRANSACTION_STATUS_IDLE
        if connection.autocommit or not idle:
            cursor.execute(query, params)
            return
        connection.autocommit = True
        try:
            cursor.execute(query, params)
        finally:
            connection.autocommit = False

    @staticmethod
    def _prepare(cursor: Any, name: str, query: str) -> None:
        from psycopg2 import extensions

        numbers = iter(range(1, query.count("?") + 1))
        text = f"PREPARE {name} AS " + re.sub(r"\?", lambda _: f"${next(numbers)}", query)
        connection = cursor.connection
        idle = connection.get_transaction_status() == extensions.TRANSACTION_STATUS_IDLE
        switch = idle and not connection.autocommit
        if switch:
            connection.autocommit = True
        try:
            cursor.execute(text)
        finally:
            if switch:
                connection.autocommit = False

    def pool(self, reactor: Any) -> adbapi.ConnectionPool:
        return adbapi.ConnectionPool(
            "psycopg2",
            self.dsn,
            connection_factory=_preparing_connection(),
            cp_min=1,
            cp_max=self.pool_size,
            cp_reconnect=True,
            cp_reactor=reactor,
        )

    def describe(self) -> str:
        parts = urlsplit(self.dsn)
        if parts.password:
            netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
            return parts._replace(netloc=netloc).geturl()
        return self.dsn


@functools.cache
def _preparing_connection() -> type:
    from psycopg2 import extensions

    class PreparingConnection(extensions.connection):  # type: ignore[misc]
        """A psycopg2 connection that remembers the names of the statements prepared
        on it (:meth:`PostgresDialect.batch_text`)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.prepared: set[str] = set()

    return PreparingConnection


def dialect_for(dsn: str, **options: Any) -> Dialect:
    """The dialect of ``dsn`` (``sqlite:<path>`` or ``postgresql://…``).

    :raises ValueError: any other scheme.
    """
    if not isinstance(dsn, str):
        raise TypeError("a DSN is a string")
    if dsn.startswith("sqlite:"):
        return SQLiteDialect(dsn, **options)
    if dsn.startswith(("postgresql://", "postgres://")):
        return PostgresDialect(dsn, **options)
    raise ValueError(f"unknown database {dsn!r}: use sqlite:<path> or postgresql://user@host/db")
