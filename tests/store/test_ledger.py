"""The ledger: movements, idempotency, exact money, concurrency, recovery, the check."""

from __future__ import annotations

from decimal import Decimal

import pytest
import pytest_twisted
from twisted.internet import defer

from hub.store import (
    BadAmount,
    InsufficientFunds,
    KeyReused,
    NotAtTable,
    UnknownAccount,
)

from .conftest import make_store, open_tables
from .test_accounts import fails

D = Decimal


async def check(store):
    report = await store.ledger_check()
    assert report.ok, str(report)
    return report


@pytest_twisted.ensureDeferred
async def test_buy_in_settle_cash_out(store):
    for name in ["ann", "bob", "cat"]:
        await store.create_account(name, "secret1")
    moved = await store.buy_in("ann", "g1", "200", "ann-in")
    assert (moved.applied, moved.amount, moved.balance) == (True, D("200.00"), D("800.00"))
    assert moved.at_table == {"ann": D("200.00")}
    await store.buy_in("bob", "g1", D("150.00"), "bob-in")
    await store.buy_in("cat", "g1", 100, "cat-in")
    await store.buy_in("ann", "g1", "50", "ann-in-2")  # a top-up
    report = await check(store)
    assert (report.balances, report.at_tables, report.issued) == (D("2500"), D("500"), D("3000"))
    assert await store.chips_at("g1") == {"ann": D("250"), "bob": D("150"), "cat": D("100")}

    hand = await store.settle("g1", {"ann": "-30.50", "bob": "40.25", "cat": "-9.75"}, "hand-1")
    assert hand.amounts == {"ann": D("-30.50"), "bob": D("40.25"), "cat": D("-9.75")}
    assert await store.chips_at("g1") == {"ann": D("219.50"), "bob": D("190.25"), "cat": D("90.25")}
    await check(store)

    out = await store.cash_out("bob", "g1", "90.25", "bob-out-1")
    assert (out.amount, out.balance, out.at_table) == (D("90.25"), D("940.25"), {"bob": D("100")})
    out = await store.cash_out("bob", "g1", None, "bob-out-2")
    assert (out.amount, out.balance, out.at_table) == (D("100"), D("1040.25"), {})
    assert await store.tables_of("bob") == {}
    assert await store.tables_of("ann") == {"g1": D("219.50")}
    report = await check(store)
    assert report.balances + report.at_tables == D("3000")
    kinds = [r["kind"] for r in await store.ledger(game_id="g1")]
    assert kinds.count("settle") == 3 and kinds.count("buy_in") == 4


@pytest_twisted.ensureDeferred
async def test_a_replayed_key_applies_once(store):
    await store.create_account("ann", "secret1")
    first = await store.buy_in("ann", "g1", "100", "k-1")
    again = await store.buy_in("ann", "g1", "100", "k-1")
    assert first.applied and not again.applied
    assert again.balance == D("900.00") and again.at_table == {"ann": D("100.00")}
    # a different movement under a used key is refused and changes nothing
    e = await fails(store.buy_in("ann", "g1", "101", "k-1"), KeyReused)
    assert e.code == 409
    await fails(store.cash_out("ann", "g1", "100", "k-1"), KeyReused)
    await store.cash_out("ann", "g1", None, "k-2")
    replay = await store.cash_out("ann", "g1", None, "k-2")
    assert not replay.applied and replay.amount == D("100.00")
    assert (await store.get_account("ann")).balance == D("1000.00")
    assert len(await store.ledger(name="ann")) == 3  # grant, buy-in, cash-out
    await check(store)


