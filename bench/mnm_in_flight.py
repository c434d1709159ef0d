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

The bare server of :mod:`bench.mnm_lines` pairs its connections in connect order,
which many games connecting at once would mix up; this one (:data:`BARE`) pairs them
on the ``ID`` line, as the hub does.  Before its ``ID`` line a connection gets its
prolog (the banner at the connect, the answer to ``VERSION``: the same in every
recording, :func:`prolog`); the ``ID`` line names the game and the recording it
replays (:func:`bare_id`, as long as a hub's id), the first connection to name it is
the game's first, and from there the game's events without the prologs
(:func:`after_prologs`) are answered in order, each with the lines the hub sent then,
on the connection(s) it sent them to.  The client replays each game's events in
order, as recorded: its line sent (or its connection made), then the recorded number
of lines read on each connection (and the close) before the next event.  A game that
ends is followed by the next, so about ``in flight`` games are under way until the
last ones end (the rows say how many on average).  The servers are timed by their
process's CPU around each pass, in interleaved rounds
(:func:`bench.common.measure_servers`).

    python bench/mnm_in_flight.py [--in-flight 10,100,1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import Figure, Row, measure_servers  # noqa: E402
from bench.hubproc import Hub  # noqa: E402
from bench.mnm_lines import ANCHOR, BARE_GAME, OURS, Event, Game, count, hub_pass, new_games  # noqa: E402
from bench.mnm_replay import Conn, Loop  # noqa: E402

#: games recorded once, replayed in turn
RECORDED = 8
#: the goal: the hub's CPU a line over the bare server's
GOAL = 1.5


#: the bare server: a connection's prolog, then the game its ID line names
BARE = (
    r"""
import json, sys
from twisted.internet import reactor
from twisted.internet.protocol import Factory
from twisted.protocols.basic import LineOnlyReceiver

given = json.load(open(sys.argv[1]))
prolog = {line: out for line, out in given["prolog"]}  # "" for the connect
games = given["games"]
opening = {}  # ID → the game whose second connection is still to come

"""
    + BARE_GAME
    + r"""

class Replay(LineOnlyReceiver):
    delimiter = b"\n"
    game = None
    def connectionMade(self):
        self.transport.setTcpNoDelay(True)
        self.answer("")
    def answer(self, line):
        for out in prolog[line]:
            self.sendLine(out.encode("ascii"))
    def lineReceived(self, line):
        text = line.decode("ascii")
        if self.game is not None:
            self.game.act(self.conn)
        elif text.startswith("ID "):
            key = text[3:]
            if key in opening:
                self.game, self.conn = opening.pop(key), 1
            else:
                self.game, self.conn = Game(games[int(key.split("r")[1])]), 0
                opening[key] = self.game
            self.game.conns[self.conn] = self
            self.game.act(self.conn)
        else:
            self.answer(text)
    def connectionLost(self, reason):
        if self.game is not None:
            self.game.conns[self.conn] = None

port = reactor.listenTCP(0, Factory.forProtocol(Replay), interface="127.0.0.1", backlog=2048)
print(port.getHost().port, flush=True)
reactor.run()
"""
)


def _is_id(event: Event) -> bool:
    return event["line"] is not None and event["line"].startswith("ID ")


def _in_prolog(game: Game) -> list[bool]:
    """Per event of ``game``: whether it is a connection's prolog (before its ``ID``)."""
    named = [False, False]
    marks = []
    for event in game:
        named[event["conn"]] = named[event["conn"]] or _is_id(event)
        marks.append(not named[event["conn"]])
    return marks


def prolog(games: Sequence[Game]) -> list[tuple[str, list[str]]]:
    """What a connection sends before its ``ID`` line, each with the lines it gets
    (``""``: the connect), the same in every game.

    :raises ValueError: the games' prologs differ, or one brought lines to the other
        connection."""
    found: list[tuple[str, list[str]]] | None = None
    for game in games:
        for conn in (0, 1):
            mine = []
            for event, early in zip(game, _in_prolog(game), strict=True):
                if early and event["conn"] == conn:
                    if event["out"][1 - conn] or any(event["close"]):
                        raise ValueError("a prolog line brought lines to the other connection")
                    mine.append((event["line"] or "", list(event["out"][conn])))
            if found is not None and mine != found:
                raise ValueError("the games' prologs differ")
            found = mine
    return found or []


def after_prologs(game: Game) -> Game:
    """``game``'s events from each connection's ``ID`` line on (what the bare server
    replays once a connection names its game)."""
    return [event for event, early in zip(game, _in_prolog(game), strict=True) if not early]


def bare_id(number: int, recording: int) -> str:
    """The ``ID`` the client names game ``number`` by on the bare server: the number and
    the recording it replays, 13 characters (as a hub's id)."""
    return f"{number:06d}r{recording:06d}"


@contextlib.contextmanager
def bare_server(games: Sequence[Game]) -> Iterator[tuple[int, int]]:
    """The bare server (:data:`BARE`) replaying ``games``, running: its pid and port."""
    given = {"prolog": prolog(games), "games": [after_prologs(game) for game in games]}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "games.json"
        path.write_text(json.dumps(given))
        bare = subprocess.Popen([sys.executable, "-c", BARE, str(path)], stdout=subprocess.PIPE)
        try:
            yield bare.pid, int(bare.stdout.readline())  # type: ignore[union-attr]
        finally:
            bare.terminate()
            bare.wait(30)


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
    game ``k`` replays recording ``k % len(games)``, naming ``ids[k]`` in its ``ID``
    line (default: :func:`bare_id`)."""

    def __init__(
        self,
        port: int,
        games: Sequence[Game],
        total: int,
        in_flight: int,
        ids: Sequence[str] | None = None,
    ) -> None:
        self.loop = Loop()
        self.port = port
        self.games = games
        self.total = total
        self.free = min(in_flight, total)
        self.ids = ids
        self.started = 0
        self.ended = 0
        self.lines = 0
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
        """Start games while slots are free."""
        while self.free and self.started < self.total:
            self.tally()
            k = self.started
            self.started += 1
            self.free -= 1
            n = k % len(self.games)
            game_id = bare_id(k, n) if self.ids is None else self.ids[k]
            Replay(self, with_game_id(self.games[n], game_id)).next()

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
            return Pass(port, games, warm if warmup else total, level).run(seconds)

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
    settings = {"mnm_wait_interval": 600, "mnm_prolog_timeout": 600, "listen_backlog": 2048}
    with Hub(("mnm",), settings) as hub:
        games: list[Game] = []
        hub_pass(hub, new_games(hub, RECORDED), 7, games)
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
