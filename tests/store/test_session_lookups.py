"""Cookies a hub does not know, looked up in the store (:mod:`hub.frontends.web.lookups`,
issue 31 in a cluster): one query per cookie, 503 with ``Retry-After`` meanwhile (no
new guest over the cookie), and every bound held: the rate and burst of look-ups, the
look-ups at once, the negative cache (size and time), the sessions kept in memory.

The store here answers when the test says (its Deferreds are fired by hand) and the
clock is a ``task.Clock``: nothing is timed.
"""

from __future__ import annotations

import pytest
from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.web.test.requesthelper import DummyRequest

from hub.frontends.web.lookups import LookupLimits
from hub.frontends.web.sessions import COOKIE, IDLE_LIMIT, Sessions, csrf_of, token_hash
from hub.model import GameError
from hub.store.errors import StoreUnavailable
from hub.store.websessions import WebSessionRow

NOW = 1_000_000.0


class Store:
    """The web session methods of a store; ``web_session_find`` answers when told."""

    def __init__(self) -> None:
        self.rows: dict[str, WebSessionRow] = {}
        self.asked: list[tuple[str, defer.Deferred[WebSessionRow | None]]] = []

    def answer(self, failure: Exception | None = None) -> None:
        """Answer every look-up asked so far (from the rows, or with ``failure``)."""
        asked, self.asked = self.asked, []
        for key, d in asked:
            if failure is not None:
                d.errback(failure)
            else:
                d.callback(self.rows.get(key))

    def web_session_find(self, token_hash: str, now: float) -> defer.Deferred[WebSessionRow | None]:
        d: defer.Deferred[WebSessionRow | None] = defer.Deferred()
        self.asked.append((token_hash, d))
        return d

    def web_session_keep(
        self, token_hash: str, name: str, account: str | None, admin: bool, expires: float
    ) -> defer.Deferred[None]:
        self.rows[token_hash] = (token_hash, name, account, admin, expires)
        return defer.succeed(None)

    def web_sessions_live(self, now: float) -> defer.Deferred[list[WebSessionRow]]:
        return defer.succeed([r for r in self.rows.values() if r[4] > now])

    def web_session_drop(self, token_hash: str) -> defer.Deferred[None]:
        self.rows.pop(token_hash, None)
        return defer.succeed(None)

    def web_session_drop_account(self, account: str) -> defer.Deferred[None]:
        for key in [k for k, r in self.rows.items() if r[2] == account]:
            del self.rows[key]
        return defer.succeed(None)

    def web_session_purge(self, now: float) -> defer.Deferred[int]:
        return defer.succeed(0)


class Request(DummyRequest):
    """A request with a session cookie."""

    def __init__(self, cookie: str | None = None) -> None:
        super().__init__([b""])
        self.cookie = cookie

    def getCookie(self, name: bytes) -> bytes | None:  # noqa: N802 (Twisted's name)
        return self.cookie.encode() if name == COOKIE and self.cookie else None


def kept(store: Store, cookie: str, name: str, account: str | None = None) -> None:
    """A session another hub made (its row in the store)."""
    store.rows[token_hash(cookie)] = (token_hash(cookie), name, account, False, NOW + 3600)


def sessions(store: Store, limits: LookupLimits | None = None, most: int = 100) -> Sessions:
    clock = Clock()
    clock.advance(NOW)
    return Sessions(clock, store=store, limits=limits, most=most)


def refused(s: Sessions, cookie: str) -> tuple[str, bytes]:
    """``find`` answers 503: its reason and ``Retry-After``; no cookie is set."""
    request = Request(cookie)
    with pytest.raises(GameError) as e:
        s.find(request)
    assert e.value.code == 503
    assert request.responseHeaders.getRawHeaders(b"set-cookie") is None
    (retry,) = request.responseHeaders.getRawHeaders(b"retry-after")
    return e.value.reason, retry


