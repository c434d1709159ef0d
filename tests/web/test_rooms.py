"""Playing like the best rooms (issue 35), in a real Chromium against a real hub: the
poker table drawn as a table for 2 to 10 seats (a phone shows it whole with the action
bar fixed at the bottom), blinds that post themselves, sitting out and in, mucking
without being asked, pre-actions, the time bank on the clock, the hand replayer,
sounds, premoves on the morris board, a creator cancelling a waiting game, the rules
pages, tables that end, and tournament pages that show their format's columns.

Every page is checked at 390×844 and 1366×900 (layout and axe-core,
:func:`.pagecheck.check_page`), with screenshots in ``test-artifacts/screenshots/``.
Conditions are polled with bounded waits; nothing is timed.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.support import wait_until

from .conftest import new_page, start_hub
from .pagecheck import DESKTOP, PHONE, check_page, settle
from .test_browser import create_account, create_in_lobby, notices, play_poker_hand
from .test_play_web import assert_in_words, log_lines
from .test_web_api import Browser

pytestmark = pytest.mark.browser

#: seconds a chip table with nobody at it plays on in this module's hub
UNATTENDED = 3


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """One hub for the module; tables nobody sits at close after a few seconds."""
    running = start_hub(
        tmp_path_factory.mktemp("hub"), extra=["--set", f"unattended_seconds={UNATTENDED}"]
    )
    try:
        yield running
    finally:
        running.stop()
    assert running.errors() == [], running.log()


def write(page, method: str, path: str, body=None):
    """A write of the page's own session (``Hub.write``: the CSRF token first)."""
    return page.evaluate("([m, p, b]) => Hub.write(m, p, b)", [method, path, body])


def table(page, hub, seats: list[str], **options) -> str:
    """Create a table from the page's session with its person in seat 0; open it."""
    body = {"type": "texas-holdem", "seats": seats, "options": options, "sit": 0}
    game = write(page, "POST", "/api/games", body)
    page.goto(hub.url(f"/game/{game['id']}"))
    page.wait_for_selector("#poker-table .poker-seat.mine")
    return game["id"]


def person(hub, name: str) -> Browser:
    """Another player: an HTTP session logged in with a new account."""
    other = Browser(hub)
    other.start()
    status, _ = other.call("POST", "/api/accounts", {"name": name, "password": name + "-pw1"})
    assert status == 201
    return other


def view_of(hub, game_id: str) -> dict:
    return hub.get_json(f"/api/games/{game_id}")["view"]


def player(hub, game_id: str, seat: int) -> dict:
    return next(p for p in view_of(hub, game_id)["players"] if p["seat"] == seat)


def my_turn(page, seconds: float = 60) -> list[str]:
    """Wait for our poker buttons; their action names."""
    page.wait_for_selector("button.poker-action", timeout=seconds * 1000)
    return page.locator("button.poker-action").evaluate_all("bs => bs.map(b => b.dataset.name)")


def click(page, name: str) -> None:
    page.locator(f"button.poker-action[data-name='{name}']").first.click()
    assert page.locator(".notice.error").count() == 0, notices(page)


# -- the table ---------------------------------------------------------------------------

#: in the page: where the table's parts are (client rectangles)
PLACES = """() => {
  const box = e => { const r = e.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2,
    top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  const seats = [...document.querySelectorAll('.poker-seat')].map(s => ({seat: +s.dataset.seat, mine: s.classList.contains('mine'), ...box(s)}));
  const bar = document.getElementById('actions-box');
  return {table: box(document.getElementById('poker-table')), seats, pot: box(document.getElementById('pot')),
    board: box(document.getElementById('board-cards')), bar: box(bar), fixed: getComputedStyle(bar).position === 'fixed',
    dealer: document.querySelectorAll('.dealer-button').length, blinds: document.querySelectorAll('.bet .blind-mark').length,
    bets: document.querySelectorAll('.bet').length, height: innerHeight, scroll: scrollY};
}"""


