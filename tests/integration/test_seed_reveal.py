"""Every player can verify every hand it played, and nobody else gets the seed early,
tried from outside on a real ``twistd -n gamehub`` (docs/privacy.md, ``seed_reveal``):
ann and bob play hands that show no card down (so the seed stays withheld at the
hand-over); the seed reaches them on ``/api/hands`` once neither of them is still at
the table, never carl (who watched) nor a guest; with ``seed_reveal`` set, the players
get it that long after the hand even while they still sit there."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest

from games.poker import shuffle
from tests.hubprocess import LOOPBACK, HubProcess

from .test_privacy import Web, _play, join, sit
from .xmlsocket import XMLClient, ok, outcome


def start_table(hub: HubProcess, **extra) -> tuple[dict[str, XMLClient], int, str]:
    xml = hub.ports["xml"]
    clients = {name: XMLClient(xml) for name in ("ann", "bob", "carl")}
    for name, client in clients.items():
        assert ok(client.login(name, f"pw-{name}-123"))
    options = {"stakes": "10/20", "buyin": 400, "showdown_pause": 0, "auto_post": "true"}
    options |= {"empty_timeout": 1, **extra}
    option_xml = "".join(f'<option name="{k}">{v}</option>' for k, v in options.items())
    answer = clients["ann"].request(
        '<game><create gametype="texas-holdem" name="reveal table">'
        f"<parameters><seats>2</seats>{option_xml}</parameters></create></game>"
    )
    assert ok(answer), json.dumps(outcome(answer))
    gameid = int(answer.find(".//create").get("gameid"))
    game_id = next(g["id"] for g in hub.get_json("/api/games") if g["type"] == "texas-holdem")
    for seat, name in enumerate(("ann", "bob", "carl")):
        clients[name].game_sid = join(clients[name], gameid)
        if seat < 2:
            sit(clients[name], gameid, seat)
    _play({0: clients["ann"], 1: clients["bob"]}, gameid, hands=2)
    return clients, gameid, game_id


def readers(hub: HubProcess) -> dict[str, Web]:
    """Web sessions of ann, bob and carl, and a guest's."""
    out = {}
    for name in ("ann", "bob", "carl", "guest"):
        web = Web(hub)
        web.start()
        if name != "guest":
            body = {"name": name, "password": f"pw-{name}-123"}
            assert web.call("POST", "/api/session", body)[0] == 200
        out[name] = web
    return out


def seeds(web: Web, game_id: str) -> list[str | None]:
    status, raw = web.call("GET", f"/api/hands?game={game_id}")
    assert status == 200
    hands = json.loads(raw)
    assert len(hands) >= 2
    for hand in hands:
        if hand["seed"] is not None:  # a revealed seed opens the hand's commitment
            assert hashlib.sha256(bytes.fromhex(hand["seed"])).hexdigest() == hand["commitment"]
        else:
            assert hand["seed_withheld"]
        assert "revealed" not in hand and "sealed" not in hand
    return [hand["seed"] for hand in hands]


def part(client: XMLClient, gameid: int) -> None:
    client.request(f'<game gameid="{gameid}"><part/></game>', client.game_sid)


@pytest.fixture
def hub(tmp_path: Path):
    running = HubProcess(tmp_path, xml=LOOPBACK, web=LOOPBACK)
    running.extra = ["--set", "xml_rate=500", "--set", "xml_burst=500"]
    with running:
        yield running
    assert running.errors() == [], running.log()[-3000:]


def test_the_seed_goes_to_the_hands_players_once_none_of_them_is_at_the_table(hub):
    clients, gameid, game_id = start_table(hub)
    web = readers(hub)
    # both still seated: the seed is nobody's but the operator's
    for name in web:
        assert set(seeds(web[name], game_id)) == {None}, name
    status, raw, _ = hub.request("GET", f"/api/hands?game={game_id}", admin=True)
    assert all(h["seed"] for h in json.loads(raw))
    # ann leaves; bob still sits there: not yet, not even for ann
    part(clients["ann"], gameid)
    time.sleep(0.5)
    for name in web:
        assert set(seeds(web[name], game_id)) == {None}, name
    # bob leaves too: now both of them get every hand's seed; carl and a guest never
    part(clients["bob"], gameid)
    deadline = time.monotonic() + 30
    while set(seeds(web["ann"], game_id)) == {None}:
        assert time.monotonic() < deadline, "the seed never reached ann"
        time.sleep(0.2)
    status, raw, _ = hub.request("GET", f"/api/hands?game={game_id}", admin=True)
    operator = [h["seed"] for h in json.loads(raw)]
    assert seeds(web["ann"], game_id) == operator == seeds(web["bob"], game_id)
    assert set(seeds(web["carl"], game_id)) == {None}
    assert set(seeds(web["guest"], game_id)) == {None}
    # and a revealed seed is the one that dealt the hand: ann checks a hand herself
    status, raw = web["ann"].call("GET", f"/api/hands?game={game_id}")
    for hand in json.loads(raw):
        mine = hand["hole"]["0"]
        mixed = shuffle.mixed_seed(
            hand["seed"], {int(s): bytes.fromhex(v) for s, v in hand["contributions"].items()}
        )
        deck = shuffle.deck_from_seed(mixed)
        seats = sorted(int(p["seat"]) for p in hand["players"])
        first = seats[(seats.index(hand["dealer"]) + 1) % len(seats)]
        at = seats.index(0) - seats.index(first)
        assert [deck[at % 2], deck[at % 2 + 2]] == mine


def test_seed_reveal_gives_the_players_their_seeds_after_a_delay(tmp_path):
    running = HubProcess(tmp_path, xml=LOOPBACK, web=LOOPBACK)
    running.extra = ["--set", "xml_rate=500", "--set", "xml_burst=500"]
    running.extra += ["--set", "seed_reveal=3"]
    with running:
        clients, gameid, game_id = start_table(running)
        web = readers(running)
        deadline = time.monotonic() + 30
        while None in seeds(web["ann"], game_id):  # both still seated, after 3 s
            assert time.monotonic() < deadline, "the seeds never reached ann"
            time.sleep(0.3)
        assert None not in seeds(web["bob"], game_id)
        assert set(seeds(web["carl"], game_id)) == {None}
        assert set(seeds(web["guest"], game_id)) == {None}
        assert running.errors() == []
