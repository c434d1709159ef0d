"""The web front end's play API, sessions and event streams over real loopback HTTP."""

from __future__ import annotations

import http.client
import json
import socket
import time
from decimal import Decimal

import pytest

from tests.support import wait_until

from .conftest import start_hub


class Browser:
    """A minimal cookie-keeping HTTP client for one hub (one browser's session)."""

    def __init__(self, hub) -> None:
        self.hub = hub
        self.cookie: str | None = None
        self.csrf: str | None = None

    def call(self, method: str, path: str, body=None, csrf: bool = True, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.hub.ports["web"], timeout=10)
        sent = {"Content-Type": "application/json"}
        if self.cookie:
            sent["Cookie"] = self.cookie
        if csrf and self.csrf and method != "GET":
            sent["X-CSRF-Token"] = self.csrf
        sent.update(headers or {})
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        raw = response.read()
        cookie = response.getheader("Set-Cookie")
        conn.close()
        if cookie:
            self.set_cookie = cookie
            self.cookie = cookie.split(";", 1)[0]
        payload = json.loads(raw) if raw and raw[:1] in b"[{" else raw
        if isinstance(payload, dict) and "csrf" in payload:
            self.csrf = payload["csrf"]
        return response.status, payload

    def start(self) -> dict:
        status, session = self.call("GET", "/api/session")
        assert status == 200
        return session


def create(hub, **body) -> dict:
    status, raw, _ = hub.request("POST", "/api/games", body)
    assert status == 201, raw
    return json.loads(raw)


class Stream:
    """A raw event-stream reader (a socket we can drop at will)."""

    def __init__(self, hub, path: str, cookie: str | None = None) -> None:
        self.sock = socket.create_connection(("127.0.0.1", hub.ports["web"]), timeout=10)
        headers = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if cookie:
            headers += f"Cookie: {cookie}\r\n"
        self.sock.sendall((headers + "\r\n").encode())
        self.buffer = b""

    def read_until(self, text: bytes, seconds: float = 10.0) -> bytes:
        deadline = time.monotonic() + seconds
        while text not in self.buffer:
            assert time.monotonic() < deadline, f"no {text!r} in {self.buffer[-500:]!r}"
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            self.buffer += chunk
        return self.buffer

    def events(self) -> list[tuple[str, dict]]:
        found = []
        for block in self.buffer.decode("utf-8", "replace").split("\n\n"):
            lines = [line for line in block.splitlines() if line.startswith(("event:", "data:"))]
            if len(lines) == 2:
                found.append((lines[0][6:].strip(), json.loads(lines[1][5:])))
        return found

    def close(self) -> None:
        self.sock.close()


def test_session_cookie_is_httponly_samesite_strict(hub):
    browser = Browser(hub)
    session = browser.start()
    assert session["logged_in"] is False and session["name"].startswith("guest-")
    cookie = browser.set_cookie
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert len(browser.cookie.split("=", 1)[1]) >= 40
    again = browser.start()
    assert again["name"] == session["name"] and again["csrf"] == session["csrf"]


def test_writes_need_the_csrf_token_and_same_origin(hub):
    game = create(hub, type="hello", seats=["human", "open"])
    browser = Browser(hub)
    browser.start()
    status, answer = browser.call("POST", f"/api/games/{game['id']}/seats", {}, csrf=False)
    assert status == 403 and "CSRF" in answer["error"]
    status, answer = browser.call(
        "POST",
        f"/api/games/{game['id']}/seats",
        {},
        headers={"X-CSRF-Token": "wrong"},
    )
    assert status == 403
    status, answer = browser.call(
        "POST", "/api/games", {"type": "hello"}, headers={"Origin": "http://evil.example"}
    )
    assert status == 403 and "cross-site" in answer["error"]
    assert all(s["player"] is None for s in hub.get_json(f"/api/games/{game['id']}")["seats"])
    # seats need a session at all
    status, answer = Browser(hub).call("POST", f"/api/games/{game['id']}/seats", {})
    assert status == 401


