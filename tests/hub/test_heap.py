"""The garbage collector's policy of a long-running hub (hub.heap): thresholds, freezes
and the full collection on a task.Clock, and everything as it was once stopped."""

from __future__ import annotations

import gc
import weakref

import pytest
from twisted.internet.task import Clock

from hub.heap import HeapKeeper


@pytest.fixture
def collector():
    """The process's collector as it was, whatever a test leaves."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


class Cycle:
    def __init__(self) -> None:
        self.me = self


def test_it_freezes_now_and_every_so_often_and_collects_all_once_in_a_while(collector):
    clock = Clock()
    before = gc.get_threshold()
    keeper = HeapKeeper(clock, {"gc_young": 12_345, "gc_freeze_seconds": 10, "gc_full_seconds": 60})
    keeper.start()
    try:
        assert gc.get_threshold() == (12_345, *before[1:])
        frozen = gc.get_freeze_count()
        assert frozen > 0  # the start-up heap
        made = [[i] for i in range(1000)]  # tracked containers, made after the freeze
        assert gc.get_freeze_count() == frozen
        clock.advance(10)
        assert gc.get_freeze_count() >= frozen + 1000  # frozen with the next freeze
        young = Cycle()  # a cycle dropped before the freeze: collected first, not frozen
        gone = weakref.ref(young)
        del young
        clock.advance(10)
        assert gone() is None
        dropped = Cycle()  # a cycle frozen while alive, dropped since
        kept = weakref.ref(dropped)
        clock.advance(10)
        del dropped
        gc.collect()  # an ordinary full collection does not see it
        assert kept() is not None and keeper.full_collections == 0
        clock.advance(40)  # the full collection: everything in sight once
        assert keeper.full_collections == 1
        took, collected = keeper.last_full or (None, None)
        assert took is not None and took >= 0 and collected is not None and collected >= 1
        assert kept() is None  # freed
        assert gc.get_freeze_count() > 0  # frozen again
        assert len(made) == 1000
    finally:
        keeper.stop()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    assert clock.getDelayedCalls() == []


def test_zero_switches_each_part_off(collector):
    clock = Clock()
    before = gc.get_threshold()
    keeper = HeapKeeper(clock, {"gc_young": 0, "gc_freeze_seconds": 0, "gc_full_seconds": 0})
    keeper.start()
    try:
        assert gc.get_threshold() == before  # CPython's threshold kept
        assert clock.getDelayedCalls() == []  # no timer: only the start-up heap frozen
        clock.advance(10_000)
        assert keeper.full_collections == 0
    finally:
        keeper.stop()


def test_what_survives_a_collection_is_frozen_at_once_and_stop_lets_go(collector):
    clock = Clock()
    keeper = HeapKeeper(clock, {"gc_freeze_seconds": 0, "gc_full_seconds": 0})
    keeper.start()
    try:
        frozen = gc.get_freeze_count()
        made = [[i] for i in range(1000)]  # tracked containers, made after the start
        dropped = Cycle()  # a cycle dropped before the collection: freed by it
        gone = weakref.ref(dropped)
        del dropped
        assert gc.get_freeze_count() < frozen + 1000
        gc.collect(0)  # as the collector runs by itself after gc_young allocations
        assert gone() is None
        assert gc.get_freeze_count() >= frozen + 1000  # the survivors, frozen
        assert len(gc.get_objects(1)) == 0  # nothing left in sight to walk again
        assert len(made) == 1000
    finally:
        keeper.stop()
    assert gc.get_freeze_count() == 0
    made_after = [[i] for i in range(10)]
    gc.collect(0)
    assert gc.get_freeze_count() == 0 and len(made_after) == 10  # no longer frozen


def test_without_freezing_survivors_a_collection_leaves_them_in_sight(collector):
    keeper = HeapKeeper(Clock(), {"gc_freeze_survivors": False, "gc_freeze_seconds": 0})
    keeper.start()
    try:
        frozen = gc.get_freeze_count()
        made = [[i] for i in range(1000)]
        gc.collect(0)
        assert gc.get_freeze_count() == frozen and len(made) == 1000
    finally:
        keeper.stop()
