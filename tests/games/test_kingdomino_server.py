"""King Domino as a hub game: seating, actions, turn events, timeouts, results."""

from __future__ import annotations

import random

import pytest
from twisted.internet.task import Clock
from zope.interface.verify import verifyObject

from games.kingdomino.adapters import DominoAdapter, wire_name
from games.kingdomino.server import KingDominoGameFactory
from hub.interfaces import IDominoAdapter, IGame, IGameFactory
from hub.model import BadAction, Conflict, GameConfig, GameContext, GameError, IllegalAction


class Harness:
    def __init__(self, seed=1, answer=2.0):
        self.clock = Clock()
        self.events = []
        self.factory = KingDominoGameFactory()
        options = {} if answer is None else {"answer_seconds": answer}
        self.game = self.factory.create(
            GameConfig("g", None, 4, options),
            GameContext(self.clock, self.events.append, random.Random(seed), "g1"),
        )

    def start(self):
        for seat, name in enumerate(["ann", "bob", "cy", "dee"]):
            self.game.seat_player(seat, name)

    def turn(self):
        return [e for e in self.events if e.kind == "turn"][-1].data

    def kinds(self):
        return [e.kind for e in self.events]


def test_factory_and_game_provide_their_interfaces():
    h = Harness()
    assert verifyObject(IGameFactory, h.factory)
    assert verifyObject(IGame, h.game)
    assert verifyObject(IDominoAdapter, h.factory.adapter("domino"))
    assert h.factory.adapter("xml") is None
    assert h.factory.name == "kingdomino" and h.factory.max_seats == 4
    assert list(h.factory.frontends) == ["domino", "web"]


def test_bad_options_are_refused():
    with pytest.raises(GameError, match="answer_seconds"):
        Harness(answer="fast")
    with pytest.raises(GameError, match="answer_seconds"):
        Harness(answer=0)


def test_starts_when_four_seated_with_turn_event():
    h = Harness()
    h.game.seat_player(0, "ann")
    with pytest.raises(Conflict):
        h.game.seat_player(0, "zed")
    assert h.game.state == "waiting" and h.events == []
    for seat, name in [(1, "bob"), (2, "cy"), (3, "dee")]:
        h.game.seat_player(seat, name)
    assert h.game.state == "running"
    assert h.kinds() == ["state", "start", "turn"]
    start = h.events[1].data
    assert sorted(start["order"]) == [0, 1, 2, 3]
    assert start["dominoes"] == sorted(start["dominoes"]) and len(start["dominoes"]) == 4
    turn = h.turn()
    assert turn["seat"] == start["order"][0] and turn["phase"] == "choose"
    assert turn["legal"] == [{"choose": d} for d in start["dominoes"]]
    assert turn["timeleft_ms"] == 2000


@pytest.mark.parametrize(
    "action",
    [{}, {"choose": "1"}, {"choose": True}, {"move": [1, 2]}, {"jump": 1}, [1], {"move": "1 0 0"}],
)
def test_malformed_actions(action):
    h = Harness()
    h.start()
    with pytest.raises(BadAction):
        h.game.act(h.turn()["seat"], action)


def test_illegal_actions_change_nothing():
    h = Harness()
    h.start()
    seat = h.turn()["seat"]
    before = (h.game.view(seat), len(h.events))
    with pytest.raises(IllegalAction, match="not your turn"):
        h.game.act((seat + 1) % 4, {"choose": h.turn()["legal"][0]["choose"]})
    with pytest.raises(IllegalAction, match="not in the current draw"):
        h.game.act(seat, {"choose": 99})
    with pytest.raises(IllegalAction, match="must choose"):
        h.game.act(seat, {"move": [1, 0, 0]})
    assert (h.game.view(seat), len(h.events)) == before


def test_timeout_removes_the_player_and_the_game_goes_on():
    h = Harness()
    h.start()
    seat = h.turn()["seat"]
    h.clock.advance(1.999)
    assert h.kinds()[-1] == "turn"
    h.clock.advance(0.001)
    removed = [e for e in h.events if e.kind == "removed"]
    assert [e.data for e in removed] == [{"seat": seat, "reason": "timeout"}]
    assert h.turn()["seat"] != seat
    # the answer limit counts from each prompt: acting in time keeps the others in
    h.clock.advance(1.5)
    h.game.act(h.turn()["seat"], h.turn()["legal"][0])
    h.clock.advance(1.5)
    assert len([e for e in h.events if e.kind == "removed"]) == 1


def test_everyone_timing_out_ends_the_game_cleanly():
    h = Harness()
    h.start()
    for _ in range(4):
        h.clock.advance(2)
    assert h.game.state == "over"
    assert h.kinds()[-1] == "over"
    result = h.game.result()
    assert result["scores"] == [0, 0, 0, 0]
    assert [e["seat"] for e in result["ranking"]] == [0, 1, 2, 3]
    assert h.clock.getDelayedCalls() == []


def play_to_end(h, rng):
    steps = 0
    while h.game.state == "running":
        t = h.turn()
        h.game.act(t["seat"], rng.choice(t["legal"]))
        steps += 1
        assert steps <= 96
    return steps


def test_a_full_game_and_its_result():
    h = Harness(seed=5)
    h.start()
    assert play_to_end(h, random.Random(3)) == 96
    rounds = [e.data for e in h.events if e.kind == "round"]
    assert [r["round"] for r in rounds] == list(range(2, 14))
    assert rounds[-1]["dominoes"] == []
    over = h.events[-1]
    assert over.kind == "over"
    result = over.data["result"]
    points = [e["points"] for e in result["ranking"]]
    assert points == sorted(points, reverse=True)
    assert result["scores"] == h.game.rules.scores()
    assert set(result["winners"]) == {
        s for s in range(4) if result["scores"][s] == max(result["scores"])
    }
    assert h.clock.getDelayedCalls() == []
    assert h.game.legal_actions(0) == []


def test_leave_while_waiting_frees_the_seat():
    h = Harness()
    h.game.seat_player(0, "ann")
    h.game.leave(0)
    h.game.seat_player(0, "zed")
    assert h.game.names[0] == "zed"


def test_adapter_renders_lines_per_seat():
    a = DominoAdapter()
    h = Harness(seed=2)
    h.start()
    start = h.events[1]
    order = " ".join(str(s + 1) for s in start.data["order"])
    dominoes = " ".join(str(d) for d in start.data["dominoes"])
    assert a.render_event(start, 1) == [f"START 2 {order} {dominoes}"]
    seat = h.turn()["seat"]
    turn = h.events[-1]
    assert a.render_event(turn, seat) == ["YOUR CHOICE"]
    assert a.render_event(turn, (seat + 1) % 4) == []
    d = h.turn()["legal"][0]["choose"]
    h.game.act(seat, {"choose": d})
    chosen = [e for e in h.events if e.kind == "chosen"][-1]
    assert a.render_event(chosen, seat) == []  # the front end's OK tells the chooser
    assert a.render_event(chosen, (seat + 1) % 4) == [f"PLAYER CHOICE {seat + 1} {d}"]
    assert a.parse_command("CHOOSE", ["7"]) == {"choose": 7}
    assert a.parse_command("MOVE", ["-1", "0", "180"]) == {"move": [-1, 0, 180]}
    for verb, args in [("CHOOSE", []), ("MOVE", ["1", "x", "0"]), ("MOVE", ["1"])]:
        with pytest.raises(BadAction):
            a.parse_command(verb, args)
    assert wire_name("bot:greedy", 2) == "botgreedy" and wire_name("", 2) == "PLAYER3"
