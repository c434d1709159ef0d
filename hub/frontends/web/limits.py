"""HTTP plumbing of the web front end: limits enforced before any resource runs.

- **Body size** from ``Content-Length`` as soon as the headers are in, before a byte of
  the body is read (twisted.web would otherwise spool a large body to a temporary
  file); chunked bodies are counted as they arrive.  Bodies are kept in memory only.
- **Slow clients**: the request line and headers must arrive within
  ``web_header_timeout`` seconds of their first byte, the body within
  ``web_body_timeout`` seconds of the headers; an idle keep-alive connection closes
  after ``web_idle_timeout``.
- **Connections**: at most ``web_max_per_address`` from one client address and
  ``web_max_connections`` in all; the others get 503 and are closed.
- **Methods**: a method a resource does not take is answered 405 with its ``Allow``
  list, whatever the method (twisted.web answers 501 for a method other than GET, HEAD
  or POST, which reads as a server fault).
- **Host allow-list** (DNS rebinding): a request whose ``Host`` is not a loopback
  name, an address of this connection's own end, a name of the web endpoint or one
  of ``web_allowed_hosts`` gets 400 before anything runs.

Refusals are written straight to the connection, which is then closed.
"""

from __future__ import annotations

import io
import ipaddress
import json
import re
import socket
from collections import Counter
from collections.abc import Iterable
from typing import Any, cast

from twisted.internet.protocol import connectionDone
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.web.http import HTTPChannel
from twisted.web.pages import errorPage
from twisted.web.server import Request, UnsupportedMethod, supportedMethods

from hub.interfaces import IHub

REASONS = {
    400: b"Bad Request",
    408: b"Request Timeout",
    413: b"Payload Too Large",
    503: b"Service Unavailable",
}
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def canned(status: int, message: str) -> bytes:
    """A whole HTTP/1.1 response (JSON error body) that closes the connection."""
    body = json.dumps({"error": message}).encode() + b"\n"
    return (
        b"HTTP/1.1 %d %s\r\nContent-Type: application/json; charset=utf-8\r\n"
        b"Content-Length: %d\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n"
        % (status, REASONS.get(status, b"Error"), len(body))
    ) + body


class _Discard(io.BytesIO):
    """Where the body of a refused request goes: nowhere."""

    def write(self, data: Any) -> int:  # noqa: D102
        return len(data)


def host_name(header: bytes | None) -> str | None:
    """The host part of a ``Host`` header (no port, no brackets, lower case)."""
    if not header:
        return None
    text = header.decode("latin-1").strip().lower()
    if text.startswith("["):
        return text[1 : text.find("]")] if "]" in text else text[1:]
    if text.count(":") == 1:
        text = text.split(":", 1)[0]
    return text.rstrip(".")


#: ``Host`` answers a :class:`HostPolicy` remembers
HOSTS_KEPT = 1024


