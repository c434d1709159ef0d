"""The poker game plugin: timers on a clock, events, views, factories."""

from __future__ import annotations

import random
from decimal import Decimal as D

import pytest
from twisted.internet import task
from zope.interface.verify import verifyObject

from games.poker import rules as R
from games.poker import shuffle
from games.poker.server import FiveCardDrawFactory, TexasHoldemFactory
from hub.interfaces import IChipGame, IChipGameFactory, IGame, IGameFactory, IHandRecord
from hub.model import (
    GAME_OVER,
    OVER,
    RUNNING,
    TURN,
    WAITING,
    BadAction,
    GameConfig,
    GameContext,
    GameError,
    IllegalAction,
)


class Game:
    """A poker game on a task.Clock, with its events collected."""

    def __init__(self, seats=4, variant=None, factory=None, **options):
        self.clock = task.Clock()
        self.events = []
        ctx = GameContext(self.clock, self.events.append, random.Random(7), "g1")
        factory = factory or TexasHoldemFactory()
        self.game = factory.create(GameConfig("t", variant, seats, options), ctx)

    def kinds(self, kind):
        return [e for e in self.events if e.kind == kind]

    def sit(self, seat, name, buyin=None):
        """Seat ``name``, then end the reactor turn (the first hand is dealt then)."""
        self.game.seat_player(seat, name, buyin)
        self.clock.advance(0)

    def last_turn(self):
        return self.kinds(TURN)[-1].data

    def play_turn(self, choose=None):
        turn = self.game.table.turn
        legal = self.game.legal_actions(turn.seat)
        action = choose(legal) if choose else legal[0]
        self.game.act(
            turn.seat, {"name": action["name"], "amount": action.get("min", action.get("amount"))}
        )


def test_factories_provide_the_interface():
    for f, name, top, frontends in (
        (TexasHoldemFactory(), "texas-holdem", 10, {"xml", "web", "acpc"}),
        (FiveCardDrawFactory(), "five-card-draw", 6, {"xml", "web"}),
    ):
        verifyObject(IGameFactory, f)
        verifyObject(IChipGameFactory, f)
        verifyObject(IHandRecord, f)  # its stored hands in its words
        assert f.name == name and f.max_seats == top and f.min_seats == 2
        assert list(f.variants) == ["fixed-limit", "no-limit", "pot-limit"]
        assert set(f.frontends) == frontends
        assert f.adapter("acpc") is None or "acpc" in f.frontends
    g = Game()
    verifyObject(IGame, g.game)
    verifyObject(IChipGame, g.game)


def test_buyin_range_of_the_options():
    f = TexasHoldemFactory()
    r = f.buyin_range(GameConfig("t", None, 4, {"stakes": "1/2"}))
    assert (r.minimum, r.default, r.maximum) == (D(1), D(100), None)
    r = f.buyin_range(GameConfig("t", None, 4, {"min_buyin": 50, "buyin": "80", "max_buyin": 90}))
    assert (r.minimum, r.default, r.maximum) == (D(50), D(80), D(90))
    assert r.check(None) == D(80) and r.check("90") == D(90)
    with pytest.raises(IllegalAction):
        r.check("90.01")
    with pytest.raises(IllegalAction):
        r.check(49)
    for bad in ("x", "-1", 0, 1.5, True, "NaN"):
        with pytest.raises(BadAction):
            r.check(bad)
    with pytest.raises(GameError):
        f.buyin_range(GameConfig("t", None, 4, {"stakes": "abc"}))


