"""A database outage in the middle of a hand, on a PostgreSQL server of the test's
own: a network player and two in-hub bots play at a hub (XML and web front ends on
loopback); the test stops the server mid-hand and starts it again.

The table finishes the hand in play and deals no new one; players, watchers and the
lobby are told ``paused: store unavailable``; ``/api/health`` says ``degraded``; new
tables, buy-ins and leaving are refused with 503.  When the server is back the pending
settlement is applied exactly once, play resumes by itself, the hub takes its lease's
advisory lock again (the restart dropped it), the ledger check passes, and the player's
balance after leaving is the buy-in plus the settled payoffs.
"""

from __future__ import annotations

import json
import sys
from decimal import Decimal

import pytest
import pytest_twisted
import treq
from twisted.internet import defer, reactor, task, threads, utils

from bots.poker.netplay import NetPlayer, bot_decider
from games.poker.client import action_xml
from hub.play.money import STORE_DOWN
from hub.plugins.registry import Registry
from hub.service import HubService
from hub.store import open_store
from hub.store.accounts import ScryptParams
from hub.store.locks import NAMESPACE
from tests.hubprocess import ROOT
from tests.integration.test_poker_xml import player, refused
from tests.pgserver import temp_postgres
from tests.support import until

LIMIT = 30.0
PAUSED = f"paused: {STORE_DOWN}"


def bounded(d, seconds: float = LIMIT) -> defer.Deferred:
    return defer.ensureDeferred(d).addTimeout(seconds, reactor)


@pytest.fixture
def postgres():
    server = temp_postgres()
    if isinstance(server, str):
        print(server)
        pytest.skip(server)
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture
def hub(postgres, tmp_path):
    store = open_store(
        postgres.dsn, reactor, scrypt=ScryptParams(n=16, r=8, p=1), probe_delays=(0.05, 0.5)
    )
    store.lease_interval = 3600.0  # the lock is taken again when the store returns, not later
    service = HubService(
        reactor,
        tmp_path / "data",
        {"xml": "tcp:0:interface=127.0.0.1", "web": "tcp:0:interface=127.0.0.1"},
        Registry(tmp_path / "data", reactor),
        store=store,
        options={
            "xml_max_per_address": 64,
            "xml_rate": 1000,
            "xml_burst": 1000,
            "money_retry_first": 0.05,
            "money_retry_most": 0.5,
        },
    )
    service.startService()
    pytest_twisted.blockon(bounded(service._starting))
    yield service
    if not postgres.running():
        postgres.start()
    pytest_twisted.blockon(bounded(service.stopService()))


async def get(hub, path: str):
    response = await bounded(treq.get(f"http://127.0.0.1:{hub.bound_ports['web']}{path}"))
    return json.loads(await bounded(treq.content(response)))


async def health(hub) -> dict:
    return await get(hub, "/api/health")


def lock_held(dsn: str, key: int) -> bool:
    """Whether some session of the server at ``dsn`` holds the hub's advisory lock
    ``key`` (blocking: run it in a thread)."""
    import psycopg2

    with psycopg2.connect(dsn) as conn, conn.cursor() as cur:
        cur.execute(
            "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND classid = %s AND objid = %s",
            (NAMESPACE, key),
        )
        return bool(cur.fetchone()[0])


