"""The web front end: JSON API, live event streams, plugin downloads and the browser pages.

Pages are plain HTML, CSS and JavaScript in ``static/`` (package data; no build step,
nothing loaded from other hosts): the lobby ``/``, a game ``/game/<id>``, ``/account``,
``/history``, ``/plugins``, ``/stats`` and the rules of each game ``/rules/<type>``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from twisted.logger import Logger
from twisted.web.pages import notFound
from twisted.web.resource import IResource, Resource
from twisted.web.server import Site
from zope.interface import implementer, moduleProvides

from hub.interfaces import IConnectionControl, IFrontend, IHub
from hub.ops.telemetry import DETACHED, FrontendTelemetry, MetricsResource
from hub.plugins.distribution import PluginsResource

from .accounts import AccountResource, AccountsResource, SessionResource
from .admin import AdminResource
from .api import API
from .info import Hands, History, Stats
from .limits import GuardedRequest, WebLimits, web_endpoint
from .play import LobbyChat, LobbyEvents, Rules, Types, WebFrontend, WebGames
from .ratings import Ratings
from .scripts import Bytes, PluginScripts
from .tournaments import TournamentsResource

moduleProvides(IFrontend)

STATIC = Path(__file__).resolve().parent / "static"
#: page path → file in ``static/``
PAGES = {
    b"": "lobby.html",
    b"account": "account.html",
    b"history": "history.html",
    b"plugins": "plugins.html",
    b"stats": "stats.html",
}
#: ``web_access_log`` values; the methods that only read
ACCESS_LOGS = ("all", "changes", "none")
READS = (b"GET", b"HEAD")
SECURITY_HEADERS = {
    b"content-security-policy": (
        b"default-src 'self'; img-src 'self' data:; style-src 'self'; "
        b"script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    b"x-content-type-options": b"nosniff",
    b"referrer-policy": b"same-origin",
    b"x-frame-options": b"DENY",
}


CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
_STATIC_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")


class StaticFiles(Resource):
    """``/static/<name>`` and ``/static/games/<name>``: the package's page files.

    Only plain names of the known kinds are served; no listings, no other paths.
    """

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def getChild(self, path: bytes, request: Any) -> IResource:
        """A file of the folder, a sub-folder, or 404."""
        name = path.decode("utf-8", "replace")
        if not _STATIC_NAME.match(name) or ".." in name:
            return notFound("No such file", "There is no such file.")
        target = self.folder / name
        if target.is_dir():
            return StaticFiles(target)
        content_type = CONTENT_TYPES.get(target.suffix)
        if content_type is None or not target.is_file():
            return notFound("No such file", "There is no such file.")
        return Bytes(target.read_bytes(), content_type)

    def render(self, request: Any) -> bytes:
        """Folders are not listed."""
        return notFound("No such file", "There is no such file.").render(request)


def page(name: str) -> Resource:
    """A page of ``static/`` as a resource (read once)."""
    return Bytes((STATIC / name).read_bytes(), CONTENT_TYPES[".html"])


class GamePages(Resource):
    """``/game/<id>``: the game page (the script reads the id from the address)."""

    def __init__(self) -> None:
        super().__init__()
        self._page = page("game.html")

    def getChild(self, path: bytes, request: Any) -> IResource:
        """Every game id gets the same page."""
        if path and not request.postpath:
            return self._page
        return notFound("No such page", "There is no such game page.")


class AddressedPages(Resource):
    """``/<where>`` and ``/<where>/<name>``: one page of ``static/`` for both (its
    script reads the name from the address): ``/ratings[/<type>]``,
    ``/tournaments[/<id>]``.

    :param filename: the page in ``static/``.
    :param what: what the page is of, for the 404 text (``ratings``, ``tournament``).
    """

    def __init__(self, filename: str, what: str) -> None:
        super().__init__()
        self._page = page(filename)
        self._what = what

    def render_GET(self, request: Any) -> bytes:
        """``/<where>`` itself."""
        return self._page.render(request)

    def getChild(self, path: bytes, request: Any) -> IResource:
        """Every name gets the same page."""
        if not request.postpath:
            return self._page
        return notFound("No such page", f"There is no such {self._what} page.")


class Root(Resource):
    """``/``: the pages, with ``/api``, ``/static`` and the other trees mounted below,
    and the resources other front ends publish (``hub.http_resources()``, see
    :class:`hub.interfaces.IHTTPResources`: the XML schemas at ``/schema``)."""

    log = Logger()

    def __init__(self, hub: IHub, web: WebFrontend | None = None) -> None:
        super().__init__()
        self.hub = hub
        self.web = web if web is not None else WebFrontend(hub, hub.reactor)
        api = API(hub)
        api.putChild(b"games", WebGames(hub, self.web))
        lobby = Resource()
        lobby.putChild(b"events", LobbyEvents(hub, self.web))
        api.putChild(b"lobby", lobby)
        api.putChild(b"types", Types(hub, self.web))
        api.putChild(b"rules", Rules(hub, self.web))
        api.putChild(b"chat", LobbyChat(hub, self.web))
        api.putChild(b"session", SessionResource(hub, self.web))
        api.putChild(b"accounts", AccountsResource(hub, self.web))
        api.putChild(b"account", AccountResource(hub, self.web))
        api.putChild(b"history", History(hub, self.web))
        api.putChild(b"stats", Stats(hub, self.web))
        api.putChild(b"hands", Hands(hub, self.web))
        api.putChild(b"ratings", Ratings(hub))
        api.putChild(b"tournaments", TournamentsResource(hub, self.web))
        admin = AdminResource(hub, self.web)
        api.putChild(b"admin", admin)
        self.putChild(b"api", api)
        self.putChild(b"metrics", MetricsResource(hub.telemetry, check=self._admin_only))
        self.putChild(b"static", StaticFiles(STATIC))
        self.putChild(b"game", GamePages())
        self.putChild(b"ratings", AddressedPages("ratings.html", "ratings"))
        self.putChild(b"tournaments", AddressedPages("tournaments.html", "tournament"))
        self.putChild(b"rules", AddressedPages("rules.html", "rules"))
        self.putChild(b"plugin-scripts", PluginScripts(hub.registry))
        self.putChild(b"plugins", PluginsResource(hub.registry))
        self._pages = {path: page(name) for path, name in PAGES.items()}
        for path, page_resource in self._pages.items():
            if path != b"plugins":
                self.putChild(path, page_resource)
        for path, resource in hub.http_resources(self.web.access):
            if path in self.children or path in self._pages:
                self.log.warn("web: /{path} is the web front end's own; not mounted", path=path)
                continue
            self.putChild(path, resource)

    def _admin_only(self, request: Any) -> None:
        """``/metrics``: admins only, decided as on every route (401, 403)."""
        self.web.access.caller(request).require_admin("/metrics")

    def getChildWithDefault(self, path: bytes, request: Any) -> IResource:
        """``/plugins`` (exactly) is the plugins page; below it, the downloads."""
        headers = request.responseHeaders
        for name, value in SECURITY_HEADERS.items():
            headers.setRawHeaders(name, [value])  # request.setHeader, one call less
        if path == b"plugins" and not [p for p in request.postpath if p]:
            return self._pages[b"plugins"]
        child = self.children.get(path)
        if child is not None:  # Resource.getChildWithDefault's look-up, one call less
            return child
        return self.getChild(path, request)

    def getChild(self, path: bytes, request: Any) -> IResource:
        """Unknown pages: 404."""
        return notFound("No such page", "There is no such page.")


@implementer(IConnectionControl)
class WebSite(Site):
    """The web front end's HTTP factory: each connection a
    :class:`~.limits.GuardedChannel` under the front end's :class:`~.limits.WebLimits`;
    closes its event streams when it stops.  Each finished request is one message out
    (and, with a status of 400 or more, one refusal) of its :attr:`telemetry`."""

    #: the front end's metrics and refusal events (the hub sets its own)
    telemetry: FrontendTelemetry = DETACHED.frontend("web")

    def __init__(self, root: Root, limits: WebLimits | None = None) -> None:
        super().__init__(root, requestFactory=GuardedRequest, reactor=root.hub.reactor)
        self.root = root
        self.limits = limits if limits is not None else WebLimits(root.hub.options)
        self.displayTracebacks = False
        #: which requests get an access log line (``web_access_log``)
        self.access_log = str(root.hub.options.get("web_access_log", "changes"))
        if self.access_log not in ACCESS_LOGS:
            raise ValueError(f"web_access_log is one of {', '.join(ACCESS_LOGS)}")

    def buildProtocol(self, addr: Any) -> Any:
        """A guarded channel (or a refusal over the connection caps)."""
        return self.limits.channel(self, str(getattr(addr, "host", "")))  # foreign: IAddress

    def kick(self, player: str, reason: str) -> int:
        """(:class:`hub.interfaces.IConnectionControl`) end every browser session of
        the account ``player`` (its pages become guests)."""
        return self.root.web.sessions.drop_account(player)

    def log(self, request: Any) -> None:
        """Count the answer; a refusal or an error is one event with its reason (what
        :func:`~.api.send_error` said) and the game its path names.  The access log
        line (``web_access_log``): every request (``all``), every one but a successful
        read (``changes``, the default: a lobby polled by thousands of pages writes no
        line per poll; metrics count them all), or none (``none``)."""
        telemetry = self.telemetry
        telemetry.message_out()
        code = int(request.code or 200)
        access = self.access_log
        if access == "all" or (
            access == "changes" and (code >= 400 or request.method not in READS)
        ):
            Site.log(self, request)
        if code < 400:
            return
        parts = request.path.split(b"/")
        game = None
        if len(parts) > 3 and parts[1:3] == [b"api", b"games"] and parts[3]:
            game = parts[3][:64].decode("utf-8", "replace")
        reason = getattr(request, "refusal", None) or f"HTTP {code}"
        peer = str(getattr(request.getClientAddress(), "host", "") or "")
        telemetry.refused(str(code), reason, f"http:{peer}", game, peer)

    def stopFactory(self) -> None:
        """End the event streams."""
        self.root.web.stop()
        super().stopFactory()


def make_factory(hub: IHub) -> Site:
    """The HTTP factory of the web front end of ``hub``."""
    return WebSite(Root(hub), WebLimits(hub.options, web_endpoint(hub)))
