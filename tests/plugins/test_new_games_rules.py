"""The drop-in test games (``fixtures/tictactoe``, ``fixtures/chiphello``) without a
hub: random legal playouts of their pure engines to the end, as for every engine, and
the games on a ``task.Clock``."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from twisted.internet.task import Clock
from zope.interface.verify import verifyObject

from hub.interfaces import IChipGame, IGame
from hub.model import (
    CASH_OUT,
    GAME_OVER,
    HAND_OVER,
    OVER,
    RUNNING,
    SEAT_OPEN,
    WAITING,
    BadAction,
    GameConfig,
    GameContext,
    IllegalAction,
)
from tests.plugins.fixtures.chiphello import client as chip_client
from tests.plugins.fixtures.chiphello import rules as chip
from tests.plugins.fixtures.chiphello.server import ChipHelloFactory
from tests.plugins.fixtures.tictactoe import client as ttt_client
from tests.plugins.fixtures.tictactoe import rules as ttt
from tests.plugins.fixtures.tictactoe.server import TicTacToeFactory


@given(st.randoms(use_true_random=False))
def test_tictactoe_random_games_end_with_one_result(rng):
    board = ttt.Board()
    for _ in range(ttt.CELLS):  # at most nine moves
        if board.over:
            break
        seat = board.to_move
        assert board.legal_cells(1 - seat) == []  # only the seat to move may move
        cell = rng.choice(board.legal_cells(seat))
        assert board.can_mark(seat, cell)
        done = board.mark(seat, cell)
        assert done == ttt.Mark(seat, cell, ttt.SYMBOLS[seat])
        with pytest.raises(ttt.TicTacToeError, match="taken|turn|over"):
            board.mark(1 - seat, cell)
    assert board.over and sum(board.returns()) == 0
    assert board.legal_cells(0) == board.legal_cells(1) == []
    if board.winner is None:
        assert "." not in board.text()
    assert ttt_client.free_cells(board.text()) == [
        i for i, c in enumerate(board.cells) if c is None
    ]


def test_tictactoe_refusals_say_why():
    board = ttt.Board()
    for reason, seat, cell in (("X's turn", 1, 0), ("no cell 9", 0, 9)):
        with pytest.raises(ttt.TicTacToeError, match=reason):
            board.verify_mark(seat, cell)
    assert ttt_client.action_payload(4) == '<mark cell="4"/>'
    assert ttt_client.picture("XO.......") == "XO.\n...\n..."


@given(
    st.integers(min_value=2, max_value=8),
    st.randoms(use_true_random=False),
    st.sampled_from(["1", "2.50", "10"]),
)
def test_chip_hello_random_hands_move_no_chip_out_of_nowhere(seats, rng, ante_text):
    ante = Decimal(ante_text)
    table = chip.Table(seats, ante)
    buyins = {s: ante * rng.randint(1, 100) for s in range(seats)}
    for seat, stack in buyins.items():
        table.sit(seat, f"p{seat}", stack)
    assert table.full and table.start() == ante * seats
    for _ in range(2 * seats):  # bounded: every seat speaks or leaves once
        if table.over:
            break
        seat = rng.choice(table.pending())
        if rng.random() < 0.2:
            table.leave(seat)
        else:
            table.say(seat, "hello")
            with pytest.raises(chip.ChipHelloError):
                table.say(seat, "again")
    assert table.over
    payoff = table.settle()
    assert sum(payoff.deltas.values()) == 0
    assert sum(table.stacks.values()) == sum(buyins.values())  # chips conserved
    for seat, stack in table.stacks.items():
        assert stack == buyins[seat] + payoff.deltas[seat] >= 0
    if table.said:
        assert payoff.winner == table.said[-1].seat and payoff.deltas[payoff.winner] >= 0
    else:
        assert payoff.winner is None and set(payoff.deltas.values()) == {Decimal(0)}
    assert table.settle() == payoff and sum(table.stacks.values()) == sum(buyins.values())


def test_chip_hello_refusals():
    table = chip.Table(2, Decimal(10))
    with pytest.raises(chip.ChipHelloError, match="cover the ante"):
        table.sit(0, "a", Decimal(5))
    table.sit(0, "a", Decimal(10))
    with pytest.raises(chip.ChipHelloError, match="taken"):
        table.sit(0, "b", Decimal(10))
    with pytest.raises(chip.ChipHelloError, match="1 to 200"):
        table.say(0, "")
    assert chip_client.take_seat("20") == '<takeseat buyin="20"/>'
    assert chip_client.hello("a & b") == "<hello>a &amp; b</hello>"


# -- the games on a task.Clock, without a hub ---------------------------------------------


def context(events: list) -> GameContext:
    return GameContext(clock=Clock(), emit=events.append, rng=random.Random(1), game_id="g1")


def test_tictactoe_game_starts_with_two_and_a_leaver_loses():
    events: list = []
    game = TicTacToeFactory().create(GameConfig("tictactoe", None, 2), context(events))
    assert verifyObject(IGame, game) and game.state == WAITING
    game.seat_player(0, "xena")
    game.leave(0)  # before the start: the seat opens again
    assert [e.kind for e in events] == ["seated", SEAT_OPEN]
    game.seat_player(0, "xena")
    game.seat_player(1, "oleg")
    assert game.state == RUNNING and events[-1].data == {"seat": 0, "legal": game.legal_actions(0)}
    with pytest.raises(BadAction):
        game.act(0, {"mark": "4"})
    game.act(0, {"mark": 4})
    with pytest.raises(IllegalAction, match="O's turn"):
        game.act(0, {"mark": 5})
    game.leave(1)
    assert game.state == OVER and game.result()["winners"] == [0]
    assert [e.kind for e in events][-2:] == ["left", GAME_OVER]


def chip_table(events: list, hold: bool):
    game = ChipHelloFactory().create(
        GameConfig("chip-hello", None, 2, {"ante": "5"}), context(events)
    )
    assert verifyObject(IChipGame, game)
    if hold:
        game.hold_hands()
    game.seat_player(0, "ann", Decimal(20))
    game.seat_player(1, "bob", Decimal(10))
    return game


@pytest.mark.parametrize("hold", [False, True])
def test_chip_hello_pays_the_last_word_and_cashes_out_after_the_settlement(hold):
    events: list = []
    game = chip_table(events, hold)
    assert game.view(None)["pot"] == "10"
    game.act(1, {"hello": "first"})
    game.act(0, {"hello": "last"})
    (handover,) = [e for e in events if e.kind == HAND_OVER]
    assert handover.data["deltas"] == {"0": "5", "1": "-5"}
    summary = game.hand_summary(handover.data["handid"])
    assert [(p.money_in, p.winnings) for p in summary.players] == [(5, 10), (5, 0)]
    if hold:  # the stacks go back only once the hub has the hand
        assert game.state == RUNNING and not [e for e in events if e.kind == CASH_OUT]
        game.settled(handover.data["handid"])
    cash = {e.data["seat"]: e.data["amount"] for e in events if e.kind == CASH_OUT}
    assert cash == {0: "25", 1: "5"} and game.state == OVER
    assert events[-1].kind == GAME_OVER


def test_chip_hello_stopped_during_the_hand_gives_every_ante_back():
    events: list = []
    game = chip_table(events, hold=True)
    game.act(0, {"hello": "hi"})
    game.stop()
    cash = {e.data["seat"]: e.data["amount"] for e in events if e.kind == CASH_OUT}
    assert cash == {0: "20", 1: "10"} and not [e for e in events if e.kind == HAND_OVER]
    with pytest.raises(IllegalAction):
        game.act(1, {"hello": "too late"})
