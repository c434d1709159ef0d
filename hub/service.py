"""The root service of a hub: owns the registry, the lobby, the store and the front ends.

Start order: store (migrations, this hub's lease, crash recovery of dead hubs' tables)
→ plugins → front ends, one after the other, so no client is accepted before the chips
of a previous run are back in their accounts. Stop order is the reverse.

Front ends create games and seat players and bots through the hub
(:meth:`HubService.create_game`, :meth:`HubService.take_seat`,
:meth:`HubService.add_bot`, :meth:`HubService.leave_seat`): chip games go through the
table money (:mod:`hub.play.money`), every other game straight to the lobby.
"""

from __future__ import annotations

import atexit
import importlib
import importlib.util
import os
import sys
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from twisted.application.service import MultiService, Service
from twisted.internet import defer
from twisted.internet.endpoints import serverFromString
from twisted.internet.protocol import Protocol
from twisted.logger import ILogObserver, Logger
from twisted.python.components import Componentized
from zope.interface import implementer

import hub
from hub import settings as typed
from hub.cluster import SINGLE, Cluster
from hub.connections.chat import ChatService
from hub.connections.limits import bots_only_room
from hub.connections.transcript import Transcripts, TranscriptSettings
from hub.frontends import FRONTENDS
from hub.heap import HeapKeeper
from hub.interfaces import IHTTPResources, IHub
from hub.model import GameError, JsonText, NotFound
from hub.ops.admin import Admin, Bans
from hub.ops.datalock import DataLock
from hub.ops.metrics import MetricsService, StartError
from hub.ops.telemetry import DETACHED, FrontendTelemetry, Telemetry
from hub.optional_interfaces import IHandViews, IHandViewStore
from hub.play.expiry import WaitingExpiry
from hub.play.game import check_table_rules
from hub.play.lobby import Lobby, thread_runner
from hub.play.money import TableMoney
from hub.play.resume import Journaling
from hub.play.routes import Routes
from hub.ratings.service import RatingService, check_rated
from hub.store.cluster import ClusterMixin
from hub.store.errors import StoreUnavailable
from hub.store.store import Store
from hub.tournaments.service import TournamentService

DATA_FOLDERS = ("plugins", "plugins/meta", "bots", "bots/meta", "transcripts")
#: permissions of the folders the hub creates (owner only)
FOLDER_MODE = 0o700


#: connections the kernel queues for a listening port before the hub accepts them
#: (Twisted's own default is 50: a burst of clients at a course's deadline is refused)
DEFAULT_BACKLOG = 1024


def with_backlog(description: str, backlog: int) -> str:
    """A TCP or TLS endpoint ``description`` with ``backlog`` unless it names its own
    (``tcp:4000:backlog=64``); other endpoint kinds unchanged."""
    kind = description.split(":", 1)[0].strip().lower()
    if kind not in ("tcp", "tcp6", "ssl") or "backlog=" in description:
        return description
    return f"{description}:backlog={int(backlog)}"


class _Banned(Protocol):
    """A connection from a banned address: closed at once, nothing read or written."""

    def connectionMade(self) -> None:
        """Close."""
        self.transport.loseConnection()  # type: ignore[union-attr]


class Gate:
    """A front end's factory as the endpoint sees it: connections from banned
    addresses (:class:`hub.ops.admin.Bans`) are closed at once (a ``banned`` refusal), the
    others are built by the front end's factory and remembered by address (weakly),
    so that banning an address closes its open connections (:meth:`drop`).  Anything
    else is the front end factory's own."""

    def __init__(self, factory: Any, bans: Bans, telemetry: FrontendTelemetry) -> None:
        self._factory = factory
        self._bans = bans
        self._telemetry = telemetry
        self._live: dict[str, weakref.WeakSet[Any]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._factory, name)

    def buildProtocol(self, addr: Any) -> Any:  # noqa: N802
        """The front end's protocol, or :class:`_Banned` for a banned address."""
        host = str(getattr(addr, "host", "") or "")
        if self._bans.banned(host):
            self._telemetry.refused("banned", "the address is banned", peer=host)
            return _Banned()
        proto = self._factory.buildProtocol(addr)
        if proto is not None and host:
            if len(self._live) > 1024:
                self._live = {h: s for h, s in self._live.items() if len(s)}
            self._live.setdefault(host, weakref.WeakSet()).add(proto)
        return proto

    def drop(self, banned: Callable[[str], bool]) -> int:
        """Close the open connections of every address ``banned`` says yes to; how many."""
        closed = 0
        for host, protocols in list(self._live.items()):
            if not banned(host):
                continue
            for proto in list(protocols):
                transport = getattr(proto, "transport", None)
                if transport is not None and not getattr(transport, "disconnected", False):
                    transport.loseConnection()
                    closed += 1
            self._live.pop(host, None)
        return closed