class HostPolicy:
    """Which ``Host`` names a request may carry.

    :param allowed: extra names from ``web_allowed_hosts`` (``*`` allows any).
    :param endpoint_names: names and addresses the web endpoint is bound to
        (``interface=`` of its description); a wildcard address adds this machine's
        host name.
    """

    def __init__(self, allowed: Iterable[str] = (), endpoint_names: Iterable[str] = ()) -> None:
        self._answers: dict[tuple[str | None, str | None], bool] = {}
        #: (``Host`` header, own address) → allowed: :meth:`allows_header`'s answers
        self.known: dict[tuple[bytes | None, str | None], bool] = {}
        bound = [n.strip().lower().rstrip(".") for n in endpoint_names]
        names = {n.strip().lower().rstrip(".") for n in allowed if n.strip()} | set(bound)
        self.any = "*" in names
        self.wildcard = not bound or bool(set(bound) & {"0.0.0.0", "::", ""})
        if self.wildcard:
            names.add(socket.gethostname().lower())
        self.names = frozenset(names | LOOPBACK_NAMES)

    def allows_header(self, header: bytes | None, local: str | None) -> bool:
        """:meth:`allows` for a ``Host`` header as it came (its answer remembered by the
        header's bytes, at most :data:`HOSTS_KEPT`: a request's check is one look-up,
        with no parsing)."""
        key = (header, local)
        known = self.known.get(key)
        if known is None:
            if len(self.known) >= HOSTS_KEPT:
                self.known.clear()
            known = self.known[key] = self.allows(host_name(header), local)
        return known

    def allows(self, host: str | None, local: str | None) -> bool:
        """Whether ``host`` (from the ``Host`` header) may be served on a connection
        whose own end is the address ``local`` (the answers are remembered, at most
        :data:`HOSTS_KEPT`: a request's check is then one look-up)."""
        key = (host, local)
        known = self._answers.get(key)
        if known is None:
            if len(self._answers) >= HOSTS_KEPT:
                self._answers.clear()
            known = self._answers[key] = self._allows(host, local)
        return known

    def _allows(self, host: str | None, local: str | None) -> bool:
        if self.any or host is None:
            return True  # no Host header: not a browser, so no rebinding
        if host in self.names or host.endswith(".localhost"):
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return address.is_loopback or host == local or (self.wildcard and local is None)


def web_endpoint(hub: IHub) -> str:
    """The endpoint description of ``hub``'s web front end ("" if unknown)."""
    description = str(hub.endpoints.get("web", ""))
    return "" if description == "none" else description


def endpoint_names(description: str) -> list[str]:
    """The ``interface=`` of an endpoint description (``0.0.0.0`` when none)."""
    for part in description.split(":")[1:]:
        if part.startswith("interface="):
            return [part[len("interface=") :].replace("\\", "")]
    return ["0.0.0.0"]


class GuardedRequest(Request):
    """A request that checks its ``Host`` and body size as soon as its headers are in."""

    channel: GuardedChannel
    content: Any

    #: the reason of an error answer (:func:`~.api.send_error`), for the refusal event
    refusal: str | None = None
    #: refused as its headers came in (its connection is closing)
    refused = False
    #: bytes of a chunked body so far
    _received = 0

    def gotLength(self, length: int | None) -> None:
        """Headers are in: refuse a foreign ``Host`` or a body over the limit now."""
        limits = self.channel.limits
        local = self.channel.local_host
        header = self.requestHeaders.getRawHeaders(b"host", [b""])[0]
        hosts = limits.hosts
        allowed = hosts.known.get((header, local))  # the usual case: one look-up
        if allowed is None:
            allowed = hosts.allows_header(header, local)
        if not allowed:
            self._refuse(400, "this server does not answer for that host name")
        elif length is not None and length > limits.max_body:
            self._refuse(413, f"the body is larger than {limits.max_body} bytes")
        else:
            self.content = io.BytesIO()

    def handleContentChunk(self, data: bytes) -> None:
        """Keep the body in memory; refuse a chunked body that grows over the limit."""
        if self.refused:
            return
        self._received += len(data)
        if self._received > self.channel.limits.max_body:
            self._refuse(413, f"the body is larger than {self.channel.limits.max_body} bytes")
            return
        self.content.write(data)

    def _refuse(self, status: int, message: str) -> None:
        self.refused = True
        self.content = _Discard()
        self.channel.refuse(status, message)

    def render(self, resrc: Any) -> None:
        """Render ``resrc``; a method it does not take is 405 with its ``Allow`` list."""
        Request.render(self, resrc if self.method in supportedMethods else _MethodGuard(resrc))

    def process(self) -> None:
        """Serve the request, unless it was refused (its connection is closing)."""
        if self.refused:
            return
        self.channel.site.telemetry.message_in()
        Request.process(self)