def test_a_poker_table_drawn_as_a_table_for_two_to_ten_seats(page, hub):
    create_account(page, hub, "tabler", "tabler-pw1")
    for count in range(2, 11):
        game = table(
            page, hub, ["human"] + ["bot:caller"] * (count - 1),
            stakes="1/2", buyin="50", action_time=600, showdown_pause=1,
        )  # fmt: skip
        my_turn(page)
        page.set_viewport_size(DESKTOP)
        settle(page)
        at = page.evaluate(PLACES)
        assert len(at["seats"]) == count
        mine = next(s for s in at["seats"] if s["mine"])
        t = at["table"]
        # our seat at the bottom, in the middle; pot and board in the middle of the table
        assert mine["y"] == max(s["y"] for s in at["seats"])
        assert abs(mine["x"] - (t["left"] + t["right"]) / 2) < 4
        for middle in (at["pot"], at["board"]):
            assert (
                t["top"] + 0.25 * (t["bottom"] - t["top"])
                < middle["y"]
                < t["bottom"] - 0.25 * (t["bottom"] - t["top"])
            )
            assert abs(middle["x"] - (t["left"] + t["right"]) / 2) < 4
        # the dealer button, the blinds in front of their seats, and the bets
        assert at["dealer"] == 1 and at["blinds"] >= 1 and at["bets"] >= 2
        check_page(page, f"poker-table-{count}-seats")
        # a phone: the whole table and our buttons in one screen, the buttons fixed
        # at the bottom
        page.set_viewport_size(PHONE)
        page.evaluate("() => scrollTo(0, 0)")
        settle(page)
        at = page.evaluate(PLACES)
        assert at["fixed"] and abs(at["bar"]["bottom"] - at["height"]) < 2, at["bar"]
        assert at["table"]["top"] >= 0 and at["table"]["bottom"] <= at["bar"]["top"], (count, at)
        assert page.locator("#actions-box button.poker-action").first.is_visible()
        page.set_viewport_size(DESKTOP)
        page.click("#leave")
        wait_until(lambda game=game: player_gone(hub, game), "left the table", 60)


def player_gone(hub, game_id: str) -> bool:
    return all(
        s["player"] != "tabler" or not s["present"]
        for s in hub.get_json(f"/api/games/{game_id}")["seats"]
    )


# -- blinds, sitting out, mucking ------------------------------------------------------------


def test_blinds_post_themselves_and_the_switches_sit_out_and_muck(page, hub):
    create_account(page, hub, "poster", "poster-pw1")
    # the lobby's form (people's defaults: blinds posted for you)
    create_in_lobby(
        page,
        hub,
        "texas-holdem",
        ["human", "bot:caller"],
        {"action_time": 600, "showdown_pause": 1},
    )
    page.wait_for_url("**/game/*")
    game = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("#opt-autopost")
    assert page.locator("#opt-autopost").is_checked()

    def no_post(names):
        assert "post" not in names, "asked to post a blind"
        return False

    for _ in range(2):  # two hands: we are the small and the big blind once each
        play_poker_hand(page, on_turn=no_post)
        page.wait_for_function("() => !document.querySelector('#last-hand') || true")
        wait_until(lambda: view_of(hub, game)["inhand"], "the next hand", 30)
    check_page(page, "poker-switches")
    # the switch off: the next blind is asked for
    page.locator("#opt-autopost").uncheck()
    wait_until(lambda: player(hub, game, 0)["autopost"] is False, "autopost off", 20)
    asked = []
    for _ in range(40):
        names = my_turn(page)
        if "post" in names:
            asked.append(names)
            break
        click(page, next(n for n in ("check", "call", "show", "muck", "fold") if n in names))
    assert asked, "never asked to post"
    check_page(page, "poker-blind-asked")
    click(page, "post")
    page.locator("#opt-autopost").check()
    wait_until(lambda: player(hub, game, 0)["autopost"] is True, "autopost on", 20)
    # muck losing hands: the preference reaches the table
    page.locator("#opt-automuck").check()
    wait_until(lambda: player(hub, game, 0)["automuck"] is True, "automuck on", 20)
    # sit out next hand: at the end of this hand we sit out, then sit in again
    page.locator("#opt-sitout").check()
    wait_until(
        lambda: player(hub, game, 0)["sitoutnext"] or player(hub, game, 0)["state"] == "sittingout",
        "sit out",
        20,
    )
    for _ in range(40):
        if player(hub, game, 0)["state"] == "sittingout":
            break
        if page.locator("button.poker-action:not(#sit-in)").count():
            names = page.locator("button.poker-action").evaluate_all(
                "bs => bs.map(b => b.dataset.name)"
            )
            choice = next(
                (n for n in ("check", "call", "show", "muck", "fold") if n in names), None
            )
            if choice:
                click(page, choice)
        time.sleep(0.2)
    page.wait_for_selector("#sit-in")
    assert "sitting out" in page.inner_text(".poker-seat.mine")
    check_page(page, "poker-sitting-out")
    page.click("#sit-in")
    wait_until(lambda: player(hub, game, 0)["state"] != "sittingout", "sat in", 30)
    page.wait_for_selector("#sit-in", state="detached")
    assert page.locator(".notice.error").count() == 0, notices(page)