def test_hands_wait_for_their_settlement_when_held():
    g = Game(seats=2, auto_post=True, showdown_pause=0)
    g.game.hold_hands()
    g.sit(0, "ann", "100")
    g.sit(1, "bob", "100")
    while not g.kinds("handover"):
        g.play_turn()
    hand = g.kinds("handover")[0].data["handid"]
    summary = g.game.hand_summary(hand)
    assert summary.hand == hand and {p.name for p in summary.players} == {"ann", "bob"}
    assert sum(p.winnings - p.money_in for p in summary.players) == 0
    # each seat's hole cards are its private part; the public record shows only those
    # shown down; the engine's whole record is sealed
    holes = dict(g.game.hand_record(hand)["hole"])
    assert {p.seat: p.private["hole"] for p in summary.players} == holes
    assert set(summary.record["shown"]) <= {str(s) for s in holes}
    for seat, cards in summary.record["shown"].items():
        assert cards == holes[int(seat)]
    assert summary.sealed["engine"]["hand_id"] == hand
    g.clock.advance(60)
    assert len(g.kinds("hand")) == 1 and g.game.table.turn is None  # no new deal yet
    # still running (the hand is being settled), with no time to the next hand
    assert g.game.state == RUNNING and g.game.view(None)["nexthand_ms"] is None
    g.game.settled("another hand")
    assert len(g.kinds("hand")) == 1
    g.game.settled(hand)
    assert len(g.kinds("hand")) == 2  # dealt at once: the pause is over
    assert [e.data["state"] for e in g.kinds("state")] == [RUNNING]  # never "waiting"


def test_a_settled_hand_after_which_nobody_can_play_leaves_the_table_waiting():
    g = Game(seats=2, auto_post=True, showdown_pause=0)
    g.game.hold_hands()
    g.sit(0, "ann", "100")
    g.sit(1, "bob", "100")
    g.game.leave(1)  # bob goes at the end of the hand
    while not g.kinds("handover"):
        g.play_turn()
    g.clock.advance(60)
    assert g.game.state == WAITING  # one player left: no hand to settle first
    g.game.settled(g.kinds("handover")[0].data["handid"])
    assert g.game.state == WAITING and len(g.kinds("hand")) == 1
    assert [e.data["state"] for e in g.kinds("state")] == [RUNNING, WAITING]


def test_bad_options_are_refused():
    with pytest.raises(GameError):
        Game(stakes="abc")
    with pytest.raises(GameError):
        Game(nonsense=1)
    with pytest.raises(GameError):
        Game(variant="omaha")
    with pytest.raises(GameError):
        Game(action_time=-1)


def test_a_hand_with_events_turns_and_private_hole_cards():
    g = Game(seats=3, auto_post=True)
    assert g.game.state == WAITING
    g.sit(0, "ann")
    g.sit(1, "bob")
    assert g.game.state == RUNNING
    buyins = g.kinds("buyin")
    assert [(e.data["name"], e.data["amount"]) for e in buyins] == [
        ("ann", "1000"),
        ("bob", "1000"),
    ]
    hand = g.kinds("hand")[0].data
    assert len(hand["commitment"]) == 64
    holes = g.kinds("hole")
    assert {tuple(e.seats) for e in holes} == {(0,), (1,)}
    for e in holes:
        assert e.data["seat"] in e.seats and len(e.data["cards"]) == 2
    turn = g.last_turn()
    assert turn["timeleft_ms"] == 30_000
    assert {a["name"] for a in turn["legal"]} == {"fold", "call", "raise"}
    # views hide other players' cards
    v0 = g.game.view(0)
    mine = next(p for p in v0["players"] if p["seat"] == 0)["holecards"]
    theirs = next(p for p in v0["players"] if p["seat"] == 1)["holecards"]
    assert mine == g.game.table.hand.hole[0] and theirs == [-1, -1]
    spectator = g.game.view(None)
    assert all(c == -1 for p in spectator["players"] for c in p["holecards"])
    # play the hand out: everybody checks/calls
    while g.game.table.in_hand:
        g.play_turn(lambda legal: next(a for a in legal if a["name"] in ("check", "call", "show")))
    over = g.kinds("handover")[-1].data
    assert sum(D(v) for v in over["deltas"].values()) == 0
    # the seed is revealed and matches the commitment and the cards dealt
    rec = g.game.table.last_hand
    assert shuffle.verify(over["commitment"], over["seed"], dict(rec.dealt))
    assert rec.get("seed") == over["seed"]


