"""Publishes the XML protocol's schemas over HTTP: ``/schema/message.xsd`` and each
game's payload schema (``/schema/<name>.xsd``, :func:`.adapters.published_schemas`)."""

from __future__ import annotations

import hashlib
from typing import Any

from twisted.web import resource
from twisted.web.pages import notFound
from twisted.web.static import Data

from .adapters import published_schemas


class SchemaResource(resource.Resource):
    """``/schema/<name>.xsd``: the published schema files (``application/xml``), as the
    loaded game types declare them now.

    :param registry: the hub's plugin registry (``game_types()``).
    """

    def __init__(self, registry: Any) -> None:
        super().__init__()
        self._registry = registry

    def getChild(self, path: bytes, request) -> resource.IResource:  # noqa: N802
        """A published schema file, or 404."""
        data = published_schemas(self._registry).get(path.decode("utf-8", "replace"))
        if data is None or request.postpath:
            return notFound("No such schema", "Only the schemas listed at /schema are published.")
        child = _Schema(data, "application/xml; charset=utf-8")
        child.etag = hashlib.sha256(data).hexdigest()
        return child

    def render_GET(self, request) -> bytes:  # noqa: N802
        """The index: the schema names, one a line."""
        request.setHeader(b"content-type", b"text/plain; charset=utf-8")
        return "".join(f"{name}\n" for name in sorted(published_schemas(self._registry))).encode()


class _Schema(Data):
    etag = ""
    isLeaf = True

    def render_GET(self, request) -> bytes:  # noqa: N802
        request.setHeader(b"etag", f'"{self.etag}"'.encode())
        return super().render_GET(request)
