"""History: finished games and hands, queries, account deletion."""

from __future__ import annotations

from decimal import Decimal

import pytest
import pytest_twisted
from twisted.internet import defer

from hub.store import BadAmount, StoreUnavailable
from hub.store.history import HistoryBacklog

from .conftest import make_store
from .test_accounts import fails

D = Decimal
T0 = 1_800_000_000.0


async def play_games(store):
    await store.record_game(
        "g1",
        "nmmorris",
        "first",
        [
            {"seat": 0, "name": "ann", "kind": "human", "score": 1, "winner": True},
            {"seat": 1, "name": "bot7", "kind": "bot", "score": 0},
        ],
        started=T0,
        finished=T0 + 60,
        summary="ann wins",
        result={"winners": [0], "scores": [1, 0]},
    )
    await store.record_game(
        "g2",
        "texas-holdem",
        "second",
        [
            {"seat": 0, "name": "bob", "net": "-12.50"},
            {"seat": 1, "name": "ann", "net": "12.50", "winner": True},
        ],
        variant="fixed-limit",
        finished=T0 + 120,
    )
    await store.record_game("g3", "hello", "third", [{"seat": 0, "name": "bob"}], finished=T0 + 180)


@pytest_twisted.ensureDeferred
async def test_games_by_id_player_and_time(store):
    await store.create_account("ann", "secret1")
    await play_games(store)
    assert [g["game_id"] for g in await store.games()] == ["g3", "g2", "g1"]
    assert [g["game_id"] for g in await store.games(limit=2)] == ["g3", "g2"]
    assert [g["game_id"] for g in await store.games(player="ANN")] == ["g2", "g1"]
    assert [g["game_id"] for g in await store.games(since=T0 + 60, until=T0 + 180)] == [
        "g2",
        "g1",
    ]
    (g1,) = await store.games(game_id="g1")
    assert g1["type"] == "nmmorris" and g1["summary"] == "ann wins"
    assert g1["result"] == {"winners": [0], "scores": [1, 0]}
    assert (g1["started"], g1["finished"]) == (T0, T0 + 60)
    assert g1["players"] == [
        {"seat": 0, "name": "ann", "kind": "human", "score": 1, "winner": True, "net": None},
        {"seat": 1, "name": "bot7", "kind": "bot", "score": 0, "winner": False, "net": None},
    ]
    (g2,) = await store.games(game_id="g2")
    assert [p["net"] for p in g2["players"]] == [D("-12.50"), D("12.50")]
    assert g2["variant"] == "fixed-limit" and g2["started"] is None
    # recording a game twice stores it once
    assert not await store.record_game("g1", "nmmorris", "again", [])
    assert len(await store.games()) == 3


HAND = {
    "game_type": "texas-holdem",
    "record": {"board": [51, 47, 43, 0, 5], "showdown": "ann: royal flush", "dealer": 3},
    "summary": "board As Ks Qs 2c 3d; ann: royal flush",
    "sealed": {"seed": "cd" * 16, "engine": {"actions": [["ann", "raise", "20"]]}},
    "started": T0 + 5,
}


async def play_hands(store):
    first = await store.record_hand(
        "g2",
        players=[
            {
                "name": "ann",
                "seat": 3,
                "money_in": "20",
                "winnings": "40.00",
                "private": {"hole": [50, 46]},
            },
            {"name": "bob", "display": "Bobby", "seat": 5, "money_in": "20", "winnings": 0,
             "private": {"hole": [1, 2]}},
        ],
        at=T0 + 10,
        hand_key="h1",
        **HAND,
    )  # fmt: skip
    second = await store.record_hand(
        "g2", [{"name": "bob", "seat": 5, "money_in": "0.10", "winnings": "0.30"}], at=T0 + 20
    )
    third = await store.record_hand("g9", [{"name": "cat", "seat": 0}], at=T0 + 30)
    return first, second, third