@pytest_twisted.ensureDeferred
async def test_refusals_change_nothing(store):
    await store.create_account("ann", "secret1")
    await store.create_account("bob", "secret1")
    e = await fails(store.buy_in("ann", "g1", "1000.01", "k1"), InsufficientFunds)
    assert e.code == 422
    await fails(store.buy_in("nobody", "g1", "1", "k2"), UnknownAccount)
    await fails(store.cash_out("ann", "g1", None, "k3"), NotAtTable)
    await store.buy_in("ann", "g1", "10", "k4")
    await fails(store.cash_out("ann", "g1", "10.01", "k5"), InsufficientFunds)
    await fails(store.settle("g1", {"ann": "-1", "bob": "1"}, "k6"), NotAtTable)
    await store.buy_in("bob", "g1", "10", "k7")
    await fails(store.settle("g1", {"ann": "-11", "bob": "11"}, "k8"), InsufficientFunds)
    e = await fails(store.settle("g1", {"ann": "-1", "bob": "2"}, "k9"), BadAmount)
    assert e.code == 400 and "zero" in e.reason
    await fails(store.settle("g1", {}, "k10"), BadAmount)
    await fails(store.settle("g1", {"ann": "-1", "ANN": "1"}, "k11"), BadAmount)
    await fails(store.buy_in("ann", "g1", "5", ""), BadAmount)
    await fails(store.buy_in("ann", "", "5", "k12"), BadAmount)
    assert await store.chips_at("g1") == {"ann": D("10"), "bob": D("10")}
    assert (await store.get_account("ann")).balance == D("990")
    for key in ["k1", "k2", "k3", "k5", "k6", "k8", "k9", "k10", "k11", "k12"]:
        assert await store.ledger(key=key) == []
    await check(store)


@pytest.mark.parametrize("bad", ["-5", "0", "1.001", "abc", "NaN", "Infinity", "1e20", " "])
@pytest_twisted.ensureDeferred
async def test_malformed_amounts_are_400(store, bad):
    await store.create_account("ann", "secret1")
    e = await fails(store.buy_in("ann", "g1", bad, "k"), BadAmount)
    assert e.code == 400
    assert (await store.get_account("ann")).balance == D("1000")


@pytest_twisted.ensureDeferred
async def test_no_float_in_money_paths(store):
    await store.create_account("ann", "secret1")
    await store.create_account("bob", "secret1")
    # floats are refused outright, everywhere
    for call in [
        lambda: store.buy_in("ann", "g1", 0.1, "f1"),
        lambda: store.cash_out("ann", "g1", 0.1, "f2"),
        lambda: store.grant("ann", 0.30000000000000004, "f3"),
        lambda: store.settle("g1", {"ann": 0.1, "bob": -0.1}, "f4"),
        lambda: store.create_account("cat", "secret1", grant=1.5),
    ]:
        await fails(call(), TypeError)
    with pytest.raises(TypeError):
        make_store("sqlite::memory:", grant=10.0)
    # a Decimal made from a float carries the float's error: too precise, refused
    await fails(store.buy_in("ann", "g1", D(0.1), "f5"), BadAmount)
    # 0.1 + 0.2 as exact amounts is exactly 0.3
    await store.grant("ann", "0.1", "g-a")
    await store.grant("ann", D("0.2"), "g-b")
    assert (await store.get_account("ann")).balance == D("1000.30")
    await store.buy_in("ann", "g1", "0.10", "b1")
    await store.buy_in("ann", "g1", "0.20", "b2")
    await store.buy_in("bob", "g1", "0.30", "b3")
    assert await store.chips_at("g1") == {"ann": D("0.30"), "bob": D("0.30")}
    await store.settle("g1", {"ann": "0.1", "bob": "-0.1"}, "s1")
    await store.settle("g1", {"ann": "0.2", "bob": "-0.2"}, "s2")
    chips = await store.chips_at("g1")
    assert chips == {"ann": D("0.60"), "bob": D("0.00")}
    assert all(type(v) is D for v in chips.values())
    out = await store.cash_out("ann", "g1", None, "c1")
    assert out.amount == D("0.60") and out.balance == D("1000.60")
    assert type(out.balance) is D and str(out.balance) == "1000.60"
    report = await check(store)
    assert report.issued == D("2000.30") and type(report.issued) is D


@pytest_twisted.ensureDeferred
async def test_grants(store):
    await store.create_account("ann", "secret1")
    moved = await store.grant("ann", "-999.99")
    assert moved.balance == D("0.01")
    await fails(store.grant("ann", "-0.02"), InsufficientFunds)
    await store.grant("ann", "5", "once")
    assert not (await store.grant("ann", "5", "once")).applied
    assert (await check(store)).issued == D("5.01")


async def race(stores, name, amounts, keys):
    calls = [
        s.buy_in(name, "g1", a, k)
        for s, a, k in zip(stores * len(amounts), amounts, keys, strict=False)
    ]
    return await defer.DeferredList(calls, consumeErrors=True)


async def two_pools(dsn):
    """Two stores on ``dsn`` that are one hub (two connection pools: their transactions
    really overlap), with the chip table ``g1`` open."""
    one, two = make_store(dsn), make_store(dsn)
    await one.start()
    await two.start(recover=False)
    two.hub_id = one.hub_id
    await open_tables(one, "g1")
    return one, two


