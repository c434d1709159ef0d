"""Two hub stores on a PostgreSQL server of the test's own (issue 31): a database outage
longer than the grace recovers nobody; a partition of one hub (a TCP proxy between it
and the server, cut) gets it recovered exactly once, and the cut-off hub notices, is
fenced (it moves no chips) and takes a new lease.

The stores run on the test's reactor with a short grace (``lease_grace`` 2 s, a
heartbeat every 0.4 s) and each checks the other as the cluster does (members, then a
recovery when a lease is dead): b every 0.2 s and quick to probe, a every second and
probing with the hub's default backoff (0.25 s doubling to 5 s), so b is the first
back after the outage and a's heartbeat is then older than the grace for a while (the
old rule recovered a there).  Waits are bounded; nothing is timed.
"""

from __future__ import annotations

from decimal import Decimal as D

import pytest
import pytest_twisted
from twisted.internet import defer, reactor, task, threads

from hub.store.errors import LeaseEnded
from tests.pgserver import temp_postgres
from tests.store.conftest import make_store, open_tables
from tests.store.test_tables import two_at_a_table
from tests.support import until
from tests.tcpproxy import TcpProxy

GRACE = 2.0


@pytest.fixture
def postgres():
    server = temp_postgres()
    if isinstance(server, str):
        pytest.skip(server)
    try:
        yield server
    finally:
        server.remove()


def hub_store(dsn: str, probe_delays: tuple[float, float]):
    store = make_store(dsn, probe_delays=probe_delays)
    store.lease_interval = 0.4
    store.lease_grace = GRACE
    return store


class Watch:
    """What a cluster's watch does for one store: read the members every 0.2 s and
    recover when a lease is dead."""

    def __init__(self, store) -> None:
        self.store = store
        self.refunds: list = []
        self.loop = task.LoopingCall(self.check)
        self.loop.clock = reactor
        self.busy = False

    async def _check(self) -> None:
        _, dead = await self.store.cluster_members()
        if dead:
            self.refunds.extend(await self.store.recover())

    def check(self) -> None:
        if self.busy:
            return
        self.busy = True
        d = defer.ensureDeferred(self._check())
        d.addErrback(lambda f: None)  # (the database is away: the next check tries again)
        d.addBoth(lambda _: setattr(self, "busy", False))


@pytest_twisted.ensureDeferred
async def test_an_outage_recovers_nobody_and_a_partition_is_recovered_once(postgres):
    host_port = ("127.0.0.1", postgres.port)
    with TcpProxy(host_port) as proxy:
        a = hub_store(proxy.dsn(postgres.dsn), (0.25, 5.0))
        b = hub_store(postgres.dsn, (0.05, 0.5))
        fenced: list[str] = []
        watches: list[Watch] = []
        try:
            for store in (a, b):
                await store.start()
                await store.cluster_channel()
                await store.cluster_join({}, {})
            a.on_fenced(fenced.append)
            await open_tables(a, "t1")
            await two_at_a_table(a, "t1")
            watches = [Watch(a), Watch(b)]
            for watch, every in zip(watches, (1.0, 0.2), strict=True):
                watch.loop.start(every)
            await until(lambda: b.continuity.window() > GRACE, "b has its evidence window")
            # the server stops for three graces, and starts again
            await threads.deferToThread(postgres.stop)
            await task.deferLater(reactor, 3 * GRACE, lambda: None)
            await threads.deferToThread(postgres.start)
            await until(lambda: a.available and b.available, "both reach the server again")
            await until(lambda: b.continuity.window() > 2 * GRACE, "b was back long enough")
            assert watches[0].refunds == watches[1].refunds == [] and fenced == []
            assert await b.live_hubs() == {a.hub_id, b.hub_id}
            assert await a.chips_at("t1") == {"ann": D(100), "bob": D(100)}
            # a partition: only a is cut off
            old = a.hub_id
            proxy.cut()
            await until(lambda: watches[1].refunds, "b recovers a", seconds=30)
            assert sorted(watches[1].refunds) == [("ann", "t1", D(100)), ("bob", "t1", D(100))]
            proxy.restore()
            await until(lambda: fenced == [old], "a finds its lease ended", seconds=30)
            assert a.fenced
            with pytest.raises(LeaseEnded):
                await a.buy_in("ann", "t1", "1", "late")  # it moves no chips
            new = await a.renew_lease()
            assert new != old and not a.fenced
            await until(lambda: b.continuity.window() > GRACE, "b's window again")
            assert new in await b.live_hubs() and old not in await b.live_hubs()
            assert watches[0].refunds == [] and len(watches[1].refunds) == 2  # once
            report = await b.ledger_check()
            assert report.ok, report.problems
        finally:
            for watch in watches:
                if watch.loop.running:
                    watch.loop.stop()
            for store in (a, b):
                await store.stop()
