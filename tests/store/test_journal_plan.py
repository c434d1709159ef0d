"""The journal's write checks which of its games' journals are still this hub's at
every write: by their primary key, never by walking all of the hub's journals."""

from __future__ import annotations

import pytest
import pytest_twisted

from hub.store.journal import owners_query


@pytest_twisted.ensureDeferred
async def test_the_owners_of_a_write_s_games_are_found_by_primary_key(store):
    if store.dialect.name != "sqlite":
        pytest.skip("SQLite's plan; PostgreSQL plans from its statistics")

    def fill(cur):
        for n in range(300):
            cur.run(
                "INSERT INTO game_journal (game_id, hub_id, type, header, seed, created)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                f"g{n:04d}",
                "hub-a",
                "nmmorris",
                "{}",
                "00",
                store.dialect.t_in(0.0),
            )
        plan = cur.all("EXPLAIN QUERY PLAN " + owners_query(3), "g0001", "g0002", "nope")
        owners = cur.all(owners_query(3), "g0001", "g0002", "nope")
        return " ".join(str(row[-1]) for row in plan), sorted(owners)

    plan, owners = await store._run(fill)
    assert "game_journal_hub" not in plan  # (the hub's index: every game of the hub)
    assert "sqlite_autoindex_game_journal_1" in plan, plan
    assert owners == [("g0001", "hub-a"), ("g0002", "hub-a")]
