"""hub.connections.deadlines: many keys' deadlines checked by one sweep (on a task.Clock)."""

from __future__ import annotations

import pytest
from twisted.internet import task

from hub.connections.deadlines import Deadlines, Timeouts


def watched(seconds: float, granularity: float = 1.0):
    clock = task.Clock()
    expired: dict[str, float] = {}

    def gone(key: str) -> None:
        expired[key] = clock.seconds()

    return clock, Deadlines(clock, seconds, gone, granularity), expired


def run(clock: task.Clock, until: float, step: float = 0.25) -> None:
    while clock.seconds() < until:
        clock.advance(step)


def test_each_key_expires_after_its_deadline_and_within_one_granularity():
    clock, deadlines, expired = watched(10, granularity=1.0)
    started = {}
    for i in range(40):  # started at uneven times, some while a sweep is pending
        clock.advance(0.375)
        key = f"k{i}"
        deadlines.start(key)
        started[key] = clock.seconds()
    run(clock, clock.seconds() + 12)
    assert set(expired) == set(started) and len(deadlines) == 0
    for key, at in expired.items():
        deadline = started[key] + 10
        assert deadline <= at <= deadline + 1.0 + 1e-9, key


def test_the_same_keys_wake_one_timer_and_none_when_nothing_waits():
    clock, deadlines, expired = watched(30, granularity=1.0)
    for i in range(500):
        deadlines.start(i)
    assert len(clock.getDelayedCalls()) == 1
    for i in range(500):
        deadlines.cancel(i)
    assert clock.getDelayedCalls() == [] and not expired
    deadlines.start("a")
    run(clock, 31)
    assert expired == {"a": pytest.approx(30)} and clock.getDelayedCalls() == []


def test_a_restart_moves_the_deadline_and_a_cancel_forgets_it():
    clock, deadlines, expired = watched(10, granularity=1.0)
    deadlines.start("a")
    deadlines.start("b")
    clock.advance(9)
    deadlines.start("a")  # heard from: ten more seconds
    deadlines.cancel("b")
    assert deadlines.deadline("a") == 19 and "b" not in deadlines
    run(clock, 18.75)
    assert expired == {}
    run(clock, 20.1)
    assert list(expired) == ["a"] and 19 <= expired["a"] <= 20


def test_sweeps_are_a_granularity_apart_at_least():
    clock, deadlines, expired = watched(1, granularity=5.0)
    deadlines.start("a")
    clock.advance(1)
    assert expired == {}  # not before the first sweep, a granularity after the start
    clock.advance(4)
    assert expired == {"a": 5}


def test_a_handler_may_start_its_key_again_and_a_failing_one_stops_no_other():
    clock = task.Clock()
    seen: list[tuple[str, float]] = []

    def gone(key: str) -> None:
        seen.append((key, clock.seconds()))
        if key == "bad":
            raise RuntimeError("boom")
        if len(seen) < 4:
            deadlines.start(key)

    deadlines: Deadlines[str] = Deadlines(clock, 2, gone, 1.0)
    deadlines.start("bad")
    deadlines.start("good")
    run(clock, 7)
    assert ("bad", 2) in seen and ("good", 2) in seen
    assert [at for key, at in seen if key == "good"] == [2, 4, 6]
    assert "good" not in deadlines and not clock.getDelayedCalls()


def test_stop_forgets_every_key_and_the_sweep():
    clock, deadlines, expired = watched(5)
    for key in "abc":
        deadlines.start(key)
    deadlines.stop()
    run(clock, 10)
    assert expired == {} and len(deadlines) == 0 and clock.getDelayedCalls() == []


def test_the_granularity_must_be_positive():
    with pytest.raises(ValueError, match="more than 0"):
        Deadlines(task.Clock(), 5, print, 0)


