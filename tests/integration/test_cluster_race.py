"""Any door works at once (docs/cluster.md, "A game created a moment ago"):
a client that reaches hub B right after a game was created on hub A, before B heard
A's notice, plays it; no sleep, no polling between the creation and the clients.

An XML create through B may name hub A (placement); B then answers its details and
its delete from A.

Three ``twistd gamehub`` processes on one PostgreSQL database (the fixtures of
``test_cluster``).  The clients here are in the test's own process (a network bot
started as a subprocess would be too slow to see the race).
"""

from __future__ import annotations

import argparse
import json

import pytest_twisted
from lxml import etree
from twisted.internet import defer, reactor

from bots.morris.__main__ import run as run_morris_bot
from hub.frontends.xml.payload import wire_game_id
from tests.hubprocess import HubProcess
from tests.integration.test_cluster import cluster_dsn, create, health, three
from tests.integration.test_cluster_doors import FAST_MORRIS, Browser

from .xmlsocket import XMLClient, ok, outcome

__all__ = ["cluster_dsn", "three"]  # the fixtures, used by name


def _bot(hub: HubProcess, game_id: str, player: int) -> defer.Deferred:
    """The project's network morris bot, in this process, on ``hub``'s MNM port."""
    args = argparse.Namespace(
        host="127.0.0.1",
        port=hub.ports["mnm"],
        game_id=game_id,
        player=player,
        max_seconds=0.05,
        seed=player + 1,
        tls_client=None,
    )
    return defer.ensureDeferred(run_morris_bot(reactor, args))


@pytest_twisted.ensureDeferred
async def test_mnm_clients_of_b_and_c_play_a_game_just_made_on_a(three, capsys):
    a, b, c = three
    a_id = health(a)["cluster"]["hub"]
    for placed in (False, True):
        body = {"type": "nmmorris", "seats": ["open", "open"], "options": FAST_MORRIS}
        if placed:  # made through B, placed on A: B knows it from A's answer
            status, raw, _ = b.request("POST", "/api/games", {**body, "hub": a_id}, admin=True)
            assert status == 201, raw
            game = json.loads(raw)
        else:
            game = create(a, body)
        assert game["hub"] == a_id
        # at once: no wait for B's and C's directory notices
        results = await defer.gatherResults([_bot(b, game["id"], 0), _bot(c, game["id"], 1)])
        out = capsys.readouterr()
        assert results == [0, 0], out.err
        assert out.out.count(f"game {game['id']} over") == 2, out.out
        assert a.get_json(f"/api/games/{game['id']}")["state"] == "over"  # type: ignore[index]
    for hub in three:
        assert hub.errors() == [], hub.log()


def test_xml_and_web_clients_of_b_join_a_game_just_made_on_a(three):
    a, b, _ = three
    ann = XMLClient(b.ports["xml"])
    assert ok(ann.login("ann", "pw-ann-123"))
    browser = Browser(b)
    game = create(a, {"type": "hello", "seats": ["open", "open"]})
    gameid = wire_game_id(game["id"])
    # at once, on B: an XML join (B knows only the wire id) and a web seat
    joined = ann.request(f'<game gameid="{gameid}"><join/></game>')
    assert ok(joined), outcome(joined)
    ann.game_sid = int(joined.get("sessionid"))
    status, seated = browser.call("POST", f"/api/games/{game['id']}/seats", {"seat": 1})
    assert status == 200, seated
    said = ann.request(
        f'<game gameid="{gameid}"><action><parameters><hello>hi from B</hello>'
        "</parameters></action></game>",
        ann.game_sid,
    )
    assert ok(said), outcome(said)
    status, acted = browser.call(
        "POST", f"/api/games/{game['id']}/actions", {"action": {"hello": "hi via B"}}
    )
    assert status == 200, acted
    over = a.get_json(f"/api/games/{game['id']}")
    assert over["state"] == "over", over  # type: ignore[index]
    # made-up ids are refused as on a single hub (looked up once, then from memory)
    for _ in range(3):
        refused = ann.request(f'<game gameid="{gameid + 1}"><join/></game>')
        assert outcome(refused) == (False, 404), outcome(refused)
        status, raw, _ = b.request("GET", "/api/games/nosuchgame")
        assert status == 404, raw
    for hub in three:
        assert hub.errors() == [], hub.log()


def _games_of(hub: HubProcess) -> list[str]:
    listed = hub.get_json("/api/games")
    rows = listed["games"] if isinstance(listed, dict) else listed
    return sorted(g["id"] for g in rows if g.get("hub") == health(hub)["cluster"]["hub"])


def test_xml_create_through_b_placed_on_a_then_details_and_delete_through_the_relay(three):
    """docs/cluster.md, Placement: an XML client of B names hub A in its create; the
    game is made on A; B answers its details and its creator's delete from A."""
    a, b, _ = three
    a_id = health(a)["cluster"]["hub"]
    ann, bob = XMLClient(b.ports["xml"]), XMLClient(b.ports["xml"])
    assert ok(ann.login("ann", "pw-ann-123")) and ok(bob.login("bob", "pw-bob-123"))
    before = _games_of(a)
    for bad in ("../x", "x" * 200, "&lt;b&gt;", ""):
        refused = ann.request(f'<game><create gametype="hello" name="g" hub="{bad}"/></game>')
        assert outcome(refused) == (False, 400), (bad, outcome(refused))
    unknown = ann.request('<game><create gametype="hello" name="g" hub="nosuchhub"/></game>')
    assert not ok(unknown), outcome(unknown)
    assert _games_of(a) == before  # nothing made by a refused create
    made = ann.request(f'<game><create gametype="hello" name="placed" hub="{a_id}"/></game>')
    assert ok(made), outcome(made)
    wid = int(made.find("response/game/create").get("gameid"))
    (game_id,) = [g for g in _games_of(a) if g not in before]
    assert wire_game_id(game_id) == wid
    # details asked at B are A's own answer
    carol = XMLClient(a.ports["xml"])
    assert ok(carol.login("carol", "pw-carol-123"))
    here = carol.request(f'<lobby><gamedetails gameid="{wid}"/></lobby>')
    there = bob.request(f'<lobby><gamedetails gameid="{wid}"/></lobby>')
    for doc in (here, there):
        assert len(doc.findall(".//gamedetails/players/player")) == 2, etree.tostring(doc)
    for doc in (here, there):
        doc.attrib.pop("sessionid", None)
    assert etree.tostring(there) == etree.tostring(here)
    # only its creator may delete it; an unknown id is 404
    assert outcome(bob.request(f'<game gameid="{wid}"><delete/></game>'))[:2] == (False, 403)
    assert game_id in _games_of(a)
    assert outcome(ann.request(f'<game gameid="{wid + 1}"><delete/></game>')) == (False, 404)
    assert ok(ann.request(f'<game gameid="{wid}"><delete/></game>'))
    assert game_id not in _games_of(a)
    for hub in three:
        assert hub.errors() == [], hub.log()
