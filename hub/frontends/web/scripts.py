"""Files that games bring for the web front end: page scripts (``IWebView.script``),
stylesheets and history panels (``IWebAssets``) and rules (``IGameRules``).

A game factory whose ``adapter("web")`` has a ``script`` attribute (a path inside the
game's package, e.g. ``"web.js"``) gets that script served at
``/plugin-scripts/<type>.js``; the game page and replays load it to draw games of that
type.  A web view that also provides :class:`hub.interfaces.IWebAssets` brings its
stylesheet (``/plugin-scripts/<type>.css``, loaded with the script) and the script of
its own panel on the history page (``/plugin-scripts/<type>.history.js``).  Built-in
games (``games/<game>/web.js``) and plugins work alike: the hub's own pages name no
game.  The files are read through the package's loader, so folder, zip and wheel
plugins all work, and a path can never leave the package.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from twisted.web.pages import notFound
from twisted.web.resource import IResource, Resource

from hub.interfaces import IGameRules, IWebAssets
from hub.model import GameError
from hub.plugins.files import package_file, plain_path

_TYPE_NAME = re.compile(r"^[a-z0-9-]{1,64}$")


def _web_view(factory: Any) -> Any:
    try:
        return factory.adapter("web")
    except Exception:
        return None


def script_path(factory: Any) -> str | None:
    """The plugin-relative path of the factory's page script, or ``None``."""
    adapter = _web_view(factory)
    return None if adapter is None else plain_path(adapter.script, ".js")


def styles_path(factory: Any) -> str | None:
    """The plugin-relative path of the factory's stylesheet, or ``None``."""
    adapter = _web_view(factory)
    if adapter is None or not IWebAssets.providedBy(adapter):
        return None
    return plain_path(adapter.styles, ".css")


def history_path(factory: Any) -> str | None:
    """The plugin-relative path of the factory's history panel script, or ``None``."""
    adapter = _web_view(factory)
    if adapter is None or not IWebAssets.providedBy(adapter):
        return None
    return plain_path(adapter.history, ".js")


def rules_path(factory: Any) -> str | None:
    """The plugin-relative path of the factory's rules text, or ``None``."""
    if not IGameRules.providedBy(factory):
        return None
    return plain_path(factory.rules, ".md") or plain_path(factory.rules, ".txt")


#: what ``/plugin-scripts/<type><suffix>`` serves: suffix → (path of, content type)
SERVED: dict[str, tuple[Callable[[Any], str | None], str]] = {
    ".history.js": (history_path, "text/javascript; charset=utf-8"),
    ".js": (script_path, "text/javascript; charset=utf-8"),
    ".css": (styles_path, "text/css; charset=utf-8"),
}


def _url(factory: Any, suffix: str) -> str | None:
    path_of, _ = SERVED[suffix]
    return f"/plugin-scripts/{factory.name}{suffix}" if path_of(factory) else None


def script_url(factory: Any) -> str | None:
    """Where the page finds the factory's script, or ``None``."""
    return _url(factory, ".js")


def styles_url(factory: Any) -> str | None:
    """Where the page finds the factory's stylesheet, or ``None``."""
    return _url(factory, ".css")


def history_url(factory: Any) -> str | None:
    """Where the history page finds the factory's panel script, or ``None``."""
    return _url(factory, ".history.js")


def read_script(factory: Any) -> bytes | None:
    """The script's bytes, read from the factory's own package."""
    path = script_path(factory)
    return None if path is None else package_file(factory, path)


def read_rules(factory: Any) -> str | None:
    """The factory's rules text (UTF-8), or ``None`` when it ships none."""
    path = rules_path(factory)
    data = None if path is None else package_file(factory, path)
    return None if data is None else data.decode("utf-8", "replace")


class Bytes(Resource):
    """A fixed body with its content type."""

    isLeaf = True

    def __init__(self, data: bytes, content_type: str) -> None:
        super().__init__()
        self.data = data
        self.content_type = content_type.encode("ascii")

    def render_GET(self, request: Any) -> bytes:
        """The body."""
        request.setHeader(b"content-type", self.content_type)
        request.setHeader(b"cache-control", b"no-cache")
        return self.data

    def render_HEAD(self, request: Any) -> bytes:
        """The headers."""
        return self.render_GET(request)


class PluginScripts(Resource):
    """``/plugin-scripts/<type>.js``, ``<type>.css`` and ``<type>.history.js``."""

    def __init__(self, registry: Any) -> None:
        super().__init__()
        self.registry = registry

    def getChild(self, path: bytes, request: Any) -> IResource:
        """The file of the game type named by ``path``, or 404."""
        name = path.decode("utf-8", "replace")
        suffix = next((s for s in SERVED if name.endswith(s)), None)
        if request.postpath or suffix is None or not _TYPE_NAME.match(name[: -len(suffix)]):
            return notFound("No such script", "There is no such script.")
        try:
            factory = self.registry.game_factory(name[: -len(suffix)])
        except GameError:
            return notFound("No such script", "There is no such game type.")
        path_of, content_type = SERVED[suffix]
        found = path_of(factory)
        data = None if found is None else package_file(factory, found)
        if data is None:
            return notFound("No such script", "This game type brings no such file.")
        return Bytes(data, content_type)
