"""The King Domino ``domino`` bot as the hub plays it, against three ``greedy``:
``python bench/kingdomino_hub.py [--games 500] [--answer-seconds 0.4] [--jobs 2]``.

Unlike ``gamehub domino-match`` (a fixed number of playouts a decision, the same on any
machine), every game here goes through the hub's own path: a lobby game of the
``kingdomino`` plugin with the installed bots' plugins in its seats (``domino`` and
three ``greedy``), each bot asked by the hub's bot driver with the game's views, legal
lists and deadline, as in a running hub (:func:`hub.ratings.ladder.play`, its clock a
``task.Clock`` that moves only when nobody is left to answer).  The ``domino`` bot
thinks by the clock: half its answer time (at most a second), so its strength depends
on the machine; the figure printed is its win share over the games (a k-way tie
counts 1/k; a fair share is 25%) with the 95% interval (normal approximation), the
domino bot's seat rotating.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import Plugins  # noqa: E402
from bots.kingdomino import GreedyBotFactory, MonteCarloBotFactory  # noqa: E402
from bots.kingdomino.match import say_share, share_interval  # noqa: E402
from games.kingdomino.server import KingDominoGameFactory  # noqa: E402
from hub.ops.progress import bar  # noqa: E402
from hub.ratings import ladder  # noqa: E402

HERO, VILLAIN = "domino", "greedy"


def one_game(args: tuple[int, float]) -> float:
    """The hero's share of game ``n`` (its seat ``n % 4``)."""
    n, answer = args
    registry = Plugins(
        {"kingdomino": KingDominoGameFactory()},
        {HERO: MonteCarloBotFactory(), VILLAIN: GreedyBotFactory()},
    )
    seating = [VILLAIN] * 4
    seating[n % 4] = HERO
    played = ladder.play(
        registry,
        "kingdomino",
        tuple(seating),
        seconds=answer * 10,
        options={"answer_seconds": answer},
    )
    if played.record is None:
        return 0.0
    ranks = {p.seat: p.rank for p in played.record.placed}
    best = min(ranks.values())
    if ranks.get(n % 4) != best:
        return 0.0
    return 1.0 / list(ranks.values()).count(best)


def main(argv: list[str] | None = None) -> int:
    """Play the games and print the win share."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--answer-seconds", type=float, default=0.4)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 100_000 or not 0.05 <= args.answer_seconds <= 60:
        parser.error("--games 1..100000, --answer-seconds 0.05..60")
    start = time.monotonic()
    tasks = [(n, args.answer_seconds) for n in range(args.games)]
    shares: list[float] = []
    with bar(args.games, "domino vs 3 greedy (in the hub's way)", unit="game") as progress:
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                for share in pool.map(one_game, tasks, chunksize=2):
                    shares.append(share)
                    progress.update()
        else:
            for t in tasks:
                shares.append(one_game(t))
                progress.update()
    mean, half = share_interval(shares)
    label = f"domino (hub bot, {args.answer_seconds:g} s to answer) vs 3 greedy"
    say_share(label, mean, half, len(shares), time.monotonic() - start)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