def test_a_cookie_of_another_hub_is_looked_up_once_and_then_known():
    store = Store()
    kept(store, "cookie-of-a", "guest-a1b2c3")
    s = sessions(store)
    reason, retry = refused(s, "cookie-of-a")
    assert "looking your session up" in reason and retry == b"1"
    # a page asking again meanwhile (or a new guest asked for) starts no second query
    refused(s, "cookie-of-a")
    with pytest.raises(GameError):
        s.get_or_create(Request("cookie-of-a"))
    assert len(store.asked) == 1 and len(s) == 0
    store.answer()
    found = s.find(Request("cookie-of-a"))
    assert found is not None and found.name == "guest-a1b2c3" and found.restored
    assert found.csrf == csrf_of("cookie-of-a")  # the page's CSRF token holds
    assert s.get_or_create(Request("cookie-of-a")) is found
    assert store.asked == [] and s.lookups is not None and s.lookups.asked == 1


def test_an_unknown_cookie_is_remembered_for_a_while_in_a_bounded_cache():
    store = Store()
    limits = LookupLimits(unknown_kept=3, unknown_seconds=60)
    s = sessions(store, limits)
    assert s.lookups is not None
    for i in range(5):
        refused(s, f"forged-{i}")
    store.answer()
    assert len(s.lookups.unknown) == 3  # the newest three
    for i in (2, 3, 4):  # known unknown: no query; a fresh guest with a cookie of its own
        assert s.find(Request(f"forged-{i}")) is None
        fresh = Request(f"forged-{i}")
        guest = s.get_or_create(fresh)
        assert guest.name.startswith("guest-") and fresh.responseHeaders.getRawHeaders(
            b"set-cookie"
        )
    assert store.asked == []
    refused(s, "forged-0")  # forgotten: asked again
    assert len(store.asked) == 1
    s._clock.advance(60)  # and after their time, the others too
    refused(s, "forged-4")
    assert len(store.asked) == 2 and s.lookups.asked == 7


def test_look_ups_are_bounded_in_rate_and_at_once():
    store = Store()
    s = sessions(store, LookupLimits(rate=1, burst=5, pending=100))
    for i in range(5):
        refused(s, f"random-{i}")
    reason, retry = refused(s, "random-5")  # over the burst: no query
    assert "too many unknown session cookies" in reason and retry == b"1"
    assert len(store.asked) == 5
    store.answer()
    refused(s, "random-6")
    assert len(store.asked) == 0
    s._clock.advance(1)  # one token back: one more query
    refused(s, "random-6")
    refused(s, "random-7")
    assert len(store.asked) == 1
    s._clock.advance(3)
    _, retry = refused(s, "random-8")
    assert retry == b"1"

    at_once = sessions(store := Store(), LookupLimits(rate=100, burst=100, pending=2))
    for i in range(2):
        refused(at_once, f"random-{i}")
    reason, _ = refused(at_once, "random-2")
    assert "too many" in reason and len(store.asked) == 2
    store.answer()
    refused(at_once, "random-2")  # room again
    assert len(store.asked) == 1


def test_a_store_outage_is_503_and_not_remembered():
    store = Store()
    kept(store, "cookie-of-a", "ann", account="ann")
    s = sessions(store)
    refused(s, "cookie-of-a")
    store.answer(StoreUnavailable("the database is down"))
    reason, retry = refused(s, "cookie-of-a")  # asked again (bounded by the rate)
    assert "cannot reach its database" in reason and retry == b"1"
    store.answer()
    found = s.find(Request("cookie-of-a"))
    assert found is not None and found.account == "ann" and found.name == "ann"


def test_sessions_in_memory_are_bounded_and_a_forgotten_one_comes_back_from_the_store():
    store = Store()
    s = sessions(store, most=3)
    cookies = [f"cookie-{i}" for i in range(6)]
    for i, cookie in enumerate(cookies):
        kept(store, cookie, f"guest-00000{i}")
        refused(s, cookie)
        store.answer()
        s._clock.advance(1)
        assert s.find(Request(cookie)) is not None
        assert len(s) <= 3
    for _ in range(3):
        s.get_or_create(Request())  # new guests too
        assert len(s) <= 3
    refused(s, cookies[0])  # forgotten here, still kept in the store
    store.answer()
    back = s.find(Request(cookies[0]))
    assert back is not None and back.name == "guest-000000"


