"""Random movements against an exact in-memory model: the books balance after every
step, nothing goes negative, and refused movements change nothing."""

from __future__ import annotations

import os
import random
from collections import Counter
from decimal import Decimal

import pytest
import pytest_twisted

from hub.model import GameError

D = Decimal
STEPS = 1000 if os.environ.get("GAMEHUB_SOAK") == "full" else 120
NAMES = ["ann", "bob", "cat"]
GAMES = ["g1", "g2"]


def cents(rng: random.Random, high: int) -> str:
    return str(D(rng.randint(1, high)).scaleb(-2))


@pytest.mark.parametrize("seed", [1, 2])
@pytest_twisted.ensureDeferred
async def test_random_movements_keep_the_books(store, seed):
    rng = random.Random(seed)
    balance = {n: D("1000.00") for n in NAMES}
    tables: dict[tuple[str, str], D] = {}
    issued = D("3000.00")
    done: Counter[str] = Counter()
    for name in NAMES:
        await store.create_account(name, "secret1")
    for step in range(STEPS):
        key = f"k{step}"
        name, game = rng.choice(NAMES), rng.choice(GAMES)
        kind = rng.choices(
            ["buy_in", "cash_out", "cash_out_all", "settle", "grant", "replay"],
            weights=[3, 1, 1, 4, 1, 1],
        )[0]
        try:
            if kind == "buy_in":
                amount = D(cents(rng, 60000))
                moved = await store.buy_in(name, game, str(amount), key)
                assert amount <= balance[name]
                balance[name] -= amount
                tables[game, name] = tables.get((game, name), D(0)) + amount
            elif kind == "cash_out":
                amount = D(cents(rng, 30000))
                moved = await store.cash_out(name, game, amount, key)
                assert amount <= tables[game, name]
                balance[name] += amount
                tables[game, name] -= amount
                if not tables[game, name]:
                    del tables[game, name]
            elif kind == "cash_out_all":
                moved = await store.cash_out(name, game, None, key)
                balance[name] += tables.pop((game, name))
            elif kind == "settle":
                seated = [n for n in NAMES if (game, n) in tables]
                if len(seated) < 2:
                    continue
                loser, winner = rng.sample(seated, 2)
                amount = D(cents(rng, 20000))
                moved = await store.settle(game, {loser: -amount, winner: amount}, key)
                assert amount <= tables[game, loser]
                tables[game, loser] -= amount
                tables[game, winner] += amount
            elif kind == "grant":
                amount = D(cents(rng, 5000)) * rng.choice([1, -1])
                moved = await store.grant(name, amount, key)
                assert balance[name] + amount >= 0
                balance[name] += amount
                issued += amount
            else:  # replay an earlier key with the same arguments: nothing happens
                rows = await store.ledger(limit=1)
                row = rows[0]
                if row["kind"] != "buy_in":
                    continue
                name = row["account"]
                moved = await store.buy_in(
                    row["account"], row["game_id"], -row["balance_delta"], row["key"]
                )
                assert not moved.applied
            assert moved.balances[name if kind != "settle" else winner] >= 0
            done[kind] += 1
        except GameError as e:
            assert e.code in (404, 422), e  # not there / not enough: refused, nothing moved
        accounts = {a.name: a.balance for a in await store.list_accounts()}
        assert accounts == balance
        for game_id in GAMES:
            got = await store.chips_at(game_id)
            assert got == {n: v for (g, n), v in tables.items() if g == game_id}
        report = await store.ledger_check()
        assert report.ok, str(report)
        assert report.issued == issued
    assert min(done.values()) >= 3 and len(done) == 6, done
