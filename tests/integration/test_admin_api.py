"""Issue 16, the admin API and its audit log, on a real ``twistd -n gamehub`` over real
HTTP, on SQLite and on PostgreSQL: every admin endpoint changes the hub's state and
writes one audit row (who, when, what, from where), and is refused without admin
rights (no credentials: 401; an account that is not an admin: 403) changing nothing;
``gamehub audit`` lists the rows, with those of ``gamehub account`` commands."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from tests.hubprocess import ROOT, HubProcess
from tests.plugins.test_new_games import drop
from tests.store.conftest import fresh_pg_schema, pg_base_dsn
from tests.web.test_web_api import Browser, wait_until

from .xmlsocket import XMLClient, ok

LOOPBACK = "tcp:0:interface=127.0.0.1"


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def hub(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("admin")
    if request.param == "sqlite":
        yield from _running(tmp, f"sqlite:{tmp}/data/hub.sqlite")
        return
    with fresh_pg_schema(pg_base_dsn()) as dsn:
        yield from _running(tmp, dsn)


def _running(tmp: Path, dsn: str):
    running = HubProcess(tmp, xml=LOOPBACK, web=LOOPBACK)
    running.extra = ["--db", dsn]
    running.dsn = dsn
    with running:
        yield running
    assert running.errors() == [], running.log()[-3000:]


def gamehub(hub: HubProcess, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "hub.cli", *args, "--db", hub.dsn],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=hub.tmp,
    )


def admin(hub: HubProcess, method: str, path: str, body: object = None) -> tuple[int, object]:
    status, raw, _ = hub.request(method, path, body, admin=True)
    return status, json.loads(raw) if raw else None


def audit(hub: HubProcess, **filters: str) -> list[dict]:
    query = "&".join(f"{k}={v}" for k, v in filters.items())
    status, rows = admin(hub, "GET", f"/api/admin/audit?{query}")
    assert status == 200, rows
    return rows


def person(hub: HubProcess, name: str) -> Browser:
    """A browser session logged in with a new account ``name``."""
    browser = Browser(hub)
    browser.start()
    status, body = browser.call("POST", "/api/accounts", {"name": name, "password": name + "-pw1"})
    assert status == 201, body
    return browser


def balance(browser: Browser) -> Decimal:
    status, body = browser.call("GET", "/api/account")
    assert status == 200, body
    return Decimal(body["balance"])


#: every admin action: (method, path, body)
ACTIONS = [
    ("POST", "/api/admin/kick", {"player": "nobody"}),
    ("POST", "/api/admin/games/none/close", None),
    ("POST", "/api/admin/chips", {"account": "nobody", "amount": "5"}),
    ("POST", "/api/admin/ban", {"address": "192.0.2.1"}),
    ("POST", "/api/admin/unban", {"address": "192.0.2.1"}),
    ("POST", "/api/admin/plugins/tictactoe/unload", None),
    ("POST", "/api/admin/plugins/tictactoe/reload", None),
    ("GET", "/api/admin/bans", None),
    ("GET", "/api/admin/audit", None),
]


def test_every_admin_endpoint_is_refused_without_admin_rights(hub):
    before = len(audit(hub))
    player = person(hub, "notadmin")
    for method, path, body in ACTIONS:
        status, raw, _ = hub.request(method, path, body)
        assert status == 401 and b"API token" in raw, (path, raw)
        status, raw, _ = hub.request(method, path, body, headers={"Authorization": "Bearer no"})
        assert status == 401, (path, raw)
        status, answer = player.call(method, path, body)
        assert status == 403 and "not an admin" in answer["error"], (path, answer)
    assert len(audit(hub)) == before  # nothing was done, nothing audited
    assert hub.get_json("/api/health")["status"] == "ok"


def test_chips_are_granted_and_revoked_through_the_ledger(hub):
    ann = person(hub, "ann-chips")
    assert balance(ann) == Decimal("1000.00")
    status, answer = admin(
        hub, "POST", "/api/admin/chips", {"account": "ann-chips", "amount": "250.50"}
    )
    assert status == 200 and answer["balance"] == "1250.50", answer
    status, answer = admin(
        hub, "POST", "/api/admin/chips", {"account": "ann-chips", "amount": "-50.50"}
    )
    assert status == 200 and answer["balance"] == "1200.00", answer
    assert balance(ann) == Decimal("1200.00")
    status, answer = admin(
        hub, "POST", "/api/admin/chips", {"account": "ann-chips", "amount": "-5000"}
    )
    assert status == 422, answer
    assert balance(ann) == Decimal("1200.00")
    rows = audit(hub, target="ann-chips", action="chips")
    assert [r["detail"]["amount"] for r in rows] == ["-5000", "-50.50", "250.50"]
    assert rows[0]["outcome"].startswith("refused:") and rows[1]["outcome"] == "ok"
    assert {(r["actor"], r["via"], r["source"]) for r in rows} == {
        ("api-token", "api", "127.0.0.1")
    }
    assert all(r["created"] for r in rows)
    status, metrics, _ = hub.request("GET", "/metrics", admin=True)
    assert status == 200
    assert re.search(rb'^gamehub_ledger_movements_total\{kind="grant"\} [2-9]', metrics, re.M)
    assert re.search(rb'^gamehub_admin_actions_total\{action="chips"\} [3-9]', metrics, re.M)
    result = gamehub(hub, "ledger", "check")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_kicked_player_loses_its_seats_sessions_and_connections(hub):
    kim = person(hub, "kim")
    status, game = kim.call(
        "POST", "/api/games", {"type": "hello", "seats": ["human", "human"], "sit": 0}
    )
    assert status == 201, game
    xml = XMLClient(hub.ports["xml"])
    assert ok(xml.login("kim", "kim-pw1", create=False))
    status, answer = admin(hub, "POST", "/api/admin/kick", {"player": "kim", "reason": "cheating"})
    assert status == 200, answer
    assert answer["left"] == [{"game": game["id"], "seat": 0}] and answer["connections"] == 2
    seats = hub.get_json(f"/api/games/{game['id']}")["seats"]
    assert seats[0]["player"] != "kim" or not seats[0].get("present", True), seats
    status, _ = kim.call("GET", "/api/account")
    assert status == 401  # the browser's session ended
    with pytest.raises((ConnectionError, OSError)):
        for _ in range(100):  # lobby updates, then the notice, then the close
            xml.next()
    assert any(b"cheating" in frame for frame in xml.frames)
    (row,) = audit(hub, action="kick", target="kim")
    assert row["outcome"] == "ok" and row["detail"] == {"reason": "cheating"}
    status, answer = admin(hub, "POST", "/api/admin/kick", {"player": "kim"})
    assert status == 404  # nothing left to kick; audited as refused
    assert audit(hub, action="kick", target="kim")[0]["outcome"].startswith("refused:")


def test_closing_a_chip_table_gives_the_chips_back(hub):
    cara = person(hub, "cara")
    status, game = cara.call(
        "POST", "/api/games", {"type": "texas-holdem", "seats": ["human", "human"], "sit": 0}
    )
    assert status == 201, game
    assert balance(cara) < Decimal("1000.00")
    status, answer = admin(hub, "POST", f"/api/admin/games/{game['id']}/close")
    assert status == 200 and answer["chip_table"] is True, answer
    status, _, _ = hub.request("GET", f"/api/games/{game['id']}")
    assert status == 404
    assert balance(cara) == Decimal("1000.00")
    status, _ = admin(hub, "POST", f"/api/admin/games/{game['id']}/close")
    assert status == 404
    rows = audit(hub, action="close_game", target=game["id"])
    assert [r["outcome"][:7] for r in rows] == ["refused", "ok"]
    result = gamehub(hub, "ledger", "check")
    assert result.returncode == 0, result.stdout + result.stderr


def _served_from(hub: HubProcess, source: str) -> bool:
    conn = http.client.HTTPConnection(
        "127.0.0.1", hub.ports["web"], timeout=10, source_address=(source, 0)
    )
    try:
        conn.request("GET", "/api/health")
        return conn.getresponse().status == 200
    except (ConnectionError, http.client.HTTPException, OSError):
        return False
    finally:
        conn.close()


def test_a_banned_address_is_refused_on_every_front_end_until_unbanned(hub):
    assert _served_from(hub, "127.0.0.2")
    open_xml = XMLClient(hub.ports["xml"], source="127.0.0.2")
    status, answer = admin(
        hub, "POST", "/api/admin/ban", {"address": "127.0.0.2", "reason": "flood", "force": True}
    )
    assert status == 200 and answer["connections"] >= 1, answer
    with pytest.raises((ConnectionError, OSError)):
        for _ in range(10):
            open_xml.next()
    assert not _served_from(hub, "127.0.0.2")
    with pytest.raises((ConnectionError, OSError)):
        XMLClient(hub.ports["xml"], source="127.0.0.2", timeout=5)
    assert _served_from(hub, "127.0.0.1")  # the others are served
    status, bans = admin(hub, "GET", "/api/admin/bans")
    assert [b["address"] for b in bans] == ["127.0.0.2"] and bans[0]["actor"] == "api-token"
    status, answer = admin(hub, "POST", "/api/admin/ban", {"address": "not-an-address"})
    assert status == 400
    status, answer = admin(hub, "POST", "/api/admin/unban", {"address": "127.0.0.2"})
    assert status == 200, answer
    assert _served_from(hub, "127.0.0.2")
    assert [r["action"] for r in audit(hub, target="127.0.0.2")] == ["unban", "ban"]
    status, answer = admin(hub, "POST", "/api/admin/unban", {"address": "127.0.0.2"})
    assert status == 404


def test_a_dropped_in_plugin_is_unloaded_and_reloaded(hub):
    drop(hub.data, "tictactoe")

    def status_of(name: str) -> str | None:
        index = {p["name"]: p for p in hub.get_json("/plugins/index.json")["plugins"]}
        return index.get(name, {}).get("status")

    wait_until(lambda: status_of("tictactoe") == "loaded", "the plugin loaded", 15.0)
    status, answer = admin(hub, "POST", "/api/admin/plugins/tictactoe/unload")
    assert status == 200 and answer["status"] == "unloaded", answer
    assert status_of("tictactoe") is None
    status, raw, _ = hub.request("POST", "/api/games", {"type": "tictactoe"})
    assert status == 404, raw
    status, answer = admin(hub, "POST", "/api/admin/plugins/tictactoe/reload")
    assert status == 200 and answer["status"] == "loaded", answer
    assert status_of("tictactoe") == "loaded"
    status, answer = admin(hub, "POST", "/api/admin/plugins/tictactoe/reload")
    assert status == 200 and answer["status"] == "loaded", answer  # read again
    status, answer = admin(hub, "POST", "/api/admin/plugins/hello/unload")
    assert status == 409 and "built in" in answer["error"]
    actions = [r["action"] for r in audit(hub, limit="4")]
    assert actions == ["plugin_unload", "plugin_reload", "plugin_reload", "plugin_unload"]


def test_an_admin_account_session_is_an_admin_and_the_cli_lists_every_row(hub):
    result = gamehub(
        hub, "account", "create", "boss", "--type", "admin", "--password-stdin", stdin="boss-pw1\n"
    )
    assert result.returncode == 0, result.stderr
    result = gamehub(hub, "account", "grant", "boss", "10")
    assert result.returncode == 0, result.stderr
    boss = Browser(hub)
    boss.start()
    status, body = boss.call("POST", "/api/session", {"name": "boss", "password": "boss-pw1"})
    assert status == 200, body
    status, answer = boss.call("POST", "/api/admin/chips", {"account": "boss", "amount": "1"})
    assert status == 200 and answer["balance"] == "1011.00", answer
    status, answer = boss.call(
        "POST", "/api/admin/chips", {"account": "boss", "amount": "1"}, csrf=False
    )
    assert status == 403  # a session's write needs its CSRF token
    status, _, _ = hub.request("GET", "/metrics", headers={"Cookie": boss.cookie})
    assert status == 200
    rows = audit(hub, target="boss")
    assert [(r["action"], r["actor"], r["via"]) for r in rows[:3]] == [
        ("chips", "boss", "api"),
        ("account_grant", rows[1]["actor"], "cli"),
        ("account_create", rows[1]["actor"], "cli"),
    ]
    assert "@" in rows[1]["source"]  # user@host of the command
    listed = gamehub(hub, "audit", "--target", "boss")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[-1] == "3 row(s)"
    assert "boss (api from 127.0.0.1) chips boss" in lines[0] and lines[0].endswith(": ok")
    assert " account_create boss " in lines[2]
    as_json = gamehub(hub, "audit", "--json", "--limit", "1")
    assert json.loads(as_json.stdout.splitlines()[0])["action"] == "chips"
    assert "boss-pw1" not in json.dumps(audit(hub, limit="1000"))
