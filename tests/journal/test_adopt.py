"""A running hub adopts what an ended hub left with nobody to take it (issue 31): hub A
stops with a game running while no other hub could take it (its journal stays, its
lease ends); hub B, running all along, adopts the journal and its directory row (and its
chip table, were it one) and resumes the game: the same game, played on to its end.  Before its start and once it is
sealed a hub adopts nothing.

Real parts: one PostgreSQL schema, two stores with a lease each (two hubs), real
lobbies on test clocks.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg2
import pytest
import pytest_twisted
from twisted.internet.task import Clock

from hub.model import OVER
from hub.play.resume import Journaling
from tests.journal.test_resume import make_lobby, play_first_legal, views, written
from tests.store.conftest import fresh_pg_schema, make_store, pg_base_dsn


@pytest.fixture
def pg() -> Iterator[str]:
    with fresh_pg_schema(pg_base_dsn()) as dsn:
        yield dsn


def directory_row(dsn: str, game_id: str, hub_id: str) -> None:
    """The game listed in the cluster's directory as ``hub_id``'s (as its directory
    writer would have put it)."""
    connection = psycopg2.connect(dsn)
    try:
        with connection, connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO directory (game_id, hub_id, rev, type, name, state, seats, info,"
                " updated) VALUES (%s, %s, 1, 'nmmorris', 'g', 'running', '[]', '{}', now())",
                (game_id, hub_id),
            )
    finally:
        connection.close()


def run_sql(dsn: str, sql: str, args: tuple[str, ...]) -> None:
    connection = psycopg2.connect(dsn)
    try:
        with connection, connection.cursor() as cursor:
            cursor.execute(sql, args)
    finally:
        connection.close()


def directory_hub(dsn: str, game_id: str) -> str:
    connection = psycopg2.connect(dsn)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT hub_id FROM directory WHERE game_id = %s", (game_id,))
            return str(cursor.fetchone()[0])
    finally:
        connection.close()


def table_hub(dsn: str, game_id: str) -> str:
    connection = psycopg2.connect(dsn)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT hub_id FROM chip_table WHERE game_id = %s", (game_id,))
            return str(cursor.fetchone()[0])
    finally:
        connection.close()


@pytest.mark.postgres
@pytest_twisted.ensureDeferred
async def test_a_running_hub_adopts_the_games_an_ended_hub_left(pg):
    store_a, store_b, store_c = make_store(pg), make_store(pg), make_store(pg)
    await store_b.start()
    stopped_a = False
    await store_a.start()
    try:
        clock_b = Clock()
        lobby_b = make_lobby(clock_b, seed=99)
        journaling_b = Journaling(lobby_b, store_b, clock_b, {})
        assert await journaling_b.adopt() == []  # not started yet: nothing
        assert await journaling_b.start() == []

        clock_a = Clock()
        clock_a.advance(1000)
        lobby_a = make_lobby(clock_a)
        journaling_a = Journaling(lobby_a, store_a, clock_a, {})
        game = lobby_a.create_game("nmmorris")
        game.take_seat("alice")
        game.take_seat("bob", kind="human")
        play_first_legal(game, 6)
        directory_row(pg, game.id, str(store_a.hub_id))
        await written(journaling_a)
        before = views(game)
        assert await journaling_a.seal() == [game.id]  # A stops: nobody to hand it to
        lobby_a.stop()
        await store_a.stop()
        stopped_a = True

        # an open chip table that a live hub holds is not adopted by its journal alone
        # (it goes with its table, by a recovery of that hub); one that A left, whose
        # lease ended, is adopted with its table (its chips move with it)
        await store_c.start()
        run_sql(pg, "INSERT INTO chip_table (game_id, hub_id, game_type, opened)"
                " VALUES (%s, %s, 'nmmorris', now())", (game.id, str(store_c.hub_id)))  # fmt: skip
        assert await journaling_b.adopt() == []
        run_sql(pg, "UPDATE chip_table SET hub_id = %s WHERE game_id = %s",
                (str(store_a.hub_id), game.id))  # fmt: skip
        assert await journaling_b.adopt() == [game.id]
        assert directory_hub(pg, game.id) == str(store_b.hub_id)
        assert table_hub(pg, game.id) == str(store_b.hub_id)
        twin = lobby_b.get(game.id)
        assert views(twin) == before
        assert twin.take_seat("alice") == 0 and twin.take_seat("bob", kind="human") == 1
        for _ in range(200):
            if twin.state == OVER:
                break
            play_first_legal(twin, 1)
        assert twin.state == OVER
        assert await journaling_b.adopt() == []  # once
        await journaling_b.seal()
        assert await journaling_b.adopt() == []  # a hub that stops adopts nothing
        lobby_b.stop()
    finally:
        if not stopped_a:
            await store_a.stop()
        await store_b.stop()
        if store_c.hub_id is not None:
            await store_c.stop()