def test_a_web_player_sat_out_by_a_timeout_sits_in_again(page, hub):
    create_account(page, hub, "sleeper", "sleeper-pw1")
    game = table(
        page, hub, ["human", "bot:caller"], action_time=1, auto_post=True, showdown_pause=1
    )
    # we never act: the clock runs out, we fold and sit out
    wait_until(lambda: player(hub, game, 0)["state"] == "sittingout", "sat out by a timeout", 60)
    page.wait_for_selector("#sit-in")
    check_page(page, "poker-timed-out")
    page.click("#sit-in")
    wait_until(lambda: player(hub, game, 0)["state"] != "sittingout", "back in", 30)


# -- pre-actions and the time bank --------------------------------------------------------


def heads_up_with(page, hub, me: str, them: str, **options):
    """A table: the page's player (seat 0) and another person (seat 1, the button: it
    acts first before the flop)."""
    create_account(page, hub, me, me + "-pw1")
    other = person(hub, them)
    game = table(
        page, hub, ["human", "human"], auto_post=True, first_button=1, showdown_pause=1, **options
    )
    status, answer = other.call("POST", f"/api/games/{game}/seats", {"seat": 1})
    assert status == 200, answer
    wait_until(lambda: view_of(hub, game)["inhand"], "the first hand", 30)
    return game, other


def act(other: Browser, game: str, name: str) -> None:
    status, answer = other.call("POST", f"/api/games/{game}/actions", {"action": {"name": name}})
    assert status == 200, answer


def test_pre_actions_are_played_the_moment_the_turn_comes(page, hub):
    game, bob = heads_up_with(page, hub, "preact", "bob-pre", action_time=600)
    assert view_of(hub, game)["currentplayerseat"] == 1  # bob's turn: we choose ahead
    page.wait_for_selector("#pre-actions")
    page.locator("#pre-call-any").check()
    page.wait_for_selector("#premove")
    assert "call any" in page.inner_text("#premove")
    check_page(page, "poker-pre-actions")
    act(bob, game, "raise")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#log .log-line')].some(l => l.textContent === 'preact calls 10')"
    )
    assert page.locator("#premove").count() == 0  # played once, gone
    # after the flop we act first: check; then "fold to any bet" answers bob's bet
    wait_until(lambda: view_of(hub, game)["currentplayerseat"] == 0, "our turn after the flop", 30)
    names = my_turn(page)
    click(page, "check" if "check" in names else "call")
    page.wait_for_selector("#pre-fold-to-any-bet")
    page.locator("#pre-fold-to-any-bet").check()
    act(bob, game, "bet")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#log .log-line')].some(l => l.textContent === 'preact folds')"
    )
    # a check/fold chosen but the turn is a blind's: not legal then, it is dropped
    assert_in_words(log_lines(page))


