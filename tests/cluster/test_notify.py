"""The notice connection on a real PostgreSQL (``GAMEHUB_TEST_PG_DSN``): it listens
without blocking the reactor, and listens again after the server dropped it."""

from __future__ import annotations

import os
import uuid

import pytest
import pytest_twisted
from twisted.internet import reactor

from hub.cluster.notify import NoticeListener
from hub.store import TEST_PG_DSN_VARIABLE
from tests.support import until


@pytest.fixture
def base_dsn() -> str:
    dsn = os.environ.get(TEST_PG_DSN_VARIABLE)
    if not dsn:
        pytest.skip(f"the notice connection needs PostgreSQL: set {TEST_PG_DSN_VARIABLE}")
    return dsn


def run(dsn: str, query: str, *args: object) -> None:
    import psycopg2

    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            cur.execute(query, args)
    finally:
        conn.close()


@pytest_twisted.ensureDeferred
async def test_notices_arrive_and_the_connection_listens_again_after_it_was_cut(base_dsn):
    channel = "gh_test_" + uuid.uuid4().hex[:12]
    received: list[str] = []
    ready: list[int] = []
    listener = NoticeListener(
        base_dsn, channel, reactor, received.append, lambda: ready.append(1), (0.05, 0.2)
    )
    listener.start()
    try:
        await until(lambda: ready == [1], "listening")
        run(base_dsn, "SELECT pg_notify(%s, %s)", channel, "one")
        await until(lambda: received == ["one"], "the first notice")
        pid = listener.backend_pid()
        run(base_dsn, "SELECT pg_terminate_backend(%s)", pid)  # the server drops it
        await until(lambda: len(ready) == 2, "listening again")  # (the hub then re-reads)
        assert listener.backend_pid() != pid and listener.connections == 2
        run(base_dsn, "SELECT pg_notify(%s, %s)", channel, "two")
        await until(lambda: received == ["one", "two"], "a notice after the reconnection")
    finally:
        listener.stop()
    assert not listener.listening and listener.fileno() == -1
