"""Every route the web front end registers goes through one access check (issue 32),
on a real ``twistd -n gamehub``: the API token, a session, loopback and the door
header (``X-Gamehub-Door``: a request another hub passed on, never loopback) mean the
same on each, and each answers 401 (with ``WWW-Authenticate``) to a request that lacks
the credentials it needs (none, or a token that is not the hub's) and 403 to one whose
credentials are not enough (a logged-in account that is not an admin).

The routes are read from the web front end itself (its resource tree, built in this
process), so a route added without a line in :data:`ROUTES` fails this test."""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import pytest
from twisted.internet.testing import MemoryReactorClock

from hub.frontends.web import Root
from hub.plugins.registry import Registry
from hub.service import HubService
from tests.hubprocess import LOOPBACK, HubProcess
from tests.integration.test_admin_api import person
from tests.web.test_web_api import Browser

#: who may use a route: ``public`` (anyone), ``session`` (a browser session of its
#: own: its seats, its chat, its account; 401 without one), ``reader`` (below),
#: ``manager`` (a logged-in
#: account, loopback or the token: creating games, tournaments),
#: ``writer`` (loopback or the token, or an admin: matches, starting a tournament of
#: another, seating a bot in or cancelling a game the API made), ``admin`` (the token or an admin session)
PUBLIC, SESSION, MANAGER, WRITER, ADMIN = "public", "session", "manager", "writer", "admin"
#: ``reader``: a session reads its own lines of a game in play, the token all of them
READER = "reader"

#: every route the web front end registers → [(method, concrete path, body, who)];
#: ``{game}``, ``{tournament}``, ``{match}`` are filled in with live ones
ROUTES: dict[str, list[tuple[str, str, object, str]]] = {
    "/": [("GET", "/", None, PUBLIC)],
    "/account": [("GET", "/account", None, PUBLIC)],
    "/history": [("GET", "/history", None, PUBLIC)],
    "/stats": [("GET", "/stats", None, PUBLIC)],
    "/plugins": [("GET", "/plugins", None, PUBLIC), ("GET", "/plugins/index.json", None, PUBLIC)],
    "/plugin-scripts": [("GET", "/plugin-scripts/hello/web.js", None, PUBLIC)],
    "/static": [("GET", "/static/lobby.js", None, PUBLIC)],
    "/game": [("GET", "/game/{game}", None, PUBLIC)],
    "/ratings": [("GET", "/ratings", None, PUBLIC)],
    "/tournaments": [("GET", "/tournaments", None, PUBLIC)],
    "/schema": [("GET", "/schema/message.xsd", None, PUBLIC)],
    "/metrics": [("GET", "/metrics", None, ADMIN)],
    "/acpc": [
        ("GET", "/acpc/matches", None, PUBLIC),
        ("GET", "/acpc/matches/{match}", None, PUBLIC),
        ("GET", "/acpc/matches/{match}/log", None, ADMIN),
        ("POST", "/acpc/matches", {"game": "limit", "players": ["acpc", "bot:caller"]}, WRITER),
    ],
    "/api": [("GET", "/api/nothing-here", None, PUBLIC)],
    "/api/health": [("GET", "/api/health", None, PUBLIC)],
    "/api/plugins": [("GET", "/api/plugins", None, PUBLIC)],
    "/api/games": [
        ("GET", "/api/games", None, PUBLIC),
        ("GET", "/api/games/{game}", None, PUBLIC),
        ("GET", "/api/games/{game}/replay", None, PUBLIC),
        ("GET", "/api/games/{game}/events", None, PUBLIC),
        ("GET", "/api/games/{game}/transcript", None, READER),
        ("POST", "/api/games", {"type": "hello", "seats": ["open", "open"]}, MANAGER),
        # (a game the API made: its creator is the token, or loopback; an account is not)
        ("POST", "/api/games/{game}/bots", {"seat": 1, "bot": "hello-bot"}, WRITER),
        ("POST", "/api/games/{game}/seats", {"seat": 0}, SESSION),
        ("POST", "/api/games/{game}/leave", {}, SESSION),
        ("POST", "/api/games/{game}/chat", {"text": "hi"}, SESSION),
        # (a game that is not waiting: cancelling it is refused as 409 to whoever may ask)
        ("DELETE", "/api/games/{playing}", None, WRITER),
    ],
    "/api/rules": [("GET", "/api/rules/hello", None, PUBLIC)],
    "/rules": [("GET", "/rules", None, PUBLIC), ("GET", "/rules/hello", None, PUBLIC)],
    "/api/lobby": [("GET", "/api/lobby/events", None, PUBLIC)],
    "/api/types": [("GET", "/api/types", None, PUBLIC)],
    "/api/chat": [
        ("GET", "/api/chat", None, PUBLIC),
        ("POST", "/api/chat", {"text": "hi"}, SESSION),
    ],
    "/api/session": [("GET", "/api/session", None, PUBLIC)],  # DELETE: tested in test_web_api
    "/api/accounts": [],  # creating an account: anyone (tested in test_web_api)
    "/api/account": [("GET", "/api/account", None, SESSION)],
    "/api/history": [("GET", "/api/history", None, PUBLIC)],
    "/api/stats": [("GET", "/api/stats", None, PUBLIC)],
    "/api/hands": [("GET", "/api/hands", None, PUBLIC)],
    "/api/ratings": [("GET", "/api/ratings/hello", None, PUBLIC)],
    "/api/tournaments": [
        ("GET", "/api/tournaments", None, PUBLIC),
        ("POST", "/api/tournaments", {"type": "nmmorris", "format": "round-robin"}, MANAGER),
        ("POST", "/api/tournaments/{tournament}/start", {}, WRITER),
        ("POST", "/api/tournaments/{tournament}/entries", {"kind": "bot", "bot": "morris"}, WRITER),
    ],
    "/api/admin": [
        ("GET", "/api/admin/bans", None, ADMIN),
        ("GET", "/api/admin/audit", None, ADMIN),
        ("POST", "/api/admin/unban", {"address": "198.51.100.9"}, ADMIN),
    ],
}