def test_showdown_pause_then_next_hand():
    g = Game(seats=2, auto_post=True)
    g.sit(0, "ann")
    g.sit(1, "bob")
    g.play_turn(lambda legal: next(a for a in legal if a["name"] == "fold"))
    g.play_turn(lambda legal: next(a for a in legal if a["name"] == "muck"))
    assert len(g.kinds("hand")) == 1 and not g.game.table.in_hand
    g.clock.advance(3.9)
    assert len(g.kinds("hand")) == 1
    g.clock.advance(0.2)
    assert len(g.kinds("hand")) == 2


def test_action_timeout_folds_and_sits_out():
    g = Game(seats=3, auto_post=True)
    for s, n in enumerate(("ann", "bob", "cy")):
        g.sit(s, n)
    turn = g.game.table.turn
    g.clock.advance(29.9)
    assert g.game.table.turn == turn
    g.clock.advance(0.2)
    assert [e.data["seat"] for e in g.kinds("timeout")] == [turn.seat]
    assert turn.seat in g.game.table.hand.folded
    assert g.game.table.players[turn.seat].sit_out_next


def test_blind_timeout_sits_out():
    g = Game(seats=3)
    for s, n in enumerate(("ann", "bob", "cy")):
        g.sit(s, n)
    # blinds are asked for (not automatic)
    turn = g.last_turn()
    assert turn["decision"] == "blind" and turn["timeleft_ms"] == 15_000
    assert {a["name"] for a in turn["legal"]} == {"post", "sitout"}
    seat = turn["seat"]
    g.clock.advance(15)
    assert g.game.table.players[seat].sitting_out


def test_auto_post_action_outside_the_turn():
    g = Game(seats=3)
    g.sit(0, "ann")
    g.game.act(0, {"name": "post", "amount": "1"})
    assert g.game.table.players[0].auto_post


def test_bad_and_illegal_actions():
    g = Game(seats=2, auto_post=True)
    g.sit(0, "ann")
    g.sit(1, "bob")
    seat = g.game.table.turn.seat
    other = 1 - seat
    with pytest.raises(BadAction):
        g.game.act(seat, "fold")
    with pytest.raises(BadAction):
        g.game.act(seat, {"name": "nonsense"})
    with pytest.raises(BadAction):  # the game's actions are named, wire numbers are not its
        g.game.act(seat, {"index": 2})
    with pytest.raises(BadAction):
        g.game.act(seat, {"name": "raise", "amount": 40.0})
    with pytest.raises(IllegalAction):
        g.game.act(other, {"name": "call"})
    with pytest.raises(IllegalAction):
        g.game.act(seat, {"name": "check"})  # owes the big blind
    n = len(g.events)
    with pytest.raises(IllegalAction):
        g.game.act(seat, {"name": "addbot", "seat": 1})
    # chips never come through an action: seats are taken (and chips added) by the hub
    with pytest.raises(IllegalAction, match="through the hub"):
        g.game.act(seat, {"name": "takeseat", "seat": seat, "amount": "100"})
    with pytest.raises(IllegalAction, match="through the hub"):
        g.game.act(None, {"name": "takeseat", "seat": 3, "amount": "100"})
    assert len(g.events) == n


def test_take_seat_and_leave_cashes_out():
    g = Game(seats=4, auto_post=True)
    g.sit(2, "ann", "250")
    assert g.kinds("buyin")[-1].data == {"seat": 2, "name": "ann", "amount": "250"}
    with pytest.raises(IllegalAction):
        g.sit(3, "bob", "1")  # < big blind
    g.game.leave(2)
    assert g.kinds("cashout")[-1].data == {"seat": 2, "name": "ann", "amount": "250"}


