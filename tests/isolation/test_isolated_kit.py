"""A kit game dropped in unsigned runs isolated and plays as it does in the hub's
process: the kit's XML payloads, illegal moves refused at once (its legal moves are
all of them: ``IExhaustiveLegal``), and the generic bots, ``kit-mcts`` searching in a
worker of the game type (the hub never imports the game's engine).

Real parts: the registry loads the ``nim`` fixture from a data folder and every game
and search runs in a real worker process on the test's reactor.
"""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

import pytest
import pytest_twisted
from twisted.internet import reactor

from bots.kit import IsolatedKitBot
from hub import kit
from hub.frontends.xml.adapters import adapter_for
from hub.meta import builtin_meta_dir
from hub.model import OVER, BadAction, GameEvent, IllegalAction
from hub.optional_interfaces import ICatchesUp, IExhaustiveLegal
from hub.play.lobby import Lobby
from hub.plugins.isolation.host import IsolatedFactory, Isolation, IsolationSettings, kit_types
from hub.plugins.registry import Registry
from tests.support import until

FIXTURES = Path(__file__).resolve().parents[1] / "plugins" / "fixtures"


@pytest.fixture
def hub_parts(tmp_path):
    data = tmp_path / "data"
    (data / "plugins" / "meta").mkdir(parents=True)
    shutil.copytree(FIXTURES / "nim", data / "plugins" / "nim")
    shutil.copyfile(FIXTURES / "nim.meta", data / "plugins" / "meta" / "nim.meta")
    builtins = tmp_path / "builtin"
    builtins.mkdir()
    for meta in ("hello.meta", "kit-random.meta", "kit-mcts.meta"):
        shutil.copy(builtin_meta_dir() / meta, builtins)
    return data, builtins


async def start(data: Path, builtins: Path):
    isolation = Isolation(IsolationSettings(call_seconds=5.0), reactor)
    registry = Registry(data, reactor, builtin_dir=builtins, isolation=isolation)
    await registry.load()
    return isolation, registry, Lobby(registry, reactor, rng=random.Random(5))


def nim_view(piles: list[int], turn: int) -> dict[str, object]:
    """Seat ``turn``'s view of a game of Nim at ``piles`` (as ``KitGame.view`` says it)."""
    return {"players": ["ann", "bob"], "game": {"piles": piles, "turn": turn}}


@pytest_twisted.ensureDeferred
async def test_an_isolated_kit_game_is_hosted_as_a_kit_game(hub_parts):
    isolation, registry, lobby = await start(*hub_parts)
    assert registry.plugin("nim").isolated
    factory = registry.game_factory("nim")
    assert isinstance(factory, IsolatedFactory)
    assert factory.kit and factory.legal_key == "move" and IExhaustiveLegal.providedBy(factory)
    assert factory.adapter("xml") is None  # no adapter code: the generic payloads,
    xml = adapter_for(factory)  # and a whole view after the start and every move
    assert xml is not None and xml.snapshot_on(GameEvent("moved", {}))
    assert "nim" in kit_types() and kit.game_type("nim") is None  # no engine in the hub
    assert "_gamehub_isolated" not in str(sys.modules.keys())
    assert "nim" in tuple(registry.bot_factory("kit-random").games)
    assert "nim" in tuple(registry.bot_factory("kit-mcts").games)

    game = lobby.create_game("nim", seats=["open", "bot:kit-mcts"], options={"piles": 3})
    game.take_seat("ann")
    assert ICatchesUp.providedBy(game.engine)
    while game.state != OVER:
        await until(lambda: game.legal_actions(0) or game.state == OVER, "ann's turn or the end")
        await game.caught_up()
        if game.state == OVER:
            break
        errors = len([e for e in game.events_for(0, "ann") if e.kind == "error"])
        with pytest.raises(IllegalAction):
            game.act(0, {"move": [0, 99]})  # refused at once, by the legal moves
        with pytest.raises(BadAction):
            game.act(0, {"take": 1})
        assert len([e for e in game.events_for(0, "ann") if e.kind == "error"]) == errors
        game.act(0, {"move": game.legal_actions(0)[0]["move"]})
        await game.caught_up()
    assert game.result() is not None and game.result()["winners"]
    assert not isolation.incidents
    lobby.stop()


@pytest_twisted.ensureDeferred
async def test_kit_mcts_searches_in_a_worker_and_falls_back_to_a_random_move(hub_parts):
    isolation, registry, lobby = await start(*hub_parts)
    factory = registry.game_factory("nim")
    assert isinstance(factory, IsolatedFactory)
    # piles 2 and 1, seat 0 to move: only taking 1 from the first pile wins
    view = nim_view([2, 1], 0)
    legal = [{"move": m, "label": ""} for m in ([0, 1], [0, 2], [1, 1])]
    for seed in (b"a" * 32, b"b" * 32):
        assert await factory.think(0, "mcts", view, legal, 0.5, seed) == [0, 1]
    # a search that fails (here: no such policy) leaves the bot a random legal move
    bot = IsolatedKitBot(factory, 0, "no-such-policy", seed=1)
    played = await bot.choose_later(view, legal, 0.5)
    assert played["move"] in [a["move"] for a in legal]
    assert not isolation.incidents  # the game's own refusal, not the worker's fault
    lobby.stop()
