"""The hub's table money (``hub.play.money``) on a real store (SQLite and PostgreSQL): chip
tables funded at creation, seats bought in first, one settlement per hand gating the
next, outages paused and resumed, cash-outs reconciled."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
import pytest_twisted
from twisted.internet import defer, reactor

from hub.model import PAUSED, RESUMED, Conflict, IllegalAction
from hub.play.money import STORE_DOWN
from hub.service import HubService
from hub.store import InsufficientFunds, StoreUnavailable
from tests.store.conftest import dsn, make_store  # noqa: F401 (the dsn fixture)
from tests.support import DictRegistry, Recorder, until

from .chipgame import CoinsFactory, PassBotFactory
from .faults import Faults

LIMIT = 20.0


def bounded(d: defer.Deferred, seconds: float = LIMIT) -> defer.Deferred:
    return d.addTimeout(seconds, reactor)


@pytest_twisted.async_yield_fixture
async def hub(dsn, tmp_path):  # noqa: F811
    """A hub (no front ends) with the ``coins`` chip game, the ``pass`` bot and a store
    whose connections a test may break (``hub.faults``)."""
    store = make_store(dsn, probe_delays=(0.01, 0.05))
    service = HubService(
        reactor,
        tmp_path / "data",
        {},
        DictRegistry(games=[CoinsFactory()], bots=[PassBotFactory()]),
        store=store,
        options={"money_retry_first": 0.01, "money_retry_most": 0.05},
    )
    service.startService()
    await bounded(service._starting)
    service.faults = Faults(store)
    yield service
    service.faults.down = False
    await bounded(service.stopService())


async def account(hub, name: str) -> None:
    await hub.store.create_account(name, "secret-" + name)


async def balance(hub, name: str) -> D:
    return (await hub.store.get_account(name)).balance


async def settled(hub) -> None:
    await bounded(hub.money.idle())


async def table(hub, seats=("open", "open", "open")):
    return await bounded(
        defer.ensureDeferred(hub.create_game("coins", seats=list(seats), creator="test"))
    )


async def two_seated(hub):
    """A table where ann (seat 0) and bob (seat 1) bought in 100 each."""
    await account(hub, "ann")
    await account(hub, "bob")
    game = await table(hub)
    await hub.take_seat(game, "ann", 0)
    await hub.take_seat(game, "bob", 1)
    return game


async def refused(coroutine, error=Exception):
    try:
        await bounded(defer.ensureDeferred(coroutine))
    except error as e:
        return e
    raise AssertionError("not refused")


async def books_balance(hub) -> None:
    report = await hub.store.ledger_check()
    assert report.ok, str(report)


@pytest_twisted.ensureDeferred
async def test_bots_are_funded_and_bought_in_before_they_sit(hub):
    game = await table(hub, ["bot:pass", "bot:pass", "open"])
    assert [s.player for s in game.seats] == ["pass", "pass-2", None]
    assert sorted(game.engine.stacks.items()) == [(0, D(100)), (1, D(100))]
    assert await hub.store.chips_at(game.id) == {"bot.pass": D(100), "bot.pass-2": D(100)}
    # the grant and the buy-in are one transaction: the bot has nothing left over
    assert await balance(hub, "bot.pass") == 0
    assert (await hub.store.get_account("bot.pass")).type == "bot"
    kinds = sorted(r["kind"] for r in await hub.store.ledger(name="bot.pass"))
    assert kinds == ["buy_in", "grant"]
    await books_balance(hub)


@pytest_twisted.ensureDeferred
async def test_bots_held_until_the_creator_sits_are_funded_then(hub):
    await account(hub, "ann")
    game = await bounded(
        defer.ensureDeferred(
            hub.create_game("coins", seats=["human", "bot:pass"], creator="ann", seat_bots=False)
        )
    )
    assert game.seats[1].player is None and await hub.store.chips_at(game.id) == {}
    await hub.take_seat(game, "ann", 0, kind="human")
    await bounded(defer.ensureDeferred(hub.seat_bots(game)))
    await bounded(defer.ensureDeferred(hub.seat_bots(game)))  # once only
    assert [s.player for s in game.seats] == ["ann", "pass"]
    assert await hub.store.chips_at(game.id) == {"ann": D(100), "bot.pass": D(100)}
    assert sorted(game.engine.stacks.items()) == [(0, D(100)), (1, D(100))]
    await books_balance(hub)


@pytest_twisted.ensureDeferred
async def test_held_bots_that_cannot_be_funded_do_not_sit_and_their_chips_go_back(hub):
    await account(hub, "ann")
    await hub.store.create_account("bot.pass-2", "a person took this name", reserved=True)
    game = await bounded(
        defer.ensureDeferred(
            hub.create_game(
                "coins", seats=["human", "bot:pass", "bot:pass"], creator="ann", seat_bots=False
            )
        )
    )
    await hub.take_seat(game, "ann", 0, kind="human")
    e = await refused(hub.seat_bots(game), Conflict)
    assert "not a bot's" in e.reason
    assert [s.player for s in game.seats] == ["ann", None, None]
    await settled(hub)
    assert await hub.store.chips_at(game.id) == {"ann": D(100)}
    assert await balance(hub, "bot.pass") == D(100)  # its buy-in went back
    await books_balance(hub)


@pytest_twisted.ensureDeferred
async def test_a_table_whose_bot_cannot_be_funded_is_refused_whole(hub):
    await hub.store.create_account("bot.pass-2", "a person took this name", reserved=True)
    e = await refused(hub.create_game("coins", seats=["bot:pass", "bot:pass", "open"]), Conflict)
    assert "not a bot's" in e.reason
    assert hub.lobby.games() == []
    await settled(hub)
    assert await balance(hub, "bot.pass-2") == D(1000)
    assert await balance(hub, "bot.pass") == D(100)  # its buy-in went back
    assert [h for h in await hub.store.hubs() if h["tables"]] == []  # closed
    # the same bot added to a seat later: not seated, nothing moved
    game = await table(hub, ["open", "open"])
    assert await hub.add_bot(game, "pass", 1) == (1, "pass")
    e = await refused(hub.add_bot(game, "pass", 0), Conflict)  # it would play as pass-2
    assert "not a bot's" in e.reason and game.seats[0].free
    await settled(hub)
    assert await balance(hub, "bot.pass-2") == D(1000)
    await books_balance(hub)


@pytest_twisted.ensureDeferred
async def test_seats_are_bought_in_first_and_refusals_move_nothing(hub):
    await account(hub, "ann")
    game = await table(hub)
    e = await refused(hub.take_seat(game, "ann", 0, buyin="600"), IllegalAction)  # above 500
    e = await refused(hub.take_seat(game, "ann", 0, buyin="5"), IllegalAction)  # below 10
    await hub.store.grant("ann", "-700")
    e = await refused(hub.take_seat(game, "ann", 0, buyin="400"), InsufficientFunds)
    assert e.code == 422 and game.seats[0].free
    assert await balance(hub, "ann") == D(300)
    assert await hub.take_seat(game, "ann", 0, buyin="250") == 0
    assert await balance(hub, "ann") == D(50) and game.engine.stacks[0] == D(250)
    # the game refuses the seat after the buy-in moved: the chips go back
    await account(hub, "bob")
    game.engine.stacks[1] = D(0)  # seat 1 looks taken to the game, not to the lobby
    await refused(hub.take_seat(game, "bob", 1), Conflict)
    await settled(hub)
    assert await balance(hub, "bob") == D(1000) and game.seats[1].free
    del game.engine.stacks[1]
    # from one's own seat, a take-seat adds chips
    await hub.take_seat(game, "ann", None, buyin="50")
    assert game.engine.stacks[0] == D(300) and await balance(hub, "ann") == 0
    assert await hub.store.chips_at(game.id) == {"ann": D(300)}
    await books_balance(hub)


@pytest_twisted.ensureDeferred
async def test_each_hand_is_settled_once_before_the_next_is_dealt(hub):
    game = await two_seated(hub)
    hands = []
    hub.money.on_hand(lambda g, hand, hand_id: hands.append((hand, hand_id)))
    key = game.engine.play({0: D("12.50"), 1: D("-12.50")})
    assert not game.engine.can_deal()  # until the ledger has it
    await settled(hub)
    assert game.engine.can_deal() and hands[0][0] == key
    [stored] = await hub.store.hands(game_id=game.id)
    assert stored["hand_key"] == key and stored["hand_id"] == hands[0][1]
    assert {p["name"]: p["winnings"] - p["money_in"] for p in stored["players"]} == {
        "ann": D("12.50"),
        "bob": D("-12.50"),
    }
    assert await hub.store.chips_at(game.id) == {"ann": D("112.50"), "bob": D("87.50")}
    # bob leaves during the next hand: settled first, then cashed out
    game.engine.play({0: D(-20), 1: D(20)}, leave_during=(1,))
    game.seats[1].present = False
    await settled(hub)
    assert await balance(hub, "bob") == D("1007.50")
    assert await hub.store.chips_at(game.id) == {"ann": D("92.50")}
    hub.lobby.remove(game.id)
    await settled(hub)
    assert await balance(hub, "ann") == D("992.50")
    assert await hub.store.chips_at(game.id) == {}
    await books_balance(hub)


@pytest_twisted.ensureDeferred
async def test_an_outage_pauses_the_table_refuses_money_and_resumes_by_itself(hub):
    game = await two_seated(hub)
    await account(hub, "cy")
    watcher = Recorder()
    game.observe(watcher)
    hub.faults.down = True
    key = game.engine.play({0: D(30), 1: D(-30)})  # the hand in play finishes
    await until(lambda: game.paused == STORE_DOWN, "paused")
    assert PAUSED in watcher.kinds() and hub.game_json(game)["paused"] == STORE_DOWN
    assert not game.engine.can_deal()
    health = hub.health()
    assert health.pop("cluster")["hub"] == hub.store.hub_id
    assert health == {"status": "degraded", "store": "down", "paused_tables": 1}
    # meanwhile new tables, buy-ins and leaving with chips are refused, clearly
    for attempt in (
        hub.create_game("coins", seats=["open", "open"]),
        hub.take_seat(game, "cy", 2),
        hub.add_bot(game, "pass", 2),
    ):
        e = await refused(attempt, StoreUnavailable)
        assert e.code == 503 and STORE_DOWN in e.reason
    with pytest.raises(StoreUnavailable):
        hub.leave_seat(game, 0)
    assert game.seats[2].free and len(hub.lobby.games()) == 1
    hub.faults.down = False
    await until(lambda: game.paused is None, "resumed")
    await settled(hub)
    assert RESUMED in watcher.kinds() and game.engine.can_deal()
    assert hub.health()["status"] == "ok"
    rows = await hub.store.ledger(key=f"hand:{game.id}:{key}")
    assert len(rows) == 2  # settled exactly once
    assert await hub.store.chips_at(game.id) == {"ann": D(130), "bob": D(70)}
    await books_balance(hub)


@pytest_twisted.ensureDeferred
async def test_a_lost_commit_answer_is_applied_once(hub):
    game = await two_seated(hub)
    hub.faults.lose_commits = 1  # the settlement is written, its answer lost
    key = game.engine.play({0: D(5), 1: D(-5)})
    await until(lambda: game.engine.can_deal(), "settled")
    await settled(hub)
    assert len(await hub.store.ledger(key=f"hand:{game.id}:{key}")) == 2
    assert await hub.store.chips_at(game.id) == {"ann": D(105), "bob": D(95)}
    # a buy-in whose answer is lost: refused, and given back if it was applied
    await account(hub, "cy")
    hub.faults.lose_commits = 1
    await refused(hub.take_seat(game, "cy", 2), StoreUnavailable)
    await until(lambda: hub.store.available, "the store back")
    await settled(hub)
    assert game.seats[2].free and await balance(hub, "cy") == D(1000)
    await books_balance(hub)


@pytest_twisted.ensureDeferred
async def test_a_stack_that_differs_from_the_ledger_is_recorded_not_overwritten(hub):
    await account(hub, "ann")
    game = await table(hub)
    await hub.take_seat(game, "ann", 0)
    game.engine.stacks[0] += D(45)  # a game that invented chips
    hub.leave_seat(game, 0)
    await settled(hub)
    assert await balance(hub, "ann") == D(1000)  # what the ledger held, not 145
    [problem] = await hub.store.problems()
    assert (problem["account"], problem["expected"], problem["recorded"]) == ("ann", 145, 100)
    assert any("145" in p and "ann" in p for p in hub.money.problems)
    report = await hub.store.ledger_check()
    assert report.ok and len(report.notes) == 1, str(report)


@pytest_twisted.ensureDeferred
async def test_a_hub_stopping_during_an_outage_leaves_the_chips_to_recovery(hub):
    game = await two_seated(hub)
    hub.faults.down = True
    game.engine.play({0: D(10), 1: D(-10)})
    await until(lambda: game.paused == STORE_DOWN, "paused")
    assert await bounded(defer.ensureDeferred(hub.money.stop(0.05))) == 1  # bounded wait
    # the ledger still holds the stacks of before the unsettled hand: what recovery returns
    operator = make_store(hub.store.dsn)
    await operator.start(recover=False)
    try:
        assert await operator.chips_at(game.id) == {"ann": D(100), "bob": D(100)}
        assert await operator.hands(game_id=game.id) == []
    finally:
        await operator.stop()


@pytest_twisted.ensureDeferred
async def test_a_chip_table_is_retired_only_once_the_ledger_has_all_of_it(hub):
    """Retiring a finished table drops its engine, which settling a hand reads
    (``IChipGame.hand_summary``): a table whose movements wait for the store keeps it."""
    hub.lobby.retire_after = 0.01
    game = await two_seated(hub)
    hub.faults.down = True
    key = game.engine.play({0: D(30), 1: D(-30)})
    await until(lambda: game.paused == STORE_DOWN, "paused")
    game.engine.stop()  # the table closes: cash-outs and game over wait for the store too
    assert game.state == "over" and hub.money.busy(game.id)
    await until(lambda: not hub.lobby._finished[game.id][1].active(), "the retirement time")
    assert not game.retired and game.chips is game.engine
    hub.faults.down = False
    await until(lambda: game.retired, "retired once settled")
    assert not hub.money.busy(game.id) and game.chips is None
    # the event log went with the engine, all but the end
    assert [e.kind for e in game.events_for(None)] == ["over"]
    assert len(await hub.store.ledger(key=f"hand:{game.id}:{key}")) == 2
    assert await balance(hub, "ann") == D(1030) and await balance(hub, "bob") == D(970)
    assert await hub.store.chips_at(game.id) == {}
    await books_balance(hub)


@pytest_twisted.ensureDeferred
async def test_a_player_leaving_during_a_hand_takes_no_second_seat_before_the_cash_out(hub):
    """The ledger keeps one account's chips at a table in one place: until the seat it
    left is cashed out (at the end of the hand), the account takes no other seat there,
    whatever the game allows (``coins`` would seat one name twice)."""
    game = await two_seated(hub)
    game.engine.in_hand = True  # a hand is running
    hub.leave_seat(game, 0)  # ann leaves: her seat is hers until the hand is over
    assert game.seat_of("ann") is None and game.seats[0].player == "ann"
    e = await refused(hub.take_seat(game, "ann", 2), Conflict)
    assert "seat 0" in e.reason and game.seats[2].free
    game.engine.in_hand = False
    game.engine.play({0: D(-10), 1: D(10)})  # the hand ends: ann's seat is cashed out
    await settled(hub)
    assert await balance(hub, "ann") == D(990) and await hub.store.problems() == []
    assert await hub.take_seat(game, "ann", 2) == 2  # now she may sit again
    game.engine.play({1: D(-5), 2: D(5)})
    await settled(hub)
    assert await hub.store.chips_at(game.id) == {"ann": D(105), "bob": D(105)}
    assert game.paused is None and hub.money.problems == []
    await books_balance(hub)
