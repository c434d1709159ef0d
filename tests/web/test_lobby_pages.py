"""The web lobby with many games, in a real headless Chromium against a real hub:
one screen of games, filters and paging asked of the server (``GET /api/games``),
live changes on top.  3,000 games (10,000 with ``GAMEHUB_SOAK=full``)."""

from __future__ import annotations

import http.client
import json
import os

import pytest

from .conftest import screenshot, start_hub

pytestmark = pytest.mark.browser

MANY = 10_000 if os.environ.get("GAMEHUB_SOAK") == "full" else 3_000
PAGE = 50


@pytest.fixture(scope="module")
def crowded(tmp_path_factory):
    """A hub with MANY waiting hello games and five morris games (the newest)."""
    hub = start_hub(
        tmp_path_factory.mktemp("crowded"),
        ["--set", "create_rate=1000000", "--set", "create_burst=1000000"],
    )
    try:
        conn = http.client.HTTPConnection("127.0.0.1", hub.ports["web"], timeout=10)
        made: list[str] = []
        for i in range(MANY + 5):
            body = {"type": "hello", "name": f"g{i}", "seats": ["open", "open"]}
            if i >= MANY:
                body = {"type": "nmmorris", "name": f"m{i}", "seats": ["open", "open"]}
            conn.request(
                "POST", "/api/games", json.dumps(body), {"Content-Type": "application/json"}
            )
            response = conn.getresponse()
            assert response.status == 201, response.read()
            made.append(json.loads(response.read())["id"])
        conn.close()
        hub.made = made  # type: ignore[attr-defined]
        yield hub
    finally:
        hub.stop()
    assert hub.errors() == [], hub.log()


def rows(page) -> list[str]:
    return page.locator("#games tbody tr").evaluate_all("rs => rs.map(r => r.dataset.id)")


def test_the_lobby_shows_one_page_and_filters_on_the_server(page, crowded):
    made = crowded.made
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/games" in r.url else None)
    page.goto(crowded.url("/"))
    page.wait_for_selector(f"tr[data-id='{made[-1]}']")
    shown = rows(page)
    assert len(shown) == PAGE and set(shown) == set(made[-PAGE:])  # the newest page only
    assert page.inner_text("#page-info") == f"1–{PAGE} of {MANY + 5}"
    assert all("limit=50" in url for url in asked)
    # the next page, and back
    page.click("#page-older")
    page.wait_for_selector(f"tr[data-id='{made[-PAGE - 1]}']")
    assert set(rows(page)) == set(made[-2 * PAGE : -PAGE])
    assert page.inner_text("#page-info") == f"{PAGE + 1}–{2 * PAGE} of {MANY + 5}"
    page.click("#page-newer")
    page.wait_for_selector(f"tr[data-id='{made[-1]}']")
    # a type: the server filters
    page.click("#types button[data-type='nmmorris']")
    page.wait_for_function("() => document.querySelectorAll('#games tbody tr').length === 5")
    assert set(rows(page)) == set(made[-5:])
    assert any("type=nmmorris" in url for url in asked)
    assert page.is_disabled("#page-older")
    # a state nothing is in
    page.select_option("#state-filter", "running")
    page.wait_for_selector("#empty:not([hidden])")
    assert rows(page) == [] and any("state=running" in url for url in asked)
    screenshot(page, "lobby-many-filtered", both=False)
    # back to every waiting game; a game created now joins the first page live
    page.select_option("#state-filter", "waiting")
    page.click("#types li:first-child button")
    page.wait_for_selector(f"tr[data-id='{made[-PAGE]}']")
    status, body, _ = crowded.request("POST", "/api/games", {"type": "hello", "name": "late"})
    late = json.loads(body)["id"]
    page.wait_for_selector(f"tr[data-id='{late}']")
    page.wait_for_function(f"() => !document.querySelector(\"tr[data-id='{made[-PAGE]}']\")")
    assert len(rows(page)) == PAGE
    # a cancelled game leaves the page
    crowded.request("DELETE", f"/api/games/{late}", admin=True)
    page.wait_for_function(f"() => !document.querySelector(\"tr[data-id='{late}']\")")
