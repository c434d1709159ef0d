"""MNM server CPU per line with many games in flight (issue 36: 10, 100 and 1,000 games
at once; goal: the hub costs at most 1.5× the bare server a line): the concurrency mode
of :mod:`bench.mnm_lines`.

The games are recorded once through the hub as :mod:`bench.mnm_lines` records them (a
driver playing both seats, one game after the other, keeping which line in brought
which lines out on which connection).  Each timed pass then *replays* them, ``in
flight`` games at a time, from one client on one ``epoll`` (:class:`Pass`; its own CPU
is not counted): against the hub, on games made before the pass (untimed, through the
web API) with each recording's ``ID <game>`` line rewritten to the fresh game's id
(:func:`with_game_id`); against the bare ``LineOnlyReceiver`` of :mod:`bench.mnm_lines`
(a fresh process for each number of games in flight), the same replay.  Both get the
same lines in and send the same lines out.

The bare server pairs its connections in connect order (a game's first and second
connection).  So that many games in flight cannot mix two games' connections, a
game's two connections connect one after the other, each after the previous banner
is in, and no other game connects in between: the recording is reordered so that the
second connect follows the first (:func:`pair_connects`; the hub sends nothing to a
connection before its prolog, so the lines are the same), and the pass lets one game
at a time open (the next game starts connecting when the one opening has both
banners).  A game then replays its events in order: its line sent (or its
connection made), then the recorded number of lines read on each connection (and the
close) before the next event.  A game that ends is followed by the next, so about
``in flight`` games are under way until the last ones.  The servers are timed by
their process's CPU around each pass, in interleaved rounds
(:func:`bench.common.measure_servers`).

    python bench/mnm_in_flight.py [--in-flight 10,100,1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import Figure, Row, measure_servers  # noqa: E402
from bench.hubproc import Hub  # noqa: E402
from bench.mnm_lines import ANCHOR, OURS, Event, Game, bare_server, count, hub_pass, new_games  # noqa: E402
from bench.mnm_replay import Conn, Loop  # noqa: E402

#: games recorded once, replayed in turn
RECORDED = 8
#: the goal: the hub's CPU a line over the bare server's
GOAL = 1.5


def pair_connects(game: Game) -> Game:
    """``game`` with its second connect moved to just after the first (the events
    between them are the first connection's prolog, which sends nothing to the second).

    :raises ValueError: the game does not have two connects, or the hub sent the first
        connection something when the second connected."""
    connects = [i for i, event in enumerate(game) if event["line"] is None]
    if len(connects) != 2 or connects[0] != 0:
        raise ValueError(f"a game has its two connects first and second, not at {connects}")
    second = game[connects[1]]
    if second["out"][0] or any(second["close"]):
        raise ValueError("the second connect brought lines to the first connection")
    return [game[0], second, *game[1 : connects[1]], *game[connects[1] + 1 :]]


def with_game_id(game: Game, game_id: str) -> Game:
    """``game`` with every ``ID <game>`` line sent naming ``game_id`` instead."""
    out: Game = []
    for event in game:
        line = event["line"]
        if line is not None and line.startswith("ID "):
            event = {**event, "line": f"ID {game_id}"}
        out.append(event)
    return out


class Line(Conn):
    """One connection of a replayed game: counts the lines that come in."""

    speaks_first = False

    def __init__(self, loop: Loop, port: int, game: Replay, number: int) -> None:
        super().__init__(loop, port)
        self.game = game
        self.number = number

    def received(self, data: bytes) -> None:
        self.game.heard(self.number, data.count(b"\n"))

    def lost(self, why: str | None) -> None:
        self.game.closed(self.number, why)


class Replay:
    """One game replayed on a :class:`Pass`: its events in order, each line sent (or
    connection made), then the recorded lines read on each connection (and the closes)
    before the next."""

    def __init__(self, owner: Pass, events: Game) -> None:
        self.owner = owner
        self.events = events
        self.step = -1
        self.conns: list[Line] = []
        self.got = [0, 0]
        self.want = [0, 0]
        self.closing = [False, False]
        self.shut = [False, False]

    def next(self) -> None:
        """Play the next events whose answers are all in."""
        while self.ready():
            self.step += 1
            if self.step == 2:  # both banners in: the next game may connect
                self.owner.opened(self)
            if self.step == len(self.events):
                self.owner.finished(self)
                return
            self.act(self.events[self.step])

    def ready(self) -> bool:
        if self.step < 0:
            return True
        for n in (0, 1):
            if self.got[n] > self.want[n]:
                self.owner.loop.abort(f"{self.got[n] - self.want[n]} line(s) more than recorded")
                return False
            if self.got[n] < self.want[n] or self.closing[n] and not self.shut[n]:
                return False
        return True

    def act(self, event: Event) -> None:
        if event["line"] is None:
            self.conns.append(Line(self.owner.loop, self.owner.port, self, len(self.conns)))
        else:
            self.conns[event["conn"]].send(event["line"].encode("ascii") + b"\n")
        for n in (0, 1):
            self.want[n] += len(event["out"][n])
            self.closing[n] = event["close"][n]

    def heard(self, number: int, lines: int) -> None:
        self.got[number] += lines
        self.next()

    def closed(self, number: int, why: str | None) -> None:
        if why is not None or not self.closing[number]:
            self.owner.loop.abort(f"a connection closed out of turn ({why or 'by the server'})")
            return
        self.shut[number] = True
        self.next()


class Pass:
    """``total`` games replayed at ``port``, ``in_flight`` at a time, on one ``epoll``:
    game ``k`` (the ``k``-th to connect) replays recording ``(first + k) % len(games)``,
    naming ``ids[k]`` in its ``ID`` line when ``ids`` is given."""

    def __init__(
        self,
        port: int,
        games: Sequence[Game],
        total: int,
        in_flight: int,
        first: int = 0,
        ids: Sequence[str] | None = None,
    ) -> None:
        self.loop = Loop()
        self.port = port
        self.games = games
        self.total = total
        self.free = min(in_flight, total)
        self.first = first
        self.ids = ids
        self.started = 0
        self.ended = 0
        self.lines = 0
        self.opening: Replay | None = None
        #: games under way integrated over the pass's time (game-seconds), and when
        #: their number last changed
        self.busy = 0.0
        self.began = self.changed = time.monotonic()

    @property
    def mean_in_flight(self) -> float:
        """The games under way, on average over the pass so far."""
        self.tally()
        return self.busy / max(self.changed - self.began, 1e-9)

    def tally(self) -> None:
        """Add the games under way since the last change to :attr:`busy`."""
        now = time.monotonic()
        self.busy += (self.started - self.ended) * (now - self.changed)
        self.changed = now

    def run(self, seconds: float) -> int:
        """Replay the games (bounded by ``seconds``); the lines in and out.

        :raises RuntimeError: a game did not go as recorded, or time ran out."""
        self.began = self.changed = time.monotonic()
        self.start()
        try:
            self.loop.run(time.monotonic() + seconds, lambda: self.ended >= self.total)
        finally:
            self.loop.close_all()
        if self.loop.error is not None:
            raise RuntimeError(f"{self.ended} of {self.total} games replayed: {self.loop.error}")
        return self.lines

    def start(self) -> None:
        """Let the next game connect, if a slot is free and none is opening."""
        if self.opening is not None or not self.free or self.started >= self.total:
            return
        self.tally()
        k = self.started
        self.started += 1
        self.free -= 1
        events = self.games[(self.first + k) % len(self.games)]
        if self.ids is not None:
            events = with_game_id(events, self.ids[k])
        self.opening = Replay(self, events)
        self.opening.next()

    def opened(self, game: Replay) -> None:
        if game is self.opening:
            self.opening = None
            self.start()

    def finished(self, game: Replay) -> None:
        self.tally()
        self.ended += 1
        self.lines += count(game.events)
        self.free += 1
        self.start()


#: what :func:`measure` finds: the servers' figures, and the games under way on the
#: hub on average over a timed pass (the median of its passes)
Found = tuple[dict[str, Figure], float]


def measure(hub: Hub, games: Sequence[Game], level: int, rounds: int, warm: int = 4) -> Found:
    """``rounds`` interleaved passes of ``level`` games in flight (``max(level, 40)``
    games a pass) on ``hub`` and on a fresh bare server replaying ``games``."""
    total = max(level, 40)
    seconds = 120 + total * 0.5
    made: list[str] = []
    bare_started = [0]  # the bare server's count of games: the next pass goes on from it

    def make(warmup: bool) -> None:
        made[:] = new_games(hub, warm if warmup else total)

    means: list[float] = []

    def ours(warmup: bool) -> int:
        replay = Pass(hub.ports["mnm"], games, len(made), level, ids=made)
        lines = replay.run(seconds)
        if not warmup:
            means.append(replay.mean_in_flight)
        return lines

    with bare_server(list(games)) as (pid, port):

        def theirs(warmup: bool) -> int:
            n = warm if warmup else total
            replay = Pass(port, games, n, level, first=bare_started[0])
            bare_started[0] += n
            return replay.run(seconds)

        figures = measure_servers(
            {OURS: (hub.pid, ours), ANCHOR: (pid, theirs)},
            "lines/CPU-s",
            rounds,
            prepare={OURS: make},
        )
    return figures, statistics.median(means)


def run(levels: Sequence[int], rounds: int, most_rounds: int | None = None) -> dict[int, Found]:
    """For each number of games in flight, :func:`measure` on one hub, with games
    recorded once through it; ``most_rounds`` (default ``rounds``) for the largest
    number, whose passes are the longest."""
    settings = {"mnm_wait_interval": 600, "mnm_prolog_timeout": 600}
    with Hub(("mnm",), settings) as hub:
        recorded: list[Game] = []
        hub_pass(hub, new_games(hub, RECORDED), 7, recorded)
        games = [pair_connects(game) for game in recorded]
        return {
            level: measure(
                hub, games, level, most_rounds if most_rounds and level == max(levels) else rounds
            )
            for level in levels
        }


def rows(quick: bool) -> list[Row]:
    """The runner's rows (``python -m bench``)."""
    levels = (10, 50, 200) if quick else (10, 100, 1000)
    found = run(levels, rounds=2 if quick else 5, most_rounds=2 if quick else 3)
    return [
        Row(
            f"MNM server CPU per line, {level:,} games in flight (replayed; the anchor "
            "sends when the hub does)",
            figures[OURS],
            figures[ANCHOR],
            goal=("<=", GOAL),
            cost=True,
            unit="µs/line",
            note=f"{max(level, 40):,} games a pass, {mean:,.0f} under way on average",
        )
        for level, (figures, mean) in found.items()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--in-flight", default="10,100,1000", help="comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    levels = [int(x) for x in args.in_flight.split(",")]
    for level, (figures, mean) in run(levels, args.rounds).items():
        ours, theirs = figures[OURS], figures[ANCHOR]
        print(
            f"{level:>5} games in flight ({mean:,.0f} on average): hub {1e6 / ours.median:6.2f} µs/line, bare "
            f"{1e6 / theirs.median:6.2f} µs/line: the hub costs "
            f"{theirs.median / ours.median:.2f}× (goal ≤ {GOAL:g})"
        )


if __name__ == "__main__":
    main()
