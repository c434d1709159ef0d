"""The poker bots play whole hands in the hub: lobby, engine plugin, bot drivers."""

import random
from decimal import Decimal

from twisted.internet.task import Clock

from bots.poker.plugin import CallerFactory, HoldemFactory, RaiserFactory, RandomFactory
from games.poker.server import TexasHoldemFactory
from games.poker.verify import verify_hand
from hub.play.lobby import Lobby
from tests.support import DictRegistry


class Recorder:
    def __init__(self):
        self.events = []

    def game_event(self, game, event):
        self.events.append(event)


def test_four_bots_play_fifty_hands_that_verify():
    registry = DictRegistry(
        games=[TexasHoldemFactory()],
        bots=[HoldemFactory(), CallerFactory(), RaiserFactory(), RandomFactory()],
    )
    clock = Clock()
    lobby = Lobby(registry, clock, rng=random.Random(8))
    game = lobby.create_game(
        "texas-holdem",
        seats=["bot:holdem", "bot:caller", "bot:raiser", "bot:poker-random"],
        options={"stakes": "10/20", "buyin": "100000"},
    )
    watcher = Recorder()
    game.observe(watcher)
    engine = game.engine
    for _ in range(20_000):  # bounded: 50 hands need far fewer ticks
        if len(engine.hands) >= 50:
            break
        clock.advance(0.5)
    assert len(engine.hands) >= 50
    # nobody timed out: every decision was the bots' own, and every one was legal
    assert not [e for e in watcher.events if e.kind == "timeout"]
    total = sum(Decimal(p.stack) for p in engine.table.players.values()) + engine.table.pot_total()
    assert total == 4 * Decimal(100000)
    for rec in engine.hands:
        record = engine.hand_record(rec.hand_id)
        ok, reason = verify_hand(record)
        assert ok, (rec.hand_id, reason)
    # holdem folds sometimes and raises sometimes: it is not a baseline in disguise
    mine = [e.data["name"] for e in watcher.events if e.kind == "action" and e.data["seat"] == 0]
    assert "fold" in mine and ("raise" in mine or "bet" in mine)


def test_baselines_play_five_card_draw():
    from games.poker.server import FiveCardDrawFactory

    registry = DictRegistry(
        games=[FiveCardDrawFactory()], bots=[CallerFactory(), RaiserFactory(), RandomFactory()]
    )
    clock = Clock()
    lobby = Lobby(registry, clock, rng=random.Random(9))
    game = lobby.create_game(
        "five-card-draw",
        seats=["bot:caller", "bot:raiser", "bot:poker-random"],
        options={"stakes": "10/20", "buyin": "100000"},
    )
    watcher = Recorder()
    game.observe(watcher)
    for _ in range(10_000):
        if len(game.engine.hands) >= 20:
            break
        clock.advance(0.5)
    assert len(game.engine.hands) >= 20
    assert not [e for e in watcher.events if e.kind == "timeout"]
    assert any(e.data.get("name") == "discard" for e in watcher.events if e.kind == "action")
