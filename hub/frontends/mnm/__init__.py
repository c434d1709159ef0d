"""The MNM front end: the course's line protocol for two-player board games.

``make_factory(hub)`` returns the protocol factory the hub listens with (default port
1357).  The wire format lives in :mod:`.codec`, the connection in :mod:`.protocol`,
its timers (places in queues one sweep checks, not a timer a connection) in :mod:`.timers`;
a game is served when its factory's ``adapter("mnm")`` provides
:class:`hub.interfaces.IMNMGameAdapter`.

Settings (``hub.options``): ``mnm_version`` (banner version, default ``3.1``),
``mnm_announcement``, ``mnm_prolog_timeout``, ``mnm_wait_interval`` and
``mnm_wait_timeout`` (seconds); ``timeout_granularity`` (seconds between the sweeps
of the prolog deadlines: a silent client is closed at most that long after its
``mnm_prolog_timeout``; a ``WAIT`` and the wait for its answer are swept every
50 ms).
"""

from __future__ import annotations

from zope.interface import moduleProvides

from hub.interfaces import IFrontend, IHub

from .protocol import MNMFactory, MNMProtocol

moduleProvides(IFrontend)


def make_factory(hub: IHub) -> MNMFactory:
    """The protocol factory for ``hub`` (an :class:`hub.interfaces.IHub`)."""
    return MNMFactory(hub)


__all__ = ["MNMFactory", "MNMProtocol", "make_factory"]
