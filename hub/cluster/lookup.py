"""A game this hub's view of the directory lacks, asked of the directory itself.

A door learns of another hub's new game from that hub's notice, a few milliseconds
after the owner answered the creation; a client that connects to the door at once
names a game the door has not heard of yet.  Before it refuses such a game, a front
end asks :class:`Lookups`: one read of the directory in PostgreSQL (through the
store's adbapi pool, never on the reactor thread), whose rows join the view as a
notice's would (:meth:`.directory.Directory.adopt`).

Bounded, so that a flood of made-up ids cannot hammer the database:

- an id the directory did not have is answered "no" from memory for
  ``cluster_lookup_ttl`` seconds (2), at most ``cluster_lookup_cache`` (4096) such
  answers kept (the oldest forgotten first);
- at most ``cluster_lookup_concurrent`` (8) reads at once; the lookups that arrive
  meanwhile wait, at most ``cluster_lookup_queue`` (4096) of them (beyond that a
  lookup is answered "no" at once, without a read: the client is refused as on a
  single hub), and the next free read asks for every one of them (one read for all
  the waiting ids, at most ``cluster_lookup_batch``, 512: a busy door's lookups cost
  fewer reads, not more);
- lookups of the same key while it waits or its read runs share that read.

Two kinds: :meth:`Lookups.game` by game id (MNM, the web: one row by its key), and
:meth:`Lookups.recent` by what a front end derives from the id (the XML front end's
wire id, a digest): the rows of the other hubs written in the last
``cluster_lookup_window`` seconds (30), searched with the front end's ``match``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from twisted.internet import defer
from twisted.logger import Logger

from hub.store.errors import StoreUnavailable

from .remote import RemoteGame

#: the settings of the lookups, with their defaults
DEFAULTS: dict[str, Any] = {
    "cluster_lookup_ttl": 2.0,
    "cluster_lookup_cache": 4096,
    "cluster_lookup_concurrent": 8,
    "cluster_lookup_queue": 4096,
    "cluster_lookup_batch": 512,
    "cluster_lookup_window": 30.0,
}
#: the key prefixes of the two kinds of lookups
_ID, _KEY = "id:", "key:"


class Lookups:
    """Directory lookups of one hub (see the module's docstring).

    :param store: the hub's store (``directory_rows``, ``directory_recent``).
    :param directory: the hub's :class:`.directory.Directory` (``get``, ``games``,
        ``adopt``).
    :param clock: ``IReactorTime``.
    :param options: the hub's options (:data:`DEFAULTS`).
    """

    log = Logger()

    def __init__(self, store: Any, directory: Any, clock: Any, options: Any = ()) -> None:
        conf = dict(DEFAULTS)
        conf.update({k: v for k, v in dict(options).items() if k in DEFAULTS})
        self.store = store
        self.directory = directory
        self.clock = clock
        self.ttl = float(conf["cluster_lookup_ttl"])
        self.cache = max(0, int(conf["cluster_lookup_cache"]))
        self.concurrent = max(0, int(conf["cluster_lookup_concurrent"]))
        self.queue = max(0, int(conf["cluster_lookup_queue"]))
        self.batch = max(1, int(conf["cluster_lookup_batch"]))
        self.window = float(conf["cluster_lookup_window"])
        #: key → when its "no" expires (oldest first)
        self._absent: OrderedDict[str, float] = OrderedDict()
        #: key → the lookups waiting for its answer (queued or being read)
        self._waiting: dict[str, list[defer.Deferred[RemoteGame | None]]] = {}
        #: key → how its answer is found in the view once read
        self._find: dict[str, Callable[[], RemoteGame | None]] = {}
        #: the keys waiting for a free read, in order
        self._queued: OrderedDict[str, None] = OrderedDict()
        self._reading = 0
        #: reads made, and lookups answered "no" for want of room to wait (metrics, tests)
        self.reads = 0
        self.refused = 0

    def game(self, game_id: str) -> defer.Deferred[RemoteGame | None]:
        """The remote game ``game_id``: from the view, else from a directory read."""
        known = self.directory.get(game_id)
        if known is not None:
            return defer.succeed(known)
        return self._look(_ID + game_id, lambda: self.directory.get(game_id))

    def recent(
        self, key: str, match: Callable[[RemoteGame], bool]
    ) -> defer.Deferred[RemoteGame | None]:
        """The remote game ``match`` accepts: from the view, else from the rows the other
        hubs wrote in the last ``window`` seconds.  ``key`` names what is looked for
        (the negative answers are kept by it)."""

        def find() -> RemoteGame | None:
            return next((g for g in self.directory.games() if match(g)), None)

        known = find()
        if known is not None:
            return defer.succeed(known)
        return self._look(_KEY + key, find)

    def absent(self, key: str) -> bool:
        """Whether ``key`` (``id:<game id>`` or ``key:<key>``) was not found lately."""
        expires = self._absent.get(key)
        if expires is None:
            return False
        if expires <= self.clock.seconds():
            del self._absent[key]
            return False
        return True

    def _look(self, key: str, find: Callable[[], RemoteGame | None]) -> defer.Deferred[Any]:
        if self.absent(key):
            return defer.succeed(None)
        d: defer.Deferred[RemoteGame | None] = defer.Deferred()
        waiting = self._waiting.get(key)
        if waiting is not None:
            waiting.append(d)
            return d
        if len(self._queued) >= self.queue:
            self.refused += 1
            return defer.succeed(None)
        self._waiting[key] = [d]
        self._find[key] = find
        self._queued[key] = None
        self._pump()
        return d

    def _pump(self) -> None:
        """Start reads while there is room: each for the waiting ids (a batch), or for
        the recent rows every waiting key is searched in."""
        while self._queued and self._reading < self.concurrent:
            first = next(iter(self._queued))
            kind = _ID if first.startswith(_ID) else _KEY
            keys = [k for k in self._queued if k.startswith(kind)][: self.batch]
            for key in keys:
                del self._queued[key]
            watch = self.directory.watch()  # what notices say while the read runs wins
            if kind == _ID:
                ids = [key[len(_ID) :] for key in keys]
                self._read(keys, watch, self.store.directory_rows(games=ids))
            else:
                self._read(keys, watch, self.store.directory_recent(self.window))

    def _read(self, keys: list[str], watch: set[str], reading: defer.Deferred[Any]) -> None:
        self._reading += 1
        self.reads += 1
        reading.addCallback(lambda rows: self.directory.adopt(rows, watch))
        reading.addErrback(self._failed)
        reading.addBoth(lambda _: self.directory.unwatch(watch))
        reading.addCallback(lambda _: self._answer(keys))

    def _failed(self, failure: Any) -> None:
        if not failure.check(StoreUnavailable, defer.CancelledError):
            self.log.failure("cluster: looking a game up in the directory failed", failure)

    def _answer(self, keys: list[str]) -> None:
        self._reading -= 1
        for key in keys:
            find = self._find.pop(key)
            found = find()
            if found is None and self.cache > 0:
                self._absent[key] = self.clock.seconds() + self.ttl
                self._absent.move_to_end(key)
                while len(self._absent) > self.cache:
                    self._absent.popitem(last=False)
            for d in self._waiting.pop(key, []):
                d.callback(found)
        self._pump()