class _MethodGuard:
    """A resource as twisted.web renders it, with ``UnsupportedMethod`` answered 405
    (for the methods twisted.web itself would answer 501: PUT, DELETE, unknown ones)."""

    def __init__(self, resource: Any) -> None:
        self.resource = resource

    def render(self, request: Any) -> Any:
        try:
            return self.resource.render(request)
        except UnsupportedMethod as error:
            methods: list[bytes] = list(error.allowedMethods)
            allowed = sorted(m.decode("ascii", "replace") for m in methods)
            request.setHeader(b"allow", ", ".join(allowed).encode())
            text = f"This address takes {', '.join(allowed) or 'no method'}."
            return errorPage(405, "Method Not Allowed", text).render(request)


#: what a connection's deadlines wait for (:meth:`GuardedChannel._expect`)
HEADERS = "the request headers"
BODY = "the body"
#: bytes no header value may hold (tab is allowed)
_CONTROL = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")
#: the same but for the line ends: bytes that make a request's header lines suspect
_SUSPECT = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class GuardedChannel(HTTPChannel):
    """An HTTP connection with deadlines for headers and body (slowloris)."""

    limits: WebLimits
    site: Any
    log = Logger()

    def __init__(self) -> None:
        super().__init__()
        #: the one timer of this connection's deadlines (moved, not remade, per request)
        self._deadline: Any = None
        #: what the connection waits for against :attr:`_deadline` (``None``: nothing)
        self._waiting_for: str | None = None
        self._refused = False
        #: (own address, the client's): a connection's, read when it is made
        self._addresses: tuple[Any, Any] | None = None
        self.peer_host = ""
        self.local_host: str | None = None

    def connectionMade(self) -> None:
        """Read the connection's addresses; start the clock for the first request line."""
        super().connectionMade()
        transport: Any = self.transport
        self._addresses = (transport.getHost(), transport.getPeer())
        #: the address of this connection's own end (the ``Host`` check's)
        self.local_host = getattr(self._addresses[0], "host", None)  # foreign: an IAddress
        self._expect(HEADERS, self.limits.header_timeout)

    def getHost(self) -> Any:
        """This connection's own address, read once (each request asks: twisted.web's
        channel asks the socket, a system call, every time)."""
        return self._addresses[0] if self._addresses else super().getHost()

    def getPeer(self) -> Any:
        """The client's address, read once (see :meth:`getHost`)."""
        return self._addresses[1] if self._addresses else super().getPeer()

    def dataReceived(self, data: bytes) -> None:
        """Bytes of a request (a refused connection reads no more).  Where header lines
        may be among them (line mode), one scan of the bytes says whether any could
        break the header rules (:meth:`_checked_header`); only then are this
        connection's header lines checked one by one, from here on."""
        if self._refused:
            return
        if self.line_mode and (not data.isascii() or _SUSPECT.search(data) is not None):
            self.headerReceived = self._checked_header  # type: ignore[method-assign]
        if self._waiting_for is None and not self._handlingRequest:
            timer = self._deadline
            if timer is not None and timer.active():  # as _expect(HEADERS, ...), inline
                self._waiting_for = HEADERS
                timer.reset(self.limits.header_timeout)
            else:
                self._expect(HEADERS, self.limits.header_timeout)
        HTTPChannel.dataReceived(self, data)

    def _expect(self, what: str | None, seconds: float = 0.0) -> None:
        """Wait for ``what`` (:data:`HEADERS` or :data:`BODY`) for at most ``seconds``;
        ``None``: wait for nothing.  One timer serves every deadline of the connection:
        a new deadline moves it (a later time costs an attribute, where a new timer and
        a cancelled one per request cost the reactor's heap twice); a deadline that
        ends leaves it running, and when it fires with nothing awaited it goes."""
        self._waiting_for = what
        if what is None:
            return
        timer = self._deadline
        if timer is not None and timer.active():
            timer.reset(seconds)
        else:
            self._deadline = self.callLater(seconds, self._expired)

    def _expired(self) -> None:
        self._deadline = None
        what, self._waiting_for = self._waiting_for, None
        if what is None:
            return
        timeout = self.limits.header_timeout if what == HEADERS else self.limits.body_timeout
        self.refuse(408, f"{what} did not arrive within {timeout:g} seconds")

    def _checked_header(self, line: bytes) -> bool:
        """(``headerReceived`` of a connection that sent bytes a header must not hold:
        see :meth:`dataReceived`.)  One header line; one whose value holds a control
        character, or a ``Content-Type`` that is not printable ASCII, is a bad request
        (Twisted's own parsing of such a ``Content-Type`` raises: an unhandled error,
        no answer)."""
        name, _, value = line.partition(b":")
        if _CONTROL.search(value) or (
            name.strip().lower() == b"content-type" and not value.isascii()
        ):
            self._respondToBadRequestAndDisconnect()
            return False
        return HTTPChannel.headerReceived(self, line)

    def allHeadersReceived(self) -> None:
        """The headers are in: their deadline ends, the body's starts."""
        if self.length != 0:
            self._expect(BODY, self.limits.body_timeout)
        else:
            self._waiting_for = None  # as _expect(None)
        HTTPChannel.allHeadersReceived(self)

    def allContentReceived(self) -> None:
        """The whole request is in."""
        self._waiting_for = None  # as _expect(None)
        HTTPChannel.allContentReceived(self)

    def refuse(self, status: int, message: str) -> None:
        """Answer ``status`` at once and close (stop reading; abort if not drained)."""
        if self._refused or self.transport is None:
            return
        self._refused = True
        self._stop_deadline()
        self.site.telemetry.refused(
            str(status), f"{message}; closing", f"http:{self.peer_host}", peer=self.peer_host
        )
        self.transport.write(canned(status, message))
        self.setTimeout(None)
        self.timeoutConnection()

    def _stop_deadline(self) -> None:
        self._waiting_for = None
        timer, self._deadline = self._deadline, None
        if timer is not None and timer.active():
            timer.cancel()

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        """Forget the connection."""
        self._stop_deadline()
        if self._abortingCall is not None and self._abortingCall.active():
            self._abortingCall.cancel()
        self._abortingCall = None
        super().connectionLost(reason)
        self.limits.closed(self)