class FrontendService(Service):
    """Listens on one endpoint with one front end's protocol factory."""

    log = Logger()

    def __init__(self, hub_service: HubService, name: str, description: str, module: str):
        self.setName(name)
        self.frontend: str = name
        self.hub = hub_service
        self.description = description
        self.module = module
        self.port: Any = None
        #: the front end's protocol factory while it listens, behind its :class:`Gate`
        self.factory: Any = None
        self.gate: Gate | None = None

    def startService(self) -> defer.Deferred:
        """Build the factory and listen; logs and records the port actually bound."""
        Service.startService(self)
        factory = importlib.import_module(self.module).make_factory(self.hub)
        telemetry = self.hub.telemetry.frontend(self.frontend)
        factory.telemetry = telemetry
        self.factory = factory
        self.gate = Gate(factory, self.hub.bans, telemetry)
        backlog = int(self.hub.options.get("listen_backlog", DEFAULT_BACKLOG))
        endpoint = serverFromString(self.hub.reactor, with_backlog(self.description, backlog))
        d = endpoint.listen(self.gate)
        d.addCallbacks(self._listening, self._not_listening)
        return d

    def _not_listening(self, failure: Any) -> None:
        raise StartError(
            f"the {self.frontend} front end cannot listen on {self.description}: "
            f"{failure.getErrorMessage()}"
        )

    def _listening(self, port: Any) -> Any:
        self.port = port
        address = port.getHost()
        bound = getattr(address, "port", None)  # foreign: an IAddress (UNIX ones have none)
        self.hub.bound_ports[self.frontend] = bound
        self.log.info(
            "gamehub {frontend} front end listening on {host}:{port} ({description})",
            frontend=self.name,
            host=getattr(address, "host", "?"),  # as above
            port=bound,
            description=self.description,
        )
        return port

    def stopService(self) -> defer.Deferred | None:
        """Stop listening (open connections are closed by the reactor's shutdown)."""
        Service.stopService(self)
        self.hub.bound_ports.pop(self.frontend, None)
        self.factory = self.gate = None
        if self.port is None:
            return None
        port, self.port = self.port, None
        return defer.maybeDeferred(port.stopListening)


