"""Database outages and a partition of a cluster of three ``twistd gamehub`` processes
(issue 31, docs/cluster.md "When something fails").

The hubs share a PostgreSQL server of the test's own (``tests/pgserver.py``: the
machine's shared server is never stopped), each through a TCP proxy the test controls
(``tests/tcpproxy.py``).  Each hub runs a chip table of bots and a morris game waiting
for a player; hub A also has an XML poker client (a network player) at a chip table.

- **Outage**: the server stops for 12 s (``GAMEHUB_SOAK=full``: also 60 s and 5 min,
  then 20 more cycles of 12 s, with the default grace) and starts again: every hub is
  alive and the same member afterwards, no table is refunded, no game aborted, the
  tables deal on, every hand is settled once and ``gamehub ledger check`` passes.
- **Partition**: only A's proxy is cut for longer than the grace: B or C recovers A
  exactly once (its tables and games resumed from their journal by the survivor that
  recovered it, no refund); once the cut ends, A notices, gives up what was taken and rejoins by
  itself as a new member, and the ledger check passes.

In the normal run the hubs beat every second with a grace of 6 s (``lease_interval``,
``lease_grace``) so that the test takes a minute; the outage is still twice the grace.
Waits poll with a deadline; nothing is timed.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from twisted.internet import reactor, task, threads

from bots.poker.netplay import NetPlayer, bot_decider
from hub.client import HubClient
from tests.hubprocess import HubProcess
from tests.integration.test_cluster import create, games_of, health, start_hub, wait_for
from tests.pgserver import temp_postgres
from tests.store.test_cli_and_crash import gamehub
from tests.tcpproxy import TcpProxy

SOAK = os.environ.get("GAMEHUB_SOAK") == "full"
#: a table of bots on purpose deals on however long the outages last (one that is not
#: closes after ``unattended_seconds``, 180 s) and a broke bot buys in again
BOT_TABLE = {"bots_only": True, "broke_bots": "rebuy"}
#: seconds between hands: none in CI's short run; in the soak about two hands a second,
#: so that a table's journal stays far below ``journal_max_entries`` for the whole soak
PAUSE = 0.5 if SOAK else 0
#: the hubs' lease: the defaults in the soak run, a short one in the normal run
LEASE = [] if SOAK else ["--set", "lease_interval=1", "--set", "lease_grace=6"]
GRACE = 15.0 if SOAK else 6.0
OUTAGES = [12.0, 60.0, 300.0] + [12.0] * 20 if SOAK else [12.0]
LIMIT = 60.0

pytestmark = pytest.mark.skipif(os.name != "posix", reason="PostgreSQL binaries, signals")


@pytest.fixture
def postgres() -> Iterator[Any]:
    server = temp_postgres()
    if isinstance(server, str):
        pytest.skip(server)
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture
def cluster(tmp_path: Path, postgres: Any) -> Iterator[tuple[list[HubProcess], list[TcpProxy]]]:
    """Hubs A, B and C, each through a proxy of its own to the test's server."""
    proxies = [TcpProxy(("127.0.0.1", postgres.port)) for _ in "abc"]
    hubs: list[HubProcess] = []
    try:
        for name, proxy in zip("abc", proxies, strict=True):
            hubs.append(start_hub(tmp_path, name, proxy.dsn(postgres.dsn), extra=LEASE))
        everyone(hubs, "each hub lists the three")
        yield hubs, proxies
    finally:
        for hub in hubs:
            hub.stop()
        for proxy in proxies:
            proxy.close()


def ids(hubs: list[HubProcess]) -> list[str]:
    return [health(h)["cluster"]["hub"] for h in hubs]


def everyone(hubs: list[HubProcess], what: str, seconds: float = LIMIT) -> list[str]:
    """Wait until every hub is healthy and sees all the others alive; their ids."""

    def seen() -> list[str] | None:
        views = [health(h) for h in hubs]
        now = [v["cluster"]["hub"] for v in views]
        for view in views:
            alive = {x["id"] for x in view["cluster"]["hubs"]}
            if view["status"] != "ok" or alive != set(now):
                return None
        return now

    return wait_for(seen, what, seconds)


def hands_of(dsn: str, game_id: str) -> int:
    """How many hands of ``game_id`` the history has (blocking, in a thread)."""
    import psycopg2

    with psycopg2.connect(dsn) as conn, conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM finished_hand WHERE game_id = %s", (game_id,))
        return int(cur.fetchone()[0])


def refunds(dsn: str) -> list[tuple[str, str]]:
    """Every refund in the ledger: (game, account)."""
    import psycopg2

    with psycopg2.connect(dsn) as conn, conn.cursor() as cur:
        cur.execute("SELECT game_id, account_name FROM ledger WHERE kind = 'refund' ORDER BY id")
        return [(r[0], r[1]) for r in cur.fetchall()]


def ledger_ok(dsn: str) -> None:
    r = gamehub("ledger", "check", "--db", dsn)
    assert r.returncode == 0 and "ledger OK" in r.stdout, r.stdout + r.stderr


async def pause(seconds: float) -> None:
    await task.deferLater(reactor, seconds, lambda: None)


