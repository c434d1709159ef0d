"""Tournaments in the store, on SQLite and PostgreSQL: a tournament written whole and
read back as it was (what a restarting hub reads), rewritten in place, deleted."""

from __future__ import annotations

import pytest_twisted

from hub.tournaments.model import DONE, PLAYING, RUNNING, Entry, TGame, Tournament

T0 = 1_800_000_000.0


def tournament() -> Tournament:
    t = Tournament(
        "t1",
        "Sunday Swiss",
        "nmmorris",
        "swiss",
        {"rounds": 3, "max_entrants": 8, "options": {"move_ms": 500}, "starts_at": None},
        T0,
        RUNNING,
        2,
    )
    t.entries = [
        Entry("e1", "alice", "account", "web", None, "k" * 13),
        Entry("e2", "morris", "bot", "hub", "morris", "m" * 13),
        Entry("e3", "white", "client", "mnm", None, "abcdefghijklm"),
    ]
    t.games = [
        TGame(1, 1, ("e1", "e2"), "g1", DONE, (1.0, 0.0), (False, False)),
        TGame(1, 2, ("e3",), None, "bye"),
        TGame(2, 1, ("e3", "e1"), "g2", PLAYING),
    ]
    return t


@pytest_twisted.ensureDeferred
async def test_a_tournament_reads_back_as_it_was_written(store):
    t = tournament()
    await store.save_tournament(t.to_record())
    [back] = await store.load_tournaments()
    assert back == t.to_record()
    assert Tournament.from_record(back) == t
    # written again in place: a finished round, a new game
    t.games[2].state, t.games[2].points = DONE, (0.5, 0.5)
    t.games.append(TGame(3, 1, ("e1", "e3"), "g3", PLAYING))
    t.round = 3
    await store.save_tournament(t.to_record())
    [back] = await store.load_tournaments()
    assert Tournament.from_record(back) == t
    other = tournament()
    other.id, other.created = "t2", T0 + 5
    await store.save_tournament(other.to_record())
    assert [r["id"] for r in await store.load_tournaments()] == ["t1", "t2"]
    await store.delete_tournament("t1")
    assert [r["id"] for r in await store.load_tournaments()] == ["t2"]
