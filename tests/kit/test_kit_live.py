"""Acceptance (issue 34): the kit's fixture games, dropped into a running hub as plain
plugin folders with their ``.meta``, are played to the end over XML with the hub's
generic payloads: no adapter code in the games."""

from __future__ import annotations

import json

import pytest_twisted
from twisted.internet import defer

from hub.client import RequestFailed
from tests.support import wait_until

from .support import bounded, move_payload, payload_json, player


def event(kind: str, started: bool = False, **fields):
    """A predicate: a kit payload of ``kind`` with these fields (``started``: of a game
    that is no longer waiting for players)."""

    def match(update) -> bool:
        if update.payload is None:
            return False
        got, data = payload_json(update)
        if started and data.get("state") == "waiting":
            return False
        return got == kind and all(data.get(k) == v for k, v in fields.items())

    return match


async def refused(d: defer.Deferred) -> int:
    try:
        await bounded(d)
    except RequestFailed as e:
        return e.code
    raise AssertionError("the request was not refused")


@pytest_twisted.ensureDeferred
async def test_tictactoe_on_the_kit_is_played_to_the_end_over_xml(hub):
    ann, bob = await player(hub, "xena"), await player(hub, "oscar")
    types = {t["type"]: t for t in await bounded(ann.available_games())}
    assert types["noughts"]["clientgame"] == "noughts.game"
    gameid = await bounded(ann.create_game("noughts", "kit ttt", seats=2))
    await bounded(ann.join(gameid))
    await bounded(bob.join(gameid))
    turn = await bounded(ann.wait_for(event("turn", seat=0)))
    _, data = payload_json(turn)
    assert {"move": 4, "label": "b2", "play": "B1"} in data["legal"] and data[
        "timeleft_ms"
    ] == 60000
    assert await refused(bob.act(gameid, move_payload(4))) == 422  # not O's turn
    assert await refused(ann.act(gameid, "<mark cell='4'/>")) == 400  # not a kit payload
    for client, cell in ((ann, 0), (bob, 4), (ann, 1), (bob, 8)):
        await bounded(client.act(gameid, move_payload(cell)))
    assert await refused(ann.act(gameid, move_payload(4))) == 422  # taken
    view = await bounded(bob.wait_for(event("view", moves=4)))
    assert payload_json(view)[1]["text"].splitlines()[1] == "1 X X ."
    await bounded(ann.act(gameid, move_payload(2)))
    over = await bounded(bob.wait_for(event("over")))
    assert payload_json(over)[1]["result"]["summary"] == "xena wins"
    assert ann.invalid == [] and bob.invalid == []
    await ann.close()
    await bob.close()


@pytest_twisted.ensureDeferred
async def test_nim_on_the_kit_is_played_to_the_end_over_xml(hub):
    ann, bob = await player(hub, "nina"), await player(hub, "nils")
    gameid = await bounded(
        ann.create_game("nim", "kit nim", seats=2, options={"piles": 2, "most": 4})
    )
    await bounded(ann.join(gameid))
    await bounded(bob.join(gameid))
    clients = (ann, bob)
    moves = 0
    while True:  # each takes a whole pile, by the words of the legal moves
        view = payload_json(await bounded(ann.wait_for(event("view", started=True, moves=moves))))[
            1
        ]
        if view["state"] == "over":
            break
        seat = view["to_move"][0]
        turn = await bounded(clients[seat].wait_for(event("turn", seat=seat)))
        legal = payload_json(turn)[1]["legal"]
        piles = view["game"]["piles"]
        whole = next(a for a in legal if a["label"] == f"take {max(piles)} from pile "
                     f"{piles.index(max(piles)) + 1}")  # fmt: skip
        await bounded(clients[seat].act(gameid, move_payload(whole["move"])))
        moves += 1
    assert moves == 2 and view["result"]["winners"] == [1]
    history = await bounded(ann.history(gameid=gameid))
    assert history and {p["name"] for p in history[0]["players"]} == {"nina", "nils"}
    await ann.close()
    await bob.close()


def test_the_generic_bots_play_a_dropped_in_kit_game_in_the_hub(hub):
    """The built-in ``kit-mcts`` and ``kit-random`` bots play a game type they never
    heard of (dropped in after the hub started), in the hub's bot threads."""
    types = {t["name"]: t for t in hub.get_json("/api/types")["types"]}
    assert {"kit-mcts", "kit-random"} <= set(types["nim"]["bots"])
    body = {"type": "nim", "seats": ["bot:kit-mcts", "bot:kit-random"], "options": {"piles": 2}}
    status, raw, _ = hub.request("POST", "/api/games", body, admin=True)
    assert status == 201, raw
    game_id = json.loads(raw)["id"]

    def over() -> bool:
        return hub.get_json(f"/api/games/{game_id}")["state"] == "over"

    wait_until(over, "the bots' game over", 20.0)
    result = hub.get_json(f"/api/games/{game_id}")["view"]["result"]
    assert "ran out of time" not in result["summary"] and len(result["winners"]) == 1
