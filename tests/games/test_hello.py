"""The hello engine: rules, and random playouts that always end."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twisted.internet.task import Clock

from games.hello import client, rules
from games.hello.server import HelloGameFactory
from hub.model import BadAction, GameConfig, GameContext, GameError, IllegalAction


def make_game(seats):
    events = []
    context = GameContext(clock=Clock(), emit=events.append, rng=random.Random(1))
    return HelloGameFactory().create(GameConfig("t", None, seats), context), events


def test_rules_refuse_bad_hellos():
    state = rules.HelloState(2)
    state.sit(0, "a")
    with pytest.raises(rules.HelloError, match="not started"):
        state.say(0, "hi")
    state.sit(1, "b")
    for bad in ("", "   ", "x" * 201, "a\x07b", 42, None):
        with pytest.raises(rules.HelloError):
            state.say(0, bad)
    assert state.say(0, "x" * 200).text == "x" * 200
    with pytest.raises(rules.HelloError, match="already"):
        state.say(0, "again")
    with pytest.raises(rules.HelloError, match="taken"):
        state.sit(1, "c")
    with pytest.raises(rules.HelloError, match="no seat"):
        state.sit(2, "c")


def test_error_kinds_of_the_game():
    game, _ = make_game(1)
    with pytest.raises(GameError):
        game.seat_player(3, "x")
    game.seat_player(0, "ann")
    with pytest.raises(BadAction):
        game.act(0, {"hello": ""})
    with pytest.raises(BadAction):
        game.act(0, {"hello": "hi", "extra": 1})
    game.act(0, {"hello": "hi"})
    with pytest.raises(IllegalAction):
        game.act(0, {"hello": "hi"})


@settings(max_examples=200, deadline=None)
@given(seats=st.integers(1, 8), data=st.data())
def test_random_playouts_end_with_everyone_heard(seats, data):
    game, events = make_game(seats)
    for seat in data.draw(st.permutations(range(seats))):
        game.seat_player(seat, f"p{seat}")
    assert game.state == "running"
    turns = [e.data["seat"] for e in events if e.kind == "turn"]
    assert sorted(turns) == list(range(seats))
    leavers = data.draw(st.sets(st.integers(0, seats - 1), max_size=seats - 1))
    order = data.draw(st.permutations(range(seats)))
    for step, seat in enumerate(order):
        if seat in leavers and step % 2:
            game.leave(seat)
            continue
        if seat in leavers:
            game.leave(seat)
            with pytest.raises(IllegalAction):
                game.act(seat, {"hello": "late"})
            continue
        assert game.legal_actions(seat) == [{"hello": ""}]
        game.act(seat, {"hello": f"hi from {seat}"})
    assert game.state == "over"
    result = game.result()
    assert sorted(result["winners"]) == sorted(set(range(seats)) - set(leavers))
    assert [e.kind for e in events].count("over") == 1


def test_client_module():
    assert client.action_payload("a<b") == "<hello>a&lt;b</hello>"
    with pytest.raises(ValueError):
        client.action_payload("")
    assert client.describe({"name": "x", "text": "y"}) == "Hello from x: y"