def test_a_cookie_dropped_here_is_not_found_again_by_a_look_up_racing_its_drop():
    store = Store()
    s = sessions(store)
    made = Request()
    s.get_or_create(made)
    (header,) = made.responseHeaders.getRawHeaders(b"set-cookie")
    cookie = header.split(b";", 1)[0].split(b"=", 1)[1].decode()
    session = s.find(Request(cookie))
    kept_row = store.rows[token_hash(cookie)]
    s.log_out(Request(), session)
    store.rows[token_hash(cookie)] = kept_row  # as if the drop had not reached the store yet
    assert s.find(Request(cookie)) is None and store.asked == []
    # an account dropped (deleted, kicked): its cookies here are unknown at once too
    ann = Request()
    s.log_in(ann, None, "ann")
    (header,) = ann.responseHeaders.getRawHeaders(b"set-cookie")
    ann_cookie = header.split(b";", 1)[0].split(b"=", 1)[1].decode()
    assert s.drop_account("ann") == 1
    assert s.find(Request(ann_cookie)) is None and store.asked == []


def test_an_expired_row_and_the_settings_checked():
    store = Store()
    s = sessions(store)
    store.rows[token_hash("old")] = (token_hash("old"), "guest-old", None, False, NOW + 10)
    refused(s, "old")
    store.answer()
    old = s.find(Request("old"))
    assert old is not None
    s._clock.advance(IDLE_LIMIT + 1)  # idle past the limit: forgotten, not looked up again
    assert s.find(Request("old")) is None and store.asked == []
    assert LookupLimits.from_options({}) == LookupLimits()
    assert LookupLimits.from_options({"web_session_lookup_rate": "2.5"}).rate == 2.5
    for bad in (
        {"web_session_lookup_rate": 0},
        {"web_session_lookups_pending": -1},
        {"web_session_unknown_kept": 0},
        {"web_session_unknown_seconds": -1},
    ):
        with pytest.raises(ValueError):
            LookupLimits.from_options(bad)
    with pytest.raises(ValueError):
        Sessions(Clock(), most=0)


class AtOnce(Store):
    """A store that answers at once (in memory), or fails before it answers."""

    broken = False

    def web_session_find(self, token_hash: str, now: float) -> defer.Deferred[WebSessionRow | None]:
        if self.broken:
            raise StoreUnavailable("the pool is closed")
        return defer.succeed(self.rows.get(token_hash))


def test_a_store_that_answers_at_once_is_no_503_and_one_that_raises_is():
    store = AtOnce()
    kept(store, "cookie-of-a", "guest-a1b2c3")
    s = sessions(store)
    found = s.find(Request("cookie-of-a"))
    assert found is not None and found.name == "guest-a1b2c3"
    assert s.find(Request("forged")) is None
    store.broken = True
    reason, _ = refused(s, "another")
    assert "cannot reach its database" in reason


def test_a_guest_of_another_hub_with_a_name_taken_here_finds_no_seat_by_its_name():
    store = Store()
    s = sessions(store)
    made = Request()
    mine = s.get_or_create(made)  # a guest of this hub
    (header,) = made.responseHeaders.getRawHeaders(b"set-cookie")
    my_cookie = header.split(b";", 1)[0].split(b"=", 1)[1].decode()
    kept(store, "cookie-of-a", mine.name)  # another hub drew the same guest name
    kept(store, "cookie-of-ann", "ann", account="ann")
    kept(store, "cookie-of-a2", "guest-a2a2a2")
    for cookie in ("cookie-of-a", "cookie-of-ann", "cookie-of-a2"):
        refused(s, cookie)
    store.answer()
    twin = s.find(Request("cookie-of-a"))
    assert twin is not None and twin.name == mine.name and twin is not mine
    assert not twin.restored  # its seats: only the ones it takes now (WebFrontend.seat_of)
    other = s.find(Request("cookie-of-a2"))
    assert other is not None and other.restored  # a name of its own: found by name
    ann = s.find(Request("cookie-of-ann"))
    assert ann is not None and ann.restored and ann.account == "ann"

    # and so at a restart: of the kept guests of one name, one finds seats by name
    again = sessions(store)
    restoring = defer.ensureDeferred(again.restore())
    assert restoring.called
    same = [again.find(Request(c)) for c in (my_cookie, "cookie-of-a")]
    assert sorted(bool(x and x.restored) for x in same) == [False, True]
