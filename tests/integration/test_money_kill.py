"""``kill -9`` of a ``twistd gamehub`` in the middle of a hand, again and again, with
network players at a chip table (and an in-hub bot), on SQLite and PostgreSQL.

After each restart the table is resumed from its journal with its chips (issue 31);
its players, whose connections died with the hub, do not come back, so it closes as
an unattended table (``unattended_seconds``, short here) and the stacks go back.  The
ledger check passes and each player's balance is its balance before the cycle plus
what the settled hands of that cycle paid it: the hand the kill interrupted, void
when the table closed, never happened.

Two cycles per database here; ``GAMEHUB_SOAK=full`` runs fifty.
"""

from __future__ import annotations

import os
import signal
from decimal import Decimal

import pytest
import pytest_twisted
from twisted.internet import defer, reactor, task

from bots.poker.netplay import NetPlayer, bot_decider
from hub.client import HubClient
from tests.hubprocess import HubProcess
from tests.store.conftest import dsn, make_store  # noqa: F401 (the dsn fixture)
from tests.store.test_cli_and_crash import gamehub
from tests.support import until

CYCLES = 50 if os.environ.get("GAMEHUB_SOAK") == "full" else 2
PLAYERS = ("kim", "lee")
LIMIT = 30.0


def bounded(d: defer.Deferred, seconds: float = LIMIT) -> defer.Deferred:
    return d.addTimeout(seconds, reactor)


def start(tmp_path, dsn: str, n: int) -> HubProcess:  # noqa: F811
    hub = HubProcess(tmp_path / f"run{n}", data=tmp_path / "data", xml="tcp:0:interface=127.0.0.1")
    hub.extra = ["--db", dsn, "--set", "unattended_seconds=1"]
    (tmp_path / f"run{n}").mkdir()
    return hub.start()


async def client(hub: HubProcess, name: str, create: bool) -> HubClient:
    c = await bounded(HubClient.connect(reactor, "127.0.0.1", hub.ports["xml"]))
    if create:
        await bounded(c.create_account(name, "secret-" + name))
    await bounded(c.login(name, "secret-" + name))
    return c


def new_hand(update) -> bool:
    """A type-0 event: a hand was just dealt."""
    p = update.payload
    return p is not None and len(p) and p[0].tag == "event" and p[0].get("type") == "0"


async def play_until_mid_hand(hub: HubProcess, first: bool) -> tuple[str, list[HubClient], int]:
    """Both players sit at a new table with a bot; returns once two hands are over and
    another was dealt (the table's id, the clients, the hands dealt so far).  The last
    hand cannot end before the kill: it waits for the players, and this test's reactor
    sends nothing for them between that deal and the kill."""
    clients = [await client(hub, name, first) for name in PLAYERS]
    gameid = await bounded(
        clients[0].create_game(
            "texas-holdem",
            "kill",
            seats=["open", "open", "bot:caller"],
            options={"stakes": "1/2", "showdown_pause": 0, "buyin": 100},
        )
    )
    players = []
    for seat, (c, policy) in enumerate(zip(clients, ("caller", "poker-random"), strict=True)):
        await bounded(c.join(gameid))
        holder: dict = {}
        p = NetPlayer(
            c, gameid, bot_decider(policy, lambda h=holder: h["p"].table.seat, seat), reactor
        )
        holder["p"] = p
        players.append(p)
        await bounded(p.take_seat(seat, "100"))
    await until(lambda: min(p.table.hands for p in players) >= 2, "two hands played")
    dealt = sum(1 for u in clients[0].updates.get(gameid, ()) if new_hand(u))
    waiting = clients[0].wait_for(
        lambda u: new_hand(u) and sum(1 for v in clients[0].updates[gameid] if new_hand(v)) > dealt
    )
    await bounded(waiting)
    return str(gameid), clients, dealt + 1


@pytest.mark.slow
@pytest_twisted.ensureDeferred
async def test_kill_9_mid_hand_then_restart(dsn, tmp_path):  # noqa: F811
    tool = make_store(dsn)
    hub = start(tmp_path, dsn, 0)
    try:
        for cycle in range(CYCLES):
            if cycle == 0:
                await tool.start(recover=False)
            before = {}
            for name in PLAYERS:
                try:
                    before[name] = (await tool.get_account(name)).balance
                except Exception:
                    before[name] = Decimal(1000)  # created in this cycle
            _, clients, dealt = await play_until_mid_hand(hub, cycle == 0)
            hub.stop(signal.SIGKILL)  # mid-hand
            assert hub.proc.returncode == -signal.SIGKILL
            for c in clients:
                await bounded(c.closed)
            dead_tables = {t for name in PLAYERS for t in await tool.tables_of(name)}
            assert len(dead_tables) == 1, dead_tables  # both sat at the cycle's table
            [table] = dead_tables
            hub = start(tmp_path, dsn, cycle + 1)  # the table resumes before it listens
            assert f"journal: game {table} (texas-holdem) resumed" in hub.log(), hub.log()
            for _ in range(int(LIMIT * 10)):  # nobody comes back: it closes, stacks go back
                if all([await tool.tables_of(name) == {} for name in PLAYERS]):
                    break
                await task.deferLater(reactor, 0.1, lambda: None)
            else:
                raise AssertionError(f"the resumed table never closed:\n{hub.log()}")
            r = gamehub("ledger", "check", "--db", dsn)
            assert r.returncode == 0, r.stdout + r.stderr
            history = await tool.hands(game_id=table, limit=10**6)
            assert len(history) == dealt - 1 >= 2  # the hand in play when killed is not there
            for name in PLAYERS:
                paid = sum(
                    (p["winnings"] - p["money_in"] for h in history for p in h["players"]
                     if p["name"] == name),
                    Decimal(0),
                )  # fmt: skip
                assert (await tool.get_account(name)).balance == before[name] + paid, name
                assert await tool.tables_of(name) == {}
        hub.stop()
        assert hub.errors() == [], hub.log()
    finally:
        hub.stop(signal.SIGKILL)
        await tool.stop()
