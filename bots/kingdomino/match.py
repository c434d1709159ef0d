"""How strong are the King Domino bots?  Seeded, bounded, prints figures.

    gamehub domino-match [--games 500] [--playouts 4] [--jobs 2]
    python bench/kingdomino_strength.py ...       (the same)

Two matches, each over ``--games`` seeded games (seat of the tested bot rotating):

1. ``greedy`` against three ``domino-random``: greedy's win share;
2. ``domino`` (flat Monte-Carlo, a fixed number of playouts per candidate so that the
   run is reproducible and independent of the machine's speed; every player greedy in
   the playouts) against three ``greedy``: its win share (a fair share is 25%; the
   issue's goal is 40% over 500 games).

A game won jointly counts as a share (1/k for a k-way tie).  The 95% interval is the
normal approximation.  On a terminal a ``tqdm`` bar shows the games played.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor

from games.kingdomino import rules
from hub.ops.progress import bar

from . import Brain


def play_game(seed: int, kinds: list[str], playouts: int = 4) -> list[int]:
    """One game between brains of ``kinds`` (seat order); returns the scores."""
    rng = random.Random(seed)
    state = rules.State(players=len(kinds), rng=random.Random(rng.getrandbits(64)))
    brains = [
        Brain(kind, random.Random(rng.getrandbits(64)), playouts=playouts)
        if kind == "montecarlo"
        else Brain(kind, random.Random(rng.getrandbits(64)))
        for kind in kinds
    ]
    while not state.over:
        me = state.to_act
        assert me is not None
        decision = brains[me].decide(state, me, 1.0)
        if isinstance(decision, rules.Placement):
            state.move(me, decision)
        else:
            state.choose(me, decision)
    return state.scores()


def _one(args: tuple[int, str, str, int]) -> float:
    seed, hero, villain, playouts = args
    seat = seed % 4
    kinds = [villain] * 4
    kinds[seat] = hero
    scores = play_game(seed, kinds, playouts)
    best = max(scores)
    if scores[seat] != best:
        return 0.0
    return 1.0 / scores.count(best)


def win_share(
    hero: str,
    villain: str,
    games: int,
    seed: int = 1,
    playouts: int = 4,
    jobs: int = 1,
    played: Callable[[], object] | None = None,
) -> tuple[float, float]:
    """``hero``'s mean win share over ``games`` games against three ``villain``, and the
    half-width of its 95% interval.

    :param played: called after each game (a progress bar's ``update``).
    """
    tasks = [(seed * 100_003 + i, hero, villain, playouts) for i in range(games)]
    shares = []
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            for share in pool.map(_one, tasks, chunksize=4):
                shares.append(share)
                if played is not None:
                    played()
    else:
        for t in tasks:
            shares.append(_one(t))
            if played is not None:
                played()
    return share_interval(shares)


def share_interval(shares: Sequence[float]) -> tuple[float, float]:
    """The mean of ``shares`` and the half-width of its 95% interval (normal
    approximation)."""
    mean = sum(shares) / len(shares)
    var = sum((s - mean) ** 2 for s in shares) / max(1, len(shares) - 1)
    return mean, 1.96 * math.sqrt(var / len(shares))


def main(argv: Sequence[str] | None = None) -> int:
    """Run both matches and print the figures."""
    parser = argparse.ArgumentParser(
        prog="gamehub domino-match", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--playouts", type=int, default=4, help="per candidate and decision")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 100_000 or not 1 <= args.playouts <= 1000:
        parser.error("--games 1..100000, --playouts 1..1000")
    for hero, villain, label in (
        ("greedy", "random", "greedy vs 3 domino-random"),
        ("montecarlo", "greedy", f"domino (MC, {args.playouts} playouts) vs 3 greedy"),
    ):
        start = time.monotonic()
        with bar(args.games, label, unit="game", leave=False) as progress:
            mean, half = win_share(
                hero, villain, args.games, args.seed, args.playouts, args.jobs, progress.update
            )
        say_share(label, mean, half, args.games, time.monotonic() - start)
    return 0


def say_share(label: str, mean: float, half: float, games: int, seconds: float) -> None:
    """Print a win share with its 95% interval."""
    print(
        f"{label}: win share {mean:.1%} ± {half:.1%} over {games} games "
        f"(fair share 25%; {seconds:.0f} s)",
        flush=True,
    )


if __name__ == "__main__":
    raise SystemExit(main())
