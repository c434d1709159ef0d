"""The directory lookups' bounds: a negative answer kept for its TTL (bounded count),
at most so many reads at once, the lookups beyond them waiting (bounded) and read
together."""

from __future__ import annotations

from typing import Any

from twisted.internet import defer
from twisted.internet.task import Clock

from hub.cluster.lookup import Lookups


class Store:
    def __init__(self) -> None:
        self.reads: list[defer.Deferred] = []
        self.asked: list[list[str]] = []

    def directory_rows(self, hubs: Any = None, games: Any = None) -> defer.Deferred:
        d: defer.Deferred = defer.Deferred()
        self.reads.append(d)
        self.asked.append(sorted(games or []))
        return d


class View:
    def __init__(self) -> None:
        self.rows: dict[str, Any] = {}

    def get(self, game_id: str) -> Any:
        return self.rows.get(game_id)

    def games(self) -> list[Any]:
        return list(self.rows.values())

    def watch(self) -> set[str]:
        return set()

    def unwatch(self, watch: set[str]) -> None:
        pass

    def adopt(self, rows: Any, watch: Any = None) -> None:
        for row in rows:
            self.rows[row["id"]] = row


def test_bogus_ids_are_read_once_per_ttl_kept_bounded_and_capped() -> None:
    clock, store = Clock(), Store()
    options = {
        "cluster_lookup_ttl": 2.0,
        "cluster_lookup_cache": 3,
        "cluster_lookup_concurrent": 2,
        "cluster_lookup_queue": 1,
    }
    lookups = Lookups(store, View(), clock, options)
    first, same = lookups.game("x"), lookups.game("x")  # one read for both
    lookups.game("y")
    waiting = lookups.game("z")  # a third read at once: it waits for a free read
    capped = lookups.game("w")  # more than cluster_lookup_queue waiting: "no" at once
    assert len(store.reads) == 2 and not waiting.called and capped.called
    assert capped.result is None and lookups.refused == 1
    store.reads[0].callback([])
    assert len(store.reads) == 3 and store.asked[2] == ["z"]  # its turn now
    for d in store.reads[1:]:
        d.callback([])
    assert first.result is None and same.result is None and waiting.result is None
    lookups.game("x")
    assert len(store.reads) == 3  # from memory
    clock.advance(2.5)
    lookups.game("x")
    assert len(store.reads) == 4  # the TTL is over: read again
    store.reads[-1].callback([])
    for key in "abcd":
        lookups.game(key)
        store.reads[-1].callback([])
    assert len(lookups._absent) == 3  # at most cluster_lookup_cache kept


def test_a_crowd_of_new_games_is_found_with_a_few_reads_and_none_refused() -> None:
    """Issue 31: 200 games in flight at another door, each looked up once as its
    client arrives; with 8 reads at most at once, the lookups that arrive meanwhile
    wait and are read together, and every one finds its game."""
    clock, store, view = Clock(), Store(), View()
    lookups = Lookups(store, view, clock, {"cluster_lookup_concurrent": 8})
    found = [lookups.game(f"g{n}") for n in range(200)]
    assert len(store.reads) == 8 and lookups.refused == 0
    while any(not d.called for d in store.reads):
        read = next(d for d in store.reads if not d.called)
        asked = store.asked[store.reads.index(read)]
        read.callback([{"id": game_id, "hub": "a"} for game_id in asked])
    assert [d.result["id"] for d in found] == [f"g{n}" for n in range(200)]
    assert len(store.reads) < 20  # the waiting ones were read together
