"""Strength and speed of the kit's generic search (``hub.kit.search.MCTS``) on the two
kit fixtures: Tic-Tac-Toe against random (seats alternating) and Nim from winning
positions against random.

Usage::

    python bench/kit_mcts.py [--games 1000] [--iterations 300] [--nim-iterations 1000]

Prints win/draw/loss counts, the score (win 1, draw ½) with a 95% interval, and
playouts per second (a figure of this machine at this moment: quote it with the
others of the same run).  Bounded: the games and the playouts a move are fixed by
the arguments.  The issue asks for no loss and a score of at least 0.9 at
Tic-Tac-Toe, no Nim game lost from a winning position.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hub import kit  # noqa: E402
from hub.kit.search import MCTS, random_move  # noqa: E402
from tests.plugins.fixtures.nim.game import Nim  # noqa: E402
from tests.plugins.fixtures.noughts.game import Board, Noughts  # noqa: E402


def play(engine, state, players):
    while engine.result(state) is None:
        seat = engine.to_move(state, 2)[0]
        state = engine.apply(state, seat, players[seat](state, seat))
    return kit.rewards(engine.result(state))


def series(name, engine, starts, iterations, seed):
    """MCTS (seat ``me``) against random from each ``(state, me)``; prints a line."""
    rng = random.Random(seed)
    shares, playouts, thinking = [], 0, 0.0
    for game, (state, me) in enumerate(starts):
        search = MCTS(engine, 2, random.Random(seed * 100_003 + game))

        def mcts(s, seat, search=search):
            nonlocal playouts, thinking
            started = time.perf_counter()
            move = search.choose(s, seat, iterations=iterations)
            thinking += time.perf_counter() - started
            playouts += search.iterations
            return move

        def rand(s, seat):
            return random_move(engine, s, seat, rng)

        shares.append(play(engine, state, [mcts, rand] if me == 0 else [rand, mcts])[me])
    n = len(shares)
    wins, draws = shares.count(1.0), shares.count(0.5)
    mean = sum(shares) / n
    half = 1.96 * math.sqrt(sum((x - mean) ** 2 for x in shares) / max(1, n - 1) / n)
    print(
        f"{name}: {n} games  W {wins}  D {draws}  L {n - wins - draws}  score {mean:.3f} ± "
        f"{half:.3f}  ({iterations} playouts a move, {playouts / max(thinking, 1e-9):,.0f}/s)"
    )
    return n - wins - draws


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--nim-iterations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    noughts, nim = Noughts(), Nim()
    lost = series("tic-tac-toe", noughts, [(Board(), g % 2) for g in range(args.games)],
                  args.iterations, args.seed)  # fmt: skip
    rng, starts = random.Random(args.seed), []
    options = kit.check_options(nim.options, {})
    while len(starts) < args.games:
        state = nim.setup(options, 2, rng)
        if state.piles[0] ^ state.piles[1] ^ state.piles[2]:
            starts.append((state, 0))
    lost += series("nim from a winning position", nim, starts, args.nim_iterations, args.seed)
    return 1 if lost else 0


if __name__ == "__main__":
    raise SystemExit(main())
