"""Resume tokens in the store (:mod:`hub.store.resume`), on SQLite and PostgreSQL:
kept by hash, used once, bound to their account, gone when expired or dropped."""

from __future__ import annotations

import pytest_twisted

from hub.store.resume import MAX_GAMES

NOW = 1_000_000.0


@pytest_twisted.ensureDeferred
async def test_a_token_is_taken_once_by_its_own_account_before_it_expires(store):
    await store.create_account("Ann", "secret1")
    await store.resume_issue("h1", "Ann", [7, 8], NOW + 60)
    # another account, an unknown hash, an expired token: nothing, and nothing changed
    assert await store.resume_take("h1", "bob", NOW, "h2", NOW + 60) is None
    assert await store.resume_take("hx", "Ann", NOW, "h2", NOW + 60) is None
    assert await store.resume_take("h1", "ann", NOW + 60, "h2", NOW + 120) is None
    # the account's name in any case; its successor carries the games on
    assert await store.resume_take("h1", "ANN", NOW, "h2", NOW + 60) == [7, 8]
    assert await store.resume_take("h1", "ann", NOW, "h3", NOW + 60) is None  # used
    assert await store.resume_save("h2", [9], NOW + 90)
    assert await store.resume_take("h2", "ann", NOW + 80, "h3", NOW + 200) == [9]


@pytest_twisted.ensureDeferred
async def test_touch_drop_and_purge(store):
    await store.resume_issue("a", "ann", [], NOW + 10)
    await store.resume_issue("b", "ann", list(range(MAX_GAMES + 5)), NOW + 10)
    assert await store.resume_touch(["a", "b", "gone"], NOW + 100) == set()
    await store.resume_drop("a")
    assert not await store.resume_save("a", [1], NOW + 100)  # dropped: not kept
    assert await store.resume_take("a", "ann", NOW, "c", NOW + 100) is None
    assert await store.resume_purge(NOW + 50) == 0  # b was touched to NOW + 100
    games = await store.resume_take("b", "ann", NOW, "c", NOW + 100)
    assert games == list(range(MAX_GAMES))  # bounded
    assert await store.resume_touch(["b", "c"], NOW + 100) == {"b"}  # b was used
    assert await store.resume_purge(NOW + 100) == 1
    assert await store.resume_take("c", "ann", NOW, "d", NOW + 200) is None


@pytest_twisted.ensureDeferred
async def test_a_password_change_drops_the_other_tokens_of_the_account(store):
    for h, name in (("a1", "ann"), ("a2", "Ann"), ("b1", "bob")):
        await store.resume_issue(h, name, [], NOW + 10)
    await store.resume_drop_account("ANN", keep="a2")
    assert await store.resume_take("a1", "ann", NOW, "x", NOW + 10) is None
    assert await store.resume_take("a2", "ann", NOW, "y", NOW + 10) == []
    assert await store.resume_take("b1", "bob", NOW, "z", NOW + 10) == []
