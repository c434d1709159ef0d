"""What a door's splice adds to a move (issue 31; goal: at most 1 ms at p99).

Two ``twistd gamehub`` processes, A and B, on one PostgreSQL database (a database of
the run's own); B splices every connection to a game of A (``cluster_handoff`` off:
as between hubs on two machines, where the socket cannot be handed over).  Each
Nine Men's Morris game is made on A and played by one driver with both seats (the
course-style client of ``bench/mnm_lines.py``: a depth-1 search): one seat connects
to A directly, the other to B's door, and they swap at every game, so both paths see
the same games, interleaved, on the same loaded machine.  For every move the driver
times, on the seat that moves, ``PLAY`` → ``+ MOVEOK`` (the move's round trip: the
hub applies it and answers), from its ``send`` to the line's arrival
(``time.perf_counter``).  Printed: p50, p90, p99 and the largest of each path and the
door's extra at each (spliced minus direct).  The hubs' clock work (WAIT pings) is
off: ``mnm_wait_interval`` 30 s.

    python bench/splice_latency.py [--games 40] [--dsn postgresql://…]

Bounded: ``--games`` games, each at most ``--turns`` turns; every read waits at most
60 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from cluster import TOKEN, Database, start_hub
from mnm_lines import PATIENCE, Seat, play_game

WAIT_OFF = {"mnm_wait_interval": 30, "cluster_handoff": "false"}


class Timed(Seat):
    """A seat that notes when each of its asking lines went and when its answer came."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.sent_at: float | None = None
        self.times: list[float] = []

    def send(self) -> str:
        text = super().send()
        if text.startswith("PLAY "):
            self.sent_at = time.perf_counter()
        return text

    def hear(self, text: str) -> None:
        if text == "+ MOVEOK" and self.sent_at is not None:
            self.times.append(time.perf_counter() - self.sent_at)
            self.sent_at = None
        super().hear(text)


def create(web: int, turns: int) -> str:
    body = {"type": "nmmorris", "seats": ["open", "open"], "options": {"max_turns": turns}}
    request = urllib.request.Request(
        f"http://127.0.0.1:{web}/api/games",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=PATIENCE) as answer:  # noqa: S310
        return str(json.load(answer)["id"])


def play(ports: list[int], game_id: str, seed: int) -> list[Timed]:
    """One game, seat ``n`` through ``ports[n]``, to its end (each line sent once the
    answers to the one before are in: ``bench/mnm_lines.py``); its two seats."""
    seats: list[Seat] = []
    play_game(ports, game_id, seed, seats, Timed)
    return [seat for seat in seats if isinstance(seat, Timed)]


def quantiles(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    cut = statistics.quantiles(ordered, n=100, method="inclusive")
    return {"p50": cut[49], "p90": cut[89], "p99": cut[98], "max": ordered[-1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--dsn", default=os.environ.get("GAMEHUB_TEST_PG_DSN"))
    args = parser.parse_args()
    if not args.dsn:
        raise SystemExit("needs PostgreSQL: --dsn or GAMEHUB_TEST_PG_DSN")
    db = Database(args.dsn)
    hubs = []
    direct: list[float] = []
    spliced: list[float] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            a, a_ports = start_hub(Path(tmp), "a", db.dsn, WAIT_OFF)
            hubs.append(a)
            b, b_ports = start_hub(Path(tmp), "b", db.dsn, WAIT_OFF)
            hubs.append(b)
            for g in range(args.games):
                game_id = create(a_ports["web"], args.turns)
                door = g % 2  # the seat that goes through B's door
                ports = [b_ports["mnm"] if n == door else a_ports["mnm"] for n in (0, 1)]
                seats = play(ports, game_id, 1000 + 7 * g)
                spliced += seats[door].times
                direct += seats[1 - door].times
            logs = (Path(tmp) / "b" / "hub.log").read_text()
            if "handed over" in logs or "passed through" not in logs:
                raise SystemExit("B did not splice the games (see its log)")
    finally:
        for proc in hubs:
            proc.terminate()
            proc.wait(30)
        db.drop()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{args.games} MNM games, {len(direct)} moves direct and {len(spliced)} through a"
        f" door's splice (PLAY → + MOVEOK); load average {load}"
    )
    ours, theirs = quantiles(spliced), quantiles(direct)
    for name, q in (("direct to the game's hub", theirs), ("through the door", ours)):
        print(f"  {name:26s} " + "  ".join(f"{k} {1000 * v:.3f} ms" for k, v in q.items()))
    extra = {k: 1000 * (ours[k] - theirs[k]) for k in ("p50", "p90", "p99")}
    print(
        "  the splice adds: "
        + "  ".join(f"{k} {v:+.3f} ms" for k, v in extra.items())
        + "  (goal: at most 1 ms at p99)"
    )


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
