"""The worked examples of seed 001_f83c3ead110cdbfd.txt (fixed-limit Hold'em), as tests.

Stakes 10/20 throughout: small bet 10 (preflop, flop), big bet 20 (turn, river),
big blind 10, small blind 5.
"""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from games.poker import rules as R

from .pokerhelp import cards, deal_order, do, fresh_deck, legal, stacked_deck, table


def test_stakes_10_20_blinds_and_bet_sizes():
    cfg = R.TableConfig(small_bet=D(10))
    assert (cfg.small_blind, cfg.big_blind, cfg.small_bet, cfg.big_bet) == (5, 10, 10, 20)
    assert cfg.stakes == "10/20"


def test_nine_handed_capped_preflop():
    """UTG raises to 20; 4, 5, 6 fold; 7 re-raises to 30; 8 calls; the button folds;
    the small blind calls (25 more); the big blind caps it at 40 (30 more); back to UTG,
    who may only call or fold."""
    t = table(9)
    # seats 0..8: button 8, small blind 0 ("seat 1"), big blind 1, UTG 2 ("seat 3")
    t.start_hand(fresh_deck(), button=8)
    h = t.hand
    assert (h.sb_seat, h.bb_seat) == (0, 1)
    assert t.turn == R.Turn(2, R.BETTING)
    assert legal(t, 2)["raise"].amount == 20
    assert set(legal(t, 2)) == {"fold", "call", "raise"}
    assert do(t, 2, "raise").total == 20
    for s in (3, 4, 5):
        do(t, s, "fold")
    assert legal(t, 6)["raise"].amount == 30
    assert do(t, 6, "raise").amount == 30
    assert do(t, 7, "call").amount == 30
    do(t, 8, "fold")
    rec = do(t, 0, "call")
    assert (rec.amount, rec.total) == (25, 30)
    assert legal(t, 1)["raise"].amount == 40
    rec = do(t, 1, "raise")
    assert (rec.amount, rec.total) == (30, 40)
    # capped: four bets (the big blind counts as the first)
    assert t.turn == R.Turn(2, R.BETTING)
    assert set(legal(t, 2)) == {"fold", "call"}
    assert legal(t, 2)["call"].amount == 20
    assert not t.can_raise_to(2)
    with pytest.raises(R.RuleError, match="capped"):
        t.raise_to(2)
    do(t, 2, "call")
    for s in (6, 7, 0):
        assert set(legal(t, s)) == {"fold", "call"}
        assert do(t, s, "call").amount == 10
    # round over: everyone left has put in 40; the flop comes
    assert t.hand.stage == 1 and len(t.hand.board) == 3
    assert t.pot_total() == 5 * 40
    assert t.turn == R.Turn(0, R.BETTING)  # the small blind acts first on the flop


def _to_flop_sb_bb_button(n: int = 10):
    """10-handed: everyone folds to the button, who calls; SB calls; BB checks."""
    t = table(n)
    button = n - 1
    t.start_hand(fresh_deck(1), button=button)
    for s in range(2, button):
        do(t, s, "fold")
    do(t, button, "call")
    do(t, 0, "call")
    assert set(legal(t, 1)) == {"check", "raise"}  # the big blind's option
    do(t, 1, "check")
    assert t.hand.stage == 1
    return t


def test_flop_check_bet_call_then_raise_option():
    """Flop, 10 players, SB, BB and the button left: SB checks, BB bets 10, the button
    calls; the SB may now fold, call 10 or raise to 20."""
    t = _to_flop_sb_bb_button(10)
    assert t.turn == R.Turn(0, R.BETTING)
    assert set(legal(t, 0)) == {"check", "bet"}
    assert legal(t, 0)["bet"].amount == 10
    do(t, 0, "check")
    assert do(t, 1, "bet").amount == 10
    assert do(t, 9, "call").amount == 10
    opts = legal(t, 0)
    assert set(opts) == {"fold", "call", "raise"}
    assert opts["call"].amount == 10
    assert opts["raise"].amount == 20
    rec = do(t, 0, "raise")
    assert (rec.amount, rec.total) == (20, 20)
    # the others must answer the check-raise
    assert t.turn == R.Turn(1, R.BETTING)


