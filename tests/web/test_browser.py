"""The web pages in a real headless Chromium against a real hub process."""

from __future__ import annotations

import json
import time

import pytest

from tests.support import wait_until

from .conftest import PHONE, screenshot, start_hub
from .pagecheck import check_page
from .test_web_api import Browser

pytestmark = pytest.mark.browser


def bot_for(hub, game_type: str, bot: str) -> str:
    """``bot``, after checking the hub offers it for ``game_type`` (the test fails if not)."""
    types = {t["name"]: t for t in hub.get_json("/api/types")["types"]}
    assert game_type in types, f"game type {game_type} is not loaded"
    assert bot in types[game_type]["bots"], f"bot {bot} is not loaded for {game_type}"
    return bot


def click_morris_until_over(page, seconds: float, wait_ms: int, after_click=None) -> None:
    """Play our Nine Men's Morris seat by clicking the first clickable point (and, when
    that picks a piece up, one of its destinations) until the game is over; no error
    notice may appear. Bounded in clicks and time."""
    clicks, deadline = 0, time.monotonic() + seconds
    while page.inner_text("#game-state") != "over":
        assert clicks < 600 and time.monotonic() < deadline, "the game did not end"
        page.wait_for_function(
            "() => document.querySelector('#game-state').textContent === 'over'"
            " || document.querySelectorAll('g.pt.clickable').length > 0",
            timeout=wait_ms,
        )
        if page.inner_text("#game-state") == "over":
            break
        target = page.locator("g.pt.clickable").first
        point = target.get_attribute("data-point")
        selected_before = page.locator("circle.selected").count()
        target.locator("circle.hit").click()
        clicks += 1
        if selected_before == 0 and page.locator("circle.selected").count() == 1:
            # a piece was picked up: click one of its destinations
            page.locator(f"g.pt.clickable:not([data-point='{point}'])").first.locator(
                "circle.hit"
            ).click()
            clicks += 1
        if after_click is not None:
            after_click(clicks)
        assert page.locator(".notice.error").count() == 0, notices(page)
    page.locator("#result-summary").wait_for()


def create_in_lobby(
    page, hub, game_type: str, seats: list[str], options: dict | None = None, variant=None
):
    """Fill the lobby's create form and submit it."""
    page.goto(hub.url("/"))
    page.wait_for_selector(f"#c-type option[value='{game_type}']", state="attached")
    page.select_option("#c-type", game_type)
    if variant is not None:
        page.select_option("#c-variant", variant)
    rows = page.locator("#c-seats select")
    while rows.count() < len(seats):
        page.click("#c-add-seat")
    while rows.count() > len(seats):
        page.click("#c-remove-seat")
    for i, seat in enumerate(seats):
        rows.nth(i).select_option(seat)
    if options:
        set_options(page, options)
    page.click("#c-submit")


def set_options(page, options: dict) -> None:
    """Fill the create form's option fields (built from the options the game declares)."""
    if not page.locator("#c-options-box").evaluate("d => d.open"):
        page.click("#c-options-box summary")
    for name, value in options.items():
        field = page.locator(f"#c-opt-{name}")
        if isinstance(value, bool):
            field.set_checked(value)
        else:
            field.fill(str(value))


def create_account(page, hub, name: str, password: str) -> None:
    """Create an account on the account page (which logs the browser in)."""
    page.goto(hub.url("/account"))
    page.fill("#create-name", name)
    page.fill("#create-password", password)
    page.click("#create button")
    page.wait_for_selector("#logout")


def create_log_out_log_in(page, hub, name: str, password: str) -> None:
    """On the account page: create an account, log out, log in again with it."""
    create_account(page, hub, name, password)
    page.click("#logout")
    page.wait_for_selector("#login")
    page.fill("#login-name", name)
    page.fill("#login-password", password)
    page.click("#login button")
    page.wait_for_selector("#balance")


def notices(page) -> list[str]:
    """The error messages the page shows."""
    return page.locator(".notice.error .notice-text").all_inner_texts()


PREFERENCE = ("check", "call", "post", "show", "muck", "bet", "raise", "fold")


def play_poker_hand(page, preference=PREFERENCE, on_turn=None, most: int = 60) -> int:
    """Click poker actions (the first of ``preference`` offered) until the page shows the
    hand is over; ``on_turn(names)`` may take a turn itself (it returns True). Returns
    the clicks. Bounded in clicks and time; no error notice may appear."""
    clicks, deadline = 0, time.monotonic() + 120
    while page.locator("#last-hand").count() == 0:
        assert clicks < most and time.monotonic() < deadline, "the hand did not end"
        page.wait_for_function(
            "() => document.querySelector('#last-hand')"
            " || document.querySelector('button.poker-action')",
            timeout=30_000,
        )
        if page.locator("#last-hand").count():
            break
        names = page.locator("button.poker-action").evaluate_all(
            "buttons => buttons.map(b => b.dataset.name)"
        )
        if not names or (on_turn is not None and on_turn(names)):
            continue
        choice = min(names, key=lambda n: preference.index(n) if n in preference else 99)
        page.locator(f"button.poker-action[data-name='{choice}']").first.click()
        clicks += 1
        assert page.locator(".notice.error").count() == 0, notices(page)
    return clicks


