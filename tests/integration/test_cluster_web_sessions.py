"""Web sessions are the cluster's, not one hub's (issue 31): two ``twistd`` hubs on one
PostgreSQL.  A browser session made on A after B started is recognised at B's door
(same name, same CSRF token, no new cookie), and once A is drained the page plays on
at B from its seat; a flood of random cookies costs a bounded number of queries, makes
no row and is answered 503 with ``Retry-After`` (docs/web.md, "Sessions survive a
restart"; docs/cluster.md)."""

from __future__ import annotations

import json
import secrets
import time
import urllib.error
from pathlib import Path

import psycopg2
import pytest

from hub.frontends.web.sessions import token_hash
from tests.hubprocess import HubProcess
from tests.integration.test_cluster import cluster_dsn, health, start_hub, wait_for  # noqa: F401
from tests.integration.test_cluster_handover import hub_of
from tests.integration.test_metrics_and_logs import scrape, total
from tests.integration.test_resume_restart import Player, create, game, my_turn
from tests.integration.test_web_sessions_restart import Guest
from tests.store.test_cli_and_crash import gamehub

#: look-ups of unknown cookies allowed by the hubs here: a burst of 20, then one a
#: hundred seconds (far longer than any test here lasts)
BURST = 20
LIMITS = ["--set", f"web_session_lookup_burst={BURST}", "--set", "web_session_lookup_rate=0.01"]


def rows(dsn: str) -> list[tuple[str, str]]:
    """(cookie hash, name) of every kept web session."""
    db = psycopg2.connect(dsn)
    try:
        with db.cursor() as cur:
            cur.execute("SELECT token_hash, name FROM web_session ORDER BY token_hash")
            return [(str(h), str(n)) for h, n in cur.fetchall()]
    finally:
        db.close()


def lookups(hub: HubProcess) -> float:
    """Store look-ups of cookies the hub made (its ``/metrics``: one per query)."""
    return total(scrape(hub), "gamehub_store_query_seconds_count", operation="web_session_find")


def known_at(hub: HubProcess, who: Player) -> tuple[int, dict[str, object], dict[str, str]]:
    """``GET /api/session`` with ``who``'s cookie at ``hub``, once it is not 503 (the
    hub looks the cookie up meanwhile: documented, and what the page waits out)."""
    found: list[tuple[int, bytes, dict[str, str]]] = []

    def answered() -> bool:
        status, raw, headers = hub.request("GET", "/api/session", headers={"Cookie": who.cookie})
        if status == 503:
            assert headers.get("Retry-After"), headers
            assert "Set-Cookie" not in headers, headers
            return False
        found.append((status, raw, headers))
        return True

    wait_for(answered, "the cookie looked up")
    status, raw, headers = found[0]
    return status, json.loads(raw), headers


def seated(who: Player, game_id: str) -> dict[str, object] | None:
    """The first message of ``who``'s stream of the game, once it has a seat there."""
    try:
        snapshot = who.snapshot(game_id)
    except urllib.error.HTTPError:
        return None  # not taken up yet
    return snapshot if snapshot["seat"] is not None else None


