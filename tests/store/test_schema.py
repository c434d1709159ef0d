"""The versioned schema: upgrades of older databases, refusal of newer ones."""

from __future__ import annotations

from decimal import Decimal
from decimal import Decimal as D

import pytest_twisted

from hub.store import SchemaTooNew, StoreError
from hub.store.schema import LATEST

from .conftest import make_store
from .test_accounts import fails


async def version(store):
    return await store._run(lambda cur: cur.one("SELECT version FROM gamehub_schema")[0])


#: a table of each version's step: the table money's (3), the replays' (4), the
#: ratings' (5)
STEP_TABLES = {
    3: ("hub_lease", "chip_table", "money_problem"),
    4: ("game_replay",),
    5: ("rating", "rated_result"),
}


async def rows(store, table):
    return await store._run(lambda cur: cur.one(f"SELECT COUNT(*) FROM {table}")[0])


@pytest_twisted.ensureDeferred
async def test_fresh_database_gets_the_newest_schema(store):
    assert await version(store) == LATEST == 5
    for tables in STEP_TABLES.values():
        for table in tables:
            assert await rows(store, table) >= 0  # it exists
    # starting again changes nothing
    assert await store.migrate() == (LATEST, LATEST)


@pytest_twisted.ensureDeferred
async def test_a_version_3_database_gets_replays_keeping_its_tables(dsn):
    old = make_store(dsn)
    assert await old.migrate(3) == (0, 3)
    # a version-3 hub: table money, no replays yet
    await old.create_account("ann", "secret1")

    def v3_table(cur):  # a chip table a version-3 hub closed
        now = old.dialect.t_in(old._now())
        cur.run(
            "INSERT INTO chip_table (game_id, hub_id, game_type, opened, closed)"
            " VALUES ('g1', 'h1', 'holdem', ?, ?)",
            now,
            now,
        )

    await old._run(v3_table)
    await fails(old._run(lambda cur: cur.one("SELECT COUNT(*) FROM game_replay")), Exception)
    await old.stop()

    new = make_store(dsn)
    await new.start()
    try:
        assert await version(new) == LATEST
        assert await rows(new, "chip_table") == 1
        assert (await new.get_account("ann")).balance == Decimal("1000.00")
        replay = {"game": {"id": "g1"}, "events": [], "complete": True}
        assert await new.record_replay("g1", replay) is True
        assert await new.replay("g1") == replay
        assert (await new.ledger_check()).ok
    finally:
        await new.stop()


@pytest_twisted.ensureDeferred
async def test_an_older_database_is_upgraded_keeping_its_data(dsn):
    old = make_store(dsn)
    assert await old.migrate(1) == (0, 1)
    # a version-1 hub: accounts and the ledger, no history tables yet, no chip tables
    await old.create_account("ann", "secret1")

    def v1_buy_in(cur):  # what a version-1 hub wrote for a buy-in of 10.00
        d, now = old.dialect, old._now()
        cur.run("UPDATE account SET balance = ? WHERE name_key = 'ann'", d.m_in(D("990.00")))
        cur.run(
            "INSERT INTO table_chips (game_id, account_id, amount, since)"
            " SELECT 'g1', id, ?, ? FROM account WHERE name_key = 'ann'",
            d.m_in(D("10.00")),
            d.t_in(now),
        )
        cur.run(
            "INSERT INTO ledger (idem_key, seq, kind, account_id, account_name, game_id,"
            " balance_delta, table_delta, balance_after, created)"
            " SELECT 'k1', 0, 'buy_in', id, name, 'g1', ?, ?, ?, ? FROM account"
            " WHERE name_key = 'ann'",
            d.m_in(D("-10.00")),
            d.m_in(D("10.00")),
            d.m_in(D("990.00")),
            d.t_in(now),
        )

    await old._run(v1_buy_in)
    await old.stop()

    new = make_store(dsn)
    await new.start()
    try:
        assert await version(new) == LATEST
        assert (await new.get_account("ann")).balance == Decimal("1000.00")  # recovered
        assert await new.record_game("g1", "hello", "first", [{"seat": 0, "name": "ann"}])
        assert (await new.ledger_check()).ok
    finally:
        await new.stop()


@pytest_twisted.ensureDeferred
async def test_a_newer_database_is_refused(dsn):
    s = make_store(dsn)
    await s.start()
    await s._run(lambda cur: cur.run("UPDATE gamehub_schema SET version = ?", LATEST + 1))
    await s.stop()

    newer = make_store(dsn)
    e = await fails(newer.start(), SchemaTooNew)
    assert f"version {LATEST + 1}" in str(e) and "newer Gamehub" in str(e)
    # refused means closed: nothing runs on it
    await fails(newer.get_account("ann"), StoreError)