@pytest_twisted.ensureDeferred
async def test_hands_keep_the_hub_s_columns_and_the_game_s_record(store):
    first, second, third = await play_hands(store)
    assert first < second < third
    assert [h["hand_id"] for h in await store.hands()] == [third, second, first]
    assert [h["hand_id"] for h in await store.hands(game_id="g2")] == [second, first]
    assert [h["hand_id"] for h in await store.hands(player="Ann")] == [first]
    assert [h["hand_id"] for h in await store.hands(since=T0 + 20, limit=1)] == [third]
    assert [h["hand_id"] for h in await store.hands(until=T0 + 20)] == [first]
    (hand,) = await store.hands(player="ann")
    assert (hand["started"], hand["ended"], hand["game_type"]) == (T0 + 5, T0 + 10, "texas-holdem")
    assert hand["record"] == HAND["record"] and hand["summary"] == HAND["summary"]
    ann, bob = hand["players"]
    assert (ann["name"], ann["seat"], ann["display"]) == ("ann", 3, "ann")
    assert (ann["money_in"], ann["winnings"]) == (D("20.00"), D("40.00"))
    assert (bob["display"], bob["winnings"]) == ("Bobby", D("0"))
    # private parts and the sealed part only when asked for, each to its reader
    assert "sealed" not in hand and "private" not in ann and "private" not in bob
    (hand,) = await store.hands(player="ann", private_for="ANN", sealed=True)
    ann, bob = hand["players"]
    assert ann["private"] == {"hole": [50, 46]} and "private" not in bob
    assert hand["sealed"] == HAND["sealed"]
    (hand,) = await store.hands(player="ann", private_for="bob")
    assert "private" not in hand["players"][0] and hand["players"][1]["private"] == {"hole": [1, 2]}
    # the engine's hand key makes recording idempotent
    again = await store.record_hand("g2", [], hand_key="h1")
    assert again == first and len(await store.hands()) == 3
    (small,) = await store.hands(game_id="g2", limit=1)
    assert small["players"][0]["winnings"] == D("0.30") and small["record"] is None


@pytest_twisted.ensureDeferred
async def test_bad_hands_are_refused(store):
    await fails(store.record_hand("g", [{"name": "a", "seat": 0, "money_in": 0.5}]), TypeError)
    await fails(store.record_hand("g", [{"name": "a", "seat": 0}, {"name": "b", "seat": 0}]),
                BadAmount)  # fmt: skip
    await fails(store.record_hand("g", [], game_type="x" * 65), BadAmount)
    await fails(store.record_hand("g", [], record={"not": {1, 2}}), TypeError)
    assert await store.hands() == []


@pytest_twisted.ensureDeferred
async def test_a_record_over_the_setting_is_left_out_and_the_hand_kept(store):
    store.hand_record_max = 100
    big = {"moves": ["x" * 20] * 10}
    hand_id = await store.record_hand(
        "g1",
        [{"name": "ann", "seat": 0, "money_in": "1", "private": big}],
        record=big,
        summary="s" * 500,
        sealed={"seed": "ab"},
        hand_key="k",
    )
    (hand,) = await store.hands(hand_id=hand_id, private_for="ann", sealed=True)
    assert hand["record"] is None and hand["players"][0]["private"] is None
    assert hand["sealed"] == {"seed": "ab"} and hand["summary"] == "s" * 100
    assert hand["players"][0]["money_in"] == D("1.00")


@pytest_twisted.ensureDeferred
async def test_deleting_an_account_keeps_its_history(store):
    await store.create_account("ann", "secret1")
    await play_games(store)
    await play_hands(store)
    await store.delete_account("ann")
    assert [g["game_id"] for g in await store.games(player="ann")] == ["g2", "g1"]
    (hand,) = await store.hands(player="ann")
    assert hand["players"][0]["name"] == "ann"
    assert await store.find_players("ann") == []


@pytest_twisted.ensureDeferred
async def test_replays_are_stored_once_and_read_back(store):
    replay = {
        "game": {"id": "g9", "type": "nmmorris"},
        "start": {"board": [None] * 24},
        "events": [{"at": 5, "kind": "moved", "data": {"seat": 0, "move": "A0"}}],
        "complete": True,
    }
    assert await store.replay("g9") is None
    assert await store.record_replay("g9", replay) is True
    assert await store.record_replay("g9", {"events": []}) is False  # kept as first stored
    assert await store.replay("g9") == replay


