"""``/metrics`` on an endpoint of its own (setting ``metrics_endpoint``), and the error
a hub that cannot start raises (:class:`StartError`)."""

from __future__ import annotations

from typing import Any, Protocol

from twisted.application.service import Service
from twisted.internet import defer
from twisted.internet.endpoints import serverFromString
from twisted.logger import Logger

from hub.ops.telemetry import Telemetry


class StartError(Exception):
    """The hub cannot start; the message is the one line an operator reads."""


class MetricsHub(Protocol):
    """What :class:`MetricsService` needs of the hub."""

    reactor: Any
    telemetry: Telemetry


class MetricsService(Service):
    """``/metrics`` on an endpoint of its own (setting ``metrics_endpoint``), for a
    Prometheus server on a private network: no token asked, so bind it to an interface
    only the scraper reaches (``tcp:9464:interface=127.0.0.1``)."""

    log = Logger()

    def __init__(self, hub_service: MetricsHub, description: str) -> None:
        self.setName("metrics")
        self.hub = hub_service
        self.description = description
        self.port: Any = None

    def startService(self) -> defer.Deferred:
        """Listen; logs the port bound."""
        from twisted.web.resource import Resource
        from twisted.web.server import Site

        from hub.ops.telemetry import MetricsResource

        Service.startService(self)
        root = Resource()
        root.putChild(b"metrics", MetricsResource(self.hub.telemetry))
        site = Site(root, reactor=self.hub.reactor)
        site.displayTracebacks = False
        d = serverFromString(self.hub.reactor, self.description).listen(site)

        def listening(port: Any) -> None:
            self.port = port
            address = port.getHost()
            self.log.info(
                "gamehub metrics listening on {host}:{port} ({description})",
                host=getattr(address, "host", "?"),
                port=getattr(address, "port", None),
                description=self.description,
            )

        def failed(failure: Any) -> None:
            raise StartError(
                f"metrics cannot listen on {self.description}: {failure.getErrorMessage()}"
            )

        return d.addCallbacks(listening, failed)

    def stopService(self) -> defer.Deferred | None:
        """Stop listening."""
        Service.stopService(self)
        port, self.port = self.port, None
        return None if port is None else defer.maybeDeferred(port.stopListening)