def registered(root) -> set[str]:
    """The paths of the web front end's resource tree (leaves and folders)."""
    found: set[str] = set()

    def walk(resource, prefix: str) -> None:
        for name, child in resource.children.items():
            path = f"{prefix}/{name.decode()}"
            found.add(path)
            if not child.isLeaf:
                walk(child, path)

    walk(root, "")
    return {p for p in found if not p.startswith("/static/") and p != "/api/lobby/events"}


def test_every_registered_route_has_an_access_class(tmp_path: Path):
    reactor = MemoryReactorClock()
    hub = HubService(
        reactor, tmp_path, {"web": "tcp:0", "acpc": "tcp:0"}, Registry(tmp_path, reactor)
    )
    paths = registered(Root(hub))
    assert paths == set(ROUTES), (sorted(paths - set(ROUTES)), sorted(set(ROUTES) - paths))


class Client:
    """Requests as one kind of caller: headers (a token, a door) and, maybe, a session."""

    def __init__(self, hub: HubProcess, headers: dict[str, str], browser: Browser | None = None):
        self.hub = hub
        self.headers = headers
        self.browser = browser

    def call(self, method: str, path: str, body: object) -> tuple[int, dict[str, str], bytes]:
        sent = {"Content-Type": "application/json", **self.headers}
        if self.browser is not None:
            sent["Cookie"] = str(self.browser.cookie)
            if self.browser.csrf:
                sent["X-CSRF-Token"] = self.browser.csrf
        conn = http.client.HTTPConnection("127.0.0.1", self.hub.ports["web"], timeout=30)
        try:
            data = None if body is None else json.dumps(body).encode()
            conn.request(method, path, body=data, headers=sent)
            answer = conn.getresponse()
            streaming = answer.getheader("Content-Type", "").startswith("text/event-stream")
            raw = b"" if streaming else answer.read()
            return answer.status, {k.lower(): v for k, v in answer.getheaders()}, raw
        finally:
            conn.close()


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    h = HubProcess(tmp_path_factory.mktemp("routes"), web=LOOPBACK, acpc=LOOPBACK)
    h.extra += ["--set", "create_rate=1000", "--set", "create_burst=1000",
                "--set", "tournament_max_per_account=100"]  # fmt: skip
    with h:
        yield h
    assert h.errors() == []


def _live(hub: HubProcess) -> dict[str, str]:
    status, body, _ = hub.request(
        "POST", "/api/games", {"type": "hello", "seats": ["open", "open"]}
    )
    assert status == 201, body
    game = json.loads(body)["id"]
    status, body, _ = hub.request(  # its bots say hello at once: no longer waiting
        "POST", "/api/games", {"type": "hello", "seats": ["bot:hello-bot", "bot:hello-bot"]}
    )
    assert status == 201, body
    playing = json.loads(body)["id"]
    status, body, _ = hub.request(
        "POST", "/api/tournaments", {"type": "nmmorris", "format": "round-robin"}
    )
    assert status == 201, body
    tournament = json.loads(body)["id"]
    status, body, _ = hub.request(
        "POST", "/acpc/matches", {"game": "limit", "players": ["acpc", "bot:caller"]}
    )
    assert status == 201, body
    match = json.loads(body)["id"]
    return {"game": game, "playing": playing, "tournament": tournament, "match": match}