def test_leave_mid_hand_cashes_out_at_hand_end():
    g = Game(seats=3, auto_post=True)
    for s, n in enumerate(("ann", "bob", "cy")):
        g.sit(s, n)
    out = next(s for s in range(3) if s != g.game.table.turn.seat)
    g.game.leave(out)
    assert not g.kinds("cashout")
    while g.game.table.in_hand:
        g.play_turn(lambda legal: next(a for a in legal if a["name"] in ("check", "call", "muck")))
    cash = g.kinds("cashout")
    assert [e.data["seat"] for e in cash] == [out]
    assert (
        D(cash[0].data["amount"])
        == g.game.table.last_hand.players[
            [p[0] for p in g.game.table.last_hand.players].index(out)
        ][2]
        + dict(g.game.table.last_hand.deltas)[out]
    )


def test_empty_table_closes_after_ten_minutes():
    g = Game(seats=2)
    g.clock.advance(599)
    assert g.game.state == WAITING
    g.clock.advance(1)
    assert g.game.state == OVER
    assert g.kinds(GAME_OVER)
    assert not g.clock.getDelayedCalls()


def test_empty_timer_stops_while_seated_and_restarts_when_empty():
    g = Game(seats=2)
    g.clock.advance(300)
    g.sit(0, "ann")
    g.clock.advance(600)
    assert g.game.state != OVER
    g.game.leave(0)
    g.clock.advance(600)
    assert g.game.state == OVER


def test_stop_refunds_the_hand_and_cashes_out_everyone():
    g = Game(seats=3, auto_post=True)
    for s, n in enumerate(("ann", "bob", "cy")):
        g.sit(s, n)
    g.play_turn(lambda legal: next(a for a in legal if a["name"] == "raise"))
    g.game.stop()
    cash = {e.data["seat"]: D(e.data["amount"]) for e in g.kinds("cashout")}
    assert cash == {0: 1000, 1: 1000, 2: 1000}
    assert g.game.state == OVER and g.game.result()["scores"] == ["1000", "1000", "1000"]
    assert not g.clock.getDelayedCalls()


def test_ledger_conservation_over_many_hands_with_timeouts():
    g = Game(seats=4, auto_post=True, stakes="2/4", buyin="40")
    for s, n in enumerate(("a", "b", "c", "d")):
        g.sit(s, n)
    rng = random.Random(3)
    for _ in range(3000):
        if g.game.state == OVER:
            break
        for s in range(4):
            p = g.game.table.players.get(s)
            if p is not None and p.sitting_out and p.stack > 0 and rng.random() < 0.5:
                g.game.act(s, {"name": "sitin"})
            elif p is not None and p.stack == 0 and not p.leaving:
                g.game.leave(s)  # busted: leaves (at the end of the hand) ...
            elif p is None:
                g.sit(s, f"{s}-{rng.random()}")  # ... and someone sits down
        turn = g.game.table.turn
        if turn is None:
            g.clock.advance(4)
            continue
        if rng.random() < 0.1:
            g.clock.advance(30)
            continue
        legal = g.game.legal_actions(turn.seat)
        a = rng.choice(legal)
        g.game.act(turn.seat, {"name": a["name"], "amount": a.get("min", a.get("amount"))})
    bought = sum(D(e.data["amount"]) for e in g.kinds("buyin"))
    cashed = sum(D(e.data["amount"]) for e in g.kinds("cashout"))
    assert g.game.table.chips_in_play() + cashed == bought
    assert len(g.kinds("handover")) > 20
    for e in g.kinds("handover"):
        assert sum(D(v) for v in e.data["deltas"].values()) == 0


def test_five_card_draw_discard_turn():
    g = Game(seats=3, factory=FiveCardDrawFactory(), auto_post=True)
    for s, n in enumerate(("ann", "bob", "cy")):
        g.sit(s, n)
    while g.game.table.state != R.DISCARD_ROUND:
        g.play_turn(lambda legal: next(a for a in legal if a["name"] in ("check", "call")))
    turn = g.last_turn()
    assert turn["decision"] == "discard"
    assert turn["legal"] == [{"name": "discard", "count": 3}]
    seat = turn["seat"]
    before = list(g.game.table.hand.hole[seat])
    g.game.act(seat, {"name": "discard", "discarded": [0, 1]})
    after = g.game.table.hand.hole[seat]
    assert after[2:] == before[2:] and after[:2] != before[:2]
    private = [e for e in g.kinds("hole") if e.data.get("replaced")]
    assert private[-1].seats == frozenset({seat}) and private[-1].data["cards"] == after


