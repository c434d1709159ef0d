"""The XML front end: the seed's length-framed XML lobby and game protocol.

The module provides :class:`hub.interfaces.IFrontend` (``make_factory(hub)``: the
protocol factory the hub listens with) and :class:`hub.interfaces.IHTTPResources`
(``http_resources(hub)``: ``/schema``, the schemas ``message.xsd`` and the games'
payload schemas, which the web front end mounts).  Game adapters use
:mod:`.payload` only.  Nothing heavy is imported until a factory is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zope.interface import moduleProvides

from hub.interfaces import IFrontend, IHTTPResources, IHub

if TYPE_CHECKING:
    from twisted.web.resource import IResource

    from .server import XMLFrontend

moduleProvides(IFrontend, IHTTPResources)


def make_factory(hub: IHub) -> XMLFrontend:
    """The XML front end's protocol factory for ``hub`` (an :class:`hub.interfaces.IHub`)."""
    from .server import XMLFrontend

    return XMLFrontend(hub)


def http_resources(hub: IHub, access: Any = None) -> list[tuple[bytes, IResource]]:
    """``/schema``: the published schemas of ``hub``'s game types (public: ``access``
    is not needed)."""
    from .web import SchemaResource

    return [(b"schema", SchemaResource(hub.registry))]


__all__ = ["http_resources", "make_factory"]