class Seating:
    """The methods of :class:`hub.interfaces.IHub`, for the hub and the test fakes of
    it: creating games and seating players and bots (chip games through the table
    money, ``money``, :mod:`hub.play.money`; every other game straight to the lobby), the
    games the front ends list (:meth:`listed_games`: with the other hubs' of a
    cluster), a game's JSON and the front ends' HTTP resources.  Needs ``lobby``,
    ``registry``, ``store``, ``money``, ``ratings`` and ``bound_ports``."""

    lobby: Lobby
    registry: Any
    store: Any
    options: Mapping[str, Any]
    money: TableMoney | None
    #: rated games (``hub.ratings``); ``None``: nothing is rated (no store)
    ratings: RatingService | None = None

    #: the routes of keys the front ends do not know (``hub.play.routes``); ``None``: none
    routes: Routes | None = None
    #: the tournaments (``hub.tournaments``); ``None``: none (test hubs)
    tournaments: TournamentService | None = None

    #: the hub's part in a cluster (``hub.cluster``), ``None`` for a single hub
    cluster: Cluster | None = None
    #: the hub's metrics (the hub service makes its own; test hubs count nowhere)
    telemetry: Telemetry = DETACHED

    def listed_games(self) -> list[Any]:
        """Every game the lobby lists show: this hub's, then the other hubs' of the
        cluster (:class:`hub.cluster.RemoteGame`, read-only)."""
        games: list[Any] = list(self.lobby.listed())
        if self.cluster is not None:
            games.extend(self.cluster.remote_games())
        return games

    def follow_games(self, listener: Any) -> None:
        """Tell ``listener`` (an ``ILobbyListener``) of every change to
        :meth:`listed_games`: the lobby's and the cluster directory's."""
        self.lobby.add_listener(listener)
        if self.cluster is not None and self.cluster.directory is not None:
            self.cluster.directory.add_listener(listener)

    def unfollow_games(self, listener: Any) -> None:
        """Stop telling ``listener``."""
        self.lobby.remove_listener(listener)
        if self.cluster is not None and self.cluster.directory is not None:
            self.cluster.directory.remove_listener(listener)

    bound_ports: dict[str, int | None]

    def http_resources(self, access: Any = None) -> list[tuple[bytes, Any]]:
        """``(path segment, resource)`` pairs the front ends of this build publish over
        HTTP (:class:`hub.interfaces.IHTTPResources`), listening or not, for the web
        front end to mount: a client may fetch the XML schemas while the XML port is
        closed.  ``access`` is the web front end's :class:`hub.connections.access.Access`: every
        route it mounts is checked by it."""
        out: list[tuple[bytes, Any]] = []
        for _, module_name in FRONTENDS.values():
            if importlib.util.find_spec(module_name) is None:
                continue
            module = importlib.import_module(module_name)
            if IHTTPResources.providedBy(module):
                out.extend(module.http_resources(IHub(self), access))
        return out

    def place(self, hub: str | None = None, gather: bool = False) -> Any:
        """Where a new game goes: ``None`` for this hub, else a ``hub.model.Elsewhere``
        naming the hub (the one named, or the cluster's least loaded live hub).

        ``gather``: the hub where the players of a cluster-wide queue meet.

        :raises hub.model.NotFound: ``hub`` names no live hub."""
        if self.cluster is not None:
            return self.cluster.place(hub, gather)
        own = self.store.hub_id if self.store is not None else None
        if hub is not None and hub != own:
            raise NotFound(f"no hub {hub[:40]!r} here: this hub is single")
        return None

    def game_json(self, game: Any, detail: bool = False) -> dict[str, Any]:
        """A game as the JSON API shows it, with the port of its front end (a remote
        game's: on its own hub) and, in a cluster, the ``hub`` that runs it."""
        data = game.to_json(detail=detail)
        data.setdefault("port", self.bound_ports.get(game.frontend))
        if self.cluster is not None:
            data.setdefault("hub", self.cluster.hub_id)
        data["rated"] = self.ratings is not None and self.ratings.is_rated(game.id)
        return data

    def _chips(self, game: Any) -> bool:
        return self.money is not None and game.chips is not None

    async def create_game(
        self,
        type_name: str,
        name: str | None = None,
        variant: str | None = None,
        seats: Any = None,
        options: Any = None,
        creator: str | None = None,
        seat_bots: bool = True,
        rated: Any = None,
        bots_only: bool = False,
        broke_bots: str = "leave",
        sealed: bool = False,
    ) -> Any:
        """Create a game (see ``POST /api/games``); a chip table through the table money
        (its bots funded first).  ``seat_bots=False``: the bots stand until
        :meth:`seat_bots` (the creator sits down first).  ``rated``: the game counts
        for ratings (``True``), is casual (``False``) or as the ``rated_default``
        setting says (``None``); a hub without a store rates nothing.  A chip table's
        rules for its bots: ``bots_only`` (every seat a bot on purpose: it plays on with
        nobody seated) and ``broke_bots`` (``leave`` or ``rebuy``;
        :meth:`hub.play.game.GameInstance.set_table_rules`).  ``sealed``: the operator's
        alone until the lobby unseals it (:meth:`hub.play.lobby.Lobby.create_game`).

        :raises hub.model.GameError: refused (503 for a chip table while the store is
            unavailable).
        """
        kwargs = {
            "name": name,
            "variant": variant,
            "seats": seats,
            "options": options,
            "creator": creator,
            "seat_bots": seat_bots,
            "sealed": sealed,
        }
        if not isinstance(type_name, str):
            raise GameError("'type' must be a game type name", 400)
        check_rated(rated)
        check_table_rules(seats, bots_only, broke_bots)
        if bots_only is True:
            bots_only_room(self.lobby.games(), creator, self.options)
        factory = self.registry.game_factory(type_name)
        if self.money is not None and self.money.plays_for_chips(factory):
            game = await self.money.create_table(type_name, **kwargs)
        else:
            game = self.lobby.create_game(type_name, **kwargs)
        game.set_table_rules(bots_only, broke_bots)
        if self.ratings is not None:
            self.ratings.choose(game, rated)
        if self.cluster is not None:  # its row first: any hub asked for it finds it
            await self.cluster.published()
        return game

    async def seat_bots(self, game: Any) -> None:
        """Seat the bots of a game created with ``seat_bots=False`` (once); at a chip
        table they are funded and bought in first.

        :raises hub.model.GameError: refused (503 at a chip table while the store is
            unavailable).
        """
        if self._chips(game):
            assert self.money is not None
            await self.money.seat_bots(game)
        else:
            game.seat_bots()

    async def take_seat(
        self,
        game: Any,
        player: str,
        seat: int | None = None,
        kind: str = "client",
        buyin: Any = None,
        observe: Any = None,
        fund: bool = False,
    ) -> int:
        """Seat ``player``; at a chip table the buy-in moves from the account first
        (from one's own seat: adds chips; ``fund``: the hub funds the account as its
        bots').  ``observe(seat)`` is called just before the game seats the player
        (``observe(None)`` if that fails).

        :returns: the seat.
        """
        if self._chips(game):
            assert self.money is not None
            return await self.money.take_seat(game, player, seat, buyin, kind, observe, fund)
        taken = int(game.take_seat(player, seat, kind=kind))
        if observe is not None:
            observe(taken)
        return taken

    async def add_bot(
        self, game: Any, bot: str, seat: int | None = None, buyin: Any = None
    ) -> tuple[int, str]:
        """Seat the in-hub bot ``bot`` (funded through the ledger at a chip table).

        :returns: ``(seat, player name)``.
        """
        if self._chips(game):
            assert self.money is not None
            return await self.money.add_bot(game, bot, seat, buyin)
        if seat is None:
            free = [s.index for s in game.seats if s.free and s.kind in ("open", "human")]
            if not free:
                raise GameError(f"game {game.id} has no free seat", 409)
            seat = free[0]
        return seat, game.seat_bot(seat, bot)

    def leave_seat(self, game: Any, seat: int) -> None:
        """The player at ``seat`` asks to leave (refused while a chip table's stack
        could not go back to the account: the store is unavailable)."""
        if self._chips(game):
            assert self.money is not None
            self.money.check_leave(game)
        game.leave_seat(seat)

    def health(self) -> dict[str, Any]:
        """``ok``, or ``degraded`` while the store is unavailable; the store's state
        (``up``, ``down`` or ``none``) and the chip tables waiting for it."""
        store = "none" if self.store is None else ("up" if self.store.available else "down")
        return {
            "status": "degraded" if store == "down" else "ok",
            "store": store,
            "paused_tables": 0 if self.money is None else self.money.paused_tables(),
        }


