"""Web sessions in the store (:mod:`hub.store.websessions`), on SQLite and
PostgreSQL: kept by hash, listed while live, refreshed, dropped, purged, bounded; and
:class:`hub.frontends.web.sessions.Sessions` of a restarted hub taking them back."""

from __future__ import annotations

import pytest
import pytest_twisted
from twisted.internet import defer, reactor, task
from twisted.internet.task import Clock
from twisted.web.test.requesthelper import DummyRequest

from hub.frontends.web.sessions import COOKIE, IDLE_LIMIT, Session, Sessions, token_hash
from hub.model import GameError
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


class Request(DummyRequest):
    """A request with cookies (``DummyRequest`` has none)."""

    def __init__(self, cookie: bytes | None = None) -> None:
        super().__init__([b""])
        self.cookies = {} if cookie is None else {COOKIE: cookie}

    def getCookie(self, name: bytes) -> bytes | None:  # noqa: N802 (Twisted's name)
        return self.cookies.get(name)


def _cookie(request: DummyRequest) -> bytes:
    (header,) = request.responseHeaders.getRawHeaders(b"set-cookie")
    return header.split(b";", 1)[0].split(b"=", 1)[1]


def _asking(cookie: bytes) -> DummyRequest:
    return Request(cookie)


async def _found(sessions: Sessions, cookie: bytes) -> Session | None:
    """``find`` as a page does it: a cookie not in memory is answered 503 with
    ``Retry-After`` while the store is asked, then known (or not)."""
    try:
        return sessions.find(_asking(cookie))
    except GameError as e:
        assert e.code == 503
    assert sessions.lookups is not None
    await sessions.lookups.settled()
    return sessions.find(_asking(cookie))


@pytest_twisted.ensureDeferred
async def test_a_new_sessions_of_the_same_store_knows_the_cookies_and_nothing_else(store):
    clock = Clock()
    clock.advance(NOW)
    first = Sessions(clock, store=store)
    made = Request()
    guest = first.get_or_create(made)
    ann = first.log_in(Request(), None, "ann", admin=True)
    cookie = _cookie(made)
    gone = Request()
    bob = first.log_in(gone, None, "bob")
    first.log_out(gone, bob)
    for _ in range(2000):  # the writes go on in the pool's threads (bounded wait)
        hashes = {r[0] for r in await store.web_sessions_live(NOW)}
        if len(hashes) == 3 and bob.token not in hashes:  # all of them, bob's drop too
            break
        await task.deferLater(reactor, 0.01, lambda: None)
    assert token_hash(cookie.decode()) in hashes and cookie.decode() not in hashes
    assert ann.token in hashes and len(hashes) == 3  # guest, ann, bob's new guest

    again = Sessions(clock, store=store)  # the hub restarted
    restoring = defer.ensureDeferred(again.restore())
    if not restoring.called:  # meanwhile an unknown cookie is told to come back
        with pytest.raises(GameError) as e:
            again.find(_asking(cookie))
        assert e.value.code == 503
    assert await restoring == 3
    back = again.find(_asking(cookie))
    assert back is not None and back.name == guest.name and back.csrf == guest.csrf
    assert back.account is None and back.restored
    assert await _found(again, b"A" * 43) is None  # forged
    forged = _asking(b"A" * 43)
    fresh = again.get_or_create(forged)
    assert fresh.name != guest.name and _cookie(forged) != b"A" * 43
    # expired: past the idle limit the cookie opens nothing, here and after a restart
    clock.advance(IDLE_LIMIT + 1)
    assert again.find(_asking(cookie)) is None
    later = Sessions(clock, store=store)
    assert await later.restore() == 0
    assert await _found(later, cookie) is None
