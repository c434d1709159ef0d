"""Bots never lose on time: ``python bench/morris_deadline.py [--games 100] [--move-ms 400]
[--boards 4] [--burners 2]``.

The ``morris`` bot plays ``morris-random`` as the hub runs them: games of a real lobby
on the real reactor, each bot asked by the hub's bot driver in the reactor's worker
threads (:func:`hub.play.botdriver.thread_runner`), ``--boards`` games at once (a Swiss round
of twice as many players), every move timed by the game with ``--move-ms`` and no grace
(``grace_ms`` 0: a late answer loses at once).  ``--burners`` processes keep the
machine's cores busy meanwhile (each spins for as long as the run lasts, then stops).
The seat of the ``morris`` bot alternates.  Printed: its wins, draws and losses, the
games lost on time by either side, the answers' times (from the ``turn`` event to the
move, as the reactor saw them: its own lag on a loaded machine included) as shares of
the move time (median, 99th percentile and largest), and how many answers the hub's
guard had to play for a bot that did not answer in time.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from twisted.internet import defer, task  # noqa: E402

from bench.common import Plugins  # noqa: E402
from bots.morris import MorrisBotFactory, RandomMorrisBotFactory  # noqa: E402
from games.morris.server import MorrisGameFactory  # noqa: E402
from hub.model import OVER, TURN  # noqa: E402
from hub.play.botdriver import thread_runner  # noqa: E402
from hub.play.lobby import Lobby  # noqa: E402

HERO, VILLAIN = "morris", "morris-random"


class Timing:
    """Each answer's time: from a ``turn`` event to the next event of the game."""

    def __init__(self, clock: Any, answers: list[tuple[int, float]]) -> None:
        self.clock = clock
        self.answers = answers
        self.asked: tuple[int, float] | None = None

    def game_event(self, game: Any, event: Any) -> None:
        """Note the time of each turn and of what follows it."""
        now = self.clock.seconds()
        if self.asked is not None and event.kind != TURN:
            self.answers.append((self.asked[0], now - self.asked[1]))
            self.asked = None
        if event.kind == TURN:
            self.asked = (int(event.data["seat"]), now)


def burn(until: float) -> None:
    """Keep a core busy until ``until`` (``time.monotonic``)."""
    x = 0
    while time.monotonic() < until:
        for _ in range(100_000):
            x += 1


async def play(reactor: Any, lobby: Lobby, n: int, move_ms: int, answers: list) -> dict:
    """Game ``n``: the hero plays seat ``n % 2``; its result."""
    seats = [f"bot:{VILLAIN}", f"bot:{VILLAIN}"]
    seats[n % 2] = f"bot:{HERO}"
    game = lobby.create_game(
        "nmmorris", seats=seats, options={"move_time_ms": move_ms, "grace_ms": 0}, seat_bots=False
    )
    timing = Timing(reactor, [])
    game.observe(timing)
    game.seat_bots()
    while game.state != OVER:
        await task.deferLater(reactor, 0.05, lambda: None)
    hero = n % 2
    answers.extend((seat == hero, t) for seat, t in timing.answers)
    result = dict(game.result() or {})
    lobby.remove(game.id)
    return {"hero": hero, **result}


async def run(reactor: Any, args: argparse.Namespace) -> int:
    """Play every game, ``--boards`` at a time; print the figures."""
    plugins = Plugins(
        {"nmmorris": MorrisGameFactory()},
        {HERO: MorrisBotFactory(), VILLAIN: RandomMorrisBotFactory()},
    )
    lobby = Lobby(plugins, reactor, bot_runner=thread_runner(reactor), bot_deadline=60.0)
    reactor.suggestThreadPoolSize(10)
    answers: list[tuple[bool, float]] = []
    results: list[dict] = []
    start = time.monotonic()
    pending = list(range(args.games))
    sem = defer.DeferredSemaphore(args.boards)
    await defer.gatherResults(
        [
            sem.run(
                lambda n=n: defer.ensureDeferred(play(reactor, lobby, n, args.move_ms, answers))
            )
            for n in pending
        ]
    ).addCallback(results.extend)
    wins = sum(1 for r in results if r.get("winners") == [r["hero"]])
    draws = sum(1 for r in results if r.get("draw"))
    losses = len(results) - wins - draws
    on_time = [r for r in results if r.get("reason") == "timeout"]
    hero_late = [r for r in on_time if r.get("loser") == r["hero"]]
    shares = sorted(t * 1000 / args.move_ms for hero, t in answers if hero)
    p = (lambda q: shares[min(len(shares) - 1, int(q * len(shares)))]) if shares else (lambda q: 0)
    print(
        f"morris vs morris-random at {args.move_ms} ms a move, {args.boards} boards at once, "
        f"{args.burners} burners: {len(results)} games, W {wins} D {draws} L {losses} "
        f"(wins {wins / max(1, len(results)):.1%}); lost on time: morris {len(hero_late)}, "
        f"morris-random {len(on_time) - len(hero_late)}; morris's answers (of the move time): "
        f"median {statistics.median(shares) if shares else 0:.2f}, "
        f"p99 {p(0.99):.2f}, largest {shares[-1] if shares else 0:.2f}; margin kept "
        f"{lobby.bot_margin.margin(args.move_ms / 1000) * 1000:.0f} ms, answers played for a "
        f"bot by the hub's guard {lobby.bot_margin.guarded} "
        f"({time.monotonic() - start:.0f} s)",
        flush=True,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, start the burners, run the games on the reactor."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--move-ms", type=int, default=400)
    parser.add_argument("--boards", type=int, default=4)
    parser.add_argument("--burners", type=int, default=2)
    parser.add_argument("--most-seconds", type=float, default=3600.0, help="burners stop by then")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 10_000 or not 100 <= args.move_ms <= 60_000:
        parser.error("--games 1..10000, --move-ms 100..60000")
    if not 1 <= args.boards <= 32 or not 0 <= args.burners <= 16:
        parser.error("--boards 1..32, --burners 0..16")
    until = time.monotonic() + args.most_seconds
    burners = [multiprocessing.Process(target=burn, args=(until,)) for _ in range(args.burners)]
    for b in burners:
        b.start()
    try:  # (task.react ends the process when the games are over)
        task.react(lambda r: defer.ensureDeferred(run(r, args)))
        return 0
    finally:
        for b in burners:
            b.terminate()
            b.join(5)


if __name__ == "__main__":
    raise SystemExit(main())