@pytest_twisted.ensureDeferred
async def test_a_game_its_seats_and_its_replay_are_stored_together_once(store):
    ann = await store.create_account("ann", "secret1")
    replay = {"game": {"id": "g5"}, "events": [{"at": 1, "kind": "moved"}], "complete": True}
    seats = [{"seat": 0, "name": "Ann", "winner": True}, {"seat": 1, "name": "bot7", "kind": "bot"}]
    assert await store.record_game("g5", "nmmorris", "five", seats, replay=replay) is True
    assert await store.replay("g5") == replay
    # the same game again (a replay of its own, other seats) changes nothing
    again = [{"seat": 0, "name": "bob"}, {"seat": 2, "name": "cat"}]
    assert await store.record_game("g5", "nmmorris", "x", again, replay={"events": []}) is False
    assert await store.replay("g5") == replay
    (g5,) = await store.games(game_id="g5")
    assert g5["name"] == "five"
    assert [(p["seat"], p["name"], p["winner"]) for p in g5["players"]] == [
        (0, "Ann", True),
        (1, "bot7", False),
    ]
    # each seat's account found by its name's key (none for a name without one)
    found = await store._run(
        lambda cur: cur.all("SELECT seat, account_id FROM game_player WHERE game_id = ?", "g5"),
        write=False,
    )
    assert sorted((int(s), a) for s, a in found) == [(0, ann.id), (1, None)]
    # a game stored before its replay gets the replay later, once
    assert await store.record_game("g6", "hello", "six", [{"seat": 0, "name": "ann"}]) is True
    assert await store.record_game("g6", "hello", "six", [], replay=replay) is False
    assert await store.replay("g6") == replay
    assert await store.record_game("g7", "hello", "no seats", []) is True
    assert (await store.games(game_id="g7"))[0]["players"] == []


# -- finished games written together (PostgreSQL) -----------------------------------


@pytest.fixture
def pg_dsn(dsn: str) -> str:
    if not dsn.startswith("postgresql"):
        pytest.skip(
            "needs PostgreSQL: a cluster's directory, a column's size limit, a server that goes away"
        )
    return dsn


def seats(*names: str) -> list[dict]:
    return [{"seat": n, "name": name, "winner": n == 0} for n, name in enumerate(names)]


def transactions(store) -> list[str]:
    """The names of the transaction functions ``store`` runs from now on."""
    seen: list[str] = []
    store.query_observer = lambda fn, seconds, ok, result: seen.append(fn.__qualname__)
    return seen


@pytest_twisted.ensureDeferred
async def test_games_finished_together_are_one_transaction_in_their_order(dsn):
    """(One message on PostgreSQL; on SQLite one transaction, one commit.)"""
    store = make_store(dsn)
    await store.start()
    try:
        seen = transactions(store)
        replay = {"game": {"id": "b1"}, "events": [{"at": 1, "kind": "moved"}], "complete": True}
        written = [
            store.record_game(f"b{n}", "hello", f"game {n}", seats("ann", "bob"),
                              finished=T0 + n, replay=replay if n == 1 else None)
            for n in range(1, 6)
        ]  # fmt: skip
        again = store.record_game("b3", "hello", "b3 again", seats("cat"), finished=T0 + 9)
        assert await defer.gatherResults([*written, again]) == [True] * 5 + [False]
        # the five in one message; the same game again in the next
        assert seen == ["HistoryMixin._history_send.<locals>.record_game"] * 2
        games = await store.games(limit=10)
        assert [g["game_id"] for g in games] == ["b5", "b4", "b3", "b2", "b1"]
        assert [[p["name"] for p in g["players"]] for g in games] == [["ann", "bob"]] * 5
        assert await store.replay("b1") == replay and await store.replay("b2") is None
    finally:
        await store.stop()


