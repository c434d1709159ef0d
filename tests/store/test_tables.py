"""Chip tables in the store: ownership by a live hub, funded bot buy-ins, one
settlement per hand, reconciling cash-outs, recovery of dead hubs' tables only, and a
ledger check that fails on an unsettled hand, a hand settled twice, wrong payoffs and
chips at a table no live game holds.  On SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal

import pytest_twisted
from twisted.internet import defer

from hub.model import Conflict
from hub.store import LoginFailed, StoreUnavailable, TableNotOpen

from .conftest import make_store, open_tables
from .test_accounts import fails
from .test_cli_and_crash import gamehub
from .test_ledger import check

D = Decimal


def hand(ann: str, bob: str, ann_net: str) -> dict:
    """A hand's history between ``ann`` and ``bob`` (ann's net result ``ann_net``)."""
    net = D(ann_net)
    return {
        "game_type": "coins",
        "players": [
            {"name": ann, "seat": 0, "money_in": max(-net, 0), "winnings": max(net, 0)},
            {"name": bob, "seat": 1, "money_in": max(net, 0), "winnings": max(-net, 0)},
        ],
        "record": {"deltas": [ann_net]},
    }


async def two_at_a_table(store, game="g1"):
    for name in ("ann", "bob"):
        await store.create_account(name, "secret1")
        await store.buy_in(name, game, "100", f"in-{name}-{game}")


@pytest_twisted.ensureDeferred
async def test_a_hand_is_settled_once_with_its_history(store):
    await two_at_a_table(store)
    first = await store.settle_hand(
        "g1", "h1", {"ann": "7.25", "bob": "-7.25"}, hand("ann", "bob", "7.25")
    )
    again = await store.settle_hand(
        "g1", "h1", {"ann": "7.25", "bob": "-7.25"}, hand("ann", "bob", "7.25")
    )
    assert first.applied and not again.applied and first.hand_id == again.hand_id
    assert await store.chips_at("g1") == {"ann": D("107.25"), "bob": D("92.75")}
    [stored] = await store.hands(game_id="g1")
    assert stored["hand_key"] == "h1" and stored["hand_id"] == first.hand_id
    # a hand where nobody won or lost anything is settled too (zero movements)
    even = await store.settle_hand("g1", "h2", {"ann": "0", "bob": "0"}, hand("ann", "bob", "0"))
    assert even.applied and len(await store.ledger(key="hand:g1:h2")) == 2
    await check(store)


@pytest_twisted.ensureDeferred
async def test_chips_move_only_onto_open_tables_of_this_hub(dsn):
    one, two = make_store(dsn), make_store(dsn)
    await one.start()
    await two.start()
    tool = make_store(dsn)
    await tool.start(recover=False)
    try:
        await open_tables(one, "mine")
        await one.create_account("ann", "secret1")
        e = await fails(one.buy_in("ann", "nowhere", "10", "k1"), TableNotOpen)
        assert e.code == 409 and "not a chip table" in e.reason
        await fails(two.buy_in("ann", "mine", "10", "k2"), TableNotOpen)  # another hub's
        await fails(tool.open_table("t", "test"), TableNotOpen)  # tools hold no lease
        await fails(one.open_table("mine", "test"), TableNotOpen)  # taken
        await one.buy_in("ann", "mine", "10", "k3")
        assert await one.close_table("mine") == {"ann": D("10.00")}
        assert await one.close_table("mine") == {}  # once
        await fails(one.buy_in("ann", "mine", "10", "k4"), TableNotOpen)
        assert (await one.get_account("ann")).balance == D(1000)
        await check(one)
    finally:
        for s in (one, two, tool):
            await s.stop()


@pytest_twisted.ensureDeferred
async def test_a_bot_account_is_made_and_funded_with_its_buy_in(store):
    moved = await store.buy_in("bot.caller", "g1", "1500", "b1", bot=True)
    assert moved.balance == 0 and moved.at_table == {"bot.caller": D(1500)}
    account = await store.get_account("bot.caller")
    assert account.type == "bot"
    await fails(store.authenticate("bot.caller", "anything"), LoginFailed)  # no password
    await store.buy_in("bot.caller", "g2", "10", "b2", bot=True)
    grants = [r for r in await store.ledger(name="bot.caller") if r["kind"] == "grant"]
    assert sorted(r["balance_delta"] for r in grants) == [D(10), D(1500)]
    await store.create_account("bot.person", "secret1", reserved=True)  # before names were reserved
    e = await fails(store.buy_in("bot.person", "g1", "10", "b3", bot=True), Conflict)
    assert "not a bot's" in e.reason
    await check(store)


@pytest_twisted.ensureDeferred
async def test_concurrent_tables_fund_one_bot_account_without_interleaving(dsn):
    one, two = make_store(dsn), make_store(dsn)
    await one.start()
    await two.start(recover=False)
    two.hub_id = one.hub_id  # a second connection pool of the same hub
    try:
        tables = [f"t{i}" for i in range(12)]
        await open_tables(one, *tables)
        calls = [
            (one, two)[i % 2].buy_in("bot.raiser", t, "250", f"k{t}", bot=True)
            for i, t in enumerate(tables)
        ]
        results = await defer.DeferredList(calls, consumeErrors=True)
        assert all(ok for ok, _ in results), [r for ok, r in results if not ok]
        account = await one.get_account("bot.raiser")
        assert account.balance == 0 and sum((await one.tables_of("bot.raiser")).values()) == 3000
        report = await check(one)
        assert report.issued == D(3000)
    finally:
        two.hub_id = None
        await one.stop()
        await two.stop()


@pytest_twisted.ensureDeferred
async def test_leaving_returns_the_ledgers_chips_and_records_a_difference(store, dsn):
    await two_at_a_table(store)
    out = await store.leave_table("ann", "g1", "100", "leave-1")
    assert out.applied and out.amount == D(100) and out.problem is None
    out = await store.leave_table("bob", "g1", "130", "leave-2")
    assert out.amount == D(100) and "130" in out.problem
    assert not (await store.leave_table("bob", "g1", "130", "leave-2")).applied  # once
    [problem] = await store.problems()
    assert (problem["account"], problem["game_id"], problem["expected"], problem["recorded"]) == (
        "bob",
        "g1",
        D(130),
        D(100),
    )
    report = await check(store)
    assert report.notes and "bob at g1" in report.notes[0]
    assert (await store.get_account("bob")).balance == D(1000)
    r = gamehub("ledger", "problems", "--db", dsn)
    assert r.returncode == 0 and "cash_out g1 bob:" in r.stdout and "1 problem(s)" in r.stdout
    r = gamehub("ledger", "hubs", "--db", dsn)
    assert r.returncode == 0 and f"{store.hub_id} live " in r.stdout and "tables 3" in r.stdout


@pytest_twisted.ensureDeferred
async def test_a_second_hub_never_refunds_a_live_hubs_tables(dsn):
    first = make_store(dsn)
    await first.start()
    await open_tables(first, "live")
    await two_at_a_table(first, "live")
    second = make_store(dsn)
    await second.start()  # recovery: the first hub lives
    tool = make_store(dsn)
    await tool.start(recover=False)
    try:
        assert second.recovered == []
        assert await first.chips_at("live") == {"ann": D(100), "bob": D(100)}
        assert await tool.live_hubs() == {first.hub_id, second.hub_id}
        await check(tool)
        # the first hub's lock goes (a PostgreSQL restart drops every lock): within the
        # grace after its last heartbeat it still counts as alive...
        first._heartbeat.stop()
        await first._in_thread(first._lock.release)
        assert await tool.live_hubs() == {first.hub_id, second.hub_id}
        await check(tool)
        # ...unless its process is known to have ended (as after a kill): then it is dead
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True)  # fmt: skip
        await first._run(
            lambda cur: cur.run(
                "UPDATE hub_lease SET pid = ? WHERE hub_id = ?", int(gone.stdout), first.hub_id
            )
        )
        assert await tool.live_hubs() == {second.hub_id}
        report = await tool.ledger_check()
        assert not report.ok and len([p for p in report.problems if "not alive" in p]) == 2
        # two hubs recovering at once refund each chip once
        third = make_store(dsn)
        await third.start(recover=False)
        third.hub_id = "third"
        results = await defer.gatherResults([second.recover(), third.recover()])
        assert sorted(r for refunds in results for r in refunds) == [
            ("ann", "live", D(100)),
            ("bob", "live", D(100)),
        ]
        third.hub_id = None
        await third.stop()
        hubs = {h["hub_id"]: h for h in await tool.hubs()}
        assert hubs[first.hub_id]["ended"] is not None and not hubs[first.hub_id]["live"]
        assert hubs[second.hub_id]["live"] and hubs[second.hub_id]["ended"] is None
        report = await check(tool)
        assert report.at_tables == 0
        await fails(first.buy_in("ann", "live", "1", "late"), TableNotOpen)  # fenced
    finally:
        first.hub_id = None
        for s in (first, second, tool):
            await s.stop()


@pytest_twisted.ensureDeferred
async def test_the_check_fails_on_unsettled_twice_settled_and_mispaid_hands(store, dsn):
    await two_at_a_table(store)
    await store.settle_hand("g1", "good", {"ann": "5", "bob": "-5"}, hand("ann", "bob", "5"))
    await check(store)
    # a hand in the history that no settlement moved
    await store.record_hand("g1", hand("ann", "bob", "3")["players"], hand_key="unsettled")
    # a hand settled a second time under another key (what a buggy hub would do)
    await store.settle_hand("g1", "twice", {"ann": "1", "bob": "-1"}, hand("ann", "bob", "1"))
    legs = {"ann": (D(0), D(1)), "bob": (D(0), D(-1))}
    await store._run(
        lambda cur: store._move_txn(cur, "again", "settle", "g1", legs, 0.0, hand_key="twice")
    )
    # a hand whose history says ann won 9 while the settlement moved 2
    await store.settle_hand("g1", "mispaid", {"ann": "2", "bob": "-2"}, hand("ann", "bob", "9"))
    report = await store.ledger_check()
    assert not report.ok
    assert report.balances + report.at_tables == report.issued  # the books still balance
    text = "\n".join(report.problems)
    assert "hand unsettled of g1 was never settled" in text
    assert "hand twice of g1 was settled 2 times" in text
    assert "hand mispaid of g1: ann won 9.00 but the settlement moved 2.00" in text
    assert "good" not in text
    r = gamehub("ledger", "check", "--db", dsn)
    assert r.returncode == 1 and r.stdout.count("problem:") == len(report.problems), r.stdout


@pytest_twisted.ensureDeferred
async def test_the_check_fails_on_chips_at_a_table_no_live_game_holds(store, dsn):
    await two_at_a_table(store)
    await check(store)

    def closed(cur):
        cur.run("UPDATE chip_table SET closed = opened WHERE game_id = 'g1'")

    await store._run(closed)
    report = await store.ledger_check()
    assert not report.ok
    assert [p for p in report.problems if "the table is closed" in p] == [
        "100.00 chips of ann at g1: the table is closed",
        "100.00 chips of bob at g1: the table is closed",
    ]
    r = gamehub("ledger", "check", "--db", dsn)
    assert r.returncode == 1 and "chips of ann at g1: the table is closed" in r.stdout


@pytest_twisted.ensureDeferred
async def test_an_unreachable_database_is_503_and_found_again(store):
    from tests.hub.faults import Faults

    changes = []
    store._probe_delays = (0.01, 0.02)
    store.on_availability(changes.append)
    faults = Faults(store)
    faults.down = True
    e = await fails(store.get_account("nobody"), StoreUnavailable)
    assert e.code == 503 and not store.available and changes == [False]
    faults.down = False
    for _ in range(500):  # the store's own probe finds it again (bounded wait)
        if store.available:
            break
        await defer.ensureDeferred(_sleep(0.01))
    assert store.available and changes == [False, True]
    assert (await check(store)).ok


async def _sleep(seconds: float) -> None:
    from twisted.internet import reactor, task

    await task.deferLater(reactor, seconds, lambda: None)