def test_waits_of_several_lengths_each_expire_after_their_own_and_share_a_queue_each():
    clock = task.Clock()
    expired: dict[str, float] = {}
    timeouts: Timeouts[str] = Timeouts(
        clock, lambda key: expired.setdefault(key, clock.seconds()), 0.05
    )
    short = timeouts.start("a", 1.0)
    assert timeouts.start("b", 1.0) is short  # one queue for every wait of a length
    long = timeouts.start("c", 2.5)
    assert long is not short and len(timeouts) == 3 and len(clock.getDelayedCalls()) == 2
    clock.advance(0.5)
    timeouts.start("a", 1.0)  # a restart moves the deadline
    short.cancel("b")  # the queue a wait is in ends it
    run(clock, 3.0, step=0.05)
    assert set(expired) == {"a", "c"}  # each after its deadline, within the granularity
    assert 1.5 - 1e-9 <= expired["a"] <= 1.55 + 1e-9 and 2.5 - 1e-9 <= expired["c"] <= 2.55 + 1e-9
    assert len(timeouts) == 0 and clock.getDelayedCalls() == []


def test_lengths_nobody_waits_for_are_dropped_past_a_bound():
    clock = task.Clock()
    timeouts: Timeouts[int] = Timeouts(clock, lambda key: None, 0.05)
    for n in range(100):  # every wait of its own length, each over before the next
        timeouts.start(n, 1.0 + n / 1000).cancel(n)
    assert len(timeouts._by_length) <= Timeouts.KEEP
    held = [timeouts.start(n, 10.0 + n) for n in range(40)]  # waiting: kept, whatever the count
    assert len({id(d) for d in held}) == 40 and len(timeouts) == 40
    timeouts.stop()
    assert len(timeouts) == 0 and clock.getDelayedCalls() == []


class Turns(task.Clock):
    """A clock that runs, like the reactor's turn, only the calls due when the turn
    began (``task.Clock.advance`` also runs the ones they make for now)."""

    def turn(self, seconds: float = 0) -> None:
        self.rightNow += seconds
        due = [call for call in self.calls if call.getTime() <= self.rightNow]
        for call in sorted(due, key=lambda call: call.getTime()):
            self.calls.remove(call)
            call.called = 1
            call.func(*call.args, **call.kw)


def test_a_sweep_hands_over_at_most_a_batch_a_turn_and_goes_on_in_the_next():
    clock = Turns()
    turns: list[list[int]] = []

    def gone(key: int) -> None:
        turns[-1].append(key)

    deadlines: Deadlines[int] = Deadlines(clock, 1, gone, 0.5, batch=4)
    for key in range(10):
        deadlines.start(key)
    clock.turn(0.25)
    deadlines.start(99)  # started later: not due with the others
    turns.append([])
    clock.turn(0.75)  # the ten are due: four in this turn
    assert turns == [[0, 1, 2, 3]] and len(deadlines) == 7
    deadlines.cancel(5)  # handled meanwhile (a transcript a reader wrote)
    for _ in range(3):  # each later turn of the reactor (no time passes) takes four more
        turns.append([])
        clock.turn()
    assert turns == [[0, 1, 2, 3], [4, 6, 7, 8], [9], []]
    assert list(deadlines.keys()) == [99] and len(clock.getDelayedCalls()) == 1
    turns.append([])
    clock.advance(0.5)
    assert turns[-1] == [99] and clock.getDelayedCalls() == []


def test_the_batch_must_not_be_negative():
    with pytest.raises(ValueError, match="batch"):
        Deadlines(task.Clock(), 5, print, 1.0, batch=-1)


def test_waits_of_a_length_share_the_batch_of_their_timeouts():
    clock = Turns()
    seen: list[int] = []
    timeouts: Timeouts[int] = Timeouts(clock, seen.append, 0.05, batch=3)
    for key in range(7):
        timeouts.start(key, 1.0)
    clock.turn(1.05)
    assert seen == [0, 1, 2]
    clock.turn()
    clock.turn()
    assert seen == list(range(7)) and len(timeouts) == 0
