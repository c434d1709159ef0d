"""An isolated plugin's game is journaled and resumed like any other (issue 31 with
issue 34's isolation): a kit game dropped in unsigned runs in a worker process; a
second hub (another lobby, registry and worker, as after a restart) makes it again
from its journal in the store, with the same view and the same moves after, and the
kit's bot goes on in it.

Real parts: a SQLite store and a PostgreSQL one, the registry loading the ``nim``
fixture from a data folder, real worker processes on the test's reactor.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest_twisted
from twisted.internet import reactor

from hub.meta import builtin_meta_dir
from hub.model import OVER
from hub.play.lobby import Lobby
from hub.play.resume import Journaling
from hub.plugins.isolation.host import IsolatedFactory, Isolation, IsolationSettings
from hub.plugins.registry import Registry
from tests.journal.test_resume import written
from tests.store.conftest import dsn, make_store  # noqa: F401  (the fixture)
from tests.support import until

FIXTURES = Path(__file__).resolve().parents[1] / "plugins" / "fixtures"


def data_folder(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "data"
    (data / "plugins" / "meta").mkdir(parents=True)
    shutil.copytree(FIXTURES / "nim", data / "plugins" / "nim")
    shutil.copyfile(FIXTURES / "nim.meta", data / "plugins" / "meta" / "nim.meta")
    builtins = tmp_path / "builtin"
    builtins.mkdir()
    for meta in ("kit-random.meta",):
        shutil.copy(builtin_meta_dir() / meta, builtins)
    return data, builtins


async def hub_lobby(data: Path, builtins: Path, seed: int) -> tuple[Isolation, Lobby]:
    isolation = Isolation(IsolationSettings(call_seconds=5.0), reactor)
    registry = Registry(data, reactor, builtin_dir=builtins, isolation=isolation)
    await registry.load()
    assert isinstance(registry.game_factory("nim"), IsolatedFactory)
    return isolation, Lobby(registry, reactor, rng=random.Random(seed))


def views(game: Any) -> list[Any]:
    return [game.view(seat) for seat in [None, 0, 1]]


@pytest_twisted.ensureDeferred
async def test_an_isolated_game_resumes_from_its_journal_in_a_new_worker(dsn, tmp_path):  # noqa: F811
    data, builtins = data_folder(tmp_path)
    store = make_store(dsn)
    await store.start()
    lobbies: list[Lobby] = []
    try:
        isolation, lobby = await hub_lobby(data, builtins, seed=5)
        lobbies.append(lobby)
        journaling = Journaling(lobby, store, reactor, {})
        game = lobby.create_game("nim", seats=["open", "bot:kit-random"], options={"piles": 6})
        assert game.take_seat("ann") == 0
        for _ in range(2):  # two of ann's moves, each answered by the bot
            await until(lambda: game.legal_actions(0) or game.state == OVER, "ann's turn")
            await game.caught_up()
            if game.state == OVER:
                break
            game.act(0, {"move": game.legal_actions(0)[0]["move"]})
            await game.caught_up()
        await until(lambda: game.legal_actions(0) or game.state == OVER, "ann's turn")
        await game.caught_up()
        await written(journaling)
        assert game.state != OVER, "six piles outlast two moves a side"
        before = views(game)
        assert await journaling.seal() == [game.id]
        lobby.stop()

        isolation2, lobby2 = await hub_lobby(data, builtins, seed=99)
        lobbies.append(lobby2)
        journaling2 = Journaling(lobby2, store, reactor, {})
        resumed = await journaling2.resume()
        assert resumed == [game.id]
        twin = lobby2.get(game.id)
        await twin.caught_up()
        assert views(twin) == before  # the same game, made again in a new worker
        assert twin.awaiting == {0: "ann"} and twin.take_seat("ann") == 0
        while twin.state != OVER:  # ann and the bot play it to its end
            await until(lambda: twin.legal_actions(0) or twin.state == OVER, "ann's turn")
            await twin.caught_up()
            if twin.state == OVER:
                break
            twin.act(0, {"move": twin.legal_actions(0)[0]["move"]})
            await twin.caught_up()
        assert twin.result() is not None and twin.result()["winners"]
        assert not isolation.incidents and not isolation2.incidents
    finally:
        for each in lobbies:
            each.stop()
        await store.stop()
