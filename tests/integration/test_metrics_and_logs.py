"""Issue 16, metrics and logs, tried on a real ``twistd -n gamehub --log-format json``:
``/metrics`` over real HTTP (admin-only on the web port, open on ``metrics_endpoint``),
parsed with ``prometheus_client``'s own parser, its counters moving when games are
played; the JSON log of the session parses line by line, and every refusal in it is
one event with its front end, connection, game and kind."""

from __future__ import annotations

import json
import re
import socket
import time
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.hubprocess import HubProcess
from tests.web.test_web_api import wait_until

from .xmlsocket import XMLClient, ok

LOOPBACK = "tcp:0:interface=127.0.0.1"
_METRICS_PORT = re.compile(r"gamehub metrics listening on [^:]+:(\d+)")


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    running = HubProcess(
        tmp_path_factory.mktemp("metrics"),
        xml=LOOPBACK,
        mnm=LOOPBACK,
        web=LOOPBACK,
        acpc=LOOPBACK,
    )
    running.extra = ["--log-format", "json", "--set", f"metrics_endpoint={LOOPBACK}"]
    with running:
        yield running
    assert running.errors() == [], running.log()[-3000:]


def scrape(hub: HubProcess, admin: bool = True) -> dict[tuple[str, tuple], float]:
    """Every sample of the web port's ``/metrics``: (name, sorted labels) → value."""
    status, body, headers = hub.request("GET", "/metrics", admin=admin)
    assert status == 200, body
    assert headers["Content-Type"].startswith("text/plain; version=")
    return samples(body.decode())


def samples(text: str) -> dict[tuple[str, tuple], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(found: dict, name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def total(found: dict, name: str, **labels: str) -> float:
    """The sum over every series of ``name`` whose labels include ``labels``."""
    return sum(
        v for (n, items), v in found.items() if n == name and set(labels.items()) <= set(items)
    )


def test_metrics_are_for_admins_on_the_web_port(hub):
    status, body, headers = hub.request("GET", "/metrics")
    assert status == 401 and b"API token" in body  # as the admin API: no credentials
    assert headers["WWW-Authenticate"].startswith("Bearer")
    status, _, _ = hub.request("GET", "/metrics", headers={"Authorization": "Bearer wrong"})
    assert status == 401


def test_metrics_endpoint_of_its_own_needs_no_token(hub):
    match = _METRICS_PORT.search(hub.log())
    assert match, hub.log()[-2000:]
    with urllib.request.urlopen(f"http://127.0.0.1:{match.group(1)}/metrics", timeout=10) as r:
        found = samples(r.read().decode())
    assert value(found, "gamehub_info", version="1.0.0") == 1.0


def test_counters_move_when_games_are_played(hub):
    before = scrape(hub)
    # two bots play a hello game to the end; an XML player logs in and is refused once
    played = set()
    for _ in range(2):
        status, raw, _ = hub.request(
            "POST", "/api/games", {"type": "hello", "seats": ["bot:hello-bot", "bot:hello-bot"]}
        )
        assert status == 201, raw
        game = json.loads(raw)["id"]
        played.add(game)
        wait_until(lambda g=game: hub.get_json(f"/api/games/{g}")["state"] == "over", "game over")
    client = XMLClient(hub.ports["xml"])
    assert ok(client.login("metered", "pw-metered-1"))
    client.send(b"<not-a-request/>")
    client.next()
    client.close()
    # an MNM client that breaks the protocol
    with socket.create_connection(("127.0.0.1", hub.ports["mnm"]), timeout=10) as mnm:
        mnm.sendall(b"NONSENSE\n")
        mnm.settimeout(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and mnm.recv(4096):
            pass

    # an ACPC program that says its version, then a line that is no reply, and leaves
    with socket.create_connection(("127.0.0.1", hub.ports["acpc"]), timeout=10) as acpc:
        acpc.sendall(b"VERSION:2.0.0\nNONSENSE\n")
        acpc.settimeout(10)
        seen = b""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and b"warning" not in seen:
            seen += acpc.recv(4096)

    def moved() -> bool:
        after = scrape(hub)
        kept = {g["game_id"] for g in hub.get_json("/api/history?type=hello&limit=50")}
        return (
            played <= kept  # (finished games are written together, a little later)
            and value(after, "gamehub_connections_open", frontend="xml")
            == value(before, "gamehub_connections_open", frontend="xml")
            and value(after, "gamehub_connections_open", frontend="mnm") == 0
            and value(after, "gamehub_connections_open", frontend="acpc") == 0
        )

    wait_until(moved, "the connections closed")
    after = scrape(hub)
    grew = lambda name, **labels: total(after, name, **labels) - total(before, name, **labels)  # noqa: E731
    assert grew("gamehub_games_created_total", type="hello") == 2
    assert grew("gamehub_games_finished_total", type="hello") == 2
    assert grew("gamehub_connections_total", frontend="xml") == 1
    assert grew("gamehub_connections_total", frontend="mnm") == 1
    assert grew("gamehub_messages_total", frontend="xml", direction="in") == 3  # create, login, bad
    assert grew("gamehub_messages_total", frontend="xml", direction="out") >= 4
    assert grew("gamehub_messages_total", frontend="web", direction="in") >= 4
    assert grew("gamehub_messages_total", frontend="mnm", direction="in") == 1
    assert grew("gamehub_refusals_total", frontend="xml", kind="400") == 1
    assert grew("gamehub_refusals_total", frontend="mnm", kind="protocol") == 1
    assert grew("gamehub_connections_total", frontend="acpc") == 1
    assert grew("gamehub_messages_total", frontend="acpc", direction="in") == 2
    assert grew("gamehub_messages_total", frontend="acpc", direction="out") >= 1
    assert grew("gamehub_refusals_total", frontend="acpc", kind="ignored") == 1
    assert grew("gamehub_bot_think_seconds_count", bot="HelloBot") >= 2
    assert grew("gamehub_store_query_seconds_count", operation="create_account") == 1
    # one transaction a batch of finished games: the two games' own, or one for both
    assert grew("gamehub_store_query_seconds_count", operation="record_game") in (1, 2)
    assert value(after, "gamehub_store_up") == 1.0
    assert total(after, "gamehub_games", type="hello", state="over") >= 2
    assert total(after, "gamehub_plugins", status="loaded") >= 10
    assert total(after, "gamehub_plugin_loads_total", status="loaded") >= 10


def test_the_json_log_parses_line_by_line_with_structured_refusals(hub):
    client = XMLClient(hub.ports["xml"])
    client.send(b"<message sessionid='0'><request><nonsense/></request></message>")
    client.next()
    client.close()
    status, _, _ = hub.request("GET", "/api/games/no-such-game")
    assert status == 404
    wait_until(lambda: "no game with id 'no-such-game'" in hub.log(), "the web refusal logged")
    events = [json.loads(line) for line in hub.log().splitlines() if line.strip()]
    assert len(events) > 10
    assert all(isinstance(e, dict) and "text" in e and "log_namespace" in e for e in events)
    refusals = [e for e in events if e["log_namespace"] == "gamehub.refusal"]
    web = [e for e in refusals if e["frontend"] == "web" and e["kind"] == "404"]
    assert web and web[-1]["game"] == "no-such-game" and web[-1]["connection"].startswith("http:")
    xml = [e for e in refusals if e["frontend"] == "xml" and e["kind"] == "400"]
    assert xml and all(e["connection"].startswith("x") for e in xml)
    assert any(e["text"].startswith("gamehub ") and "ready" in e["text"] for e in events)