def test_no_limit_raise_amount_from_string():
    g = Game(seats=2, variant="no-limit", auto_post=True)
    g.sit(0, "ann")
    g.sit(1, "bob")
    seat = g.game.table.turn.seat
    raise_ = next(a for a in g.game.legal_actions(seat) if a["name"] == "raise")
    assert (raise_["min"], raise_["max"]) == ("20", "1000")
    g.game.act(seat, {"name": "raise", "amount": "55"})
    assert g.game.table.hand.current_bet == 55


def test_builtin_meta_files_load_through_the_registry(tmp_path):
    from hub.play.lobby import Lobby
    from hub.plugins.registry import Registry, builtin_meta_dir

    registry = Registry(tmp_path, task.Clock(), builtin_meta_dir())
    registry.load()
    holdem = registry.game_factory("texas-holdem")
    draw = registry.game_factory("five-card-draw")
    assert holdem.name == "texas-holdem" and draw.name == "five-card-draw"
    clock = task.Clock()
    lobby = Lobby(registry, clock, rng=random.Random(1))
    game = lobby.create_game("texas-holdem", seats=["open"] * 3, options={"auto_post": True})
    seen = []

    class Watcher:
        def game_event(self, g, event):
            seen.append(event)

    game.observe(Watcher(), seat=0)
    game.take_seat("ann", 0)
    game.take_seat("bob", 1)
    clock.advance(0)
    assert game.state == RUNNING
    # the observer at seat 0 sees its own hole cards only
    holes = [e for e in seen if e.kind == "hole"]
    assert [e.data["seat"] for e in holes] == [0]
    lobby.stop()


def test_hand_record_and_text_after_a_hand():
    g = Game(seats=2, auto_post=True)
    g.sit(0, "ann")
    g.sit(1, "bob")
    hand_id = g.kinds("hand")[0].data["handid"]
    assert g.game.hand_record() is None
    g.play_turn(lambda legal: next(a for a in legal if a["name"] == "fold"))
    g.play_turn(lambda legal: next(a for a in legal if a["name"] == "muck"))
    data = g.game.hand_record(hand_id)
    assert data["hand_id"] == hand_id == "g1-1"
    extra = dict(data["extra"])
    # the hand ended with a fold: the seed would reveal the folded cards, so the
    # broadcast withholds it; the hand record (the store, admins) keeps it
    assert len(extra["seed"]) == 64 and g.kinds("handover")[0].data["seed"] is None
    text = g.game.hand_history_text(hand_id, seat=0)
    assert text.startswith("Gamehub Hand #g1-1: Hold'em Limit (10/20)")
    assert extra["seed"] not in text
    assert "Shuffle seed: " + extra["seed"] in g.game.hand_history_text(hand_id, reveal=True)
    # the broadcast hand-over event carries no hole cards
    assert "hole" not in g.kinds("handover")[0].data


def test_lobby_bots_play_a_table_and_the_chips_add_up(tmp_path):
    """Bot seats (driven by the lobby on turn events) play many hands on the clock."""
    from hub.play.lobby import Lobby
    from hub.plugins.registry import Registry, builtin_meta_dir

    registry = Registry(tmp_path, task.Clock(), builtin_meta_dir())
    registry.load()
    clock = task.Clock()
    lobby = Lobby(registry, clock, rng=random.Random(2))
    game = lobby.create_game(
        "texas-holdem",
        seats=["bot:caller", "bot:raiser", "bot:poker-random"],
        options={"auto_post": True, "buyin": "20000"},  # nobody busts in 25 hands
    )
    events = []

    class Watcher:
        def game_event(self, g, event):
            events.append(event)

    game.observe(Watcher())
    for _ in range(4000):
        clock.advance(0.5)
        if len([e for e in events if e.kind == "handover"]) >= 25:
            break
    overs = [e for e in events if e.kind == "handover"]
    assert len(overs) >= 25
    # no bot timed out: every decision was answered
    assert not [e for e in events if e.kind == "timeout"]
    engine = game.engine
    assert engine.table.chips_in_play() == 60000
    for e in overs:
        assert sum(D(v) for v in e.data["deltas"].values()) == 0
    lobby.stop()


