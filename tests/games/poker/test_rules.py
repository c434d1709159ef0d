"""Rules of poker-rules.md beyond the seed's worked examples."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from games.poker import rules as R

from .pokerhelp import cards, deal_order, do, fresh_deck, legal, stacked_deck, table


def finish(t: R.Table) -> None:
    """Check/fold everyone down and muck: end the hand."""
    while t.in_hand:
        turn = t.turn
        if turn.kind == R.BETTING:
            t.act(turn.seat, R.CHECK if t.can_check(turn.seat) else R.FOLD)
        elif turn.kind == R.SHOWING:
            t.muck(turn.seat)
        elif turn.kind == R.DISCARDING:
            t.discard(turn.seat, ())
        else:
            t.post_blind(turn.seat)


# -- money ----------------------------------------------------------------------------


def test_money_is_decimal_never_float():
    with pytest.raises(TypeError):
        R.money(1.5)
    with pytest.raises(TypeError):
        R.TableConfig(small_bet=10.0)
    t = R.Table()
    with pytest.raises(TypeError):
        t.seat_player(5, "x", 100.0)
    assert 5 not in t.players
    assert R.money("12.50") == D("12.50")
    assert R.money(3) == D(3)
    with pytest.raises(ValueError):
        R.money("1.234")
    with pytest.raises(ValueError):
        R.money("abc")
    with pytest.raises(ValueError):
        R.money(D("NaN"))


def test_no_limit_rejects_float_amount_and_changes_nothing():
    t = table(2, limit=R.NO_LIMIT)
    t.start_hand(fresh_deck(), button=0)
    before = t.stacks()
    with pytest.raises(TypeError):
        t.raise_to(0, 40.0)
    assert t.stacks() == before and t.turn == R.Turn(0, R.BETTING)


def test_bad_actions_change_nothing():
    t = table(3)
    t.start_hand(fresh_deck(), button=0)
    snapshot = (t.stacks(), t.turn, t.pot_total())
    for bad in (
        lambda: t.check(0),  # owes the big blind
        lambda: t.fold(1),  # not its turn
        lambda: t.bet(0),  # there is a bet
        lambda: t.discard(0, [0]),  # no discard round in hold'em
        lambda: t.show(0),
        lambda: t.post_blind(0),
        lambda: t.act(0, 99),
    ):
        with pytest.raises(R.RuleError):
            bad()
        assert (t.stacks(), t.turn, t.pot_total()) == snapshot


# -- blinds ---------------------------------------------------------------------------


def test_blinds_asked_when_not_automatic_and_refusal_sits_out():
    t = table(4, auto_post=False)
    t.start_hand(fresh_deck(), button=0)
    assert t.turn == R.Turn(1, R.BLIND)
    opts = legal(t, 1)
    assert set(opts) == {"post", "sitout"} and opts["post"].amount == 5
    t.post_blind(1)
    assert t.turn == R.Turn(2, R.BLIND)
    assert legal(t, 2)["post"].amount == 10
    # the big blind refuses: it sits out and the next player becomes the big blind
    t.refuse_blind(2)
    assert t.players[2].sitting_out
    assert t.turn == R.Turn(3, R.BLIND)
    assert legal(t, 3)["post"].amount == 10
    t.post_blind(3)
    assert t.hand.bb_seat == 3
    assert t.turn == R.Turn(0, R.BETTING)  # left of the (new) big blind
    assert 2 not in t.hand.seats


def test_less_than_two_in_blind_round_returns_the_blinds():
    t = table(2, auto_post=False)
    t.start_hand(fresh_deck(), button=0)
    t.post_blind(0)
    t.refuse_blind(1)
    assert not t.in_hand
    assert t.stacks() == {0: 1000, 1: 1000}
    kinds = [r.kind for r in t.last_hand.actions]
    assert "cancel" in kinds and "hole" not in kinds


def test_timeout_on_blind_sits_out():
    t = table(3, auto_post=False)
    t.start_hand(fresh_deck(), button=0)
    t.timeout(1)
    assert t.players[1].sitting_out
    assert t.hand.sb_seat is None  # no small blind this hand


def test_newcomer_posts_big_blind_to_be_dealt_in():
    t = table(4, seats=8)
    t.start_hand(fresh_deck(), button=0)
    finish(t)
    t.seat_player(6, "late", 500)
    t.players[6].auto_post = False
    t.start_hand(fresh_deck(1))  # button 1: SB 2, BB 3; the newcomer at 6 owes a BB
    assert (t.hand.sb_seat, t.hand.bb_seat) == (2, 3)
    assert t.turn == R.Turn(6, R.BLIND)
    assert legal(t, 6)["post"].amount == 10
    t.post_blind(6)
    assert 6 in t.hand.seats
    # the newcomer's blind is live: first to act, it may check or raise
    assert t.turn == R.Turn(6, R.BETTING) and set(legal(t, 6)) == {"check", "raise"}
    do(t, 6, "check")
    do(t, 0, "call")
    do(t, 1, "call")
    do(t, 2, "call")
    do(t, 3, "check")
    assert t.pot_total() == 50 and t.hand.stage == 1


def test_newcomer_who_waits_sits_out_and_still_owes():
    t = table(4, seats=8)
    t.start_hand(fresh_deck(), button=0)
    finish(t)
    t.seat_player(6, "late", 500)
    t.players[6].auto_post = False
    t.start_hand(fresh_deck(1))
    t.refuse_blind(6)
    assert t.players[6].sitting_out and t.players[6].new
    assert 6 not in t.hand.seats


def test_missed_blinds_big_live_small_dead():
    t = table(4)
    t.start_hand(fresh_deck(), button=3)  # SB 0, BB 1
    t.sit_out(2)  # from the next hand
    finish(t)
    assert t.players[2].sitting_out
    # the big blind passes seat 2: it owes the big blind and the small blind
    t.start_hand(fresh_deck(1))  # button 0, SB 1, BB 3 (2 sits out)
    assert (t.hand.sb_seat, t.hand.bb_seat) == (1, 3)
    finish(t)
    assert t.players[2].missed_big and t.players[2].missed_small
    t.sit_in(2)
    t.players[2].auto_post = False
    t.start_hand(fresh_deck(2))  # button 1, SB 2? seat 2 is back: SB 2, BB 3
    h = t.hand
    assert (h.sb_seat, h.bb_seat) == (2, 3)
    # in the small blind with a missed big blind: posts the big blind live
    assert t.turn == R.Turn(2, R.BLIND)
    assert legal(t, 2)["post"].amount == 10


def test_missed_blinds_posted_from_a_later_seat():
    t = table(5)
    t.start_hand(fresh_deck(), button=4)  # SB 0, BB 1
    t.sit_out(3)
    finish(t)
    t.start_hand(fresh_deck(1))  # button 0, SB 1, BB 2
    finish(t)
    t.start_hand(fresh_deck(2))  # button 1, SB 2, BB 4: 3 missed both
    assert (t.hand.sb_seat, t.hand.bb_seat) == (2, 4)
    finish(t)
    assert t.players[3].missed_big and t.players[3].missed_small
    t.sit_in(3)
    t.players[3].auto_post = False
    t.start_hand(fresh_deck(3))  # button 2, SB 3? no: 3 is sitting in again → SB 3
    # whichever position: the missed blinds are asked for or the blind is the position's
    assert t.turn.seat == 3 and t.turn.kind == R.BLIND


def test_returning_player_between_blinds_posts_big_live_and_small_dead():
    t = table(6)
    t.start_hand(fresh_deck(), button=5)  # SB 0, BB 1
    t.sit_out(4)
    finish(t)
    for k in range(5):  # the blinds pass seat 4; the button goes round to seat 3
        t.start_hand(fresh_deck(k + 1))
        finish(t)
    p = t.players[4]
    assert p.missed_big and p.missed_small
    t.sit_in(4)
    p.auto_post = False
    t.start_hand(fresh_deck(9))
    h = t.hand
    assert 4 not in (h.sb_seat, h.bb_seat, h.button)
    assert t.turn == R.Turn(4, R.BLIND)
    assert legal(t, 4)["post"].amount == 15
    rec = t.post_blind(4)
    assert rec.get("dead") == 5 and rec.total == 10
    assert t.hand.dead == 5
    assert not p.missed_big and not p.missed_small


# -- betting structures ------------------------------------------------------------------


def test_no_limit_min_raise_is_the_last_raise():
    t = table(3, limit=R.NO_LIMIT)
    t.start_hand(fresh_deck(), button=0)  # SB 1, BB 2: UTG is the button 0
    opts = legal(t, 0)
    assert (opts["raise"].min, opts["raise"].max) == (20, 1000)
    with pytest.raises(R.RuleError):
        t.raise_to(0, 15)
    do(t, 0, "raise", 35)  # a raise of 25
    opts = legal(t, 1)
    assert (opts["raise"].min, opts["raise"].max) == (60, 1000)
    assert opts["call"].amount == 30
    with pytest.raises(R.RuleError):
        t.raise_to(1)  # no limit needs an amount


def test_pot_limit_maximum_is_the_pot_after_calling():
    t = table(3, limit=R.POT_LIMIT)
    t.start_hand(fresh_deck(), button=0)
    # pot 15, to call 10: pot after calling 25, raise to 10 + 25 = 35
    assert (legal(t, 0)["raise"].min, legal(t, 0)["raise"].max) == (20, 35)
    do(t, 0, "raise", 35)
    # SB: pot 5 + 10 + 35 = 50, to call 30 → 80; raise to 35 + 80 = 115
    assert legal(t, 1)["raise"].max == 115


def test_no_limit_short_all_in_does_not_reopen_the_betting():
    t = table(3, [1000, 1000, 45], limit=R.NO_LIMIT)
    t.start_hand(fresh_deck(), button=0)  # SB 1, BB 2 (45 chips)
    do(t, 0, "raise", 30)
    do(t, 1, "call")
    rec = do(t, 2, "raise", 45)  # all in, a raise of 15 < 20
    assert rec.allin
    # the button already acted on the full raise: it may only call or fold
    assert set(legal(t, 0)) == {"fold", "call"}
    do(t, 0, "call")
    # so may the small blind
    assert set(legal(t, 1)) == {"fold", "call"}


def test_fixed_limit_all_in_for_less_raises_to_what_it_has():
    t = table(3, [1000, 1000, 15])
    t.start_hand(fresh_deck(), button=0)
    do(t, 0, "call")
    do(t, 1, "call")
    # BB has 5 left: its raise is all in to 15
    assert legal(t, 2)["raise"].amount == 15
    rec = do(t, 2, "raise")
    assert rec.allin and rec.total == 15
    assert set(legal(t, 0)) == {"fold", "call"}


# -- all-in, side pots, splits -------------------------------------------------------------


def test_side_pots_and_uncalled_bet():
    # seat 0 (button) 1000, seat 1 (SB) 30, seat 2 (BB) 100
    t = table(3, [1000, 30, 100], limit=R.NO_LIMIT)
    order = deal_order(t, 0)
    deck = stacked_deck(
        order,
        {1: cards("As Ah"), 2: cards("Ks Kh"), 0: cards("Qs Qh")},
        cards("2c 7d 9h 3s 4d"),
    )
    t.start_hand(deck, button=0)
    do(t, 0, "raise", 500)
    do(t, 1, "call")  # all in 30
    do(t, 2, "call")  # all in 100
    finish(t)
    rec = t.last_hand
    announced = [r for r in rec.actions if r.kind == "pots"][-1].pots
    assert [(p.amount, p.eligible) for p in announced] == [(D(90), (0, 1, 2)), (D(140), (0, 2))]
    # as split: the queens cannot win anything and are out
    assert [(p.amount, p.eligible) for p in rec.pots] == [(D(90), (1, 2)), (D(140), (2,))]
    returned = [r for r in rec.actions if r.kind == "return"]
    assert [(r.seat, r.amount) for r in returned] == [(0, D(400))]
    assert dict(rec.deltas) == {0: D(-100), 1: D(60), 2: D(40)}
    assert t.stacks() == {0: 900, 1: 90, 2: 140}


def test_split_pot_even():
    t = table(3, chip=D(1), small_bet=D(2))  # blinds 1 and 2
    order = deal_order(t, 0)
    deck = stacked_deck(
        order,
        {1: cards("As 2d"), 2: cards("Ah 2h"), 0: cards("3c 4c")},
        cards("Kc Kd Qs Js 9h"),
    )
    t.start_hand(deck, button=0)
    do(t, 0, "fold")  # the button folds: pot 3 between SB and BB
    do(t, 1, "call")  # the small blind completes to 2: pot 4
    do(t, 2, "check")
    for _ in range(3):
        do(t, 1, "check")
        do(t, 2, "check")
    # both play A K K Q J: the pot of 4 splits 2 and 2
    assert dict(t.last_hand.deltas) == {0: 0, 1: 0, 2: 0}
    assert {s: a for s, a, _, _ in t.last_hand.awards} == {1: 2, 2: 2}


def test_odd_chip_three_way():
    t = table(4, chip=D(1), small_bet=D(2))
    order = deal_order(t, 3)
    deck = stacked_deck(
        order,
        {0: cards("2c 3d"), 1: cards("2d 3h"), 2: cards("7c 8d"), 3: cards("2h 3c")},
        cards("As Ks Qs Js 9h"),
    )
    t.start_hand(deck, button=3)  # SB 0, BB 1, UTG 2
    do(t, 2, "call")
    do(t, 3, "call")
    do(t, 0, "call")
    do(t, 1, "check")
    # flop: 0 bets 2, 1 calls, 2 folds, 3 calls: pot 8 + 6 = 14
    do(t, 0, "bet")
    do(t, 1, "call")
    do(t, 2, "fold")
    do(t, 3, "call")
    for _ in range(2):
        do(t, 0, "check")
        do(t, 1, "check")
        do(t, 3, "check")
    # 14 split three ways among 0, 1 and 3 (each plays the board A K Q J 9): 4 each,
    # the 2 odd chips to the first winner left of the button (seat 0)
    awards = {s: a for s, a, _, _ in t.last_hand.awards}
    assert awards == {0: D(6), 1: D(4), 3: D(4)}


def test_less_than_two_players_winner_may_show():
    t = table(3)
    t.start_hand(fresh_deck(), button=0)
    do(t, 0, "fold")
    do(t, 1, "fold")
    assert t.state == R.LESS_THAN_TWO
    assert t.turn == R.Turn(2, R.SHOWING)
    assert set(legal(t, 2)) == {"show", "muck"}
    t.show(2)
    assert not t.in_hand and t.last_hand.shown == (2,)
    assert dict(t.last_hand.deltas) == {0: 0, 1: -5, 2: 5}


def test_show_muck_timeout_mucks():
    t = table(2)
    t.start_hand(fresh_deck(), button=0)
    do(t, 0, "fold")
    t.timeout(1)
    assert not t.in_hand and t.last_hand.shown == ()


# -- sit out, leave, timeouts ------------------------------------------------------------


def test_action_timeout_checks_when_free_else_folds_and_sits_out():
    t = table(3)
    t.start_hand(fresh_deck(), button=0)
    t.timeout(0)  # owes 10: folds
    assert 0 in t.hand.folded and t.players[0].sit_out_next
    do(t, 1, "call")
    t.timeout(2)  # the big blind's option: checks
    assert 2 not in t.hand.folded
    finish(t)
    assert t.players[0].sitting_out and not t.players[1].sitting_out


def test_leave_mid_hand_folds_and_cashes_out_at_the_end():
    t = table(3)
    t.start_hand(fresh_deck(), button=0)
    t.drain()
    t.leave(1)  # the small blind, not its turn
    assert 1 in t.players
    do(t, 0, "call")
    # its turn comes: it folds at once
    assert 1 in t.hand.folded
    finish(t)
    assert 1 not in t.players
    leave = [r for r in t.drain() if r.kind == "leave"]
    assert [(r.seat, r.amount) for r in leave] == [(1, D(995))]


def test_leave_between_hands_is_immediate():
    t = table(3)
    rec = t.leave(2)
    assert rec.kind == "leave" and rec.amount == 1000 and 2 not in t.players


def test_sit_out_and_in():
    t = table(3)
    t.sit_out(2)
    assert t.players[2].sitting_out
    t.start_hand(fresh_deck(), button=0)
    assert 2 not in t.hand.seats
    finish(t)
    t.sit_in(2)
    t.start_hand(fresh_deck(1))
    assert 2 in t.hand.seats or t.turn.seat == 2


def test_waitplayers_until_two_sit_in():
    t = table(1, seats=4)
    assert t.state == R.WAIT_PLAYERS and not t.can_start_hand()
    with pytest.raises(R.RuleError, match="waiting"):
        t.start_hand(fresh_deck())
    t.seat_player(2, "b", 100)
    assert t.can_start_hand()


def test_busted_player_sits_out():
    t = table(2, [10, 1000])
    t.start_hand(fresh_deck(), button=1)  # SB 1, BB 0 all in with its blind
    do(t, 1, "call")
    finish(t)
    loser = [s for s, p in t.players.items() if p.stack == 0]
    for s in loser:
        assert t.players[s].sitting_out


# -- five-card draw ------------------------------------------------------------------------


def test_five_card_draw_hand():
    t = table(3, variant=R.FIVE_CARD_DRAW)
    t.start_hand(fresh_deck(7), button=0)
    assert all(len(t.hand.hole[s]) == 5 for s in t.hand.seats)
    do(t, 0, "call")
    do(t, 1, "call")
    do(t, 2, "check")
    assert t.state == R.DISCARD_ROUND
    assert t.turn == R.Turn(1, R.DISCARDING)
    assert legal(t, 1)["discard"].count == 3
    with pytest.raises(R.RuleError):
        t.discard(1, [0, 1, 2, 3])
    old = list(t.hand.hole[1])
    rec = t.discard(1, [0, 4])
    new = t.hand.hole[1]
    assert new[1:4] == old[1:4] and new[0] != old[0] and rec.get("count") == 2
    t.discard(2, [])
    t.discard(0, [1])
    assert t.state == R.BET_ROUND and t.hand.bet_size == 20
    assert t.turn == R.Turn(1, R.BETTING)
    finish(t)
    assert sum(d for _, d in t.last_hand.deltas) == 0


def test_draw_table_size_is_limited_by_the_deck():
    with pytest.raises(ValueError):
        R.TableConfig(variant=R.FIVE_CARD_DRAW, seats=7)