@pytest_twisted.ensureDeferred
async def test_without_batches_each_game_is_a_transaction_of_its_own(dsn):
    store = make_store(dsn, history_batch_seconds=0)
    await store.start()
    try:
        seen = transactions(store)
        replay = {"game": {"id": "a1"}, "events": [], "complete": True}
        first = await store.record_game("a1", "hello", "a1", seats("ann", "bob"), replay=replay)
        again = await store.record_game("a1", "hello", "a1 again", seats("cat"), replay={})
        assert (first, again) == (True, False)
        assert seen == ["HistoryMixin.record_game.<locals>.txn"] * 2
        (game,) = await store.games()
        assert game["name"] == "a1" and [p["name"] for p in game["players"]] == ["ann", "bob"]
        assert await store.replay("a1") == replay
    finally:
        await store.stop()


@pytest_twisted.ensureDeferred
async def test_a_directory_write_carries_the_games_waiting(pg_dsn):
    store = make_store(pg_dsn, history_batch_seconds=60.0)
    await store.start()
    try:
        await store.cluster_channel()
        written = [store.record_game(f"r{n}", "hello", "r", seats("ann")) for n in (1, 2)]
        seen = transactions(store)
        row = {"id": "d1", "hub": store.hub_id, "rev": 1, "type": "hello", "name": "d1",
               "state": "running", "seats": [], "info": {}}  # fmt: skip
        await store.directory_write([row])
        assert await defer.gatherResults(written) == [True, True]
        assert len(seen) == 1  # the directory's write, nothing of the history's own
        assert {g["game_id"] for g in await store.games()} == {"r1", "r2"}
        assert [r["id"] for r in await store.directory_rows()] == ["d1"]
    finally:
        await store.stop()


@pytest_twisted.ensureDeferred
async def test_a_game_the_database_refuses_fails_alone(pg_dsn):
    store = make_store(pg_dsn)
    await store.start()
    try:
        good = store.record_game("ok1", "hello", "fine", seats("ann"))
        bad = store.record_game("bad", "hello", "too long a seat name", seats("x" * 300))
        other = store.record_game("ok2", "hello", "fine", seats("bob"))
        assert await good is True and await other is True
        e = await fails(bad, Exception)
        assert "too long" in str(e) or "value" in str(e)
        assert {g["game_id"] for g in await store.games()} == {"ok1", "ok2"}
    finally:
        await store.stop()


@pytest_twisted.ensureDeferred
async def test_games_wait_while_the_database_is_away_and_the_queue_is_bounded(pg_dsn):
    from tests.hub.faults import Faults

    store = make_store(pg_dsn, history_batch_seconds=0.01, history_queue_max=3)
    await store.start()
    try:
        store._probe_delays = (0.01, 0.02)
        faults = Faults(store)
        faults.down = True
        await fails(store.get_account("nobody"), StoreUnavailable)  # found away
        waiting = [store.record_game(f"w{n}", "hello", "w", seats("ann")) for n in (1, 2, 3)]
        refused = await fails(store.record_game("w4", "hello", "w", seats("ann")), HistoryBacklog)
        assert "history_queue_max" in str(refused) and refused.code == 503
        await _sleep(0.1)
        assert not any(d.called for d in waiting)
        faults.down = False  # the store's probe finds it back, and the games go
        assert await defer.gatherResults(waiting) == [True, True, True]
        assert [g["game_id"] for g in await store.games()] == ["w3", "w2", "w1"]
    finally:
        await store.stop()


@pytest_twisted.ensureDeferred
async def test_stopping_writes_the_games_still_waiting(pg_dsn):
    store = make_store(pg_dsn, history_batch_seconds=3600.0)
    await store.start()
    written = [store.record_game(f"s{n}", "hello", "s", seats("ann")) for n in (1, 2, 3)]
    await store.stop()
    assert await defer.gatherResults(written) == [True, True, True]
    again = make_store(pg_dsn)
    await again.start()
    try:
        assert len(await again.games()) == 3
    finally:
        await again.stop()


async def _sleep(seconds: float) -> None:
    from twisted.internet import reactor, task

    await task.deferLater(reactor, seconds, lambda: None)
