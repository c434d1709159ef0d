"""``twistd -n gamehub`` end to end: real process, real loopback sockets."""

from __future__ import annotations

import json
import signal
import time

import pytest

from tests.hubprocess import HubProcess


@pytest.fixture
def hub(tmp_path):
    with HubProcess(tmp_path, web="tcp:0:interface=127.0.0.1") as running:
        yield running


def test_health_reports_bound_frontends(hub):
    health = hub.get_json("/api/health")
    assert health["status"] == "ok"
    assert health["frontends"] == {"web": hub.ports["web"]}
    assert health["plugins"] >= 2  # hello and hello-bot at least


def test_create_list_show_and_transcript(hub):
    status, body, headers = hub.request(
        "POST",
        "/api/games",
        {"type": "hello", "name": "Friday", "seats": ["open", "bot:hello-bot"]},
    )
    assert status == 201, body
    assert headers["Content-Type"].startswith("application/json")
    game = json.loads(body)
    assert game["type"] == "hello" and game["name"] == "Friday"
    assert [s["kind"] for s in game["seats"]] == ["open", "bot"]
    listed = hub.get_json("/api/games")
    assert [g["id"] for g in listed] == [game["id"]]
    one = hub.get_json(f"/api/games/{game['id']}")
    assert one["view"]["seats"][1]["name"] == "hello-bot"
    status, text, headers = hub.request("GET", f"/api/games/{game['id']}/transcript")
    assert status == 401  # the game is in play: its players and admins only
    status, text, headers = hub.request("GET", f"/api/games/{game['id']}/transcript", admin=True)
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    assert b"game created: type=hello" in text
    assert (hub.data / "transcripts" / f"{game['id']}.log").is_file()


@pytest.mark.parametrize(
    ("raw", "status", "words"),
    [
        (b"{not json", 400, "not valid JSON"),
        (b"[1, 2]", 400, "JSON object"),
        (b'{"type": "chess"}', 404, "chess"),
        (b'{"type": "hello", "seats": ["sofa"]}', 400, "not a seat"),
        (b'{"type": "hello", "seats": ["bot:nobody"]}', 404, "nobody"),
        (b'{"type": "hello", "colour": "red"}', 400, "unknown field"),
        (b'{"name": "no type"}', 400, "type"),
        (b'{"type": "hello", "seats": []}', 400, "seats"),
        (b"\xff\xfe", 400, "JSON"),
    ],
)
def test_bad_requests_get_json_errors(hub, raw, status, words):
    got, body, headers = hub.request("POST", "/api/games", raw=raw)
    assert got == status
    assert headers["Content-Type"].startswith("application/json")
    assert words in json.loads(body)["error"]
    assert hub.get_json("/api/games") == []


def test_unknown_game_and_paths(hub):
    for path in ("/api/games/nosuchgame123", "/api/games/nosuchgame123/transcript", "/api/nothing"):
        status, body, _ = hub.request("GET", path)
        assert status == 404, path
        assert "error" in json.loads(body)
    status, body, headers = hub.request("DELETE", "/api/health")
    assert status == 405


def test_sigterm_stops_cleanly(tmp_path):
    hub = HubProcess(tmp_path, web="tcp:0:interface=127.0.0.1").start()
    hub.request("POST", "/api/games", {"type": "hello"})
    # twistd shuts down, then re-raises the signal that stopped it to report it
    assert hub.stop(signal.SIGTERM) in (0, -signal.SIGTERM)
    assert "gamehub stopped" in hub.log()
    assert "Server Shut Down." in hub.log()
    assert hub.errors() == []


def test_schemas_are_published(hub):
    for name in ("message.xsd", "texas.xsd"):
        status, body, headers = hub.request("GET", f"/schema/{name}")
        assert status == 200, name
        assert b"<xs:schema" in body or b"<xsd:schema" in body
    status, _, _ = hub.request("GET", "/schema/../tap.py")
    assert status == 404


def test_history_of_finished_games(hub):
    status, body, _ = hub.request(
        "POST", "/api/games", {"type": "hello", "seats": ["bot:hello-bot"]}
    )
    game = json.loads(body)
    # the bot says hello on the next tick; the game is then over and recorded (bounded poll)
    deadline = time.monotonic() + 10
    history = []
    while time.monotonic() < deadline and not history:
        history = hub.get_json(f"/api/history?game={game['id']}")
        time.sleep(0.05)
    assert [h["game_id"] for h in history] == [game["id"]]
    assert history[0]["players"][0]["name"] == "hello-bot"
    assert history[0]["players"][0]["winner"] in (True, 1)
    assert hub.get_json("/api/history?type=hello&limit=5")[0]["game_id"] == game["id"]
    assert hub.get_json("/api/history?type=poker") == []
    status, body, _ = hub.request("GET", "/api/history?limit=0")
    assert status == 400 and "limit" in json.loads(body)["error"]
