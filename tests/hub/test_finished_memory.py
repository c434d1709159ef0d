"""A kept finished game is a small summary in memory (≤ 20 kB; the store has the rest):
tracemalloc around N games played by bots to the end and retired, with the lobby
keeping them (counted in bytes, not timed)."""

from __future__ import annotations

import gc
import tracemalloc

import pytest
from twisted.internet.task import Clock
from twisted.logger import globalLogBeginner

from bots.hello import HelloBotFactory
from bots.kingdomino import GreedyBotFactory
from bots.morris import RandomMorrisBotFactory
from bots.poker.plugin import CallerFactory, RandomFactory
from games.hello.server import HelloGameFactory
from games.kingdomino.server import KingDominoGameFactory
from games.morris.server import MorrisGameFactory
from games.poker.server import TexasHoldemFactory
from tests.support import DictRegistry, FakeHub

GAMES = 40
MOST = 20_000  # bytes a kept, retired game


#: the games measured: type → its seats (bots) and options
GAME_SPECS: dict[str, tuple[list[str], dict | None]] = {
    "nmmorris": (["bot:morris-random"] * 2, None),
    "hello": (["bot:hello-bot"] * 2, None),
    "kingdomino": (["bot:greedy"] * 4, None),
    "texas-holdem": (
        ["bot:caller", "bot:poker-random"],
        {"hands": 20, "showdown_pause": 0, "auto_post": True},
    ),
}


def play(clock, lobby, game_type: str, count: int) -> list:
    seats, options = GAME_SPECS[game_type]
    games = [lobby.create_game(game_type, seats=seats, options=options) for _ in range(count)]
    for _ in range(20_000):
        if all(g.state == "over" for g in games):
            break
        clock.advance(0.5)
    clock.advance(2)  # retire_after
    assert all(g.state == "over" and g.retired for g in games)
    return games


def kept_finished_bytes(game_type: str, count: int = GAMES) -> float:
    """The Python bytes (tracemalloc) a kept, retired finished ``game_type`` game holds:
    ``count`` games played by bots (:data:`GAME_SPECS`) to the end, after 3 untimed ones
    (caches, first-use allocations).  ``bench/mnm_memory.py`` measures it too.

    Logging is begun first (to nothing), as ``twistd`` does: until then Twisted keeps
    every log event, and what they name, in a buffer of its own."""
    globalLogBeginner.beginLoggingTo([lambda event: None], redirectStandardIO=False)
    clock = Clock()
    registry = DictRegistry(
        [MorrisGameFactory(), HelloGameFactory(), KingDominoGameFactory(), TexasHoldemFactory()],
        [
            RandomMorrisBotFactory(),
            HelloBotFactory(),
            GreedyBotFactory(),
            CallerFactory(),
            RandomFactory(),
        ],
    )
    options = {"retire_after": 1, "keep_finished_count": 10_000, "keep_finished": 10**9}
    hub = FakeHub(registry, reactor=clock, lobby=options)
    play(clock, hub.lobby, game_type, 3)  # caches and first-use allocations
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        games = play(clock, hub.lobby, game_type, count)
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    kept = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert len(hub.lobby.games()) == count + 3
    assert games[0].view(0) == games[0].view(0) and games[0].result()  # (a summary, kept)
    return kept / count


@pytest.mark.parametrize(
    ("game_type", "count"),
    [("nmmorris", GAMES), ("hello", GAMES), ("kingdomino", 20), ("texas-holdem", 20)],
)
def test_a_kept_finished_game_costs_at_most_20_kB(game_type, count):
    kept = kept_finished_bytes(game_type, count)
    assert kept <= MOST, f"{kept:.0f} bytes a kept finished {game_type} game"
