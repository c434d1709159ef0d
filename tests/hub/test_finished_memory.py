"""A kept finished game is a small summary in memory (≤ 20 kB; the store has the rest):
tracemalloc around N games played by bots to the end and retired, with the lobby
keeping them (counted in bytes, not timed)."""

from __future__ import annotations

import gc
import tracemalloc

import pytest
from twisted.internet.task import Clock

from bots.hello import HelloBotFactory
from bots.morris import RandomMorrisBotFactory
from games.hello.server import HelloGameFactory
from games.morris.server import MorrisGameFactory
from tests.support import DictRegistry, FakeHub

GAMES = 40
MOST = 20_000  # bytes a kept, retired game


def play(clock, lobby, game_type: str, bot: str, count: int) -> list:
    games = [lobby.create_game(game_type, seats=[bot, bot]) for _ in range(count)]
    for _ in range(4000):
        if all(g.state == "over" for g in games):
            break
        clock.advance(0.5)
    clock.advance(2)  # retire_after
    assert all(g.state == "over" and g.retired for g in games)
    return games


def kept_finished_bytes(game_type: str, bot: str, count: int = GAMES) -> float:
    """The Python bytes (tracemalloc) a kept, retired finished ``game_type`` game holds:
    ``count`` games played by two ``bot`` seats to the end, after 3 untimed ones
    (caches, first-use allocations).  ``bench/mnm_memory.py`` measures it too."""
    clock = Clock()
    registry = DictRegistry(
        [MorrisGameFactory(), HelloGameFactory()], [RandomMorrisBotFactory(), HelloBotFactory()]
    )
    options = {"retire_after": 1, "keep_finished_count": 10_000, "keep_finished": 10**9}
    hub = FakeHub(registry, reactor=clock, lobby=options)
    play(clock, hub.lobby, game_type, bot, 3)  # caches and first-use allocations
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        games = play(clock, hub.lobby, game_type, bot, count)
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    kept = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert len(hub.lobby.games()) == count + 3 and games[0].view(0)["state"] == "over"
    return kept / count


@pytest.mark.parametrize(
    ("game_type", "bot"), [("nmmorris", "bot:morris-random"), ("hello", "bot:hello-bot")]
)
def test_a_kept_finished_game_costs_at_most_20_kB(game_type, bot):
    kept = kept_finished_bytes(game_type, bot)
    assert kept <= MOST, f"{kept:.0f} bytes a kept finished {game_type} game"
