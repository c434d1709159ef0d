"""The relay front end: the hub as an untrusted meeting place for tables whose peers
play among themselves (docs/p2p.md).

:mod:`.codec` reads and writes the frames (no I/O), :mod:`.states` is the life of a
connection as data, :mod:`.protocol` the receiver and the factory that keeps the
tables and passes their frames on.
"""

from __future__ import annotations

from zope.interface import moduleProvides

from hub.interfaces import IFrontend, IHub

from .protocol import RelayFactory, RelayProtocol

moduleProvides(IFrontend)


def make_factory(hub: IHub) -> RelayFactory:
    """The protocol factory for ``hub`` (an :class:`hub.interfaces.IHub`)."""
    return RelayFactory(hub)


__all__ = ["RelayFactory", "RelayProtocol", "make_factory"]