def test_take_a_human_seat_act_and_leave(hub):
    game = create(hub, type="hello", seats=["human", "bot:hello-bot"])
    gid = game["id"]
    browser = Browser(hub)
    me = browser.start()["name"]
    status, answer = browser.call("POST", f"/api/games/{gid}/actions", {"action": {"hello": "x"}})
    assert status == 409 and "no seat" in answer["error"]
    status, answer = browser.call("POST", f"/api/games/{gid}/seats", {"seat": 0})
    assert status == 200 and answer["seat"] == 0
    seat = hub.get_json(f"/api/games/{gid}")["seats"][0]
    assert seat == {"seat": 0, "player": me, "kind": "human", "present": True}
    status, answer = browser.call("POST", f"/api/games/{gid}/seats", {"seat": 1})
    assert status == 409  # already seated / taken
    status, answer = browser.call("POST", f"/api/games/{gid}/actions", {"action": {"hello": ""}})
    assert status == 400 and "non-empty" in answer["error"]
    status, answer = browser.call("POST", f"/api/games/{gid}/actions", {"action": "hello"})
    assert status == 400
    status, answer = browser.call("POST", f"/api/games/{gid}/actions", {"action": {"hello": "hi"}})
    assert status == 200 and answer["legal"] == []
    wait_until(lambda: hub.get_json(f"/api/games/{gid}")["state"] == "over", "the game to end")
    transcript = hub.request("GET", f"/api/games/{gid}/transcript")[1].decode()
    assert f'web:{me}~!{me} in  seat 0 action {{"hello":"hi"}}' in transcript
    assert "refused (400)" in transcript
    # (finished games are written to the history together, a little after their end)
    wait_until(
        lambda: gid in [g["game_id"] for g in hub.get_json("/api/history?type=hello")],
        "the game in the history",
    )
    history = hub.get_json("/api/history?type=hello")
    mine = next(g for g in history if g["game_id"] == gid)
    assert [p["name"] for p in mine["players"]] == [me, "hello-bot"]
    stats = hub.get_json("/api/stats?type=hello")
    assert any(r["name"] == me and r["wins"] >= 1 for r in stats["leaderboard"])

    other = create(hub, type="hello", seats=["open", "open"])
    status, _ = browser.call("POST", f"/api/games/{other['id']}/seats", {})
    assert status == 200
    status, answer = browser.call("POST", f"/api/games/{other['id']}/leave", {})
    assert status == 200 and answer["left"] == 0
    # hello reopens a seat left before the game started
    assert hub.get_json(f"/api/games/{other['id']}")["seats"][0]["player"] is None
    assert browser.call("POST", f"/api/games/{other['id']}/leave", {})[0] == 409


def test_give_an_open_seat_to_a_bot(hub):
    game = create(hub, type="hello", seats=["open", "open"])
    browser = Browser(hub)
    browser.start()
    status, answer = browser.call(
        "POST", f"/api/games/{game['id']}/bots", {"seat": 0, "bot": "no-such-bot"}
    )
    assert status == 404
    status, answer = browser.call(
        "POST", f"/api/games/{game['id']}/bots", {"seat": 0, "bot": "hello-bot"}
    )
    assert status == 200 and answer["player"] == "hello-bot"
    status, answer = browser.call(
        "POST", f"/api/games/{game['id']}/bots", {"seat": 0, "bot": "hello-bot"}
    )
    assert status == 409
    status, answer = browser.call(
        "POST", f"/api/games/{game['id']}/bots", {"seat": 1, "bot": "hello-bot"}
    )
    assert status == 200 and answer["player"] == "hello-bot-2"
    wait_until(lambda: hub.get_json(f"/api/games/{game['id']}")["state"] == "over", "bots")


