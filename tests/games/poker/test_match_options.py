"""The poker table's options for matches of computer poker (the ACPC front end's):
``hand_stack`` (stacks reset every hand, chips won counted), ``hands`` (the table
closes after them), ``deal_seed`` and ``first_button`` (the same deals again)."""

from __future__ import annotations

import random
from decimal import Decimal as D

import pytest

from games.poker import rules as R
from games.poker import shuffle
from hub.model import GAME_OVER, HAND_OVER, GameError
from tests.games.poker.test_server import Game


def test_a_hand_stack_sets_the_rest_aside_and_gives_it_back_at_the_end():
    t = R.Table(R.TableConfig(seats=2, hand_stack=D(100), chip=D(1)), rng=random.Random(0))
    t.seat_player(0, "a", D(1000))
    t.seat_player(1, "b", D(50))
    t.start_hand(list(range(52)), button=0)
    assert t.hand.reserve == {0: D(900)}
    assert t.players[0].stack <= 100
    for _ in range(20):  # everything in: the first can lose at most the hand stack
        turn = t.turn
        if turn is None:
            break
        legal = {a.index: a for a in t.legal_actions(turn.seat)}
        if R.SHOW in legal or R.POST in legal:
            t.act(turn.seat, R.SHOW if R.SHOW in legal else R.POST)
        elif R.RAISE in legal or R.BET in legal:
            a = legal.get(R.RAISE) or legal[R.BET]
            t.act(turn.seat, a.index, a.max if a.max is not None else a.amount)
        else:
            t.act(turn.seat, R.CALL if R.CALL in legal else R.CHECK)
    assert t.hand.over and t.hand.reserve == {}
    assert t.players[0].stack + t.players[1].stack == 1050
    assert t.players[0].stack >= 900


def test_an_aborted_hand_gives_the_set_aside_chips_back():
    t = R.Table(R.TableConfig(seats=2, hand_stack=D(100), chip=D(1)), rng=random.Random(0))
    t.seat_player(0, "a", D(1000))
    t.seat_player(1, "b", D(1000))
    t.start_hand(list(range(52)), button=0)
    t.abort_hand()
    assert t.players[0].stack == t.players[1].stack == 1000


def test_a_hand_stack_below_the_big_blind_is_refused():
    with pytest.raises(ValueError, match="hand stack"):
        R.TableConfig(small_bet=D(10), hand_stack=D(5))


def test_the_table_closes_after_its_hands_and_the_deals_repeat_with_the_seed():
    seed = "ab" * 32
    decks = []
    for _ in range(2):
        g = Game(seats=2, hands=3, deal_seed=seed, first_button=1, showdown_pause=0,
                 auto_post=True, stakes="10/20", chip="1")  # fmt: skip
        g.sit(0, "a", 1000)
        g.sit(1, "b", 1000)
        for _ in range(200):
            if g.kinds(GAME_OVER):
                break
            if g.game.table.turn is not None:
                g.play_turn(
                    lambda legal: next(
                        (a for a in legal if a["name"] in ("check", "call")), legal[0]
                    )
                )
            g.clock.advance(0)
        assert len(g.kinds(HAND_OVER)) == 3 and g.kinds(GAME_OVER)
        assert g.kinds("hand")[0].data["button"] == 1
        decks.append([rec.hand_id.split("-")[-1] for rec in g.game.hands])
        for number, rec in enumerate(g.game.hands, 1):
            assert rec.get("seed") == shuffle.hand_seed(seed, number).hex()
    assert decks[0] == decks[1] == ["1", "2", "3"]


def test_match_options_are_checked():
    for options in ({"hands": 0}, {"first_button": 5}, {"deal_seed": "xyz"}, {"hands": True}):
        with pytest.raises(GameError):
            Game(seats=2, **options)
