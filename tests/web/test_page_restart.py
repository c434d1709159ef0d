"""A game page across a restart of its hub (issue 31: players come back by
themselves), in a real Chromium against a real ``twistd`` hub on SQLite: a guest
plays hello; the hub is killed (kill -9) and started again on the same port; the page
shows the pause banner (a status, never an error) meanwhile, then reconnects with the
same cookie, gets its seat of the resumed game back, and plays on.  No timing
assertions: conditions are waited for, bounded.
"""

from __future__ import annotations

import signal
import socket

import pytest

from tests.hubprocess import HubProcess

from .test_browser import create_in_lobby, notices

pytestmark = pytest.mark.browser


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_page_pauses_through_a_hub_restart_and_its_guest_plays_on(page, tmp_path):
    hub = HubProcess(tmp_path, web=f"tcp:{free_port()}:interface=127.0.0.1")
    hub.start()
    try:
        create_in_lobby(page, hub, "hello", ["human", "bot:hello-bot"])
        page.wait_for_url("**/game/*")
        game_id = page.url.rsplit("/", 1)[1]
        page.wait_for_selector("#live.status-live")
        page.wait_for_selector("#turn.mine .turn-who:text('Your turn')")
        page.wait_for_selector(".hello-line")
        me = page.evaluate("fetch('/api/session').then(r => r.json()).then(s => s.name)")
        hub.stop(signal.SIGKILL)
        page.wait_for_selector("#pause-banner[role=status]")
        page.wait_for_selector("#live.status-reconnecting")
        hub.start()
        assert "journal: game " + game_id in hub.log(), hub.log()
        page.wait_for_selector("#live.status-live", timeout=30_000)
        page.wait_for_selector("#pause-banner", state="detached")
        assert page.locator(".notice.error").count() == 0, notices(page)
        # the same guest, its seat kept: still its turn, and the move is taken
        again = page.evaluate("fetch('/api/session').then(r => r.json()).then(s => s.name)")
        assert again == me
        page.wait_for_selector("#turn.mine .turn-who:text('Your turn')")
        form = page.locator("form.action-form")
        form.locator("input[name=hello]").fill("back after the restart")
        form.locator("button").click()
        page.locator("#result-summary").wait_for()
        assert page.inner_text("#game-state") == "over"
        assert page.locator(".notice.error").count() == 0, notices(page)
        game = hub.get_json(f"/api/games/{game_id}")
        assert isinstance(game, dict) and game["seats"][0]["player"] == me
        assert not hub.errors(), hub.log()
    finally:
        hub.stop()
