"""The audit log and the banned addresses, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest_twisted

from .conftest import make_store


@pytest_twisted.ensureDeferred
async def test_rows_are_listed_newest_first_and_filtered(store):
    first = await store.record_audit(
        "api-token", "chips", via="api", source="127.0.0.1", target="ann", detail={"amount": "5"}
    )
    second = await store.record_audit(
        "root", "ban", via="cli", source="root@host", target="10.0.0.0/8", outcome="refused: no"
    )
    rows = await store.audit_log()
    assert [r["id"] for r in rows] == [second, first]
    assert rows[1] == {
        "id": first,
        "created": rows[1]["created"],
        "actor": "api-token",
        "via": "api",
        "source": "127.0.0.1",
        "action": "chips",
        "target": "ann",
        "detail": {"amount": "5"},
        "outcome": "ok",
    }
    assert rows[1]["created"] > 0
    assert [r["id"] for r in await store.audit_log(action="ban")] == [second]
    assert [r["id"] for r in await store.audit_log(actor="api-token")] == [first]
    assert [r["id"] for r in await store.audit_log(target="ann")] == [first]
    assert [r["id"] for r in await store.audit_log(limit=1)] == [second]


@pytest_twisted.ensureDeferred
async def test_only_the_newest_rows_are_kept(store):
    for n in range(7):
        await store.record_audit("a", "kick", via="api", source="x", target=str(n), keep=3)
    assert [r["target"] for r in await store.audit_log()] == ["6", "5", "4"]


@pytest_twisted.ensureDeferred
async def test_bans_are_kept_until_lifted(dsn):
    store = make_store(dsn)
    await store.start()
    try:
        assert await store.ban_address("192.0.2.1", "api-token", "flood") is True
        assert await store.ban_address("192.0.2.1", "other") is False  # the first row stays
        assert await store.ban_address("10.0.0.0/8", "root") is True
        bans = await store.banned_addresses()
        assert [(b["address"], b["actor"], b["reason"]) for b in bans] == [
            ("10.0.0.0/8", "root", None),
            ("192.0.2.1", "api-token", "flood"),
        ]
    finally:
        await store.stop()
    again = make_store(dsn)
    await again.start()
    try:
        assert len(await again.banned_addresses()) == 2  # kept across restarts
        assert await again.unban_address("192.0.2.1") is True
        assert await again.unban_address("192.0.2.1") is False
        assert [b["address"] for b in await again.banned_addresses()] == ["10.0.0.0/8"]
    finally:
        await again.stop()
