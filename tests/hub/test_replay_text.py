"""A finished game's replay as the store keeps it (``GameInstance.replay_text``) is the
very text ``json.dumps(game.replay(), default=str, separators=(",", ":"))`` makes:
the text is written without the replay's dicts (issue 36), so readers of the history
and of the web replay get what they got before."""

from __future__ import annotations

import json
import random

from twisted.internet.task import Clock

from games.hello.server import HelloGameFactory
from games.morris.server import MorrisGameFactory
from hub.model import GameEvent, JsonText
from hub.play.lobby import Lobby
from hub.store.history import _replay_text
from tests.support import DictRegistry


def _old_text(game) -> str:
    return json.dumps(game.replay(), default=str, separators=(",", ":"))


def _played_morris(seed: int, **lobby_options):
    clock = Clock()
    clock.advance(1_765_000_000.25)
    lobby = Lobby(DictRegistry(games=[MorrisGameFactory()]), clock, **lobby_options)
    game = lobby.create_game("nmmorris", options={"max_turns": 40})
    game.take_seat("ann", 0)
    game.take_seat("bob", 1)
    rng = random.Random(seed)
    while game.state != "over":
        seat = game.engine.engine.to_move
        clock.advance(rng.choice((0.0011, 0.25, 1.5)))
        game.act(seat, rng.choice(game.legal_actions(seat)))
    return game


def test_a_morris_replay_text_is_the_text_of_its_replay() -> None:
    for seed in range(12):
        game = _played_morris(seed)
        text = game.replay_text()
        assert text == _old_text(game)
        assert json.loads(text) == game.replay()


def test_a_replay_whose_log_dropped_events_says_so_in_its_text() -> None:
    game = _played_morris(3, event_log=25)
    assert game.log_dropped > 0
    assert game.replay_text() == _old_text(game)
    assert json.loads(game.replay_text())["complete"] is False


def test_data_without_a_text_of_its_own_is_encoded_as_before() -> None:
    """Plain dicts, private events (left out), values JSON has not (``str``)."""
    from decimal import Decimal

    clock = Clock()
    lobby = Lobby(DictRegistry(games=[HelloGameFactory()]), clock)
    game = lobby.create_game("hello", seats=["open", "open"])
    game.take_seat("ann", 0)
    game._emit(GameEvent("secret", {"card": 7}, frozenset({0})))
    game._emit(GameEvent("odd", {"amount": Decimal("1.50"), "é": "ü\n", "n": None}))
    clock.advance(0.5)
    game.take_seat("bob", 1)
    assert game.replay_text() == _old_text(game)
    assert '"secret"' not in game.replay_text()


def test_the_store_keeps_a_replay_text_as_it_is() -> None:
    game = _played_morris(5)
    text = game.replay_text()
    assert _replay_text(JsonText(text)) == text == _replay_text(game.replay())
