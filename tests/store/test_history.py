"""History: finished games and hands, queries, account deletion."""

from __future__ import annotations

from decimal import Decimal

import pytest
import pytest_twisted

from hub.store import BadAmount
from hub.store.cards import from_text, to_text

from .test_accounts import fails

D = Decimal
T0 = 1_800_000_000.0


def test_cards_round_trip():
    assert [to_text(c) for c in (0, 1, 2, 3, 48, 51)] == ["2c", "2d", "2h", "2s", "Ac", "As"]
    assert all(from_text(to_text(c)) == c for c in range(52))
    for bad in (-1, 52, "As", True, None):
        with pytest.raises(ValueError):
            to_text(bad)


async def play_games(store):
    await store.record_game(
        "g1",
        "nmmorris",
        "first",
        [
            {"seat": 0, "name": "ann", "kind": "human", "score": 1, "winner": True},
            {"seat": 1, "name": "bot7", "kind": "bot", "score": 0},
        ],
        started=T0,
        finished=T0 + 60,
        summary="ann wins",
        result={"winners": [0], "scores": [1, 0]},
    )
    await store.record_game(
        "g2",
        "texas-holdem",
        "second",
        [
            {"seat": 0, "name": "bob", "net": "-12.50"},
            {"seat": 1, "name": "ann", "net": "12.50", "winner": True},
        ],
        variant="fixed-limit",
        finished=T0 + 120,
    )
    await store.record_game("g3", "hello", "third", [{"seat": 0, "name": "bob"}], finished=T0 + 180)


@pytest_twisted.ensureDeferred
async def test_games_by_id_player_and_time(store):
    await store.create_account("ann", "secret1")
    await play_games(store)
    assert [g["game_id"] for g in await store.games()] == ["g3", "g2", "g1"]
    assert [g["game_id"] for g in await store.games(limit=2)] == ["g3", "g2"]
    assert [g["game_id"] for g in await store.games(player="ANN")] == ["g2", "g1"]
    assert [g["game_id"] for g in await store.games(since=T0 + 60, until=T0 + 180)] == [
        "g2",
        "g1",
    ]
    (g1,) = await store.games(game_id="g1")
    assert g1["type"] == "nmmorris" and g1["summary"] == "ann wins"
    assert g1["result"] == {"winners": [0], "scores": [1, 0]}
    assert (g1["started"], g1["finished"]) == (T0, T0 + 60)
    assert g1["players"] == [
        {"seat": 0, "name": "ann", "kind": "human", "score": 1, "winner": True, "net": None},
        {"seat": 1, "name": "bot7", "kind": "bot", "score": 0, "winner": False, "net": None},
    ]
    (g2,) = await store.games(game_id="g2")
    assert [p["net"] for p in g2["players"]] == [D("-12.50"), D("12.50")]
    assert g2["variant"] == "fixed-limit" and g2["started"] is None
    # recording a game twice stores it once
    assert not await store.record_game("g1", "nmmorris", "again", [])
    assert len(await store.games()) == 3


HAND = {
    "dealer": 3,
    "board": [51, 47, 43, 0, 5],  # As Ks Qs 2c 3d
    "showdown": "ann: royal flush",
    "commitment": "ab" * 32,
    "seed": "cd" * 16,
    "actions": [["ann", "raise", "20"], ["bob", "call", "20"]],
}


async def play_hands(store):
    first = await store.record_hand(
        "g2",
        players=[
            {
                "name": "ann",
                "seat": 3,
                "hole": [50, 46],
                "money_in": "20",
                "winnings": "40.00",
                "actions": {"preflop": "r", "flop": "b", "turn": "b", "river": "b"},
            },
            {"name": "bob", "display": "Bobby", "seat": 5, "money_in": "20", "winnings": 0},
        ],
        at=T0 + 10,
        hand_key="h1",
        **HAND,
    )
    second = await store.record_hand(
        "g2",
        3,
        [{"name": "bob", "seat": 5, "money_in": "0.10", "winnings": "0.30"}],
        at=T0 + 20,
    )
    third = await store.record_hand("g9", 0, [{"name": "cat", "seat": 0}], at=T0 + 30)
    return first, second, third


