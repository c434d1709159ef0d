"""Tests of the poker bot plugins: loading from meta/, and playing from a view."""

from decimal import Decimal

from twisted.internet.task import Clock
from zope.interface.verify import verifyObject

from bots.poker.observation import BET, BY_NAME, CALL, CHECK, FOLD, POST_BLIND, RAISE, SIT_OUT
from bots.poker.observe import OpponentModel
from bots.poker.plugin import ActionTracker, PokerBot, observation_from_view
from hub.interfaces import IBot, IBotFactory
from hub.plugins.registry import Registry

NAMES = ("caller", "raiser", "poker-random", "holdem")


def test_builtin_meta_loads_the_four_bots():
    registry = Registry(None, Clock())
    registry.load()
    for name in NAMES:
        factory = registry.bot_factory(name)
        verifyObject(IBotFactory, factory)
        assert factory.name == name and "texas-holdem" in factory.games
        bot = factory.create("texas-holdem", 1, {"bot_seed": 5})
        verifyObject(IBot, bot)


NAME_OF = {number: name for name, number in BY_NAME.items()}


def legal(*items):
    """The game's legal actions (named) for the bots' decision numbers."""
    return [dict(name=NAME_OF[i], **({"amount": a} if a else {})) for i, a in items]


VIEW = {
    "handid": "h9",
    "stage": 1,
    "boardcards": [48, 44, 40],  # A, K, Q of clubs
    "buttonseat": 0,
    "pot": "40",
    "smallbet": "10",
    "bigbet": "20",
    "bigblind": "10",
    "raisesthisround": 1,
    "cap": 4,
    "players": [
        {"seat": 0, "name": "me", "holecards": [36, 32], "inpotthisround": "0", "bankroll": "480"},
        {
            "seat": 1,
            "name": "opp",
            "holecards": [-1, -1],
            "inpotthisround": "10",
            "lastaction": "bet",
        },
        {"seat": 2, "name": "gone", "holecards": [], "lastaction": "fold"},
    ],
}


def test_observation_from_a_gameinfo_view():
    o = observation_from_view(VIEW, legal((FOLD, None), (CALL, "10"), (RAISE, "20")), 0)
    assert o.hole == (36, 32) and o.board == (48, 44, 40) and o.street == 1
    assert o.to_call == Decimal(10) and o.bet_size == Decimal(10) and o.pot == Decimal(40)
    assert o.legal == (FOLD, CALL, RAISE) and o.raises == 1
    assert o.players == 2 and [x.seat for x in o.opponents] == [1]
    assert o.in_position  # the button, heads-up after the flop
    assert o.stack == Decimal(480)


def test_bots_answer_with_legal_action_mappings():
    options = legal((FOLD, None), (CALL, "10"), (RAISE, "20"))
    for name in NAMES:
        bot = PokerBot(name, 0, seed=1)
        action = bot.choose(VIEW, options, 2.0)
        assert action["name"] in ("fold", "call", "raise")
        if action["name"] == "raise":
            assert action["amount"] == "20"
    # a royal flush: holdem raises
    made = dict(VIEW, boardcards=[48, 44, 40, 36 + 3, 32 + 2])
    made["players"] = [dict(VIEW["players"][0], holecards=[36, 32])] + VIEW["players"][1:]
    assert PokerBot("holdem", 0, seed=2).choose(made, options, 2.0) == {
        "name": "raise",
        "amount": "20",
    }
    assert PokerBot("caller", 0).choose(VIEW, legal((CHECK, None), (BET, "10")), 1.0) == {
        "name": "check"
    }
    blind = legal((POST_BLIND, "5"), (SIT_OUT, None))
    assert PokerBot("holdem", 0).choose({}, blind, 1.0) == {"name": "post", "amount": "5"}


def test_tracker_rebuilds_opponent_actions_from_views():
    tracker, model = ActionTracker(), OpponentModel()
    options = legal((FOLD, None), (CALL, "10"), (RAISE, "20"))
    view = dict(VIEW)
    observation_from_view(view, options, 0, model, tracker)
    # the same view again: nothing new happened
    observation_from_view(view, options, 0, model, tracker)
    assert [(r["kind"], r["seat"]) for r in tracker.log] == [("bet", 1), ("fold", 2)]
    # the opponent raised after our call
    players = [dict(p) for p in VIEW["players"]]
    players[1].update(lastaction="raise", inpot="40")
    o = observation_from_view(dict(VIEW, players=players), options, 0, model, tracker)
    assert [r["kind"] for r in tracker.log] == ["bet", "fold", "raise"]
    assert o.opponents[0].aggressive == 2
    # a new hand starts a new log
    observation_from_view(dict(VIEW, handid="h10"), options, 0, model, tracker)
    assert len(tracker.log) == 2 and model.stats["opp"][0] > 2
