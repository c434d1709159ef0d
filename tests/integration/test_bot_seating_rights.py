"""Only a game's creator (or an admin) seats a bot in it, tried from outside on a real
``twistd -n gamehub``: another account, a guest, an anonymous caller, over the web
API and over XML, are refused with a clear 403 (401 without any credentials)."""

from __future__ import annotations

import json

import pytest

from tests.hubprocess import LOOPBACK, HubProcess
from tests.integration.test_privacy import Web, join

from .xmlsocket import XMLClient, ok, outcome


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    running = HubProcess(tmp_path_factory.mktemp("botrights"), xml=LOOPBACK, web=LOOPBACK)
    running.extra = ["--set", "xml_rate=500", "--set", "xml_burst=500"]
    with running:
        yield running
    assert running.errors() == [], running.log()[-3000:]


def _logged_in(hub: HubProcess, name: str) -> Web:
    web = Web(hub)
    web.start()
    made = web.call("POST", "/api/accounts", {"name": name, "password": name + "-pw1"})
    assert made[0] in (200, 201), made
    return web


def test_only_the_creator_or_an_admin_seats_bots_over_the_web(hub):
    ann, mallory, guest = _logged_in(hub, "ann"), _logged_in(hub, "mallory"), Web(hub)
    guest.start()
    status, body = ann.call("POST", "/api/games", {"type": "hello", "seats": ["open"] * 2})
    assert status == 201, body
    game = json.loads(body)
    assert game["creator"] == "ann"
    path = f"/api/games/{game['id']}/bots"
    for intruder in (mallory, guest):
        status, body = intruder.call("POST", path, {"seat": 0, "bot": "hello-bot"})
        assert status == 403, body
        assert b"creator" in body
    status, body, _ = hub.request("POST", path, {"seat": 0, "bot": "hello-bot"})
    assert status in (401, 403), body  # no session at all, even from loopback
    seats = hub.get_json(f"/api/games/{game['id']}")["seats"]
    assert [s["player"] for s in seats] == [None, None]  # nothing changed
    status, body = ann.call("POST", path, {"seat": 0, "bot": "hello-bot"})
    assert status == 200, body
    status, body, _ = hub.request("POST", path, {"seat": 1, "bot": "hello-bot"}, admin=True)
    assert status == 200, body


def _add_bot(client: XMLClient, gameid: int, seat: int):
    return client.request(
        f'<game gameid="{gameid}"><action><parameters><texasmessage><action>'
        f"<index>13</index><name>caller</name><seat>{seat}</seat></action>"
        "</texasmessage></parameters></action></game>",
        client.game_sid,
    )


def test_only_the_creator_seats_bots_over_xml(hub):
    xml = hub.ports["xml"]
    ann, mallory = XMLClient(xml), XMLClient(xml)
    try:
        assert ok(ann.login("xann", "pw-xann-123"))
        assert ok(mallory.login("xmallory", "pw-xmallory-123"))
        answer = ann.request(
            '<game><create gametype="texas-holdem" name="ann table">'
            '<parameters><seats>3</seats><option name="stakes">10/20</option>'
            "</parameters></create></game>"
        )
        assert ok(answer), outcome(answer)
        gameid = int(answer.find(".//create").get("gameid"))
        ann.game_sid, mallory.game_sid = join(ann, gameid), join(mallory, gameid)
        refused = _add_bot(mallory, gameid, 1)
        assert outcome(refused) == (False, 403), json.dumps(outcome(refused))
        assert ok(_add_bot(ann, gameid, 1))
    finally:
        ann.close()
        mallory.close()
