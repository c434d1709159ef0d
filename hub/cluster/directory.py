"""One lobby for the cluster: this hub's games written to the directory, every other
hub's games read from it.

:class:`Directory` follows the local lobby (an ``ILobbyListener``): each change of a
game becomes its row (:func:`.remote.snapshot`), gathered for :attr:`Directory.delay`
seconds and written in one transaction through adbapi
(:meth:`hub.store.cluster.ClusterMixin.directory_write`), which announces each row.
A write the store could not make is made again when the store is back (all of this
hub's rows, :meth:`Directory.resync`).

The other hubs' games arrive as notices (:meth:`Directory.notice`) and become
:class:`.remote.RemoteGame` records; the directory tells its own listeners
(``ILobbyListener``: the front ends' lobby lists) ``created``, ``changed`` and
``removed`` for them as the lobby does for local games.  A notice that carries no row
(too large) or names a whole hub is followed by a read of those rows; after a lost
notice connection everything is read again (:meth:`Directory.reload`).  A record
changes only for a newer revision of its row.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable
from typing import Any

from twisted.internet import defer
from twisted.logger import Logger
from zope.interface import implementer

from hub.interfaces import ILobbyListener
from hub.model import ByName
from hub.store.cluster import ABORTED, notice
from hub.store.errors import StoreUnavailable

from .remote import RemoteGame, snapshot


@implementer(ILobbyListener)
class Directory:
    """The directory of the cluster's games, as this hub sees it.

    :param store: the hub's store (clustered, with a lease).
    :param lobby: the local lobby.
    :param clock: ``IReactorTime``.
    :param endpoints: ``(hub id) → endpoints`` that hub advertises (may be ``{}``).
    :param delay: seconds changes are gathered before one write.
    :param publish_delay: seconds a write that someone waits for (a new game's row,
        :meth:`published`) waits for other changes to share it.
    """

    log = Logger()

    def __init__(
        self,
        store: Any,
        lobby: Any,
        clock: Any,
        endpoints: Callable[[str], dict[str, Any]],
        delay: float = 0.05,
        publish_delay: float = 0.0,
    ) -> None:
        self.store = store
        self.lobby = lobby
        self.clock = clock
        self.hub_id = str(store.hub_id)
        #: how this hub's own notices of its games begin (heard back, not read)
        self._own = tuple(notice(op, self.hub_id)[:-1] + "," for op in ("rows", "put", "del"))
        self._endpoints = endpoints
        self.delay = delay
        self.publish_delay = publish_delay
        self._rev = 0
        #: game id → the local game whose row to write (made when written), or
        #: ``None``: its row goes
        self._pending: dict[str, Any] = {}
        self._flush: Any = None
        self._writing = False
        self._stale = False  # a write failed: write everything again
        self._running = False
        self._remote: dict[str, RemoteGame] = {}
        #: the remote games whose seats wait for players, by player (:meth:`awaiting`)
        self._awaited = ByName()
        self._listeners: list[Any] = []
        #: ids a notice touched since the last full read began (that read is older)
        self._touched: set[str] | None = None
        #: the same for each lookup's read (:meth:`watch`)
        self._watches: list[set[str]] = []
        #: who waits for the write of the changes pending now (:meth:`published`)
        self._waiting: list[defer.Deferred[None]] = []
        self._writing_for: list[defer.Deferred[None]] = []

    # -- life ----------------------------------------------------------------------------

    def start(self) -> defer.Deferred[None]:
        """Follow the lobby; write its games (none yet, at a hub's start)."""
        self._running = True
        self.lobby.add_listener(self)
        self.store.on_availability(self._availability)
        return self.resync()

    def stop(self) -> None:
        """Stop following the lobby and writing (the hub leaves the cluster)."""
        self._running = False
        self.lobby.remove_listener(self)
        if self._flush is not None and self._flush.active():
            self._flush.cancel()
        self._flush = None
        self._pending.clear()
        self._release(self._waiting)
        self._waiting = []

    # -- this hub's games ------------------------------------------------------------------

    def lobby_changed(self, change: str, game: Any) -> None:
        """A local game changed: write its row (or remove it) soon (the row is made
        when it is written: one for all the changes of a game gathered meanwhile)."""
        if not self._running or game.id in self.lobby.sealed:
            return  # a sealed game's row is written once it is unsealed ("changed")
        self._pending[game.id] = None if change == "removed" else game
        self._schedule()

    def _snapshot(self, game: Any) -> dict[str, Any]:
        self._rev += 1
        return snapshot(game, self.hub_id, self._rev)

    def _schedule(self) -> None:
        if self._writing or (self._flush is not None and self._flush.active()):
            return
        self._flush = self.clock.callLater(
            self.publish_delay if self._waiting else self.delay, self._write
        )

    def published(self) -> defer.Deferred[None]:
        """Fires once the changes pending now are written (or could not be): a new
        game's row is in the directory before its creator hears of it, so any hub
        that looks it up finds it (:mod:`.lookup`).  The write goes within
        :attr:`publish_delay` (the changes of other games made meanwhile share it: on
        a busy hub, several creations one write).  Never fails."""
        if not self._running or (not self._pending and not self._writing):
            return defer.succeed(None)
        d: defer.Deferred[None] = defer.Deferred()
        self._waiting.append(d)
        if not self._writing:
            flush = self._flush
            if flush is not None and flush.active():
                if flush.getTime() <= self.clock.seconds() + self.publish_delay:
                    return d  # a write due sooner takes it
                flush.cancel()
            self._flush = None
            if self.publish_delay > 0:
                self._flush = self.clock.callLater(self.publish_delay, self._write)
            else:
                self._write()
        return d

    def _write(self) -> None:
        self._flush = None
        if not self._running or not self._pending:
            self._release(self._waiting)
            self._waiting = []
            return
        pending, self._pending = self._pending, {}
        self._writing_for, self._waiting = self._waiting, []
        puts = [self._snapshot(game) for game in pending.values() if game is not None]
        gone = [game_id for game_id, game in pending.items() if game is None]
        self._writing = True
        d = self.store.directory_write(puts, gone)
        d.addErrback(self._not_written)
        d.addBoth(self._written)

    def _not_written(self, failure: Any) -> None:
        self._stale = True
        if not failure.check(StoreUnavailable):
            self.log.failure("cluster: writing the directory failed", failure)

    def _written(self, _: Any) -> None:
        self._writing = False
        done, self._writing_for = self._writing_for, []
        self._release(done)
        if self._pending:
            self._schedule()
        elif self._waiting:  # asked for while nothing was left to write
            self._release(self._waiting)
            self._waiting = []

    @staticmethod
    def _release(waiting: list[defer.Deferred[None]]) -> None:
        for d in waiting:
            d.callback(None)

    def _availability(self, up: bool) -> None:
        if up and self._stale and self._running:
            self.resync()

    def resync(self) -> defer.Deferred[None]:
        """Write every local game's row and remove this hub's other rows."""
        self._stale = False
        rows = [self._snapshot(game) for game in self.lobby.listed()]
        d = self.store.directory_sync(rows)
        d.addErrback(self._not_written)
        return d

    # -- the other hubs' games -----------------------------------------------------------

    def add_listener(self, listener: Any) -> None:
        """Tell ``listener`` (an ``ILobbyListener``) of every change to the remote games."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Any) -> None:
        """Stop telling ``listener``."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def games(self) -> list[RemoteGame]:
        """Every remote game, oldest first."""
        return sorted(self._remote.values(), key=lambda g: (g.created, g.id))

    def listed(self, hub_id: str) -> int:
        """How many games of ``hub_id`` the directory lists (those aborted not
        counted)."""
        return sum(1 for g in self._remote.values() if g.hub == hub_id and g.state != ABORTED)

    def awaiting(self, player: str) -> list[RemoteGame]:
        """The remote games with a seat waiting for ``player`` to come back
        (:attr:`RemoteGame.awaiting`), found by the name (a login asks on each try)."""
        games = [self._remote[game_id] for game_id in self._awaited.under(player)]
        return sorted(games, key=lambda g: (g.created, g.id))  # (as :meth:`games`)

    def get(self, game_id: str) -> RemoteGame | None:
        """The remote game ``game_id``, if the directory lists one."""
        return self._remote.get(game_id)

    def notice(self, text: str) -> str | None:
        """A notice of the cluster's channel (see :mod:`hub.store.cluster`); returns
        its ``op`` (``None``: not a notice).  This hub's own notices of its games
        come back too: they are known by their beginning, and not read."""
        if text.startswith(self._own):
            return text[7 : text.index('"', 7)]  # '{"op":"<op>","hub":…
        try:
            message = json.loads(text)
            op, hub = str(message["op"]), str(message["hub"])
        except (ValueError, KeyError, TypeError):
            self.log.warn("cluster: a notice that is not one: {text!r}", text=text[:200])
            return None
        if op == "hub":
            self.reload(hubs=[hub])
        elif hub == self.hub_id:
            pass  # our own games are local
        elif op == "rows":
            self._rows(message, hub)
        elif op == "put" and isinstance(message.get("game"), dict):
            self._touch(message["game"].get("id"))
            self._put(message["game"])
        elif op == "put":
            self.reload(games=[str(message.get("id"))])
        elif op == "del":
            self._touch(message.get("id"))
            self._drop(str(message.get("id")), hub)
        return op

    def _rows(self, message: dict[str, Any], hub: str) -> None:
        """A directory write of hub ``hub``: its removals, its rows, the rows to read."""
        for game_id in _listed(message, "del"):
            self._touch(game_id)
            self._drop(str(game_id), hub)
        for row in _listed(message, "put"):
            if isinstance(row, dict):
                self._touch(row.get("id"))
                self._put(row)
        read = [str(game_id) for game_id in _listed(message, "read")]
        if read:
            self.reload(games=read)

    def _touch(self, game_id: Any) -> None:
        if not isinstance(game_id, str):
            return
        if self._touched is not None:
            self._touched.add(game_id)
        for watch in self._watches:
            watch.add(game_id)

    def watch(self) -> set[str]:
        """Start keeping the ids notices touch (a lookup's read began: what a notice
        says after that is newer than the read)."""
        watch: set[str] = set()
        self._watches.append(watch)
        return watch

    def unwatch(self, watch: set[str]) -> None:
        """Stop keeping ``watch``."""
        if any(w is watch for w in self._watches):
            self._watches = [w for w in self._watches if w is not watch]

    def adopt(self, rows: Iterable[dict[str, Any]], watch: set[str] | None = None) -> None:
        """Rows of other hubs read by a lookup (or made from an owner's answer) join
        the view, unless a notice touched their game since ``watch`` began."""
        for row in rows:
            if not isinstance(row, dict) or str(row.get("hub")) == self.hub_id:
                continue
            if watch is not None and row.get("id") in watch:
                continue
            self._put(row)

    def reload(
        self, hubs: Iterable[str] | None = None, games: Iterable[str] | None = None
    ) -> defer.Deferred[None]:
        """Read rows again: every one (``hubs`` and ``games`` ``None``), a hub's, or
        some games'; records of those the read no longer finds go.  A game a notice
        touched while the read was on its way keeps what the notice said (the read is
        older: a hub's rows read as it hands a game over would put the game back on it
        after the new hub's notice)."""
        hub_ids = None if hubs is None else set(hubs)
        game_ids = None if games is None else set(games)
        whole = hub_ids is None and game_ids is None
        watch: set[str] | None = None
        if whole:
            self._touched = set()
        else:
            watch = self.watch()
        d = self.store.directory_rows(hub_ids, game_ids)

        def apply(rows: list[dict[str, Any]]) -> None:
            touched = self._touched if whole else watch
            if whole:
                self._touched = None
            found = set()
            for row in rows:
                if row["hub"] == self.hub_id:
                    continue
                found.add(row["id"])
                if touched is None or row["id"] not in touched:
                    self._put(row)
            for game in list(self._remote.values()):
                covered = (
                    whole
                    or (hub_ids is not None and game.hub in hub_ids)
                    or (game_ids is not None and game.id in game_ids)
                )
                if covered and game.id not in found and (touched is None or game.id not in touched):
                    self._drop(game.id)

        def done(result: object) -> object:
            if watch is not None:
                self.unwatch(watch)
            return result

        d.addCallback(apply)
        d.addBoth(done)
        d.addErrback(lambda f: f.trap(StoreUnavailable))
        d.addErrback(lambda f: self.log.failure("cluster: reading the directory failed", f))
        return d

    def _put(self, row: dict[str, Any]) -> None:
        try:
            game = RemoteGame.of(row, self._endpoints(str(row["hub"])))
        except (KeyError, TypeError, ValueError):
            self.log.warn("cluster: a directory row that is not one: {row!r}", row=row)
            return
        old = self._remote.get(game.id)
        if old is not None and old.hub == game.hub and old.rev > game.rev:
            return  # (a row of another hub: the game moved there, and counts afresh)
        self._remote[game.id] = game
        self._awaited.file(game.id, game.awaiting)
        self._tell("created" if old is None else "changed", game)

    def _drop(self, game_id: str, hub: str | None = None) -> None:
        """The record of ``game_id`` goes (only ``hub``'s: a game that moved to another
        hub stays when its old hub removes its row)."""
        game = self._remote.get(game_id)
        if game is None or (hub is not None and game.hub != hub):
            return
        del self._remote[game_id]
        self._awaited.file(game_id, ())
        self._tell("removed", game)

    def refresh_endpoints(self, hub_id: str) -> None:
        """``hub_id`` advertises other front ends now: its records show them."""
        endpoints = self._endpoints(hub_id)
        for game in list(self._remote.values()):
            if game.hub == hub_id and game.endpoints != endpoints:
                self._remote[game.id] = dataclasses.replace(game, endpoints=endpoints)
                self._tell("changed", self._remote[game.id])

    def _tell(self, change: str, game: RemoteGame) -> None:
        for listener in list(self._listeners):
            try:
                listener.lobby_changed(change, game)
            except Exception:
                self.log.failure("cluster: lobby listener {listener!r} failed", listener=listener)


def _listed(message: dict[str, Any], part: str) -> list[Any]:
    """``message[part]`` when it is a list, else nothing."""
    value = message.get(part)
    return value if isinstance(value, list) else []
