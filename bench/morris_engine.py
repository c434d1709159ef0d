"""Benchmark: Nine Men's Morris random playouts per second, ours against OpenSpiel.

Usage: ``python bench/morris_engine.py [--playouts N] [--repeats R] [--seed S]``

A playout starts from the empty board and plays uniformly random legal moves to the
end.  Both engines play the same game: OpenSpiel's ``nine_mens_morris`` (C++) ends a
game after 200 turns and knows no repetition rule, so ours runs with
``MorrisRules(repetitions=0, max_turns=200)`` (``tests/test_morris_openspiel.py``
checks that the two agree move for move).  Ours is timed through the public rules API
(``legal_moves``, ``apply``), OpenSpiel through its Python binding
(``legal_actions``, ``apply_action``).  The passes are interleaved ``R`` times
(:func:`bench.common.measure`) and the medians are printed with the ratio (the issue's
goal: ≥ 0.2 of OpenSpiel).
"""

from __future__ import annotations

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import measure, report  # noqa: E402
from games.morris.rules import MorrisRules, MorrisState  # noqa: E402

#: the game OpenSpiel plays: a draw after 200 turns, no repetition rule
RULES = MorrisRules(repetitions=0, max_turns=200)


def ours(playouts: int, rng: random.Random) -> int:
    """Play ``playouts`` random games on our engine; returns the moves made."""
    moves = 0
    choice = rng.choice
    for _ in range(playouts):
        state = MorrisState(RULES)
        while state.outcome is None:
            state.apply(choice(state.legal_moves()))
        moves += len(state.history)
    return moves


def openspiel(playouts: int, rng: random.Random) -> int:
    """Play ``playouts`` random games on OpenSpiel; returns the moves made."""
    import pyspiel

    game = pyspiel.load_game("nine_mens_morris")
    moves = 0
    choice = rng.choice
    for _ in range(playouts):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            moves += 1
    return moves


def passes(play, playouts: int, seed: int):
    """One timed pass of ``play`` for :func:`measure` (a new seed each pass)."""
    seeds = iter(range(seed, seed + 1_000_000))

    def run() -> int:
        play(playouts, random.Random(next(seeds)))
        return playouts

    return run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--playouts", type=int, default=300, help="our playouts per pass")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    moves = ours(50, random.Random(args.seed))
    print(f"a random playout is about {moves / 50:.0f} moves (captures included)")
    contenders = {"gamehub": passes(ours, args.playouts, args.seed)}
    goals = {}
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel: not installed (the `test` extra) - no ratio")
    else:
        contenders["OpenSpiel"] = passes(openspiel, args.playouts * 10, args.seed)
        goals["OpenSpiel"] = "≥ 0.2"
    figures = measure(contenders, "playouts/s", rounds=args.repeats)
    report("Nine Men's Morris random playouts", figures, "gamehub", goals)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
