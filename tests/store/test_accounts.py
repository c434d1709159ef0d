"""Accounts: names, passwords, types, login throttling, deletion."""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest
import pytest_twisted
from twisted.internet import task

from hub.model import GameError
from hub.store import (
    BadName,
    BadPassword,
    ChipsInPlay,
    LoginFailed,
    NameTaken,
    Throttled,
    UnknownAccount,
)
from hub.store import accounts as acc

from .conftest import make_store


async def fails(d, *errors):
    """Await ``d`` and return the exception, which must be one of ``errors``."""
    try:
        await d
    except errors as e:
        return e
    raise AssertionError(f"expected {' or '.join(e.__name__ for e in errors)}")


@pytest_twisted.ensureDeferred
async def test_create_get_and_grant(store):
    account = await store.create_account("Alice", "secret1")
    assert (account.name, account.type, account.type_code) == ("Alice", "player", 0)
    assert account.balance == Decimal("1000.00")
    assert (await store.get_account("alice")).id == account.id
    rows = await store.ledger(name="Alice")
    assert [(r["kind"], r["balance_delta"]) for r in rows] == [("grant", Decimal("1000.00"))]
    assert (await store.ledger_check()).ok


@pytest_twisted.ensureDeferred
async def test_configurable_grant_and_types(dsn):
    s = make_store(dsn, grant="25.50")
    await s.start()
    try:
        bot = await s.create_account("robo", "secret1", type=1)
        admin = await s.create_account("boss", "secret1", type="admin", grant=0)
        assert (bot.type, bot.balance) == ("bot", Decimal("25.50"))
        assert (admin.type, admin.balance) == ("admin", Decimal("0.00"))
        changed = await s.set_type("robo", "player")
        assert changed.type == "player"
        await fails(s.set_type("robo", "wizard"), BadName)
        names = [a.name for a in await s.list_accounts(type="admin")]
        assert names == ["boss"]
    finally:
        await s.stop()


@pytest_twisted.ensureDeferred
async def test_names_are_unique_regardless_of_case(store):
    await store.create_account("Bob", "secret1")
    e = await fails(store.create_account("bob", "other99"), NameTaken)
    assert e.code == 409 and "taken" in e.reason
    assert len(await store.list_accounts()) == 1


@pytest.mark.parametrize(
    "name", ["", " bob", "bob smith", "-bob", "x" * 33, "bøb", "a;b", "<b>", None, 7]
)
@pytest_twisted.ensureDeferred
async def test_bad_names_are_refused(store, name):
    e = await fails(store.create_account(name, "secret1"), BadName)
    assert e.code == 400 and e.reason
    assert await store.list_accounts() == []


@pytest_twisted.ensureDeferred
async def test_bad_passwords_are_refused(store):
    for password in ["", "abc", "x" * 1025, None]:
        e = await fails(store.create_account("carol", password), BadPassword)
        assert e.code == 400
    await fails(store.get_account("carol"), UnknownAccount)


@pytest_twisted.ensureDeferred
async def test_unknown_account_is_404(store):
    e = await fails(store.get_account("nobody"), UnknownAccount)
    assert e.code == 404 and isinstance(e, GameError)


@pytest_twisted.ensureDeferred
async def test_hash_is_scrypt_never_the_password(store):
    await store.create_account("dave", "hunter22")

    def read(cur):
        return cur.one("SELECT password FROM account WHERE name_key = 'dave'")[0]

    stored = await store._run(read, write=False)
    assert stored.startswith("scrypt$16$8$1$") and "hunter22" not in stored
    assert acc.verify_password("hunter22", stored) and not acc.verify_password("hunter23", stored)


def test_production_hash_cost():
    stored = acc.hash_password("pw1234")
    assert stored.startswith("scrypt$16384$8$1$")
    assert acc.verify_password("pw1234", stored)
    assert not acc.verify_password("pw1234", None)


@pytest_twisted.ensureDeferred
async def test_hashing_runs_off_the_reactor_thread(store, monkeypatch):
    threads = []
    real_hash, real_verify = acc.hash_password, acc.verify_password

    def hash_password(*args):
        threads.append(threading.current_thread())
        return real_hash(*args)

    def verify_password(*args):
        threads.append(threading.current_thread())
        return real_verify(*args)

    monkeypatch.setattr(acc, "hash_password", hash_password)
    monkeypatch.setattr(acc, "verify_password", verify_password)
    await store.create_account("erin", "secret1")
    await store.authenticate("erin", "secret1")
    assert len(threads) == 2
    assert all(t is not threading.main_thread() for t in threads)


@pytest_twisted.ensureDeferred
async def test_login_unknown_name_and_wrong_password_look_the_same(store):
    await store.create_account("frank", "secret1")
    ok = await store.authenticate("FRANK", "secret1")
    assert ok.name == "frank" and ok.balance == Decimal("1000.00")
    wrong = await fails(store.authenticate("frank", "secret2"), LoginFailed)
    unknown = await fails(store.authenticate("franky", "secret1"), LoginFailed)
    assert (
        (wrong.code, wrong.reason)
        == (unknown.code, unknown.reason)
        == (
            401,
            "wrong account name or password",
        )
    )
    await fails(store.authenticate(None, None), LoginFailed)


