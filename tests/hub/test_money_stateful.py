"""Random interleavings of buy-ins, added chips, hands, leaves, disconnects, store
outages and lost commit answers against the hub's table money (``hub.play.money``) on a real
SQLite store: the money invariant holds after every step.

After every step an operator's ``ledger check`` (a second store on the same database,
as ``gamehub ledger check`` opens it) passes, and every account holds exactly its start
plus what the settled hands in the history paid it; whenever the store is up and the
table money idle, every seated player's chips in the ledger are the game's stack.

``GAMEHUB_SOAK=full`` runs many more examples.
"""

from __future__ import annotations

import os
import tempfile
from decimal import Decimal as D
from pathlib import Path

import pytest_twisted
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from twisted.internet import defer, reactor, task

from hub.model import GameError
from hub.service import HubService
from tests.store.conftest import make_store
from tests.support import DictRegistry

from .chipgame import CoinsFactory, PassBotFactory
from .faults import Faults

PEOPLE = ("ann", "bob", "cy", "dee")
FULL = os.environ.get("GAMEHUB_SOAK") == "full"


def block(d, seconds: float = 20.0):
    return pytest_twisted.blockon(defer.ensureDeferred(d).addTimeout(seconds, reactor))


def attempt(d) -> bool:
    """Run a request; ``False`` when it was refused (any refusal is fine here)."""
    try:
        block(d)
    except GameError:
        return False
    return True


class TableMoneyMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = tempfile.TemporaryDirectory()
        dsn = f"sqlite:{self.tmp.name}/hub.sqlite"
        store = make_store(dsn, probe_delays=(0.005, 0.02))
        store.lease_interval = 3600.0  # no heartbeat between the steps' own movements
        self.hub = HubService(
            reactor,
            Path(self.tmp.name) / "data",
            {},
            DictRegistry(games=[CoinsFactory()], bots=[PassBotFactory()]),
            store=store,
            options={"money_retry_first": 0.005, "money_retry_most": 0.02},
        )
        self.hub.startService()
        block(self.hub._starting)
        self.faults = Faults(self.hub.store)
        self.operator = make_store(dsn)
        block(self.operator.start(recover=False))
        for name in PEOPLE:
            block(self.hub.store.create_account(name, "secret-" + name))
        self.game = block(
            self.hub.create_game("coins", seats=["bot:pass", "open", "open", "open", "open"])
        )
        self.engine = self.game.engine

    # -- players ------------------------------------------------------------------------

    def seat_of(self, name: str):
        return self.game.seat_of(name)

    def quiet(self) -> None:
        """After each step: while the store is up, wait until the table money has done
        everything it can and the store knows it is up (so each step sees one state)."""
        if self.faults.down:
            return
        for _ in range(2000):
            if self.hub.store.available:
                block(self.hub.money.idle())
                if self.hub.store.available:
                    return
            block(task.deferLater(reactor, 0.002, lambda: None))
        raise AssertionError("the store never came back")

    @rule(name=st.sampled_from(PEOPLE), amount=st.integers(5, 600))
    def sit(self, name, amount):
        attempt(self.hub.take_seat(self.game, name, None, buyin=str(amount)))
        self.quiet()

    @rule(name=st.sampled_from(PEOPLE), amount=st.integers(1, 300))
    def add_chips(self, name, amount):
        seat = self.seat_of(name)
        if seat is not None:
            attempt(self.hub.take_seat(self.game, name, seat, buyin=str(amount)))
        self.quiet()

    @rule(name=st.sampled_from(PEOPLE), disconnect=st.booleans())
    def leave(self, name, disconnect):
        seat = self.seat_of(name)
        if seat is None:
            return
        if disconnect:
            self.game.leave_seat(seat)  # a lost connection always leaves
        else:
            try:
                self.hub.leave_seat(self.game, seat)
            except GameError:
                pass  # refused while the store is down
        self.quiet()

    @precondition(lambda self: self.engine.can_deal())
    @rule(data=st.data())
    def hand(self, data):
        seats = sorted(self.engine.stacks)
        losers = [s for s in seats if self.engine.stacks[s] > 0]
        if not losers:
            return
        loser = data.draw(st.sampled_from(losers))
        winner = data.draw(st.sampled_from([s for s in seats if s != loser]))
        cents = data.draw(st.integers(0, int(self.engine.stacks[loser] * 100)))
        amount = D(cents).scaleb(-2)
        people = [s for s in seats if self.game.seats[s].kind != "bot"]
        leaving = data.draw(st.lists(st.sampled_from(people), unique=True, max_size=2))
        for seat in leaving:
            self.game.seats[seat].present = False
        self.engine.play({loser: -amount, winner: amount}, leave_during=tuple(leaving))
        self.quiet()

    # -- the store --------------------------------------------------------------------------

    @rule()
    def store_goes_down(self):
        self.faults.down = True

    @rule()
    def store_comes_back(self):
        self.faults.down = False
        self.quiet()

    @rule()
    def a_commit_answer_is_lost(self):
        self.faults.lose_commits = 1

    # -- the money invariant ----------------------------------------------------------------

    @invariant()
    def the_books_prove_every_chip(self):
        report = block(self.operator.ledger_check())
        assert report.ok, str(report)
        paid: dict[str, D] = {}
        for hand in block(self.operator.hands(game_id=self.game.id, limit=10**6)):
            for p in hand["players"]:
                paid[p["name"]] = paid.get(p["name"], D(0)) + p["winnings"] - p["money_in"]
        grants: dict[str, D] = {}
        for row in block(self.operator.ledger(limit=10**6)):
            if row["kind"] == "grant":
                grants[row["account"]] = grants.get(row["account"], D(0)) + row["balance_delta"]
        for account in block(self.operator.list_accounts()):
            at_tables = sum(block(self.operator.tables_of(account.name)).values(), D(0))
            expected = grants.get(account.name, D(0)) + paid.get(account.name, D(0))
            assert account.balance + at_tables == expected, account.name

    @invariant()
    def an_idle_table_holds_what_the_game_holds(self):
        if self.faults.down:
            return
        chips = block(self.operator.chips_at(self.game.id))
        seated = {
            self.game.seats[s].player
            if self.game.seats[s].kind != "bot"
            else "bot." + str(self.game.seats[s].player): stack
            for s, stack in self.engine.stacks.items()
        }
        assert {k: v for k, v in chips.items() if v or k in seated} == seated
        assert self.game.paused is None

    def teardown(self):
        self.faults.down = False
        self.faults.lose_commits = 0
        try:
            self.hub.lobby.remove(self.game.id)
            block(self.hub.money.idle())
            report = block(self.operator.ledger_check())
            assert report.ok and report.at_tables == 0, str(report)
        finally:
            block(self.operator.stop())
            block(self.hub.stopService())
            self.tmp.cleanup()


TestTableMoney = TableMoneyMachine.TestCase
TestTableMoney.settings = settings(
    max_examples=200 if FULL else 12,
    stateful_step_count=40 if FULL else 25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
