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
        drop(running.data, "nim")
        wait_loaded(running, "noughts", "nim")
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


def test_nim_is_played_to_the_end_against_the_generic_bot_on_the_generic_page(page, hub):
    create_in_lobby(page, hub, "nim", ["human", "bot:kit-random"], {"piles": 2})
    page.wait_for_url("**/game/*")
    take = page.locator("button.action", has_text="take")
    for _ in range(30):  # each turn of ours: take a whole pile
        page.locator("button.action:has-text('take'), #result-summary").first.wait_for()
        if page.locator("#result-summary").count():
            break
        labels = take.all_inner_texts()
        pile = labels[-1].rsplit(" ", 1)[1]
        mine = [t for t in labels if t.endswith(f"pile {pile}")]
        whole = max(mine, key=lambda t: int(t.split()[1]))
        page.get_by_role("button", name=whole, exact=True).click()
        page.get_by_role("button", name=whole, exact=True).wait_for(state="detached")
    page.locator("#result-summary").wait_for()
    assert "wins" in page.inner_text("#result-summary")
    assert "pile 1:" in page.inner_text("pre.view-text")
