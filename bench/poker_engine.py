"""Benchmark: heads-up hands per second of the poker engine, against pokerkit and OpenSpiel.

Usage: ``python bench/poker_engine.py [--hands N] [--repeats R] [--limit fixed|no] [--seed S]``

Two players with 100 big blinds each (stacks reset after every hand: our table's hand
stack, a fresh state for the others) play ``N`` Hold'em
hands with random legal actions: at each decision fold (when facing a bet), check or
call, or bet/raise are equally likely, a no-limit amount is the most allowed one time
in four and otherwise uniform in whole chips.  Blinds are posted automatically and a
loser asked to show mucks.  Each engine deals at random in its own way, the same work
for ours and pokerkit: ours from a whole deck shuffled each hand (Fisher–Yates, 51
draws; until issue 36 only the 12 cards a hand can use were drawn), pokerkit by its
automation (which shuffles its whole deck), OpenSpiel (``universal_poker``, fixed
limit only) by sampling its chance nodes.  pokerkit and OpenSpiel play when installed.  After a warm-up pass each
(our evaluator builds its tables on first use), the engines are timed interleaved
``R`` times (:func:`bench.common.measure`) and the medians are printed with the ratios
the issue sets goals for (fixed limit: ≥ 12 × pokerkit, issue 36; ≥ 0.2 × OpenSpiel).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import measure, report  # noqa: E402
from games.poker import rules as R  # noqa: E402

BIG_BLIND = 2
STACK = 100 * BIG_BLIND
#: OpenSpiel's heads-up fixed-limit Hold'em with our blinds, bet sizes, cap and stacks
#: (player 0 is the big blind, player 1 the small blind and first to act preflop; its
#: raises preflop do not count the big blind, our cap does)
OPENSPIEL_GAME = (
    "universal_poker(betting=limit,numPlayers=2,numRounds=4,blind={bb} {sb},"
    "raiseSize={bb} {bb} {big} {big},firstPlayer=2 1 1 1,"
    "maxRaises={pre} {cap} {cap} {cap},"
    "numSuits=4,numRanks=13,numHoleCards=2,numBoardCards=0 3 1 1,stack={stack} {stack})"
)


def _amount(rng: random.Random, lo: int, hi: int) -> int:
    return hi if rng.random() < 0.25 else rng.randint(lo, hi)


def ours(hands: int, rng: random.Random, limit: int) -> None:
    """Play ``hands`` heads-up hands on our engine.

    The table is the hub's: every hand starts from ``STACK`` chips by the table's hand
    stack (the ``hand_stack`` game option, as in computer poker matches), over seats
    bought in with more than a pass can lose.
    """
    cfg = R.TableConfig(
        limit=limit,
        small_bet=Decimal(BIG_BLIND),
        seats=2,
        chip=Decimal(1),
        hand_stack=Decimal(STACK),
    )
    t = R.Table(cfg, rng=rng)
    for s in (0, 1):
        t.seat_player(s, f"p{s}", STACK * (hands + 1))
        t.set_auto_post(s, True)
    deck = list(range(52))
    random_ = rng.random
    choice = rng.choice
    for _ in range(hands):
        for i in range(51):  # a whole shuffle, as pokerkit's automation deals
            j = i + int(random_() * (52 - i))
            deck[i], deck[j] = deck[j], deck[i]
        t.start_hand(deck)
        while t.in_hand:
            turn = t.turn
            assert turn is not None, "the engine stuck"
            seat = turn.seat
            if turn.kind == R.SHOWING:
                t.muck(seat)
                continue
            a = choice(t.legal_actions(seat))
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


def openspiel(hands: int, rng: random.Random, limit: int) -> None:
    """Play ``hands`` heads-up fixed-limit hands on OpenSpiel's ``universal_poker``."""
    import pyspiel

    cap = R.TableConfig(limit=R.FIXED_LIMIT, small_bet=Decimal(BIG_BLIND), seats=2).cap
    game = pyspiel.load_game(
        OPENSPIEL_GAME.format(
            bb=BIG_BLIND,
            sb=BIG_BLIND // 2,
            big=2 * BIG_BLIND,
            pre=(cap or 4) - 1,
            cap=cap or 4,
            stack=STACK,
        )
    )
    choice = rng.choice
    for _ in range(hands):
        st = game.new_initial_state()
        while not st.is_terminal():
            st.apply_action(choice(st.legal_actions()))


def passes(play, hands: int, seed: int, limit: int):
    """One timed pass of ``play`` for :func:`measure` (a new seed each pass)."""
    seeds = iter(range(seed, seed + 1_000_000))

    def run() -> int:
        play(hands, random.Random(next(seeds)), limit)
        return hands

    return run


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=5000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--limit", choices=("fixed", "no"), default="fixed")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    limit = R.NO_LIMIT if args.limit == "no" else R.FIXED_LIMIT
    contenders = {"gamehub": passes(ours, args.hands, args.seed, limit)}
    goals = {}
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        print("pokerkit: not installed (the `test` extra) - no ratio to pokerkit")
    else:
        contenders["pokerkit"] = passes(theirs, args.hands, args.seed, limit)
        goals["pokerkit"] = "≥ 12"
    if limit == R.FIXED_LIMIT:
        try:
            import pyspiel  # noqa: F401
        except ImportError:
            print("OpenSpiel: not installed (the `test` extra) - no ratio to OpenSpiel")
        else:
            contenders["OpenSpiel"] = passes(openspiel, args.hands * 4, args.seed, limit)
            goals["OpenSpiel"] = "≥ 0.2"
    else:
        print("OpenSpiel: fixed limit only here (--limit fixed)")
    figures = measure(contenders, "hands/s", rounds=args.repeats)
    report(
        f"{args.limit}-limit heads-up Hold'em, random actions, {args.hands} hands a pass",
        figures,
        "gamehub",
        goals,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
