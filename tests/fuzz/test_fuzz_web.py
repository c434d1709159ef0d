"""Fuzz the web front end's JSON API on a real hub, over loopback HTTP.

Each worker is one browser: a guest session (cookie and CSRF token) that logs in to
an account of its own now and then, creates games it sits at (hello, hold'em with its
chips, Nine Men's Morris) and plays in them; on the way it sends requests to every
route of the API with bodies built from each route's fields with random values
(lone surrogates, deep nesting, huge numbers included), valid bodies in the wrong
state (a game it does not sit in, a finished one, no CSRF token, logged out), and
byte-level mutations of valid bodies, paths and whole raw HTTP requests.  No answer
may be a 5xx.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import socket
import threading
import urllib.parse

import pytest

from . import common

PASSWORD = "fuzz-web-pw1"
#: what a string field of a body may be, besides random text
WEB_TEXT = ("\ud800", "a\udfffb", "\ud83d\ude00", "bot:caller", "human", "open", "hello")
ROUTES = (
    ("GET", "/api/session"),
    ("POST", "/api/session"),
    ("DELETE", "/api/session"),
    ("POST", "/api/accounts"),
    ("GET", "/api/account"),
    ("POST", "/api/account/password"),
    ("DELETE", "/api/account"),
    ("GET", "/api/games"),
    ("POST", "/api/games"),
    ("GET", "/api/games/{game}"),
    ("GET", "/api/games/{game}/transcript"),
    ("POST", "/api/games/{game}/seats"),
    ("POST", "/api/games/{game}/actions"),
    ("POST", "/api/games/{game}/leave"),
    ("POST", "/api/games/{game}/bots"),
    ("POST", "/api/games/{game}/chat"),
    ("POST", "/api/chat"),
    ("GET", "/api/history"),
    ("GET", "/api/hands"),
    ("GET", "/api/stats"),
    ("GET", "/api/types"),
    ("GET", "/api/plugins"),
    ("PUT", "/api/games"),
)
FIELDS = {
    "/api/session": ("name", "password"),
    "/api/accounts": ("name", "password"),
    "/api/account/password": ("old", "new"),
    "/api/account": ("password",),
    "/api/games": ("type", "name", "variant", "seats", "options", "sit"),
    "seats": ("seat", "amount"),
    "actions": ("action",),
    "bots": ("seat", "bot", "amount"),
    "chat": ("text",),
    "/api/chat": ("text",),
}
QUERIES = ("type", "player", "game", "limit", "hand", "before")


def json_value(rng: random.Random, depth: int = 0) -> object:
    """A random JSON value (strings with lone surrogates too)."""
    roll = rng.random()
    if depth < 3 and roll < 0.15:
        return [json_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if depth < 3 and roll < 0.3:
        return {
            rng.choice(("name", "index", "amount", "hello", "move", common.text(rng, most=4))):
            json_value(rng, depth + 1)
            for _ in range(rng.randrange(4))
        }  # fmt: skip
    if roll < 0.45:
        return common.number(rng)
    if roll < 0.5:
        return rng.choice((None, True, False, 1.5, -0.0, 1e300))
    if roll < 0.65:
        return rng.choice(WEB_TEXT)
    return common.text(rng)


class Browser:
    """One worker's browser: a keep-alive connection, a cookie, a CSRF token."""

    def __init__(self, target: WebTarget, rng: random.Random) -> None:
        self.target, self.rng = target, rng
        self.port = target.hub.ports["web"]
        self.conn: http.client.HTTPConnection | None = None
        self.cookie = ""
        self.csrf = ""
        self.account: str | None = None
        self.games: list[str] = []  # games this browser sits in

    def call(
        self, method: str, path: str, body: bytes | None, kind: str, csrf: bool = True
    ) -> tuple[int, object]:
        """One request; (status, decoded answer).  A 5xx fails the test."""
        headers = {"Content-Type": "application/json"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        if csrf and self.csrf:
            headers["X-CSRF-Token"] = self.csrf
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                raw = response.read()
                break
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        self.target.count(kind)
        assert response.status < 500, (method, path, body, response.status, raw[:300])
        cookie = response.getheader("Set-Cookie")
        if cookie and cookie.startswith("gamehub_session="):
            self.cookie = cookie.split(";", 1)[0]
        try:
            answer = json.loads(raw) if raw[:1] in (b"{", b"[") else raw
        except ValueError:
            answer = raw
        if isinstance(answer, dict) and isinstance(answer.get("csrf"), str):
            self.csrf = answer["csrf"]
        return response.status, answer

    def json(self, method: str, path: str, body: object = None, kind: str = "valid"):
        data = None if body is None else json.dumps(body).encode()
        return self.call(method, path, data, kind)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


class WebTarget(common.Target):
    """JSON API clients: one browser per worker, kept across its connections."""

    name = "web"

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.browsers: dict[int, Browser] = {}
        self.lock = threading.Lock()
        self.game_ids: list[str] = []

    def browser(self, rng: random.Random) -> Browser:
        me = threading.get_ident()
        if me not in self.browsers:
            browser = Browser(self, rng)
            browser.json("GET", "/api/session")
            name = f"fzw{len(self.browsers)}x{me % 10000}"
            status, _ = browser.json("POST", "/api/accounts", {"name": name, "password": PASSWORD})
            assert status == 201, status
            browser.account = name
            with self.lock:
                self.browsers[me] = browser
        return self.browsers[me]

    # -- messages ---------------------------------------------------------------------

    def path(self, rng: random.Random, template: str, browser: Browser) -> str:
        game = rng.choice(
            browser.games or self.game_ids or ["x"]
            if rng.random() < 0.8
            else [common.text(rng, True, 14), "..", "%00", "a" * 300]
        )
        path = template.replace("{game}", urllib.parse.quote(game, safe=""))
        if template.startswith("GET") or rng.random() < 0.3:
            query = {
                rng.choice(QUERIES): str(json_value(rng))[:50] for _ in range(rng.randrange(3))
            }
            if query:
                path += "?" + urllib.parse.urlencode(query, errors="replace")
        return path

    def grammar_body(self, rng: random.Random, path: str) -> object:
        key = path if path in FIELDS else path.split("?")[0].rsplit("/", 1)[-1]
        names = FIELDS.get(key, ("x",))
        body = {name: json_value(rng) for name in names if rng.random() < 0.8}
        if rng.random() < 0.05:
            body[common.text(rng, most=5)] = json_value(rng)
        return body if rng.random() < 0.95 else json_value(rng)

    def fuzz(self, rng: random.Random, browser: Browser, valid: list[tuple[str, str, object]]):
        """A few fuzzed requests of the three kinds (and raw mutated ones)."""
        for _ in range(rng.randrange(1, 8)):
            roll = rng.random()
            if roll < 0.4:
                method, template = rng.choice(ROUTES)
                path = self.path(rng, template, browser)
                body = None if method == "GET" else self.grammar_body(rng, path)
                data = None if body is None else json.dumps(body).encode()
                browser.call(method, path, data, "grammar")
            elif roll < 0.55:
                method, path, body = rng.choice(valid)
                # in the wrong state: without the CSRF token, or at a game of another
                if rng.random() < 0.5:
                    browser.call(method, path, json.dumps(body).encode(), "wrong_state", False)
                else:
                    other = rng.choice(self.game_ids or ["x"])
                    parts = path.split("/")
                    if len(parts) > 3:
                        parts[3] = other
                    browser.json(method, "/".join(parts), body, "wrong_state")
            elif roll < 0.9:
                method, path, body = rng.choice(valid)
                data = json.dumps(body).encode()
                others = [json.dumps(b).encode() for _, _, b in valid]
                browser.call(method, path, common.mutate(rng, data, others), "mutated")
            else:
                self.raw(rng, browser, rng.choice(valid))

    def raw(self, rng: random.Random, browser: Browser, request: tuple[str, str, object]) -> None:
        """A whole HTTP request, mutated, on a socket of its own (then half-closed)."""
        method, path, body = request
        data = json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{browser.port}\r\n"
            f"Cookie: {browser.cookie}\r\nX-CSRF-Token: {browser.csrf}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
            "Connection: close\r\n\r\n"
        ).encode()
        sent = common.mutate(rng, head + data)
        with socket.create_connection(("127.0.0.1", browser.port), timeout=30) as sock:
            with contextlib.suppress(OSError):
                sock.sendall(sent)
                sock.shutdown(socket.SHUT_WR)
                answer = b""
                while chunk := sock.recv(65536):
                    answer += chunk
                status = answer[9:12]
                assert not status.startswith(b"5") or status == b"503", answer[:300]
        self.count("mutated")

    # -- one connection's walk ------------------------------------------------------------

    def connection(self, rng: random.Random) -> None:
        browser = self.browser(rng)
        if rng.random() < 0.1:
            browser.close()  # a new connection now and then
        valid: list[tuple[str, str, object]] = [
            ("POST", "/api/chat", {"text": "hello lobby"}),
            ("POST", "/api/session", {"name": browser.account, "password": PASSWORD}),
            ("POST", "/api/games", {"type": "hello", "seats": ["open", "bot:hello-bot"]}),
        ]
        self.fuzz(rng, browser, valid)
        kind = rng.choice(("hello", "texas-holdem", "nmmorris"))
        seats = {
            "hello": ["human", "bot:hello-bot"],
            "texas-holdem": ["human", "bot:caller"],
            "nmmorris": ["human", "bot:morris-random"],
        }[kind]
        options = {"action_time": 2, "showdown_pause": 0.1} if kind == "texas-holdem" else {}
        body = {"type": kind, "seats": seats, "sit": 0, "options": options}
        status, game = browser.json("POST", "/api/games", body)
        if status != 201:
            # logged out by a fuzzed request (hold'em needs an account): log in again
            browser.json("POST", "/api/session", {"name": browser.account, "password": PASSWORD})
            return
        gid = game["id"]
        browser.games = (browser.games + [gid])[-5:]
        with self.lock:
            self.game_ids[:] = (self.game_ids + [gid])[-30:]
        base = f"/api/games/{gid}"
        actions = {
            "hello": [{"hello": "hi"}],
            "texas-holdem": [
                {"name": name, "amount": "4"} for name in ("fold", "check", "call", "bet", "raise")
            ],
            "nmmorris": [{"move": "A0"}, {"place": "A1"}],
        }[kind]
        valid += [
            ("POST", base + "/actions", {"action": rng.choice(actions)}),
            ("POST", base + "/chat", {"text": "hello table"}),
            ("POST", base + "/seats", {"seat": 1}),
            ("POST", base + "/bots", {"seat": 1, "bot": seats[1][4:]}),
        ]
        legal: list = []
        for _ in range(rng.randrange(1, 5)):
            self.fuzz(rng, browser, valid)
            action = rng.choice(legal) if legal else rng.choice(actions)
            status, answer = browser.json("POST", base + "/actions", {"action": action})
            if status == 200 and isinstance(answer, dict) and isinstance(answer.get("legal"), list):
                legal = [a for a in answer["legal"] if isinstance(a, dict)]
        if rng.random() < 0.5:
            browser.json("POST", base + "/leave", {})
            browser.games.remove(gid)

    def served(self) -> None:
        """A fresh browser gets a session and the game list."""
        fresh = Browser(self, self.rng)
        try:
            status, session = fresh.json("GET", "/api/session", kind="")
            assert status == 200 and isinstance(session, dict) and session["csrf"]
            status, games = fresh.json("GET", "/api/games", kind="")
            assert status == 200 and isinstance(games, list)
        finally:
            fresh.close()

    def close(self) -> None:
        for browser in self.browsers.values():
            browser.close()


TARGET = WebTarget


def test_fuzz_web_bounded(hub):
    """A few thousand fuzzed JSON API requests (the CI run)."""
    common.bounded(hub, TARGET)


@pytest.mark.slow
def test_fuzz_web_full(hub):
    """At least 10^5 fuzzed JSON API requests (``GAMEHUB_SOAK=full``)."""
    common.full(hub, TARGET)
