"""Web sessions in the store (:mod:`hub.store.websessions`), on SQLite and
PostgreSQL: kept by hash, listed while live, refreshed, dropped, purged, bounded."""

from __future__ import annotations

import pytest_twisted

from hub.store import websessions

NOW = 1_000_000.0


@pytest_twisted.ensureDeferred
async def test_sessions_are_kept_refreshed_dropped_and_purged(store):
    await store.web_session_keep("h1", "guest-aaaaaa", None, False, NOW + 60)
    await store.web_session_keep("h2", "ann", "ann", True, NOW + 60)
    await store.web_session_keep("h3", "ann", "ann", False, NOW + 10)
    live = await store.web_sessions_live(NOW)
    assert sorted(live) == [
        ("h1", "guest-aaaaaa", None, False, NOW + 60),
        ("h2", "ann", "ann", True, NOW + 60),
        ("h3", "ann", "ann", False, NOW + 10),
    ]
    assert sorted(r[0] for r in await store.web_sessions_live(NOW + 10)) == ["h1", "h2"]
    await store.web_session_keep("h1", "guest-aaaaaa", None, False, NOW + 500)  # refreshed
    assert await store.web_session_purge(NOW + 60) == 2  # h2 and h3
    assert [r[0] for r in await store.web_sessions_live(NOW)] == ["h1"]
    await store.web_session_drop("h1")
    assert await store.web_sessions_live(NOW) == []


@pytest_twisted.ensureDeferred
async def test_an_accounts_sessions_go_together_and_the_table_is_bounded(store, monkeypatch):
    await store.web_session_keep("a1", "ann", "ann", False, NOW + 60)
    await store.web_session_keep("a2", "ann", "ann", False, NOW + 60)
    await store.web_session_keep("b1", "bob", "bob", False, NOW + 60)
    await store.web_session_drop_account("ann")
    assert [r[0] for r in await store.web_sessions_live(NOW)] == ["b1"]
    monkeypatch.setattr(websessions, "MAX_ROWS", 3)
    for i in range(5):
        await store.web_session_keep(f"g{i}", f"guest-{i}", None, False, NOW + 100 + i)
    # the soonest to expire went first
    assert sorted(r[0] for r in await store.web_sessions_live(NOW)) == ["g2", "g3", "g4"]
