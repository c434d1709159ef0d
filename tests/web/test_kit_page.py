"""A kit game that brings no page script (the Tic-Tac-Toe fixture of issue 34) is played
in a real Chromium on the generic page: its text view, its legal moves as buttons in
its own words, the move clock; axe-clean as the other pages."""

from __future__ import annotations

import pytest

from tests.kit.support import drop, wait_loaded
from tests.support import wait_until

from .conftest import start_hub
from .pagecheck import check_page
from .test_browser import create_in_lobby
from .test_web_api import Browser

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    running = start_hub(tmp_path_factory.mktemp("hub"))
    try:
        drop(running.data, "noughts")
        wait_loaded(running, "noughts")
        yield running
    finally:
        running.stop()
    assert running.errors() == [], running.log()


def test_a_kit_game_without_a_page_script_is_played_on_the_generic_page(page, hub):
    create_in_lobby(page, hub, "noughts", ["human", "human"])
    page.wait_for_url("**/game/*")
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    o = Browser(hub)
    o.start()
    status, seated = o.call("POST", f"/api/games/{game_id}/seats", {})
    assert status == 200 and seated["seat"] == 1, seated
    for mine, cell, theirs in (("a1", 0, 4), ("b1", 1, 8)):
        page.get_by_role("button", name=mine, exact=True).click()
        wait_until(
            lambda c=cell: hub.get_json(f"/api/games/{game_id}")["view"]["game"]["cells"][c] == "X",
            f"X on {mine}",
        )
        status, body = o.call("POST", f"/api/games/{game_id}/actions", {"action": {"move": theirs}})
        assert status == 200, body
    page.get_by_role("button", name="c1", exact=True).wait_for()
    text = page.inner_text("pre.view-text")
    assert text.splitlines()[1:] == ["1 X X .", "2 . O .", "3 . . O"]
    assert page.locator(".clock[role=timer]").count() >= 1  # the move clock
    check_page(page, "kit-generic-page")
    page.get_by_role("button", name="c1", exact=True).click()
    page.locator("#result-summary").wait_for()
    assert "wins" in page.inner_text("#result-summary")
    assert page.get_by_role("button", name="b3", exact=True).count() == 0
