"""The XML front end: the seed's length-framed XML lobby and game protocol.

``make_factory(hub)`` gives the protocol factory the hub listens with;
:func:`schema_resource` gives the ``twisted.web`` resource that publishes the schemas
(mounted by the web front end at ``/schema``: ``GET /schema/message.xsd`` and
``GET /schema/texas.xsd``).
"""

from __future__ import annotations

from typing import Any

from .server import XMLFrontend
from .web import SchemaResource


def make_factory(hub: Any) -> XMLFrontend:
    """The XML front end's protocol factory for ``hub`` (a ``hub.service.HubService``)."""
    return XMLFrontend(hub)


def schema_resource() -> SchemaResource:
    """A ``twisted.web`` resource serving ``message.xsd`` and ``texas.xsd``."""
    return SchemaResource()


__all__ = ["SchemaResource", "XMLFrontend", "make_factory", "schema_resource"]