def test_the_time_bank_keeps_the_clock_going_and_the_clock_shows_it(page, hub):
    game, bob = heads_up_with(page, hub, "banker", "bob-bank", action_time=3, time_bank=30)
    act(bob, game, "call")  # our option, 3 s to act, then the bank
    page.wait_for_selector("#turn.mine")
    assert "+30 s time bank" in page.inner_text("#turn")
    page.wait_for_function(
        "() => document.querySelector('#turn').textContent.includes('on the time bank')",
        timeout=30_000,
    )
    page.wait_for_selector(".poker-seat.mine.banking")
    seconds = int(page.locator("#turn .clock").get_attribute("data-seconds"))
    assert 10 < seconds <= 30  # the bank's seconds, not the 3 s to act
    check_page(page, "poker-time-bank")
    click(page, "check")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#log .log-line')].some(l => l.textContent === 'banker checks')"
    )
    assert view_of(hub, game)["timebanks"]["0"] < 30_000  # what we used of it is gone


# -- the hand replayer and sounds -----------------------------------------------------------


def test_the_hand_replayer_beside_the_table_steps_through_the_last_hands(page, hub):
    create_account(page, hub, "replayer", "replayer-pw1")
    table(page, hub, ["human", "bot:caller"], auto_post=True, action_time=600, showdown_pause=1)
    for _ in range(80):  # play (bounded) until two hands are over
        if page.locator("#hand-replay-hand option").count() >= 2:
            break
        page.wait_for_function(
            "() => document.querySelectorAll('#hand-replay-hand option').length >= 2"
            " || document.querySelector('button.poker-action')"
        )
        names = page.locator("button.poker-action").evaluate_all(
            "bs => bs.map(b => b.dataset.name)"
        )
        choice = next((n for n in ("check", "call", "show", "muck", "fold") if n in names), None)
        if choice:
            click(page, choice)
    assert page.locator("#hand-replay-hand option").count() >= 2, "two hands"
    replayer = page.locator("#hand-replay")
    assert replayer.evaluate("d => d.open")  # beside the table, open on a desktop
    box, seats = (
        page.locator("#hand-replay").bounding_box(),
        page.locator("#poker-table").bounding_box(),
    )
    assert box["x"] > seats["x"] + seats["width"] - 1  # beside it, to the right
    page.select_option("#hand-replay-hand", "0")  # the first hand
    total = int(page.inner_text("#hand-replay-step").split()[-1])
    for _ in range(total - 1):
        page.click("#hand-replay-next")
    lines = page.locator("#hand-replay-log div").all_inner_texts()
    assert (
        len(lines) == total
        and lines[0].startswith("Hand 1:")
        and lines[-1].startswith("Hand 1 is over")
    )
    assert_in_words(lines)
    check_page(page, "poker-replayer")
    # the replayer keeps the last 20 hands
    kept = page.evaluate(
        """() => {
          const r = GameRenderers["texas-holdem"], events = [];
          for (let n = 1; n <= 25; n++) events.push({kind: "hand", data: {handid: "x-" + n, number: n, button: 0}},
            {kind: "handover", data: {handid: "x-" + n, deltas: {"0": "1", "1": "-1"}, names: {}}});
          r.reset(events, GamePage.state.game); GamePage.render();
          return [...document.querySelectorAll('#hand-replay-hand option')].map(o => o.textContent);
        }"""
    )
    assert len(kept) == 20 and kept[0] == "hand 25" and kept[-1] == "hand 6"


