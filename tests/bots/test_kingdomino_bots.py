"""King Domino bots: interfaces, legal answers, whole games in a lobby, strength."""

from __future__ import annotations

import os
import random

import pytest
from twisted.internet.task import Clock
from zope.interface.verify import verifyObject

from bots.kingdomino import (
    GreedyBotFactory,
    MonteCarloBotFactory,
    RandomBotFactory,
    policy,
)
from bots.kingdomino import match as kingdomino_strength
from games.kingdomino import rules
from games.kingdomino.server import KingDominoGameFactory
from hub.interfaces import IBot, IBotFactory
from hub.play.lobby import Lobby
from tests.support import DictRegistry, Recorder

FACTORIES = [RandomBotFactory(), GreedyBotFactory(), MonteCarloBotFactory()]


@pytest.mark.parametrize("factory", FACTORIES, ids=lambda f: f.name)
def test_factories_provide_the_interfaces(factory):
    assert verifyObject(IBotFactory, factory)
    assert list(factory.games) == ["kingdomino"]
    assert verifyObject(IBot, factory.create("kingdomino", 0, {}))


def lobby_with_bots(clock, tmp_path=None):
    registry = DictRegistry(games=[KingDominoGameFactory()], bots=FACTORIES)
    return Lobby(registry, clock, rng=random.Random(3))


@pytest.mark.parametrize("bot", ["domino-random", "greedy", "domino"])
def test_bots_play_a_whole_game_in_the_lobby(bot):
    clock = Clock()
    lobby = lobby_with_bots(clock)
    options = {"bot_seed": 5, "think_seconds": 0.01}
    seats = [f"bot:{bot}", "bot:greedy", "bot:domino-random", "bot:greedy"]
    game = lobby.create_game("kingdomino", seats=seats, options=options)
    recorder = Recorder()
    game.observe(recorder)
    assert game.state == "running"
    for _ in range(400):
        if game.state == "over":
            break
        clock.advance(0)
    assert game.state == "over"
    assert "removed" not in recorder.kinds()  # nobody timed out or played illegally
    result = game.result()
    assert len(result["ranking"]) == 4
    assert recorder.kinds().count("placed") == 48


def test_an_in_hub_bot_follows_the_game_instead_of_rebuilding_it(monkeypatch):
    """After its first prompt a bot only adds what happened since (``catch_up``); it
    never rebuilds the whole state from a view again."""
    rebuilt = []
    real = rules.State.from_public.__func__

    def counting(cls, public, rng):
        rebuilt.append(public["round"])
        return real(cls, public, rng)

    monkeypatch.setattr(rules.State, "from_public", classmethod(counting))
    clock = Clock()
    lobby = lobby_with_bots(clock)
    seats = ["bot:greedy", "bot:domino", "bot:domino-random", "bot:greedy"]
    game = lobby.create_game("kingdomino", seats=seats, options={"think_seconds": 0.01})
    for _ in range(400):
        if game.state == "over":
            break
        clock.advance(0)
    assert game.state == "over"
    assert len(rebuilt) <= 4  # once per bot


def test_greedy_takes_the_best_immediate_score():
    s = rules.State(draws=[tuple(range(i, i + 4)) for i in range(1, 49, 4)], order=[0, 1, 2, 3])
    s.kingdoms[0].place(24, rules.Placement(1, 0, 0))  # f1 (1,0), s (2,0)
    for p, d in zip([0, 1, 2, 3], [1, 2, 3, 4], strict=True):
        s.choose(p, d)
    # player 0 places sand domino 1 next to its sand; then picks from 5..8:
    # ff next to the crowned forest gains 3 * 2 - 2 = 4, ww alone only 2
    move = policy.greedy_move(s, 0, random.Random(1))
    assert s.kingdoms[0].gain(1, move) == 2
    s.move(0, move)
    assert policy.greedy_choice(s, 0, random.Random(1)) in (5, 6)
    assert policy.best_placement(s.kingdoms[0], 5, random.Random(1))[0] == 4
    assert policy.best_placement(s.kingdoms[0], 7, random.Random(1))[0] == 2


def test_monte_carlo_answers_with_legal_actions_and_keeps_its_pick():
    rng = random.Random(4)
    s = rules.State(rng=rng)
    mc = policy.MonteCarlo(random.Random(1), placements=2, playouts=1)
    while not s.over:
        me = s.to_act
        if me == 0:
            if s.phase == "choose":
                d = mc.choose(s, 0)
                assert d in s.legal_choices(0)
                s.choose(0, d)
            else:
                p = mc.move(s, 0)
                assert p in s.legal_moves(0)
                s.move(0, p)
        elif s.phase == "choose":
            s.choose(me, rng.choice(s.legal_choices(me)))
        else:
            s.move(me, rng.choice(s.legal_moves(me)))
    assert s.over


@pytest.mark.slow
def test_strength_short():
    """A bounded version of bench/kingdomino_strength.py (the full one: GAMEHUB_SOAK=full)."""
    full = os.environ.get("GAMEHUB_SOAK") == "full"
    share, _ = kingdomino_strength.win_share("greedy", "random", 200 if full else 12)
    assert share > 0.5
    games, playouts = (500, 4) if full else (2, 1)
    share, half = kingdomino_strength.win_share(
        "montecarlo", "greedy", games, playouts=playouts, jobs=2 if full else 1
    )
    print(f"domino vs 3 greedy over {games} games: {share:.1%} ± {half:.1%}")
    assert 0.0 <= share <= 1.0
    if full:
        assert share >= 0.40  # the goal (a fair share is 25%)
