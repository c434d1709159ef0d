"""Tournaments in the store, on SQLite and PostgreSQL: a tournament written whole and
read back as it was (what a restarting hub reads), rewritten in place, deleted."""

from __future__ import annotations

import pytest
import pytest_twisted

from hub.store.errors import NotOwner, TournamentRefused
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


@pytest_twisted.ensureDeferred
async def test_entries_from_any_door_are_kept_and_checked_under_the_rows_lock(store):
    t = tournament()
    t.state, t.round, t.games = "registering", 0, []
    t.owner = str(store.hub_id)
    t.settings["max_entrants"] = 5
    await store.save_tournament(t.to_record())
    entry = {"name": "dora", "kind": "client", "frontend": "mnm", "bot": None, "key": "d" * 13}
    assert await store.tournament_enter("t1", entry) == "e4"
    # the owner saves its older view (without dora): she stays
    await store.save_tournament(t.to_record())
    [back] = await store.load_tournaments(["t1"])
    assert [e["name"] for e in back["entries"]] == ["alice", "morris", "white", "dora"]
    for name, why in (("DORA", "registered already"), ("ed", None), ("fay", "full")):
        if why is None:
            assert await store.tournament_enter("t1", {**entry, "name": name}) == "e5"
            continue
        with pytest.raises(TournamentRefused, match=why):
            await store.tournament_enter("t1", {**entry, "name": name})
    with pytest.raises(NotOwner):
        await store.tournament_close("t1", "another-hub")
    closed = await store.tournament_close("t1", t.owner)
    assert closed["state"] == "registering" and len(closed["entries"]) == 5  # as it was read
    with pytest.raises(TournamentRefused, match="not open"):
        await store.tournament_enter("t1", {**entry, "name": "gus"})
    with pytest.raises(TournamentRefused, match="started already"):
        await store.tournament_close("t1", t.owner)
    # another hub's save of a tournament this hub owns is refused, nothing written
    other = Tournament.from_record(back)
    other.owner, other.name = "another-hub", "taken over?"
    with pytest.raises(NotOwner):
        await store.save_tournament(other.to_record())
    [back] = await store.load_tournaments(["t1"])
    assert back["name"] == "Sunday Swiss" and back["owner"] == t.owner


@pytest_twisted.ensureDeferred
async def test_a_games_fate_is_its_history_else_its_journal_else_lost(store):
    await store.record_game("g1", "hello", "g1", [], result={"winners": [0]})
    fates = await store.game_fates(["g1", "g2"])
    assert fates == {"g1": ("over", "hello", {"winners": [0]}), "g2": "lost"}
