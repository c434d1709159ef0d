"""What a hub tells its operator: Prometheus metrics and one structured log event for
every refusal and error of a front end.

Each hub has one :class:`Telemetry` with a registry of its own (``prometheus_client``;
tests run many hubs in one process).  Front ends get a :class:`FrontendTelemetry`
(:meth:`Telemetry.frontend`) whose counters are bound to their labels once, so the
reactor pays one increment per connection or message and allocates nothing.  Figures
the hub already keeps (games by type and state, plugins, the store's state) are read
when ``/metrics`` is scraped (:class:`_LiveFigures`).  Every metric is listed in
docs/operations.md.

A front end that refuses something calls :meth:`FrontendTelemetry.refused`: one count
by kind and one log event in the namespace ``gamehub.refusal`` with the fields
``frontend``, ``connection``, ``game``, ``kind`` and ``reason`` (the JSON log of
``--log-format json`` keeps them as fields).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from twisted.logger import ILogObserver, Logger, LogLevel, globalLogPublisher
from twisted.web.resource import Resource
from zope.interface import implementer

from hub.connections.access import challenge
from hub.model import GameError
from hub.store.ledger import Movement

#: no ``*_created`` series beside the counters: one series per figure
disable_created_metrics()

#: the content type of ``/metrics``
CONTENT_TYPE = CONTENT_TYPE_LATEST
#: seconds: buckets of the bot think-time and store-latency histograms
BOT_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
STORE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)

refusal_log = Logger(namespace="gamehub.refusal")


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def scrub(reason: str) -> str:
    """``reason`` without the values it quotes (a schema complaint quotes what the
    client sent, which may be a password): ``'…'`` instead."""
    return _QUOTED.sub("'…'", reason)


class FrontendTelemetry:
    """The counters of one front end, bound to its name.

    Messages in and out (one or more per line or frame) are counted in plain ints
    (:attr:`received`, :attr:`sent`) and added to ``gamehub_messages`` when the metrics
    are read (:meth:`flush`, run by :class:`_Flush` at each scrape): no lock and no
    call into the client library per message.

    :ivar name: the front end (``xml``, ``mnm``, ``domino``, ``web``...).
    :ivar received: messages in since the last :meth:`flush`.
    :ivar sent: messages out since the last :meth:`flush`.
    """

    def __init__(self, telemetry: Telemetry, name: str) -> None:
        self.name = name
        self._telemetry = telemetry
        self._opened = telemetry.connections_total.labels(name)
        self._open = telemetry.connections_open.labels(name)
        self._in = telemetry.messages.labels(name, "in")
        self._out = telemetry.messages.labels(name, "out")
        self._refusals: dict[str, Any] = {}
        self.received = 0
        self.sent = 0

    def flush(self) -> None:
        """Add the messages counted since the last flush to ``gamehub_messages``."""
        received, sent = self.received, self.sent
        self.received = self.sent = 0
        if received:
            self._in.inc(received)
        if sent:
            self._out.inc(sent)

    def opened(self) -> None:
        """A connection was accepted."""
        self._opened.inc()
        self._open.inc()

    def closed(self) -> None:
        """A connection ended."""
        self._open.dec()

    def message_in(self) -> None:
        """One message (frame, line, request) arrived."""
        self.received += 1

    def message_out(self, count: int = 1) -> None:
        """One message (or ``count`` of them) was sent."""
        self.sent += count

    def refused(
        self,
        kind: str,
        reason: str,
        connection: str | None = None,
        game: str | None = None,
        peer: str | None = None,
    ) -> None:
        """Count one refusal (or error: ``kind`` ``internal``) and log it as one event.

        :param kind: a short, bounded name: a status code (``429``), ``protocol``,
            ``timeout``, ``banned``...
        :param reason: the sentence the client was told (never a secret).
        """
        counter = self._refusals.get(kind)
        if counter is None:
            counter = self._refusals[kind] = self._telemetry.refusals.labels(self.name, kind)
        counter.inc()
        refusal_log.info(
            "{frontend} {connection} refused ({kind}): {reason}",
            frontend=self.name,
            connection=connection or "-",
            game=game,
            kind=kind,
            reason=reason,
            peer=peer,
        )


class Telemetry:
    """The metrics of one hub (see the module docstring and docs/operations.md).

    :param version: the hub's version, for ``gamehub_info``.
    """

    def __init__(self, version: str = "") -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self._frontends: dict[str, FrontendTelemetry] = {}
        r.register(_Flush(self._frontends))  # first: a scrape flushes, then reads
        self.info = Gauge("gamehub_info", "The hub's version (always 1)", ["version"], registry=r)
        self.info.labels(version or "unknown").set(1)
        self.connections_total = Counter(
            "gamehub_connections", "Connections accepted, per front end", ["frontend"], registry=r
        )
        self.connections_open = Gauge(
            "gamehub_connections_open", "Connections open now, per front end", ["frontend"],
            registry=r,
        )  # fmt: skip
        self.messages = Counter(
            "gamehub_messages",
            "Messages (frames, lines, HTTP requests and responses) per front end and direction",
            ["frontend", "direction"],
            registry=r,
        )
        self.refusals = Counter(
            "gamehub_refusals",
            "Refusals and errors answered by a front end, by kind",
            ["frontend", "kind"],
            registry=r,
        )
        self.logged_errors = Counter(
            "gamehub_logged_errors",
            "Log events at level error or critical, by log namespace",
            ["namespace"],
            registry=r,
        )
        self.games_created = Counter(
            "gamehub_games_created", "Games created, by type", ["type"], registry=r
        )
        self.games_finished = Counter(
            "gamehub_games_finished", "Games played to the end, by type", ["type"], registry=r
        )
        self.bot_think = Histogram(
            "gamehub_bot_think_seconds",
            "Time an in-hub bot took to choose a move, by bot",
            ["bot"],
            buckets=BOT_BUCKETS,
            registry=r,
        )
        self.store_query = Histogram(
            "gamehub_store_query_seconds",
            "Time of one store transaction (queue and database), by operation and outcome",
            ["operation", "outcome"],
            buckets=STORE_BUCKETS,
            registry=r,
        )
        self.ledger_movements = Counter(
            "gamehub_ledger_movements",
            "Ledger movements applied, by kind (replays of a key are not counted)",
            ["kind"],
            registry=r,
        )
        self.ledger_chips = Counter(
            "gamehub_ledger_chips",
            "Chips moved by applied ledger movements (sum of the amounts, unsigned), by kind",
            ["kind"],
            registry=r,
        )
        self.plugin_loads = Counter(
            "gamehub_plugin_loads",
            "Plugins (re)loaded or failed, by kind and status",
            ["kind", "status"],
            registry=r,
        )
        self.admin_actions = Counter(
            "gamehub_admin_actions",
            "Admin actions done through the admin API, by action",
            ["action"],
            registry=r,
        )
        self._operations: dict[Any, str] = {}
        self._live: _LiveFigures | None = None
        self._error_observer: Any = None

    def frontend(self, name: str) -> FrontendTelemetry:
        """The counters of the front end ``name`` (one object per name)."""
        found = self._frontends.get(name)
        if found is None:
            found = self._frontends[name] = FrontendTelemetry(self, name)
        return found

    def follow(self, hub: Any) -> None:
        """Read the hub's own figures at each scrape (games, plugins, the store) and
        count created and finished games, plugin loads and the store's transactions."""
        if self._live is None:
            self._live = _LiveFigures(hub)
            self.registry.register(self._live)
        hub.lobby.add_listener(self)
        hub.lobby.on_game_over(self._game_over)
        hub.registry.add_listener(self._plugin_changed)
        if hub.store is not None:
            hub.store.query_observer = self.store_transaction

    def start(self) -> None:
        """Count the error and critical log events while the hub runs."""
        if self._error_observer is None:
            self._error_observer = _ErrorCounter(self.logged_errors)
            globalLogPublisher.addObserver(self._error_observer)

    def stop(self) -> None:
        """Stop counting log events."""
        if self._error_observer is not None:
            globalLogPublisher.removeObserver(self._error_observer)
            self._error_observer = None

    def exposition(self) -> bytes:
        """Every metric in the Prometheus text format."""
        return generate_latest(self.registry)

    # -- what the hub reports ----------------------------------------------------------

    def lobby_changed(self, change: str, game: Any) -> None:
        """(:class:`hub.interfaces.ILobbyListener`) count created games."""
        if change == "created":
            self.games_created.labels(game.type).inc()

    def _game_over(self, game: Any, event: Any) -> None:
        self.games_finished.labels(game.type).inc()

    def _plugin_changed(self, change: str, record: Any) -> None:
        if change in ("added", "changed"):
            self.plugin_loads.labels(record.kind, record.status).inc()

    def store_transaction(self, fn: Any, seconds: float, ok: bool, result: Any) -> None:
        """(The store's ``query_observer``.)  The transaction function ``fn`` took
        ``seconds``; an applied ledger movement is counted by kind."""
        code = getattr(fn, "__code__", fn)
        operation = self._operations.get(code)
        if operation is None:
            operation = self._operations[code] = operation_name(fn)
        self.store_query.labels(operation, "ok" if ok else "error").observe(seconds)
        if not ok:
            return
        movements = result if isinstance(result, list) else [result]
        for movement in movements:
            if not isinstance(movement, Movement) or not movement.applied:
                continue
            self.ledger_movements.labels(movement.kind).inc()
            moved = sum((abs(Decimal(v)) for v in movement.amounts.values()), Decimal(0))
            self.ledger_chips.labels(movement.kind).inc(float(moved))

    def timed_bots(self, runner: Callable[..., Any]) -> Callable[..., Any]:
        """A bot runner (:func:`hub.play.lobby.thread_runner`) that times each choice."""
        histogram = self.bot_think

        def run(function: Callable[..., Any], *args: Any) -> Any:
            owner = getattr(function, "__self__", None)
            child = histogram.labels(type(owner).__name__ if owner is not None else "bot")

            def timed(*inner: Any) -> Any:
                started = time.perf_counter()
                try:
                    return function(*inner)
                finally:
                    child.observe(time.perf_counter() - started)

            return runner(timed, *args)

        return run


