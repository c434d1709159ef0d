"""A game page at another hub's door (issue 31: web sessions are the cluster's), in a
real Chromium against two ``twistd`` hubs on one PostgreSQL: a guest's page made on A
after B started takes a seat there; A is drained; the same browser (the cookie is the
host's: both hubs are on 127.0.0.1) opens the game at B, whose hub looks the cookie up
(503 with ``Retry-After`` meanwhile, waited out by the page), and the guest plays on
from its seat under its name.  No timing assertions: conditions are waited for, bounded.
"""

from __future__ import annotations

import pytest

from tests.integration.test_cluster import cluster_dsn, health, start_hub, wait_for  # noqa: F401
from tests.integration.test_cluster_handover import hub_of
from tests.integration.test_resume_restart import create
from tests.store.test_cli_and_crash import gamehub

from .test_browser import notices

pytestmark = pytest.mark.browser


def test_a_guest_page_made_on_a_plays_on_at_b_after_a_is_drained(page, tmp_path, cluster_dsn):  # noqa: F811
    a = start_hub(tmp_path, "a", cluster_dsn)
    b = start_hub(tmp_path, "b", cluster_dsn)
    try:
        a_id, b_id = health(a)["cluster"]["hub"], health(b)["cluster"]["hub"]
        for hub in (a, b):
            wait_for(lambda h=hub: health(h)["cluster"]["alive"] == 2, "both hubs alive")
        game_id = create(a, {"type": "hello", "seats": ["human", "bot:hello-bot"], "hub": a_id})
        page.goto(a.url(f"/game/{game_id}"))
        page.click("button.take-seat[data-seat='0']")
        page.wait_for_selector("#turn.mine .turn-who:text('Your turn')")
        me = page.evaluate("fetch('/api/session').then(r => r.json()).then(s => s.name)")
        assert me.startswith("guest-")

        r = gamehub("cluster", "drain", a_id, "--db", cluster_dsn, "--wait", "30")
        assert r.returncode == 0, r.stdout + r.stderr
        wait_for(lambda: hub_of(b, game_id) == b_id, "B runs the game")
        page.goto(b.url(f"/game/{game_id}"))
        page.wait_for_selector("#live.status-live", timeout=30_000)
        page.wait_for_selector("#turn.mine .turn-who:text('Your turn')")
        assert page.locator(".notice.error").count() == 0, notices(page)
        again = page.evaluate("fetch('/api/session').then(r => r.json()).then(s => s.name)")
        assert again == me
        form = page.locator("form.action-form")
        form.locator("input[name=hello]").fill("from hub b")
        form.locator("button").click()
        page.locator("#result-summary").wait_for()
        assert page.inner_text("#game-state") == "over"
        assert page.locator(".notice.error").count() == 0, notices(page)
        played = b.get_json(f"/api/games/{game_id}")
        assert isinstance(played, dict) and played["seats"][0]["player"] == me
        for hub in (a, b):
            assert not hub.errors(), hub.log()
    finally:
        a.stop()
        b.stop()
