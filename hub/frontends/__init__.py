"""Gamehub front ends: one codec + protocol per wire format.

:data:`FRONTENDS` maps each front end's name to its default endpoint and its module.
A front end module provides :class:`hub.interfaces.IFrontend` (``make_factory(hub) ->
IProtocolFactory``) and may provide :class:`hub.interfaces.IHTTPResources` (resources
the web front end mounts for it, as the XML front end's ``/schema``); it declares both
with ``zope.interface.moduleProvides``.  No front end imports another.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.tcp import Server as _TCP_SERVER

#: name → (default endpoint, module with make_factory), in the order they are started.
FRONTENDS: dict[str, tuple[str, str]] = {
    "xml": ("tcp:4000", "hub.frontends.xml"),
    "mnm": ("tcp:1357", "hub.frontends.mnm"),
    "domino": ("tcp:7000", "hub.frontends.domino"),
    "web": ("tcp:8080", "hub.frontends.web"),
    "acpc": ("tcp:18791:interface=127.0.0.1", "hub.frontends.acpc"),
}


def no_delay(transport: object) -> None:
    """Switch Nagle's algorithm off on a TCP transport (TLS wrappers pass it on): a line
    or frame protocol sends small answers and must not wait ~40 ms for an ACK each."""
    set_no_delay = getattr(transport, "setTcpNoDelay", None)  # not every transport is TCP
    if set_no_delay is not None:
        set_no_delay(True)


def write_now(transport: Any, data: bytes) -> None:
    """``transport.write(data)``, sent at once when it can be: on a plain TCP
    connection with nothing waiting to be sent, the bytes go to the socket now (as
    asyncio's transports do), instead of waiting for the reactor's next turn, which
    costs two ``epoll_ctl`` calls and a wake-up for each write.  What the socket does
    not take, and every other case (TLS, a buffer not yet empty, a pull producer, a
    connection closing, an error), goes through ``transport.write`` as before, so the
    bytes keep their order, a streaming producer (the XML session) is paused when the
    buffer fills, and errors are found and reported where Twisted finds them.
    """
    if (
        type(transport) is _TCP_SERVER
        and not transport.dataBuffer
        and not transport._tempDataLen
        and transport.connected
        and not transport.disconnecting
        and not transport._writeDisconnected
        and (transport.producer is None or transport.streamingProducer)
    ):
        try:
            sent = transport.socket.send(data)
        except OSError:  # a full socket, a signal, or the connection's error, which
            sent = 0  # transport.write meets again and reports as Twisted does
        if sent < len(data):
            transport.write(data[sent:])
        return
    transport.write(data)