@pytest_twisted.ensureDeferred
async def test_failures_from_one_address_wait_growing_delays(dsn):
    clock = task.Clock()
    throttle = acc.LoginThrottle(clock, free_failures=2, delay_base=1, delay_max=8)
    s = make_store(dsn, clock=clock, throttle=throttle)
    await s.start()
    try:
        await s.create_account("gina", "secret1")
        here = "10.0.0.1"
        for _ in range(2):  # free
            await fails(s.authenticate("gina", "nope", here), LoginFailed)
        delays = []
        for _ in range(5):
            await fails(s.authenticate("gina", "nope", here), LoginFailed)
            e = await fails(s.authenticate("gina", "secret1", here), Throttled)
            assert e.code == 429
            delays.append(throttle.wait("gina", here))
            clock.advance(delays[-1])
        assert delays == [1, 2, 4, 8, 8]
        # unknown names are throttled the same way (no hint that they do not exist)
        for _ in range(3):
            await fails(s.authenticate("ghost", "nope", here), LoginFailed)
        await fails(s.authenticate("ghost", "nope", here), Throttled)
        # a success clears the pair's count
        assert (await s.authenticate("gina", "secret1", here)).name == "gina"
        await fails(s.authenticate("gina", "nope", here), LoginFailed)
        await fails(s.authenticate("gina", "nope", here), LoginFailed)
        await fails(s.authenticate("gina", "nope", here), LoginFailed)
        await fails(s.authenticate("gina", "secret1", here), Throttled)
    finally:
        await s.stop()


@pytest_twisted.ensureDeferred
async def test_another_address_is_never_locked_out(dsn):
    """The lockout of issue 13: wrong passwords from one address never stop the right
    password from another."""
    clock = task.Clock()
    s = make_store(dsn, clock=clock)
    await s.start()
    try:
        await s.create_account("hank", "secret1")
        for _ in range(50):
            try:
                await s.authenticate("hank", "wrong!", "10.0.0.9")
            except (LoginFailed, Throttled):
                pass
            clock.advance(1000)  # wait out every delay: as many tries as it likes
        await fails(s.authenticate("hank", "wrong!", "10.0.0.9"), LoginFailed, Throttled)
        assert (await s.authenticate("hank", "secret1", "10.0.0.10")).name == "hank"
    finally:
        await s.stop()


@pytest_twisted.ensureDeferred
async def test_an_address_spraying_names_is_throttled(dsn):
    clock = task.Clock()
    throttle = acc.LoginThrottle(clock, address_failures=5)
    s = make_store(dsn, clock=clock, throttle=throttle)
    await s.start()
    try:
        await s.create_account("ivy", "secret1")
        for i in range(5):  # one failure per name: no pair is throttled
            await fails(s.authenticate(f"user{i}", "nope", "10.0.0.9"), LoginFailed)
        await fails(s.authenticate("user9", "nope", "10.0.0.9"), LoginFailed)
        await fails(s.authenticate("ivy", "secret1", "10.0.0.9"), Throttled)
        assert (await s.authenticate("ivy", "secret1", "10.0.0.10")).name == "ivy"
    finally:
        await s.stop()


def test_the_throttle_keeps_a_bounded_number_of_keys():
    clock = task.Clock()
    throttle = acc.LoginThrottle(clock, max_keys=100)
    for i in range(1000):
        throttle.failed(f"name{i}", f"10.0.{i % 7}.1")
    assert len(throttle) <= 100


@pytest_twisted.ensureDeferred
async def test_change_password(store):
    await store.create_account("ivan", "secret1")
    await fails(store.change_password("ivan", "wrong", "newpass1"), LoginFailed)
    await fails(store.change_password("ivan", "secret1", "no"), BadPassword)
    await store.change_password("ivan", "secret1", "newpass1")
    await fails(store.authenticate("ivan", "secret1"), LoginFailed)
    assert (await store.authenticate("ivan", "newpass1")).name == "ivan"
    await store.set_password("ivan", "third333")
    assert (await store.authenticate("ivan", "third333")).name == "ivan"


@pytest_twisted.ensureDeferred
async def test_find_players_by_prefix(store):
    for name in ["ann", "anna", "Annabel", "bert", "an_x", "anxy"]:
        await store.create_account(name, "secret1")
    assert [a.name for a in await store.find_players("ANNA")] == ["anna", "Annabel"]
    assert [a.name for a in await store.find_players("ann")] == ["ann", "anna", "Annabel"]
    # LIKE wildcards are plain characters in a prefix
    assert [a.name for a in await store.find_players("an_")] == ["an_x"]
    assert [a.name for a in await store.find_players("%")] == []
    assert [a.name for a in await store.find_players("an", limit=2)] == ["an_x", "ann"]


@pytest_twisted.ensureDeferred
async def test_delete_account(store):
    await store.create_account("judy", "secret1")
    await store.buy_in("judy", "g1", "100", "k1")
    e = await fails(store.delete_account("judy"), ChipsInPlay)
    assert e.code == 409
    await store.cash_out("judy", "g1", None, "k2")
    closed = await store.delete_account("judy")
    assert closed == Decimal("1000.00")
    await fails(store.get_account("judy"), UnknownAccount)
    await fails(store.authenticate("judy", "secret1"), LoginFailed)
    await fails(store.delete_account("judy"), UnknownAccount)
    report = await store.ledger_check()
    assert report.ok, str(report)
    assert report.issued == Decimal("0.00")
    # the name is free again, with a fresh account
    again = await store.create_account("judy", "secret2")
    assert again.balance == Decimal("1000.00")
    assert (await store.ledger_check()).ok


@pytest_twisted.ensureDeferred
async def test_guest_names_are_not_account_names(store):
    """The web names its guests ``guest-…``: an account of such a name would take a
    guest's seats for its own."""
    for name in ("guest-a1b2c3", "Guest-x", "GUEST-"):
        e = await fails(store.create_account(name, "secret1"), BadName)
        assert e.code == 400 and "guest-" in e.reason
    assert (await store.create_account("guesthouse", "secret1")).name == "guesthouse"