def test_sounds_are_off_by_default_and_chime_when_the_turn_comes(page, hub):
    page.goto(hub.url("/"))
    game = write(page, "POST", "/api/games", {"type": "nmmorris", "seats": ["human", "bot:morris-random"],
                 "options": {"move_time_ms": 60000}, "sit": 0})  # fmt: skip
    page.goto(hub.url(f"/game/{game['id']}"))
    page.wait_for_selector("#sounds")
    assert not page.locator("#sounds").is_checked()  # off by default
    assert page.evaluate("() => GamePage.state.sounded || 0") == 0
    check_page(page, "game-sounds-switch")
    page.locator("#sounds").check()  # a chime says it is on
    assert page.evaluate("() => GamePage.state.sounded") == 1
    page.locator("g.pt.clickable").first.locator("circle.hit").click()  # our move
    page.wait_for_function("() => GamePage.state.sounded >= 2", timeout=30_000)  # our turn again
    page.reload()
    page.wait_for_selector("#sounds")
    assert page.locator("#sounds").is_checked()  # remembered in this browser


# -- premoves -----------------------------------------------------------------------------------


def test_a_morris_premove_is_queued_sent_when_the_turn_comes_and_cancelable(page, hub):
    page.goto(hub.url("/"))
    game = write(page, "POST", "/api/games", {"type": "nmmorris", "seats": ["human", "open"],
                 "options": {"move_time_ms": 120000}, "sit": 0})["id"]  # fmt: skip
    bob = Browser(hub)
    bob.start()
    assert bob.call("POST", f"/api/games/{game}/seats", {"seat": 1})[0] == 200
    page.goto(hub.url(f"/game/{game}"))
    point = lambda p: page.locator(f"g.pt[data-point='{p}'] circle.hit")  # noqa: E731
    page.wait_for_selector("g.pt.clickable")
    point("A0").click()  # our move: white places on A0
    page.wait_for_selector("g.pt[data-point='A0'][data-owner='0']")
    # bob's turn: our click queues a premove
    point("A2").click()
    page.wait_for_selector("#premove")
    assert "place on A2" in page.inner_text("#premove")
    assert page.locator("g.pt.premoved[data-point='A2']").count() == 1
    check_page(page, "morris-premove")
    page.click("#premove-cancel")
    page.wait_for_selector("#premove", state="detached")
    point("A2").click()  # queued again
    page.wait_for_selector("#premove")
    assert bob.call("POST", f"/api/games/{game}/actions", {"action": {"move": "B1"}})[0] == 200
    page.wait_for_selector("g.pt[data-point='A2'][data-owner='0']")  # sent as our turn came
    # a premove the opponent makes illegal is dropped, with a word
    point("B3").click()
    page.wait_for_selector("#premove")
    assert bob.call("POST", f"/api/games/{game}/actions", {"action": {"move": "B3"}})[0] == 200
    page.wait_for_selector(".notice.ok:has-text('not legal now')")
    assert page.locator("g.pt[data-point='B3'][data-owner='1']").count() == 1
    assert page.locator("g.pt.clickable").count() > 0  # our turn, nothing sent for us


# -- cancelling, rules, the lobby ---------------------------------------------------------------


def test_a_creator_cancels_a_waiting_game_from_its_page_and_the_lobby(page, browser, hub):
    page.goto(hub.url("/"))
    made = write(
        page, "POST", "/api/games", {"type": "nmmorris", "seats": ["human", "open"], "sit": 0}
    )
    page.goto(hub.url(f"/game/{made['id']}"))
    page.wait_for_selector("#cancel-game")
    check_page(page, "game-cancel-offered")
    page.click("#cancel-game")
    page.wait_for_selector("#turn:has-text('You cancelled this game')")
    assert hub.request("GET", f"/api/games/{made['id']}")[0] == 404
    # in the lobby: our own waiting game has a cancel button, another's has none
    mine = write(page, "POST", "/api/games", {"type": "nmmorris", "seats": ["open", "open"]})
    other = new_page(browser)
    try:
        other.goto(hub.url("/"))
        theirs = other.evaluate(
            "() => Hub.write('POST', '/api/games', {type: 'nmmorris', seats: ['open', 'open']})"
        )
        page.goto(hub.url("/"))
        page.click(f"#games tr[data-id='{theirs['id']}']")
        page.wait_for_selector("#open-game")
        assert page.locator("#cancel-game").count() == 0
        refused = page.evaluate(
            f"() => Hub.write('DELETE', '/api/games/{theirs['id']}').then(() => 'done', e => e.status)"
        )
        assert refused == 403
        page.click(f"#games tr[data-id='{mine['id']}']")
        page.wait_for_selector("#cancel-game")
        check_page(page, "lobby-cancel-offered")
        page.click("#cancel-game")
        page.wait_for_selector(f"#games tr[data-id='{mine['id']}']", state="detached")
        assert hub.request("GET", f"/api/games/{mine['id']}")[0] == 404
        assert (
            other.evaluate(f"() => Hub.write('DELETE', '/api/games/{theirs['id']}')")["cancelled"]
            == theirs["id"]
        )
    finally:
        other.context.close()
    # a game that runs is not cancelled
    running = write(
        page,
        "POST",
        "/api/games",
        {"type": "nmmorris", "seats": ["human", "bot:morris-random"], "sit": 0},
    )
    refused = page.evaluate(
        f"() => Hub.write('DELETE', '/api/games/{running['id']}').then(() => 'done', e => e.status)"
    )
    assert refused == 409


