"""The ACPC front end: programs of the Annual Computer Poker Competition's protocol
(version 2.0.0) play at Gamehub tables unchanged.

See ``acpc-protocol.md`` and ``docs/acpc.md``.  :mod:`.codec` holds the framing and
the parsing (no I/O), :mod:`.states` the connection's life, :mod:`.protocol` the
connection and its factories, :mod:`.match` the matches (one port per program, the
clocks, the log), :mod:`.resources` their HTTP API (``/acpc/matches``).  What a match
state says is the game's business: its adapter (:class:`hub.interfaces.IACPCAdapter`,
``games/poker/acpc.py``).
"""

from __future__ import annotations

import weakref

from twisted.internet.interfaces import IReactorCore
from twisted.web.resource import IResource
from zope.interface import moduleProvides

from hub.connections.access import Access
from hub.interfaces import IFrontend, IHTTPResources, IHub

from .match import Match, Matches
from .protocol import ACPCFactory, ACPCProtocol, SeatFactory
from .resources import MatchesResource

moduleProvides(IFrontend, IHTTPResources)

_MATCHES: weakref.WeakKeyDictionary[IHub, Matches] = weakref.WeakKeyDictionary()


def matches_of(hub: IHub) -> Matches:
    """The matches of ``hub`` (made the first time; the reactor's shutdown ends them:
    the hub's reactor is an ``IReactorCore``, ``MemoryReactorClock`` in tests)."""
    matches = _MATCHES.get(hub)
    if matches is None:
        matches = _MATCHES[hub] = Matches(hub)
        reactor: IReactorCore = hub.reactor
        reactor.addSystemEventTrigger("before", "shutdown", matches.stop)
    return matches


def make_factory(hub: IHub) -> ACPCFactory:
    """The factory of the front end's own port (``--acpc``) for ``hub``."""
    return ACPCFactory(matches_of(hub))


def http_resources(hub: IHub, access: Access | None = None) -> list[tuple[bytes, IResource]]:
    """``/acpc``: the matches' API, checked by the web front end's ``access``."""
    checked = access if access is not None else Access(hub.options)
    return [(b"acpc", MatchesResource(hub, matches_of(hub), checked))]


__all__ = [
    "ACPCFactory",
    "ACPCProtocol",
    "Match",
    "Matches",
    "SeatFactory",
    "http_resources",
    "make_factory",
    "matches_of",
]
