"""Plugin downloads over the web front end.

Mount :class:`PluginsResource` at ``/plugins`` and :class:`PluginIndexResource` at
``/api/plugins``::

    GET /plugins/index.json          every plugin: name, kind, version, status, url, sha256...
    GET /plugins/<name>/<file>       the package of a loaded plugin, or its .meta

No URL is mapped onto the file system: a request names a plugin and one of the two
files the registry offers for it, or it gets 404.  So ``..``, encoded ``..``,
backslashes, NUL bytes and anything else unexpected answer 404, and a package that is
a symbolic link leading outside its folder is never loaded nor served.
"""

from __future__ import annotations

import json
from typing import Any

from twisted.web import http, pages
from twisted.web.resource import IResource, Resource

from hub.interfaces import PluginRegistry
from hub.meta import NAME_RE

#: Where :class:`PluginsResource` is mounted (the index's URLs start with it).
PLUGINS_PATH = "/plugins"

JSON_CONTENT_TYPE = b"application/json; charset=utf-8"


def plugin_index(registry: PluginRegistry, base: str = PLUGINS_PATH) -> dict[str, Any]:
    """The plugin index as a JSON-able mapping ``{"plugins": [...]}``.

    Each entry: ``name``, ``kind``, ``version``, ``summary``, ``frontends``,
    ``status`` (``loaded``/``failed``), ``reason``, ``source``, ``client``, and for a
    loaded plugin ``file``, ``url``, ``size``, ``sha256``, ``meta_url`` and ``signer``
    (``{"name", "key", "trusted"}``, or ``null`` when unsigned) (else ``null``), and
    ``isolated`` (its games run in workers: :mod:`hub.plugins.isolation`).  The
    top level also says whether the hub requires signed plugins.
    """
    entries = []
    for record in registry.plugins():
        loaded = record.loaded
        entries.append(
            {
                "name": record.name,
                "kind": record.kind,
                "version": record.version,
                "summary": record.summary,
                "frontends": list(record.frontends),
                "status": record.status,
                "reason": record.reason,
                "source": record.source,
                "client": record.client,
                "file": record.filename if loaded else None,
                "url": f"{base}/{record.name}/{record.filename}" if loaded else None,
                "size": record.size if loaded else None,
                "sha256": record.sha256 if loaded else None,
                "meta_url": f"{base}/{record.name}/{record.meta_filename}" if loaded else None,
                "signer": record.signer.to_json() if record.signer is not None else None,
                "isolated": record.isolated,
            }
        )
    return {"plugins": entries, "require_signed_plugins": registry.trust.required}


def index_json(registry: PluginRegistry, base: str = PLUGINS_PATH) -> bytes:
    """:func:`plugin_index` as UTF-8 JSON."""
    return json.dumps(plugin_index(registry, base), indent=1, sort_keys=True).encode("utf-8")


def _not_found(request: Any) -> bytes:
    request.setResponseCode(http.NOT_FOUND)
    request.setHeader(b"content-type", b"text/plain; charset=utf-8")
    return b"not found\n"


class PluginIndexResource(Resource):
    """``GET`` → the plugin index as JSON (``/plugins/index.json``, ``/api/plugins``)."""

    isLeaf = True

    def __init__(self, registry: PluginRegistry, base: str = PLUGINS_PATH) -> None:
        super().__init__()
        self._registry = registry
        self._base = base

    def render_GET(self, request: Any) -> bytes:
        """The index, never cached."""
        if request.postpath not in ([], [b""]):
            return _not_found(request)
        body = index_json(self._registry, self._base)
        request.setHeader(b"content-type", JSON_CONTENT_TYPE)
        request.setHeader(b"cache-control", b"no-cache")
        request.setHeader(b"content-length", str(len(body)).encode())
        return body


class PluginFileResource(Resource):
    """``GET`` → one file of one plugin, with ``Content-Length`` and ``ETag``."""

    isLeaf = True

    def __init__(self, registry: PluginRegistry, name: str, filename: str) -> None:
        super().__init__()
        self._registry = registry
        self._name = name
        self._filename = filename

    def render_GET(self, request: Any) -> bytes:
        """The file, or 404; 304 when ``If-None-Match`` already has it."""
        if request.postpath:
            return _not_found(request)
        download = self._registry.download(self._name, self._filename)
        if download is None:
            return _not_found(request)
        request.setHeader(b"content-type", download.content_type.encode())
        request.setHeader(b"x-content-type-options", b"nosniff")
        request.setHeader(
            b"content-disposition", f'attachment; filename="{download.filename}"'.encode()
        )
        if request.setETag(f'"{download.sha256}"'.encode()) == http.CACHED:
            return b""
        request.setHeader(b"content-length", str(len(download.data)).encode())
        return download.data


class PluginsResource(Resource):
    """``/plugins``: ``index.json`` and ``<name>/<file>``; nothing else, no listings."""

    def __init__(self, registry: PluginRegistry, base: str = PLUGINS_PATH) -> None:
        super().__init__()
        self._registry = registry
        self._base = base

    def render_GET(self, request: Any) -> bytes:
        """No listing of ``/plugins`` itself."""
        return _not_found(request)

    def getChild(self, path: bytes, request: Any) -> IResource:
        """``index.json``, or the files of the plugin named ``path``."""
        if path == b"index.json":
            return PluginIndexResource(self._registry, self._base)
        name = _segment(path)
        if name is None or not NAME_RE.match(name) or not request.postpath:
            return pages.notFound()
        filename = _segment(request.postpath[0])
        if filename is None or len(request.postpath) != 1:
            return pages.notFound()
        request.prepath.append(request.postpath.pop(0))
        return PluginFileResource(self._registry, name, filename)


def _segment(raw: bytes) -> str | None:
    """A path segment as text, or ``None`` if it cannot be a plugin or file name."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text or text in (".", "..") or any(c in text for c in "/\\\0") or text[0] == ".":
        return None
    return text
