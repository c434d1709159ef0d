"""The rating service on a lobby with a ``task.Clock``: rated or casual, the default for
games a front end makes itself, what a finished game hands the store, and nothing while
the hub stops."""

from __future__ import annotations

from twisted.internet import defer, task

from hub.play.lobby import Lobby
from hub.ratings.service import RatingService, check_rated, pool_of, rated_game
from tests.support import DictRegistry


class Recorder:
    """A store that keeps what it is asked to rate."""

    def __init__(self) -> None:
        self.games: list = []

    def rate_game(self, game):
        self.games.append(game)
        return defer.succeed([])


def lobby_with_ratings(default: bool = False):
    from bots.hello import HelloBotFactory
    from games.hello.server import HelloGameFactory

    clock = task.Clock()
    lobby = Lobby(DictRegistry(games=[HelloGameFactory()], bots=[HelloBotFactory()]), clock)
    store = Recorder()
    return lobby, store, RatingService(lobby, store, default), clock


def test_rated_or_casual_and_the_default() -> None:
    lobby, store, ratings, clock = lobby_with_ratings()
    casual = lobby.create_game("hello", seats=["open", "open"], seat_bots=False)
    assert ratings.is_rated(casual.id) is False
    assert ratings.choose(casual, True) is True and ratings.is_rated(casual.id)
    assert ratings.choose(casual, False) is False and not ratings.is_rated(casual.id)
    lobby, store, ratings, clock = lobby_with_ratings(default=True)
    made_by_a_front_end = lobby.create_game("hello", seats=["open", "open"], seat_bots=False)
    assert ratings.is_rated(made_by_a_front_end.id)
    assert ratings.choose(made_by_a_front_end) is True
    lobby.remove(made_by_a_front_end.id)
    assert not ratings.is_rated(made_by_a_front_end.id)
    assert check_rated(None) is None and check_rated(True) is True
    for bad in ("true", 1, [], {}):
        try:
            check_rated(bad)
        except Exception as e:
            assert getattr(e, "code", None) == 400
        else:
            raise AssertionError(f"{bad!r} taken")


def test_a_finished_rated_game_goes_to_the_store() -> None:
    lobby, store, ratings, clock = lobby_with_ratings()
    game = lobby.create_game("hello", seats=["open", "bot:hello-bot"])
    ratings.choose(game, True)
    game.take_seat("ann", 0)
    game.act(0, {"hello": "hi"})
    clock.advance(1)  # the bot says hello
    assert game.state == "over"
    [record] = store.games
    assert record.game_id == game.id and record.pool == ("hello", "") == pool_of(game.factory, None)
    assert [(p.seat, p.player.kind, p.player.name, p.rank) for p in record.placed] == [
        (0, "account", "ann", 0),
        (1, "bot", "hello-bot", 0),
    ]
    assert record.source == "hub" and rated_game(game, "x").source == "x"  # type: ignore[union-attr]


def test_casual_games_and_games_stopped_by_the_hub_are_not_rated() -> None:
    lobby, store, ratings, clock = lobby_with_ratings()
    casual = lobby.create_game("hello", seats=["open", "bot:hello-bot"])
    casual.take_seat("ann", 0)
    casual.act(0, {"hello": "hi"})
    clock.advance(1)
    assert casual.state == "over" and store.games == []
    running = lobby.create_game("hello", seats=["open", "bot:hello-bot"])
    ratings.choose(running, True)
    assert ratings.stop().called
    running.take_seat("ann", 0)
    running.act(0, {"hello": "hi"})
    clock.advance(1)
    assert running.state == "over" and store.games == []


def test_poker_keeps_its_betting_structures_apart() -> None:
    from games.poker.server import FiveCardDrawFactory, TexasHoldemFactory
    from hub.interfaces import IRatedGameFactory
    from hub.ratings.service import ranks_of

    holdem = TexasHoldemFactory()
    assert IRatedGameFactory.providedBy(holdem)
    assert pool_of(holdem, "no-limit") == ("texas-holdem", "no-limit")
    assert pool_of(holdem, None) == ("texas-holdem", "fixed-limit")
    assert pool_of(FiveCardDrawFactory(), "pot-limit") == ("five-card-draw", "pot-limit")
    # seats ranked by the stacks they left the table with
    result = {"winners": [], "scores": ["0.00", "412.50", "87.50"], "summary": "closed"}
    assert ranks_of(holdem, result, 3) == [2, 0, 1]