def test_game_stream_snapshot_events_and_observer_removed_on_drop(hub):
    game = create(hub, type="hello", seats=["human", "open"])
    gid = game["id"]
    browser = Browser(hub)
    browser.start()
    status, _ = browser.call("POST", f"/api/games/{gid}/seats", {"seat": 0})
    assert status == 200
    mine = Stream(hub, f"/api/games/{gid}/events", cookie=browser.cookie)
    watcher = Stream(hub, f"/api/games/{gid}/events")
    mine.read_until(b"event: snapshot")
    watcher.read_until(b"event: snapshot")
    wait_until(lambda: hub.get_json(f"/api/games/{gid}")["observers"] == 2, "two observers")
    assert mine.events()[0][1]["seat"] == 0
    assert watcher.events()[0][1]["seat"] is None
    status, _ = Browser(hub).start() and (200, None)
    other = Browser(hub)
    other.start()
    status, _ = other.call("POST", f"/api/games/{gid}/seats", {"seat": 1})
    assert status == 200
    mine.read_until(b'"legal":[{"hello":""}]')
    status, _ = browser.call("POST", f"/api/games/{gid}/actions", {"action": {"hello": "yo"}})
    assert status == 200
    watcher.read_until(b"Hello from")
    mine.read_until(b"Hello from")
    assert browser.call("POST", f"/api/games/{gid}/chat", {"text": "my own line"})[0] == 200
    # while the game runs, only its players read (their own lines) and admins
    status, refused, _ = hub.request("GET", f"/api/games/{gid}/transcript")
    assert status == 401 and b"players and admins" in refused  # no credentials at all
    status, raw = browser.call("GET", f"/api/games/{gid}/transcript")
    transcript = raw.decode()
    me = browser.start()["name"]
    assert status == 200
    assert f'web:{me}~!{me} out {{"kind":"hello"' in transcript  # the seated stream is recorded
    assert transcript.count('out {"kind":"hello"') == 1  # the spectator's is not
    assert f"web:{me}~!{me} in  chat my own line" in transcript  # chat lines are theirs too
    assert "game created" not in transcript  # the player reads only their own lines
    kinds = [data["kind"] for event, data in watcher.events() if event == "game"]
    assert "seated" in kinds and "turn" in kinds and "hello" in kinds
    # dropping the connection removes the observer at once
    watcher.close()
    wait_until(lambda: hub.get_json(f"/api/games/{gid}")["observers"] == 1, "observer removed")
    mine.close()
    wait_until(lambda: hub.get_json(f"/api/games/{gid}")["observers"] == 0, "no observers")


def test_lobby_stream_and_unknown_game_stream(hub):
    lobby = Stream(hub, "/api/lobby/events")
    lobby.read_until(b"event: snapshot")
    game = create(hub, type="hello", name="Streamed")
    lobby.read_until(game["id"].encode())
    assert any(e == "game" and d["id"] == game["id"] for e, d in lobby.events())
    lobby.close()
    status, body, headers = hub.request("GET", "/api/games/nosuchgame123/events")
    assert status == 404 and "error" in json.loads(body)


@pytest.mark.parametrize("path", ["/", "/history", "/stats", "/plugins", "/account", "/game/x"])
def test_pages_are_served_with_a_strict_policy(hub, path):
    status, body, headers = hub.request("GET", path)
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    assert b"http://" not in body and b"https://" not in body  # nothing from other hosts


def test_static_files_have_no_listing_and_no_escape(hub):
    assert hub.request("GET", "/static/")[0] == 404
    assert hub.request("GET", "/static/../api/health")[0] in (200, 404)  # normalised
    assert hub.request("GET", "/static/%2e%2e/__init__.py")[0] == 404
    status, body, headers = hub.request("GET", "/static/common.js")
    assert status == 200 and b"EventSource" in body


