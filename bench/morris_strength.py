"""Strength of the ``morris`` bot: against ``morris-random`` and a fixed depth-2 searcher.

Usage::

    python bench/morris_strength.py [--random-games 1000] [--depth2-games 200]
                                    [--seconds 0.1] [--nodes 0]

Colours alternate; every game is refereed by ``games.morris.rules`` with the default
rules (draw after 200 turns or a threefold repetition).  Prints win/draw/loss counts
for ``morris`` and a 95% interval of its score (a ``tqdm`` bar on a terminal while it
plays).  Bounded: the number of games and the time per move are fixed by the arguments.
``--nodes N`` gives ``morris`` a budget of ``N`` search nodes per move as well (the
figures are then the same on any machine); the issue asks for a score of at least 90%
against depth 2 over 200 games and no loss to random in 1,000.  The figures measured
are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.morris import MorrisBot, RandomMorrisBot  # noqa: E402
from bots.morris.match import score, series  # noqa: E402
from hub.ops.progress import bar  # noqa: E402


def run(
    name: str, games: int, seconds: float, opponent, seed: int, nodes: int = 0
) -> tuple[int, int, int]:
    """Play a :func:`bots.morris.match.series`; print and return W/D/L."""
    started = time.monotonic()
    progress = bar(games, name, unit="game", leave=False)

    def played(w: int, d: int, lost: int) -> None:
        progress.set_postfix_str(f"W {w} D {d} L {lost}", refresh=False)
        progress.update()

    wins, draws, losses = series(games, opponent, seed, seconds, nodes, played)
    progress.close()
    mean, half = score(wins, draws, losses)
    budget = f"{nodes} nodes a move" if nodes else f"{seconds} s a move"
    print(
        f"{name}: {games} games  W {wins}  D {draws}  L {losses}  "
        f"score {mean:.3f} ± {half:.3f}  ({budget}; {time.monotonic() - started:.0f} s)"
    )
    return wins, draws, losses


def main(argv: list[str] | None = None) -> int:
    """Run both series; exit 1 if morris lost to random or did not beat depth 2."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random-games", type=int, default=1000)
    parser.add_argument("--depth2-games", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=0.1, help="morris's time per move")
    parser.add_argument("--nodes", type=int, default=0, help="morris's search nodes per move")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    _, _, lost = run(
        "morris vs morris-random",
        args.random_games,
        args.seconds,
        lambda rng: RandomMorrisBot(rng),
        args.seed,
        args.nodes,
    )
    w, _, l2 = run(
        "morris vs depth-2",
        args.depth2_games,
        args.seconds,
        lambda rng: MorrisBot(rng=rng, max_depth=2, max_seconds=60.0),
        args.seed + 10_000,
        args.nodes,
    )
    return 0 if lost == 0 and w > l2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
