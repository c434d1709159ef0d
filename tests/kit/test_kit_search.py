"""The generic players of kit games (``hub.kit.search``, ``hub.kit.players``, the
``kit-random`` and ``kit-mcts`` bots): the search over a kit engine is strong where a
generic search can be, and the bots play any kit game type loaded, from the seat's view
alone.  In-process engine games, counted in playouts (no clock)."""

from __future__ import annotations

import random

import pytest
from twisted.internet import task
from zope.interface.verify import verifyObject

from bots.kit import MCTSBotFactory, RandomBotFactory
from hub import kit
from hub.interfaces import IBot, IBotFactory
from hub.kit.players import choose_move
from hub.kit.search import MCTS, random_move
from hub.model import GameConfig, GameContext
from tests.plugins.fixtures.nim.game import Nim, Piles
from tests.plugins.fixtures.noughts.game import Board, Noughts


def play(engine, state, players, seats=2):
    """Play ``state`` to the end; ``players[seat](state, seat)`` gives each move."""
    while engine.result(state) is None:
        seat = engine.to_move(state, seats)[0]
        state = engine.apply(state, seat, players[seat](state, seat))
    return engine.result(state)


def test_mcts_never_loses_to_random_at_tictactoe_and_scores_at_least_0_9():
    engine, rng = Noughts(), random.Random(1)
    score, losses = 0.0, 0
    for game in range(100):
        me = game % 2  # seats alternate
        search = MCTS(engine, 2, random.Random(1000 + game))

        def mcts(state, seat, search=search):
            return search.choose(state, seat, iterations=200)

        def rand(state, seat):
            return random_move(engine, state, seat, rng)

        share = kit.rewards(play(engine, Board(), [mcts, rand] if me == 0 else [rand, mcts]))[me]
        score += share
        losses += share == 0.0
    print(f"MCTS against random at Tic-Tac-Toe: {score / 100:.3f} over 100 games")
    assert losses == 0
    assert score / 100 >= 0.9


def test_mcts_never_loses_a_nim_game_it_starts_from_a_winning_position():
    engine, rng = Nim(), random.Random(2)
    options = kit.check_options(engine.options, {})  # 3 piles of 1 to 5
    started = 0
    while started < 30:
        state = engine.setup(options, 2, rng)
        a, b, c = state.piles
        if a ^ b ^ c == 0:  # a losing position for the seat to move
            continue
        started += 1
        search = MCTS(engine, 2, random.Random(started))
        scores = play(
            engine,
            state,
            [
                lambda s, seat, search=search: search.choose(s, seat, iterations=1000),
                lambda s, seat: random_move(engine, s, seat, rng),
            ],
        )
        assert scores == [1.0, 0.0], state


def test_mcts_takes_a_win_and_blocks_a_loss():
    engine, search = Noughts(), MCTS(Noughts(), 2, random.Random(3))
    assert search.choose(Board("XX.OO....", 0), 0, iterations=10) == 2  # wins at once
    assert search.choose(Board("XX..O....", 1), 1, iterations=50) == 2  # blocks
    assert MCTS(Nim(), 2).choose(Piles((0, 4, 0), 0), 0, iterations=5) == (1, 4)  # the last
    with pytest.raises(kit.KitError):
        search.choose(Board("XX..O....", 0), 1)  # not its turn
    assert engine.to_move(Board("XXX.OO...", 1), 2) == []


def test_a_search_stops_by_its_time():
    clock = task.Clock()
    search = MCTS(Nim(), 2, random.Random(4))

    def tick() -> float:
        clock.advance(0.001)
        return clock.seconds()

    search.choose(Piles((5, 5, 5), 0), 0, seconds=0.05, clock=tick)
    assert search.iterations in (784, 800, 816)  # 50 ms of 1 ms looks, one every 16 playouts


def test_the_generic_bots_play_every_kit_game_loaded_from_the_seat_view():
    nim, board = Nim(), Noughts()  # loaded: the hub's registry holds its game types
    for factory in (RandomBotFactory(), MCTSBotFactory()):
        verifyObject(IBotFactory, factory)
        assert {"nim", "noughts"} <= set(factory.games)
        with pytest.raises(kit.KitError):
            factory.create("no-such-game", 0, {})
    events: list = []
    context = GameContext(task.Clock(), events.append, random.Random(5), "g")
    game = board.create(GameConfig("g", None, 2, {}), context)
    game.seat_player(0, "a")
    game.seat_player(1, "b")
    for cell in (0, 3, 1):
        game.act(game.view(None)["to_move"][0], {"move": cell})
    for seed in range(5):  # the search, not luck: it blocks every time
        bot = MCTSBotFactory().create("noughts", 1, {"bot_seed": seed})
        verifyObject(IBot, bot)
        assert bot.choose(game.view(1), game.legal_actions(1), 0.5) == {"move": 2}
    other = RandomBotFactory().create("noughts", 1, {})
    chosen = other.choose(game.view(1), game.legal_actions(1), 0.5)
    assert chosen["move"] in [a["move"] for a in game.legal_actions(1)]
    nim_game = nim.create(GameConfig("n", None, 2, {}), context)
    assert nim_game.view(0)["game"] == kit.jsonable(nim_game.position)


def test_a_view_the_engine_cannot_restore_falls_back_to_a_random_legal_move():
    legal = [{"move": 4, "label": "b2"}, {"move": 5, "label": "c2"}]
    view = {"players": ["a", "b"], "game": {"cells": 12}}
    move = choose_move(Noughts(), "mcts", view, legal, 0, random.Random(1), iterations=10)
    assert move in (4, 5)
    with pytest.raises(kit.KitError):
        choose_move(Noughts(), "best", view, legal, 0, random.Random(1))
    with pytest.raises(kit.KitError):
        choose_move(Noughts(), "random", view, [], 0, random.Random(1))
