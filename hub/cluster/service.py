"""The cluster as one hub takes part in it: membership, the watch on the others, the
directory, the notices.

:class:`Cluster` belongs to a hub whose store is PostgreSQL (``HubService.cluster``).
At start it writes the hub's member row (``hubs``: advertised front ends, load), adds
the load to every heartbeat of the hub's lease, starts the :class:`.directory.Directory`
and the :class:`.notify.NoticeListener`, and checks the members every
``cluster_check_seconds``: a hub whose lease is open but which is not alive any more
— on evidence gathered while the database was up: its process gone, or its heartbeat
missing for the grace while this hub has itself been connected for longer than that
(:mod:`hub.store.liveness`) — is recovered with the store's own crash recovery
(:meth:`hub.store.tables.TablesMixin.recover`: once, whoever of the survivors gets
there first), whose transaction hands its tables and games to the cluster's
:attr:`Cluster.takeover` (:mod:`.takeover`; the fallback refunds the tables and marks
the games ``aborted``).

A hub that was recovered although it lives (cut off from the database for longer than
the grace: a partition) finds its lease ended (:meth:`hub.store.lease.LeaseMixin.on_fenced`),
moves no chip any more, gives up what the cluster took and rejoins by itself as a new
member (:meth:`Cluster.rejoin`), without a restart.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any, Protocol, cast

from twisted.internet import defer, task
from twisted.logger import Logger

from hub.model import RUNNING, Elsewhere, GameError, NotFound
from hub.store.cluster import ABORTED, HANDOFF
from hub.store.errors import StoreUnavailable

from . import credential
from .directory import Directory
from .drain import Handover
from .handoff import Adopter, HandoffClient, HandoffServer
from .lookup import Lookups
from .moves import Moves, Place, Seen
from .notify import NoticeListener
from .once import OneAtATime
from .plugins import SharedPlugins
from .remote import RemoteGame, row_of
from .takeover import AbortAndRefund, ResumeGames, Takeover

#: what ``/api/health`` and ``gamehub cluster status`` say of a hub on SQLite
SINGLE = "single"
CLUSTER = "cluster"
_WILDCARDS = ("", "0.0.0.0", "::", "::0")
#: the front ends whose connections a door hands over (their factories adopt them)
_ADOPTING = ("mnm",)


def endpoint_text(endpoint: dict[str, Any]) -> str:
    """``host:port`` (``tls`` marked) of an advertised endpoint."""
    text = f"{endpoint.get('host')}:{endpoint.get('port')}"
    return text + " (TLS)" if endpoint.get("tls") else text


class OrphanAdopter(Protocol):
    """Who adopts the journals that ended hubs left (:class:`hub.play.resume.Journaling`)."""

    async def adopt(self) -> list[str]:
        """Adopt and resume them; their ids."""
        ...


class Cluster:
    """This hub's part in the cluster.

    :param hub: the hub service (``store``, ``lobby``, ``reactor``, ``options``,
        ``addresses()``).

    Settings: ``advertise_host`` (the host other hubs and clients reach this hub's
    front ends at; default: the address a front end listens on, or this machine's name
    when it listens on every address), ``cluster_check_seconds`` (1: how often the
    members are checked), ``cluster_keep_aborted`` (600: seconds the aborted games of a
    dead hub stay listed), ``cluster_publish_seconds`` (2: how long a creation waits
    for its directory row to be written before it is answered anyway),
    ``cluster_publish_delay`` (0.02: how long that write waits for other changes to
    share it), ``cluster_gather_seconds`` (0.25: how long the other changes of this
    hub's games are gathered before a write of their own); the lookups'
    (:mod:`.lookup`).
    """

    log = Logger()

    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self.store = hub.store
        options = hub.options
        self.check_seconds = float(options.get("cluster_check_seconds", 1.0))
        self.keep_aborted = float(options.get("cluster_keep_aborted", 600.0))
        self.publish_seconds = float(options.get("cluster_publish_seconds", 2.0))
        self.publish_delay = float(options.get("cluster_publish_delay", 0.02))
        self.gather_seconds = float(options.get("cluster_gather_seconds", 0.25))
        self.advertise_host = str(options.get("advertise_host") or "") or None
        #: hub id → its member row as last read (:meth:`hub.store.cluster.ClusterMixin.cluster_members`)
        self.members: dict[str, dict[str, Any]] = {}
        self.directory: Directory | None = None
        #: asks the directory for a game the view lacks (:mod:`.lookup`)
        self.lookups: Lookups | None = None
        #: where a game went, for the splices that follow it (:mod:`.moves`)
        self.moves = Moves(hub.reactor, self._seen_game, self._seen_games, self._route, hub.options)
        self._movers = _MoveWatch(self.moves, lambda: self.hub_id)
        #: a door on this machine hands connections over instead of splicing them
        #: (:mod:`.handoff`; setting ``cluster_handoff``)
        self.handoff: HandoffServer | None = None
        self._handing = HandoffClient()
        self._handoff_on = bool(options.get("cluster_handoff", True))
        self.listener: NoticeListener | None = None
        #: the cluster's one set of plugins (:mod:`.plugins`), once :meth:`share_plugins` ran
        self.plugins: SharedPlugins | None = None
        self._watch: Any = None
        self._checks = OneAtATime(self._check, "cluster: checking the members failed")
        self._ticks = 0
        self._joined = False
        self._secret = ""  # the cluster's secret (hub.cluster.credential), once joined
        self._stopping = False
        self._rejoining: defer.Deferred[None] | None = None
        self._plugin_args: tuple[Any, Any] | None = None
        #: op → what hears the notices of that op another part of the hub announces
        #: (:meth:`on_notice`: the tournaments' ``tournament``)
        self._heard: dict[str, Callable[[str], None]] = {}
        #: how long a rejoin waits between tries while the database is away
        self.rejoin_delays = (0.25, 5.0)
        journaling = hub.journaling
        self._takeover: Takeover = (
            AbortAndRefund(self) if journaling is None else ResumeGames(self, journaling)
        )
        #: games handed to the other hubs when this one stops or is drained (:mod:`.drain`)
        self.handover = None if journaling is None else Handover(self, journaling)
        #: who adopts the journals ended hubs left (:meth:`_adopt_orphans`)
        self.orphans: OrphanAdopter | None = journaling
        # each heartbeat carries the load; a recovery (the hub's own at start too)
        # hands the dead hubs' tables and games to the takeover in its transaction
        self.store.on_beat(lambda: self.store.load_step(self.load()))
        self.store.takeover = self._takeover
        self.store.on_fenced(self._fenced)

    @property
    def takeover(self) -> Takeover:
        """What becomes of a recovered hub's tables and games (:mod:`.takeover`; the
        fallback, :class:`.takeover.AbortAndRefund`, refunds and aborts).  Setting it
        sets the store's too."""
        return self._takeover

    @takeover.setter
    def takeover(self, takeover: Takeover) -> None:
        self._takeover = takeover
        self.store.takeover = takeover

    @property
    def hub_id(self) -> str:
        """This hub's id (its lease's)."""
        return str(self.store.hub_id)

    # -- life ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Join: the member row, the directory, the notices, the watch."""
        store, reactor = self.store, self.hub.reactor
        await store.cluster_channel()
        self._secret = await store.cluster_secret()
        if self._handoff_on and self.handoff is None:
            self.handoff = HandoffServer(reactor, self._adopter)
            self.handoff.start()
        await store.cluster_join(self.endpoints(), self.load())
        self._joined = True
        await store.abort_orphans()
        self.directory = Directory(
            store,
            self.hub.lobby,
            reactor,
            self.endpoints_of,
            delay=self.gather_seconds,
            publish_delay=self.publish_delay,
        )
        await self.directory.start()
        self.directory.add_listener(self._movers)
        self.hub.lobby.add_listener(self._movers)
        self.lookups = Lookups(store, self.directory, reactor, self.hub.options)
        self.listener = NoticeListener(
            store.dsn, store.channel, reactor, self._notice, self._listening
        )
        self.listener.start()
        await self.check()
        self._watch = task.LoopingCall(self._tick)
        self._watch.clock = reactor
        self._watch.start(self.check_seconds, now=False).addErrback(
            lambda f: self.log.failure("cluster: the watch stopped", f)
        )
        self.hub.lobby.elsewhere = self.elsewhere
        self.hub.lobby.look_up = self.look_up
        self.hub.lobby.follow = self.follow
        self.hub.lobby.kept_seat = self.kept_seat
        self.hub.lobby.hand_off = self.hand_off
        self.log.info(
            "cluster: hub {hub} joined on {db} ({n} hub(s) alive)",
            hub=self.hub_id,
            db=store.dialect.describe(),
            n=sum(1 for m in self.members.values() if m["live"]),
        )

    async def advertise(self) -> None:
        """Tell the others where this hub's front ends are (once they listen)."""
        await self.store.cluster_advertise(self.endpoints())
        await self.check()

    async def share_plugins(self, registry: Any, data_dir: Any) -> None:
        """Publish this hub's plugins and install the others' (once the front ends
        listen: the others download from this hub's web front end)."""
        self._plugin_args = (registry, data_dir)
        self.plugins = SharedPlugins(self, registry, data_dir, self.hub.reactor, self.hub.options)
        await self.plugins.start()

    async def stop(self) -> None:
        """Leave: this hub's games leave the directory, its member row is ended."""
        self._stopping = True
        if self._rejoining is not None:
            self._rejoining.cancel()
        if self.handoff is not None:
            await self.handoff.stop()
            self.handoff = None
        self._handing.close()
        joined = await self._detach()
        if not joined:
            return
        try:
            await self.store.cluster_leave()
        except Exception as e:  # the others end the member row when they recover the lease
            self.log.warn("cluster: could not leave cleanly: {e}", e=e)

    async def _detach(self) -> bool:
        """Stop the watch, the notices, the directory and the plugins; unhook the
        lobby.  Returns whether the hub had joined."""
        if self._watch is not None and self._watch.running:
            self._watch.stop()
        self._watch = None
        if self.listener is not None:
            self.listener.stop()
        if self.directory is not None:
            self.directory.stop()
            self.directory.remove_listener(self._movers)
        self.hub.lobby.remove_listener(self._movers)
        if self._stopping:
            self.moves.stop()
        if self.hub.lobby.elsewhere == self.elsewhere:
            self.hub.lobby.elsewhere = None
        if self.hub.lobby.look_up == self.look_up:
            self.hub.lobby.look_up = None
        if self.hub.lobby.follow == self.follow:
            self.hub.lobby.follow = None
        if self.hub.lobby.kept_seat == self.kept_seat:
            self.hub.lobby.kept_seat = None
        if self.hub.lobby.hand_off == self.hand_off:
            self.hub.lobby.hand_off = None
        if not self._joined:
            return False
        self._joined = False
        if self.plugins is not None:
            await self.plugins.stop()
        return True

    # -- fenced: recovered although alive -----------------------------------------------------

    def _fenced(self, old_hub: str) -> None:
        if self._stopping or self._rejoining is not None:
            return
        self._rejoining = defer.ensureDeferred(self.rejoin(old_hub))
        self._rejoining.addErrback(lambda f: f.trap(defer.CancelledError))
        self._rejoining.addErrback(lambda f: self.log.failure("cluster: rejoining failed", f))
        self._rejoining.addBoth(self._rejoined)

    def _rejoined(self, _: Any) -> None:
        self._rejoining = None

    async def rejoin(self, old_hub: str) -> None:
        """This hub's lease ``old_hub`` was ended by another hub (it was cut off from the
        database for longer than the grace): give up the games the cluster took
        (:attr:`takeover`), take a new lease and join as a new member, keeping the games
        nobody took.  Tries again while the database is away."""
        self.log.warn(
            "cluster: this hub ({hub}) was recovered by another hub while cut off from the"
            " database; it gives up what was taken over and rejoins as a new member",
            hub=old_hub,
        )
        await self._detach()
        taken = await self._again(lambda: self.takeover.taken(old_hub))
        self.takeover.surrender(taken)
        new = await self._again(self.store.renew_lease)
        await self._again(self.start)
        if self._plugin_args is not None:
            await self._again(lambda: self.share_plugins(*self._plugin_args))
        self.log.info(
            "cluster: hub {old} rejoined as {new}; {n} game(s) given up",
            old=old_hub,
            new=new,
            n=len(taken),
        )

    async def _again(self, step: Any) -> Any:
        """Run ``step()`` until it works, waiting while the database is away."""
        first, most = self.rejoin_delays
        delay = first
        while True:
            if self._stopping:
                raise defer.CancelledError()
            try:
                return await defer.maybeDeferred(step)
            except StoreUnavailable:
                await task.deferLater(self.hub.reactor, delay, lambda: None)
                delay = min(delay * 2, most)

    # -- the others --------------------------------------------------------------------------

    def _tick(self) -> None:
        self._ticks += 1
        self.check()
        if self._ticks % 60 == 0:
            d = self._adopt_orphans()
            d.addCallback(lambda _: self.store.abort_orphans())
            d.addCallback(lambda _: self.store.directory_purge(self.keep_aborted))
            if self.plugins is not None:
                d.addCallback(lambda _: self.plugins and self.plugins.purge())
                d.addCallback(lambda _: self.plugins and self.plugins.changed())
            d.addErrback(lambda f: f.trap(StoreUnavailable))
            d.addErrback(lambda f: self.log.failure("cluster: purging the directory failed", f))

    def _adopt_orphans(self) -> defer.Deferred[None]:
        """The journals that hubs whose lease ended left with nobody to take them (one
        stopped while no other was live, or its hand-over failed), resumed here before
        their directory rows would be aborted.  No recovery is run for it: judging
        another hub dead is the member check's alone (it sees a database restart
        first); a chip table such a hub left waits for the next recovery."""
        orphans = self.orphans
        if orphans is None or self._stopping or not self._joined or self.store.fenced:
            return defer.succeed(None)
        return defer.ensureDeferred(orphans.adopt()).addCallback(self._adopted)

    def _adopted(self, ids: list[str]) -> None:
        if ids:
            self.log.info("cluster: {n} game(s) that stopped hubs left resumed here", n=len(ids))

    def check(self) -> defer.Deferred[None]:
        """Read the members; recover the hubs found dead.  A check asked for while one
        runs runs once more after it."""
        return self._checks()

    async def _check(self) -> None:
        members, dead = await self.store.cluster_members()
        before = self.members
        self.members = {m["hub_id"]: m for m in members}
        alive = {h for h, m in self.members.items() if m["live"]}
        if self.plugins is not None and alive != {h for h, m in before.items() if m["live"]}:
            self.plugins.changed()  # another hub's plugin rows count now, or no more
        if self.directory is not None:
            for hub_id, member in self.members.items():
                old = before.get(hub_id)
                if old is not None and old["endpoints"] != member["endpoints"]:
                    self.directory.refresh_endpoints(hub_id)
        if dead:
            await self.store.recover()

    def hubs_gone(self, hubs: list[str], aborted: dict[str, int]) -> None:
        """(After the recovery that ended ``hubs``' leases: the fallback takeover's
        :meth:`~.takeover.AbortAndRefund.claimed`.)"""
        for hub_id in hubs:
            self.log.warn(
                "cluster: hub {hub} is gone: {n} of its games aborted, its tables' chips returned",
                hub=hub_id,
                n=aborted.get(hub_id, 0),
            )
        if self.directory is not None:
            self.directory.reload(hubs=hubs)
        self.check()

    def _notice(self, text: str) -> None:
        op = self.directory.notice(text) if self.directory is not None else None
        if op == "hub":
            self.check()  # a hub joined, moved, left or died
        elif op == "plugin" and self.plugins is not None:
            self.plugins.changed()
        elif op in ("resume", "drain") and self.handover is not None:
            self.handover.notice(op, text)
        elif op is not None and op in self._heard:
            self._heard[op](text)

    def on_notice(self, op: str, hear: Callable[[str], None]) -> None:
        """Call ``hear(text)`` with every notice of ``op`` on the cluster's channel (this
        hub's own too): how a part of the hub that writes its own rows, such as the
        tournaments (:mod:`hub.tournaments.cluster`), hears the other hubs' changes."""
        self._heard[op] = hear

    def _listening(self) -> None:
        if self.directory is not None:
            self.directory.reload()
        if self.plugins is not None:
            self.plugins.changed()  # notices sent meanwhile were lost
        self.check()

    # -- what this hub is --------------------------------------------------------------------

    def endpoints(self) -> dict[str, dict[str, Any]]:
        """Front end → ``{"host", "port", "tls"}`` this hub advertises."""
        out = {}
        for frontend, (host, port, tls) in self.hub.addresses().items():
            if self.advertise_host:
                host = self.advertise_host
            elif host in _WILDCARDS:
                host = socket.getfqdn()
            out[frontend] = {"host": host, "port": port, "tls": tls}
        path = self.handoff.path if self.handoff is not None else None
        if path is not None:  # (not a front end: hub.store.cluster keeps it apart)
            out[HANDOFF] = {"host": socket.gethostname(), "path": path}
        return out

    def endpoints_of(self, hub_id: str) -> dict[str, Any]:
        """What ``hub_id`` advertises (``{}`` when not known yet)."""
        member = self.members.get(hub_id)
        return dict(member["endpoints"]) if member is not None else {}

    def load(self) -> dict[str, int]:
        """This hub's load: games, running games, seated players and bots, observers."""
        games = self.hub.lobby.games()
        seats = [s for g in games for s in g.seats if s.player is not None and s.present]
        return {
            "games": len(games),
            "running": sum(1 for g in games if g.state == "running"),
            "players": sum(1 for s in seats if s.kind != "bot"),
            "bots": sum(1 for s in seats if s.kind == "bot"),
            "observers": sum(g.observer_count for g in games),
        }

    # -- for the front ends ------------------------------------------------------------------

    def remote_games(self) -> list[RemoteGame]:
        """The other hubs' games, oldest first."""
        return [] if self.directory is None else self.directory.games()

    def elsewhere(self, game_id: Any) -> Elsewhere | None:
        """Why ``game_id`` cannot be played here, when another hub has it."""
        game = self.directory.get(game_id) if self.directory and isinstance(game_id, str) else None
        if game is None:
            return None
        if game.state == ABORTED:
            return Elsewhere(
                f"game {game.id} was aborted: hub {game.hub}, which ran it, is gone", game.hub
            )
        return self.route_to(game.hub, f"game {game.id} runs on hub {game.hub}")

    def follow(
        self, game_id: str | None, player: str | None, old_hub: str, frontend: str
    ) -> defer.Deferred[Place | None]:
        """Where a game that ``old_hub`` let go runs now (:mod:`.moves`): by its id, or
        (Domino: a queue, not a game, was spliced) by a player seated in it."""
        if game_id is not None:
            return self.moves.game(game_id, old_hub, frontend)
        if player is not None:
            return self.moves.player(player, old_hub, frontend)
        return defer.succeed(None)

    def kept_seat(self, player: str, frontend: str) -> Place | None:
        """The hub of a running game of another hub that ``frontend`` hosts and that
        keeps a seat for ``player`` (resumed there, its hub having stopped or handed it
        over: :attr:`~hub.play.game.GameInstance.awaiting`), with the route to that
        front end; ``None``: none.  (A Domino login at a door goes there.)"""
        for game in [] if self.directory is None else self.directory.awaiting(player):
            if game.state != RUNNING or frontend not in game.factory.frontends:
                continue
            if player in game.awaiting:
                route = self._route(game.hub, frontend)
                if route is not None:
                    return game.hub, route
        return None

    def _seen_game(self, game_id: str) -> Seen | None:
        """How this hub sees ``game_id``: in its own lobby (first: a game handed here
        runs here, though the row of its old hub may still be in the view), or listed
        by another hub."""
        try:
            return _seen(self.hub.lobby.get(game_id), self.hub_id)
        except GameError:  # not here
            pass
        remote = self.directory.get(game_id) if self.directory is not None else None
        return None if remote is None else _seen(remote, remote.hub)

    def hand_off(self, owner: str, frontend: str, transport: Any, replay: bytes, skip: int) -> bool:
        """Give a client's socket to ``owner``, the hub of its game, when that hub runs
        on this machine (:mod:`.handoff`); ``False``: splice it."""
        member = self.members.get(owner) if self._handoff_on else None
        where = member.get("handoff") if member is not None and member["live"] else None
        if not isinstance(where, dict):
            return False
        return self._handing.hand_off(where, frontend, transport, replay, skip)

    def _adopter(self, frontend: str) -> Adopter | None:
        """The front end that adopts handed-over connections (MNM's)."""
        factory = self.hub.frontend_factory(frontend) if frontend in _ADOPTING else None
        return cast(Adopter, factory) if factory is not None else None

    def _seen_games(self) -> list[Seen]:
        return [_seen(g, g.hub) for g in self.remote_games()]

    def _route(self, hub_id: str, frontend: str) -> tuple[str, int, bool] | None:
        return self.route_to(hub_id, "").routes.get(frontend)

    def look_up(self, game_id: str) -> defer.Deferred[Any]:
        """Ask the directory for ``game_id`` (a game this hub's view lacks): fires with
        its record once it is in the view, or ``None`` (:mod:`.lookup`; bounded)."""
        if self.lookups is None or not isinstance(game_id, str):
            return defer.succeed(None)
        return self.lookups.game(game_id)

    def look_up_recent(
        self, key: str, match: Callable[[RemoteGame], bool]
    ) -> defer.Deferred[RemoteGame | None]:
        """Ask the directory for the game ``match(record)`` accepts among the rows the
        other hubs wrote lately (a front end's own key of a game, such as an XML wire
        id); fires with its record or ``None``."""
        if self.lookups is None:
            return defer.succeed(None)
        return self.lookups.recent(key, match)

    def published(self) -> defer.Deferred[None]:
        """Fires once this hub's pending directory rows are written (a new game's,
        before its creator is answered)."""
        if self.directory is None:
            return defer.succeed(None)
        written = self.directory.published()
        if written.called:
            return written
        out: defer.Deferred[None] = defer.Deferred()

        def done(_: Any = None) -> None:
            if not out.called:
                out.callback(None)
            if timer.active():
                timer.cancel()

        timer = self.hub.reactor.callLater(self.publish_seconds, done)
        written.addBoth(done)
        return out

    def adopt(self, shown: object, hub_id: str) -> None:
        """Add the game ``shown`` (its JSON as its owner ``hub_id`` answered its
        creation through this hub) to this hub's view at once."""
        if self.directory is not None and isinstance(shown, dict) and hub_id != self.hub_id:
            row = row_of(shown, hub_id)
            if row is not None:
                self.directory.adopt([row])

    def route_to(self, hub_id: str, reason: str) -> Elsewhere:
        """An :class:`~hub.model.Elsewhere` that names ``hub_id``, where its front ends
        are and how to pass a connection through to them."""
        endpoints = self.endpoints_of(hub_id)
        where = ", ".join(f"{fe} {endpoint_text(e)}" for fe, e in sorted(endpoints.items()))
        routes = {
            fe: (str(e["host"]), int(e["port"]), bool(e.get("tls")))
            for fe, e in endpoints.items()
            if e.get("host") and isinstance(e.get("port"), int)
        }
        return Elsewhere(
            reason + (f" ({where})" if where else ""),
            hub_id,
            {fe: endpoint_text(e) for fe, e in endpoints.items()},
            routes,
        )

    def ticket(self, target: str, name: str) -> str:
        """A login for account ``name`` on hub ``target`` (:mod:`.credential`)."""
        return credential.ticket(
            self._secret, self.hub_id, target, name, self.hub.reactor.seconds()
        )

    def trusts(self, name: str, given: str, peer: str) -> bool:
        """Whether ``given`` is a live hub's good ticket for ``name`` here."""
        return credential.check(
            self._secret, self.hub_id, self.members, name, given, peer, self.hub.reactor.seconds()
        )

    def is_hub_address(self, peer: str) -> bool:
        """Whether ``peer`` is an address another live hub advertises (its relays are
        not held to a front end's per-address limit)."""
        return any(
            h != self.hub_id and credential.advertises(m, peer) for h, m in self.members.items()
        )

    def weight(self, hub_id: str) -> tuple[int, int]:
        """How loaded ``hub_id`` is: (its games, its seated players and bots).  This
        hub's from its lobby, another's games from the directory (live), the rest from
        the load its heartbeat reported."""
        if hub_id == self.hub_id:
            load = self.load()
            return load["games"], load["players"] + load["bots"]
        load = (self.members.get(hub_id) or {}).get("load") or {}
        listed = self.directory.listed(hub_id) if self.directory is not None else 0
        seated = int(load.get("players") or 0) + int(load.get("bots") or 0)
        return max(listed, int(load.get("games") or 0)), seated

    def gathering(self) -> str:
        """The hub where the players of a cluster-wide queue meet: the oldest live hub
        (every hub that sees the same members names the same one)."""
        live = [m for m in self.members.values() if m["live"]]
        if not live:
            return self.hub_id
        return str(min(live, key=lambda m: (str(m.get("started")), m["hub_id"]))["hub_id"])

    def place(self, named: str | None = None, gather: bool = False) -> Elsewhere | None:
        """Where a new game goes: ``None`` for this hub, else the other live hub (an
        :class:`~hub.model.Elsewhere` with its routes): the one ``named``, or the least
        loaded (:meth:`weight`; this hub on a tie).

        ``gather``: the hub where a cluster-wide queue meets (:meth:`gathering`).

        :raises hub.model.NotFound: ``named`` is no live hub of the cluster.
        """
        if gather:
            named = self.gathering()
        live = [h for h, m in self.members.items() if m["live"]] or [self.hub_id]
        if named is not None:
            if named == self.hub_id:
                return None
            if named not in live:
                raise NotFound(f"no live hub {named[:40]!r} in the cluster")
            target = named
        else:
            target = min(live, key=lambda h: (self.weight(h), h != self.hub_id, h))
        if target == self.hub_id:
            return None
        return self.route_to(target, f"new games go to hub {target}")

    def view(self) -> dict[str, Any]:
        """The cluster as ``/api/health`` shows it."""
        hubs = [
            {
                "id": m["hub_id"],
                "live": m["live"],
                "endpoints": {fe: endpoint_text(e) for fe, e in sorted(m["endpoints"].items())},
                "load": m["load"],
                "games": m["games"],
            }
            for m in self.members.values()
            if m["live"]
        ]
        return {"mode": CLUSTER, "hub": self.hub_id, "alive": len(hubs), "hubs": hubs}


def _seen(game: Any, hub_id: str) -> Seen:
    """A game (a local one or a record of another hub's) as :mod:`.moves` sees it."""
    players = frozenset(str(s.player) for s in game.seats if s.player is not None)
    return Seen(str(game.id), hub_id, str(game.state), players)


class _MoveWatch:
    """Tells :class:`.moves.Moves` of every game listed or changed: the other hubs'
    (a directory listener) and this hub's own (a lobby listener: a game that moved
    here).  An ``ILobbyListener``."""

    def __init__(self, moves: Moves, here: Callable[[], str]) -> None:
        self.moves = moves
        self.here = here

    def lobby_changed(self, change: str, game: Any) -> None:
        """(``ILobbyListener``.)"""
        if change == "removed" or not self.moves.waiting:
            return
        hub_id = game.hub if isinstance(game, RemoteGame) else None
        self.moves.seen(_seen(game, hub_id or self.here()))
