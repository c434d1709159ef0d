"""The web page of a peer-to-peer table that meets at the hub (docs/p2p.md): watched
live in a real browser as its bot peers play it, with public cards only."""

from __future__ import annotations

import pytest

from tests.p2p.peers import Peer
from tests.support import wait_until

from .conftest import screenshot, start_hub

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    running = start_hub(tmp_path_factory.mktemp("hub"), relay="tcp:0:interface=127.0.0.1")
    try:
        yield running
    finally:
        running.stop()
    assert running.errors() == [], running.log()


def test_watch_a_peer_to_peer_table_live(page, hub, tmp_path):
    where = f"127.0.0.1:{hub.ports['relay']}"
    args = ["--hub", where, "--table", "watched", "--players", "2", "--hands", "40",
            "--buyin", "100000", "--quiet"]  # fmt: skip
    peers = [Peer(tmp_path, name, [*args, "--bot", bot])
             for name, bot in (("ann", "raiser"), ("ben", "caller"))]  # fmt: skip
    try:
        (game,) = wait_until(
            lambda: [g for g in hub.get_json("/api/games") if g["type"] == "holdem-p2p"],
            "the table in the lobby",
            seconds=60,
        )
        page.goto(hub.url(f"/game/{game['id']}"))
        page.wait_for_selector("#poker-table")
        page.wait_for_selector(".poker-seat[data-seat='1']")
        screenshot(page, "game-p2p-watch", both=False)
        for peer in peers:
            assert peer.wait(180) == 0, peer.log()
    finally:
        for peer in peers:
            peer.close()
    page.wait_for_function(
        "() => document.querySelector('#game-state').textContent === 'over'", timeout=60_000
    )
    log = page.inner_text("#log")
    assert "ann" in log and "ben" in log
    assert " wins " in log  # the awards came live, from the cards the peers showed
    over = hub.get_json(f"/api/games/{game['id']}")
    assert over["state"] == "over" and len(over["result"]["scores"]) == 2
    # no page ever shows a card but the public ones: every card drawn on the page was
    # opened for everyone (the board, hands shown down)
    shown = page.locator(".card").evaluate_all("cs => cs.map(c => c.dataset.card)")
    replay = hub.get_json(f"/api/games/{game['id']}/replay")
    public = {
        str(c)
        for e in replay["events"]
        for field in ("cards", "board")
        for c in e["data"].get(field) or []
    }
    assert {c for c in shown if c not in (None, "-1")} <= public
