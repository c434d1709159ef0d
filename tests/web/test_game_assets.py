"""What games bring to the web pages (issue 34, point 5; issue 35's rules pages): each
game's stylesheet and history panel come from its plugin (``IWebAssets``), its rules
text too (``IGameRules``); the hub's own static files style and show no game."""

from __future__ import annotations

import json

from hub.frontends.web import STATIC

BUILT_IN = ("hello", "nmmorris", "kingdomino", "texas-holdem", "five-card-draw", "holdem-sng")


def types(hub) -> dict[str, dict]:
    return {t["name"]: t for t in hub.get_json("/api/types")["types"]}


def test_every_built_in_game_brings_its_styles_and_rules(hub):
    found = types(hub)
    for name in BUILT_IN:
        t = found[name]
        assert t["styles"] == f"/plugin-scripts/{name}.css", name
        assert t["rules"] == f"/rules/{name}", name
        status, body, headers = hub.request("GET", t["styles"])
        assert status == 200 and headers["Content-Type"].startswith("text/css"), name
        assert body.strip(), name
        rules = hub.get_json(f"/api/rules/{name}")
        assert rules["type"] == name and rules["summary"] == t["summary"]
        assert rules["text"].startswith("# "), name  # a heading first
    # the hub's stylesheet draws no game: the games' own selectors are in theirs
    hub_css = (STATIC / "style.css").read_text(encoding="utf-8")
    for selector in (".poker-table", "svg.morris", ".kingdom-grid", ".hello-seat"):
        assert selector not in hub_css


def test_the_poker_history_panel_comes_from_the_poker_plugin(hub):
    found = types(hub)
    assert found["texas-holdem"]["history"] == "/plugin-scripts/texas-holdem.history.js"
    assert found["nmmorris"]["history"] is None
    status, body, headers = hub.request("GET", found["texas-holdem"]["history"])
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    assert b'HistoryPanels["poker-hands"]' in body and b"crypto.subtle.digest" in body
    page = (STATIC / "history.html").read_text(encoding="utf-8")
    script = (STATIC / "history.js").read_text(encoding="utf-8")
    assert "Poker" not in page and "verify" not in page.lower()
    assert "crypto" not in script and "/api/hands" not in script


def test_a_game_without_assets_or_rules_gets_404s(hub):
    press = types(hub)["press"]  # a drop-in game with a page script only
    assert press["script"] == "/plugin-scripts/press.js"
    assert press["styles"] is None and press["history"] is None and press["rules"] is None
    for path in ("/plugin-scripts/press.css", "/plugin-scripts/press.history.js"):
        assert hub.request("GET", path)[0] == 404, path
    status, body, _ = hub.request("GET", "/api/rules/press")
    assert status == 404 and "ships no rules" in json.loads(body)["error"]
    for path in (
        "/api/rules/no-such-game",
        "/api/rules/",
        "/api/rules/hello/x",
        "/plugin-scripts/hello.history.css",
        "/plugin-scripts/../style.css",
        "/plugin-scripts/HELLO.css",
    ):
        assert hub.request("GET", path)[0] == 404, path


def test_the_rules_pages_are_served(hub):
    for path in ("/rules", "/rules/nmmorris", "/rules/anything"):
        status, body, headers = hub.request("GET", path)
        assert status == 200 and b"/static/rules.js" in body, path
    assert hub.request("GET", "/rules/a/b")[0] == 404