@pytest_twisted.ensureDeferred
async def test_hands_with_the_seed_columns(store):
    first, second, third = await play_hands(store)
    assert first < second < third
    assert [h["hand_id"] for h in await store.hands()] == [third, second, first]
    assert [h["hand_id"] for h in await store.hands(game_id="g2")] == [second, first]
    assert [h["hand_id"] for h in await store.hands(player="Ann")] == [first]
    assert [h["hand_id"] for h in await store.hands(since=T0 + 20, limit=1)] == [third]
    assert [h["hand_id"] for h in await store.hands(until=T0 + 20)] == [first]
    (hand,) = await store.hands(player="ann")
    assert hand["board"] == HAND["board"] and hand["dealer"] == 3 and hand["time"] == T0 + 10
    assert (hand["flop"], hand["turn"], hand["river"]) == ("As Ks Qs", "2c", "3d")
    assert (hand["commitment"], hand["seed"]) == (HAND["commitment"], HAND["seed"])
    assert hand["actions"] == HAND["actions"] and hand["showdown"] == HAND["showdown"]
    ann, bob = hand["players"]
    assert (ann["name"], ann["seat"], ann["hole"]) == ("ann", 3, [50, 46])
    assert (ann["money_in"], ann["winnings"]) == (D("20.00"), D("40.00"))
    assert ann["actions"] == {"preflop": "r", "flop": "b", "turn": "b", "river": "b"}
    assert (bob["display"], bob["hole"], bob["winnings"]) == ("Bobby", [], D("0"))
    # the seed's column names are there
    row = await store._run(
        lambda cur: cur.one(
            "SELECT h.card1, h.card5, p.card1, p.position, p.money_in FROM hand h"
            " JOIN player p ON p.hand_id = h.hand_id WHERE p.account = 'ann'"
        )
    )
    assert list(row[:4]) == ["As", "3d", "Ah", 3]
    # the engine's hand key makes recording idempotent
    again = await store.record_hand("g2", 3, [], hand_key="h1")
    assert again == first and len(await store.hands()) == 3
    (small,) = await store.hands(game_id="g2", limit=1)
    assert small["players"][0]["winnings"] == D("0.30")


@pytest_twisted.ensureDeferred
async def test_bad_hands_are_refused(store):
    await fails(store.record_hand("g", 0, [], board=[1, 2, 3, 4, 5, 6]), BadAmount)
    await fails(store.record_hand("g", 0, [], board=[52]), ValueError)
    await fails(store.record_hand("g", 0, [{"name": "a", "seat": 0, "money_in": 0.5}]), TypeError)
    assert await store.hands() == []


@pytest_twisted.ensureDeferred
async def test_deleting_an_account_keeps_its_history(store):
    await store.create_account("ann", "secret1")
    await play_games(store)
    await play_hands(store)
    await store.delete_account("ann")
    assert [g["game_id"] for g in await store.games(player="ann")] == ["g2", "g1"]
    (hand,) = await store.hands(player="ann")
    assert hand["players"][0]["name"] == "ann"
    assert await store.find_players("ann") == []


@pytest_twisted.ensureDeferred
async def test_replays_are_stored_once_and_read_back(store):
    replay = {
        "game": {"id": "g9", "type": "nmmorris"},
        "start": {"board": [None] * 24},
        "events": [{"at": 5, "kind": "moved", "data": {"seat": 0, "move": "A0"}}],
        "complete": True,
    }
    assert await store.replay("g9") is None
    assert await store.record_replay("g9", replay) is True
    assert await store.record_replay("g9", {"events": []}) is False  # kept as first stored
    assert await store.replay("g9") == replay