def test_flop_cap_is_bet_and_three_raises():
    t = _to_flop_sb_bb_button(10)
    do(t, 0, "bet")
    do(t, 1, "raise")
    do(t, 9, "raise")
    rec = do(t, 0, "raise")
    assert rec.total == 40
    assert set(legal(t, 1)) == {"fold", "call"}
    do(t, 1, "call")
    do(t, 9, "call")
    assert t.hand.stage == 2


def test_flop_with_small_blind_folded_big_blind_first():
    t = table(4)
    t.start_hand(fresh_deck(2), button=3)
    do(t, 2, "call")
    do(t, 3, "call")
    do(t, 0, "fold")
    do(t, 1, "check")
    assert t.turn == R.Turn(1, R.BETTING)  # SB folded: the big blind first


def _heads_up_to_turn():
    """Nine-handed; after the flop only the big blind (1) and the button (8) are left."""
    t = table(9)
    hero = cards("As Ah")  # the button
    villain = cards("Kd Qc")  # the big blind
    board = cards("2c 7d 9h Js 3s")
    order = deal_order(t, 8)
    deck = stacked_deck(order, {8: hero, 1: villain}, board)
    t.start_hand(deck, button=8)
    for s in range(2, 8):
        do(t, s, "fold")
    do(t, 8, "call")
    do(t, 0, "fold")
    do(t, 1, "check")
    # flop: big blind first (the small blind folded)
    do(t, 1, "check")
    do(t, 8, "check")
    assert t.hand.stage == 2
    return t


def test_turn_bet_raise_call_heads_up():
    """Turn: the big blind bets 20, the button raises to 40, the big blind calls 20."""
    t = _heads_up_to_turn()
    assert t.turn == R.Turn(1, R.BETTING)
    assert legal(t, 1)["bet"].amount == 20
    assert do(t, 1, "bet").amount == 20
    assert legal(t, 8)["raise"].amount == 40
    rec = do(t, 8, "raise")
    assert (rec.amount, rec.total) == (40, 40)
    assert do(t, 1, "call").amount == 20
    assert t.hand.stage == 3  # the river
    assert t.pot_total() == 5 + 10 + 10 + 80


def test_river_check_bet_call_then_showdown_and_muck():
    """River: the big blind checks, the button bets 20; the big blind may fold, call or
    raise, and calls.  The button (the last aggressor) shows first; the better hand is
    shown automatically; the loser, who only called, may muck."""
    t = _heads_up_to_turn()
    do(t, 1, "check")
    do(t, 8, "check")
    assert t.hand.stage == 3
    do(t, 1, "check")
    assert do(t, 8, "bet").amount == 20
    opts = legal(t, 1)
    assert set(opts) == {"fold", "call", "raise"}
    assert opts["raise"].amount == 40
    do(t, 1, "call")
    t.drain()
    # winnings: the aces win the pot: the folded small blind 5, 10 + 10, 20 + 20
    assert t.turn == R.Turn(1, R.SHOWING)
    shown = [r for r in t.hand.records if r.kind == "show"]
    assert [r.seat for r in shown] == [8]
    assert shown[0].cards == tuple(cards("As Ah"))
    awards = [r for r in t.hand.records if r.kind == "award"]
    assert [(r.seat, r.amount) for r in awards] == [(8, D(5 + 10 + 10 + 40))]
    do(t, 1, "muck")
    assert not t.in_hand
    assert t.last_hand.shown == (8,)
    assert dict(t.last_hand.deltas)[8] == D(5 + 10 + 20)
    assert dict(t.last_hand.deltas)[1] == D(-30)


