"""Issue 21 item 1: every string is checked at the edge, JSON bodies have a depth limit.

Each reproducer of the issue goes to a real ``twistd -n gamehub`` over loopback HTTP; it
gets a 4xx, and nothing changed: no account, no game, no history row (read from the
hub's own SQLite file), nothing unhandled in the log (the module's fixture checks it).
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from .test_web_api import Browser

NESTED = b"[" * 5000 + b"]" * 5000
NESTED_OBJECT = b'{"a":' * 5000 + b"1" + b"}" * 5000


def _rows(hub) -> dict[str, int]:
    """Accounts, ledger rows and finished games the store holds; games the lobby lists."""
    db = sqlite3.connect(f"file:{hub.data / 'hub.sqlite'}?mode=ro", uri=True)
    try:
        counts = {
            table: db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: S608
            for table in ("account", "ledger", "game")
        }
    finally:
        db.close()
    counts["listed"] = len(hub.get_json("/api/games"))
    return counts


def _raw(browser: Browser, method: str, path: str, body: bytes) -> tuple[int, dict]:
    """Send ``body`` as it is (no JSON encoding) with the browser's cookie and token."""
    headers = {"Content-Type": "application/json"}
    if browser.cookie:
        headers |= {"Cookie": browser.cookie, "X-CSRF-Token": browser.csrf or ""}
    status, raw, _ = browser.hub.request(method, path, raw=body, headers=headers)
    return status, json.loads(raw)


@pytest.fixture
def guest(hub):
    browser = Browser(hub)
    browser.start()
    return browser


def test_a_password_with_a_lone_surrogate_creates_no_account(hub, guest):
    before = _rows(hub)
    status, answer = guest.call(
        "POST", "/api/accounts", {"name": "surro", "password": "pw\ud800x1"}
    )
    assert status == 400 and "Unicode" in answer["error"], answer
    assert _rows(hub) == before
    assert guest.call("POST", "/api/session", {"name": "surro", "password": "pw?x1"})[0] == 401


def test_a_login_name_with_a_lone_surrogate_is_refused_before_the_store(hub, guest):
    before = _rows(hub)
    status, answer = guest.call("POST", "/api/session", {"name": "ann\ud800", "password": "pw-12"})
    assert status == 400 and "Unicode" in answer["error"], answer
    assert _rows(hub) == before


def test_a_game_name_with_a_lone_surrogate_creates_no_game(hub):
    before = _rows(hub)
    body = {"type": "hello", "name": "g\ud800", "seats": ["bot:hello-bot", "bot:first-legal"]}
    status, raw, _ = hub.request("POST", "/api/games", body)
    assert status == 400 and b"Unicode" in raw, raw
    assert _rows(hub) == before


@pytest.mark.parametrize("body", [NESTED, NESTED_OBJECT], ids=["arrays", "objects"])
@pytest.mark.parametrize("path", ["/api/games", "/api/accounts", "/api/session"])
def test_a_deeply_nested_body_is_refused_and_changes_nothing(hub, guest, path, body):
    before = _rows(hub)
    status, answer = _raw(guest, "POST", path, body)
    assert status == 400 and "deeper than" in answer["error"], answer
    assert _rows(hub) == before


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"type": "hello", "name": "tab\there"}, "control characters"),
        ({"type": "hello", "name": "\u202eevil"}, "direction overrides"),
        ({"type": "hello", "name": "x" * 65}, "at most 64"),
        ({"type": "hello", "options": {"bad key": 1}}, "option name"),
        ({"type": "hello", "options": {"k": "\ufffe"}}, "noncharacters"),
        ({"type": "hello", "options": {"k": {"deep": 1}}}, "a value is"),
    ],
)
def test_game_fields_keep_their_character_classes(hub, body, words):
    before = _rows(hub)
    status, raw, _ = hub.request("POST", "/api/games", body)
    assert status == 400 and words in raw.decode(), raw
    assert _rows(hub) == before


def test_nan_and_infinity_are_not_json(hub):
    status, raw, _ = hub.request(
        "POST", "/api/games", raw=b'{"type": "hello", "options": {"x": NaN}}'
    )
    assert status == 400 and b"not valid JSON" in raw


def test_account_names_and_passwords_keep_their_rules(hub, guest):
    before = _rows(hub)
    for body in (
        {"name": "has space", "password": "pw-12345"},
        {"name": "x" * 33, "password": "pw-12345"},
        {"name": "okname", "password": "pw\x00zero"},
        {"name": "okname", "password": "pw"},
    ):
        status, answer = guest.call("POST", "/api/accounts", body)
        assert status == 400, (body, answer)
    assert _rows(hub) == before
    # within the rules: created (a game name of any script is fine too)
    status, _ = guest.call("POST", "/api/accounts", {"name": "okname", "password": "pw-12345"})
    assert status == 201
    status, raw, _ = hub.request("POST", "/api/games", {"type": "hello", "name": "Ünïcødé ♠ 游戏"})
    assert status == 201, raw


@pytest.mark.parametrize("byte", [b"\x0c", b"\x1c", b"\x1e", b"\x85", b"\x01"])
def test_a_header_with_a_control_character_is_a_bad_request(hub, byte):
    """Found by the fuzz suite: a Content-Type with a form feed, a file separator or a
    NEL (0x85) made Twisted's header parser raise (an unhandled error, no answer)."""
    import socket

    before = _rows(hub)
    body = b'{"type": "hello"}'
    request = (
        b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
        + byte
        + b"x\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )
    with socket.create_connection(("127.0.0.1", hub.ports["web"]), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert _rows(hub) == before
    assert hub.errors() == [], hub.log()[-3000:]
