"""A duplicate ACPC match deals its first pass's cards again in its second pass, so
nothing of its tables may be read by anyone but the operator until the whole match
ends (docs/acpc.md, docs/privacy.md): tried from outside, as the program that would
like to know the cards it is about to be dealt, on a real ``twistd -n gamehub``."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from lxml import etree

from tests.hubprocess import LOOPBACK, HubProcess
from tests.integration.test_acpc_access import GAME, Program, create, wait_over
from tests.integration.test_privacy import Web
from tests.integration.xmlsocket import XMLClient, ok

HANDS = 2


@pytest.fixture
def hub(tmp_path: Path):
    h = HubProcess(tmp_path, web=LOOPBACK, acpc=LOOPBACK, xml=LOOPBACK)
    with h:
        yield h
    assert h.errors() == [], h.log()[-3000:]


def _games_of(hub: HubProcess, match_id: str, count: int) -> list[str]:
    for _ in range(300):
        status, body, _ = hub.request("GET", f"/acpc/matches/{match_id}", admin=True)
        games = json.loads(body)["games"]
        if status == 200 and len(games) >= count:
            return games
        time.sleep(0.05)
    raise AssertionError(body)


def test_nothing_of_a_duplicate_match_is_readable_until_it_ends(hub):
    match = create(hub, game=GAME, players=["acpc:ann", "bot:caller"], hands=HANDS,
                   duplicate=True)  # fmt: skip
    program = Program(match["ports"][0], move="c")  # calls: every hand reaches the river
    web = Web(hub)
    web.start()
    made = web.call("POST", "/api/accounts", {"name": "mallory", "password": "mallory-pw1"})
    assert made[0] in (200, 201), made
    try:
        assert program.play_until(HANDS)  # the first pass is over, the second has begun
        first, second = _games_of(hub, match["id"], 2)[:2]
        assert hub.get_json(f"/acpc/matches/{match['id']}")["state"] == "running"
        listed = {g["id"] for g in hub.get_json("/api/games")}
        assert not {first, second} & listed
        for reader in ({}, {"headers": {"X-Gamehub-Door": "forged"}}):
            for game in (first, second):
                for tail in ("", "/replay", "/transcript", "/events"):
                    status, body, _ = hub.request("GET", f"/api/games/{game}{tail}", **reader)
                    assert status == 404, (game, tail, status, body)
                    assert b"STATE" not in body and b"cards" not in body
        for who in (web, Web(hub)):  # a logged-in account, a fresh guest
            if who.cookie is None:
                who.start()
            for path in ("/api/games", "/api/history", "/api/hands", "/api/hands?player=acpc.ann"):
                status, body = who.call("GET", path)
                assert status == 200, (path, body)
                assert first.encode() not in body and second.encode() not in body, (path, body)
            assert who.call("GET", f"/api/hands?game={first}") == (200, b"[]\n")
            for tail in ("", "/replay", "/transcript"):
                status, body = who.call("GET", f"/api/games/{first}{tail}")
                assert status == 404, (tail, body)
            opened = who.opened("/api/lobby/events")
            assert first.encode() not in opened and second.encode() not in opened
        xml = XMLClient(hub.ports["xml"])  # nor over XML: its lobby, its history
        try:
            assert ok(xml.login("xmallory", "pw-xmallory-1"))
            listed = xml.request("<lobby><gamelist/></lobby>")
            assert listed.find("response/lobby/gamelist/games") is not None
            assert match["id"].encode() not in etree.tostring(listed)  # "acpc <id> pass 1"
            history = xml.request('<lobby><history accountname="acpc.ann"/></lobby>')
            assert len(history.find("response/lobby/history")) == 0, etree.tostring(history)
        finally:
            xml.close()
        # the operator reads everything meanwhile
        status, body, _ = hub.request("GET", f"/api/games/{first}/transcript", admin=True)
        assert status == 200 and body
        status, body, _ = hub.request("GET", f"/api/hands?game={first}", admin=True)
        assert status == 200 and len(json.loads(body)) == HANDS
        assert program.play_until(10**6) is False  # the match plays to its end
    finally:
        program.close()
    over = wait_over(hub, match["id"])
    assert over["failed"] is False, over
    # once the match is over, its tables are public as any other's
    status, body, _ = hub.request("GET", f"/api/games/{first}/replay")
    assert status == 200, body
    hands = json.loads(hub.request("GET", f"/api/hands?game={first}")[1])
    assert len(hands) == HANDS


def test_a_duplicate_match_takes_no_open_seat(hub):
    """Its tables are sealed while it runs: nobody could find an open seat."""
    status, body, _ = hub.request(
        "POST", "/acpc/matches",
        {"game": GAME, "players": ["acpc", "open"], "hands": 2, "duplicate": True},
    )  # fmt: skip
    assert status == 400 and b"duplicate" in body, body