def test_accounts_create_login_logout_password_delete(hub):
    browser = Browser(hub)
    guest = browser.start()
    status, answer = browser.call(
        "POST", "/api/accounts", {"name": "webber", "password": "s3cret-pw"}
    )
    assert status == 201, answer
    assert answer["logged_in"] and answer["name"] == "webber"
    assert answer["csrf"] != guest["csrf"]  # a new session (token and CSRF) on login
    status, account = browser.call("GET", "/api/account")
    assert status == 200 and account["name"] == "webber"
    assert "." in account["balance"] or account["balance"].isdigit()
    status, answer = browser.call(
        "POST", "/api/accounts", {"name": "webber", "password": "other-pw1"}
    )
    assert status == 409
    status, answer = browser.call(
        "POST", "/api/account/password", {"old": "wrong-pw", "new": "n3w-secret"}
    )
    assert status == 401
    status, answer = browser.call(
        "POST", "/api/account/password", {"old": "s3cret-pw", "new": "n3w-secret"}
    )
    assert status == 200
    status, answer = browser.call("DELETE", "/api/session")
    assert status == 200 and not answer["logged_in"]
    assert browser.call("GET", "/api/account")[0] == 401
    status, answer = browser.call(
        "POST", "/api/session", {"name": "webber", "password": "s3cret-pw"}
    )
    assert status == 401 and "wrong account name or password" in answer["error"]
    status, answer = browser.call(
        "POST", "/api/session", {"name": "webber", "password": "n3w-secret"}
    )
    assert status == 200 and answer["account"] == "webber"
    status, answer = browser.call("DELETE", "/api/account", {"password": "nope-nope"})
    assert status == 401
    status, answer = browser.call("DELETE", "/api/account", {"password": "n3w-secret"})
    assert status == 200 and answer["deleted"] == "webber" and not answer["logged_in"]
    status, answer = browser.call(
        "POST", "/api/session", {"name": "webber", "password": "n3w-secret"}
    )
    assert status == 401


@pytest.fixture
def own_hub(tmp_path):
    """A hub of its own (the throttle's delays would disturb other tests), whose
    delays are long enough that no test step outruns them."""
    running = start_hub(tmp_path, extra=["--set", "login_delay_base=600"])
    try:
        yield running
    finally:
        running.stop()


def test_failed_logins_are_throttled_like_the_xml_protocol(own_hub):
    hub = own_hub
    browser = Browser(hub)
    browser.start()
    status, _ = browser.call(
        "POST", "/api/accounts", {"name": "throttled", "password": "right-pw1"}
    )
    assert status == 201
    other = Browser(hub)
    other.start()
    codes = []
    for _ in range(8):
        status, answer = other.call(
            "POST", "/api/session", {"name": "throttled", "password": "wrong-pw1"}
        )
        codes.append(status)
        if status == 429:
            assert "too many failed logins" in answer["error"]
            break
    assert codes[0] == 401 and codes[-1] == 429
    status, answer = other.call(
        "POST", "/api/session", {"name": "throttled", "password": "right-pw1"}
    )
    assert status == 429  # even the right password waits out the delay from this address


def test_login_needs_csrf_once_a_session_exists(hub):
    browser = Browser(hub)
    browser.start()
    status, answer = browser.call(
        "POST", "/api/session", {"name": "x", "password": "y"}, csrf=False
    )
    assert status == 403


def test_history_hands_and_stats_answer_and_check_their_arguments(hub):
    assert isinstance(hub.get_json("/api/hands"), list)
    for path in ("/api/history?limit=0", "/api/history?limit=x", "/api/hands?limit=5000"):
        status, body, _ = hub.request("GET", path)
        assert status == 400 and "limit" in json.loads(body)["error"], path
    stats = hub.get_json("/api/stats")
    assert set(stats) == {"leaderboard", "series", "games"}


