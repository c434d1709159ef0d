"""The web front end: JSON API, plugin downloads, schemas and the browser pages."""

from __future__ import annotations

from twisted.web.resource import Resource
from twisted.web.server import Site

from hub.distribution import PluginsResource
from hub.frontends.xml import schema_resource

from .api import API

INDEX = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gamehub</title></head>
<body><h1>Gamehub</h1>
<p>The JSON API: <a href="/api/health">/api/health</a>, <a href="/api/games">/api/games</a>.</p>
</body></html>
"""


class Root(Resource):
    """``/``: the pages, with ``/api`` and the other trees mounted below."""

    def __init__(self, hub) -> None:
        super().__init__()
        self.hub = hub
        self.putChild(b"api", API(hub))
        self.putChild(b"plugins", PluginsResource(hub.registry))
        self.putChild(b"schema", schema_resource())
        self.putChild(b"", _Page(INDEX))


class _Page(Resource):
    isLeaf = True

    def __init__(self, body: bytes) -> None:
        super().__init__()
        self.body = body

    def render_GET(self, request) -> bytes:
        request.setHeader(b"content-type", b"text/html; charset=utf-8")
        return self.body


def make_factory(hub) -> Site:
    """The HTTP factory of the web front end of ``hub``."""
    site = Site(Root(hub))
    site.displayTracebacks = False
    return site
