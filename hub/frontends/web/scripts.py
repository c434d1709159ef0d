"""Page scripts that games bring for the web front end (``IWebView.script``).

A game factory whose ``adapter("web")`` has a ``script`` attribute (a path inside the
game's package, e.g. ``"web.js"``) gets that script served at
``/plugin-scripts/<type>.js``; the game page and replays load it to draw games of that
type.  Built-in games (``games/<game>/web.js``) and plugins work alike.  The file is
read through the package's loader, so folder, zip and wheel plugins all work, and a
path can never leave the package.
"""

from __future__ import annotations

import re
from typing import Any

from twisted.web.pages import notFound
from twisted.web.resource import IResource, Resource

from hub.model import GameError
from hub.plugin_files import package_file, plain_path

_TYPE_NAME = re.compile(r"^[a-z0-9-]{1,64}$")


def script_path(factory: Any) -> str | None:
    """The plugin-relative path of the factory's page script, or ``None``."""
    try:
        adapter = factory.adapter("web")
    except Exception:
        return None
    return None if adapter is None else plain_path(adapter.script, ".js")


def script_url(factory: Any) -> str | None:
    """Where the page finds the factory's script, or ``None``."""
    return f"/plugin-scripts/{factory.name}.js" if script_path(factory) else None


def read_script(factory: Any) -> bytes | None:
    """The script's bytes, read from the factory's own package."""
    path = script_path(factory)
    return None if path is None else package_file(factory, path)


class PluginScripts(Resource):
    """``/plugin-scripts/<type>.js``."""

    def __init__(self, registry: Any) -> None:
        super().__init__()
        self.registry = registry

    def getChild(self, path: bytes, request: Any) -> IResource:
        """The script of the game type named by ``path`` (``<type>.js``), or 404."""
        name = path.decode("utf-8", "replace")
        if request.postpath or not name.endswith(".js") or not _TYPE_NAME.match(name[:-3]):
            return notFound("No such script", "There is no such script.")
        try:
            factory = self.registry.game_factory(name[:-3])
        except GameError:
            return notFound("No such script", "There is no such game type.")
        data = read_script(factory)
        if data is None:
            return notFound("No such script", "This game type brings no page script.")
        from . import Bytes

        return Bytes(data, "text/javascript; charset=utf-8")
