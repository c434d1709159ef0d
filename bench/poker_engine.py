"""Benchmark: heads-up hands per second of the poker engine, against pokerkit in one run.

Usage: ``python bench/poker_engine.py [--hands N] [--repeats R] [--limit no|fixed] [--seed S]``

Two players with 100 big blinds each (stacks reset after every hand) play ``N`` Hold'em
hands with random legal actions: at each decision fold (when facing a bet), check or
call, or bet/raise are equally likely, a no-limit amount is the most allowed one time
in four and otherwise uniform in whole chips.  Blinds are posted automatically and a
loser asked to show mucks.  If pokerkit is installed it plays the same kind of hands
with the same policy (its own dealing automated).  After a warm-up of 50 hands each
(our evaluator builds its tables on first use), the two are timed alternately ``R``
times and the median rates are printed with their ratio.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.poker import rules as R  # noqa: E402

BIG_BLIND = 2
STACK = 100 * BIG_BLIND


def _amount(rng: random.Random, lo: int, hi: int) -> int:
    return hi if rng.random() < 0.25 else rng.randint(lo, hi)


def ours(hands: int, rng: random.Random, limit: int) -> None:
    """Play ``hands`` heads-up hands on our engine."""
    cfg = R.TableConfig(limit=limit, small_bet=Decimal(BIG_BLIND), seats=2, chip=Decimal(1))
    t = R.Table(cfg, rng=rng)
    for s in (0, 1):
        t.seat_player(s, f"p{s}", STACK)
        t.set_auto_post(s, True)
    deck = list(range(52))
    for _ in range(hands):
        for s in (0, 1):
            if t.players[s].stack != STACK:
                t.remove(s)
                t.seat_player(s, f"p{s}", STACK)
                t.set_auto_post(s, True)
        rng.shuffle(deck)
        t.start_hand(deck)
        while t.in_hand:
            turn = t.turn
            assert turn is not None, "the engine stuck"
            seat = turn.seat
            if turn.kind == R.SHOWING:
                t.muck(seat)
                continue
            a = rng.choice(t.legal_actions(seat))
            if a.min is not None and a.max is not None:
                t.act(seat, a.index, _amount(rng, int(a.min), int(a.max)))
            else:
                t.act(seat, a.index)
        t.drain()


def theirs(hands: int, rng: random.Random, limit: int) -> None:
    """Play ``hands`` heads-up hands on pokerkit."""
    import pokerkit

    auto = pokerkit.Automation
    automations = (
        auto.ANTE_POSTING,
        auto.BET_COLLECTION,
        auto.BLIND_OR_STRADDLE_POSTING,
        auto.CARD_BURNING,
        auto.HOLE_DEALING,
        auto.BOARD_DEALING,
        auto.HOLE_CARDS_SHOWING_OR_MUCKING,
        auto.HAND_KILLING,
        auto.CHIPS_PUSHING,
        auto.CHIPS_PULLING,
    )
    blinds = (BIG_BLIND // 2, BIG_BLIND)
    for _ in range(hands):
        if limit == R.FIXED_LIMIT:
            st = pokerkit.FixedLimitTexasHoldem.create_state(
                automations, True, 0, blinds, BIG_BLIND, 2 * BIG_BLIND, (STACK, STACK), 2
            )
        else:
            st = pokerkit.NoLimitTexasHoldem.create_state(
                automations, True, 0, blinds, BIG_BLIND, (STACK, STACK), 2
            )
        while st.status:
            options = ["call"]
            if st.can_fold():
                options.append("fold")
            if st.can_complete_bet_or_raise_to():
                options.append("raise")
            what = rng.choice(options)
            if what == "fold":
                st.fold()
            elif what == "call":
                st.check_or_call()
            elif limit == R.FIXED_LIMIT:
                st.complete_bet_or_raise_to()
            else:
                lo = st.min_completion_betting_or_raising_to_amount
                hi = st.max_completion_betting_or_raising_to_amount
                assert lo is not None and hi is not None
                st.complete_bet_or_raise_to(_amount(rng, int(lo), int(hi)))


def rate(play: Callable[[int, random.Random, int], None], hands: int, seed: int, limit: int):
    """Hands per second of one pass of ``play``."""
    rng = random.Random(seed)
    t0 = time.perf_counter()
    play(hands, rng, limit)
    return hands / (time.perf_counter() - t0)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=5000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--limit", choices=("no", "fixed"), default="no")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    limit = R.NO_LIMIT if args.limit == "no" else R.FIXED_LIMIT
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        have_pokerkit = False
    else:
        have_pokerkit = True
    # warm up (our evaluator builds its rank table on first use)
    rate(ours, 50, args.seed, limit)
    if have_pokerkit:
        rate(theirs, 50, args.seed, limit)
    mine: list[float] = []
    other: list[float] = []
    for r in range(args.repeats):
        mine.append(rate(ours, args.hands, args.seed + r, limit))
        if have_pokerkit:
            other.append(rate(theirs, args.hands, args.seed + r, limit))
    a = statistics.median(mine)
    print(f"{args.limit}-limit heads-up, {args.hands} hands, median of {args.repeats}")
    print(f"gamehub:  {a:10.0f} hands/s")
    if have_pokerkit:
        b = statistics.median(other)
        print(f"pokerkit: {b:10.0f} hands/s")
        print(f"ratio gamehub/pokerkit: {a / b:.2f}")
    else:
        print("pokerkit: not installed (the `test` extra)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