def test_top_up_between_hands_only():
    g = Game(seats=3, auto_post=True)
    g.sit(0, "ann")
    g.game.add_chips(0, "200")
    assert g.kinds("buyin")[-1].data == {"seat": 0, "name": "ann", "amount": "200"}
    assert g.game.table.players[0].stack == 1200
    with pytest.raises(GameError):
        g.game.add_chips(0, "-5")
    with pytest.raises(BadAction):
        g.game.add_chips(0, "five")
    with pytest.raises(IllegalAction):
        g.game.add_chips(3, "5")  # nobody there
    g.sit(1, "bob")  # a hand starts
    with pytest.raises(IllegalAction, match="between hands"):
        g.game.add_chips(0, "200")
    assert g.game.table.players[0].stack < 1200


GAMEINFO = (
    "ante bigblind smallblind boardcards buttonseat currentplayerseat gameid variant "
    "minplayers minraise players playerstoact pot raisesthisround stage winners "
    "bigblindseat smallblindseat myname myseat handid smallbet bigbet cap pots timeleft "
    "commitment"
).split()
PLAYERINFO = (
    "bankroll bankrollatstartofhand hasactedthisround hastopostblind holecards inpot "
    "inpotthisround lastaction myname myseat mystate accountname"
).split()


def test_view_has_the_gameinfo_fields():
    g = Game(seats=3, auto_post=True, variant="no-limit")
    g.sit(0, "ann")
    g.sit(1, "bob")
    seat = g.game.table.turn.seat
    v = g.game.view(seat)
    assert not set(GAMEINFO) - set(v)
    for p in v["players"]:
        assert not set(PLAYERINFO) - set(p)
    assert v["variant"] == "no-limit" and v["stage"] == 0 and v["currentplayerseat"] == seat
    assert v["minraise"] == "20" and v["timeleft"] == 30_000 and v["pot"] == "15"
    g.clock.advance(10)
    assert g.game.view(seat)["timeleft"] == 20_000


def test_every_event_and_view_is_json():
    import json

    g = Game(seats=4, auto_post=False, variant="pot-limit", stakes="0.10/0.20", buyin="20")
    for s, n in enumerate(("a", "b", "c")):
        g.sit(s, n)
    rng = random.Random(1)
    for _ in range(400):
        for s, p in list(g.game.table.players.items()):
            if p.stack == 0 and not g.game.table.in_hand:
                g.game.add_chips(s, "20")
            if p.sitting_out and p.stack > 0:
                g.game.act(s, {"name": "sitin"})
        turn = g.game.table.turn
        if turn is None:
            g.clock.advance(4)
            continue
        legal = g.game.legal_actions(turn.seat)
        a = rng.choice(legal)
        g.game.act(turn.seat, {"name": a["name"], "amount": a.get("max", a.get("amount"))})
        json.dumps(g.game.view(turn.seat))
    g.game.stop()
    for e in g.events:
        json.dumps(dict(e.data))
    assert len(g.kinds("handover")) > 5


