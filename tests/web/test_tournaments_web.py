"""Tournaments in a real headless Chromium against a real hub: a person registers on
the tournament's page, plays the first game in the game page, and the tournament's
page (open in another tab, live) shows the standings change."""

from __future__ import annotations

import json

import pytest

from .conftest import screenshot
from .test_browser import create_account, notices

pytestmark = pytest.mark.browser


def test_register_play_the_first_game_see_the_standings(page, hub):
    status, raw, _ = hub.request("POST", "/api/tournaments", {
        "type": "hello", "format": "round-robin", "max_entrants": 2, "name": "Hello Cup",
        "bots": ["hello-bot"],
    }, admin=True)  # fmt: skip
    assert status == 201, raw
    tid = json.loads(raw)["id"]
    create_account(page, hub, "Tess", "tess-pw-1")
    page.goto(hub.url("/tournaments"))
    page.locator(f"#tournaments tr[data-id='{tid}'] a").click()
    page.wait_for_url(f"**/tournaments/{tid}")
    page.wait_for_selector("#live:text('live')")
    assert page.inner_text("#t-state") == "registering"
    screenshot(page, "tournament-registering")
    # a second tab follows the tournament live
    watcher = page.context.new_page()
    watcher.goto(hub.url(f"/tournaments/{tid}"))
    watcher.wait_for_selector("#live:text('live')")
    page.click("#register-me")
    # the tournament is full: it starts, and the page offers the first game
    page.wait_for_selector("#my-game")
    assert page.inner_text("#t-state") == "running"
    watcher.wait_for_selector("#t-state:text('running')")
    page.click("#my-game")
    page.wait_for_url("**/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    page.locator("button.take-seat").click()
    form = page.locator("form.action-form")
    form.wait_for()
    form.locator("input[name=hello]").fill("hello, cup")
    form.locator("button").click()
    page.locator("#result-summary").wait_for()
    assert page.locator(".notice.error").count() == 0, notices(page)
    game = hub.get_json(f"/api/games/{game_id}")
    assert game["state"] == "over" and "Tess" in [s["player"] for s in game["seats"]]
    # the other tab saw the standings change without a reload: a draw, ½ each
    watcher.wait_for_selector("#t-state:text('finished')")
    rows = watcher.locator("#standings tbody tr")
    assert rows.count() == 2
    table = [r.split("\t") for r in rows.all_inner_texts()]
    assert sorted((cells[1], cells[2]) for cells in table) == [
        ("Tess", "0.5"),
        ("hello-bot", "0.5"),
    ]
    assert "live game" not in watcher.inner_text("#rounds") and "game" in watcher.inner_text(
        "#rounds"
    )
    screenshot(watcher, "tournament-finished")
    watcher.close()
