"""The poker sit-and-go (``holdem-sng``): a whole tournament of in-hub bots to its end,
chips conserved at every hand and level, places in order; the game on a clock."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from twisted.internet.task import Clock

from bots.poker.plugin import CallerFactory, HoldemFactory, RaiserFactory, RandomFactory
from games.poker.sitandgo import HoldemSitAndGoFactory
from hub.model import GAME_OVER, HAND_OVER, GameConfig, GameContext, GameError
from hub.play.lobby import Lobby
from tests.support import DictRegistry

BOTS = [
    "bot:raiser",
    "bot:caller",
    "bot:poker-random",
    "bot:raiser",
    "bot:poker-random",
    "bot:holdem",
]


class Checker:
    """Follows a tournament: after every hand and at every level change the stacks
    plus the pot hold every chip."""

    def __init__(self, game, total: Decimal):
        self.game = game
        self.total = total
        self.events = []
        self.checks = 0

    def chips(self) -> Decimal:
        table = self.game.engine.table
        return sum((p.stack for p in table.players.values()), Decimal(0)) + table.pot_total()

    def game_event(self, game, event):
        self.events.append(event)
        if event.kind in (HAND_OVER, "level", "eliminated", GAME_OVER):
            assert self.chips() == self.total, (event.kind, event.data)
            self.checks += 1

    def kinds(self, kind):
        return [e for e in self.events if e.kind == kind]


def play(seed: int, seats=BOTS, **options):
    registry = DictRegistry(
        games=[HoldemSitAndGoFactory()],
        bots=[HoldemFactory(), CallerFactory(), RaiserFactory(), RandomFactory()],
    )
    clock = Clock()
    lobby = Lobby(registry, clock, rng=random.Random(seed))
    opts = {"starting_chips": 1500, "hands_per_level": 5, "bot_seed": seed, "showdown_pause": 1}
    opts.update(options)
    game = lobby.create_game("holdem-sng", seats=list(seats), options=opts)
    checker = Checker(game, Decimal(opts["starting_chips"]) * len(seats))
    game.observe(checker)
    for _ in range(200_000):  # bounded: a tournament needs far fewer ticks
        if game.result() is not None:
            break
        clock.advance(0.5)
    return game, checker


def test_six_bots_play_a_sit_and_go_to_the_end():
    game, checker = play(3)
    result = game.result()
    assert result is not None, "the tournament did not end"
    table = game.engine.table
    # one player holds every chip
    stacks = {s: p.stack for s, p in table.players.items()}
    assert sorted(stacks.values()) == [0] * 5 + [Decimal(9000)]
    winner = max(stacks, key=lambda s: stacks[s])
    assert result["winners"] == [winner]
    assert result["places"][winner] == 1
    # places 1..6, all distinct with this seed; eliminations in order, worst first
    assert sorted(result["places"]) == [1, 2, 3, 4, 5, 6]
    order = [e.data["place"] for e in checker.kinds("eliminated")]
    assert order == [6, 5, 4, 3, 2]
    assert [e["place"] for e in result["eliminations"]] == order
    numbers = [int(e["handid"].rsplit("-", 1)[1]) for e in result["eliminations"]]
    assert numbers == sorted(numbers)  # each out in the hand that busted them, in order
    for e in result["eliminations"]:
        assert table.players[e["seat"]].stack == 0
    assert result["ranks"] == [p - 1 for p in result["places"]]
    assert result["scores"] == [6 - p for p in result["places"]]
    assert HoldemSitAndGoFactory().rating_ranks(result) == result["ranks"]
    # the blinds rose: levels announced in order, every hand played at its level's stakes
    levels = checker.kinds("level")
    assert [e.data["level"] for e in levels] == list(range(1, len(levels) + 1))
    assert len(levels) >= 2
    for rec in game.engine.hands:
        level = game.engine.schedule.level_of_hand(rec.number)
        assert rec.stakes == level.stakes
    assert checker.checks > len(game.engine.hands)
    # heads-up at the end: the button posts the small blind and acts first preflop
    heads_up = [r for r in game.engine.hands if len(r.players) == 2]
    assert heads_up
    dealt = {e.data["handid"]: e.data for e in checker.kinds("hand")}
    for rec in heads_up:
        hand = dealt[rec.hand_id]
        assert hand["smallblindseat"] == hand["button"] == rec.button
        assert {hand["bigblindseat"], hand["button"]} == {s for s, _n, _st in rec.players}
        acts = [a for a in rec.actions if a.kind in ("fold", "call", "raise", "check", "bet")]
        assert acts[0].seat == rec.button
    # nobody timed out: every decision was a bot's own
    assert not checker.kinds("timeout")
    # the tournament's facts are in the view
    view = game.view(None)
    assert view["tournament"]["players_left"] == 1
    assert {p["seat"]: p["place"] for p in view["players"]} == dict(enumerate(result["places"]))


def test_players_busted_in_one_hand_are_placed_by_their_stacks_at_its_start():
    # with 300 chips and seed 2, three players go out in one hand, all from 300 chips
    # (the seed of the game's stream, hub.play.seeded, since issue 31)
    game, checker = play(2, starting_chips=300)
    result = game.result()
    assert sorted(result["places"]) == [1, 2, 3, 4, 4, 4]
    hands = {rec.hand_id: rec for rec in game.engine.hands}
    for place in (4,):
        out = [e for e in result["eliminations"] if e["place"] == place]
        start = {s: stack for s, _n, stack in hands[out[0]["handid"]].players}
        assert len({e["handid"] for e in out}) == 1
        assert len({start[e["seat"]] for e in out}) == 1  # equal stacks: a tie
    # every player busted in a hand ahead of one busted with more chips in that hand
    for e in result["eliminations"]:
        same = [x for x in result["eliminations"] if x["handid"] == e["handid"]]
        start = {s: stack for s, _n, stack in hands[e["handid"]].players}
        for x in same:
            if start[x["seat"]] > start[e["seat"]]:
                assert x["place"] < e["place"]


def test_a_seed_repeats_the_tournament():
    a, events_a = play(3)
    b, events_b = play(3)
    assert a.result() is not None
    assert a.result() == b.result()
    assert [(e.kind, e.data) for e in events_a.events if e.kind != "turn"] == [
        (e.kind, e.data) for e in events_b.events if e.kind != "turn"
    ]


def context(clock, events):
    return GameContext(clock=clock, emit=events.append, rng=random.Random(1), game_id="g1")


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"buyin": "100"}, "unknown sit-and-go options: buyin"),
        ({"stakes": "10/20"}, "unknown sit-and-go options: stakes"),
        ({"starting_chips": "lots"}, "starting_chips must be a whole number"),
        ({"starting_chips": 1}, "starting_chips must be at least 2"),
        ({"hands_per_level": 0}, "hands_per_level must be at least 1"),
        ({"levels": "20/40,10/20"}, "level 2 (10/20) is lower than level 1"),
        ({"levels": "15/30"}, "must be even"),
        ({"levels": "20"}, "is not written small/big"),
        ({"levels": "20/40.5"}, "whole number of chips"),
        ({"levels": ""}, "levels are written"),
        (
            {"starting_chips": 10, "levels": "20/40"},
            "big blind (20) is more than the starting chips",
        ),
        ({"max_hands": 0}, "max_hands must be at least 1"),
        ({"starting_chips": 10**8}, "starting_chips may be at most 10000000"),
        ({"bot_seed": -1}, "bot_seed must be at least 0"),
        ({"action_time": -1}, "action_time must be 0 to 86400"),
    ],
)
def test_bad_options_are_refused_with_a_reason(options, words):
    config = GameConfig("t", None, 4, options)
    with pytest.raises(GameError) as e:
        HoldemSitAndGoFactory().create(config, context(Clock(), []))
    assert words in str(e.value)
