"""``GameInstance.seat_bot(..., player=, buyin=)`` (poker's *add bot*) and ``take_seat(buyin=...)``."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from twisted.internet.task import Clock

from bots.hello import HelloBotFactory
from bots.poker.plugin import CallerFactory
from games.poker.server import TexasHoldemFactory
from hub.model import BadAction, Conflict, IllegalAction, NotFound
from hub.play.lobby import Lobby
from tests.support import DictRegistry


def table(seats=3):
    registry = DictRegistry(games=[TexasHoldemFactory()], bots=[CallerFactory(), HelloBotFactory()])
    lobby = Lobby(registry, Clock(), rng=random.Random(1))
    return lobby.create_game("texas-holdem", seats=["open"] * seats, options={"buyin": 300})


def test_seat_bot_seats_a_playing_bot_with_its_buyin():
    game = table()
    name = game.seat_bot(1, "caller", buyin="150")
    assert name == "caller"
    seat = game.seats[1]
    assert (seat.kind, seat.bot, seat.player) == ("bot", "caller", "caller")
    assert game.engine.table.players[1].stack == Decimal(150)
    assert game.seat_bot(2, "caller") == "caller-2"
    assert game.engine.table.players[2].stack == Decimal(300)
    game.take_seat("ann", 0, buyin="200")
    assert game.engine.table.players[0].stack == Decimal(200)
    assert game.state == "running"  # three players: the bots play their turns


def test_seat_bot_refusals_change_nothing():
    game = table()
    with pytest.raises(NotFound):
        game.seat_bot(0, "nobody")
    with pytest.raises(BadAction):
        game.seat_bot(0, HelloBotFactory.name)
    with pytest.raises(NotFound):
        game.seat_bot(9, "caller")
    game.take_seat("ann", 0)
    with pytest.raises(Conflict):
        game.seat_bot(0, "caller")
    with pytest.raises(IllegalAction):  # the engine refuses a buy-in below its minimum
        game.seat_bot(1, "caller", buyin="0.5")
    assert game.seats[1].free and game.seats[1].kind == "open"
    assert 1 not in game.engine.table.players
    assert game._drivers == []
