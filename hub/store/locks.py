"""The lock a hub holds while it lives, so other processes can tell a live hub's chip
tables from a dead one's.

A hub's lease (table ``hub_lease``) names it; the lock proves it is alive.  The lock
goes when the process goes, however it goes (``kill -9`` included), without waiting for
a timeout:

- PostgreSQL: a session-level advisory lock ``(NAMESPACE, lock_key)`` held on a
  connection of its own; ``pg_locks`` shows it to every other session.
- SQLite: an exclusive ``flock`` on ``<database>.hubs/<hub id>.lock``; another process
  that cannot take a shared lock on that file knows the hub lives.

Everything here blocks: call it from a worker thread, never from the reactor thread.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from collections.abc import Iterable
from typing import Any

#: the first key of every Gamehub advisory lock (``GHB1``)
NAMESPACE = 0x47484231


class HubLock:
    """What a dialect's lock offers; see :class:`FileHubLock` and :class:`AdvisoryHubLock`."""

    key = 0

    def acquire(self, hub_id: str) -> int:
        """Take the lock for ``hub_id``; returns the lock key to record in its lease."""
        raise NotImplementedError

    def keep(self) -> bool:
        """Whether the lock is still held (taken again after a lost connection)."""
        raise NotImplementedError

    def release(self) -> None:
        """Let go (the hub stops)."""
        raise NotImplementedError

    def forget(self, hub_id: str) -> None:
        """Clean up after a dead hub (its lease was ended)."""


class FileHubLock(HubLock):
    """SQLite: an exclusive ``flock`` on one file per hub in ``folder`` (``None``: an
    in-memory database, which no other process can share)."""

    def __init__(self, folder: str | None) -> None:
        self.folder = folder
        self.hub_id: str | None = None
        self._fd: int | None = None

    def _path(self, hub_id: str) -> str:
        assert self.folder is not None
        return os.path.join(self.folder, f"{hub_id}.lock")

    def acquire(self, hub_id: str) -> int:
        self.hub_id = hub_id
        if self.folder is None:
            return 0
        os.makedirs(self.folder, mode=0o700, exist_ok=True)
        fd = os.open(self._path(hub_id), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.write(fd, f"{hub_id} {os.getpid()}\n".encode())
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return 0

    def keep(self) -> bool:
        return self.hub_id is not None and (self.folder is None or self._fd is not None)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None and self.hub_id is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._path(self.hub_id))
            os.close(fd)
        self.hub_id = None

    def live(self, hub_ids: Iterable[str]) -> set[str]:
        """Which of ``hub_ids`` hold their lock now."""
        alive = set()
        for hub_id in hub_ids:
            if hub_id == self.hub_id and self.keep():
                alive.add(hub_id)
            elif self.folder is not None and held(self._path(hub_id)):
                alive.add(hub_id)
        return alive

    def forget(self, hub_id: str) -> None:
        """Remove a dead hub's lock file."""
        if self.folder is not None and hub_id != self.hub_id:
            path = self._path(hub_id)
            if not held(path):
                with contextlib.suppress(OSError):
                    os.unlink(path)


def held(path: str) -> bool:
    """Whether some process holds an exclusive ``flock`` on ``path``."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing also drops the shared lock we may have taken
    return False


class AdvisoryHubLock(HubLock):
    """PostgreSQL: a session-level advisory lock ``(NAMESPACE, key)`` on a connection
    of its own (not one of the pool's), with a random ``key``."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.key = 0
        self._conn: Any = None

    def _connect(self) -> Any:
        import psycopg2

        conn = psycopg2.connect(self.dsn)
        conn.autocommit = True
        return conn

    def _try(self, conn: Any, key: int) -> bool:
        with conn.cursor() as cur:
            cur.execute("SELECT pg_try_advisory_lock(%s, %s)", (NAMESPACE, key))
            return bool(cur.fetchone()[0])

    def acquire(self, hub_id: str) -> int:
        conn = self._connect()
        try:
            for _ in range(100):
                key = 1 + secrets.randbelow(2**31 - 2)
                if self._try(conn, key):
                    self.key, self._conn = key, conn
                    return key
        except BaseException:
            conn.close()
            raise
        conn.close()
        raise RuntimeError("no free advisory lock key found")

    def keep(self) -> bool:
        if self.key == 0:
            return False
        try:
            if self._conn is not None and not self._conn.closed:
                with self._conn.cursor() as cur:
                    cur.execute("SELECT 1")
                return True
        except Exception:
            pass
        self._close()
        try:
            conn = self._connect()
        except Exception:
            return False
        if self._try(conn, self.key):
            self._conn = conn
            return True
        conn.close()
        return False

    def _close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def release(self) -> None:
        if self._conn is not None and not self._conn.closed:
            with contextlib.suppress(Exception), self._conn.cursor() as cur:
                cur.execute("SELECT pg_advisory_unlock(%s, %s)", (NAMESPACE, self.key))
        self._close()
        self.key = 0


#: the database server's start and every open lease: its heartbeat's age by the
#: database's clock (seconds) and whether its advisory lock is held now (PostgreSQL);
#: one row with no lease when there is none; one parameter: NAMESPACE
LEASES_SQL = (
    "SELECT EXTRACT(EPOCH FROM s.started), EXTRACT(EPOCH FROM (s.now - s.started)),"
    " l.hub_id, l.host, l.pid, EXTRACT(EPOCH FROM (s.now - l.heartbeat)), EXISTS ("
    "SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted"
    " AND CAST(k.classid AS BIGINT) = ? AND CAST(k.objid AS BIGINT) = l.lock_key"
    " AND k.objsubid = 2"
    " AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database()))"
    " FROM (SELECT pg_postmaster_start_time() AS started, now() AS now) s"
    " LEFT JOIN hub_lease l ON l.ended IS NULL"
)


def process_gone(host: str, pid: int) -> bool:
    """Whether ``pid`` on ``host`` is known to have ended: it ran on this host and no
    process has that id now (a process of another host is never known to be gone)."""
    import socket

    if host != socket.gethostname()[:256]:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False