def operation_name(fn: Any) -> str:
    """The store method a transaction function belongs to: ``create_account`` for
    ``Store.create_account.<locals>.txn`` (bounded: method names)."""
    qualname = str(getattr(fn, "__qualname__", "") or "")
    parts = [p for p in qualname.split(".") if p and not p.startswith("<")]
    if len(parts) >= 2 and parts[-1] in ("txn", "work"):
        parts.pop()
    return parts[-1] if parts else "query"


@implementer(ILogObserver)
class _ErrorCounter:
    """Counts log events at level error or critical by namespace."""

    def __init__(self, counter: Counter) -> None:
        self._counter = counter

    def __call__(self, event: dict[str, Any]) -> None:
        level = event.get("log_level")
        if level in (LogLevel.error, LogLevel.critical):
            namespace = str(event.get("log_namespace", "?")).split(".")[0:2]
            self._counter.labels(".".join(namespace)).inc()


class _Flush:
    """Adds each front end's plain message counts to ``gamehub_messages`` when the
    registry is collected (registered first, so the counters are read after); it has
    no metrics of its own."""

    def __init__(self, frontends: dict[str, FrontendTelemetry]) -> None:
        self._frontends = frontends

    def describe(self) -> list[Any]:
        """No metrics."""
        return []

    def collect(self) -> Iterator[Any]:
        """Flush every front end's counts; yields nothing."""
        for frontend in list(self._frontends.values()):
            frontend.flush()
        return iter(())


