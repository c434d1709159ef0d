"""Whole games per second of the hub's CPU, per game type, with in-hub bots in every
seat: the lobby, the game, its bot drivers, transcripts and history all take part
(issue 19 item 7).  No anchor: the figure is for comparing runs and game types.

A pass creates ``games`` games of a type through ``POST /api/games`` and waits until
every one is over; the rate is games over the hub's CPU time during the pass
(:func:`bench.common.measure_servers`; the web requests that create the games and ask
whether they are over count too, a few per game).  The types are interleaved round by round.

    python bench/whole_games.py [--games 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import Figure, Row, measure_servers, report  # noqa: E402
from bench.hubproc import Hub  # noqa: E402

#: game type → (the label in the table, the spec of one game)
GAMES: dict[str, tuple[str, dict[str, Any]]] = {
    "hello": ("hello", {"type": "hello", "seats": ["bot:hello-bot", "bot:hello-bot"]}),
    "nmmorris": (
        "Nine Men's Morris (morris-random × 2)",
        {"type": "nmmorris", "seats": ["bot:morris-random", "bot:morris-random"]},
    ),
    "kingdomino": (
        "King Domino (greedy × 4)",
        {"type": "kingdomino", "seats": ["bot:greedy"] * 4},
    ),
    "texas-holdem": (
        "heads-up hold'em, 20 hands (caller vs poker-random)",
        {
            "type": "texas-holdem",
            "seats": ["bot:caller", "bot:poker-random"],
            "options": {"hands": 20, "showdown_pause": 0, "auto_post": True},
        },
    ),
}
#: games a pass plays of a type, as a multiple of ``games`` (short games: more of them,
#: so that a pass spans many ticks of the CPU clock)
SCALE = {"hello": 10}
#: the longest a pass may wait for its games (seconds)
PASS_LIMIT = 300.0


def wait_over(hub: Hub, ids: list[str], limit: float = PASS_LIMIT) -> None:
    """Until every game of ``ids`` is over (bounded by ``limit`` seconds)."""
    deadline = time.monotonic() + limit
    waiting = list(ids)
    while waiting:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{len(waiting)} games not over after {limit:g} s")
        time.sleep(0.05)
        waiting = [g for g in waiting if not over(hub, g)]


def over(hub: Hub, game_id: str) -> bool:
    """Whether the game is over (or gone from the lobby already)."""
    try:
        return hub.game(game_id).get("state") == "over"
    except OSError:  # 404: removed once over
        return True


def run(games: int, rounds: int, types: list[str] | None = None) -> dict[str, Figure]:
    """``rounds`` interleaved passes of ``games`` games of each type."""
    chosen = types or list(GAMES)
    with Hub(("xml",), {"keep_finished_count": 10_000}) as hub:

        def play(kind: str):
            def one(warm: bool) -> int:
                spec = GAMES[kind][1]
                count = 1 if warm else games * SCALE.get(kind, 1)
                ids = [hub.create_game(spec)["id"] for _ in range(count)]
                wait_over(hub, ids)
                return len(ids)

            return one

        return measure_servers(
            {kind: (hub.pid, play(kind)) for kind in chosen}, "games/CPU-s", rounds
        )


def rows(quick: bool) -> list[Row]:
    """The runner's rows (``python -m bench``): one per game type."""
    figures = run(games=3 if quick else 10, rounds=2 if quick else 3)
    return [
        Row(f"whole games per hub CPU-s: {GAMES[kind][0]}", f, unit="games/CPU-s")
        for kind, f in figures.items()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games a pass (default 10)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--type", action="append", choices=list(GAMES), help="only these")
    args = parser.parse_args()
    figures = run(args.games, args.rounds, args.type)
    for kind, f in figures.items():
        report(GAMES[kind][0], {kind: f}, ours=kind)


if __name__ == "__main__":
    main()
