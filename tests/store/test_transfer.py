"""The fast path of a ledger movement: its statements and round trips are counted, and
whatever it cannot explain falls back to the careful path in the same interaction."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest_twisted

from hub.store import InsufficientFunds, NotAtTable, TableNotOpen, UnknownAccount

from .conftest import make_store
from .test_accounts import fails

D = Decimal


class CountingCursor:
    """A DB-API cursor that counts what it sends to the database."""

    def __init__(self, cursor: Any, sent: list[str]) -> None:
        self._cursor = cursor
        self._sent = sent

    def execute(self, query: str, params: Any = ()) -> Any:
        self._sent.append(query)
        return self._cursor.execute(query, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


class CountingConnection:
    def __init__(self, connection: Any, sent: list[str]) -> None:
        self._connection = connection
        self._sent = sent

    def cursor(self) -> CountingCursor:
        return CountingCursor(self._connection.cursor(), self._sent)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


def count_round_trips(store) -> list[str]:
    """From now on, every query ``store``'s transactions send (one entry a round trip:
    psycopg2 sends a string of several statements as one message)."""
    sent: list[str] = []
    once = store._once

    def counted(conn, fn, args, begin):
        return once(CountingConnection(conn, sent), fn, args, begin)

    store._once = counted
    return sent


def per_dialect(store, sqlite: int, postgresql: int) -> int:
    return sqlite if store.dialect.name == "sqlite" else postgresql


def trips(sent: list[str]) -> list[str]:
    """The round trips of ``sent`` but the ``PREPARE`` of each statement, which
    PostgreSQL sees once per connection (counted by
    :func:`test_each_statement_is_prepared_once_per_connection`)."""
    return [q for q in sent if not q.startswith("PREPARE ")]


@pytest_twisted.ensureDeferred
async def test_a_buy_in_and_a_cash_out_take_the_fewest_round_trips(store):
    await store.create_account("ann", "secret1")
    sent = count_round_trips(store)
    moved = await store.buy_in("ann", "g1", "200", "in")
    assert (moved.applied, moved.amount, moved.balance) == (True, D("200.00"), D("800.00"))
    assert moved.at_table == {"ann": D("200.00")}
    # PostgreSQL: BEGIN, the chip table's lock and one statement of the writes and
    # what they left in one message, then COMMIT; SQLite: BEGIN IMMEDIATE, one read
    # of the account, its chips and the table, then balance, chips and ledger row
    assert len(trips(sent)) == per_dialect(store, 5, 2), sent
    sent.clear()
    out = await store.cash_out("ann", "g1", "50", "out")
    assert (out.amount, out.balance, out.at_table) == (D("50.00"), D("850.00"), {"ann": D("150")})
    assert len(trips(sent)) == per_dialect(store, 5, 2), sent
    sent.clear()
    # cashing out the rest by amount: the entry goes (on SQLite instead of the
    # chips' write; on PostgreSQL one more statement)
    out = await store.cash_out("ann", "g1", "150", "out-2")
    assert (out.balance, out.at_table) == (D("1000.00"), {})
    assert len(trips(sent)) == per_dialect(store, 5, 3), sent
    assert await store.tables_of("ann") == {}
    assert (await store.ledger_check()).ok


@pytest_twisted.ensureDeferred
async def test_a_settlement_of_three_is_one_round_trip_too(store):
    for name in ("ann", "bob", "cat"):
        await store.create_account(name, "secret1")
        await store.buy_in(name, "g1", "100", f"{name}-in")
    sent = count_round_trips(store)
    hand = await store.settle("g1", {"cat": "-30.50", "ann": "40.25", "bob": "-9.75"}, "h1")
    assert hand.amounts == {"ann": D("40.25"), "bob": D("-9.75"), "cat": D("-30.50")}
    assert hand.at_table == {"ann": D("140.25"), "bob": D("90.25"), "cat": D("69.50")}
    assert hand.balances == {"ann": D("900"), "bob": D("900"), "cat": D("900")}
    # SQLite: BEGIN IMMEDIATE, the ledger rows, the chips, the read (no balance moves)
    assert len(trips(sent)) == per_dialect(store, 4, 2), sent
    rows = await store.ledger(key="h1")
    # one row per account, in ascending account id order, as the careful path writes
    assert sorted((r["seq"], r["account"]) for r in rows) == [(0, "ann"), (1, "bob"), (2, "cat")]
    assert (await store.ledger_check()).ok


@pytest_twisted.ensureDeferred
async def test_what_the_fast_path_cannot_explain_is_answered_by_the_careful_path(store):
    await store.create_account("ann", "secret1")
    seen: list[Any] = []
    store.query_observer = lambda fn, seconds, ok, result: seen.append((ok, result))
    first = await store.buy_in("ann", "g1", "100", "k")
    again = await store.buy_in("ann", "g1", "100", "k")  # a replay: the unique key refuses
    assert first.applied and not again.applied
    assert again.balance == D("900.00") and again.at_table == {"ann": D("100.00")}
    # each movement is one interaction, observed once, as a success
    assert [ok for ok, _ in seen] == [True, True]
    await fails(store.buy_in("ann", "g1", "1000", "big"), InsufficientFunds)
    await fails(store.cash_out("ann", "g2", "1", "none"), NotAtTable)
    await fails(store.buy_in("ann", "nowhere", "1", "no-table"), TableNotOpen)
    await store.close_table("g2")
    await fails(store.buy_in("ann", "g2", "1", "closed"), TableNotOpen)
    report = await store.ledger_check()
    assert report.ok, str(report)
    assert (await store.get_account("ann")).balance == D("900.00")
    assert len(await store.ledger(name="ann")) == 2  # the grant and the one buy-in


@pytest_twisted.ensureDeferred
async def test_a_movement_of_one_account_keeps_every_check(store):
    """One account's movement (on SQLite: one read, then the balance's and the chips'
    writes and the ledger row) answers as the careful path would, by the account's
    own name, and leaves nothing of a refused one."""
    await store.create_account("Ann", "secret1")
    await store.create_account("bob", "secret1")
    await store.buy_in("ANN", "g1", "100", "in")
    even = await store.settle("g1", {"ann": "0"}, "even")  # a hand that moved nothing
    assert (even.applied, even.amounts, even.at_table) == (True, {"Ann": D(0)}, {"Ann": D(100)})
    out = await store.cash_out("ann", "g1", "100", "out")  # the last chips: the entry goes
    assert (out.amounts, out.balances, out.at_table) == ({"Ann": D(100)}, {"Ann": D(1000)}, {})
    grant = await store.grant("ann", "-1.50", "burn")
    assert (grant.amounts, grant.balances, grant.at_table) == (
        {"Ann": D("-1.50")},
        {"Ann": D("998.50")},
        {},
    )
    await fails(store.grant("ann", "-998.51", "too-much"), InsufficientFunds)
    await fails(store.settle("g1", {"bob": "0"}, "no-chips"), NotAtTable)
    await fails(store.cash_out("bob", "g1", "1", "no-chips-out"), NotAtTable)
    await fails(store.settle("nowhere", {"ann": "0"}, "no-table"), TableNotOpen)
    await store.buy_in("bob", "g2", "10", "bob-in")
    await store.cash_out("bob", "g2", None, "bob-out")
    await store.close_table("g2")
    await fails(store.buy_in("bob", "g2", "10", "closed"), TableNotOpen)
    await fails(store.settle("g2", {"bob": "0"}, "closed-settle"), TableNotOpen)
    await fails(store.cash_out("zed", "g1", "1", "nobody"), UnknownAccount)
    assert [r["key"] for r in await store.ledger(name="ann")][:3] == ["burn", "out", "even"]
    assert len(await store.ledger(name="bob")) == 3  # the grant, in and out at g2
    report = await store.ledger_check()
    assert report.ok, str(report)


@pytest_twisted.ensureDeferred
async def test_each_statement_is_prepared_once_per_connection(store):
    await store.create_account("ann", "secret1")
    sent = count_round_trips(store)
    for i in range(6):
        await store.buy_in("ann", "g1", "10", f"in-{i}")
        await store.cash_out("ann", "g1", "5", f"out-{i}")
    prepared = [q for q in sent if q.startswith("PREPARE ")]
    if store.dialect.name == "sqlite":  # the driver keeps its statements itself
        assert prepared == []
    else:  # the chip table's lock, the buy-in's statement and the cash-out's
        connections = len(store._pool.connections)
        assert len(set(prepared)) == 3, prepared
        assert all(prepared.count(q) <= connections for q in prepared), prepared
    assert len(trips(sent)) == 12 * per_dialect(store, 5, 2)
    assert (await store.get_account("ann")).balance == D("970.00")
    assert (await store.ledger_check()).ok


@pytest_twisted.ensureDeferred
async def test_without_prepared_statements_the_same_messages_go_as_text(dsn):
    if not dsn.startswith("postgresql"):
        return  # SQLite has no such setting
    store = make_store(dsn, prepared_max=0)
    await store.start()
    try:
        await store.open_table("g1", "test")
        await store.create_account("ann", "secret1")
        sent = count_round_trips(store)
        moved = await store.buy_in("ann", "g1", "200", "in")
        out = await store.cash_out("ann", "g1", "50", "out")
        assert (moved.balance, out.balance, out.at_table) == (D("800"), D("850"), {"ann": D("150")})
        assert len(sent) == 4 and not any("EXECUTE" in q or "PREPARE" in q for q in sent), sent
        assert (await store.ledger_check()).ok
    finally:
        await store.stop()
