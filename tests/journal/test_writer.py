"""The journal writer's rhythm (``hub.play.journal.JournalWriter``) on a test clock: the
entries of every game gather for ``journal_flush_ms`` and go in one transaction, one
write at a time; a barrier (a chip table's hand to settle) writes at once."""

from __future__ import annotations

from collections.abc import Sequence

from twisted.internet import defer
from twisted.internet.task import Clock

from hub.play.journal import Entry, Header, JournalWriter


class Writes:
    """The store's part the writer uses, answering each write when told."""

    def __init__(self) -> None:
        self.writes: list[tuple[list[str], int]] = []
        self.pending: list[defer.Deferred[set[str]]] = []

    def journal_write(
        self, headers: Sequence[Header], entries: Sequence[tuple[str, Entry]], drops: Sequence[str]
    ) -> defer.Deferred[set[str]]:
        self.writes.append((sorted({game for game, _ in entries}), len(entries)))
        d: defer.Deferred[set[str]] = defer.Deferred()
        self.pending.append(d)
        return d

    def answer(self) -> None:
        self.pending.pop(0).callback(set())


def writer(interval: float) -> tuple[JournalWriter, Writes, Clock]:
    store, clock = Writes(), Clock()
    w = JournalWriter(store, clock, interval=interval)
    for game in ("g1", "g2"):
        w.reopen(game, 0)  # games journaled already: entries only
    return w, store, clock


def test_entries_of_every_game_gather_for_the_interval_then_go_in_one_write():
    w, store, clock = writer(0.02)
    for n in range(3):
        w.append("g1", "act", 0, f'{{"n": {n}}}', 1.0)
        w.append("g2", "act", 1, "{}", 1.0)
        clock.advance(0.005)  # reactor turns pass: nothing written yet
    assert store.writes == []
    clock.advance(0.005)  # 20 ms after the first entry
    assert store.writes == [(["g1", "g2"], 6)]
    # while that write is under way, the next entries wait for it, then the interval
    w.append("g1", "act", 0, "{}", 1.1)
    clock.advance(0.1)
    assert len(store.writes) == 1
    store.answer()
    clock.advance(0.019)
    assert len(store.writes) == 1
    clock.advance(0.001)
    assert store.writes[-1] == (["g1"], 1)


def test_a_barrier_writes_at_once_and_fires_when_written():
    w, store, clock = writer(0.02)
    w.append("g1", "act", 0, "{}", 1.0)
    done = []
    w.barrier().addCallback(done.append)
    clock.advance(0)
    assert store.writes == [(["g1"], 1)] and not done
    store.answer()
    assert done == [None]
    assert w.barrier().called  # nothing waits: at once


def test_interval_zero_writes_every_reactor_turn():
    w, store, clock = writer(0)
    w.append("g1", "act", 0, "{}", 1.0)
    clock.advance(0)
    assert store.writes == [(["g1"], 1)]