def test_api_token_header_is_checked_not_crashed_on(tmp_path):
    from tests.hubprocess import HubProcess

    from .plugins import install_first_legal

    hub = HubProcess(tmp_path, web="tcp:0:interface=127.0.0.1")
    hub.extra = ["--api-token", "s3cret"]
    install_first_legal(hub.data)
    with hub:
        for auth in ("Bearer s3cret", "Bearer wrong"):
            conn = http.client.HTTPConnection("127.0.0.1", hub.ports["web"], timeout=10)
            conn.request(
                "POST",
                "/api/games",
                body=json.dumps({"type": "hello"}),
                headers={"Authorization": auth, "Content-Type": "application/json"},
            )
            response = conn.getresponse()
            response.read()
            conn.close()
            assert response.status == 201, auth  # loopback may write; the header never breaks it
        assert hub.errors() == []


def test_history_and_transcript_replay_survive_a_restart(tmp_path):
    first = start_hub(tmp_path / "one")
    try:
        game = create(first, type="hello", seats=["bot:hello-bot", "bot:hello-bot"])
        wait_until(
            lambda: any(g["game_id"] == game["id"] for g in first.get_json("/api/history")),
            "the finished game in the history",
        )
    finally:
        first.stop()
    from tests.hubprocess import HubProcess

    from .plugins import install_first_legal

    (tmp_path / "again").mkdir()
    restarted = HubProcess(tmp_path / "again", data=first.data, web="tcp:0:interface=127.0.0.1")
    install_first_legal(restarted.data)
    with restarted:
        history = restarted.get_json("/api/history?type=hello")
        row = next(g for g in history if g["game_id"] == game["id"])
        assert [p["name"] for p in row["players"]] == ["hello-bot", "hello-bot-2"]
        assert row["summary"] == "2 of 2 said hello"
        status, text, _ = restarted.request("GET", f"/api/games/{game['id']}/transcript")
        assert status == 200 and b"game over" in text
        stats = restarted.get_json("/api/stats?type=hello")
        assert {r["name"] for r in stats["leaderboard"]} >= {"hello-bot", "hello-bot-2"}


def test_an_account_keeps_its_web_seat_across_logins(hub):
    browser = Browser(hub)
    browser.start()
    status, _ = browser.call("POST", "/api/accounts", {"name": "sticky", "password": "sticky-pw1"})
    assert status == 201
    game = create(hub, type="hello", seats=["human", "open"])
    assert browser.call("POST", f"/api/games/{game['id']}/seats", {"seat": 0})[0] == 200
    assert browser.call("DELETE", "/api/session")[0] == 200
    status, answer = browser.call("POST", f"/api/games/{game['id']}/actions", {"action": {}})
    assert status == 409  # a guest now: not the seat's owner
    status, _ = browser.call("POST", "/api/session", {"name": "sticky", "password": "sticky-pw1"})
    assert status == 200
    status, answer = browser.call(
        "POST", f"/api/games/{game['id']}/actions", {"action": {"hello": "back"}}
    )
    assert status == 422 and "not started" in answer["error"]  # my seat; the game waits
    assert browser.start()["seats"] == {game["id"]: 0}


def _frame(sock: socket.socket) -> bytes:
    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    return exactly(int.from_bytes(exactly(4), "big"))


def test_web_and_xml_share_accounts(tmp_path):
    from hub.frontends.xml import codec

    hub = start_hub(tmp_path, xml="tcp:0:interface=127.0.0.1")
    try:
        with socket.create_connection(("127.0.0.1", hub.ports["xml"]), timeout=10) as sock:
            _frame(sock)  # the server's info
            create_doc = (
                b'<message><request><accountmanagement><create accountname="xmlfan" '
                b'password="xml-secret1" accounttype="0"/></accountmanagement></request></message>'
            )
            sock.sendall(len(create_doc).to_bytes(4, "big") + create_doc)
            created = codec.parse_document(_frame(sock))
            assert created.find("response/accountmanagement/create").get("success") == "true"
        browser = Browser(hub)
        browser.start()
        status, answer = browser.call(
            "POST", "/api/session", {"name": "xmlfan", "password": "xml-secret1"}
        )
        assert status == 200 and answer["account"] == "xmlfan"
        status, _ = browser.call(
            "POST", "/api/accounts", {"name": "webfan", "password": "web-secret1"}
        )
        assert status == 201
        with socket.create_connection(("127.0.0.1", hub.ports["xml"]), timeout=10) as sock:
            _frame(sock)
            login_doc = (
                b'<message><request><authentication><login accountname="webfan" '
                b'password="web-secret1"/></authentication></request></message>'
            )
            sock.sendall(len(login_doc).to_bytes(4, "big") + login_doc)
            login = codec.parse_document(_frame(sock))
            assert login.find("response/authentication/login").get("balance") == "1000.00"
    finally:
        hub.stop()
    assert hub.errors() == [], hub.log()


