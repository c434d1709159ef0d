"""A poker variant made on the public seam (``games.poker.server.PokerFactory`` and a
``games.poker.rules.Variant``), as a plugin makes one (docs/plugins.md, "A new poker
variant"): a game type of its own, dealt and played by the engine."""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path

import pytest
from twisted.internet import task
from zope.interface.verify import verifyObject

from games.poker import rules
from games.poker.server import FiveCardDrawFactory, PokerFactory, TexasHoldemFactory
from hub.interfaces import IChipGameFactory, IGameFactory, IHandRecord, IRatedGameFactory
from hub.model import GameConfig, GameContext
from hub.plugins.files import package_file

HERE = Path(__file__).resolve().parent
POKER = HERE.parents[2] / "games" / "poker"

THREE = rules.Variant(
    "three-card-holdem",
    (
        rules.Step(rules.BLIND_ROUND),
        rules.Step(rules.NEW_DEAL, 3),
        rules.Step(rules.BET_ROUND),
        rules.Step(rules.DEAL_CARDS, 3),
        rules.Step(rules.BET_ROUND),
        rules.Step(rules.DEAL_CARDS, 1),
        rules.Step(rules.BET_ROUND, big=True),
        rules.Step(rules.WINNINGS),
        rules.Step(rules.MUCK_ROUND),
        rules.Step(rules.SHOWDOWN),
    ),
)


class ThreeCardHoldem(PokerFactory):
    name = "three-card-holdem"
    summary = "Three hole cards, a flop and a turn."
    max_seats = 6
    default_seats = 6
    rules_variant = THREE


def test_every_poker_type_is_made_on_the_public_base() -> None:
    for factory in (TexasHoldemFactory(), FiveCardDrawFactory(), ThreeCardHoldem()):
        assert isinstance(factory, PokerFactory)
        for iface in (IGameFactory, IChipGameFactory, IHandRecord, IRatedGameFactory):
            verifyObject(iface, factory)


def test_a_variant_deals_its_own_hand_and_conserves_the_chips() -> None:
    clock, events = task.Clock(), []
    context = GameContext(clock, events.append, random.Random(3), "g1")
    game = ThreeCardHoldem().create(GameConfig("t", None, 2, {"auto_post": True}), context)
    for seat, name in enumerate(("ann", "bob")):
        game.seat_player(seat, name, Decimal(100))
    clock.advance(0)
    hand = game.table.hand
    assert hand is not None and [len(hand.hole[s]) for s in (0, 1)] == [3, 3]
    assert game.view(0)["game"] == "three-card-holdem"
    while game.table.in_hand:
        turn = game.table.turn
        legal = game.legal_actions(turn.seat)
        action = next(a for a in legal if a["name"] in ("check", "call", "show"))
        game.act(turn.seat, {"name": action["name"], "amount": action.get("amount")})
    assert len(hand.board) == 4
    stacks = [game.table.players[s].stack for s in (0, 1)]
    assert sum(stacks) == 200 and stacks != [100, 100]


def test_a_variant_shows_down_five_to_seven_cards() -> None:
    deal = (rules.Step(rules.BLIND_ROUND), rules.Step(rules.NEW_DEAL, 3))
    for board in (1, 5):
        steps = (*deal, rules.Step(rules.DEAL_CARDS, board), rules.Step(rules.SHOWDOWN))
        with pytest.raises(ValueError, match="5 to 7 cards"):
            rules.Variant("odd", steps)


def test_a_variant_has_the_poker_page_and_its_own_files_first() -> None:
    variant = ThreeCardHoldem()
    assert package_file(variant, "web.js") == (POKER / "web.js").read_bytes()
    assert package_file(variant, "__init__.py") == (HERE / "__init__.py").read_bytes()
    assert package_file(variant, "nothing.js") is None
    assert package_file(variant, "../poker/web.js") is None
