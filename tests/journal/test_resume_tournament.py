"""A tournament's game resumed after a restart is the tournament's game still (issue
31): the hub resumes it from its journal before the tournament runner reads its
records back, and the runner follows that game again instead of creating a second one
for the same pairing; its entrant comes back to the seat, the game ends, and the
result counts.

Real parts: a SQLite store (journal and tournaments), real lobbies on test clocks.
"""

from __future__ import annotations

from pathlib import Path

import pytest_twisted

from hub.model import WAITING
from hub.play.resume import Journaling
from hub.tournaments.model import FINISHED, PLAYING, RUNNING
from tests.journal.test_resume import written
from tests.store.conftest import make_store
from tests.tournaments.test_service import make, seated


def routed(service, key):
    out = []
    service.route("mnm", key).addCallback(out.append)
    assert out, "routed at once: the game exists"
    return out[0]


@pytest_twisted.ensureDeferred
async def test_a_resumed_tournament_game_is_followed_not_made_again(tmp_path: Path):
    store = make_store(f"sqlite:{tmp_path}/hub.sqlite")
    await store.start()
    try:
        hub, service, clock = make(store, tournament_grace=30.0)
        journaling = Journaling(hub.lobby, store, clock, {})
        t = service.create({"type": "hello", "format": "swiss", "rounds": 1, "max_entrants": 2})
        a = service.register(t.id, "a1", "client", "mnm")
        service.register(t.id, "hello-bot", "bot", "hub", "hello-bot")
        clock.advance(0)  # full: round 1 starts
        old_game = t.games[0].game_id
        game = seated(hub, routed(service, a.key))
        assert game.id == old_game and game.state != WAITING
        await written(journaling)
        assert await journaling.seal() == [old_game]  # the hub stops

        # the same data, a new hub: the lobby resumes, then the runner starts
        hub2, service2, clock2 = make(store, tournament_grace=30.0)
        journaling2 = Journaling(hub2.lobby, store, clock2, {})
        assert await journaling2.resume() == [old_game]
        await service2.start()
        t2 = service2.get(t.id)
        assert t2.state == RUNNING and t2.games[0].game_id == old_game
        assert t2.games[0].state == PLAYING
        assert [g.id for g in hub2.lobby.games()] == [old_game]  # no second game
        # a1 is away: her seat waits for her under the game's own time rules
        assert hub2.lobby.get(old_game).awaiting == {back_seat(t2, a): "a1"}
        back = routed(service2, a.key)
        assert back.game.id == old_game
        game2 = seated(hub2, back)
        game2.act(back.seat, {"hello": "hi"})
        for _ in range(10):
            clock2.advance(1)  # the bot says hello; the grace timer is gone
        assert t2.state == FINISHED and t2.games[0].absent is None  # played, not forfeited
        stored = {r["id"]: r for r in await store.load_tournaments()}
        assert stored[t.id]["state"] == FINISHED
    finally:
        await store.stop()


def back_seat(t, entry):
    return t.games[0].entries.index(entry.id)