def test_every_game_has_a_rules_page_shipped_by_its_plugin(page, hub):
    types = hub.get_json("/api/types")["types"]
    page.goto(hub.url("/rules"))
    page.wait_for_selector("#rule-types a")
    listed = page.locator("#rule-types a").all_inner_texts()
    assert {t["name"] for t in types if t["rules"]} <= set(listed)
    page.click("#rule-types a:text-is('texas-holdem')")
    page.wait_for_selector("#rules-body h2")
    assert page.inner_text("#title") == "Rules of texas-holdem"
    assert (
        page.locator("#rules-body h3").count() >= 3 and page.locator("#rules-body li").count() >= 5
    )
    check_page(page, "rules-holdem")
    page.goto(hub.url("/rules/nmmorris"))
    page.wait_for_selector("#rules-body h2")
    check_page(page, "rules-morris")
    # the game page and the lobby's form link them
    page.goto(hub.url("/"))
    page.wait_for_selector("#c-rules")
    assert page.get_attribute("#c-rules", "href").startswith("/rules/")
    made = write(
        page, "POST", "/api/games", {"type": "nmmorris", "seats": ["human", "open"], "sit": 0}
    )
    page.goto(hub.url(f"/game/{made['id']}"))
    page.wait_for_selector("#rules-link")
    assert page.get_attribute("#rules-link", "href") == "/rules/nmmorris"


def test_the_lobby_proposes_the_first_installed_game_a_guest_can_play(page, hub):
    types = hub.get_json("/api/types")["types"]
    first = next(t["name"] for t in types if not t["needs_account"] and t["bots"])
    page.goto(hub.url("/"))
    page.wait_for_selector("#c-type option", state="attached")
    assert page.locator("#c-type").input_value() == first


# -- tables that end ------------------------------------------------------------------------------


def test_tables_nobody_sits_at_close_and_bots_only_tables_say_so(page, hub):
    create_account(page, hub, "leaver", "leaver-pw1")
    # a table of bots on purpose: the form says so, the lobby shows it
    page.goto(hub.url("/"))
    page.wait_for_selector("#c-type option[value='texas-holdem']", state="attached")
    page.select_option("#c-type", "texas-holdem")
    if not page.locator("#c-options-box").evaluate("d => d.open"):
        page.click("#c-options-box summary")
    page.select_option("#c-broke-bots", "leave")
    page.locator("#c-bots-only").check()
    rows = page.locator("#c-seats select")
    for i in range(rows.count()):
        rows.nth(i).select_option("bot:caller")
    page.click("#c-submit")
    page.wait_for_selector("#games td .badge:text-is('bots only')")
    check_page(page, "lobby-bots-only")
    bots_only = next(g for g in hub.get_json("/api/games") if g["bots_only"])
    # a table we leave closes when nobody sits there any more
    game = table(page, hub, ["human", "bot:caller", "bot:caller"], auto_post=True, showdown_pause=1)
    page.click("#leave")
    page.wait_for_selector("#game-state:text-is('over')", timeout=(UNATTENDED + 60) * 1000)
    page.wait_for_function(
        "() => [...document.querySelectorAll('#log .log-line')].some(l => l.textContent.startsWith('The table closes'))"
    )
    assert hub.get_json(f"/api/games/{game}")["state"] == "over"
    check_page(page, "poker-table-closed")
    # the bots-only table made on purpose plays on
    assert hub.get_json(f"/api/games/{bots_only['id']}")["state"] == "running"


