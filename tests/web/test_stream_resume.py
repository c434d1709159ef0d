"""A game page whose live stream drops mid-game (issue 31: players come back by
themselves), in a real Chromium against a real hub.

The page reaches the hub through a TCP proxy the test cuts (every connection reset,
new ones refused) and restores: the page shows a pause banner (a status, never an
error), reconnects by itself, catches up from the fresh snapshot and plays on from the
seat it kept.  No timing assertions: conditions are waited for, bounded.
"""

from __future__ import annotations

import pytest

from tests.tcpproxy import TcpProxy

from .conftest import screenshot
from .pagecheck import check_page
from .test_browser import create_in_lobby, notices

pytestmark = pytest.mark.browser


class Via:
    """The hub's pages at another address (the proxy's)."""

    def __init__(self, port: int) -> None:
        self.port = port

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


def test_a_dropped_stream_pauses_the_page_and_the_player_plays_on(page, hub):
    with TcpProxy(("127.0.0.1", hub.ports["web"])) as proxy:
        create_in_lobby(page, Via(proxy.port), "hello", ["human", "bot:hello-bot"])
        page.wait_for_url("**/game/*")
        game_id = page.url.rsplit("/", 1)[1]
        page.wait_for_selector("#live.status-live")
        page.wait_for_selector("#turn.mine .turn-who:text('Your turn')")
        # the bot has said hello; the stream (and every other connection) is cut
        page.wait_for_selector(".hello-line")
        proxy.cut()
        page.wait_for_selector("#pause-banner[role=status]")
        page.wait_for_selector("#live.status-reconnecting")
        assert page.locator(".notice.error").count() == 0, notices(page)
        check_page(page, "game-paused-stream-lost")
        proxy.restore()
        page.wait_for_selector("#live.status-live", timeout=20_000)
        page.wait_for_selector("#pause-banner", state="detached")
        # the seat was kept: still this player's turn, and the move is taken
        page.wait_for_selector("#turn.mine .turn-who:text('Your turn')")
        form = page.locator("form.action-form")
        form.locator("input[name=hello]").fill("back after the cut")
        form.locator("button").click()
        page.locator("#result-summary").wait_for()
        assert page.inner_text("#game-state") == "over"
        assert page.locator(".notice.error").count() == 0, notices(page)
        game = hub.get_json(f"/api/games/{game_id}")
        assert game["state"] == "over" and game["seats"][0]["kind"] == "human"
        screenshot(page, "game-over-after-stream-cut")
