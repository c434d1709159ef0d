"""The kit's game base (``hub.kit``): a kit game is an ``IGameFactory`` whose games
(``IGame``) seat, announce turns with the legal moves, keep the move clock, refuse
what is not legal, and end by the engine's result, a leaver or the clock.  Played on
the two fixtures written on the kit (Nim, Tic-Tac-Toe) with a ``task.Clock``."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from twisted.internet import task
from zope.interface.verify import verifyObject

from hub import kit
from hub.frontends.xml.adapters import adapter_for
from hub.interfaces import IGame, IGameFactory, IGameOptions, IGameRules, IXMLGameAdapter
from hub.model import GAME_OVER, TURN, BadAction, Conflict, GameConfig, GameContext, GameError
from hub.optional_interfaces import IFullViewAfter
from tests.plugins.fixtures.nim.game import Nim, Piles
from tests.plugins.fixtures.noughts.game import Board, Noughts

FIXTURES = Path(__file__).resolve().parents[1] / "plugins" / "fixtures"


def lines(folder: str) -> int:
    return sum(len(p.read_text().splitlines()) for p in (FIXTURES / folder).glob("*.py"))


def test_the_fixtures_are_short():
    assert lines("nim") <= 60
    assert lines("noughts") <= 80


def make(factory, seats=2, options=None, seed=1):
    events: list = []
    clock = task.Clock()
    context = GameContext(clock=clock, emit=events.append, rng=random.Random(seed), game_id="g1")
    game = factory.create(GameConfig("a game", None, seats, options or {}), context)
    return game, events, clock


def test_a_kit_game_provides_the_hub_interfaces():
    factories = (Nim(), Noughts())  # registered while loaded (weakly: a reload replaces them)
    for factory in factories:
        verifyObject(IGameFactory, factory)
        verifyObject(IGameOptions, factory)
        assert not IGameRules.providedBy(factory)
        board = () if factory.board is None else ("mnm",)  # Tic-Tac-Toe declares a board
        assert tuple(factory.frontends) == ("xml", "web", *board)
        assert factory.default_seats == 2
        assert factory.adapter("xml") is None  # the generic payloads, and a whole view
        assert IFullViewAfter.providedBy(factory) and "moved" in factory.snapshot_kinds
        assert IXMLGameAdapter.providedBy(adapter_for(factory))
        assert factory.adapter("web") is None  # the generic page
        game, _, _ = make(factory)
        verifyObject(IGame, game)
    assert [o.name for o in Nim.options] == ["piles", "most", kit.MOVE_TIME]
    assert set(kit.loaded_types()) >= {"nim", "noughts"}
    assert isinstance(kit.game_type("nim"), Nim)


def test_tictactoe_is_played_to_the_end():
    game, events, _ = make(Noughts())
    assert game.state == "waiting" and game.legal_actions(0) == []
    game.seat_player(0, "ann")
    with pytest.raises(Conflict):
        game.seat_player(0, "bob")
    game.seat_player(1, "bob")
    assert game.state == "running"
    turn = [e for e in events if e.kind == TURN][-1]
    assert turn.data["seat"] == 0 and turn.data["timeleft_ms"] == 60_000
    assert turn.data["legal"][4] == {"move": 4, "label": "b2", "play": "B1"}
    with pytest.raises(GameError) as e:
        game.act(1, {"move": 4})
    assert e.value.code == 422 and "not your turn" in e.value.reason
    for bad in ({"cell": 4}, {"move": 4, "x": 1}, [4]):
        with pytest.raises(BadAction):
            game.act(0, bad)
    for seat, cell in ((0, 0), (1, 4), (0, 1), (1, 8)):
        game.act(seat, {"move": cell, "label": "ignored"})
    with pytest.raises(GameError) as e:
        game.act(0, {"move": 4})  # taken
    assert e.value.code == 422
    view = game.view(1)
    assert view["game"] == {"cells": "XX..O...O", "turn": 0}
    assert view["text"].splitlines()[1] == "1 X X ."
    assert view["to_move"] == [0] and view["players"] == ["ann", "bob"]
    game.act(0, {"move": 2})
    assert game.state == "over" and game.legal_actions(1) == []
    over = events[-1]
    assert over.kind == GAME_OVER
    assert over.data["result"] == {"winners": [0], "scores": [1.0, -1.0], "summary": "ann wins"}
    moved = [e.data for e in events if e.kind == "moved"]
    assert moved[-1] == {"seat": 0, "move": 2, "label": "c1"}


def test_a_draw():
    game, events, _ = make(Noughts())
    game.seat_player(0, "ann")
    game.seat_player(1, "bob")
    for i, cell in enumerate((0, 1, 2, 4, 3, 5, 7, 6, 8)):
        game.act(i % 2, {"move": cell})
    assert events[-1].data["result"] == {"winners": [], "scores": [0.0, 0.0], "summary": "a draw"}


def test_nim_moves_are_tuples_on_the_engine_and_lists_on_the_wire():
    game, events, _ = make(Nim(), options={"piles": 2, "most": 3}, seed=7)
    game.seat_player(0, "ann")
    game.seat_player(1, "bob")
    piles = game.position.piles
    assert len(piles) == 2 and all(1 <= n <= 3 for n in piles)
    legal = game.legal_actions(0)
    assert legal[0] == {"move": [0, 1], "label": "take 1 from pile 1"}
    while game.state == "running":
        seat = game.view(None)["to_move"][0]
        game.act(seat, {"move": game.legal_actions(seat)[-1]["move"]})  # take a whole pile
    assert game.result()["winners"] == [1]  # two piles, each taken whole: the second wins


def test_the_move_clock_ends_the_game():
    game, events, clock = make(Noughts(), options={"move_time": 5000})
    game.seat_player(0, "ann")
    game.seat_player(1, "bob")
    clock.advance(3)
    game.act(0, {"move": 4})
    assert game.view(1)["timeleft_ms"] == 5000
    clock.advance(4.9)
    assert game.state == "running" and game.view(1)["timeleft_ms"] == 100
    clock.advance(0.2)
    assert game.state == "over"
    assert [e.kind for e in events[-2:]] == ["timeout", GAME_OVER]
    assert game.result() == {
        "winners": [0],
        "scores": [1, 0],
        "summary": "bob ran out of time: ann wins",
    }
    assert clock.getDelayedCalls() == []


def test_a_leaver_loses_and_a_seat_opens_before_the_start():
    game, events, clock = make(Noughts())
    game.seat_player(0, "ann")
    game.leave(0)
    assert events[-1].kind == "seat_open" and game.view(None)["players"] == [None, None]
    game.seat_player(0, "cy")
    game.seat_player(1, "bob")
    game.leave(0)
    assert game.result()["summary"] == "cy left: bob wins"
    assert clock.getDelayedCalls() == []
    game.leave(1)  # over: nothing more
    assert events[-1].kind == GAME_OVER


def test_stop_cancels_the_clock():
    game, _, clock = make(Noughts())
    game.seat_player(0, "ann")
    game.seat_player(1, "bob")
    assert clock.getDelayedCalls()
    game.stop()
    assert clock.getDelayedCalls() == []


@pytest.mark.parametrize(
    "options, reason",
    [
        ({"pile": 3}, "unknown option 'pile' (known: piles, most, move_time)"),
        ({"piles": 0}, "option piles is from 1 to 6"),
        ({"piles": "many"}, "option piles is a whole number"),
        ({"piles": 2.5}, "option piles is a whole number"),
        ({"piles": True}, "option piles is a whole number"),
        ({"move_time": 10}, "option move_time is from 100 to 3600000"),
    ],
)
def test_bad_options_are_refused_with_a_reason(options, reason):
    with pytest.raises(BadAction) as e:
        make(Nim(), options=options)
    assert e.value.reason == reason


def test_options_given_as_text_are_read():
    game, _, _ = make(Nim(), options={"piles": "4", "bot_seed": 3})
    assert game.options.integer("piles") == 4 and len(game.position.piles) == 4


def test_views_restore_the_state_and_moves_parse_from_words():
    nim, board = Nim(), Noughts()
    state = Piles((3, 0, 2), 1)
    assert nim.restore(nim.view(state, 0), 0) == state
    assert board.restore(board.view(Board("X...O....", 0), None), None) == Board("X...O....", 0)
    with pytest.raises(kit.KitError):
        nim.restore({"piles": "3"}, 0)
    legal = nim.legal(state, 1)
    assert nim.parse("take 2 from pile 3", legal) == (2, 2)
    assert nim.parse(" 1 ", legal) == (0, 1)
    assert nim.parse("[2, 1]", legal) == (2, 1)
    with pytest.raises(kit.KitError):
        nim.parse("take 4 from pile 1", legal)
    assert board.parse("B2", board.legal(Board(), 0)) == 4


def test_outcome_helpers():
    assert kit.winners([1, 1]) == [] and kit.winners([0, 2, 2]) == [1, 2]
    assert kit.rewards([1, -1]) == [1.0, 0.0] and kit.rewards([0, 0]) == [0.5, 0.5]
    assert kit.outcome_words([0, 2, 2], ["a", "b", "c"]) == "b and c win"
    with pytest.raises(TypeError):
        kit.jsonable({1, 2})
