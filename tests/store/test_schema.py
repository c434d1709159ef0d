"""The versioned schema: upgrades of older databases, refusal of newer ones."""

from __future__ import annotations

from decimal import Decimal
from decimal import Decimal as D

import pytest
import pytest_twisted

from hub.store import SchemaTooNew, StoreError
from hub.store.schema import LATEST

from .conftest import make_store
from .test_accounts import fails


async def version(store):
    return await store._run(lambda cur: cur.one("SELECT version FROM gamehub_schema")[0])


#: a table of each version's step: the table money's (3), the replays' (4), the hands'
#: in every game's words (5), the cluster's (6), the audit log's (7), the ratings' (8),
#: the cluster's plugin index (9), the tournaments' (10), the cluster's secret (11)
STEP_TABLES = {
    3: ("hub_lease", "chip_table", "money_problem"),
    4: ("game_replay",),
    5: ("finished_hand", "hand_seat"),
    6: ("hubs", "directory"),
    7: ("audit_log", "address_ban"),
    8: ("rating", "rated_result"),
    9: ("plugin_index",),
    10: ("tournament", "tournament_entry", "tournament_game"),
    11: ("cluster_secret",),
}


async def rows(store, table):
    return await store._run(lambda cur: cur.one(f"SELECT COUNT(*) FROM {table}")[0])


@pytest_twisted.ensureDeferred
async def test_fresh_database_gets_the_newest_schema(store):
    assert await version(store) == LATEST == 16
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


def v4_hand(store, hand_id, hand_key, ann_net, board, shown=()):
    """The rows a version-4 hub wrote for a settled poker hand between ann (seat 0)
    and bob (seat 1): its settlement, its ``hand`` row and two ``player`` rows (the
    seed's columns: the board as text, per player the rounds and the shown cards)."""

    def txn(cur):
        d, now = store.dialect, store._now()
        net = D(ann_net)
        legs = {"ann": (D(0), net), "bob": (D(0), -net)}
        store._move_txn(cur, f"hand:g1:{hand_key}", "settle", "g1", legs, now, hand_key=hand_key)
        cards = list(board) + [None] * (5 - len(board))
        cur.run(
            "INSERT INTO hand (hand_id, game_id, hand_key, timestamp, dealer, flop, turn, river,"
            " showdown, card1, card2, card3, card4, card5, commitment, seed, actions)"
            " VALUES (?, 'g1', ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            hand_id, hand_key, d.t_in(now), " ".join(board[:3]) or None,
            board[3] if len(board) > 3 else None, board[4] if len(board) > 4 else None,
            "ann: a pair" if shown else None, *cards, "ab" * 32, "cd" * 32,
            '[["ann", "raise", "20"]]',
        )  # fmt: skip
        for seat, name, won in ((0, "ann", net), (1, "bob", -net)):
            hole = list(shown) if seat == 0 else []
            hole += [None] * (2 - len(hole))
            cur.run(
                "INSERT INTO player (hand_id, account, name, name_key, account_id, position,"
                " preflop, flop, turn, river, money_in, winnings, card1, card2)"
                " VALUES (?, ?, ?, ?, NULL, ?, 'post call', NULL, NULL, NULL, ?, ?, ?, ?)",
                hand_id, name, name.title(), name, seat, d.m_in(max(-won, D(0))),
                d.m_in(max(won, D(0))), *hole,
            )  # fmt: skip

    return store._run(txn)


@pytest_twisted.ensureDeferred
async def test_a_version_4_database_s_hands_move_to_the_game_s_record(dsn):
    from games.poker.server import TexasHoldemFactory

    old = make_store(dsn)
    assert await old.migrate(4) == (0, 4)
    old.hub_id = "old-hub"  # (a version-4 hub's table)
    await old._run(
        lambda cur: cur.run(
            "INSERT INTO chip_table (game_id, hub_id, game_type, opened)"
            " VALUES ('g1', 'old-hub', 'texas-holdem', ?)",
            old.dialect.t_in(old._now()),
        )
    )
    for name in ("ann", "bob"):
        await old.create_account(name, "secret1")
        await old.buy_in(name, "g1", "100", f"in-{name}")
    await v4_hand(old, 7, "g1-1", "5", ["As", "Ks", "Qs", "2c", "3d"], shown=["Ah", "Ad"])
    await v4_hand(old, 8, "g1-2", "-1.50", [])
    await old.close_table("g1")
    await old.record_game("g1", "texas-holdem", "a table", [{"seat": 0, "name": "ann"}])
    await old.stop()

    new = make_store(dsn)
    await new.start()
    try:
        assert await version(new) == LATEST
        report = await new.ledger_check()
        assert report.ok, str(report)
        second, first = await new.hands(game_id="g1", sealed=True)
        assert (first["hand_id"], first["hand_key"], first["game_type"]) == (7, "g1-1",
                                                                          "texas-holdem")  # fmt: skip
        assert [(p["name"], p["display"], p["seat"], p["winnings"] - p["money_in"])
                for p in first["players"]] == [("ann", "Ann", 0, D(5)), ("bob", "Bob", 1, D(-5))]  # fmt: skip
        assert first["sealed"] == {"seed": "cd" * 32, "actions": [["ann", "raise", "20"]]}
        assert first["record"]["commitment"] == "ab" * 32 and first["started"] is None
        # the poker game reads the old columns back in its words
        poker = TexasHoldemFactory()
        assert poker.describe(first) == "board As Ks Qs 2c 3d; ann: a pair"
        shown = poker.hand_json(first)
        assert shown["board"] == [51, 47, 43, 0, 5] and shown["shown"] == {"0": [50, 49]}
        assert (shown["dealer"], shown["seed"], shown["commitment"]) == (1, "cd" * 32, "ab" * 32)
        assert poker.describe(second) is None and poker.hand_json(second)["board"] == []
        # new hands get new ids after the old ones, in the new layout
        later = await new.record_hand("g1", [{"name": "ann", "seat": 0}], hand_key="g1-3")
        assert later == 9
        tables = await new._run(lambda cur: cur.all("SELECT * FROM gamehub_schema"))
        assert tables and await fails(new._run(lambda cur: cur.one("SELECT 1 FROM player")),
                                      Exception)  # fmt: skip
    finally:
        await new.stop()


@pytest_twisted.ensureDeferred
async def test_replays_are_compressed_with_lz4_where_the_server_has_it(store):
    if store.dialect.name != "postgresql":
        pytest.skip("a column's compression is PostgreSQL's")

    def look(cur):
        has = cur.one(
            "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression'"
            " AND 'lz4' = ANY(enumvals)"
        )
        method = cur.one(
            "SELECT attcompression FROM pg_attribute WHERE attrelid = 'game_replay'::regclass"
            " AND attname = 'replay'"
        )[0]
        return has is not None, method

    has, method = await store._run(look, write=False)
    assert method == ("l" if has else "")
    replay = {"events": [{"at": n, "kind": "moved", "data": {"seat": n % 2}} for n in range(400)]}
    assert await store.record_game("z1", "hello", "z", [], replay=replay) is True
    assert await store.replay("z1") == replay
