"""Browser sessions survive a hub restart (issue 31): a real ``twistd`` hub on SQLite;
a guest and an account sit in games through their cookies; after SIGTERM, then
kill -9, the same cookies (and CSRF tokens) name the same players, whose pages get
their seats of the resumed games back and play on.  A forged cookie and an expired
one give a fresh guest, who gets no seat."""

from __future__ import annotations

import hashlib
import json
import signal
import sqlite3
from typing import Any

from tests.hubprocess import LOOPBACK, HubProcess
from tests.integration.test_cluster import wait_for
from tests.integration.test_resume_restart import Player, create, game, my_turn


class Guest(Player):
    """A guest's web session (no account)."""

    def __init__(self, hub: HubProcess, cookie: str | None = None) -> None:
        self.hub = hub
        headers = {"Cookie": cookie} if cookie else {}
        asked: list[tuple[int, bytes, dict[str, str]]] = []

        def answered_() -> bool:
            # a cookie the hub does not hold is looked up in the store first: 503 with
            # Retry-After meanwhile, no cookie set (docs/web.md)
            asked.append(hub.request("GET", "/api/session", headers=headers))
            status, _, answered = asked[-1]
            if status == 503:
                assert answered.get("Retry-After") and "Set-Cookie" not in answered
                return False
            return True

        wait_for(answered_, "the session answered")
        status, raw, answered = asked[-1]
        assert status == 200, raw
        sent = answered.get("Set-Cookie")
        self.cookie = sent.split(";", 1)[0] if sent else str(cookie)
        self.session: dict[str, Any] = json.loads(raw)
        self.csrf = self.session["csrf"]
        self.name = self.session["name"]


def sessions_in_db(hub: HubProcess) -> list[tuple[str, str, float]]:
    db = sqlite3.connect(hub.data / "hub.sqlite", timeout=10)
    try:
        rows = db.execute("SELECT token_hash, name, expires FROM web_session").fetchall()
        return [(str(r[0]), str(r[1]), float(r[2])) for r in rows]
    finally:
        db.close()


def expire(hub: HubProcess, name: str) -> None:
    db = sqlite3.connect(hub.data / "hub.sqlite", timeout=10)
    try:
        db.execute("UPDATE web_session SET expires = 1 WHERE name = ?", (name,))
        db.commit()
    finally:
        db.close()


def test_web_players_keep_their_seats_across_restarts_and_forged_cookies_do_not(tmp_path):
    hub = HubProcess(tmp_path, web=LOOPBACK)
    hub.start()
    try:
        guest = Guest(hub)
        alice = Player(hub, "alice", "alice-pw-1", create=True)
        late = Guest(hub)  # whose session expires while the hub is down
        games = {}
        for who in (guest, alice, late):
            g = create(hub, {"type": "hello", "seats": ["human", "bot:hello-bot"]})
            status, answer = who.call("POST", f"/api/games/{g}/seats", {"seat": 0})
            assert status == 200 and answer["seat"] == 0, answer
            games[who.cookie] = g
        assert who.snapshot(g)["seat"] == 0
        # the store keeps the cookies' hashes, never the cookies
        raw = [p.cookie.split("=", 1)[1] for p in (guest, alice, late)]
        wanted = {hashlib.sha256(value.encode()).hexdigest() for value in raw}
        kept = wait_for(
            lambda: wanted <= {h for h, _, _ in sessions_in_db(hub)} and sessions_in_db(hub),
            "the sessions kept",
        )
        for value in raw:
            assert all(value not in (h, n) for h, n, _ in kept)
        assert {guest.name, "alice", late.name} <= {n for _, n, _ in kept}

        for stop in (signal.SIGTERM, signal.SIGKILL):
            hub.stop(stop)
            if stop == signal.SIGTERM:
                expire(hub, late.name)
            hub.start()
            assert not hub.errors(), hub.log()
            # a cookie is answered 503 while the hub loads the kept sessions (documented)
            wait_for(
                lambda: (
                    hub.request("GET", "/api/session", headers={"Cookie": guest.cookie})[0] != 503
                ),
                "the kept sessions loaded",
            )
            for who in (guest, alice):
                g = games[who.cookie]
                assert game(hub, g)["state"] == "running"
                # the page's stream comes back with its seat, its CSRF token still good
                snapshot = who.snapshot(g)
                assert snapshot["seat"] == 0, snapshot
                status, answer = who.call("GET", "/api/session")
                assert status == 200 and who.set_cookie is None, answer
                assert answer["name"] == (who.name if isinstance(who, Guest) else "alice")
                assert answer["csrf"] == who.csrf
                assert my_turn(who, g)
            if stop == signal.SIGTERM:
                # the expired cookie: a fresh guest, no seat
                fresh = Guest(hub, late.cookie)
                assert fresh.cookie != late.cookie and fresh.name != late.name
                assert fresh.snapshot(games[late.cookie])["seat"] is None
                status, answer = fresh.call(
                    "POST", f"/api/games/{games[late.cookie]}/seats", {"seat": 0}
                )
                assert status == 409, answer
            # a forged cookie: a fresh guest, no seat, and its writes are refused
            forged = Guest(hub, "gamehub_session=" + "A" * 43)
            assert forged.cookie != "gamehub_session=" + "A" * 43
            assert forged.name not in (guest.name, late.name)
            assert forged.snapshot(games[guest.cookie])["seat"] is None
            forged.cookie = "gamehub_session=" + "A" * 43
            status, answer = forged.call(
                "POST", f"/api/games/{games[guest.cookie]}/seats", {"seat": 0}
            )
            assert status in (401, 403), answer

        # and they play on: a move each
        for who in (guest, alice):
            g = games[who.cookie]
            assert my_turn(who, g)
            status, answer = who.call(
                "POST", f"/api/games/{g}/actions", {"action": {"hello": "back"}}
            )
            assert status == 200, answer
            assert game(hub, g)["state"] == "over"
        assert not hub.errors(), hub.log()
    finally:
        hub.stop()
