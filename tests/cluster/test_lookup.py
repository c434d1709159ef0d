"""The directory lookups' bounds: a negative answer kept for its TTL (bounded count),
and at most so many reads at once."""

from __future__ import annotations

from typing import Any

from twisted.internet import defer
from twisted.internet.task import Clock

from hub.cluster.lookup import Lookups


class Store:
    def __init__(self) -> None:
        self.reads: list[defer.Deferred] = []

    def directory_rows(self, hubs: Any = None, games: Any = None) -> defer.Deferred:
        d: defer.Deferred = defer.Deferred()
        self.reads.append(d)
        return d


class View:
    def get(self, game_id: str) -> None:
        return None

    def games(self) -> list[Any]:
        return []

    def watch(self) -> set[str]:
        return set()

    def unwatch(self, watch: set[str]) -> None:
        pass

    def adopt(self, rows: Any, watch: Any = None) -> None:
        pass


def test_bogus_ids_are_read_once_per_ttl_kept_bounded_and_capped() -> None:
    clock, store = Clock(), Store()
    options = {"cluster_lookup_ttl": 2.0, "cluster_lookup_cache": 3, "cluster_lookup_concurrent": 2}
    lookups = Lookups(store, View(), clock, options)
    first, same = lookups.game("x"), lookups.game("x")  # one read for both
    lookups.game("y")
    capped = lookups.game("z")  # a third read at once: "no" without a read
    assert len(store.reads) == 2 and capped.called and lookups.refused == 1
    for d in store.reads:
        d.callback([])
    assert first.result is None and same.result is None
    lookups.game("x")
    assert len(store.reads) == 2  # from memory
    clock.advance(2.5)
    lookups.game("x")
    assert len(store.reads) == 3  # the TTL is over: read again
    store.reads[-1].callback([])
    for key in "abcd":
        lookups.game(key)
        store.reads[-1].callback([])
    assert len(lookups._absent) == 3  # at most cluster_lookup_cache kept