async def more_hands(dsn: str, tables: list[str]) -> None:
    """Wait until each table has settled two more hands."""
    before = [await threads.deferToThread(hands_of, dsn, t) for t in tables]
    for table, was in zip(tables, before, strict=True):
        for _ in range(int(LIMIT * 5)):
            if await threads.deferToThread(hands_of, dsn, table) >= was + 2:
                break
            await pause(0.2)
        else:
            raise AssertionError(f"table {table} deals no more hands")


def no_aborted(hubs: list[HubProcess], games: list[str]) -> None:
    for hub in hubs:
        listed = games_of(hub)
        for game_id in games:
            assert game_id in listed, (game_id, hub.ports)
            assert listed[game_id]["state"] != "aborted", listed[game_id]


async def xml_player(hub: HubProcess) -> tuple[HubClient, NetPlayer, str]:
    """A network poker player (the XML front end) at a new chip table of ``hub``."""
    client = await HubClient.connect(reactor, "127.0.0.1", hub.ports["xml"]).addTimeout(30, reactor)
    await client.create_account("alice", "secret-alice").addTimeout(30, reactor)
    await client.login("alice", "secret-alice").addTimeout(30, reactor)
    gameid = await client.create_game(
        "texas-holdem",
        "outage",
        seats=["open", "bot:caller"],
        options={"stakes": "1/2", "showdown_pause": 0, "buyin": 200},
    ).addTimeout(30, reactor)
    await client.join(gameid).addTimeout(30, reactor)
    holder: dict[str, NetPlayer] = {}
    me = NetPlayer(
        client, gameid, bot_decider("caller", lambda: holder["p"].table.seat, 1), reactor
    )
    holder["p"] = me
    await me.take_seat(0, "100").addTimeout(30, reactor)
    return client, me, gameid


@pytest.mark.slow
@pytest_twisted.ensureDeferred
async def test_outages_recover_nobody_and_a_partition_is_recovered_once(cluster, postgres):
    hubs, proxies = cluster
    a, b, c = hubs
    dsn = postgres.dsn
    members = ids(hubs)
    tables, games = [], []
    for hub in hubs:
        table = create(
            hub,
            {
                "type": "texas-holdem",
                "seats": ["bot:caller", "bot:raiser"],
                "options": {"showdown_pause": PAUSE, "buyin": 10000, "stakes": "1/2"},
                **BOT_TABLE,
            },
        )
        morris = create(hub, {"type": "nmmorris", "seats": ["open", "bot:morris-random"]})
        tables.append(table["id"])
        games += [table["id"], morris["id"]]
    client, me, _ = await xml_player(a)
    await more_hands(dsn, tables)
    for hub in hubs:
        wait_for(lambda h=hub: set(games) <= set(games_of(h)), "every hub lists every game")

    for seconds in OUTAGES:
        await threads.deferToThread(postgres.stop)
        await pause(seconds)
        await threads.deferToThread(postgres.start)
        # long enough for any survivor to have its evidence: nobody was recovered
        assert everyone(hubs, "all back, the same three", LIMIT) == members
        await pause(GRACE + 3)
        assert ids(hubs) == members and everyone(hubs, "still the same three") == members
        assert await threads.deferToThread(refunds, dsn) == []
        await more_hands(dsn, tables)
        no_aborted(hubs, games)
        await threads.deferToThread(ledger_ok, dsn)
        assert me.errors == [] and client.invalid == []
    me.leave()
    await me.done.addTimeout(LIMIT, reactor)
    await client.close()
    for hub in hubs:
        assert hub.errors() == [], hub.log()

    # a partition: only A is cut off from the database
    a_id = members[0]
    on_a = {g["id"] for g in a.get_json("/api/games") if g.get("hub") == a_id}  # type: ignore[union-attr]
    proxies[0].cut()
    for hub in (b, c):  # A's games resume from their journal on the hub that recovered A
        for game_id in games[:2]:
            wait_for(
                lambda h=hub, g=game_id: games_of(h).get(g, {}).get("hub") in members[1:],
                "B and C list A's games on the hub that resumed them",
                LIMIT,
            )
        assert games_of(hub)[games[0]]["state"] != "aborted"
    refunded = await threads.deferToThread(refunds, dsn)
    assert refunded == []  # A's table moved with its chips
    assert on_a >= set(games[:2])
    gone = [line for h in (b, c) for line in h.log().splitlines() if f"hub {a_id} is gone" in line]
    assert len(gone) == 1, gone
    proxies[0].restore()
    rejoined = everyone(hubs, "A rejoined as a new member", LIMIT)
    assert rejoined[0] != a_id and rejoined[1:] == members[1:]
    # (its new member row is listed a moment before it has joined again and says so)
    wait_for(lambda: "rejoined as" in a.log(), "A says it rejoined", LIMIT)
    await more_hands(dsn, tables)  # A's table deals on where it was resumed
    await threads.deferToThread(ledger_ok, dsn)
    assert await threads.deferToThread(refunds, dsn) == refunded  # nothing more
    for hub in hubs:
        assert hub.errors() == [], hub.log()
    assert a.proc is not None and a.proc.poll() is None  # alive all along
    a.stop(signal.SIGTERM)