# -- tournaments and finished games -------------------------------------------------------------


def test_tournament_pages_show_their_formats_columns_and_who_withdrew(page, hub):
    status, raw, _ = hub.request(
        "POST", "/api/tournaments",
        {"type": "nmmorris", "format": "swiss", "rounds": 2, "max_entrants": 4, "grace": 2,
         "options": {"move_time_ms": 300}, "bots": ["morris-random", "morris-random", "morris-random"]},
        admin=True,
    )  # fmt: skip
    assert status == 201, raw
    swiss = json.loads(raw)
    status, raw, _ = hub.request(
        "POST",
        f"/api/tournaments/{swiss['id']}/entries",
        {"kind": "client", "name": "ghost", "frontend": "mnm"},
        admin=True,
    )
    assert status in (200, 201), raw
    wait_until(
        lambda: hub.get_json(f"/api/tournaments/{swiss['id']}")["state"] == "finished",
        "swiss over",
        120,
    )
    page.goto(hub.url(f"/tournaments/{swiss['id']}"))
    page.wait_for_selector("#standings tbody tr")
    heads = page.locator("#standings thead th").all_inner_texts()
    assert heads == ["#", "Player", "Points", "Buchholz", "Wins", "Games", "Byes"]
    ghost = page.locator("#standings tbody tr", has_text="ghost")
    assert "withdrawn" in ghost.inner_text()
    rounds = hub.get_json(f"/api/tournaments/{swiss['id']}")["games"]
    ghost_id = next(
        e["id"]
        for e in hub.get_json(f"/api/tournaments/{swiss['id']}")["entries"]
        if e["name"] == "ghost"
    )
    assert [g["round"] for g in rounds if ghost_id in g["entries"]] == [1]  # never paired again
    check_page(page, "tournament-swiss-withdrawn")
    status, raw, _ = hub.request(
        "POST", "/api/tournaments",
        {"type": "holdem-sng", "format": "sit-and-go", "max_entrants": 3, "bots": ["caller", "caller", "caller"],
         "options": {"hands_per_level": 2}},
        admin=True,
    )  # fmt: skip
    assert status == 201, raw
    sng = json.loads(raw)
    page.goto(hub.url(f"/tournaments/{sng['id']}"))
    page.wait_for_selector("#standings tbody tr")
    assert page.locator("#standings thead th").all_inner_texts() == ["#", "Player", "Points"]
    check_page(page, "tournament-sit-and-go")


def test_a_finished_games_details_do_not_offer_joining(page, hub):
    page.goto(hub.url("/"))
    made = write(page, "POST", "/api/games", {"type": "nmmorris", "seats": ["bot:morris-random", "bot:morris-random"],
                 "options": {"move_time_ms": 200}})  # fmt: skip
    wait_until(
        lambda: hub.get_json(f"/api/games/{made['id']}")["state"] == "over", "game over", 120
    )
    page.goto(hub.url("/"))
    page.click(f"#games tr[data-id='{made['id']}']")
    page.wait_for_selector("#open-replay")
    details = page.inner_text("#details")
    assert "MNM clients" not in details and "paste" not in details
    assert page.locator("#details button.take-seat, #details .give-bot").count() == 0
    check_page(page, "lobby-finished-details")
    page.goto(hub.url(f"/game/{made['id']}"))
    page.wait_for_selector("#result-summary")
    assert "MNM Game-ID" not in page.inner_text("#subtitle")
    assert page.locator("button.take-seat").count() == 0
