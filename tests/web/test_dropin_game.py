"""A game that exists only as a dropped-in plugin (Tic-Tac-Toe, issue 14) is played in
a real Chromium: the lobby offers it, its own page script draws the board, and a
person clicks the cells while the other player moves over the JSON API."""

from __future__ import annotations

import pytest

from tests.plugins.test_new_games import drop
from tests.support import wait_until

from .conftest import start_hub
from .pagecheck import check_page
from .test_browser import create_in_lobby
from .test_web_api import Browser

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A hub with the web front end; Tic-Tac-Toe dropped in after it started."""
    running = start_hub(tmp_path_factory.mktemp("hub"))
    try:
        drop(running.data, "tictactoe")

        def loaded() -> bool:
            index = {p["name"]: p for p in running.get_json("/plugins/index.json")["plugins"]}
            return index.get("tictactoe", {}).get("status") == "loaded"

        wait_until(loaded, "tictactoe loaded", 10.0)
        yield running
    finally:
        running.stop()
    assert running.errors() == [], running.log()


def test_tictactoe_dropped_in_is_played_in_the_browser(page, hub):
    create_in_lobby(page, hub, "tictactoe", ["human", "human"])
    page.wait_for_url("**/game/*")
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    o = Browser(hub)
    o.start()
    status, seated = o.call("POST", f"/api/games/{game_id}/seats", {})
    assert status == 200 and seated["seat"] == 1, seated
    for mine, theirs in ((0, 4), (1, 8)):
        page.click(f"button.ttt-cell[data-cell='{mine}']")
        wait_until(
            lambda cell=mine: hub.get_json(f"/api/games/{game_id}")["view"]["cells"][cell] == "X",
            f"X on cell {mine}",
        )
        status, body = o.call("POST", f"/api/games/{game_id}/actions", {"action": {"mark": theirs}})
        assert status == 200, body
    page.wait_for_selector("button.ttt-cell[data-cell='2']")
    check_page(page, "tictactoe-dropped-in")  # the plugin's board on a phone and a desktop
    page.click("button.ttt-cell[data-cell='2']")
    page.locator("#result-summary").wait_for()
    assert "wins" in page.inner_text("#result-summary")
    assert page.locator("button.ttt-cell").count() == 0  # nothing left to click
