"""Ratings in the store, on SQLite and PostgreSQL: rated games, leaderboards, history,
and the rebuild from the stored rankings, which equals the live values exactly."""

from __future__ import annotations

import random

import pytest_twisted

from hub.rating import Ladder, Placed, Player, RatedGame, rate
from hub.store import BadName

from .test_accounts import fails

T0 = 1_800_000_000.0
MORRIS = ("nmmorris", "")


def game(game_id: str, *seats: tuple[str, str, int], pool=MORRIS, at: float = T0) -> RatedGame:
    placed = tuple(
        Placed(i, Player(kind, name), rank) for i, (kind, name, rank) in enumerate(seats)
    )
    return RatedGame(game_id, pool, at, placed)


@pytest_twisted.ensureDeferred
async def test_a_rated_game_updates_both_players(store):
    await store.create_account("alice", "pw-alice-1")
    updates = await store.rate_game(game("g1", ("account", "ALICE", 0), ("bot", "morris", 1)))
    expected = rate([updates[0].before, updates[1].before], [0, 1])
    assert [u.after for u in updates] == expected
    assert [u.player for u in updates] == [Player("account", "alice"), Player("bot", "morris")]
    board = await store.leaderboard("nmmorris")
    assert [(e["name"], e["kind"], e["games"]) for e in board] == [
        ("alice", "account", 1),
        ("morris", "bot", 1),
    ]
    assert board[0]["mu"] == expected[0].mu and board[0]["sigma"] == expected[0].sigma
    assert board[0]["ordinal"] == expected[0].ordinal
    # the same game again changes nothing
    assert await store.rate_game(game("g1", ("account", "alice", 0), ("bot", "morris", 1))) == []
    assert [e["games"] for e in await store.leaderboard("nmmorris")] == [1, 1]
    assert await store.rating_pools() == [{"type": "nmmorris", "variant": "", "players": 2}]


@pytest_twisted.ensureDeferred
async def test_guests_and_unknown_names_are_not_rated(store):
    await store.create_account("bob", "pw-bob-1")
    # a web guest and an MNM name that is no account: left out
    updates = await store.rate_game(
        game("g1", ("account", "guest-1a2b3c", 0), ("account", "bob", 1), ("account", "zed", 2))
    )
    assert updates == []  # one rated player left: not a rated game
    updates = await store.rate_game(
        game("g2", ("account", "guest-1a2b3c", 0), ("account", "bob", 1), ("bot", "greedy", 2))
    )
    assert [(u.player.name, u.rank) for u in updates] == [("bob", 1), ("greedy", 2)]
    # one bot in two seats (against itself) ranks nobody
    assert await store.rate_game(game("g3", ("bot", "greedy", 0), ("bot", "GREEDY", 1))) == []
    names = [e["name"] for e in await store.leaderboard("nmmorris")]
    assert names == ["bob", "greedy"] and not any(n.startswith("guest-") for n in names)


@pytest_twisted.ensureDeferred
async def test_pools_are_apart(store):
    await store.rate_game(game("a", ("bot", "x", 0), ("bot", "y", 1), pool=("poker", "no-limit")))
    await store.rate_game(game("b", ("bot", "x", 1), ("bot", "y", 0), pool=("poker", "fixed")))
    nl = await store.leaderboard("poker", "no-limit")
    fixed = await store.leaderboard("poker", "fixed")
    assert [e["name"] for e in nl] == ["x", "y"] and [e["name"] for e in fixed] == ["y", "x"]
    assert await store.leaderboard("poker") == []


@pytest_twisted.ensureDeferred
async def test_history_of_a_player(store):
    for n in range(3):
        await store.rate_game(game(f"g{n}", ("bot", "a", 0), ("bot", "b", 1), at=T0 + n))
    history = await store.rating_history("nmmorris", player=Player("bot", "A"))
    assert [h["game_id"] for h in history] == ["g0", "g1", "g2"]
    assert [h["rank"] for h in history] == [0, 0, 0]
    assert history[0]["finished"] == T0 and history[-1]["finished"] == T0 + 2
    mus = [h["mu"] for h in history]
    assert mus == sorted(mus)
    board = {e["name"]: e for e in await store.leaderboard("nmmorris")}
    assert board["a"]["mu"] == mus[-1]
    both = await store.rating_history("nmmorris")
    assert len(both) == 6 and [h["seq"] for h in both] == [1, 1, 2, 2, 3, 3]
    assert len(await store.rating_history("nmmorris", limit=2)) == 2