def test_river_winner_who_called_is_shown_automatically():
    t = table(9)
    order = deal_order(t, 8)
    deck = stacked_deck(order, {8: cards("Kd Qc"), 1: cards("As Ah")}, cards("2c 7d 9h Js 3s"))
    t.start_hand(deck, button=8)
    for s in range(2, 8):
        do(t, s, "fold")
    do(t, 8, "call")
    do(t, 0, "fold")
    do(t, 1, "check")
    for _ in range(2):
        do(t, 1, "check")
        do(t, 8, "check")
    do(t, 1, "check")
    do(t, 8, "bet")
    do(t, 1, "call")
    # the button bet last and shows first (and may not muck); the caller wins, shown too
    shown = [r.seat for r in t.hand.records if r.kind == "show"]
    assert shown == [8, 1]
    assert not t.in_hand


def test_heads_up_button_posts_small_blind_and_acts_first_preflop():
    """Heads-up: the button posts the small blind and acts first preflop; the big blind
    acts first on the flop, turn and river."""
    t = table(2)
    t.start_hand(fresh_deck(3), button=0)
    h = t.hand
    assert (h.sb_seat, h.bb_seat) == (0, 1)
    posts = {r.seat: r.amount for r in h.records if r.kind == "post"}
    assert posts == {0: 5, 1: 10}
    assert t.turn == R.Turn(0, R.BETTING)
    assert set(legal(t, 0)) == {"fold", "call", "raise"}
    do(t, 0, "call")
    assert set(legal(t, 1)) == {"check", "raise"}
    do(t, 1, "check")
    for stage in (1, 2, 3):
        assert t.hand.stage == stage
        assert t.turn == R.Turn(1, R.BETTING)
        do(t, 1, "check")
        do(t, 0, "check")


def test_heads_up_cap_four_bets_preflop():
    t = table(2)
    t.start_hand(fresh_deck(4), button=0)
    do(t, 0, "raise")  # 20
    do(t, 1, "raise")  # 30
    do(t, 0, "raise")  # 40: capped
    assert set(legal(t, 1)) == {"fold", "call"}


def test_button_moves_clockwise():
    t = table(3)
    t.start_hand(fresh_deck(5), button=0)
    while t.in_hand:
        turn = t.turn
        if turn.kind == R.BETTING:
            t.act(turn.seat, R.FOLD if t.can_fold(turn.seat) else R.CHECK)
        else:
            t.muck(turn.seat)
    t.start_hand(fresh_deck(6))
    assert t.hand.button == 1
    assert (t.hand.sb_seat, t.hand.bb_seat) == (2, 0)


BOARD = "5c 5d Jh Js Qc"


@pytest.mark.parametrize(
    "a, b, result, board",
    [
        # two pair with the ace kicker beats the king kicker.  The seed gives this one
        # on the board 5 5 J J Q, where K Q would make queens and jacks and win (see the
        # next case); its words ("ace kicker" vs "king kicker") fit a board without a
        # queen, so it is played on 5 5 J J 2.
        ("As Kd", "Kh Qd", "a", "5c 5d Jh Js 2c"),
        ("As Kd", "Kh Qd", "b", BOARD),
        ("As Kd", "Ah 4d", "split", BOARD),  # both 5 5 J J A
        ("3s 3h", "4s 4h", "split", BOARD),  # the board plays: 5 5 J J Q
        ("As Kd", "6s 6h", "b", BOARD),  # 6 6 J J Q beats 5 5 J J A
        ("Ah 5s", "Ad Jc", "b", BOARD),  # J J J 5 5 beats 5 5 5 J J
    ],
)
def test_glossary_showdowns(a, b, result, board):
    """The seed's hand examples on the board 5 5 J J Q, played to a showdown."""
    t = table(2)
    deck = stacked_deck([1, 0], {0: cards(a), 1: cards(b)}, cards(board))
    t.start_hand(deck, button=0)
    do(t, 0, "call")
    do(t, 1, "check")
    for _ in range(3):
        do(t, 1, "check")
        do(t, 0, "check")
    while t.in_hand:
        t.muck(t.turn.seat)
    deltas = dict(t.last_hand.deltas)
    expected = {"a": (10, -10), "b": (-10, 10), "split": (0, 0)}[result]
    assert (deltas[0], deltas[1]) == expected
