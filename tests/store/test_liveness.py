"""When a hub counts as dead (``hub.store.liveness``), on ``task.Clock``: only on
evidence gathered while the database was up (issue 31).

The unit tests check the verdict and the evidence window; the scenarios then play
hubs that beat, probe and check as the store and the cluster do (their intervals and
backoff), through a database outage of any length and through a partition of one hub,
and ask the real :func:`~hub.store.liveness.alive` and
:class:`~hub.store.liveness.Continuity` at every step whether a survivor would recover
a peer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twisted.internet.task import Clock

from hub.store.liveness import FOREVER, Continuity, LeaseSeen, alive

GRACE = 15.0
NEVER_GONE = lambda host, pid: False  # noqa: E731 (a process of another machine)


def seen(age: float, locked: bool = False) -> LeaseSeen:
    return LeaseSeen("h", "elsewhere", 1, age, locked)


def test_the_verdict() -> None:
    judge = dict(grace=GRACE, uptime=FOREVER, gone=NEVER_GONE)
    assert alive(seen(999, locked=True), window=FOREVER, **judge)  # its lock is held
    assert alive(seen(3), window=FOREVER, **judge)  # a recent heartbeat
    assert not alive(seen(16), window=16, **judge)  # missing while we were connected
    assert alive(seen(16), window=14, **judge)  # we have not been connected long enough
    assert alive(seen(600), window=0, **judge)  # we just came back: no evidence yet
    # the server restarted 10 s ago: nobody could beat before that
    assert alive(seen(600), window=FOREVER, grace=GRACE, uptime=10, gone=NEVER_GONE)
    # its process is known to be gone (this machine): dead, whatever else
    gone = lambda host, pid: True  # noqa: E731
    assert not alive(seen(0), window=0, grace=GRACE, uptime=0, gone=gone)
    assert alive(seen(0, locked=True), window=0, grace=GRACE, uptime=0, gone=gone)


def test_the_window_grows_with_observations_and_starts_again_after_a_loss() -> None:
    clock = Clock()
    window = Continuity(clock, max_gap=10)
    assert window.window() == 0
    for _ in range(20):
        window.observe(1000.0)
        clock.advance(1)
    assert window.window() == 19
    window.lost()
    assert window.window() == 0
    window.observe(1000.0)
    clock.advance(1)
    window.observe(1000.0)
    assert window.window() == 1


def test_a_gap_or_a_restarted_server_starts_the_window_again() -> None:
    clock = Clock()
    window = Continuity(clock, max_gap=10)
    for _ in range(30):
        window.observe(1000.0)
        clock.advance(1)
    clock.advance(11)  # no observation for longer than max_gap: an outage may hide there
    assert window.window() == 0
    window.observe(1000.0)
    assert window.window() == 0
    for _ in range(20):
        clock.advance(1)
        window.observe(1000.0)
    assert window.window() == 20
    clock.advance(1)
    window.observe(2000.0)  # the server started again (a restart, a standby)
    assert window.window() == 0


@dataclass
class Hub:
    """A hub as the store and the cluster run it: a heartbeat every ``interval`` s
    (and at once when the database comes back), a member check every ``check`` s,
    probes with a doubling delay (``probe``) while the database is away; whether it
    reaches the database is :attr:`reachable`."""

    name: str
    clock: Clock
    db: Database
    interval: float = 5.0
    check: float = 1.0
    probe: tuple[float, float] = (0.25, 5.0)
    reachable: bool = True
    available: bool = True
    beat: float = 0.0  # its last heartbeat, database clock
    next_beat: float = 5.0
    next_check: float = 1.0
    next_probe: float = 0.0
    delay: float = 0.25
    continuity: Continuity = field(init=False)
    recovered: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.continuity = Continuity(self.clock, 2 * self.interval)
        self.beat = self.clock.seconds()

    def can(self) -> bool:
        return self.reachable and self.db.up

    def step(self, hubs: list[Hub]) -> None:
        now = self.clock.seconds()
        if not self.available:
            if now >= self.next_probe:
                if self.can():  # the probe works: available again, beat at once
                    self.available, self.delay = True, self.probe[0]
                    self.heartbeat()
                else:
                    self.next_probe = now + self.delay
                    self.delay = min(self.delay * 2, self.probe[1])
            return
        if now >= self.next_beat:
            self.next_beat = now + self.interval
            if self.can():
                self.heartbeat()
            else:
                self.lose()
        if now >= self.next_check:
            self.next_check = now + self.check
            if not self.can():
                self.lose()
                return
            self.continuity.observe(self.db.started)
            for other in hubs:
                if (
                    other is not self
                    and other.name not in self.recovered
                    and self.judges_dead(other)
                ):
                    self.recovered.append(other.name)

    def heartbeat(self) -> None:
        self.beat = self.clock.seconds()
        self.continuity.observe(self.db.started)

    def lose(self) -> None:
        self.available = False
        self.next_probe = self.clock.seconds() + self.delay
        self.continuity.lost()

    def judges_dead(self, other: Hub) -> bool:
        now = self.clock.seconds()
        lease = LeaseSeen(other.name, "elsewhere", 1, now - other.beat, locked=other.locked())
        return not alive(
            lease,
            grace=GRACE,
            window=self.continuity.window(),
            uptime=now - self.db.started,
            gone=NEVER_GONE,
        )

    def locked(self) -> bool:
        # the advisory lock: taken again at the heartbeat after a restart dropped it
        return self.can() and self.beat >= self.db.started


@dataclass
class Database:
    clock: Clock
    up: bool = True
    started: float = -1e6

    def stop(self) -> None:
        self.up = False

    def start(self) -> None:
        self.up, self.started = True, self.clock.seconds()


def run(clock: Clock, hubs: list[Hub], seconds: float, step: float = 0.25) -> None:
    for _ in range(int(seconds / step)):
        clock.advance(step)
        for hub in hubs:
            hub.step(hubs)


def cluster(clock: Clock, offsets: tuple[float, float, float] = (0, 0.3, 0.6)) -> list[Hub]:
    db = Database(clock)
    hubs = []
    for name, offset in zip("abc", offsets, strict=True):
        hub = Hub(name, clock, db)
        hub.next_beat += offset
        hub.next_check += offset
        hubs.append(hub)
    return hubs


@pytest.mark.parametrize("outage", [9, 12, 25, 60, 300])
def test_a_database_outage_of_any_length_recovers_nobody(outage: float) -> None:
    clock = Clock()
    hubs = cluster(clock)
    run(clock, hubs, 30)
    hubs[0].db.stop()
    run(clock, hubs, outage)
    hubs[0].db.start()
    run(clock, hubs, 120)
    assert [hub.recovered for hub in hubs] == [[], [], []]


@given(
    outage=st.floats(min_value=0.5, max_value=400),
    before=st.floats(min_value=0, max_value=10),
    offsets=st.tuples(*[st.floats(min_value=0, max_value=5)] * 3),
)
@settings(max_examples=60)
def test_no_outage_whenever_it_comes_recovers_anybody(
    outage: float, before: float, offsets: tuple[float, float, float]
) -> None:
    clock = Clock()
    hubs = cluster(clock, offsets)
    run(clock, hubs, 20 + before)
    hubs[0].db.stop()
    run(clock, hubs, outage)
    hubs[0].db.start()
    run(clock, hubs, 60)
    assert [hub.recovered for hub in hubs] == [[], [], []]


def test_a_hub_cut_off_alone_is_recovered_once_the_evidence_is_in() -> None:
    clock = Clock()
    hubs = cluster(clock)
    a, b, c = hubs
    run(clock, hubs, 30)
    a.reachable = False  # a partition: the others still reach the database
    run(clock, hubs, GRACE - 1)
    assert b.recovered == c.recovered == []  # its heartbeat is not missing long enough yet
    run(clock, hubs, 10)
    assert b.recovered == ["a"] and c.recovered == ["a"]  # (the store ends the lease once)


def test_a_survivor_back_from_its_own_outage_waits_for_the_grace() -> None:
    """A and B lose the database together (their network, say); B comes back first:
    A's heartbeat is old, but B has no evidence until it has been connected for the
    grace, and by then A beats again."""
    clock = Clock()
    hubs = cluster(clock)[:2]
    a, b = hubs
    run(clock, hubs, 30)
    a.reachable = b.reachable = False
    run(clock, hubs, 120)
    b.reachable = True
    run(clock, hubs, 4)
    assert b.judges_dead(a) is False and b.continuity.window() < GRACE
    a.reachable = True
    run(clock, hubs, 60)
    assert b.recovered == [] and a.recovered == []
