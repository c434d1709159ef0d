"""Chip tables end (issue 35): a table with no person seated closes after the
``unattended_seconds`` setting, unless it was made bots only on purpose and its bots
can play on; a broke bot leaves or buys in again by the table's rule; every chip goes
back and the books balance."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
import pytest_twisted
from twisted.internet import defer, reactor

from hub.model import GAME_OVER, OVER, BadAction
from hub.play.game import CLOSING
from hub.service import HubService
from tests.store.conftest import dsn, make_store  # noqa: F401 (the dsn fixture)
from tests.support import DictRegistry, until

from .chipgame import CoinsFactory, PassBotFactory
from .test_money import account, balance, books_balance, bounded, settled

#: seconds a table with nobody at it plays on (short: the tests wait for it to close;
#: whether it is armed is read from the game, never from how long it took)
UNATTENDED = 0.2


@pytest_twisted.async_yield_fixture
async def hub(dsn, tmp_path):  # noqa: F811
    """A hub with the ``coins`` chip game and the ``pass`` bot, tables closing after
    :data:`UNATTENDED` seconds with nobody at them."""
    service = HubService(
        reactor,
        tmp_path / "data",
        {},
        DictRegistry(games=[CoinsFactory()], bots=[PassBotFactory()]),
        store=make_store(dsn, probe_delays=(0.01, 0.05)),
        options={"unattended_seconds": UNATTENDED},
    )
    service.startService()
    await bounded(service._starting)
    yield service
    await bounded(service.stopService())


async def create(hub, seats, **rules):
    return await bounded(
        defer.ensureDeferred(hub.create_game("coins", seats=list(seats), creator="t", **rules))
    )


def kinds(game) -> list[str]:
    return [e.kind for e in game.events_for(None)]


async def seated(hub, name: str, seats: list[str], **rules):
    """A table of ``seats`` (no hurry to close) with the account ``name`` in seat 0."""
    await account(hub, name)
    hub.lobby.unattended_seconds = 60
    game = await create(hub, seats, **rules)
    await hub.take_seat(game, name, 0, kind="human")
    return game


async def closed(game) -> None:
    await until(lambda: game.state == OVER, "the table closed", 10.0)


@pytest_twisted.ensureDeferred
async def test_a_table_left_to_bots_closes_and_every_chip_goes_back(hub):
    game = await seated(hub, "ann", ["open", "bot:pass", "bot:pass"])
    game.chips.play({0: D(10), 1: D(-10)})
    await settled(hub)
    assert game._unattended is None  # a person sits there: nothing counts down
    hub.lobby.unattended_seconds = UNATTENDED
    hub.leave_seat(game, 0)
    assert game._unattended is not None and game._unattended.active()
    await closed(game)
    assert kinds(game)[-1] == GAME_OVER and CLOSING in kinds(game)
    closing = next(e for e in game.events_for(None) if e.kind == CLOSING)
    assert closing.data == {"reason": "nobody plays at it"}
    await settled(hub)
    assert await balance(hub, "ann") == D(1010)  # her 100 back with the 10 she won
    assert await hub.store.chips_at(game.id) == {}
    await books_balance(hub)


@pytest_twisted.ensureDeferred
async def test_a_person_sitting_down_in_time_keeps_the_table_open(hub):
    await account(hub, "bob")
    hub.lobby.unattended_seconds = 60  # (the bob's buy-in may take a while)
    game = await create(hub, ["open", "bot:pass"])
    timer = game._unattended
    assert timer is not None and timer.active()  # nobody at it yet
    await hub.take_seat(game, "bob", 0, kind="client")
    assert game._unattended is None and not timer.active()
    assert game.state != OVER and CLOSING not in kinds(game)


@pytest_twisted.ensureDeferred
async def test_a_bots_only_table_on_purpose_plays_on_while_it_can(hub):
    hub.lobby.unattended_seconds = 60  # (nothing may close before the first hand)
    game = await create(hub, ["bot:pass", "bot:pass"], bots_only=True)
    assert game.to_json()["bots_only"] is True
    game.chips.play({0: D(5), 1: D(-5)})  # running now: its bots play on
    await settled(hub)
    assert game.state != OVER and game._unattended is None
    # one bot goes broke and leaves (the default rule): it cannot play on, it closes
    hub.lobby.unattended_seconds = UNATTENDED
    game.chips.play({0: D(95), 1: D(-95)})
    await settled(hub)
    await until(lambda: game.seats[1].free, "seat 1 free", 10.0)
    await closed(game)
    await settled(hub)
    await books_balance(hub)


@pytest_twisted.ensureDeferred
async def test_a_broke_bot_leaves_by_default(hub):
    game = await seated(hub, "cy", ["open", "bot:pass", "bot:pass"])
    game.chips.play({0: D(100), 1: D(-100)})
    await settled(hub)
    await until(lambda: game.seats[1].free, "seat 1 free", 10.0)
    assert game.seats[2].player == "pass-2" and not game.seats[2].free  # not broke: stays
    assert 1 not in game.chips.stacks
    assert await balance(hub, "bot.pass") == 0  # it left with nothing
    await books_balance(hub)


@pytest_twisted.ensureDeferred
async def test_a_broke_bot_buys_in_again_by_the_rebuy_rule(hub):
    game = await seated(hub, "dee", ["open", "bot:pass"], broke_bots="rebuy")
    game.chips.play({0: D(100), 1: D(-100)})
    await settled(hub)
    await until(lambda: game.chips.stacks.get(1) == D(100), "the bot bought in again", 10.0)
    assert game.seats[1].player == "pass" and not game.seats[1].free
    assert await hub.store.chips_at(game.id) == {"dee": D(200), "bot.pass": D(100)}
    kinds_ = sorted(r["kind"] for r in await hub.store.ledger(name="bot.pass"))
    assert kinds_.count("buy_in") == 2
    await books_balance(hub)


@pytest_twisted.ensureDeferred
async def test_bad_table_rules_are_refused_and_make_nothing(hub):
    before = len(hub.lobby.games())
    for seats, rules in (
        (["open", "bot:pass"], {"bots_only": True}),
        (["bot:pass", "bot:pass"], {"bots_only": "yes"}),
        (["bot:pass", "open"], {"broke_bots": "vanish"}),
    ):
        with pytest.raises(BadAction):
            await create(hub, seats, **rules)
    assert len(hub.lobby.games()) == before
