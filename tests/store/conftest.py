"""Fixtures of the store suite: every test runs on SQLite and on PostgreSQL.

Deferreds in tests: the ``pytest-twisted`` plugin runs one reactor for the whole
session; a test is ``@pytest_twisted.ensureDeferred async def …`` and awaits
Deferreds.  PostgreSQL comes from ``GAMEHUB_TEST_PG_DSN``; each test gets a fresh
schema of its own (named in the DSN's ``search_path``), dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import pytest
import pytest_twisted

from hub.store import TEST_PG_DSN_VARIABLE, open_store
from hub.store.accounts import ScryptParams

#: cheap hashes keep the suite fast; the production cost is tested separately
FAST = ScryptParams(n=16, r=8, p=1)


def pg_schema_dsn(base: str, schema: str) -> str:
    """``base`` with ``search_path`` set to ``schema`` for every connection."""
    parts = urlsplit(base)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "options"]
    query.append(("options", f"-c search_path={schema}"))
    return parts._replace(query=urlencode(query, quote_via=quote)).geturl()


def pg_base_dsn() -> str:
    """The PostgreSQL server of the suite (``GAMEHUB_TEST_PG_DSN``); skips the test,
    saying why, when it is not set."""
    base = os.environ.get(TEST_PG_DSN_VARIABLE)
    if not base:
        pytest.skip(
            f"PostgreSQL tests need {TEST_PG_DSN_VARIABLE} (e.g. postgresql://postgres@127.0.0.1:5432/test)"
        )
    return base


@contextmanager
def fresh_pg_schema(base: str) -> Iterator[str]:
    """A DSN of a new, empty schema on the server ``base``, dropped afterwards."""
    import psycopg2

    schema = "gh_test_" + uuid.uuid4().hex[:16]
    connection = psycopg2.connect(base)
    connection.autocommit = True
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE SCHEMA {schema}")
        yield pg_schema_dsn(base, schema)
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        connection.close()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def dsn(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Iterator[str]:
    """A fresh, empty database: SQLite in ``tmp_path``, or a new PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:{tmp_path}/hub.sqlite"
        return
    with fresh_pg_schema(pg_base_dsn()) as fresh:
        yield fresh


def make_store(dsn: str, **options):
    """A store on ``dsn`` with fast hashes (not started)."""
    from twisted.internet import reactor

    options.setdefault("scrypt", FAST)
    return open_store(dsn, reactor, **options)


#: the chip tables the ``store`` fixture opens
TABLES = ("g1", "g2", "g3")


async def open_tables(store, *games: str) -> None:
    """Open ``games`` as chip tables of ``store``'s hub (chips move only onto those)."""
    for game in games:
        await store.open_table(game, "test")


@pytest_twisted.async_yield_fixture
async def store(dsn: str):
    """A started store (a hub's: it holds a lease) on a fresh database, with the chip
    tables :data:`TABLES` open."""
    s = make_store(dsn)
    await s.start()
    await open_tables(s, *TABLES)
    yield s
    await s.stop()