@pytest_twisted.ensureDeferred
async def test_bad_records_are_refused(store):
    await fails(store.rate_game(game("", ("bot", "a", 0), ("bot", "b", 1))), BadName)
    await fails(store.rate_game(game("g", ("guest", "a", 0), ("bot", "b", 1))), BadName)


@pytest_twisted.ensureDeferred
async def test_rebuild_equals_the_live_values(store):
    rng = random.Random(17)
    names = ["ann", "ben", "cy", "dee"]
    for name in names:
        await store.create_account(name, f"pw-{name}-1")
    bots = ["morris", "morris-random", "greedy"]
    ladder = Ladder()
    for n in range(40):
        players = rng.sample([("account", x) for x in names] + [("bot", b) for b in bots], 4)
        count = rng.choice([2, 3, 4])
        ranks = [rng.randrange(count) for _ in range(count)]
        pool = rng.choice([MORRIS, ("kingdomino", ""), ("texas-holdem", "no-limit")])
        record = game(
            f"g{n}",
            *[(k, x, r) for (k, x), r in zip(players[:count], ranks, strict=True)],
            pool=pool,
            at=T0 + n,
        )
        updates = await store.rate_game(record)
        assert [u.after for u in updates] == [u.after for u in ladder.add(record)]
    live = {
        pool: await store.leaderboard(*pool)
        for pool in (MORRIS, ("kingdomino", ""), ("texas-holdem", "no-limit"))
    }
    history = await store.rating_history("kingdomino")
    report = await store.rebuild_ratings(write=False)
    assert report == {"games": 40, "players": sum(len(v) for v in live.values()), "differences": []}
    report = await store.rebuild_ratings()
    assert report["differences"] == []
    for pool, board in live.items():
        assert await store.leaderboard(*pool) == board  # exactly: the same floats
        for entry in board:
            key = Player(entry["kind"], entry["name"]).key
            assert ladder.pools[pool][key].mu == entry["mu"]
    assert await store.rating_history("kingdomino") == history


@pytest_twisted.ensureDeferred
async def test_rebuild_finds_and_repairs_a_changed_rating(store):
    await store.rate_game(game("g1", ("bot", "a", 0), ("bot", "b", 1)))
    good = await store.leaderboard("nmmorris")

    def damage(cur):
        cur.run("UPDATE rating SET mu = mu + 1 WHERE name_key = ?", "a")

    await store._run(damage)
    report = await store.rebuild_ratings(write=False)
    assert report["differences"] == ["rating of bot a in nmmorris ''"]
    report = await store.rebuild_ratings()
    assert report["differences"] == ["rating of bot a in nmmorris ''"]
    assert await store.leaderboard("nmmorris") == good
    assert (await store.rebuild_ratings(write=False))["differences"] == []


@pytest_twisted.ensureDeferred
async def test_a_deleted_account_is_listed_no_more(store):
    await store.create_account("dora", "pw-dora-1")
    await store.create_account("eve", "pw-eve-1")
    await store.rate_game(game("g1", ("account", "dora", 0), ("account", "eve", 1)))
    await store.rate_game(game("g2", ("account", "dora", 0), ("bot", "greedy", 1)))
    await store.delete_account("dora")
    assert {e["name"] for e in await store.leaderboard("nmmorris")} == {"eve", "greedy"}
    assert {h["name"] for h in await store.rating_history("nmmorris")} == {"eve", "greedy"}
    assert await store.rating_history("nmmorris", player=Player("account", "dora")) == []
    # the stored rankings still hold it: a rebuild recomputes the same values
    assert (await store.rebuild_ratings(write=False))["differences"] == []
