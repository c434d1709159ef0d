"""Writing to a connection's socket: what the line and frame front ends and a
cluster's door share (:func:`no_delay`, :func:`write_now`)."""

from __future__ import annotations

from typing import Any

from twisted.internet.tcp import Client as _TCP_CLIENT
from twisted.internet.tcp import Server as _TCP_SERVER

#: the transports whose socket :func:`write_now` may write to directly
_PLAIN_TCP = (_TCP_SERVER, _TCP_CLIENT)


def no_delay(transport: object) -> None:
    """Switch Nagle's algorithm off on a TCP transport (TLS wrappers pass it on): a line
    or frame protocol sends small answers and must not wait ~40 ms for an ACK each."""
    set_no_delay = getattr(transport, "setTcpNoDelay", None)  # not every transport is TCP
    if set_no_delay is not None:
        set_no_delay(True)


def write_now(transport: Any, data: bytes) -> None:
    """``transport.write(data)``, sent at once when it can be: on a plain TCP
    connection (accepted or made: a door's splice writes to both) with nothing waiting to be sent, the bytes go to the socket now (as
    asyncio's transports do), instead of waiting for the reactor's next turn, which
    costs two ``epoll_ctl`` calls and a wake-up for each write.  What the socket does
    not take, and every other case (TLS, a buffer not yet empty, a pull producer, a
    connection closing, an error), goes through ``transport.write`` as before, so the
    bytes keep their order, a streaming producer (the XML session) is paused when the
    buffer fills, and errors are found and reported where Twisted finds them.
    """
    if (
        type(transport) in _PLAIN_TCP
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


__all__ = ["no_delay", "write_now"]
