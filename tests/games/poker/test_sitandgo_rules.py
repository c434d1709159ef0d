"""The sit-and-go's own rules (pure): the blind schedule and the places of players
busted in one hand; and the game on a clock: seats, away players, refusals, the end."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from lxml import etree
from twisted.internet.task import Clock

from bots.poker.plugin import CallerFactory, RaiserFactory, RandomFactory
from games.poker.adapters import SitAndGoXMLAdapter
from games.poker.rules import RuleError, Table, TableConfig
from games.poker.rules.tournament import DEFAULT_LEVELS, Schedule, bust_places, parse_levels
from games.poker.sitandgo import HoldemSitAndGoFactory
from hub.frontends.xml.adapters import adapter_for, parse_action, seats_on_join
from hub.model import GAME_OVER, SEAT_OPEN, GameConfig, GameContext, IllegalAction
from hub.play.lobby import Lobby
from hub.seatops import AddBot, TakeSeat
from tests.games.poker.test_adapters import SCHEMA, Watcher, params
from tests.support import DictRegistry

D = Decimal

# -- the schedule ---------------------------------------------------------------------


def test_levels_rise_every_n_hands_and_double_past_the_last():
    s = Schedule.of("20/40,30/60,50/100", 3)
    assert [s.level_number(h) for h in range(1, 11)] == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4]
    assert s.level_of_hand(1).stakes == "20/40"
    assert (s.level(1).small_blind, s.level(1).big_blind) == (D(10), D(20))
    assert s.level_of_hand(4).stakes == "30/60"
    assert s.level(3).stakes == "50/100"
    assert s.level(4).stakes == "100/200" and s.level(6).stakes == "400/800"
    assert [s.hands_left(h) for h in (1, 2, 3, 4)] == [2, 1, 0, 2]
    assert s.level(2).to_dict() == {
        "level": 2, "stakes": "30/60", "smallbet": "30", "bigbet": "60",
        "smallblind": "15", "bigblind": "30",
    }  # fmt: skip


def test_the_default_levels_rise():
    levels = parse_levels(DEFAULT_LEVELS)
    assert levels[0] == (D(20), D(40)) and len(levels) == 12
    assert all(a[0] < b[0] for a, b in zip(levels, levels[1:], strict=False))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "levels are written"),
        ("20/40,", "level 2 ('') is not written"),
        ("20/40/80", "is not written small/big"),
        ("21/42", "must be even"),
        ("20/10", "big bet 10 is less than its small bet 20"),
        ("40/80,20/40", "level 2 (20/40) is lower than level 1"),
        ("0/0", "positive whole number"),
        ("x/40", "not a number"),
        (",".join(["20/40"] * 101), "at most 100 levels"),
    ],
)
def test_bad_levels_are_refused_with_a_reason(text, words):
    with pytest.raises(ValueError) as e:
        parse_levels(text)
    assert words in str(e.value)


def test_a_schedule_needs_hands_per_level():
    with pytest.raises(ValueError):
        Schedule.of("20/40", 0)


# -- places of simultaneous busts ------------------------------------------------------


def test_more_chips_at_the_start_of_the_hand_place_higher():
    # three busted in one hand while two others hold chips: places 3, 4, 5
    places = bust_places([1, 4, 5], {1: D(50), 4: D(300), 5: D(120)}, remaining=2)
    assert places == {4: 3, 5: 4, 1: 5}


def test_equal_stacks_at_the_start_tie_on_the_better_place():
    places = bust_places([0, 2, 3], {0: D(100), 2: D(40), 3: D(100)}, remaining=3)
    assert places == {0: 4, 3: 4, 2: 6}
    assert bust_places([2, 1], {1: D(5), 2: D(5)}, remaining=1) == {1: 2, 2: 2}
    assert bust_places([], {}, remaining=4) == {}


# -- the engine takes new stakes between hands -----------------------------------------


def test_the_table_changes_its_stakes_between_hands_only():
    table = Table(TableConfig(small_bet=D(20), seats=3))
    table.reconfigure(TableConfig(small_bet=D(40), seats=3))
    assert table.config.big_blind == D(40)
    with pytest.raises(RuleError):
        table.reconfigure(TableConfig(small_bet=D(40), seats=4))
    for seat, name in enumerate("abc"):
        table.seat_player(seat, name, 1000)
    table.start_hand(list(range(52)))
    with pytest.raises(RuleError, match="between hands"):
        table.reconfigure(TableConfig(small_bet=D(80), seats=3))


# -- the game on a clock ---------------------------------------------------------------


def make(seats=3, **options):
    clock, events = Clock(), []
    ctx = GameContext(clock=clock, emit=events.append, rng=random.Random(4), game_id="sng")
    opts = {"showdown_pause": 1, "action_time": 10, **options}
    game = HoldemSitAndGoFactory().create(GameConfig("t", None, seats, opts), ctx)
    return game, clock, events


def kinds(events, kind):
    return [e for e in events if e.kind == kind]


def test_the_first_hand_waits_for_every_seat_and_no_seat_is_taken_after():
    game, clock, events = make()
    game.seat_player(0, "ann")
    game.seat_player(1, "bob")
    clock.advance(5)
    assert not kinds(events, "hand") and game.state == "waiting"
    game.leave(1)  # before the start the seat opens again
    assert kinds(events, SEAT_OPEN)[-1].data == {"seat": 1}
    game.seat_player(1, "bob", buyin="1500")  # the starting chips may be named
    with pytest.raises(IllegalAction, match="everyone starts with 1500"):
        game.seat_player(2, "cy", buyin="5000")
    game.seat_player(2, "cy")
    clock.advance(0)
    [level] = kinds(events, "level")
    assert level.data["level"] == 1 and level.data["stakes"] == "20/40"
    assert kinds(events, "hand") and game.state == "running"
    assert events.index(level) < events.index(kinds(events, "hand")[0])
    with pytest.raises(IllegalAction, match="has started"):
        game.seat_player(0, "dee")
    view = game.view(None)["tournament"]
    assert view["started"] and view["players_left"] == 3 and view["starting_chips"] == "1500"
    assert view["level"]["stakes"] == "20/40" and view["next_level_in"] == 9


def test_blinds_are_posted_for_everyone_and_sitting_out_is_refused():
    game, clock, events = make()
    for seat, name in enumerate(("ann", "bob", "cy")):
        game.seat_player(seat, name)
    clock.advance(0)
    assert not kinds(events, "turn") or all(
        e.data["decision"] != "blind" for e in kinds(events, "turn")
    )
    seat = game.table.turn.seat
    with pytest.raises(IllegalAction, match="dealt every hand"):
        game.act(seat, {"name": "sitout"})
    with pytest.raises(IllegalAction, match="blinds are posted"):
        game.act(seat, {"name": "post", "amount": "0"})
    # a player who times out is dealt in again the next hand
    clock.advance(10)
    assert kinds(events, "timeout")[0].data["seat"] == seat
    for _ in range(100):
        if game.table.hands_played >= 2:
            break
        clock.advance(1)
    assert seat in game.table.hand.seats


def test_a_player_who_leaves_is_away_and_folds_at_once_until_back():
    game, clock, events = make(seats=2)
    game.seat_player(0, "ann")
    game.seat_player(1, "bob")
    clock.advance(0)
    seat = game.table.turn.seat
    game.leave(seat)
    assert kinds(events, "away")[-1].data == {"seat": seat, "name": "ann bob".split()[seat],
                                              "away": True}  # fmt: skip
    clock.advance(0)  # no time to act: the game decides for the away player
    assert kinds(events, "timeout")[-1].data["seat"] == seat
    assert seat in game.table.players  # still in the tournament, with its chips
    game.act(seat, {"name": "sitin"})
    assert kinds(events, "away")[-1].data["away"] is False
    with pytest.raises(IllegalAction, match="already sitting in"):
        game.act(seat, {"name": "sitin"})


def test_max_hands_ends_the_tournament_with_places_by_stacks():
    game, clock, events = make(seats=3, max_hands=2)
    for seat, name in enumerate(("ann", "bob", "cy")):
        game.seat_player(seat, name)
    for _ in range(200):
        if game.result() is not None:
            break
        clock.advance(1)
    result = game.result()
    assert result is not None and result["hands"] == 2 and "2 hands played" in result["summary"]
    stacks = {s: p.stack for s, p in game.table.players.items()}
    assert sum(stacks.values()) == 4500
    for a in stacks:
        for b in stacks:
            if stacks[a] > stacks[b]:
                assert result["places"][a] < result["places"][b]
            if stacks[a] == stacks[b]:
                assert result["places"][a] == result["places"][b]
    assert kinds(events, GAME_OVER)[0].data["result"] == result


def test_stopping_a_tournament_places_the_players_by_their_stacks():
    game, clock, events = make(seats=2)
    game.seat_player(0, "ann")
    game.seat_player(1, "bob")
    clock.advance(0)
    game.stop()  # in the middle of a hand: its chips go back first
    result = game.result()
    assert sorted(result["places"]) == [1, 1] and "stopped" in result["summary"]
    assert sum(p.stack for p in game.table.players.values()) == 3000
    assert clock.getDelayedCalls() == []


def test_rating_ranks_are_the_places():
    factory = HoldemSitAndGoFactory()
    assert factory.rating_ranks({"ranks": [2, 0, 1, 1]}) == [2, 0, 1, 1]
    assert factory.rating_ranks({"ranks": [None, 0]}) is None
    assert factory.rating_ranks({}) is None
    assert factory.rating_variant("fixed-limit") == ""


# -- over XML ------------------------------------------------------------------------


def test_xml_joins_take_a_seat_and_carry_no_buy_in():
    adapter = adapter_for(HoldemSitAndGoFactory())
    assert isinstance(adapter, SitAndGoXMLAdapter) and seats_on_join(adapter)
    take = params(
        "<texasmessage><action><index>11</index><amount>200</amount></action></texasmessage>"
    )
    assert parse_action(adapter, take) == TakeSeat(None, None)
    bot = "<index>13</index><name>caller</name><seat>2</seat>"
    assert parse_action(
        adapter, params(f"<texasmessage><action>{bot}</action></texasmessage>")
    ) == AddBot("caller", 2)


class SNGWatcher(Watcher):
    def __init__(self, game, seat):
        super().__init__(game, seat)
        self.adapter = SitAndGoXMLAdapter()


def test_every_xml_message_of_a_tournament_is_valid_and_private():
    registry = DictRegistry(
        games=[HoldemSitAndGoFactory()], bots=[CallerFactory(), RaiserFactory(), RandomFactory()]
    )
    clock = Clock()
    lobby = Lobby(registry, clock, rng=random.Random(3))
    options = {"starting_chips": 200, "hands_per_level": 2, "showdown_pause": 1, "bot_seed": 2}
    game = lobby.create_game("holdem-sng", seats=["open"] * 3, options=options)
    watchers = [SNGWatcher(game, s) for s in range(3)] + [SNGWatcher(game, None)]
    for w in watchers:
        game.observe(w, w.seat)
    for seat, bot in enumerate(("caller", "raiser", "poker-random")):
        game.seat_bot(seat, bot)
    for _ in range(50_000):  # bounded
        if game.result() is not None:
            break
        clock.advance(0.5)
    assert game.result() is not None
    customs = set()
    for w in watchers:
        for msg in w.messages:
            assert SCHEMA.validate(msg), (etree.tostring(msg), SCHEMA.error_log.last_error)
            node = msg[0]
            if node.tag == "hand":
                assert int(node.get("seat")) == w.seat  # own hole cards only
            if node.tag == "event":
                customs.add((node.findtext("custom") or "").split(":")[0])
                for hand in node.iterfind("hand"):
                    cards = {int(c.text) for c in hand.iterfind("cards/card")}
                    if int(hand.get("seat")) >= 0 and node.get("type") != "5":
                        assert cards == {-1}
    assert {"level 1", "level 2", "eliminated"} <= customs
