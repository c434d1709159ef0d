"""``GameInstance.seat_bot``: giving a free seat to an in-hub bot after creation."""

from __future__ import annotations

import pytest
from twisted.internet.task import Clock

from bots.hello import HelloBotFactory
from games.hello.server import HelloGameFactory
from hub.model import BadAction, Conflict, GameError, NotFound
from hub.play.lobby import Lobby
from tests.support import DictRegistry


class OtherBot(HelloBotFactory):
    name = "other"
    games = ("nothing",)


@pytest.fixture
def lobby():
    registry = DictRegistry([HelloGameFactory()], [HelloBotFactory(), OtherBot()])
    return Lobby(registry, Clock())


def test_a_bot_takes_a_free_seat_and_plays(lobby):
    game = lobby.create_game("hello", seats=["open", "human"])
    assert game.seat_bot(1, "hello-bot") == "hello-bot"
    assert game.seats[1].kind == "bot" and game.seats[1].bot == "hello-bot"
    assert game.seat_bot(0, "hello-bot") == "hello-bot-2"  # names stay unique
    lobby.clock.advance(0)
    assert game.state == "over"
    assert game.result()["winners"] == [0, 1]


@pytest.mark.parametrize(
    ("seat", "bot", "error"),
    [
        (5, "hello-bot", NotFound),
        (0, "nobody", NotFound),
        (0, "other", BadAction),
        (0, "Bad Name!", BadAction),
    ],
)
def test_refusals_change_nothing(lobby, seat, bot, error):
    game = lobby.create_game("hello", seats=["open", "open"])
    with pytest.raises(error):
        game.seat_bot(seat, bot)
    assert [s.kind for s in game.seats] == ["open", "open"]
    assert all(s.player is None for s in game.seats)


def test_a_taken_seat_is_not_free(lobby):
    game = lobby.create_game("hello", seats=["open", "open"])
    game.take_seat("ann", 0)
    with pytest.raises(Conflict):
        game.seat_bot(0, "hello-bot")
    assert game.seats[0].player == "ann"


def test_the_engine_refusing_the_seat_undoes_it(lobby):
    game = lobby.create_game("hello", seats=["open", "open"])

    def refuse(seat, name):
        raise GameError("no", 409)

    game.engine.seat_player = refuse
    with pytest.raises(GameError):
        game.seat_bot(0, "hello-bot")
    assert game.seats[0].kind == "open" and game.seats[0].player is None
    assert game._drivers == []
