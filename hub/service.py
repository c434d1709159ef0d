"""The root service of a hub: owns the registry, the lobby, the store and the front ends.

Start order: store (migrations, crash recovery) → plugins → front ends, one after the
other, so no client is accepted before the chips of a previous run are back in their
accounts. Stop order is the reverse.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from twisted.application.service import MultiService, Service
from twisted.internet import defer
from twisted.internet.endpoints import serverFromString
from twisted.logger import Logger

import hub
from hub.chat import ChatService
from hub.frontends import FRONTENDS
from hub.lobby import Lobby, thread_runner
from hub.money import Cashier
from hub.transcript import Transcripts

DATA_FOLDERS = ("plugins/meta", "bots/meta", "transcripts")


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

    def startService(self) -> defer.Deferred:
        """Build the factory and listen; logs and records the port actually bound."""
        Service.startService(self)
        factory = importlib.import_module(self.module).make_factory(self.hub)
        endpoint = serverFromString(self.hub.reactor, self.description)
        d = endpoint.listen(factory)
        d.addCallback(self._listening)
        return d

    def _listening(self, port: Any) -> Any:
        self.port = port
        address = port.getHost()
        bound = getattr(address, "port", None)
        self.hub.bound_ports[self.frontend] = bound
        self.log.info(
            "gamehub {frontend} front end listening on {host}:{port} ({description})",
            frontend=self.name,
            host=getattr(address, "host", "?"),
            port=bound,
            description=self.description,
        )
        return port

    def stopService(self) -> defer.Deferred | None:
        """Stop listening (open connections are closed by the reactor's shutdown)."""
        Service.stopService(self)
        self.hub.bound_ports.pop(self.frontend, None)
        if self.port is None:
            return None
        port, self.port = self.port, None
        return defer.maybeDeferred(port.stopListening)


class HubService(MultiService):
    """The hub: one per ``twistd gamehub`` process.

    :param reactor: the reactor (``MemoryReactorClock`` in unit tests).
    :param data_dir: the data folder (plugins, bots, transcripts, SQLite file).
    :param endpoints: front-end name → endpoint description (``none`` to switch off).
    :param registry: the plugin registry.
    :param store: the accounts/ledger/history store (an ``IStore``), or ``None``.
    :param options: other settings (``mnm_version``, ``api_token``...).
    """

    log = Logger()

    def __init__(
        self,
        reactor: Any,
        data_dir: Path,
        endpoints: Mapping[str, str],
        registry: Any,
        store: Any = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.reactor = reactor
        self.version = hub.__version__
        self.data_dir = Path(data_dir)
        self.options: dict[str, Any] = dict(options or {})
        self.registry = registry
        self.store = store
        self.bound_ports: dict[str, int | None] = {}
        self.transcripts = Transcripts(self.data_dir / "transcripts", reactor)
        mnm_major = str(self.options.get("mnm_version", "3.1")).split(".")[0]
        self.lobby = Lobby(
            registry,
            reactor,
            transcripts=self.transcripts,
            bot_runner=thread_runner(reactor),
            id_length=11 if mnm_major == "1" else 13,
            keep_finished=float(self.options.get("keep_finished", 3600)),
            event_log=int(self.options.get("game_event_log", 5000)),
        )
        #: the chat of the lobby and every game, for every front end (``hub.chat``)
        self.chat = ChatService(
            reactor,
            self.lobby,
            history=int(self.options.get("chat_history", 50)),
            rate=int(self.options.get("chat_rate", 20)),
            window=float(self.options.get("chat_window", 10)),
        )
        if store is not None:
            self.lobby.on_game_over(self.record_game)
        #: chips of chip games (poker) through the ledger (``hub.money``)
        self.money = Cashier(self.lobby, store) if store is not None else None
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
        self._starting: defer.Deferred | None = None

    def game_json(self, game: Any, detail: bool = False) -> dict[str, Any]:
        """A game as the JSON API shows it, with the port of its front end."""
        data = game.to_json(detail=detail)
        data["port"] = self.bound_ports.get(game.frontend)
        return data

    def record_game(self, game: Any, event: Any) -> defer.Deferred:
        """Keep a finished game in the store's history (per-seat results) and its
        replay (public events)."""
        result = game.result() or {}
        winners = set(result.get("winners") or ())
        scores = list(result.get("scores") or ())
        players = [
            {
                "seat": seat.index,
                "name": seat.player or f"seat {seat.index}",
                "kind": "bot" if seat.kind == "bot" else "human",
                "score": scores[seat.index] if seat.index < len(scores) else None,
                "winner": seat.index in winners,
            }
            for seat in game.seats
        ]
        replay = game.replay()
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
        )
        d.addCallback(lambda _: self.store.record_replay(game.id, replay))
        return d

    def startService(self) -> None:
        """Start store, plugins and front ends in order; stop the reactor if that fails."""
        Service.startService(self)
        self._starting = defer.ensureDeferred(self._start())
        self._starting.addErrback(self._start_failed)

    async def _start(self) -> None:
        for folder in DATA_FOLDERS:
            (self.data_dir / folder).mkdir(parents=True, exist_ok=True)
        if self.store is not None:
            await defer.maybeDeferred(self.store.start)
        self.registry.load()
        self.registry.start()
        for service in list(self):
            await defer.maybeDeferred(service.startService)
        self.log.info(
            "gamehub {version} ready: data in {data}, front ends {ports}",
            version=self.version,
            data=str(self.data_dir),
            ports=dict(self.bound_ports),
        )

    def _start_failed(self, failure: Any) -> None:
        if failure.check(defer.CancelledError):
            return  # stopped while starting
        self.log.failure("gamehub failed to start", failure)
        if getattr(self.reactor, "running", False):
            self.reactor.stop()

    def stopService(self) -> defer.Deferred:
        """Stop front ends, games, plugins and store."""
        return defer.ensureDeferred(self._stop())

    async def _stop(self) -> None:
        Service.stopService(self)
        if self._starting is not None and not self._starting.called:
            self._starting.cancel()
        for service in reversed(list(self)):
            if service.running:
                try:
                    await defer.maybeDeferred(service.stopService)
                except Exception:
                    self.log.failure("stopping {name} failed", name=service.name)
        self.lobby.stop()
        if self.money is not None:
            await self.money.idle()
        self.registry.stop()
        if self.store is not None:
            await defer.maybeDeferred(self.store.stop)
        self.transcripts.close()
        self.log.info("gamehub stopped")
