"""The pure engines of the drop-in test games (``fixtures/tictactoe``,
``fixtures/chiphello``): random legal playouts to the end, as for every engine."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.plugins.fixtures.chiphello import client as chip_client
from tests.plugins.fixtures.chiphello import rules as chip
from tests.plugins.fixtures.tictactoe import client as ttt_client
from tests.plugins.fixtures.tictactoe import rules as ttt


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