class _Refusal(GuardedChannel):
    """A connection over a cap: 503 and close."""

    def connectionMade(self) -> None:
        """Refuse at once."""
        HTTPChannel.connectionMade(self)
        self.refuse(503, "too many connections; try again later")


class WebLimits:
    """The HTTP limits of one web front end (settings in ``hub.options``) and its
    connection counts."""

    def __init__(self, options: Any, endpoint: str = "") -> None:
        self.max_body = int(options.get("web_max_body", 65536))
        self.header_timeout = float(options.get("web_header_timeout", 10))
        self.body_timeout = float(options.get("web_body_timeout", 30))
        self.idle_timeout = float(options.get("web_idle_timeout", 60))
        self.max_per_address = int(options.get("web_max_per_address", 256))
        self.max_connections = int(options.get("web_max_connections", 4096))
        allowed = str(options.get("web_allowed_hosts", "") or "").split(",")
        self.hosts = HostPolicy(allowed, endpoint_names(endpoint) if endpoint else [])
        self.per_address: Counter[str] = Counter()
        self.connections = 0

    def channel(self, site: Any, host: str) -> GuardedChannel:
        """The channel of a new connection from ``host`` to ``site`` (counted); one
        that refuses itself over a cap."""
        over = (
            self.per_address[host] >= self.max_per_address
            or self.connections >= self.max_connections
        )
        self.per_address[host] += 1
        self.connections += 1
        site.telemetry.opened()
        channel = _Refusal() if over else GuardedChannel()
        channel.limits = self
        channel.peer_host = host
        channel.factory = site
        channel.site = site
        channel.requestFactory = site.requestFactory
        channel.callLater = site.reactor.callLater  # type: ignore[method-assign]
        channel.timeOut = cast(Any, self.idle_timeout)
        return channel

    def closed(self, channel: GuardedChannel) -> None:
        """A connection from ``channel.peer_host`` is gone."""
        channel.site.telemetry.closed()
        self.connections -= 1
        self.per_address[channel.peer_host] -= 1
        if self.per_address[channel.peer_host] <= 0:
            del self.per_address[channel.peer_host]
