"""Hand-history export and the JSON form of hand records."""

from __future__ import annotations

import json
import random

from games.poker import history
from games.poker import rules as R

from .pokerhelp import do, random_action
from .test_rules_seed import _heads_up_to_turn


def _river_hand() -> R.HandRecord:
    t = _heads_up_to_turn()
    do(t, 1, "bet")
    do(t, 8, "raise")
    do(t, 1, "call")
    do(t, 1, "check")
    do(t, 8, "bet")
    do(t, 1, "call")
    t.muck(1)
    return t.last_hand.with_extra(commitment="ab" * 32, seed="cd" * 32, table="T", time=0)


def test_text_export_of_the_seed_hand():
    text = history.format_hand(_river_hand(), seat=8)
    lines = text.splitlines()
    assert lines[0].startswith("Gamehub Hand #1: Hold'em Limit (10/20), blinds 5/10")
    for expected in (
        "Seat 9 is the button",
        "p0: posts small blind 5",
        "p1: posts big blind 10",
        "*** HOLE CARDS ***",
        "Dealt to p8 [As Ah]",
        "*** FLOP *** [2c 7d 9h]",
        "*** TURN *** [2c 7d 9h] [Js]",
        "p1: bets 20",
        "p8: raises to 40",
        "p1: calls 20",
        "*** RIVER *** [2c 7d 9h Js] [3s]",
        "*** SHOW DOWN ***",
        "p8: shows [As Ah] (Pair of aces)",
        "p8 collected 145 from the pot",
        "p1: mucks hand",
        "*** SUMMARY ***",
        "Total pot 145",
        "Seat 9: p8 (button) showed [As Ah] and won (145) with Pair of aces",
        "Seat 2: p1 mucked",
        "Shuffle seed: withheld (it would show cards that were not shown down)",
    ):
        assert expected in lines, expected
    # the seed gives the whole deck: only the operator's view shows it after a muck
    assert "cd" * 32 not in text and not history.seed_is_public(_river_hand())
    assert "Shuffle seed: " + "cd" * 32 in history.format_hand(_river_hand(), reveal=True)
    # the mucked hand stays hidden unless revealed
    assert "[Kd Qc]" not in text
    assert "Dealt to p1 [Kd Qc]" in history.format_hand(_river_hand(), reveal=True)
    # a reader at another seat sees no hole cards but the shown ones
    assert "Dealt to" not in history.format_hand(_river_hand(), seat=None)


def _random_hands(n: int, draw: bool = False):
    rng = random.Random(5)
    for _ in range(n):
        k = rng.randint(2, 6)
        cfg = R.TableConfig(
            variant=R.FIVE_CARD_DRAW if draw else R.TEXAS_HOLDEM,
            limit=rng.choice([0, 1, 2]),
            small_bet=R.money(2),
            seats=6,
            chip=R.money(1),
        )
        t = R.Table(cfg, rng=rng)
        for s in range(k):
            t.seat_player(s, f"p{s}", rng.choice([3, 10, 50, 200]))
            t.players[s].auto_post = True
        deck = list(range(52))
        rng.shuffle(deck)
        t.start_hand(deck)
        while t.in_hand:
            random_action(t, rng)
        yield t.last_hand


def test_every_random_hand_exports_and_round_trips():
    for rec in list(_random_hands(150)) + list(_random_hands(50, draw=True)):
        text = history.format_hand(rec, reveal=True)
        assert "*** SUMMARY ***" in text
        data = json.loads(json.dumps(history.to_dict(rec)))
        assert history.from_dict(data) == rec


def test_draw_hand_export():
    rec = next(
        r for r in _random_hands(50, draw=True) if any(a.kind == "discard" for a in r.actions)
    )
    text = history.format_hand(rec)
    assert "5 Card Draw" in text.splitlines()[0]
    assert "*** DRAW ***" in text