DOOR = {"X-Gamehub-Door": "hub-elsewhere"}


def test_every_route_means_the_same_by_every_caller(hub):
    live = _live(hub)
    token = {"Authorization": f"Bearer {hub.TOKEN}"}
    callers = {
        # name: (client, expected status class by route kind)
        "loopback": Client(hub, {}),
        "remote": Client(hub, dict(DOOR)),
        "remote, wrong token": Client(hub, {**DOOR, "Authorization": "Bearer not-the-token"}),
        "remote, account": Client(hub, dict(DOOR), person(hub, "walker")),
        "remote, token": Client(hub, {**DOOR, **token}),
    }
    # what each caller gets, by kind: "ok" (not 401/403), 401 or 403
    expected = {
        PUBLIC: {"loopback": "ok", "remote": "ok", "remote, wrong token": "ok",
                 "remote, account": "ok", "remote, token": "ok"},
        SESSION: {"loopback": 401, "remote": 401, "remote, wrong token": 401,
                  "remote, account": "ok", "remote, token": 401},
        MANAGER: {"loopback": "ok", "remote": 401, "remote, wrong token": 401,
                  "remote, account": "ok", "remote, token": "ok"},
        WRITER: {"loopback": "ok", "remote": 401, "remote, wrong token": 401,
                 "remote, account": 403, "remote, token": "ok"},
        READER: {"loopback": 401, "remote": 401, "remote, wrong token": 401,
                 "remote, account": "ok", "remote, token": "ok"},
        ADMIN: {"loopback": 401, "remote": 401, "remote, wrong token": 401,
                "remote, account": 403, "remote, token": "ok"},
    }  # fmt: skip
    wrong: list[str] = []
    for requests in ROUTES.values():
        for method, template, body, kind in requests:
            path = template.format(**live)
            for name, client in callers.items():
                status, headers, raw = client.call(method, path, body)
                want = expected[kind][name]
                got = status if status in (401, 403) else "ok"
                if kind == SESSION and name == "remote, account" and status == 403:
                    got = "ok"  # a session it may not use for that (not its seat): not 401
                if got != want:
                    wrong.append(
                        f"{method} {path} as {name}: {status} (wanted {want}) {raw[:120]!r}"
                    )
                elif status == 401 and "www-authenticate" not in headers:
                    wrong.append(f"{method} {path} as {name}: 401 without WWW-Authenticate")
    assert wrong == [], "\n".join(wrong)


def test_api_require_token_takes_loopback_rights_on_every_route(tmp_path):
    h = HubProcess(tmp_path, web=LOOPBACK, acpc=LOOPBACK)
    h.extra += ["--set", "api_require_token=true"]
    with h:
        writes = [
            (path, body)
            for requests in ROUTES.values()
            for method, path, body, kind in requests
            if method == "POST" and kind in (MANAGER, WRITER) and "{" not in path
        ]
        assert {path for path, _ in writes} == {"/api/games", "/api/tournaments", "/acpc/matches"}
        for path, body in writes:
            status, raw, headers = h.request("POST", path, body)
            assert status == 401 and "WWW-Authenticate" in headers, (path, status, raw)
            status, raw, _ = h.request("POST", path, body, admin=True)
            assert status == 201, (path, status, raw)
        assert h.errors() == []


def test_metrics_answers_as_the_admin_api(hub):
    """Issue 32: ``/metrics`` answered 403 where the admin API answered 401 for the same
    missing credentials."""
    walker = person(hub, "metrics-reader")
    for headers, browser, want in (
        ({}, None, 401),
        ({"Authorization": "Bearer wrong"}, None, 401),
        (dict(DOOR), walker, 403),
        ({"Authorization": f"Bearer {hub.TOKEN}"}, None, 200),
    ):
        answers = [
            Client(hub, headers, browser).call("GET", path, None)
            for path in ("/metrics", "/api/admin/bans")
        ]
        assert [status for status, _, _ in answers] == [want, want], answers
        if want == 401:
            assert all(h["www-authenticate"] == 'Bearer realm="gamehub"' for _, h, _ in answers)