@pytest_twisted.ensureDeferred
async def test_the_server_stops_mid_hand_and_comes_back(hub, postgres):
    alice, bob = await player(hub, "alice"), await player(hub, "bob")
    lobby_rows: list[str | None] = []
    bob.on_lobby = lambda change, gameid, row: lobby_rows.append(
        None if row is None else row.findtext("additionalinfo/other/parameters/paused")
    )
    # every hand settled, from before the creation is answered: the bots deal at once
    # (the hub's only game; the answer may come after a hand or two)
    settled: list[str] = []
    hub.money.on_hand(lambda g, hand, hand_id: settled.append(hand))
    gameid = await bounded(
        alice.create_game(
            "texas-holdem",
            "outage",
            seats=["open", "bot:caller", "bot:raiser", "open"],
            options={"stakes": "1/2", "showdown_pause": 0, "buyin": 300},
        )
    )
    game = hub.lobby.games()[0]
    await bounded(alice.join(gameid))
    await bounded(bob.join(gameid))  # bob watches
    holder: dict = {}
    me = NetPlayer(alice, gameid, bot_decider("caller", lambda: holder["p"].table.seat, 1), reactor)
    holder["p"] = me
    await bounded(me.take_seat(0, "200"))
    assert (await hub.store.get_account("alice")).balance == Decimal(800)

    await until(lambda: len(settled) >= 3, "three hands settled")
    await until(lambda: game.engine.table.in_hand, "a hand in play")
    await bounded(threads.deferToThread(postgres.stop))  # mid-hand

    await until(lambda: game.paused == STORE_DOWN, "the table paused")
    hands_at_pause = game.engine.table.hands_played
    assert not game.engine.table.in_hand  # the hand in play finished; no new one dealt
    for client in (alice, bob):  # the player and the watcher are told
        await bounded(client.wait_for(lambda u: u.description == PAUSED))
    await until(lambda: STORE_DOWN in lobby_rows, "the lobby told")
    assert [g["paused"] for g in await get(hub, "/api/games")] == [STORE_DOWN]  # web lobby
    state = await health(hub)
    assert (state["status"], state["store"], state["paused_tables"]) == ("degraded", "down", 1)
    # new tables, buy-ins and leaving are refused, clearly
    e = await refused(alice.create_game("texas-holdem", "new", seats=["open", "bot:caller"]))
    assert e.code == 503 and STORE_DOWN in e.description
    e = await refused(bob.act(gameid, action_xml({"index": 11, "seat": 3, "amount": "100"})))
    assert e.code == 503 and game.seats[3].free
    e = await refused(alice.act(gameid, action_xml({"index": 12})))
    assert e.code == 503 and game.seats[0].player == "alice"
    assert len(hub.lobby.games()) == 1
    assert game.engine.table.hands_played == hands_at_pause and not game.engine.table.in_hand

    waiting = len(settled)
    await bounded(threads.deferToThread(postgres.start))
    await until(lambda: game.paused is None, "play resumed", seconds=60)
    await until(lambda: len(settled) >= waiting + 3, "more hands settled")
    await bounded(alice.wait_for(lambda u: u.description == "resumed"))
    assert (await health(hub))["status"] == "ok"
    # the restart dropped every session's locks: the hub takes its lease's lock again
    key = hub.store._lock.key
    for _ in range(100):
        if await bounded(threads.deferToThread(lock_held, postgres.dsn, key)):
            break
        await task.deferLater(reactor, 0.05, lambda: None)
    else:
        raise AssertionError("the hub never took its lock again")
    # the hand of the outage was settled exactly once, before the next was dealt
    outage_hand = settled[waiting]
    assert outage_hand.endswith(f"-{hands_at_pause}")
    # one leg per player of that hand (alice may have waited out a hand or two for
    # the big blind after she sat down: the hand's players are its history's)
    rows = await hub.store.ledger(key=f"hand:{game.id}:{outage_hand}")
    (record,) = await hub.store.hands(game_id=game.id, hand_key=outage_hand)
    assert sorted(r["account"] for r in rows) == sorted(p["name"] for p in record["players"])
    assert sorted(r["seq"] for r in rows) == list(range(len(rows))) and len(rows) >= 2

    me.leave()
    await bounded(me.done)
    await until(lambda: game.seats[0].player != "alice", "alice gone")
    await bounded(hub.money.idle())
    before = set(settled)  # (the bots play on)
    history = await hub.store.hands(game_id=game.id, limit=10_000)
    assert before <= {h["hand_key"] for h in history} <= set(settled)
    payoffs = sum(
        (
            p["winnings"] - p["money_in"]
            for h in history
            for p in h["players"]
            if p["name"] == "alice"
        ),
        Decimal(0),
    )
    balance = (await hub.store.get_account("alice")).balance
    assert balance - Decimal(800) == Decimal(200) + payoffs  # buy-in plus settled payoffs
    assert me.errors == [] and alice.invalid == [] and bob.invalid == []
    report = await hub.store.ledger_check()
    assert report.ok, str(report)
    out, err, code = await bounded(
        utils.getProcessOutputAndValue(
            sys.executable,
            ["-m", "hub.cli", "ledger", "check", "--db", postgres.dsn],
            env={"PYTHONPATH": str(ROOT)},
            path=str(ROOT),
        ),
        60,
    )
    assert code == 0 and b"ledger OK" in out, out + err
    await alice.close()
    await bob.close()
