"""Playing on the web as a person does (issue 20), in a real Chromium against a real hub
(with its XML front end, for the chat and game list shared with XML clients).

Every page these tests visit is checked at phone and desktop size (layout: nothing off
screen or overlapping; axe-core: no serious violations) with screenshots in
``test-artifacts/screenshots/``.  No timing assertions: conditions are polled with
bounded waits.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.support import wait_until

from .conftest import new_page, start_hub
from .pagecheck import DESKTOP, PHONE, check_page, serious_violations
from .test_browser import (
    create_account,
    create_in_lobby,
    create_log_out_log_in,
    notices,
    play_poker_hand,
)
from .test_web_api import Browser, Stream
from .xmlpeer import XMLPeer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """One hub with the web and XML front ends for this module."""
    running = start_hub(tmp_path_factory.mktemp("hub"), xml="tcp:0:interface=127.0.0.1")
    try:
        yield running
    finally:
        running.stop()
    assert running.errors() == [], running.log()


#: in the page: is an element within the viewport
IN_VIEW = (
    "e => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }"
)


def in_view(page, selector: str) -> bool:
    return page.evaluate(f"() => ({IN_VIEW})(document.querySelector({json.dumps(selector)}))")


def create(hub, **body) -> dict:
    status, raw, _ = hub.request("POST", "/api/games", body)
    assert status == 201, raw
    return json.loads(raw)


def wait_state(hub, game_id: str, state: str, seconds: float = 30.0) -> dict:
    found: dict = {}

    def reached() -> bool:
        found.update(hub.get_json(f"/api/games/{game_id}"))
        return found["state"] == state

    wait_until(reached, f"game {game_id} {state}", seconds)
    return found


def log_lines(page) -> list[str]:
    """The events panel, line by line."""
    return page.locator("#log .log-line").all_inner_texts()


def assert_in_words(lines: list[str]) -> None:
    """No line of an events panel is raw data."""
    assert lines, "no events shown"
    for line in lines:
        assert not re.search(r"[{}\[\]]|\":", line), f"raw data in the events panel: {line!r}"


def clock_seconds(page, where: str = "#turn .clock") -> int:
    return int(page.locator(where).first.get_attribute("data-seconds"))


def person_with_account(hub, name: str) -> Browser:
    """A browser session (HTTP only) logged in with a new account."""
    person = Browser(hub)
    person.start()
    assert person.call("POST", "/api/accounts", {"name": name, "password": name + "-pw1"})[0] == 201
    return person


def log_in_new_account(page, hub, name: str) -> None:
    create_account(page, hub, name, name + "-pw1")


# -- 1. kingdoms that fit their boxes ----------------------------------------------------


def test_wide_kingdoms_fit_their_boxes_on_desktop_and_phone(page, hub):
    # four bots that always place as far west as they can: a staircase of a kingdom
    game = create(hub, type="kingdomino", seats=["bot:first-legal"] * 4)
    wait_state(hub, game["id"], "over")
    page.goto(hub.url(f"/game/{game['id']}"))
    page.wait_for_selector("#kingdoms .kingdom-grid")
    widest = max(
        int(g.evaluate("g => g.style.getPropertyValue('--cols')"))
        for g in page.locator(".kingdom-grid").all()
    )
    assert widest >= 12, widest  # wider than a box holds at full size
    # the game is over: no draw, nothing left to place, nobody picking
    status = page.inner_text("#board p.small")
    assert "over" in status and "picking" not in status and "to act" not in status, status
    assert "To place" not in page.inner_text("#board")
    check_page(page, "kingdomino-wide-kingdoms")  # cells big enough to see, too
    for grid in page.locator(".kingdom").all():  # each grid inside its own box
        inner = grid.locator(".kingdom-grid").bounding_box()
        outer = grid.bounding_box()
        assert inner["x"] >= outer["x"] - 0.5
        assert inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5


# -- 2. clocks from the server's deadline --------------------------------------------------


def test_the_turn_clock_never_restarts_on_redraw_or_reconnect(page, browser, hub):
    create_in_lobby(page, hub, "nmmorris", ["human", "bot:morris"], {"move_time_ms": 120000})
    page.wait_for_url("**/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("#turn .clock")
    first = clock_seconds(page)
    assert 100 < first <= 120
    # wait (bounded) until the clock has run down a little
    page.wait_for_function(
        "n => Number(document.querySelector('#turn .clock').dataset.seconds) <= n - 2",
        arg=first,
        timeout=15_000,
    )
    before = clock_seconds(page)
    page.evaluate("() => GamePage.render()")  # any redraw (picking, buttons, new views)
    assert clock_seconds(page) <= before
    # the seat list shows the same clock as the banner
    assert abs(clock_seconds(page, "li.seat.to-act .clock") - clock_seconds(page)) <= 1
    before = clock_seconds(page)
    page.evaluate("() => GamePage.reconnect()")  # a reconnect: a fresh snapshot
    page.wait_for_selector("#live.status-live")
    page.wait_for_selector("#turn .clock")
    assert clock_seconds(page) <= before
    # somebody who opens the game later sees the same time left
    watcher = new_page(browser)
    try:
        watcher.goto(hub.url(f"/game/{game_id}"))
        watcher.wait_for_selector("#turn .clock")
        assert abs(clock_seconds(watcher) - clock_seconds(page)) <= 1
        assert watcher.js_errors == []
    finally:
        watcher.context.close()
    # after a move the next turn has its own, full clock (the bot's)
    page.locator("g.pt.clickable").first.locator("circle.hit").click()
    page.wait_for_function(
        "() => !document.querySelector('#turn .turn-who').textContent.startsWith('Your')"
    )
    check_page(page, "morris-clock")


# -- 3. no stale turn between poker hands -------------------------------------------------


def test_between_poker_hands_nobody_is_to_act(page, hub):
    log_in_new_account(page, hub, "pauser")
    create_in_lobby(page, hub, "texas-holdem", ["human", "bot:caller"], {"showdown_pause": 120})
    page.wait_for_url("**/game/*")
    page.wait_for_selector("#poker-table")
    play_poker_hand(page, preference=("fold", "check", "call", "post", "show", "muck"))
    # the pause: no countdown for anybody, no "showdown" after a fold, the next hand's clock
    page.wait_for_selector("#turn:has-text('Between hands')")
    assert "to play" not in page.inner_text("#turn") and "Your turn" not in page.inner_text("#turn")
    assert page.locator("li.seat.to-act, .poker-seat.to-act").count() == 0
    status = page.inner_text("#hand-status")
    assert "is over" in status and "showdown" not in status
    assert clock_seconds(page) > 60  # counting to the next hand
    check_page(page, "holdem-between-hands")
    # our cards stay readable folded or not, whichever were dealt: drawn as a folded
    # seat's red cards (the lowest contrast a card may have), they still pass axe-core
    cards = page.evaluate(
        """() => [...document.querySelectorAll('.poker-seat.mine .card[data-card]')]
            .map(c => { c.classList.add('red'); c.closest('.poker-seat').classList.add('folded');
                        return c.dataset.card; })"""
    )
    assert len(cards) == 2, cards  # our hole cards, face up
    assert serious_violations(page) == []


# -- 4. bots wait for the creator -----------------------------------------------------------


def test_the_creator_plays_the_first_hand(page, hub):
    log_in_new_account(page, hub, "firsthand")
    # blinds posted for everybody: the cards are dealt without a click
    create_in_lobby(
        page, hub, "texas-holdem", ["human", "bot:caller", "bot:caller"], {"auto_post": True}
    )
    page.wait_for_url("**/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("#poker-table")
    replay = {}

    def dealt() -> bool:
        replay.update(hub.get_json(f"/api/games/{game_id}/replay"))
        return any(e["kind"] == "deal" for e in replay["events"])

    wait_until(dealt, "the first hand's cards")
    hand = next(e["data"] for e in replay["events"] if e["kind"] == "hand")
    in_hand = {hand["button"], hand["smallblindseat"], hand["bigblindseat"]}
    assert hand["number"] == 1 and 0 in in_hand, hand  # the creator is in hand 1
    seated = [e["data"]["name"] for e in replay["events"] if e["kind"] == "buyin"]
    assert seated[0] == "firsthand", seated  # the creator sat down before the bots
    # and so is every bot created with the table (not only the first to sit down)
    deal = next(e["data"] for e in replay["events"] if e["kind"] == "deal")
    assert sorted(deal["seats"]) == [0, 1, 2], deal


# -- 5. events in words, from before the page opened ----------------------------------------


def test_events_are_words_and_include_what_happened_before(page, hub):
    game = create(hub, type="hello", seats=["open", "bot:hello-bot"])
    person = Browser(hub)
    person.start()
    assert person.call("POST", f"/api/games/{game['id']}/seats", {"seat": 0})[0] == 200
    wait_until(
        lambda: any(
            e["kind"] == "hello" for e in hub.get_json(f"/api/games/{game['id']}/replay")["events"]
        ),
        "the bot's hello",
    )
    page.goto(hub.url(f"/game/{game['id']}"))
    page.wait_for_selector("#log .log-line >> text=Hello from hello-bot")
    lines = log_lines(page)
    assert any("sits down" in line for line in lines), lines
    assert_in_words(lines)


#: An example of every event kind each built-in game emits (``kind`` or ``kind:variant``),
#: the kinds every game shares and the hub's own at a chip table (``paused``, ``resumed``).
EVENTS = {
    "hello": {
        "seated": {"seat": 0, "name": "ann"},
        "state": {"state": "running"},
        "turn": {"seat": 0, "legal": [{"hello": ""}]},
        "hello": {"seat": 0, "text": "hi", "line": "Hello from ann: hi"},
        "left": {"seat": 1},
        "seat_open": {"seat": 1},
        "over": {"result": {"summary": "2 of 2 said hello"}},
    },
    "nmmorris": {
        "seated": {"seat": 0, "name": "ann"},
        "state": {"state": "running"},
        "turn": {"seat": 0, "capture": 0},
        "turn:capture": {"seat": 0, "capture": 1},
        "moved": {"seat": 0, "move": "A0:A1", "kind": "move", "mills": 1, "capture": 1},
        "moved:place": {"seat": 1, "move": "B3", "kind": "place", "mills": 0},
        "moved:capture": {"seat": 0, "move": "B3", "kind": "capture", "mills": 0},
        "left": {"seat": 1},
        "over": {"result": {"summary": "White wins"}},
    },
    "kingdomino": {
        "state": {"state": "running"},
        "start": {"order": [1, 0, 2, 3], "dominoes": [1, 2, 3, 4], "names": ["a", "b", "c", "d"]},
        "turn": {"seat": 0, "phase": "choose"},
        "turn:place": {"seat": 0, "phase": "move"},
        "chosen": {"seat": 2, "domino": 19},
        "placed": {"seat": 2, "domino": 19, "move": [1, 0, 90]},
        "round": {"round": 2, "dominoes": [5, 6, 7, 8]},
        "round:last": {"round": 13, "dominoes": []},
        "removed": {"seat": 3, "reason": "timeout"},
        "seat_open": {"seat": 3},
        "over": {"result": {"summary": "a 40, b 30, c 20, d 10"}},
    },
    "texas-holdem": {
        "shuffle": {"number": 3, "commitment": "9f86d081884c7d659a2feaa0c55ad015"},
        "entropy": {"seat": 1, "number": 3, "value": "5e884898da28047151d0e56f8dc62927"},
        "state": {"state": "waiting"},
        "buyin": {"seat": 0, "name": "ann", "amount": "200"},
        "cashout": {"seat": 0, "name": "ann", "amount": "210"},
        **{
            f"seat:{what}": {"seat": 0, "what": what, "name": "ann", "amount": "50"}
            for what in ("taken", "addchips", "leaving", "left", "sitout", "sitin")
        },
        "seat_open": {"seat": 0},
        "hand": {"handid": "g-3", "number": 3, "button": 1, "commitment": "ab" * 32},
        "deal": {"seats": [0, 1], "count": 2},
        "hole": {"seat": 0, "cards": [12, 51]},
        "autopost": {"seat": 0, "on": True},
        "board": {"cards": [0, 5, 9], "board": [0, 5, 9], "stage": 1},
        **{
            f"action:{name}": {"seat": 1, "name": name, "amount": "20", "total": "30", "count": 2}
            for name in ("refuse", "fold", "check", "call", "bet", "raise", "discard", "muck")
        },
        "action:post": {"seat": 1, "name": "post", "blind": "big", "amount": "10"},
        "turn": {"seat": 1, "decision": "bet"},
        "timeout": {"seat": 1, "decision": "bet"},
        "return": {"seat": 1, "amount": "10"},
        "pots": {"pots": [{"amount": "40", "seats": [0, 1]}]},
        "show": {"seat": 0, "cards": [12, 51], "text": "a pair"},
        "award": {"seat": 0, "amount": "40", "text": "a pair"},
        "handover": {
            "handid": "g-3",
            "deltas": {"0": "20", "1": "-20"},
            "names": {"0": "ann", "1": "bob"},
            "seed": "cd" * 32,
        },
        "cancel": {"reason": "the table closed"},
        "paused": {"reason": "store unavailable"},
        "resumed": {},
        "over": {"result": {"summary": "the table closed"}},
    },
}
EVENTS["five-card-draw"] = EVENTS["texas-holdem"]
EVENTS["holdem-sng"] = {
    **EVENTS["texas-holdem"],
    "level": {"level": 2, "stakes": "30/60", "smallblind": "15", "bigblind": "30", "hand": 11},
    "eliminated": {"seat": 2, "name": "cy", "place": 5, "handid": "g-9", "left": 4},
    "away": {"seat": 1, "name": "bob", "away": True},
}


def emitted_kinds(package: str) -> set[str]:
    """The event kinds the modules of ``games/<package>`` emit (``GameEvent("kind", …)``,
    ``_emit("kind", …)`` or a constant of :mod:`hub.model`)."""
    import hub.model
    from tests.hubprocess import ROOT

    kinds = set()
    for module in (ROOT / "games" / package).glob("*.py"):
        text = module.read_text()
        for pattern in (r'GameEvent\(\s*("?)(\w+)\1', r'\b_emit\(\s*("?)(\w+)\1'):
            for quoted, word in re.findall(pattern, text):
                kind = word if quoted else getattr(hub.model, word, None)
                if isinstance(kind, str):
                    kinds.add(kind)
    return kinds


def test_every_event_kind_of_every_built_in_game_has_words(page, hub):
    # the examples cover every kind the games' sources emit
    for game_type, package in (("hello", "hello"), ("nmmorris", "morris"),
                               ("kingdomino", "kingdomino"), ("holdem-sng", "poker")):  # fmt: skip
        covered = {kind.split(":")[0] for kind in EVENTS[game_type]}
        assert emitted_kinds(package) <= covered, (game_type, emitted_kinds(package) - covered)
    names = ["ann", "bob", "cy", "dee"]
    page.goto(hub.url("/history"))
    page.wait_for_selector("#filter")
    for game_type, events in EVENTS.items():
        page.evaluate("t => GameScripts.load(t)", game_type)
        for kind, data in events.items():
            # what the game page and the replays show: the game's words, else the shared
            text, summary = page.evaluate(
                "([t, kind, data, names]) => [GameScripts.describe(t, {kind, data}, names),"
                " Hub.summarize({kind, data}, names)]",
                [game_type, kind.split(":")[0], data, names],
            )
            assert text, f"{game_type} has no words for {kind}"
            assert_in_words([text])
            # words of its own, not the summary any unknown kind gets (unless it is the
            # event's own line)
            if "line" not in data:
                assert text != summary, f"{game_type}: {kind} is only summarised: {text!r}"
            if kind.startswith("turn"):  # whose turn it is, not something done
                assert " to " in text, text
            if kind.startswith("action"):  # who acted comes first (not the action's name)
                assert text.startswith(names[data["seat"]]), text
            if kind in ("action:fold", "action:check", "action:muck", "action:refuse"):
                assert not re.search(r"\d", text), text  # no chips go in
    # a plugin's own event kind without words of its own: a summary in words
    text = page.evaluate(
        "() => GameScripts.describe('no-such-game', {kind: 'tile_flipped', data: {seat: 1, tile: {x: 1}, points: 3, legal: [1]}}, ['ann', 'bob'])"
    )
    assert text == "bob: tile flipped (tile 1 entry, points 3)"
    # the hub's own events at a table waiting for its store
    paused = page.evaluate(
        "() => Hub.describeEvent({kind: 'paused', data: {reason: 'store unavailable'}}, [])"
    )
    assert paused == "The table is paused: store unavailable"
    assert page.evaluate("() => Hub.describeEvent({kind: 'resumed', data: {}}, [])") == (
        "The table plays on"
    )


def test_a_paused_table_says_so_in_words(page, hub):
    # a table waiting for its store (docs/money.md) carries ``paused`` in its JSON
    game = create(hub, type="hello", seats=["open", "open"])
    page.goto(hub.url(f"/game/{game['id']}"))
    page.wait_for_selector("#game-state.state-waiting")
    page.evaluate("() => { GamePage.state.game.paused = 'store unavailable'; GamePage.render(); }")
    badge = page.locator("#game-state")
    assert badge.inner_text() == "paused" and "state-paused" in badge.get_attribute("class")
    banner = page.inner_text("#turn")
    assert banner.startswith("paused") and "store unavailable" in banner, banner
    assert page.locator("#turn.state-paused #paused").count() == 1
    check_page(page, "game-paused")
    page.evaluate("() => { GamePage.state.game.paused = null; GamePage.render(); }")
    assert page.inner_text("#game-state") == "waiting"
    assert page.inner_text("#turn").startswith("Waiting for players")


# -- 6. creating a game -------------------------------------------------------------------


def test_a_guests_first_create_cannot_fail(page, hub):
    page.goto(hub.url("/"))
    page.wait_for_selector("#c-type option", state="attached")
    assert page.locator("textarea").count() == 0  # no JSON box
    page.click("#c-submit")  # everything as the form proposes
    page.wait_for_url("**/game/*")
    page.wait_for_selector("#seats li.seat-me")
    assert page.locator(".notice.error").count() == 0
    check_page(page, "game-guest-first")


def test_the_create_form_is_built_from_the_options_each_game_declares(page, hub):
    types = {t["name"]: t for t in hub.get_json("/api/types")["types"]}
    page.goto(hub.url("/"))
    page.wait_for_selector("#c-type option", state="attached")
    for name in ("nmmorris", "kingdomino", "texas-holdem", "five-card-draw", "holdem-sng", "hello"):
        page.select_option("#c-type", name)
        declared = types[name]["options"]
        fields = page.locator("#c-options input, #c-options select")
        assert fields.count() == len(declared), name
        for option in declared:  # a field of the option's kind, range and default
            field = page.locator(f"#c-opt-{option['name']}")
            proposed = (
                option["for_people"] if option["for_people"] is not None else option["default"]
            )
            if option["kind"] == "bool":
                assert field.get_attribute("type") == "checkbox"
                assert field.is_checked() == bool(proposed), option
                continue
            if option["kind"] == "choice":
                choices = field.locator("option").evaluate_all("os => os.map(o => o.value)")
                assert choices == [str(c) for c in option["choices"]], option
            elif option["kind"] in ("int", "number"):
                assert field.get_attribute("type") == "number"
                for bound in ("minimum", "maximum"):
                    if option[bound] is not None:
                        assert float(field.get_attribute(bound[:3])) == option[bound], option
            else:
                assert field.get_attribute("type") == "text"
            shown = field.input_value()
            if proposed is None:
                assert shown == "", option
            elif option["kind"] in ("int", "number"):
                assert float(shown) == float(proposed), option
            else:
                assert shown == str(proposed), option
        # as a guest, every type can be created as the form proposes
        page.click("#c-submit")
        if types[name]["needs_account"]:  # a guest does not sit where chips are at stake
            page.locator("#create-box .notice.ok").wait_for()
        else:
            page.wait_for_url("**/game/*")
            page.wait_for_selector("#seats li.seat-me")
            page.goto(hub.url("/"))
            page.wait_for_selector("#c-type option", state="attached")
        assert page.locator(".notice.error").count() == 0, (name, notices(page))
    page.select_option("#c-type", "nmmorris")
    page.click("#c-options-box summary")
    assert page.input_value("#c-opt-move_time_ms") == "120000"  # for people, not the bots' 3000
    page.fill("#c-opt-move_time_ms", "99")  # below the declared minimum: the hub says why
    page.click("#c-submit")
    page.locator("#create-box .notice.error").wait_for()
    assert "move_time_ms" in notices(page)[0]
    check_page(page, "lobby-create-options")


# -- 7. finished and waiting tables -------------------------------------------------------


def test_a_finished_game_offers_its_replay_not_play(page, hub):
    game = create(hub, type="hello", name="Done deal", seats=["bot:hello-bot", "bot:first-legal"])
    wait_state(hub, game["id"], "over")
    page.goto(hub.url("/"))
    page.click(f"tr[data-id='{game['id']}']")
    page.wait_for_selector("#details #open-replay")
    assert "Play" not in page.inner_text("#details .row")
    page.click("#open-replay")
    page.wait_for_selector("#replay-board")
    page.goto(hub.url(f"/game/{game['id']}"))
    page.wait_for_selector("#result-summary")
    assert page.locator("button.take-seat").count() == 0
    page.wait_for_selector("#turn a#replay-link")


def test_a_table_left_with_one_bot_is_waiting_everywhere_and_restarts(page, hub):
    game = create(hub, type="texas-holdem", name="Lonely", seats=["open", "bot:caller"],
                  options={"showdown_pause": 0.2, "action_time": 1, "blind_time": 1})  # fmt: skip
    ann = person_with_account(hub, "lonely-ann")
    assert ann.call("POST", f"/api/games/{game['id']}/seats", {"seat": 0})[0] == 200
    wait_state(hub, game["id"], "running")
    assert ann.call("POST", f"/api/games/{game['id']}/leave", {})[0] == 200
    # her stack goes back when the hand ends (she folds when she must act): then only the
    # bot sits there, and no hand can be dealt
    listed = wait_state(hub, game["id"], "waiting", 90)
    assert [s["player"] for s in listed["seats"] if s["present"] and s["player"]] == ["caller"]
    page.goto(hub.url("/"))
    row = page.locator(f"tr[data-id='{game['id']}']")
    row.wait_for()
    assert row.locator(".badge.state").inner_text() == "waiting"
    peer = XMLPeer(hub.ports["xml"])
    try:
        peer.login("lonely-xml", "xml-pw123")
        from hub.frontends.xml.codec import wire_game_id

        assert peer.game_list()[wire_game_id(game["id"])] == "waiting"
    finally:
        peer.close()
    page.goto(hub.url(f"/game/{game['id']}"))
    page.wait_for_selector("#turn:has-text('Waiting for players')")
    assert "caller sits here" in page.inner_text("#turn")
    check_page(page, "holdem-waiting")
    # enough players again: it starts by itself
    bob = person_with_account(hub, "lonely-bob")
    assert bob.call("POST", f"/api/games/{game['id']}/seats", {"seat": 0})[0] == 200
    wait_state(hub, game["id"], "running")
    page.wait_for_selector("#game-state.state-running")


# -- 8. every page right on a phone and a desktop -------------------------------------------


def test_every_page_is_right_on_a_phone_and_a_desktop(page, hub):
    create(hub, type="hello", seats=["bot:hello-bot", "open"])
    done = create(hub, type="hello", seats=["bot:hello-bot", "bot:first-legal"])
    wait_state(hub, done["id"], "over")
    page.goto(hub.url("/"))
    page.wait_for_selector("#games tbody tr")
    check_page(page, "page-lobby")
    page.click(f"tr[data-id='{done['id']}']")
    page.wait_for_selector("#details #open-replay")
    check_page(page, "page-lobby-details")
    # on a phone the create form is below the list: one tap takes you there
    assert not page.is_visible("#create-jump")  # a desktop shows the form beside it
    page.set_viewport_size(PHONE)
    page.evaluate("() => window.scrollTo(0, 0)")
    assert not in_view(page, "#c-type")  # far down the page
    page.click("#create-jump")
    page.wait_for_function(f"() => ({IN_VIEW})(document.querySelector('#c-type'))")
    page.set_viewport_size(DESKTOP)
    page.goto(hub.url("/plugins"))
    page.wait_for_selector("#plugins tbody tr")
    check_page(page, "page-plugins")
    page.goto(hub.url("/stats"))
    page.wait_for_selector("#plot-svg", state="attached")
    check_page(page, "page-stats")
    page.goto(hub.url("/history"))
    page.wait_for_selector(f"#history tr[data-id='{done['id']}']")
    check_page(page, "page-history")
    # the account page on a phone through log in, log out and log in again
    page.set_viewport_size(PHONE)
    page.goto(hub.url("/account"))
    page.wait_for_selector("#create")
    check_page(page, "page-account-guest")
    create_log_out_log_in(page, hub, "phoner", "phoner-pw1")
    assert page.locator(".notice").count() == 1  # the newest note replaces the one before
    check_page(page, "page-account-logged-in")
    # also when the notes belong to different boxes of the page
    page.evaluate(
        "() => { Hub.ok('first', document.getElementById('password')); Hub.error('second'); }"
    )
    assert page.locator(".notice .notice-text").all_inner_texts() == ["second"]


def test_morris_mid_game_on_a_phone(page, hub):
    page.set_viewport_size(PHONE)
    create_in_lobby(page, hub, "nmmorris", ["human", "bot:first-legal"], {"move_time_ms": 120000})
    page.wait_for_url("**/game/*")
    for _ in range(6):  # a few pieces on the board: point names beside pieces
        page.wait_for_selector("g.pt.clickable")
        page.locator("g.pt.clickable").first.locator("circle.hit").click()
        page.wait_for_function("() => document.querySelectorAll('circle.piece').length > 0")
    page.wait_for_function("() => document.querySelectorAll('circle.piece').length >= 10")
    check_page(page, "morris-mid-game")
    assert_in_words(log_lines(page))


# -- 10. chat and watchers (the poker tables of the last tests play on: they come last) ----


def test_a_chat_panel_remembers_a_bounded_number_of_lines(page, hub):
    """However long a page stays open, its chat panel keeps at most 200 lines and
    remembers the keys of at most 400 (to drop the lines a reconnect sends again)."""
    page.goto(hub.url("/"))
    page.wait_for_selector("#chat-log", state="attached")
    shown, remembered, again = page.evaluate(
        """() => {
        const chat = Hub.chatPanel("/api/chat", "Test chat");
        for (let i = 0; i < 1000; i++) chat.add({at: i, sender: "s", text: "line " + i});
        chat.add({at: 999, sender: "s", text: "line 999"});  // sent again: not shown twice
        const lines = [...chat.panel.querySelectorAll(".chat-line")].map(l => l.textContent);
        return [lines.length, chat.remembered, lines.filter(t => t.endsWith("line 999")).length];
    }"""
    )
    assert shown == 200
    assert remembered == 400
    assert again == 1


def test_lobby_and_table_chat_is_shared_with_xml_clients(page, browser, hub):
    from hub.frontends.xml.codec import wire_game_id

    peer = XMLPeer(hub.ports["xml"])
    try:
        peer.login("xmlchatter", "chat-pw123")
        # the lobby: XML (game id 0) → web, web → XML, with the same text (escaped by each)
        page.goto(hub.url("/"))
        page.wait_for_selector("#live.status-live")
        assert XMLPeer.ok(peer.chat(0, "hello lobby <from> xml & co"))
        page.wait_for_selector("#chat-log .chat-line >> text=hello lobby <from> xml & co")
        assert "xmlchatter" in page.inner_text("#chat-log")
        page.fill("#chat-input", "<b>hi</b> from the web")
        page.click("#chat-form button")
        _, sender, _ = peer.wait_for_chat("<b>hi</b> from the web")
        assert sender.startswith("guest-")
        assert page.locator("#chat-log b:text('hi')").count() == 0  # shown as text, not HTML
        # too long: the same limit on both front ends
        page.fill("#chat-input", "x" * 2000)
        page.evaluate("() => { document.querySelector('#chat-input').value += 'y'; }")
        page.click("#chat-form button")
        page.locator("#chat-box .notice.error").wait_for()
        assert "2000" in notices(page)[0]
        assert not XMLPeer.ok(peer.chat(0, "z" * 2001))
        check_page(page, "lobby-chat")
        # a table: the XML player sits, a web watcher chats with them
        game = create(hub, type="hello", name="Chatty", seats=["open", "open"])
        peer.join(wire_game_id(game["id"]))
        page.goto(hub.url(f"/game/{game['id']}"))
        me = page.evaluate("() => Hub.getSession().then(s => s.name)")
        page.wait_for_selector(f"#watchers li:has-text('{me}')")
        other = new_page(browser, PHONE)
        try:
            other.goto(hub.url(f"/game/{game['id']}"))
            him = other.evaluate("() => Hub.getSession().then(s => s.name)")
            page.wait_for_selector(f"#watchers li:has-text('{him}')")
            page.fill("#chat-input", "good luck, xml")
            page.click("#chat-form button")
            gameid, sender, _ = peer.wait_for_chat("good luck, xml")
            assert gameid == wire_game_id(game["id"]) and sender == me
            other.wait_for_selector("#chat-log >> text=good luck, xml")
            assert XMLPeer.ok(peer.chat(wire_game_id(game["id"]), "thanks, web"))
            page.wait_for_selector("#chat-log >> text=thanks, web")
            other.wait_for_selector("#chat-log >> text=thanks, web")
            check_page(other, "table-chat-watcher")
            assert other.js_errors == []
        finally:
            other.context.close()
        page.wait_for_function(
            f"() => !document.querySelector('#watchers').textContent.includes('{him}')"
        )
    finally:
        peer.close()


# -- 9. replays for people ---------------------------------------------------------------


def test_replays_step_through_games_on_their_boards(page, hub):
    morris = create(hub, type="nmmorris", seats=["bot:first-legal", "bot:morris-random"],
                    options={"max_turns": 40})  # fmt: skip
    domino = create(
        hub,
        type="kingdomino",
        seats=["bot:greedy", "bot:first-legal", "bot:greedy", "bot:domino-random"],
    )
    # a bounded table: its replay keeps every event from the first deal on (an endless
    # one on a slow machine outgrows the game's event log while the others finish, and
    # its replay would start in the middle of a hand)
    poker = create(
        hub,
        type="texas-holdem",
        seats=["bot:caller", "bot:caller"],
        options={"showdown_pause": 0.1, "hands": 12},
    )
    wait_state(hub, morris["id"], "over")
    wait_state(hub, domino["id"], "over")
    wait_until(
        lambda: (
            sum(
                e["kind"] == "show"
                for e in hub.get_json(f"/api/games/{poker['id']}/replay")["events"]
            )
            >= 2
        ),
        "two shown hands",
        60,
    )
    # Nine Men's Morris: the board after each move, the moves in words, play at a speed
    page.goto(hub.url(f"/history?game={morris['id']}"))
    page.wait_for_selector("#replay-board svg.morris")
    assert page.locator("#replay-board circle.piece").count() == 0
    for _ in range(5):  # who plays which colour, then the first move
        page.click("#replay-next")
        if page.locator("#replay-board circle.piece").count():
            break
    assert "places a piece on" in page.inner_text("#replay-log li.current")
    assert page.locator("#replay-board circle.piece").count() == 1
    assert_in_words(page.locator("#replay-log li").all_inner_texts())
    steps = page.locator("#replay-log li").count()
    page.click("#replay-prev")
    assert page.locator("#replay-log li").count() == steps - 1
    assert page.locator("#replay-board circle.piece").count() == 0
    page.select_option("#replay-speed", "8")
    page.click("#replay-play")
    page.wait_for_function(
        "() => { const [a, b] = document.querySelector('#replay-counter').textContent.match(/\\d+/g); return a === b; }",
        timeout=60_000,
    )
    assert page.inner_text("#replay-play").endswith("play")  # it stopped at the end
    check_page(page, "replay-morris")
    # King Domino: the kingdoms grow
    page.goto(hub.url(f"/history?game={domino['id']}"))
    page.wait_for_selector("#replay-board")
    page.click("#replay-last")
    page.wait_for_selector("#replay-board .kingdom-grid")
    assert (
        page.locator(
            "#replay-board .kingdom-grid .cell.t-f, #replay-board .kingdom-grid .cell.t-s"
        ).count()
        > 4
    )
    assert_in_words(page.locator("#replay-log li").all_inner_texts())
    check_page(page, "replay-kingdomino")
    # poker: hole cards face down until they are shown
    page.goto(hub.url(f"/history?game={poker['id']}"))
    page.wait_for_selector("#replay-board")
    total = int(page.get_attribute("#replay-slider", "max"))
    shown_faces = False
    for step in range(1, total + 1):
        page.click("#replay-next")
        page.wait_for_function(
            "s => document.querySelector('#replay-slider').value === String(s)", arg=step
        )
        line = page.locator("#replay-log li.current").inner_text()
        faces = page.locator("#replay-board .poker-seat .card[data-card]").count()
        if line.startswith("Cards are dealt"):
            assert faces == 0, line  # dealt face down
            assert page.locator("#replay-board .poker-seat .card.back").count() == 4
        if " shows " in line:
            assert faces >= 2
            shown_faces = True
            check_page(page, "replay-holdem")
            break
    assert shown_faces

    # a table of many hands: jump from hand to hand, and back
    def hands() -> int:
        events = hub.get_json(f"/api/games/{poker['id']}/replay")["events"]
        return sum(e["kind"] == "hand" for e in events)

    wait_until(lambda: hands() >= 3, "three hands", 60)
    page.goto(hub.url(f"/history?game={poker['id']}"))
    page.wait_for_selector("#replay-next-chapter")
    labels = []  # the hands' own numbers (a long table's replay keeps its last events)
    for number in (1, 2, 3):
        page.click("#replay-next-chapter")
        line = page.locator("#replay-log li.current").inner_text()
        labels.append(re.match(r"Hand (\d+):", line).group(1))  # type: ignore[union-attr]
        assert f"hand {number} of " in page.inner_text("#replay-counter")
    assert len(set(labels)) == 3
    page.click("#replay-prev-chapter")
    assert page.locator("#replay-log li.current").inner_text().startswith(f"Hand {labels[1]}:")


# -- 10 (continued). a spectator and private cards ----------------------------------------


def test_a_spectator_never_sees_private_cards(page, hub):
    game = create(hub, type="texas-holdem", seats=["bot:caller", "bot:caller", "bot:caller"],
                  options={"showdown_pause": 0.1})  # fmt: skip
    stream = Stream(hub, f"/api/games/{game['id']}/events")
    try:
        text = b""
        deadline = time.monotonic() + 60
        while text.count(b'"kind":"handover"') < 3:
            assert time.monotonic() < deadline, "three hands did not end"
            stream.sock.settimeout(max(0.1, deadline - time.monotonic()))
            chunk = stream.sock.recv(65536)
            assert chunk
            text += chunk
    finally:
        stream.sock.close()
    shown: set[int] = set()
    frames = [b for b in text.decode().split("\n\n") if b.startswith("event: ")]
    for block in frames:
        event, data = block.split("\n", 1)
        payload = json.loads(data[len("data: ") :])
        if event == "event: game":
            assert payload["kind"] not in ("hole", "autopost"), payload
            if payload["kind"] == "hand":
                shown = set()
            if payload["kind"] == "show":
                shown.add(payload["data"]["seat"])
        if event in ("event: view", "event: snapshot"):
            for player in payload["view"]["players"]:
                if any(card >= 0 for card in player["holecards"]):
                    assert player["seat"] in shown, (player, shown)
            assert all(e["kind"] not in ("hole", "autopost") for e in payload.get("events", []))
    # and the page of a spectator draws a seat's cards face up only once that seat
    # showed them in the hand drawn, through the next hands
    page.goto(hub.url(f"/game/{game['id']}"))
    page.wait_for_selector("#poker-table")
    # every change the page makes to its table is looked at (not a sample of them): a
    # showdown's faces may be on screen for a moment only
    page.evaluate("""() => {
      const faces = window.facesWatch = {seen: 0, bad: []};
      const check = () => {
        const events = GamePage.state.events, view = GamePage.state.view || {};
        const start = events.findIndex(e => e.kind === "hand" && e.data.handid === view.handid);
        const shown = new Set(events.slice(start + 1).filter(e => e.kind === "show").map(e => e.data.seat));
        for (const s of document.querySelectorAll(".poker-seat")) {
          if (!s.querySelector(".card[data-card]")) continue;
          faces.seen += 1;
          if (start >= 0 && !shown.has(Number(s.dataset.seat))) faces.bad.push([view.handid, s.dataset.seat]);
        }
      };
      new MutationObserver(check).observe(document.body,
        {childList: true, subtree: true, attributes: true});
      check();
    }""")
    hand_js = "() => (GamePage.state.view || {}).handid"
    for _ in range(3):  # three more hands
        hand = page.evaluate(hand_js)
        page.wait_for_function(f"h => ({hand_js[6:]}) !== h", arg=hand)
    watch = page.evaluate("() => window.facesWatch")
    assert watch["bad"] == []
    assert watch["seen"] > 0  # shown hands are drawn face up (the check looked at faces)


# -- 8 (continued). a full no-limit table on a phone (its table plays on: it comes last) ---


def test_a_six_seat_no_limit_table_on_a_phone_and_a_desktop(page, hub):
    log_in_new_account(page, hub, "sixer")
    create_in_lobby(
        page,
        hub,
        "texas-holdem",
        ["human"] + ["bot:caller"] * 5,
        {"action_time": 600, "showdown_pause": 1},
        variant="no-limit",
    )
    page.wait_for_url("**/game/*")
    # play (bounded) until a turn of ours offers a choice of amount: the no-limit form
    deadline = time.monotonic() + 120
    while page.locator("form.poker-form input.amount").count() == 0:
        assert time.monotonic() < deadline, "no bet or raise offered"
        page.wait_for_function(
            "() => document.querySelector('form.poker-form input.amount')"
            " || document.querySelector('button.poker-action')"
        )
        if page.locator("form.poker-form input.amount").count():
            break
        names = page.locator("button.poker-action").evaluate_all(
            "bs => bs.map(b => b.dataset.name)"
        )
        choice = next(n for n in ("check", "call", "post", "show", "fold") if n in names)
        page.locator(f"button.poker-action[data-name='{choice}']").first.click()
    assert page.locator(".poker-seat").count() == 6
    check_page(page, "holdem-six-seats-my-turn")
    page.click("#leave")