def test_hello_from_the_lobby(page, hub):
    create_in_lobby(page, hub, "hello", ["human", "bot:hello-bot"])
    page.wait_for_url("**/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    form = page.locator("form.action-form")
    form.wait_for()
    # both say hello at once: whatever turn the game announced last, ours is open
    page.wait_for_selector("#turn.mine .turn-who:text('Your turn')")
    # a failed action shows a visible error and changes nothing
    form.locator("input[name=hello]").fill("   ")
    form.locator("button").click()
    page.locator(".notice.error").wait_for()
    assert "non-empty" in notices(page)[0]
    assert hub.get_json(f"/api/games/{game_id}")["state"] == "running"
    screenshot(page, "game-hello-error")
    form.locator("input[name=hello]").fill("hi from the browser")
    form.locator("button").click()
    page.locator("#result-summary").wait_for()
    assert "2 of 2 said hello" in page.inner_text("#result-summary")
    page.wait_for_selector(".hello-line >> text=hi from the browser")
    assert page.inner_text("#game-state") == "over"
    game = hub.get_json(f"/api/games/{game_id}")
    assert game["state"] == "over" and game["result"]["winners"] == [0, 1]
    assert game["seats"][0]["kind"] == "human"
    transcript = hub.request("GET", f"/api/games/{game_id}/transcript")[1].decode()
    assert "hi from the browser" in transcript and " in " in transcript
    screenshot(page, "game-hello-over")


def test_lobby_lists_sorts_filters_and_details(page, hub):
    made = []
    for name, seats in (("Alpha", ["open", "open"]), ("Beta", ["bot:hello-bot", "open"])):
        status, body, _ = hub.request(
            "POST", "/api/games", {"type": "hello", "name": name, "seats": seats}
        )
        assert status == 201
        made.append(json.loads(body))
    page.goto(hub.url("/"))
    page.wait_for_selector(f"tr[data-id='{made[1]['id']}']")
    page.click("th[data-key=name]")
    names = page.locator("#games tbody td:nth-child(2)").all_inner_texts()
    assert names == sorted(names, key=str.lower)
    page.click("th[data-key=name]")
    names_desc = page.locator("#games tbody td:nth-child(2)").all_inner_texts()
    assert names_desc == sorted(names, key=str.lower, reverse=True)
    page.check("#hide-empty")
    assert page.locator(f"tr[data-id='{made[0]['id']}']").count() == 0
    assert page.locator(f"tr[data-id='{made[1]['id']}']").count() == 1
    page.uncheck("#hide-empty")
    page.click(f"tr[data-id='{made[0]['id']}']")
    assert page.inner_text("#detail-id") == made[0]["id"]
    # live: a game created elsewhere appears without reloading
    status, body, _ = hub.request("POST", "/api/games", {"type": "hello", "name": "Gamma"})
    gamma = json.loads(body)
    page.wait_for_selector(f"tr[data-id='{gamma['id']}']")
    # give an open seat to a bot from the details
    page.click(f"tr[data-id='{made[0]['id']}']")
    page.click("#details button:has-text('bot: ')")
    page.wait_for_selector("#details li:has-text('(bot)')")
    assert hub.get_json(f"/api/games/{made[0]['id']}")["seats"][0]["kind"] == "bot"
    screenshot(page, "lobby")


def test_every_page_renders_on_phone_and_desktop(page, hub):
    status, body, _ = hub.request(
        "POST", "/api/games", {"type": "hello", "name": "Watch me", "seats": ["open", "open"]}
    )
    game = json.loads(body)
    for path, name, ready in (
        ("/", "lobby-page", "#c-type option"),
        (f"/game/{game['id']}", "game-watch", "#seats li"),
        ("/account", "account", "#account-name"),
        ("/history", "history", "#filter"),
        ("/plugins", "plugins", "#plugins tbody tr"),
        ("/stats", "stats", "#plot"),
    ):
        page.goto(hub.url(path))
        page.wait_for_selector(ready, state="attached")
        check_page(page, name)  # phone and desktop: layout and axe-core
        assert page.locator(".notice.error").count() == 0, notices(page)


def test_ratings_page_charts_a_rated_game(page, hub):
    game = {
        "type": "nmmorris",
        "seats": ["bot:morris", "bot:morris-random"],
        "options": {"move_time_ms": 200, "max_turns": 20},
        "rated": True,
    }
    status, body, _ = hub.request("POST", "/api/games", game)
    assert status == 201 and json.loads(body)["rated"] is True
    for _ in range(600):  # bounded: the game plays, then its rating is stored
        if len(hub.get_json("/api/ratings/nmmorris")["players"]) == 2:
            break
        time.sleep(0.05)
    page.goto(hub.url("/ratings/nmmorris"))
    page.wait_for_selector("#rating-svg polyline", state="attached")
    assert page.locator("#board tbody tr").count() == 2
    assert "morris-random" in page.locator("#board").inner_text()
    assert page.locator("#title").inner_text() == "Ratings · nmmorris"
    check_page(page, "ratings")  # phone and desktop: layout and axe-core
    assert page.locator(".notice.error").count() == 0, notices(page)


def test_the_create_form_makes_a_rated_game(page, hub):
    page.goto(hub.url("/"))
    page.wait_for_selector("#c-type option", state="attached")
    page.select_option("#c-type", "hello")
    assert page.is_checked("#c-rated") is False  # casual unless asked
    page.check("#c-rated")
    page.click("#c-submit")
    page.wait_for_url("**/game/*")
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    assert hub.get_json(f"/api/games/{game_id}")["rated"] is True


def test_plugins_page_lists_digests_and_downloads(page, hub):
    page.goto(hub.url("/plugins"))
    row = page.locator("#plugins tr[data-name=hello]")
    row.wait_for()
    text = row.inner_text()
    assert "loaded" in text and "1.0.0" in text
    index = {p["name"]: p for p in hub.get_json("/api/plugins")["plugins"]}
    link = row.locator("a[download]")
    href = link.get_attribute("href")
    assert href == index["hello"]["url"]
    status, data, headers = hub.request("GET", href)
    assert status == 200 and headers["ETag"].strip('"') == index["hello"]["sha256"]


def test_lobby_recovers_after_a_hub_restart(page, tmp_path):
    first = start_hub(tmp_path / "one")
    port = first.ports["web"]
    watcher = page.context.new_page()
    try:
        page.goto(first.url("/"))
        page.wait_for_selector("#live.status-live")
        status, body, _ = first.request("POST", "/api/games", {"type": "hello", "name": "Before"})
        before = json.loads(body)
        watcher.goto(first.url(f"/game/{before['id']}"))
        watcher.wait_for_selector("#live.status-live")
    finally:
        first.stop()
    page.wait_for_selector("#live.status-reconnecting")
    second = start_hub(tmp_path / "two", web=f"tcp:{port}:interface=127.0.0.1")
    try:
        status, body, _ = second.request("POST", "/api/games", {"type": "hello", "name": "After"})
        game = json.loads(body)
        page.wait_for_selector(f"tr[data-id='{game['id']}']", timeout=20_000)
        page.wait_for_selector("#live.status-live")
        assert page.locator(f"tr[data-id='{before['id']}']").count() == 0
        # the game page learns that its game did not survive the restart, and says so
        # (after a few tries: a missing game may be resuming, and the page waits paused)
        watcher.wait_for_selector("#pause-banner[role=status]")
        assert watcher.locator(".notice.error").count() == 0
        watcher.wait_for_selector("#turn:has-text('No game')", timeout=60_000)
        watcher.wait_for_selector("#pause-banner", state="detached")
        assert watcher.locator(".notice.error").count() == 1
        screenshot(watcher, "game-gone-after-restart", both=False)
    finally:
        second.stop()


def test_morris_against_a_bot_by_clicking(page, hub):
    bot = bot_for(hub, "nmmorris", "morris")
    create_in_lobby(page, hub, "nmmorris", ["human", f"bot:{bot}"], {"move_time_ms": 120000})
    page.wait_for_url("**/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("svg.morris")
    # the MNM Game-ID to paste into a C client: 13 characters [a-z0-9]
    assert page.inner_text("#subtitle .gameid") == game_id and len(game_id) == 13
    assert "(MNM Game-ID)" in page.inner_text("#subtitle")
    # a failed action shows a visible error: an action the engine refuses
    refused = page.evaluate("() => GamePage.act({move: 'Z9'})")
    assert refused is False
    assert "Z9" in notices(page)[0]
    page.click(".notice.error .close")
    screenshot(page, "game-morris-start")
    shot: list[bool] = []

    def screenshot_once_in_play(clicks: int) -> None:
        if clicks >= 12 and not shot:
            shot.append(True)
            screenshot(page, "game-morris-playing")

    click_morris_until_over(page, 240, 30_000, screenshot_once_in_play)
    summary = page.inner_text("#result-summary")
    game = hub.get_json(f"/api/games/{game_id}")
    assert game["state"] == "over"
    assert game["result"]["summary"] in summary
    assert game["result"]["turns"] >= 1
    screenshot(page, "game-morris-over")


def test_account_pages_create_logout_login_password_delete(page, hub):
    page.goto(hub.url("/account"))
    page.fill("#create-name", "pagepal")
    page.fill("#create-password", "pal-secret1")
    page.click("#create button")
    page.wait_for_selector("#balance")
    assert page.inner_text("#account-name") == "pagepal"
    assert page.inner_text("#who") == "pagepal"
    cookies = {c["name"]: c for c in page.context.cookies()}
    session = cookies["gamehub_session"]
    assert session["httpOnly"] and session["sameSite"] == "Strict"
    assert page.evaluate("() => document.cookie") == ""  # HttpOnly: scripts cannot read it
    screenshot(page, "account-logged-in")
    page.click("#logout")
    page.wait_for_selector("#login")
    # a wrong password shows a visible error
    page.fill("#login-name", "pagepal")
    page.fill("#login-password", "wrong-password")
    page.click("#login button")
    page.locator(".notice.error").wait_for()
    assert "wrong account name or password" in notices(page)[0]
    screenshot(page, "account-login-error")
    page.fill("#login-name", "pagepal")
    page.fill("#login-password", "pal-secret1")
    page.click("#login button")
    page.wait_for_selector("#password")
    page.fill("#password-old", "pal-secret1")
    page.fill("#password-new", "pal-secret2")
    page.click("#password button")
    page.locator(".notice.ok", has_text="Password changed").wait_for()
    page.on("dialog", lambda dialog: dialog.accept())
    page.fill("#delete-password", "pal-secret2")
    page.click("#delete button")
    page.wait_for_selector("#login")
    browser = page.context.request
    answer = browser.post(
        hub.url("/api/session"),
        data=json.dumps({"name": "pagepal", "password": "pal-secret2"}),
        headers={"Content-Type": "application/json"},
    )
    assert answer.status in (401, 403)


def test_watch_four_kingdomino_bots_live_until_the_end(page, hub):
    bot_for(hub, "kingdomino", "greedy")
    status, body, _ = hub.request(
        "POST", "/api/games", {"type": "kingdomino", "name": "Four bots", "seats": ["open"] * 4}
    )
    assert status == 201, body
    game_id = json.loads(body)["id"]
    page.goto(hub.url(f"/game/{game_id}"))
    page.wait_for_selector("#live.status-live")
    # give the seats to bots from the page; the game starts with the fourth
    for seat, bot in enumerate(["greedy", "domino-random", "greedy", "domino-random"]):
        row = page.locator(f"#seats li[data-seat='{seat}']")
        row.locator("select").select_option(bot)
        row.locator("button.give-bot").click()
        page.wait_for_selector(f"#seats li[data-seat='{seat}'] .badge.kind-bot")
    page.wait_for_selector("#kingdoms")
    screenshot(page, "game-kingdomino-watch")
    page.wait_for_function(
        "() => document.querySelector('#game-state').textContent === 'over'", timeout=120_000
    )
    page.locator("#result-scores").wait_for()
    game = hub.get_json(f"/api/games/{game_id}")
    assert game["state"] == "over"
    scores = game["result"]["scores"]
    shown = [
        int(page.inner_text(f"#result-scores .score[data-seat='{seat}']")) for seat in range(4)
    ]
    assert shown == scores
    kingdom_scores = [int(page.inner_text(f".kd-score[data-seat='{seat}']")) for seat in range(4)]
    assert kingdom_scores == scores
    assert game["result"]["summary"] in page.inner_text("#result-summary")
    log = page.inner_text("#log")
    assert " places domino " in log and "Game over" in log  # the events arrived live
    screenshot(page, "game-kingdomino-over")


def test_play_kingdomino_with_three_bots_by_clicking(page, hub):
    bot_for(hub, "kingdomino", "greedy")
    create_in_lobby(
        page,
        hub,
        "kingdomino",
        ["human", "bot:greedy", "bot:domino-random", "bot:greedy"],
        {"answer_seconds": 120},
    )
    page.wait_for_url("**/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("#kingdoms")
    refused = page.evaluate("() => GamePage.act({choose: 99})")
    assert refused is False and notices(page)
    page.click(".notice.error .close")
    clicks, shot, deadline = 0, False, time.monotonic() + 240
    while True:
        assert clicks < 200 and time.monotonic() < deadline, "the game did not end"
        page.wait_for_function(
            "() => document.querySelector('#game-state').textContent === 'over'"
            " || document.querySelector('.domino.can, .kingdom .cell.can')",
            timeout=30_000,
        )
        if page.inner_text("#game-state") == "over":
            break
        page.locator(".domino.can, .kingdom .cell.can").first.click()
        clicks += 1
        if clicks >= 6 and not shot:
            shot = True
            screenshot(page, "game-kingdomino-playing")
        assert page.locator(".notice.error").count() == 0, notices(page)
    page.locator("#result-scores").wait_for()
    game = hub.get_json(f"/api/games/{game_id}")
    shown = [
        int(page.inner_text(f"#result-scores .score[data-seat='{seat}']")) for seat in range(4)
    ]
    assert shown == game["result"]["scores"]
    assert clicks >= 12  # a pick and a placement each round at least


def test_history_replay_and_stats_plot(page, hub):
    status, body, _ = hub.request(
        "POST",
        "/api/games",
        {"type": "hello", "name": "Finished", "seats": ["human", "bot:hello-bot"]},
    )
    game_id = json.loads(body)["id"]
    person = Browser(hub)
    person.start()
    assert person.call("POST", f"/api/games/{game_id}/seats", {"seat": 0})[0] == 200
    said = person.call("POST", f"/api/games/{game_id}/actions", {"action": {"hello": "bye"}})
    assert said[0] == 200
    wait_until(lambda: hub.get_json(f"/api/games/{game_id}")["state"] == "over", "game over")
    page.goto(hub.url("/history"))
    row = page.locator(f"#history tr[data-id='{game_id}']")
    row.wait_for()
    assert "2 of 2 said hello" in row.inner_text()
    row.click()
    page.wait_for_selector("#replay-board .hello-seats")
    assert page.locator("#replay-log li").count() == 0
    page.click("#replay-next")
    page.click("#replay-next")
    assert page.locator("#replay-log li").count() == 2
    page.click("#replay-prev")
    assert page.locator("#replay-log li").count() == 1
    assert "sits down" in page.inner_text("#replay-log")
    page.click("#replay-last")
    replayed = page.inner_text("#replay-log")
    assert "Hello from" in replayed and "bye" in replayed
    assert "bye" in page.inner_text("#replay-board")
    screenshot(page, "history-replay")
    page.goto(hub.url("/stats"))
    page.wait_for_selector("#plot-svg polyline[data-player='hello-bot']", state="attached")
    leaders = page.inner_text("#leaders")
    assert "hello-bot" in leaders
    stats = hub.get_json("/api/stats")
    top = stats["leaderboard"][0]
    assert top["name"] in page.inner_text("#leaders tbody tr:first-child")
    screenshot(page, "stats-plot")


def test_log_in_sit_at_holdem_with_a_bot_and_play_a_hand(page, hub):
    bot = bot_for(hub, "texas-holdem", "caller")
    # a guest may not sit at a poker table: the form says so and does not offer it
    page.goto(hub.url("/"))
    page.wait_for_selector("#c-type option[value='texas-holdem']", state="attached")
    page.select_option("#c-type", "texas-holdem")
    assert page.locator("#c-seats select >> nth=0").input_value() != "human"
    assert page.locator("#c-seats option[value=human][disabled]").count() >= 1
    assert "Log in to sit" in page.inner_text("#c-summary")
    # create an account (the store's) and log in through the page
    create_log_out_log_in(page, hub, "holdem-fan", "fan-secret1")
    create_in_lobby(page, hub, "texas-holdem", ["human", f"bot:{bot}"])
    page.wait_for_url("**/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("#poker-table")
    assert hub.get_json(f"/api/games/{game_id}")["seats"][0]["player"] == "holdem-fan"
    refused = page.evaluate("() => GamePage.act({index: 13})")
    assert refused is False and notices(page)
    page.click(".notice.error .close")
    clicks = play_poker_hand(page)
    screenshot(page, "game-holdem-playing")
    text = page.inner_text("#last-hand")
    assert "holdem-fan" in text
    assert clicks >= 1
    # the hand just played, step by step (the replayer beside the table is open on a
    # desktop)
    if not page.locator("#hand-replay").evaluate("d => d.open"):
        page.click("#hand-replay summary")
    assert page.locator("#hand-replay-log div").count() == 1
    page.click("#hand-replay-next")
    page.click("#hand-replay-next")
    assert page.locator("#hand-replay-log div").count() == 3
    page.click("#hand-replay-prev")
    assert page.locator("#hand-replay-log div").count() == 2
    total = int(page.inner_text("#hand-replay summary + .row span").split()[-1])
    for _ in range(total):
        page.click("#hand-replay-next")
    assert page.locator("#hand-replay-log div").count() == total
    over = page.inner_text("#hand-replay-log div:last-child")
    assert over.startswith("Hand 1 is over: ")
    # the seed (the whole deck) is public only when every hole card was shown down
    replay = hub.get_json(f"/api/games/{game_id}/replay")
    seed = next(e["data"]["seed"] for e in replay["events"] if e["kind"] == "handover")
    assert ("; seed " + seed[:12]) in over if seed else "; seed " not in over
    # the table is still in play: only its players and admins read its transcript
    assert hub.request("GET", f"/api/games/{game_id}/transcript")[0] == 401
    transcript = hub.request("GET", f"/api/games/{game_id}/transcript", admin=True)[1].decode()
    assert "web:holdem-fan~holdem-fan in" in transcript
    screenshot(page, "game-holdem-hand-over")


def test_shuffle_verification_in_the_browser(page, hub):
    shuffle = pytest.importorskip("games.poker.shuffle")
    seed = "ab" * 32
    deck = shuffle.deck_from_seed(seed)
    cards = pytest.importorskip("games.poker.cards")
    dealt = " ".join(cards.format(c) for c in deck[:4])
    query = f"seed={seed}&commitment={shuffle.commitment(seed)}"
    page.goto(hub.url(f"/history?{query}#verify"))
    page.fill("#v-cards", dealt)
    page.click("#verify-form button")
    verdict = page.locator("#verify-verdict")
    verdict.wait_for()
    assert "✔ SHA-256(seed) equals the commitment" in verdict.inner_text()
    assert "✔ The cards dealt follow the deck" in verdict.inner_text()
    shown = page.inner_text("#verify-deck").split(": ", 1)[1].split()
    assert shown == [cards.format(c) for c in deck]
    screenshot(page, "history-verify")
    page.fill("#v-commitment", "00" * 32)
    page.click("#verify-form button")
    page.wait_for_selector("#verify-verdict:has-text('✘')")
    page.fill("#v-seed", "not hex")
    page.click("#verify-form button")
    page.locator(".notice.error").wait_for()
    assert "64 lowercase hex" in notices(page)[0]


def test_a_shuffle_with_three_contributions_verifies_in_the_browser(page, hub):
    """The whole chain in the browser: the seed against its commitment, the deck from
    the seed and three players' contributions; changing any of them fails."""
    shuffle = pytest.importorskip("games.poker.shuffle")
    cards = pytest.importorskip("games.poker.cards")
    seed = "5c" * 32
    given = {0: bytes.fromhex("01" * 32), 1: b"bob's own entropy", 3: bytes(range(64))}
    deck = shuffle.deck_from_seed(shuffle.mixed_seed(seed, given))
    assert deck != shuffle.deck_from_seed(seed)
    text = " ".join(f"{s}:{v.hex()}" for s, v in given.items())
    page.goto(hub.url(f"/history?seed={seed}&commitment={shuffle.commitment(seed)}#verify"))
    page.fill("#v-contributions", text)
    page.fill("#v-cards", " ".join(cards.format(c) for c in deck[:9]))

    def verdict() -> str:
        page.evaluate("() => document.getElementById('verify-result').replaceChildren()")
        page.click("#verify-form button")
        node = page.locator("#verify-verdict")
        node.wait_for()
        return node.inner_text()

    good = verdict()
    assert "✔ SHA-256(seed) equals the commitment" in good and "3 contributions" in good
    assert "✔ The cards dealt follow the deck" in good
    assert page.inner_text("#verify-deck").split(": ", 1)[1].split() == [
        cards.format(c) for c in deck
    ]
    screenshot(page, "history-verify-contributions")
    for seat in given:  # any one contribution changed: the deck is another
        changed = " ".join(
            f"{s}:{(v if s != seat else b'changed').hex()}" for s, v in given.items()
        )
        page.fill("#v-contributions", changed)
        assert "✘ The cards dealt do not follow this deck" in verdict()
    page.fill("#v-contributions", " ".join(f"{s}:{v.hex()}" for s, v in given.items() if s))
    assert "✘ The cards dealt do not follow this deck" in verdict()  # one left out
    page.fill("#v-contributions", text)
    page.fill("#v-seed", "5d" * 32)  # another seed: the commitment fails too
    failed = verdict()
    assert "✘ SHA-256(seed) is" in failed and "✘ The cards dealt" in failed


def test_the_game_page_adds_its_own_entropy_to_the_shuffle(page, hub):
    bot = bot_for(hub, "texas-holdem", "caller")
    create_log_out_log_in(page, hub, "entropist", "entropy-pw1")
    create_in_lobby(page, hub, "texas-holdem", ["human", f"bot:{bot}"])
    page.wait_for_url("**/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("#poker-table")
    play_poker_hand(page)  # the next hand's commitment comes with this one's end

    def page_contributed() -> bool:
        events = hub.get_json(f"/api/games/{game_id}/replay")["events"]
        return any(e["kind"] == "entropy" and e["data"]["seat"] == 0 for e in events)

    wait_until(page_contributed, "the page's contribution", 30)
    events = hub.get_json(f"/api/games/{game_id}/replay")["events"]
    mine = [e["data"] for e in events if e["kind"] == "entropy" and e["data"]["seat"] == 0]
    assert len(mine[0]["value"]) == 64 and len({m["value"] for m in mine}) == len(mine)


def test_five_card_draw_discards_by_clicking_cards(page, hub):
    bot = bot_for(hub, "five-card-draw", "caller")
    create_account(page, hub, "drawer", "drawer-pw1")
    create_in_lobby(page, hub, "five-card-draw", ["human", f"bot:{bot}"])
    page.wait_for_url("**/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("#poker-table")
    discarded = []

    def discard_two(names: list[str]) -> bool:
        if "discard" not in names:
            return False
        before = page.locator(".poker-seat[data-seat='0'] .card").evaluate_all(
            "cards => cards.map(c => c.dataset.card)"
        )
        seconds = int(page.locator("#turn .clock").get_attribute("data-seconds"))
        status = page.inner_text("#hand-status")  # a draw game has no flop
        assert "the draw" in status and "flop" not in status, status
        page.locator(".poker-seat[data-seat='0'] .card.pickable").nth(0).click()
        page.locator(".poker-seat[data-seat='0'] .card.pickable").nth(2).click()
        # picking cards redraws the page: its clock goes on, it does not start again
        assert int(page.locator("#turn .clock").get_attribute("data-seconds")) <= seconds
        button = page.locator("button.poker-action[data-name='discard']")
        assert button.inner_text() == "change 2 card(s)"
        screenshot(page, "game-draw-discard")
        button.click()
        discarded.append(True)
        page.wait_for_function(
            "before => JSON.stringify([...document.querySelectorAll("
            "\".poker-seat[data-seat='0'] .card\")].map(c => c.dataset.card))"
            " !== JSON.stringify(before)",
            arg=before,
        )
        after = page.locator(".poker-seat[data-seat='0'] .card").evaluate_all(
            "cards => cards.map(c => c.dataset.card)"
        )
        assert after[1] == before[1] and after[3:] == before[3:]
        return True

    play_poker_hand(page, on_turn=discard_two)
    assert discarded, "the hand ended without a draw"
    assert "drawer" in page.inner_text("#last-hand")
    assert hub.get_json(f"/api/games/{game_id}")["seats"][0]["player"] == "drawer"


def test_morris_in_the_browser_against_an_mnm_network_client(page, tmp_path):
    import subprocess
    import sys

    from tests.hubprocess import ROOT

    hub = start_hub(tmp_path, mnm="tcp:0:interface=127.0.0.1")
    client = None
    try:
        create_in_lobby(page, hub, "nmmorris", ["human", "open"], {"move_time_ms": 60000})
        page.wait_for_url("**/game/*")
        game_id = page.url.rsplit("/", 1)[1]
        page.wait_for_selector("svg.morris")
        game = hub.get_json(f"/api/games/{game_id}")
        assert game["frontend"] == "mnm" and game["port"] == hub.ports["mnm"]
        # the MNM client (the course's C clients speak the same protocol) pastes the id
        client = subprocess.Popen(
            [sys.executable, "-m", "bots.morris", "--port", str(hub.ports["mnm"])]
            + ["--game-id", game_id, "--max-seconds", "0.2", "--seed", "7"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        page.wait_for_selector("#seats li[data-seat='1'] .badge.kind-client", timeout=20_000)
        click_morris_until_over(page, 240, 60_000)
        output, _ = client.communicate(timeout=30)
        assert client.returncode == 0, output
        result = hub.get_json(f"/api/games/{game_id}")["result"]
        assert result["summary"] in page.inner_text("#result-summary")
        screenshot(page, "game-morris-vs-mnm-client", both=False)
    finally:
        if client is not None and client.poll() is None:
            client.kill()
            client.wait(timeout=10)
        hub.stop()
    assert hub.errors() == [], hub.log()


def test_two_people_and_a_bot_at_one_holdem_table(page, browser, hub):
    bot = bot_for(hub, "texas-holdem", "caller")
    create_account(page, hub, "alice-web", "alice-pw1")
    other_context = browser.new_context(viewport=PHONE)
    other_context.set_default_timeout(15_000)
    other = other_context.new_page()
    try:
        create_account(other, hub, "bob-web", "bob-pw12")
        create_in_lobby(page, hub, "texas-holdem", ["human", "open", f"bot:{bot}"])
        page.wait_for_url("**/game/*")
        game_id = page.url.rsplit("/", 1)[1]
        other.goto(hub.url(f"/game/{game_id}"))
        other.click("#seats li[data-seat='1'] button.take-seat")
        other.wait_for_selector("#subtitle:has-text('you are seat 1')")
        preference = PREFERENCE
        acted = {"alice-web": 0, "bob-web": 0}
        deadline = time.monotonic() + 180
        pages = {"alice-web": page, "bob-web": other}

        def hand_with_both_over() -> bool:
            # bob sat down during alice's first hand with the bot: wait for a hand he played
            return acted["bob-web"] > 0 and all(
                tab.locator("#last-hand:has-text('bob-web')").count() for tab in pages.values()
            )

        while not hand_with_both_over():
            assert time.monotonic() < deadline, "the hand did not end"
            moved = False
            for name, tab in pages.items():
                names = tab.locator("button.poker-action").evaluate_all(
                    "buttons => buttons.map(b => b.dataset.name)"
                )
                if names:
                    choice = min(
                        names, key=lambda n: preference.index(n) if n in preference else 99
                    )
                    tab.locator(f"button.poker-action[data-name='{choice}']").first.click()
                    acted[name] += 1
                    moved = True
                    assert tab.locator(".notice.error").count() == 0, notices(tab)
            if not moved:
                page.wait_for_timeout(100)
        assert acted["alice-web"] >= 1 and acted["bob-web"] >= 1
        for tab in pages.values():
            text = tab.inner_text("#last-hand")
            assert "alice-web" in text and "bob-web" in text
        seats = hub.get_json(f"/api/games/{game_id}")["seats"]
        assert [s["player"] for s in seats] == ["alice-web", "bob-web", bot]
        screenshot(other, "game-holdem-two-people", both=False)
    finally:
        other_context.close()


def test_a_plugin_game_draws_itself_with_its_own_page_script(page, hub):
    types = {t["name"]: t for t in hub.get_json("/api/types")["types"]}
    assert types["press"]["script"] == "/plugin-scripts/press.js"
    # built-in games bring their page scripts the same way (from their own package)
    assert types["hello"]["script"] == "/plugin-scripts/hello.js"
    status, body, headers = hub.request("GET", "/plugin-scripts/press.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    for path in ("/plugin-scripts/nope.js", "/plugin-scripts/x"):
        assert hub.request("GET", path)[0] == 404, path
    create_in_lobby(page, hub, "press", ["human"])
    page.wait_for_url("**/game/*")
    page.wait_for_selector("#press-board")
    assert page.inner_text("#press-board") == "not pressed yet"
    page.click("#press-button")
    page.wait_for_function("() => document.querySelector('#press-board').textContent === 'pressed'")
    page.locator("#result-summary").wait_for()
    assert "pressed" in page.inner_text("#result-summary")


def test_kingdomino_in_the_browser_with_a_domino_network_client(page, tmp_path):
    import subprocess
    import sys

    from tests.hubprocess import ROOT

    hub = start_hub(tmp_path, domino="tcp:0:interface=127.0.0.1")
    client = None
    try:
        create_in_lobby(
            page,
            hub,
            "kingdomino",
            ["human", "open", "bot:greedy", "bot:domino-random"],
            {"answer_seconds": 60},
        )
        page.wait_for_url("**/game/*")
        game_id = page.url.rsplit("/", 1)[1]
        client = subprocess.Popen(
            [sys.executable, "-m", "bots.kingdomino", "--port", str(hub.ports["domino"])]
            + ["--login", "netplayer", "--bot", "greedy", "--think", "0.05", "--seed", "3"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        page.wait_for_selector("#seats li[data-seat='1'] .badge.kind-client", timeout=20_000)
        page.wait_for_selector("#kingdoms")
        clicks, deadline = 0, time.monotonic() + 240
        while page.inner_text("#game-state") != "over":
            assert clicks < 200 and time.monotonic() < deadline, "the game did not end"
            page.wait_for_function(
                "() => document.querySelector('#game-state').textContent === 'over'"
                " || document.querySelector('.domino.can, .kingdom .cell.can')",
                timeout=60_000,
            )
            if page.inner_text("#game-state") == "over":
                break
            page.locator(".domino.can, .kingdom .cell.can").first.click()
            clicks += 1
            assert page.locator(".notice.error").count() == 0, notices(page)
        page.locator("#result-scores").wait_for()
        output, _ = client.communicate(timeout=30)
        assert client.returncode == 0, output
        game = hub.get_json(f"/api/games/{game_id}")
        assert game["seats"][1]["player"] == "netplayer"
        shown = [
            int(page.inner_text(f"#result-scores .score[data-seat='{seat}']")) for seat in range(4)
        ]
        assert shown == game["result"]["scores"]
        screenshot(page, "game-kingdomino-vs-domino-client", both=False)
    finally:
        if client is not None and client.poll() is None:
            client.kill()
            client.wait(timeout=10)
        hub.stop()
    assert hub.errors() == [], hub.log()


def test_take_a_seat_and_leave_it_on_the_game_page(page, hub):
    status, body, _ = hub.request(
        "POST", "/api/games", {"type": "hello", "seats": ["open", "open"]}
    )
    game_id = json.loads(body)["id"]
    page.goto(hub.url(f"/game/{game_id}"))
    page.click("#seats li[data-seat='1'] button.take-seat")
    page.wait_for_selector("#subtitle:has-text('you are seat 1')")
    assert hub.get_json(f"/api/games/{game_id}")["seats"][1]["kind"] == "human"
    page.click("#leave")
    page.wait_for_selector("#subtitle:has-text('watching')")
    page.wait_for_selector("#seats li[data-seat='1'] button.take-seat")
    assert hub.get_json(f"/api/games/{game_id}")["seats"][1]["player"] is None
    assert page.locator(".notice.error").count() == 0, notices(page)