class _LiveFigures:
    """The figures the hub keeps anyway, read at each scrape."""

    def __init__(self, hub: Any) -> None:
        self._hub = hub

    def describe(self) -> list[Any]:
        """Nothing to describe ahead (the families are built at each scrape)."""
        return []

    def collect(self) -> Iterator[Any]:
        """Games by type and state, plugins by kind and status, the store's state."""
        hub = self._hub
        games = GaugeMetricFamily(
            "gamehub_games", "Games in the lobby, by type and state", labels=["type", "state"]
        )
        counts: dict[tuple[str, str], int] = {}
        for game in hub.lobby.games():
            key = (str(game.type), str(game.state))
            counts[key] = counts.get(key, 0) + 1
        for (kind, state), n in sorted(counts.items()):
            games.add_metric([kind, state], n)
        yield games
        plugins = GaugeMetricFamily(
            "gamehub_plugins", "Plugins known to the hub, by kind and status",
            labels=["kind", "status"],
        )  # fmt: skip
        by_status: dict[tuple[str, str], int] = {}
        for record in hub.registry.plugins():
            key = (str(record.kind), str(record.status))
            by_status[key] = by_status.get(key, 0) + 1
        for (kind, status), n in sorted(by_status.items()):
            plugins.add_metric([kind, status], n)
        yield plugins
        store = hub.store
        up = GaugeMetricFamily(
            "gamehub_store_up", "1 while the store answers, 0 while it is unavailable"
        )
        if store is not None:
            up.add_metric([], 1 if store.available else 0)
        yield up
        money = hub.money
        paused = GaugeMetricFamily(
            "gamehub_tables_paused", "Chip tables paused while the store is unavailable"
        )
        if money is not None:
            paused.add_metric([], money.paused_tables())
        yield paused


#: a hub's telemetry for front ends used without a hub service (unit tests)
DETACHED = Telemetry()


class MetricsResource(Resource):
    """``/metrics``: every metric of ``telemetry`` in the Prometheus text format.

    :param check: ``check(request)`` raises :class:`hub.model.GameError` (401 or 403,
        as every route of the web front end: :class:`hub.connections.access.Caller`) for a reader
        who may not read them (``None``: anyone, the metrics endpoint of its own).
    """

    isLeaf = True

    def __init__(self, telemetry: Telemetry, check: Callable[[Any], None] | None = None):
        super().__init__()
        self.telemetry = telemetry
        self.check = check

    def render_GET(self, request: Any) -> bytes:
        """The exposition, or 401/403 for a reader who is not allowed."""
        if self.check is not None:
            try:
                self.check(request)
            except GameError as e:
                request.setResponseCode(e.code)
                request.setHeader(b"content-type", b"text/plain; charset=utf-8")
                request.setHeader(b"cache-control", b"no-store")
                if e.code == 401:
                    challenge(request)
                return e.reason.encode("utf-8") + b"\n"
        request.setHeader(b"content-type", CONTENT_TYPE.encode("ascii"))
        request.setHeader(b"cache-control", b"no-store")
        return self.telemetry.exposition()