@pytest_twisted.ensureDeferred
async def test_two_concurrent_buy_ins_exceeding_the_balance(dsn):
    # two stores = two connection pools: the transactions really overlap
    one, two = await two_pools(dsn)
    try:
        for round_ in range(5):
            name = f"p{round_}"
            await one.create_account(name, "secret1")
            results = await race([one, two], name, ["600", "600"], [f"{name}a", f"{name}b"])
            ok = [r for good, r in results if good]
            bad = [r for good, r in results if not good]
            assert len(ok) == 1 and len(bad) == 1
            assert bad[0].check(InsufficientFunds)
            assert (await two.get_account(name)).balance == D("400.00")
        await check(one)
    finally:
        await one.stop()
        await two.stop()


@pytest_twisted.ensureDeferred
async def test_many_concurrent_buy_ins_never_overdraw(store):
    await store.create_account("ann", "secret1")
    results = await race([store], "ann", ["150"] * 10, [f"k{i}" for i in range(10)])
    assert sum(1 for good, _ in results if good) == 6
    assert (await store.get_account("ann")).balance == D("100.00")
    assert await store.chips_at("g1") == {"ann": D("900.00")}
    await check(store)


@pytest_twisted.ensureDeferred
async def test_concurrent_replays_of_one_key_apply_once(dsn):
    one, two = await two_pools(dsn)
    try:
        await one.create_account("ann", "secret1")
        results = await race([one, two, one, two], "ann", ["100"] * 4, ["same"] * 4)
        assert all(good for good, _ in results), results
        assert sum(1 for _, m in results if m.applied) == 1
        assert (await one.get_account("ann")).balance == D("900.00")
        await check(one)
    finally:
        await one.stop()
        await two.stop()


@pytest_twisted.ensureDeferred
async def test_start_returns_chips_left_at_tables(dsn):
    first = make_store(dsn)
    await first.start()
    await open_tables(first, "g1", "g2")
    await first.create_account("ann", "secret1")
    await first.create_account("bob", "secret1")
    await first.buy_in("ann", "g1", "100", "a1")
    await first.buy_in("bob", "g1", "100", "b1")
    await first.buy_in("ann", "g2", "7.25", "a2")
    await first.settle("g1", {"ann": "60", "bob": "-60"}, "h1")
    await first.stop()  # as if the hub died here

    second = make_store(dsn)
    await second.start()
    try:
        assert sorted(second.recovered) == [
            ("ann", "g1", D("160.00")),
            ("ann", "g2", D("7.25")),
            ("bob", "g1", D("40.00")),
        ]
        assert (await second.get_account("ann")).balance == D("1060.00")
        assert (await second.get_account("bob")).balance == D("940.00")
        assert await second.chips_at("g1") == {}
        refunds = [r for r in await second.ledger() if r["kind"] == "refund"]
        assert len(refunds) == 3
        report = await check(second)
        assert report.at_tables == 0
        assert await second.recover() == []  # nothing twice
        # a second start() of a running store must not take chips from live tables
        await open_tables(second, "g3")
        await second.buy_in("ann", "g3", "5", "live")
        await second.start()
        assert await second.chips_at("g3") == {"ann": D("5.00")}
    finally:
        await second.stop()


@pytest_twisted.ensureDeferred
async def test_ledger_check_finds_tampering(store):
    await store.create_account("ann", "secret1")
    await store.buy_in("ann", "g1", "100", "a1")
    await check(store)

    def tamper(cur):
        cur.run("UPDATE account SET balance = balance + 1 WHERE name_key = 'ann'")

    await store._run(tamper)
    report = await store.ledger_check()
    assert not report.ok
    assert any("issued" in p for p in report.problems)
    assert any("account ann" in p for p in report.problems)
    assert "FAILED" in str(report)

    def tamper_table(cur):
        cur.run("UPDATE account SET balance = balance - 1 WHERE name_key = 'ann'")
        cur.run("UPDATE table_chips SET amount = amount + 5")
        cur.run("UPDATE account SET balance = balance - 5 WHERE name_key = 'ann'")

    await store._run(tamper_table)
    report = await store.ledger_check()
    assert not report.ok and any("table g1" in p for p in report.problems)
