"""The domino front end: the line protocol of the course's King Domino server.

See ``domino-protocol.md``.  :mod:`.codec` holds the framing and parsing (no I/O),
:mod:`.protocol` the receiver and the factory that queues players and forms games.
"""

from __future__ import annotations

from typing import Any

from zope.interface import moduleProvides

from hub.interfaces import IFrontend

from .protocol import DominoFactory, DominoProtocol

moduleProvides(IFrontend)


def make_factory(hub: Any) -> DominoFactory:
    """The protocol factory for ``hub`` (a :class:`hub.service.HubService`)."""
    return DominoFactory(hub.lobby, hub.reactor, dict(getattr(hub, "options", {}) or {}))


__all__ = ["DominoFactory", "DominoProtocol", "make_factory"]
