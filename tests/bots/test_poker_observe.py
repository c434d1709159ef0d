"""Tests of the observation builder and the opponent model."""

from decimal import Decimal

import pytest

from bots.poker.observation import BET, CALL, CHECK, FOLD, RAISE
from bots.poker.observe import OpponentModel, action_for, legal_indices, observation_from_table
from games.poker import rules
from games.poker.shuffle import deck_from_seed


def rec(kind, seat):
    return {"kind": kind, "seat": seat}


def test_model_learns_habits():
    m = OpponentModel()
    names = {0: "maniac", 1: "station", 2: "rock"}
    records = []
    for h in range(30):
        records = [rec("post", 0), rec("raise", 0), rec("call", 1), rec("fold", 2)]
        m.observe(h, records, names)
        m.observe(h, records, names)  # seen records are not counted twice
    assert m.aggression("maniac") > 0.9
    assert m.aggression("station") < 0.05 and m.fold_rate("station") < 0.05
    assert m.fold_rate("rock") > 0.9
    # this hand: the maniac raised once, the station called once
    assert m.width("maniac") > 0.9
    assert m.width("station") > 0.9
    # a player who rarely raises has a narrow range after raising twice
    m.observe(
        "x",
        [rec("call", 2)] * 5 + [rec("raise", 2), rec("raise", 2)],
        names,
    )
    assert m.width("rock") < 0.2
    o = m.opponent(2, "rock")
    assert (o.seat, o.aggressive, o.passive) == (2, 2, 5)
    assert m.width("unknown") == 1.0


def test_legal_helpers():
    legal = (
        rules.Legal(FOLD),
        rules.Legal(CALL, amount=Decimal(5)),
        rules.Legal(RAISE, Decimal(20)),
    )
    assert legal_indices(legal) == (FOLD, CALL, RAISE)
    assert action_for(RAISE, legal) == ("raise", Decimal(20))
    assert action_for(FOLD, legal) == ("fold", None)
    # the game's legal actions are named mappings
    assert action_for(BET, [{"name": "bet", "min": "4", "max": "100"}]) == ("bet", Decimal(4))
    assert legal_indices([{"name": "call"}, {"name": "leaveseat"}]) == (CALL,)
    with pytest.raises(ValueError):
        action_for(CHECK, legal)


def test_observation_from_table_heads_up():
    t = rules.Table(rules.TableConfig(seats=2, small_bet=Decimal(10)))
    t.seat_player(0, "a", Decimal(500))
    t.seat_player(1, "b", Decimal(500))
    deck = deck_from_seed(bytes(32))
    t.start_hand(deck, hand_id="h1", button=0)
    while t.turn and t.turn.kind == rules.BLIND:
        t.post_blind(t.turn.seat)
    assert t.turn.seat == 0  # heads-up: the button acts first preflop
    m = OpponentModel()
    o = observation_from_table(t, 0, m)
    assert o.hole == tuple(t.hand.hole[0]) and o.board == ()
    assert o.to_call == Decimal(5) and o.pot == Decimal(15)
    assert o.legal == (FOLD, CALL, RAISE) and o.raises == 1 and o.bet_size == Decimal(10)
    assert o.players == 2 and o.in_position  # the button acts last after the flop
    assert [x.seat for x in o.opponents] == [1]
    t.act(0, RAISE, Decimal(20))
    o = observation_from_table(t, 1, m)
    assert o.to_call == Decimal(10) and o.raises == 2 and not o.in_position
    assert o.opponents[0].aggressive == 1
    t.act(1, CALL)
    o = observation_from_table(t, 1, m)  # the big blind acts first on the flop
    assert len(o.board) == 3 and o.street == 1 and o.to_call == 0
    assert o.legal == (CHECK, BET) and o.pot == Decimal(40)
