"""``Table.fork``: a copy of a table between hands that plays on apart (the
peer-to-peer tables play each hand twice from one place, docs/p2p.md)."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from games.poker import rules


def table() -> rules.Table:
    t = rules.Table(rules.TableConfig(seats=3), rng=random.Random(1))
    for seat in range(3):
        t.seat_player(seat, f"p{seat}", Decimal(100))
        t.players[seat].auto_post = True
    return t


def play_out(t: rules.Table) -> None:
    while t.in_hand:
        turn = t.turn
        legal = t.legal_actions(turn.seat)
        choice = legal[1] if len(legal) > 1 else legal[0]
        t.act(turn.seat, choice.index, choice.amount)


def test_a_fork_plays_on_apart_and_the_same_hand_again_gives_the_same_result():
    t = table()
    t.start_hand(list(range(52)))
    play_out(t)
    before = t.fork()
    deck = random.Random(7).sample(range(52), 52)
    first, second = before.fork(), before.fork()
    for copy in (first, second):
        copy.start_hand(deck, hand_id="h2")
        play_out(copy)
    assert first.stacks() == second.stacks() != before.stacks()
    assert first.last_hand.deltas == second.last_hand.deltas
    assert before.hand is None and before.drain() == [] and before.stacks() == t.stacks()
    assert before.button == t.button and before.hands_played == t.hands_played
    first.players[0].stack += 1  # players are the fork's own
    assert second.players[0].stack != first.players[0].stack


def test_no_fork_in_the_middle_of_a_hand():
    t = table()
    t.start_hand(list(range(52)))
    with pytest.raises(rules.RuleError, match="between hands"):
        t.fork()