@pytest.mark.slow
def test_a_session_made_on_a_after_b_started_is_known_at_b_with_its_seat(
    tmp_path: Path,
    cluster_dsn: str,  # noqa: F811
):
    a = start_hub(tmp_path, "a", cluster_dsn, extra=LIMITS)
    b = start_hub(tmp_path, "b", cluster_dsn, extra=LIMITS)
    try:
        a_id, b_id = health(a)["cluster"]["hub"], health(b)["cluster"]["hub"]
        for hub in (a, b):
            wait_for(lambda h=hub: health(h)["cluster"]["alive"] == 2, "both hubs alive")
        # B runs; now a guest and an account get their sessions on A, and seats there
        guest = Guest(a)
        alice = Player(a, "alice", "alice-pw-1", create=True)
        games = {}
        for who in (guest, alice):
            g = create(a, {"type": "hello", "seats": ["human", "bot:hello-bot"], "hub": a_id})
            status, answer = who.call("POST", f"/api/games/{g}/seats", {"seat": 0})
            assert status == 200 and answer["seat"] == 0, answer
            games[who.cookie] = g
        wanted = {token_hash(who.cookie.split("=", 1)[1]) for who in (guest, alice)}
        # just these two (alice's guest session before she logged in was dropped)
        wait_for(lambda: {h for h, _ in rows(cluster_dsn)} == wanted, "A kept the sessions")
        kept = rows(cluster_dsn)

        # at B's door: the same players, the same CSRF tokens, no new cookie
        for who, name in ((guest, guest.name), (alice, "alice")):
            status, session, headers = known_at(b, who)
            assert status == 200 and "Set-Cookie" not in headers, (status, session)
            assert session["name"] == name and session["csrf"] == who.csrf, session
            assert session["account"] == (None if who is guest else "alice")
        assert rows(cluster_dsn) == kept  # B made no session of its own
        assert lookups(b) == 2  # one query a cookie, however often the page asked

        # A is drained: its games move to B, and the pages play on there from their seats
        r = gamehub("cluster", "drain", a_id, "--db", cluster_dsn, "--wait", "30")
        assert r.returncode == 0, r.stdout + r.stderr + a.log()[-4000:] + b.log()[-4000:]
        for who in (guest, alice):
            g = games[who.cookie]
            wait_for(lambda g=g: hub_of(b, g) == b_id, f"B runs {g}")
            who.hub = b
            # the page's stream retries while B takes the game up (docs/web.md)
            snapshot = wait_for(lambda who=who, g=g: seated(who, g), "seated at B")
            assert snapshot["seat"] == 0 and snapshot["game"]["state"] == "running", snapshot
            assert my_turn(who, g)
            status, answer = who.call(
                "POST", f"/api/games/{g}/actions", {"action": {"hello": "from b"}}
            )
            assert status == 200 and who.set_cookie is None, answer
            assert game(b, g)["state"] == "over"
        assert rows(cluster_dsn) == kept
        for hub in (a, b):
            assert hub.errors() == [], hub.log()
    finally:
        a.stop()
        b.stop()


@pytest.mark.slow
def test_random_cookies_cost_bounded_queries_make_no_row_and_are_told_to_wait(
    tmp_path: Path,
    cluster_dsn: str,  # noqa: F811
):
    hub = start_hub(tmp_path, "a", cluster_dsn, extra=LIMITS)
    try:
        g = create(hub, {"type": "hello", "seats": ["human", "bot:hello-bot"]})
        before = rows(cluster_dsn)
        started = time.monotonic()
        cookies = [secrets.token_urlsafe(32) for _ in range(160)]
        reasons: set[str] = set()
        # a new guest, a write, a transcript, the hands: each asks who the cookie is
        routes = [
            ("GET", "/api/session"),
            ("POST", f"/api/games/{g}/seats"),
            ("GET", f"/api/games/{g}/transcript"),
            ("GET", "/api/hands"),
        ]
        for i, value in enumerate(cookies):
            headers = {"Cookie": f"gamehub_session={value}", "X-CSRF-Token": "x" * 64}
            method, path = routes[i % len(routes)]
            body = {"seat": 0} if method == "POST" else None
            status, raw, answered = hub.request(method, path, body, headers=headers)
            # a clear answer: wait and ask again; never a new guest over the cookie
            assert status == 503, (status, raw)
            assert int(answered["Retry-After"]) >= 1 and "Set-Cookie" not in answered
            reasons.add(json.loads(raw)["error"])
        elapsed = time.monotonic() - started
        assert any("looking your session up" in r for r in reasons), reasons
        assert any("too many unknown session cookies" in r for r in reasons), reasons
        asked = lookups(hub)
        # bounded: the burst, and what the rate gave back meanwhile
        assert 1 <= asked <= BURST + 0.01 * elapsed + 1, (asked, elapsed)
        # asked again, a cookie looked up is answered at once, with no query: a write
        # has no session (401), no seat is taken
        value = cookies[0]
        headers = {"Cookie": f"gamehub_session={value}", "X-CSRF-Token": "x" * 64}
        status, raw, _ = hub.request("POST", f"/api/games/{g}/seats", {"seat": 0}, headers=headers)
        assert status == 401, raw
        assert lookups(hub) == asked
        assert game(hub, g)["seats"][0]["player"] is None
        assert rows(cluster_dsn) == before  # no row made
        assert hub.errors() == [], hub.log()
    finally:
        hub.stop()