def test_a_table_that_cannot_deal_is_waiting_and_starts_again_by_itself():
    g = Game(seats=3, auto_post=True, showdown_pause=2)
    g.sit(0, "ann")
    g.sit(1, "bot")
    assert g.game.state == RUNNING
    assert [e.data["state"] for e in g.kinds("state")] == [RUNNING]
    g.game.leave(0)  # ann leaves: her stack goes back at the end of the hand
    while g.game.table.in_hand:
        g.play_turn(lambda legal: next(a for a in legal if a["name"] in ("check", "call", "show")))
    # one player left: no hand can be dealt, so the table waits (not "running" for ever)
    assert g.game.state == WAITING
    assert [e.data["state"] for e in g.kinds("state")] == [RUNNING, WAITING]
    view = g.game.view(None)
    assert view["inhand"] is False and view["nexthand_ms"] is None
    assert [p["accountname"] for p in view["players"]] == ["bot"]
    g.clock.advance(5)
    assert g.game.state == WAITING and not g.game.table.in_hand
    g.sit(2, "cy")  # enough players again: a hand is dealt at once
    assert g.game.state == RUNNING and g.game.table.in_hand
    assert [e.data["state"] for e in g.kinds("state")] == [RUNNING, WAITING, RUNNING]


def test_players_seated_in_one_reactor_turn_are_all_dealt_into_the_first_hand():
    # issue 20 item 4: a creator's bots sit down one after another; the first hand
    # waits for the last of them
    g = Game(seats=4, auto_post=True)
    for seat, name in enumerate(("ann", "bot-1", "bot-2")):
        g.game.seat_player(seat, name)
    assert not g.kinds("hand") and g.game.state == RUNNING  # due at the end of the turn
    g.clock.advance(0)
    assert len(g.kinds("hand")) == 1
    assert sorted(g.kinds("deal")[0].data["seats"]) == [0, 1, 2]
    while g.game.table.in_hand:
        g.play_turn(lambda legal: next(a for a in legal if a["name"] in ("fold", "check", "show")))
    g.sit(3, "dee")  # later hands come after the pause between hands, as before
    assert len(g.kinds("hand")) == 1


def test_a_table_whose_other_player_went_broke_is_waiting():
    # issue 20 item 7: a table whose bot went broke was "running" for ever
    g = Game(seats=2, variant="no-limit", auto_post=True, showdown_pause=2)
    g.sit(0, "ann", "100")
    g.sit(1, "bot", "100")

    def all_in(legal):
        for name in ("raise", "bet", "call", "check", "show"):
            for a in legal:
                if a["name"] == name:
                    return {**a, "min": a.get("max", a.get("min"))}
        return legal[0]

    for _ in range(100):  # bounded: hands until one of them has no chips
        if g.game.table.in_hand:
            g.play_turn(all_in)
        elif g.game.state == RUNNING:
            g.clock.advance(3)
        else:
            break
    stacks = {p["accountname"]: p["bankroll"] for p in g.game.view(None)["players"]}
    assert sorted(stacks.values()) == ["0", "200"], stacks  # both still sit there
    assert g.game.state == WAITING and g.kinds("state")[-1].data["state"] == WAITING
    assert g.game.view(None)["nexthand_ms"] is None
    g.clock.advance(60)
    assert g.game.state == WAITING and len(g.kinds("handover")) == len(g.kinds("hand"))


def test_between_hands_the_view_says_when_the_next_hand_comes():
    g = Game(seats=2, auto_post=True, showdown_pause=4)
    g.sit(0, "ann")
    g.sit(1, "bob")
    while g.game.table.in_hand:
        g.play_turn(lambda legal: next(a for a in legal if a["name"] in ("fold", "show", "check")))
    view = g.game.view(None)
    assert view["inhand"] is False and view["nexthand_ms"] == 4000
    assert g.game.state == RUNNING  # the next hand is due
    g.clock.advance(1.5)
    assert g.game.view(None)["nexthand_ms"] == 2500
    g.clock.advance(2.5)
    assert g.game.view(None)["inhand"] is True


def test_the_factories_declare_their_options():
    from hub.interfaces import IGameOptions

    for factory in (TexasHoldemFactory(), FiveCardDrawFactory()):
        assert IGameOptions.providedBy(factory)
        names = [o.name for o in factory.options]
        assert "stakes" in names and "action_time" in names
        assert ("max_discard" in names) == (factory.name == "five-card-draw")
        for option in factory.options:  # every declared default is accepted
            if option.default is not None:
                Game(factory=factory, **{option.name: option.default})
