"""The journal's write checks which of its games' journals are still this hub's at
every write: by their primary key, never by walking all of the hub's journals."""

from __future__ import annotations

import pytest_twisted

from hub.store.journal import owners_query


@pytest_twisted.ensureDeferred
async def test_the_owners_of_a_write_s_games_are_found_by_primary_key(store):
    sqlite = store.dialect.name == "sqlite"

    def fill(cur):
        for n in range(300):
            cur.run(
                "INSERT INTO game_journal (game_id, hub_id, type, header, seed, created)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                f"g{n:04d}",
                "hub-a" if n % 3 else "hub-b",
                "nmmorris",
                "{}",
                "00",
                store.dialect.t_in(0.0),
            )
        owners = cur.all(owners_query(4), "g0001", "g0002", "g0003", "nope")
        plan = ""
        if sqlite:  # (PostgreSQL plans from its statistics: not asserted)
            found = cur.all("EXPLAIN QUERY PLAN " + owners_query(3), "g0001", "g0002", "nope")
            plan = " ".join(str(row[-1]) for row in found)
        return sorted(tuple(row) for row in owners), plan

    owners, plan = await store._run(fill)
    assert owners == [("g0001", "hub-a"), ("g0002", "hub-a"), ("g0003", "hub-b")]
    if sqlite:
        assert "game_journal_hub" not in plan  # (the hub's index: every game of the hub)
        assert "sqlite_autoindex_game_journal_1" in plan, plan
