"""The domino front end: the line protocol of the course's King Domino server.

See ``domino-protocol.md``.  :mod:`.codec` holds the framing and parsing (no I/O),
:mod:`.protocol` the receiver and the factory that queues players and forms games.
"""

from __future__ import annotations

from zope.interface import moduleProvides

from hub.interfaces import IFrontend, IHub

from .protocol import DominoFactory, DominoProtocol

moduleProvides(IFrontend)


def make_factory(hub: IHub) -> DominoFactory:
    """The protocol factory for ``hub`` (an :class:`hub.interfaces.IHub`)."""
    return DominoFactory(
        hub.lobby, hub.reactor, dict(hub.options), hub.place, routes=hub.routes, seating=hub
    )


__all__ = ["DominoFactory", "DominoProtocol", "make_factory"]