@implementer(IHub)
class HubService(MultiService, Seating):
    """The hub: one per ``twistd gamehub`` process.

    :param reactor: the reactor (``MemoryReactorClock`` in unit tests).
    :param data_dir: the data folder (plugins, bots, transcripts, SQLite file).
    :param endpoints: front-end name → endpoint description (``none`` to switch off).
    :param registry: the plugin registry.
    :param store: the accounts/ledger/history store (an ``IStore``), or ``None``.
    :param options: other settings (``mnm_version``, ``api_token``...).
    :param exit_on_failure: when the hub cannot start, write one line to stderr and
        make the process exit with status 1 (``twistd gamehub``).
    :param freeze_heap: once started, run the garbage collector's policy of a
        long-running hub (:class:`hub.heap.HeapKeeper`: the objects made so far frozen,
        and what came later every ``gc_freeze_seconds``, all collected once every
        ``gc_full_seconds``); ``twistd gamehub``, not a test process of many hubs.
    """

    log = Logger()
    #: the log observer twistd is to use (see :meth:`setServiceParent`)
    log_observer: Any = None

    def __init__(  # long: builds every part of the hub, in order
        self,
        reactor: Any,
        data_dir: Path,
        endpoints: Mapping[str, str],
        registry: Any,
        store: Any = None,
        options: Mapping[str, Any] | None = None,
        exit_on_failure: bool = False,
        freeze_heap: bool = False,
    ) -> None:
        super().__init__()
        self.exit_on_failure = exit_on_failure
        self.freeze_heap = freeze_heap
        #: the collector's policy (:mod:`hub.heap`), once started with ``freeze_heap``
        self.heap: HeapKeeper | None = None
        self.failed: str | None = None
        self.reactor = reactor
        self.version = hub.__version__
        self.data_dir = Path(data_dir)
        self.options: dict[str, Any] = {
            key: typed.convert(key, value) for key, value in dict(options or {}).items()
        }
        self.registry = registry
        self.store = store
        self.bound_ports: dict[str, int | None] = {}
        #: front-end name → endpoint description (``none``: switched off)
        self.endpoints: dict[str, str] = {name: endpoints.get(name) or "none" for name in FRONTENDS}
        self.transcripts = Transcripts(
            self.data_dir / "transcripts", reactor, TranscriptSettings.from_options(self.options)
        )
        #: the metrics and refusal events of this hub (``hub.ops.telemetry``)
        self.telemetry = Telemetry(self.version)
        #: banned addresses (``hub.ops.admin``), read from the store when it starts
        self.bans = Bans()
        mnm_major = str(self.options.get("mnm_version", "3.1")).split(".")[0]
        self.lobby = Lobby(
            registry,
            reactor,
            transcripts=self.transcripts,
            bot_runner=self.telemetry.timed_bots(thread_runner(reactor)),
            id_length=11 if mnm_major == "1" else 13,
            keep_finished=float(self.options.get("keep_finished", 3600)),
            keep_finished_count=int(self.options.get("keep_finished_count", 500)),
            retire_after=float(self.options.get("retire_after", 5)),
            event_log=int(self.options.get("game_event_log", 5000)),
            unattended_seconds=float(self.options.get("unattended_seconds", 180)),
        )
        #: waiting games nobody joins expire (``keep_waiting``, :mod:`hub.play.expiry`)
        self.waiting_expiry = WaitingExpiry.configured(self.lobby, self.options)
        #: the chat of the lobby and every game, for every front end (``hub.connections.chat``)
        self.chat = ChatService(
            reactor,
            self.lobby,
            history=int(self.options.get("chat_history", 50)),
            rate=int(self.options.get("chat_rate", 20)),
            window=float(self.options.get("chat_window", 10)),
        )
        if store is not None:
            self.lobby.on_game_over(self.record_game)
        #: rated games and their results into the store (``hub.ratings``)
        self.ratings = (
            RatingService(self.lobby, store, bool(self.options.get("rated_default", False)))
            if store is not None
            else None
        )
        #: the chips of chip games (poker) through the ledger (``hub.play.money``)
        retry = (
            float(self.options.get("money_retry_first", 0.25)),
            float(self.options.get("money_retry_most", 10.0)),
        )
        self.money = TableMoney(self.lobby, store, retry) if store is not None else None
        #: every game journaled in the store, resumed after a restart (``hub.play.resume``)
        self.journaling = (
            Journaling(self.lobby, store, reactor, self.options)
            if isinstance(store, Store)
            else None
        )
        #: this hub's part in a cluster of hubs on one PostgreSQL database
        #: (``hub.cluster``); ``None`` for a single hub (SQLite, or no store)
        self.cluster: Cluster | None = None
        if isinstance(store, ClusterMixin) and store.clustered:
            self.cluster = Cluster(self)
        self._starting: defer.Deferred | None = None
        #: the mark of a running hub on its data folder (``hub.ops.datalock``)
        self.data_lock = DataLock(self.data_dir)
        self.telemetry.follow(self)
        #: the admin actions, each audited (``hub.ops.admin``)
        self.admin = Admin(self)
        self.routes = Routes()
        self.tournaments = TournamentService(self, self.options, self.cluster)
        self._listen(endpoints)

    def _listen(self, endpoints: Mapping[str, str]) -> None:
        """A service for each front end switched on (and the metrics endpoint's)."""
        for name, (_, module) in FRONTENDS.items():
            description = endpoints.get(name, "none")
            if not description or description == "none":
                continue
            if importlib.util.find_spec(module) is None:
                self.log.warn(
                    "the {frontend} front end is not part of this build; skipped", frontend=name
                )
                continue
            FrontendService(self, name, description, module).setServiceParent(self)
        metrics = str(self.options.get("metrics_endpoint", "") or "none")
        if metrics != "none":
            MetricsService(self, metrics).setServiceParent(self)

    def frontends(self) -> list[FrontendService]:
        """The front ends of this hub (listening or not)."""
        return [s for s in self if isinstance(s, FrontendService)]

    def setServiceParent(self, parent: Any) -> None:
        """Join ``parent``; under twistd (``parent`` is the application) with
        :attr:`log_observer` set, that observer becomes twistd's log (``--log-format
        json``, :mod:`hub.ops.logs`)."""
        super().setServiceParent(parent)
        if self.log_observer is not None and isinstance(parent, Componentized):
            parent.setComponent(ILogObserver, self.log_observer)

    def frontend_factory(self, name: str) -> Any:
        """The protocol factory of the front end ``name`` while it listens, else ``None``."""
        for service in self:
            if isinstance(service, FrontendService) and service.frontend == name:
                return service.factory
        return None

    def addresses(self) -> dict[str, tuple[str, int, bool]]:
        """Front end → (host, port, TLS?) it listens on now."""
        out = {}
        for service in self:
            if isinstance(service, FrontendService) and service.port is not None:
                address = service.port.getHost()
                tls = service.description.strip().lower().startswith("ssl:")
                out[service.frontend] = (str(getattr(address, "host", "")), int(address.port), tls)
        return out

    def cluster_view(self) -> dict[str, Any]:
        """``{"mode": "single", "hub": id}`` for a single hub, else the cluster's view
        (:meth:`hub.cluster.Cluster.view`: hubs alive, their load and front ends)."""
        if self.cluster is not None:
            return self.cluster.view()
        return {"mode": SINGLE, "hub": getattr(self.store, "hub_id", None)}

    def health(self) -> dict[str, Any]:
        """As :meth:`Seating.health`, with the cluster's view (:meth:`cluster_view`)."""
        return {**Seating.health(self), "cluster": self.cluster_view()}

    def record_game(self, game: Any, event: Any) -> defer.Deferred:
        """Keep a finished game in the store's history (per-seat results) and its
        replay (public events)."""
        result = game.result() or {}
        players = game.seat_results(result)
        text = game.replay_text()  # (its text: the store keeps it as it is)
        replay = None if text is None else JsonText(text)
        d = self.store.record_game(
            game.id,
            game.type,
            game.name,
            players,
            variant=game.variant,
            started=game.created,
            finished=game.finished,
            summary=result.get("summary"),
            result=result,
            replay=replay,
        )
        if self.journaling is not None:
            d.addCallback(lambda _, j=self.journaling: j.history_written(game.id))

        def unavailable(failure: Any) -> None:
            failure.trap(StoreUnavailable)
            self.log.error(
                "game {game} not kept in the history: {e}",
                game=game.id,
                e=failure.getErrorMessage(),
            )

        return d.addErrback(unavailable)  # fmt: skip

    def startService(self) -> None:
        """Start store, plugins and front ends in order; stop the reactor if that fails."""
        Service.startService(self)
        self._starting = defer.ensureDeferred(self._start())
        self._starting.addErrback(self._start_failed)

    async def _start(self) -> None:
        try:
            self.data_dir.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
            for folder in DATA_FOLDERS:
                (self.data_dir / folder).mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        except OSError as e:
            raise StartError(f"cannot create the data folder {self.data_dir}: {e}") from None
        try:
            self.data_lock.acquire()
        except OSError as e:
            self.log.warn("cannot lock {path}: {error}", path=str(self.data_lock.path), error=e)
        if self.store is not None:
            try:
                await defer.maybeDeferred(self.store.start)
            except Exception as e:
                # the SQL stores have a dialect that names the database; IStore does not
                where = getattr(getattr(self.store, "dialect", None), "describe", lambda: "")()
                raise StartError(f"cannot open the database {where}: {e}") from None
        if self.cluster is not None:
            try:
                await self.cluster.start()
            except Exception as e:
                raise StartError(f"cannot join the cluster: {e}") from None
        await self.admin.load_bans()
        self.admin.start()
        self.telemetry.start()
        await defer.maybeDeferred(self.registry.load)
        self.registry.start()
        await self._install_views()
        if self.journaling is not None:
            await self.journaling.start()
        if self.tournaments is not None:
            await self.tournaments.start()
        for service in list(self):
            await defer.maybeDeferred(service.startService)
        if self.cluster is not None:
            await self.cluster.advertise()
            await self.cluster.share_plugins(self.registry, self.data_dir)
        self.log.info(
            "gamehub {version} ready: data in {data}, front ends {ports}",
            version=self.version,
            data=str(self.data_dir),
            ports=dict(self.bound_ports),
        )
        if self.freeze_heap:  # (the collector's policy of a long-running hub)
            self.heap = HeapKeeper(self.reactor, self.options)
            self.heap.start()

    def _start_failed(self, failure: Any) -> None:
        if failure.check(defer.CancelledError):
            return  # stopped while starting
        reason = " ".join(failure.getErrorMessage().split())
        self.failed = reason
        if failure.check(StartError):
            self.log.critical("gamehub cannot start: {reason}", reason=reason)
        else:
            self.log.failure("gamehub failed to start", failure)
        if self.exit_on_failure:
            _exit_after_shutdown(f"gamehub: cannot start: {reason}")
        if getattr(self.reactor, "running", False):  # foreign: a test clock has none
            self.reactor.stop()
        elif hasattr(self.reactor, "callWhenRunning"):
            self.reactor.callWhenRunning(self.reactor.stop)

    def stopService(self) -> defer.Deferred:
        """Stop front ends, games, plugins and store."""
        return defer.ensureDeferred(self._stop())

    async def _install_views(self) -> None:
        """The SQL views the loaded game types offer over their stored hands
        (:class:`hub.optional_interfaces.IHandViews`), made again at every start; a failure is
        logged and the hub starts all the same."""
        if not IHandViewStore.providedBy(self.store):
            return
        views: list[tuple[str, str]] = []
        makers = [f for f in self.registry.game_types() if IHandViews.providedBy(f)]
        if not makers:
            return

        def views_of(dialect: str) -> list[tuple[str, str]]:
            for maker in makers:
                views.extend(maker.hand_views(dialect))
            return views

        try:
            made = await defer.maybeDeferred(self.store.install_views, views_of)
        except Exception as e:
            self.log.error("the SQL views of the stored hands were not made: {error}", error=e)
        else:
            self.log.info("SQL views of the stored hands: {names}", names=", ".join(made))

    async def _stop(self) -> None:
        Service.stopService(self)
        if self._starting is not None and not self._starting.called:
            self._starting.cancel()
        if self.tournaments is not None:  # (a cluster's: another hub adopts them)
            await self.tournaments.release()
        if self.journaling is not None:  # before the front ends leave their seats
            sealed = await self.journaling.seal()
            if self.cluster is not None and self.cluster.handover is not None:
                await self.cluster.handover.hand_over(sealed)
        for service in reversed(list(self)):
            if service.running:
                try:
                    await defer.maybeDeferred(service.stopService)
                except Exception:
                    self.log.failure("stopping {name} failed", name=service.name)
        if self.tournaments is not None:
            await self.tournaments.stop()
        if self.ratings is not None:
            await self.ratings.stop()
        self.lobby.stop()
        if self.heap is not None:
            self.heap.stop()
        if self.money is not None:
            await self.money.stop(float(self.options.get("money_stop_timeout", 10)))
        if self.journaling is not None:
            await self.journaling.writer.drain()
        if self.cluster is not None:
            await self.cluster.stop()
        self.registry.stop()
        self.admin.stop()
        if self.store is not None:
            await defer.maybeDeferred(self.store.stop)
        self.transcripts.close()
        self.data_lock.release()
        self.telemetry.stop()
        self.log.info("gamehub stopped")


def _exit_after_shutdown(line: str) -> None:
    """Write ``line`` to the real stderr now, and make the process exit with status 1
    once twistd has shut down (twistd itself would exit with 0)."""
    try:
        os.write(2, (line + "\n").encode("utf-8", "replace"))
    except OSError:
        pass

    def exit_one() -> None:
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(1)

    atexit.register(exit_one)