def test_a_web_poker_seat_buys_in_through_the_ledger_first(hub):
    browser = Browser(hub)
    browser.start()
    status, _ = browser.call("POST", "/api/accounts", {"name": "chipper", "password": "chips-pw1"})
    assert status == 201
    balance = lambda: browser.call("GET", "/api/account")[1]["balance"]  # noqa: E731
    before = balance()
    game = create(hub, type="texas-holdem", seats=["human", "open"], options={"stakes": "10/20"})
    # more than the account holds: refused, and no chip moves
    status, answer = browser.call(
        "POST", f"/api/games/{game['id']}/seats", {"seat": 0, "amount": "1000000"}
    )
    assert status == 422, answer
    assert balance() == before
    assert hub.get_json(f"/api/games/{game['id']}")["seats"][0]["player"] is None
    # a normal buy-in comes out of the balance before the seat is taken
    status, answer = browser.call(
        "POST", f"/api/games/{game['id']}/seats", {"seat": 0, "amount": "200"}
    )
    assert status == 200, answer
    assert Decimal(balance()) == Decimal(before) - 200
    view = hub.get_json(f"/api/games/{game['id']}")
    assert view["seats"][0]["player"] == "chipper"


def test_a_creator_sits_at_a_chip_table_through_the_ledger_before_its_bots(hub):
    body = {"type": "texas-holdem", "seats": ["human", "bot:caller"], "sit": 0}
    guest = Browser(hub)
    guest.start()
    games = len(hub.get_json("/api/games"))
    status, answer = guest.call("POST", "/api/games", body)  # chips come from an account
    assert status == 401 and "log in" in answer["error"], answer
    assert len(hub.get_json("/api/games")) == games  # no table was made
    creator = Browser(hub)
    creator.start()
    assert (
        creator.call("POST", "/api/accounts", {"name": "sitter", "password": "sit-pw1"})[0] == 201
    )
    before = Decimal(creator.call("GET", "/api/account")[1]["balance"])
    status, game = creator.call(
        "POST", "/api/games", {**body, "options": {"stakes": "10/20", "buyin": "150"}}
    )
    assert status == 201 and game["seat"] == 0, game
    assert [s["player"] for s in game["seats"]] == ["sitter", "caller"]
    assert Decimal(creator.call("GET", "/api/account")[1]["balance"]) == before - 150
    replay = hub.get_json(f"/api/games/{game['id']}/replay")
    buyins = [e["data"] for e in replay["events"] if e["kind"] == "buyin"]
    # the creator first, then the bot (funded through the ledger: the hub seats no bot
    # at a chip table without a buy-in)
    assert [(b["name"], Decimal(b["amount"])) for b in buyins][:2] == [
        ("sitter", 150),
        ("caller", 150),
    ]


