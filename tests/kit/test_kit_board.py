"""A kit game's board (``kit.Board``, :mod:`hub.kit.mnm`): the declaration is checked,
travels as JSON (an isolated game's worker describes it so), and the kit's one MNM
adapter reads only what the kit's game sends (a view's ``board``, each legal action's
``play``).  Played on the Tic-Tac-Toe fixture; the sockets are in
``tests/frontends/test_mnm_kit_board.py``."""

from __future__ import annotations

import random

import pytest
from twisted.internet import task
from zope.interface.verify import verifyObject

from hub import kit
from hub.interfaces import IMNMGameAdapter
from hub.kit.mnm import KitMNMAdapter
from hub.model import TURN, BadAction, GameConfig, GameContext, GameError, IllegalAction
from tests.plugins.fixtures.nim.game import Nim
from tests.plugins.fixtures.noughts.game import FIELDS, Noughts


def started(factory):
    events: list = []
    context = GameContext(clock=task.Clock(), emit=events.append, rng=random.Random(1))
    game = factory.create(GameConfig("g", None, 2, {}), context)
    game.seat_player(0, "ann")
    game.seat_player(1, "bob")
    return game, events


def test_a_board_is_checked_when_declared():
    good = kit.Board("Line", ("A0", "A1"), 2)
    assert good.names == ("white", "black")
    assert kit.Board.from_json(good.to_json()) == good
    for kind, fields, pieces, names, why in [
        ("two words", ("A0",), 1, ("a", "b"), "kind"),
        ("Line", (), 1, ("a", "b"), "fields"),
        ("Line", ("A0", "A0"), 1, ("a", "b"), "fields"),
        ("Line", ("A",), 1, ("a", "b"), "fields"),  # MNM's "in hand"
        ("Line", ("A0:A1",), 1, ("a", "b"), "fields"),
        ("Line", ("A0",), 0, ("a", "b"), "pieces"),
        ("Line", ("A0",), 1, ("a b", "c"), "names"),
    ]:
        with pytest.raises(kit.KitError, match=why):
            kit.Board(kind, fields, pieces, names)
    for bad in (None, [], {"kind": "Line", "fields": "A0", "pieces": 1, "names": ["a", "b"]}):
        with pytest.raises(kit.KitError):
            kit.Board.from_json(bad)
    assert good.row(["A1"]) == ["A1", "A"]
    with pytest.raises(kit.KitError, match="not a field"):
        good.row(["B7"])
    with pytest.raises(kit.KitError, match="at most 2"):
        good.row(["A0", "A1", "C"])


def test_only_a_two_player_game_declares_a_board():
    with pytest.raises(kit.KitError, match="two seats"):

        class Crowd(kit.Game[int, int]):  # noqa: F841 (refused as it is defined)
            max_seats = 3
            board = kit.Board("Crowd", ("A0",), 1)

    assert Noughts().frontends == ("xml", "web", "mnm")  # the board adds MNM
    assert Nim().board is None and Nim().adapter("mnm") is None


def test_the_view_and_the_legal_moves_carry_the_board():
    game, events = started(Noughts())
    assert game.view(None)["board"] == {"pieces": [["A"] * 5, ["A"] * 5]}
    legal = [e for e in events if e.kind == TURN][-1].data["legal"]
    assert [a["play"] for a in legal] == list(FIELDS)
    game.act(0, {"move": 4, "play": "B1", "label": "b2"})  # a legal action sent back whole
    game.act(1, {"move": 0})
    assert game.view(1)["board"] == {
        "pieces": [["B1", "A", "A", "A", "A"], ["A0", "A", "A", "A", "A"]]
    }
    assert "board" not in started(Nim())[0].view(0)


def test_the_kit_adapter_parses_moves_from_the_legal_actions():
    adapter = Noughts().adapter("mnm")
    assert isinstance(adapter, KitMNMAdapter)
    verifyObject(IMNMGameAdapter, adapter)
    assert adapter.kind == "TicTacToe" and adapter.default_names == ("X", "O")
    game, events = started(Noughts())
    game.act(0, {"move": 4})
    turn = [e for e in events if e.kind == TURN][-1].data
    assert adapter.capture_count(turn) == 0
    assert adapter.parse_move("C2", turn) == {"move": 8}
    for text, error, reason in [
        ("Z9", BadAction, "Invalid move: Z9 is not a field"),
        ("A0:", BadAction, "Invalid move: A0: is not a field"),
        ("A0:B0", IllegalAction, "Invalid move: A0:B0 is not a legal move now"),
        ("B1", IllegalAction, "Invalid move: B1 is not a legal move now"),
    ]:
        with pytest.raises(error) as refused:
            adapter.parse_move(text, turn)
        assert refused.value.reason == reason
    assert adapter.piece_list(game.view(1)) == [["B1", "A", "A", "A", "A"], ["A"] * 5]
    assert adapter.piece_list({"state": "over"}) == [["A"] * 5, ["A"] * 5]  # no board
    assert adapter.winners({"winners": [1]}) == [False, True]
    assert adapter.winners({"winners": []}) == [True, True]  # a draw: won by both


def test_a_whole_game_through_the_adapter():
    adapter = Noughts().adapter("mnm")
    assert adapter is not None
    game, events = started(Noughts())
    for text in ("B1", "A0", "A1", "C2", "C1"):
        turn = [e for e in events if e.kind == TURN][-1].data
        game.act(turn["seat"], adapter.parse_move(text, turn))
    result = game.result()
    assert result is not None and adapter.winners(result) == [True, False]
    assert game.view(None)["board"]["pieces"][0][:3] == ["A1", "B1", "C1"]
    with pytest.raises(GameError):
        game.act(1, {"move": 2})


def test_a_board_that_shows_a_row_too_few_or_a_stray_field_is_an_engine_bug():
    class OneRow(Noughts):
        name = "noughts-one-row"

        def board_pieces(self, state):
            return [["A0"]]

    class Stray(Noughts):
        name = "noughts-stray"

        def board_pieces(self, state):
            return [["Z9"], []]

    for factory, why in ((OneRow(), "one per seat"), (Stray(), "not a field")):
        game, _ = started(factory)
        with pytest.raises(kit.KitError, match=why):
            game.view(0)
