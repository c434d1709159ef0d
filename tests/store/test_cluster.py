"""The cluster's tables on PostgreSQL (``hub.store.cluster``): a dead hub's games are
aborted, its member row ended and every hub told, in the recovery that refunds its
tables, exactly once when two hubs recover it at the same moment."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from decimal import Decimal as D

import psycopg2
import pytest
import pytest_twisted
from twisted.internet import defer

from hub.store.cluster import MAX_NOTICE
from hub.store.errors import LeaseEnded
from tests.store.conftest import make_store, open_tables
from tests.store.test_tables import hand, two_at_a_table


@pytest.fixture
def pg_dsn(dsn: str) -> str:
    if not dsn.startswith("postgresql"):
        pytest.skip("a cluster shares one PostgreSQL database (SQLite hubs are single)")
    return dsn


def row(game_id: str, hub_id: str) -> dict:
    return {
        "id": game_id,
        "hub": hub_id,
        "rev": 1,
        "type": "test",
        "name": game_id,
        "state": "running",
        "seats": [{"seat": 0, "player": "ann", "kind": "client", "present": True}],
        "info": {"frontend": "web"},
    }


async def member(dsn: str, recovered: list):
    """A started hub store that joined the cluster and records its recoveries."""
    store = make_store(dsn)
    await store.start()
    await store.cluster_channel()
    await store.cluster_join({"web": {"host": "127.0.0.1", "port": 1, "tls": False}}, {})
    store.on_recovery(store.abort_hubs, lambda hubs, aborted: recovered.append(aborted))
    return store


@pytest_twisted.ensureDeferred
async def test_two_hubs_recovering_a_dead_one_abort_its_games_once(pg_dsn):
    done: list = []
    first = await member(pg_dsn, done)
    await open_tables(first, "t1")
    await two_at_a_table(first, "t1")
    await first.directory_write([row("g1", first.hub_id), row("g2", first.hub_id)])
    second = await member(pg_dsn, done)
    third = await member(pg_dsn, done)
    listen = psycopg2.connect(pg_dsn)
    listen.autocommit = True
    listen.cursor().execute(f'LISTEN "{second.channel}"')
    try:
        members, dead = await second.cluster_members()
        assert dead == 0 and [m["live"] for m in members] == [True, True, True]
        assert members[0]["games"] == 2 and members[0]["endpoints"]["web"]["port"] == 1
        # the first hub dies: its lock goes and its process is known to be gone
        first._heartbeat.stop()
        await first._in_thread(first._lock.release)
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True)  # fmt: skip
        await first._run(
            lambda cur: cur.run(
                "UPDATE hub_lease SET pid = ? WHERE hub_id = ?", int(gone.stdout), first.hub_id
            )
        )
        assert (await second.cluster_members())[1] == 1
        results = await defer.gatherResults([second.recover(), third.recover()])
        assert sorted(r for refunds in results for r in refunds) == [
            ("ann", "t1", D(100)),
            ("bob", "t1", D(100)),
        ]
        assert done == [{first.hub_id: 2}]  # one of the two did it
        rows = await second.directory_rows(hubs=[first.hub_id])
        assert [(r["id"], r["state"], r["rev"]) for r in rows] == [
            ("g1", "aborted", 2),
            ("g2", "aborted", 2),
        ]
        members, dead = await third.cluster_members()
        assert dead == 0 and not members[0]["live"] and members[0]["ended"] is not None
        listen.poll()
        told = [json.loads(n.payload) for n in listen.notifies]
        assert told.count({"op": "hub", "hub": first.hub_id}) == 1
        assert await second.abort_orphans() == {}  # nothing left to abort
        assert await second.directory_purge(-1) == 2
        assert await second.directory_rows() == []
    finally:
        listen.close()
        first.hub_id = None
        for s in (first, second, third):
            await s.stop()


@pytest_twisted.ensureDeferred
async def test_a_hub_leaving_takes_its_games_and_ends_its_member_row(pg_dsn):
    store = await member(pg_dsn, [])
    other = await member(pg_dsn, [])
    try:
        await store.directory_write([row("g1", store.hub_id)])
        await other.directory_write([{**row("g1", other.hub_id), "name": "taken"}])
        [kept] = await other.directory_rows()
        assert kept["hub"] == store.hub_id and kept["name"] == "g1"  # not another hub's
        await store.directory_sync([row("g2", store.hub_id)])
        assert [r["id"] for r in await other.directory_rows()] == ["g2"]
        await store.cluster_leave()
        assert await other.directory_rows() == []
        members, _ = await other.cluster_members()
        assert [m["live"] for m in members] == [False, True]
    finally:
        for s in (store, other):
            await s.stop()


@pytest_twisted.ensureDeferred
async def test_a_cut_off_hub_settling_a_table_resumed_elsewhere_is_told_it_was_taken(pg_dsn):
    """A hub cut off from the database while its table was resumed by another hub
    (its lease ended, the table moved with its journal) learns, when it settles the
    hand it was playing, that the table was taken over (:class:`LeaseEnded`): whether
    the new owner settled that hand otherwise already (the key refused as reused) or
    not yet; and no chip moves."""
    cut = await member(pg_dsn, [])
    other = await member(pg_dsn, [])
    try:
        await open_tables(cut, "t1")
        await two_at_a_table(cut, "t1")
        await cut.settle_hand("t1", "h1", {"ann": "5", "bob": "-5"}, hand("ann", "bob", "5"))
        with psycopg2.connect(pg_dsn) as conn, conn.cursor() as cur:  # the takeover
            cur.execute("UPDATE hub_lease SET ended = now() WHERE hub_id = %s", (cut.hub_id,))
            cur.execute("UPDATE chip_table SET hub_id = %s WHERE game_id = 't1'", (other.hub_id,))
        conn.close()
        await other.settle_hand("t1", "h2", {"ann": "-3", "bob": "3"}, hand("ann", "bob", "-3"))
        with pytest.raises(LeaseEnded):  # h2 settled otherwise by the new owner
            await cut.settle_hand("t1", "h2", {"ann": "9", "bob": "-9"})
        with pytest.raises(LeaseEnded):  # a hand the new owner has not settled
            await cut.settle_hand("t1", "h3", {"ann": "1", "bob": "-1"})
        again = await cut.settle_hand(
            "t1", "h1", {"ann": "5", "bob": "-5"}, hand("ann", "bob", "5")
        )
        assert not again.applied  # its own settled hand replays as before
        assert await other.chips_at("t1") == {"ann": D(102), "bob": D(98)}
        report = await other.ledger_check()
        assert report.ok, report.problems
    finally:
        for s in (cut, other):
            await s.stop()


@pytest_twisted.ensureDeferred
async def test_one_write_of_many_rows_announces_them_in_order_in_few_notices(pg_dsn):
    store = await member(pg_dsn, [])
    listen = psycopg2.connect(pg_dsn)
    listen.autocommit = True
    listen.cursor().execute(f'LISTEN "{store.channel}"')
    try:
        ids = [f"g{n:03}" for n in range(250)]  # more than one statement's batch
        await store.directory_write([row(g, store.hub_id) for g in ids])
        await store.directory_write([{**row("g001", store.hub_id), "rev": 2}], ["g000", "g002"])
        rows = {r["id"]: r for r in await store.directory_rows()}
        assert sorted(rows) == ids[1:2] + ids[3:] and rows["g001"]["rev"] == 2

        def heard() -> list[tuple[str, str]]:
            told = [json.loads(n.payload) for n in listen.notifies]
            assert {t["op"] for t in told} <= {"rows"} and all(
                t["hub"] == store.hub_id for t in told
            )
            assert all(len(n.payload.encode()) <= MAX_NOTICE for n in listen.notifies)
            return [(part, x if part == "del" else x["id"]) for t in told
                    for part in ("del", "put") for x in t.get(part, [])]  # fmt: skip

        expected = [("put", g) for g in ids] + [("del", "g000"), ("del", "g002"), ("put", "g001")]
        for _ in range(100):  # the notices may come in several reads
            if len(heard()) >= len(expected):
                break
            select.select([listen], [], [], 0.1)
            listen.poll()
        assert heard() == expected
        assert len(listen.notifies) < len(ids) / 4  # several rows a notice
    finally:
        listen.close()
        await store.stop()


def plugin(name: str, sha: str, since: int, **more) -> dict:
    return {"name": name, "kind": "game", "version": "1.0.0", "sha256": sha, "size": 10,
            "file": f"{name}-1.0.0.zip", "signer": "unsigned", "since": since, **more}  # fmt: skip


@pytest_twisted.ensureDeferred
async def test_the_plugin_index_keeps_each_hubs_plugins_and_its_tombstones(pg_dsn):
    first = await member(pg_dsn, [])
    second = await member(pg_dsn, [])
    listen = psycopg2.connect(pg_dsn)
    listen.autocommit = True
    listen.cursor().execute(f'LISTEN "{second.channel}"')
    try:
        await first.plugins_publish([plugin("greet", "a" * 64, 5), plugin("old", "b" * 64, 1)])
        await second.plugins_publish([plugin("greet", "a" * 64, 5)])
        # the first hub's set is now greet only, and old was removed there (a tombstone)
        await first.plugins_publish(
            [plugin("greet", "a" * 64, 5), plugin("old", "b" * 64, 9, removed=True)], only=True
        )
        rows = await second.plugins_index()
        mine = {(r["hub"], r["name"]): r for r in rows}
        assert set(mine) == {
            (first.hub_id, "greet"),
            (first.hub_id, "old"),
            (second.hub_id, "greet"),
        }
        assert mine[(first.hub_id, "old")]["removed"] is True
        assert mine[(first.hub_id, "old")]["since"] == 9
        assert mine[(second.hub_id, "greet")]["sha256"] == "a" * 64
        listen.poll()
        notices = [json.loads(n.payload) for n in listen.notifies]
        assert {"op": "plugin", "hub": first.hub_id} in notices
        # a hub that leaves takes its rows and leaves its tombstones
        await first.plugins_leave()
        left = {(r["hub"], r["name"]) for r in await second.plugins_index()}
        assert left == {(first.hub_id, "old"), (second.hub_id, "greet")}
        # tombstones older than the limit go (since is in nanoseconds)
        assert await second.plugins_purge(keep_removed=0) == 1
        assert [r["name"] for r in await second.plugins_index()] == ["greet"]
    finally:
        listen.close()
        await first.stop()
        await second.stop()