def test_a_replay_outlives_the_game_in_the_lobby_and_holds_no_private_event(tmp_path):
    from tests.hubprocess import HubProcess

    hub = HubProcess(tmp_path, web="tcp:0:interface=127.0.0.1")
    hub.extra = ["--set", "keep_finished=0.2"]
    with hub:
        game = create(hub, type="hello", seats=["bot:hello-bot", "bot:hello-bot"])
        wait_until(lambda: hub.request("GET", f"/api/games/{game['id']}")[0] == 404, "removal")
        replay = hub.get_json(f"/api/games/{game['id']}/replay")  # now from the store
        assert replay["game"]["id"] == game["id"] and replay["complete"] is True
        assert replay["script"] == "/plugin-scripts/hello.js"
        kinds = [e["kind"] for e in replay["events"]]
        assert kinds.count("hello") == 2 and kinds[-1] == "over"
        assert [s["name"] for s in replay["start"]["seats"]] == [None, None]
        assert hub.request("GET", "/api/games/nosuchgame123/replay")[0] == 404
    assert hub.errors() == [], hub.log()


def test_chat_over_http_checks_its_lines(hub):
    person = Browser(hub)
    person.start()
    game = create(hub, type="hello", seats=["open", "open"])
    for path in ("/api/chat", f"/api/games/{game['id']}/chat"):
        status, line = person.call("POST", path, {"text": "  hi <there>  "})
        assert status == 200 and line["text"] == "hi <there>" and line["guest"] is True
        assert person.call("POST", path, {"text": "x" * 2001})[0] == 413
        assert person.call("POST", path, {"text": ""})[0] == 400
        assert person.call("POST", path, {"text": "\u0007"})[0] == 400
        assert person.call("POST", path, {"text": 5})[0] == 400
        assert person.call("POST", path, {"text": "no token"}, csrf=False)[0] == 403
    assert person.call("POST", "/api/games/nosuchgame123/chat", {"text": "hi"})[0] == 404


def test_stored_hands_show_a_seat_s_private_part_to_its_player_only(hub):
    """A stored poker hand on ``/api/hands``: its public record for everyone, a seat's
    hole cards (its private part) to the account that sat there, the seed (its sealed
    part) to admins."""
    import sqlite3

    players = {}
    for name in ("handann", "handbob"):
        players[name] = Browser(hub)
        players[name].start()
        assert (
            players[name].call("POST", "/api/accounts", {"name": name, "password": "pw-12345"})[0]
            == 201
        )
    record = {"board": [0, 4, 8], "dealer": 0, "commitment": "ab" * 32, "showdown": None}
    with sqlite3.connect(hub.data / "hub.sqlite") as db:  # as a hub's settlement wrote it
        hand_id = db.execute(
            "INSERT INTO finished_hand (game_id, hand_key, game_type, ended, summary, record,"
            " sealed) VALUES ('webhands', 'webhands-1', 'texas-holdem',"
            " '2026-01-01T00:00:00.000000Z', 'board 2c 3c 4c', ?, ?) RETURNING hand_id",
            (json.dumps(record), json.dumps({"seed": "cd" * 32})),
        ).fetchone()[0]
        for seat, name, hole in ((0, "handann", [51, 50]), (1, "handbob", [49, 48])):
            db.execute(
                "INSERT INTO hand_seat (hand_id, seat, account, name, name_key, money_in,"
                " winnings, private) VALUES (?, ?, ?, ?, ?, 100, 0, ?)",
                (hand_id, seat, name, name, name, json.dumps({"hole": hole})),
            )
    path = "/api/hands?game=webhands"
    (public,) = hub.get_json(path)
    assert public["board"] == [0, 4, 8] and public["summary"] == "board 2c 3c 4c"
    assert public["hole"] == {} and public["seed"] is None and public["seed_withheld"]
    assert [p["money_in"] for p in public["players"]] == ["1.00", "1.00"]
    (ann,) = players["handann"].call("GET", path)[1]
    (bob,) = players["handbob"].call("GET", path)[1]
    assert ann["hole"] == {"0": [51, 50]} and bob["hole"] == {"1": [49, 48]}
    assert "[49, 48]" not in json.dumps(ann) and ann["seed"] is None
    status, raw, _ = hub.request("GET", path, admin=True)
    (admin,) = json.loads(raw)
    assert admin["seed"] == "cd" * 32 and admin["hole"] == {}
