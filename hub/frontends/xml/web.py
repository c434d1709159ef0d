"""Publishes the XML protocol's schemas over HTTP (``/schema/message.xsd``, ``/schema/texas.xsd``)."""

from __future__ import annotations

import hashlib

from twisted.web import resource
from twisted.web.pages import notFound
from twisted.web.static import Data

from . import codec

SCHEMAS = ("message.xsd", "texas.xsd")


class SchemaResource(resource.Resource):
    """``/schema/<name>.xsd``: the published schema files (``application/xml``)."""

    def __init__(self) -> None:
        super().__init__()
        for name in SCHEMAS:
            data = codec.schema_bytes(name)
            child = _Schema(data, "application/xml; charset=utf-8")
            child.etag = hashlib.sha256(data).hexdigest()
            self.putChild(name.encode(), child)

    def getChild(self, path: bytes, request) -> resource.IResource:  # noqa: N802
        """Anything but the schema files: 404."""
        return notFound("No such schema", "Only message.xsd and texas.xsd are published.")

    def render_GET(self, request) -> bytes:  # noqa: N802
        """The index: the schema names, one a line."""
        request.setHeader(b"content-type", b"text/plain; charset=utf-8")
        return "".join(f"{name}\n" for name in SCHEMAS).encode()


class _Schema(Data):
    etag = ""

    def render_GET(self, request) -> bytes:  # noqa: N802
        request.setHeader(b"etag", f'"{self.etag}"'.encode())
        return super().render_GET(request)
