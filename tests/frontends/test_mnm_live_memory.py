"""A live Nine Men's Morris game over the MNM front end, with what it keeps while it
runs (the engine's history, the game's event log, its transcript's buffer, both
connections), costs at most 60 kB of Python memory (issue 36): tracemalloc around N
games of a real lobby, each played 80 turns by two MNM clients and left running
(counted in bytes, not timed).  About 98 kB before issue 36's changes (a dictionary a
``moved`` event, every passed turn's legal moves, a tuple a position seen, a start
view a game); about 58 kB since."""

from __future__ import annotations

import gc
import random
import tracemalloc

from games.morris import rules
from hub.frontends.mnm import codec, make_factory
from hub.model import RUNNING
from tests.frontends.test_mnm_protocol import Client, make_hub, new_game

GAMES = 30
TURNS = 80
MOST = 60_000  # bytes a live game


def clear_shared_caches() -> None:
    """The bounded caches every game shares (at most 4,096 rows each): the hub's, not
    a game's; emptied before both snapshots."""
    codec._piece_row.cache_clear()
    rules._row_names.cache_clear()


def play(hub, factory, rng: random.Random, count: int) -> list:
    kept = []
    for _ in range(count):
        game = new_game(hub, move_time_ms=600_000, wait_interval_ms=3_600_000)
        a, b = Client(hub, factory), Client(hub, factory)
        a.join(game.id)
        b.join(game.id)
        mirror = rules.MorrisState()
        while mirror.turns < TURNS:
            move = rng.choice(mirror.legal_moves())
            seat = mirror.to_move
            mirror.apply(move)
            if mirror.outcome is not None:
                break  # not sent: the game stays live
            mover = (a, b)[seat]
            out = mover.answer(move.wire)
            assert "+ MOVEOK" in out and not mover.closed, out[-3:]
        a.lines()
        b.lines()
        game.transcript.flush()  # its buffer holds a second of lines (transcript_flush_seconds)
        kept.append((game, a, b, mirror.turns))
    return kept


def test_a_live_mnm_game_costs_at_most_60_kB(tmp_path) -> None:
    hub = make_hub(tmp_path)
    factory = make_factory(hub)
    rng = random.Random(36)
    kept = play(hub, factory, rng, 3)  # first-use allocations
    clear_shared_caches()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept += play(hub, factory, rng, GAMES)
        clear_shared_caches()
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    games = kept[3:]
    assert all(game.state == RUNNING for game, *_ in games)
    turns = sum(t for *_, t in games) / len(games)
    assert turns >= TURNS / 2, turns
    assert grown / GAMES <= MOST, f"{grown / GAMES:,.0f} bytes a live game ({turns:.0f} turns)"
