"""An isolated plugin in a running ``twistd gamehub`` (issue 34, point 9): dropped in
unsigned, it runs isolated by default; one game of it is played to the end over XML
(the generic payload), another tries to read the hub's SQLite database and is stopped
and reported, and the hub, its other games and its health go on."""

from __future__ import annotations

import json

import pytest_twisted
from twisted.internet import defer, reactor

from hub.client import HubClient
from tests.hubprocess import LOOPBACK, HubProcess
from tests.support import wait_until

from .test_isolation import drop_rogue

LIMIT = 20.0  # seconds any single wait of the XML client may take


def bounded(d: defer.Deferred) -> defer.Deferred:
    return d.addTimeout(LIMIT, reactor)


def event(kind: str):
    def match(update) -> bool:
        p = update.payload
        return p is not None and p.tag == "event" and p.get("kind") == kind

    return match


def plugins(hub: HubProcess) -> dict[str, dict]:
    return {p["name"]: p for p in hub.get_json("/plugins/index.json")["plugins"]}


@pytest_twisted.ensureDeferred
async def test_an_isolated_plugin_in_a_running_hub(tmp_path):
    hub = HubProcess(tmp_path, xml=LOOPBACK, web=LOOPBACK)
    hub.extra = ["--set", "isolated_call_seconds=3"]
    with hub:
        drop_rogue(hub.data)
        wait_until(lambda: plugins(hub).get("rogue", {}).get("status") == "loaded", "rogue")
        assert plugins(hub)["rogue"]["isolated"] is True
        assert plugins(hub)["hello"]["isolated"] is False
        ann = await bounded(HubClient.connect(reactor, "127.0.0.1", hub.ports["xml"]))
        await bounded(ann.create_account("ann", "ann-secret"))
        await bounded(ann.login("ann", "ann-secret"))

        database = hub.data / "hub.sqlite"
        assert database.is_file()
        options = {"try": "read", "target": str(database)}
        rogue = await bounded(ann.create_game("rogue", "rogue", seats=1, options=options))
        fair = await bounded(ann.create_game("rogue", "fair", seats=1))
        for gameid in (rogue, fair):
            await bounded(ann.join(gameid))  # the generic payload: join takes the seat
        for gameid in (rogue, fair):
            await bounded(ann.wait_for(lambda u, g=gameid: u.gameid == g and event("turn")(u)))
        await bounded(ann.act(rogue, '<action>{"name": "try"}</action>'))
        over = await bounded(ann.wait_for(lambda u: u.gameid == rogue and event("over")(u)))
        result = json.loads(over.payload.text)["result"]
        assert result["winners"] == []
        assert f"refused: open {database} for reading" in result["summary"]

        for count in (1, 2, 3):
            await bounded(ann.act(fair, '<action>{"name": "count"}</action>'))
            await bounded(ann.wait_for(lambda u, c=count: u.gameid == fair and _counted(u) == c))
        over = await bounded(ann.wait_for(lambda u: u.gameid == fair and event("over")(u)))
        assert json.loads(over.payload.text)["result"]["winners"] == [0]
        assert hub.get_json("/api/health")["status"] == "ok"
        await ann.close()
        report = f"Isolated plugin rogue stopped (game {hub_id(hub, 'rogue')}): refused: open"
        wait_until(lambda: report in hub.log(), "the report in the hub's log")


def hub_id(hub: HubProcess, name: str) -> str:
    """The lobby id of the game called ``name``."""
    games = hub.get_json("/api/games?state=waiting,running,over")
    listed = games["games"] if isinstance(games, dict) else games
    return next(g["id"] for g in listed if g["name"] == name)


def _counted(update) -> int | None:
    if not event("counted")(update):
        return None
    return json.loads(update.payload.text)["count"]
