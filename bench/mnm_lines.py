"""MNM server CPU per line: whole Nine Men's Morris games through the hub's MNM front
end against a bare Twisted ``LineOnlyReceiver`` that answers the same lines in with the
same lines out, at the same moments and on the same connections (issue 19's second
row; goal: the hub costs at most 2× the bare server a line; issue 36: 1.5×).  Its
concurrency mode, many games in flight, is :mod:`bench.mnm_in_flight`.

A pass plays ``games`` games on a real ``twistd -n gamehub``, one after the other.  One
driver plays both seats of a game (the morris client's
:class:`games.morris.client.Connector` and a depth-1 search for the move, one socket
each, ``TCP_NODELAY``): it connects the first seat and gives it its prolog, then the
second, then plays.  It sends one line at a time and then reads both sockets until no
seat waits for the server (a seat waits after its connect and after each line that
asks for an answer — ``VERSION``, ``ID``, ``PLAYER``, ``THINKING``, ``PLAY`` — until
the whole answer is in, and after ``+ GAMEOVER`` until the close); when neither seat
has a line to send, it reads on until one has (the other seat's move request after
the second ``PLAYER``).  So every line the hub sends arrives before the driver's next
line, and the driver keeps each game as a list of events: which connection connected
or sent which line, and which lines came back on each of the two connections before
the next event (and which the hub closed).  They are the hub's own order: its
transcript of the game gives the same events (``tests/bench/test_mnm_lines.py``).

The bare server is given those events.  It pairs its connections by their order (a
game's first and second connection, as the driver connects them) and, when a
connection opens or sends its next line, writes that event's lines to the
connection(s) they went to (``sendLine`` each; Twisted writes a connection's lines of
one reactor turn in one ``send``, as it does the hub's) and closes the connections the
hub closed then.  So it sends when and where the hub sends: after ``PLAY`` from one
player, ``+ MOVEOK`` to it and the next move request to the other, two sends on two
connections, three a move with ``+ OKTHINK`` (``strace -c`` of both servers: as many
``sendto`` calls for the same games).  Until 2 December 2026 it replayed one
connection at a time and sent ``+ MOVEOK`` with that connection's next request in one,
two sends a move: a cheaper anchor, whose ratios are not comparable with these.  Its client
replays a game's two connections together (each event's line on its connection, or
the connect, then the recorded number of lines read on each, and the close).  Both
servers are timed by their process's CPU time around each pass
(:func:`bench.common.measure_servers`); a line is one line in or out, the same lines
for both.

    python bench/mnm_lines.py [--games 10] [--rounds 5] [--profile FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import select
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import Figure, Row, measure_servers, report  # noqa: E402
from bench.hubproc import Hub  # noqa: E402

#: one moment of a game: ``conn``, the connection that acted (0: the game's first);
#: ``line``, what it sent (``None``: it connected); ``out``, per connection, the lines
#: the server sent in answer; ``close``, per connection, whether the server closed it
Event = dict[str, Any]
#: one game, its events in order
Game = list[Event]

#: the bare server's game: the recorded lines out for each line in, on the connections
#: the hub wrote them to (bench/mnm_in_flight.py's bare server uses it too)
BARE_GAME = r"""
class Game:
    def __init__(self, events):
        self.events = events
        self.step = 0
        self.conns = [None, None]
    def act(self, conn):
        event = self.events[self.step]
        self.step += 1
        if event["conn"] != conn:  # the client is not replaying this game
            for other in self.conns:
                if other is not None:
                    other.transport.abortConnection()
            return
        for other, lines, close in zip(self.conns, event["out"], event["close"]):
            for line in lines:
                other.sendLine(line.encode("ascii"))
            if close:
                other.transport.loseConnection()
"""

#: the bare server: each pair of connections replays the next game of the file given
BARE = (
    r"""
import json, sys
from twisted.internet import reactor
from twisted.internet.protocol import Factory
from twisted.protocols.basic import LineOnlyReceiver

games = json.load(open(sys.argv[1]))
made = [0]
opening = []  # the game whose second connection is still to come

"""
    + BARE_GAME
    + r"""

class Replay(LineOnlyReceiver):
    delimiter = b"\n"
    def connectionMade(self):
        self.transport.setTcpNoDelay(True)
        if opening:
            self.game, self.conn = opening.pop(), 1
        else:
            self.game, self.conn = Game(games[made[0] % len(games)]), 0
            made[0] += 1
            opening.append(self.game)
        self.game.conns[self.conn] = self
        self.game.act(self.conn)
    def lineReceived(self, line):
        line.decode("ascii")
        self.game.act(self.conn)
    def connectionLost(self, reason):
        self.game.conns[self.conn] = None

port = reactor.listenTCP(0, Factory.forProtocol(Replay), interface="127.0.0.1")
print(port.getHost().port, flush=True)
reactor.run()
"""
)

OURS = "gamehub MNM"
ANCHOR = "bare LineOnlyReceiver"
#: seconds the driver waits for the server before it gives up
PATIENCE = 60


class Seat:
    """One player of a game the driver plays: its socket, read as lines, and the morris
    client's state machine with a depth-1 search for the moves."""

    def __init__(self, port: int, game_id: str, number: int, seed: int) -> None:
        from bots.morris.search import Searcher
        from games.morris.client import Connector

        self.number = number
        self.searcher = Searcher(max_depth=1, rng=random.Random(seed))
        self.connector = Connector(game_id, number)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        #: the lines to send, in order
        self.pending: list[str] = []
        #: a ``PLAY`` sent whose ``+ MOVEOK`` is still to come
        self.played = False
        self.open = True

    @property
    def waiting(self) -> bool:
        """Whether the server owes this seat lines now: from the connect, and from a
        line that asks for an answer (everything but ``OKWAIT``) until the answer is in
        (``+ MOVEOK`` to ``PLAY``), and after ``+ GAMEOVER`` until the close; not
        while the seat has lines to send or waits for its turn."""
        if not self.open or self.pending:
            return False
        return self.played if self.connector.state == "idle" else True

    def send(self) -> str:
        """Send the next pending line; the line."""
        text = self.pending.pop(0)
        self.played = text.startswith("PLAY ")
        self.sock.sendall(text.encode("ascii") + b"\n")
        return text

    def receive(self) -> list[str]:
        """Read what the socket has (it is readable); the whole lines, each handed to
        the client (empty at the close, and :attr:`open` false)."""
        data = self.sock.recv(65536)
        if not data:
            self.open = False
            return []
        *raw, self.buffer = (self.buffer + data).split(b"\n")
        lines = [line.decode("ascii") for line in raw]
        for text in lines:
            self.hear(text)
        return lines

    def hear(self, text: str) -> None:
        """One server line to the client; what it answers is pending."""
        from bots.morris import decide

        if text == "+ MOVEOK":
            self.played = False
        out = self.connector.line(text)
        self.pending += out
        request = self.connector.request
        if request is not None and out == ["THINKING"]:  # think while OKTHINK comes
            view = {"pieces": request.pieces, "to_move": request.me,
                    "capture": request.capture}  # fmt: skip
            self.pending += self.connector.move(decide(self.searcher, view, None)[0])


def listen(seats: list[Seat], event: Event, enough: Callable[[], bool]) -> None:
    """Read the seats' sockets into ``event`` until ``enough()``."""
    while not enough():
        ready, _, _ = select.select([s.sock for s in seats if s.open], [], [], PATIENCE)
        if not ready:
            raise TimeoutError(f"the server said nothing for {PATIENCE} s")
        for seat in seats:
            if seat.sock in ready:
                event["out"][seat.number] += seat.receive()
                event["close"][seat.number] = not seat.open


def play_game(
    port: int | list[int], game_id: str, seed: int, seats: list[Seat] | None = None,
    make: Callable[..., Seat] = Seat,
) -> Game:  # fmt: skip
    """Play one game to its end through the server at ``port`` (both seats; or seat
    ``n`` through ``port[n]``); its events.  ``seats`` gets the seats, made by
    ``make`` (a :class:`Seat` or a subclass)."""
    ports = port if isinstance(port, list) else [port, port]
    seats = [] if seats is None else seats
    events: Game = []
    try:
        while True:
            speaker = next((s for s in seats if s.pending), None)
            if speaker is None and len(seats) < 2:  # the next seat connects
                n = len(seats)
                seats.append(make(ports[n], game_id, n, seed + n))
                event: Event = {"conn": seats[-1].number, "line": None}
            elif speaker is not None:
                event = {"conn": speaker.number, "line": speaker.send()}
            elif any(s.open for s in seats):  # the server speaks next on its own
                listen(seats, events[-1], lambda: any(s.pending for s in seats)
                       or not any(s.open for s in seats))  # fmt: skip
                continue
            else:
                return events
            event["out"], event["close"] = [[], []], [False, False]
            events.append(event)
            listen(seats, event, lambda: not any(s.waiting for s in seats))
    finally:
        for seat in seats:
            seat.sock.close()


def new_games(hub: Hub, games: int) -> list[str]:
    """``games`` new games with two open seats; their ids."""
    return [hub.create_game({"type": "nmmorris", "seats": ["open", "open"]})["id"]
            for _ in range(games)]  # fmt: skip


def hub_pass(hub: Hub, game_ids: list[str], seed: int, keep: list[Game]) -> int:
    """Play the games through the hub, one after the other (as the bare server replays
    them); the lines in and out.  The games' events are put in ``keep``."""
    games = [play_game(hub.ports["mnm"], game_id, seed + 2 * g)
             for g, game_id in enumerate(game_ids)]  # fmt: skip
    keep[:] = games
    return sum(count(game) for game in games)


def count(game: Game) -> int:
    """Lines in and out of one game."""
    return sum((e["line"] is not None) + len(e["out"][0]) + len(e["out"][1]) for e in game)


def bare_pass(port: int, games: list[Game], repeat: int) -> int:
    """Replay ``games`` ``repeat`` times, one game at a time, both connections of a
    game as the driver used them: each event's line sent on its connection (or the
    connection made), then the lines it got read on each connection (and the close)."""
    done = 0
    for _ in range(repeat):
        for game in games:
            socks: list[socket.socket] = []
            files: list[Any] = []
            try:
                for event in game:
                    if event["line"] is None:
                        sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
                        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                        socks.append(sock)
                        files.append(sock.makefile("rb"))
                    else:
                        socks[event["conn"]].sendall(event["line"].encode("ascii") + b"\n")
                    for n, file in enumerate(files):
                        for _ in event["out"][n]:
                            if not file.readline(4096):
                                raise ConnectionError("the bare server closed too soon")
                        if event["close"][n] and file.readline(4096):
                            raise ConnectionError("the bare server did not close")
                done += count(game)
            finally:
                for file in files:
                    file.close()
                for sock in socks:
                    sock.close()
    return done


@contextlib.contextmanager
def bare_server(games: list[Game]) -> Iterator[tuple[int, int]]:
    """The bare server (:data:`BARE`) replaying ``games``, running: its pid and port."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "games.json"
        path.write_text(json.dumps(games))
        bare = subprocess.Popen([sys.executable, "-c", BARE, str(path)], stdout=subprocess.PIPE)
        try:
            yield bare.pid, int(bare.stdout.readline())  # type: ignore[union-attr]
        finally:
            bare.terminate()
            bare.wait(30)


def run(games: int, rounds: int, profile: str | None = None) -> dict[str, Figure]:
    """``rounds`` interleaved passes: ``games`` games on the hub, then their lines on
    the bare server (three times over: its CPU time must span clock ticks too)."""
    settings = {"mnm_wait_interval": 30}  # clients answer at once: no WAIT in a pass
    with Hub(("mnm",), settings, profile) as hub:
        recorded: list[Game] = []
        hub_pass(hub, new_games(hub, 2), 1, recorded)  # the games the bare server plays
        with bare_server(recorded) as (pid, port):
            seeds = iter(range(100, 10**6, 1000))
            made: list[str] = []

            def make(warm: bool) -> None:  # untimed: the games are made through the web
                made[:] = new_games(hub, 2 if warm else games)

            def ours(warm: bool) -> int:
                return hub_pass(hub, made, next(seeds), [])

            def theirs(warm: bool) -> int:
                return bare_pass(port, recorded, 1 if warm else max(1, games * 3 // 2))

            return measure_servers(
                {OURS: (hub.pid, ours), ANCHOR: (pid, theirs)},
                "lines/CPU-s",
                rounds,
                prepare={OURS: make},
            )


def rows(quick: bool) -> list[Row]:
    """The runner's row (``python -m bench``)."""
    figures = run(games=4 if quick else 20, rounds=3 if quick else 7)
    return [
        Row(
            "MNM server CPU per line (whole morris games; the anchor sends when the hub does)",
            figures[OURS],
            figures[ANCHOR],
            goal=("<=", 1.5),
            cost=True,
            unit="µs/line",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games a pass (default 10)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", help="write a cProfile of the hub to this file (pstats)")
    args = parser.parse_args()
    figures = run(args.games, args.rounds, args.profile)
    print(f"{args.games} games a pass, {args.rounds} rounds")
    report("MNM lines per server CPU-second", figures, ours=OURS, goals={ANCHOR: "≥ 0.67"})
    for f in figures.values():
        print(f"  {f.name:<28} {1e6 / f.median:8.2f} µs/line")
    print(
        f"  the hub costs {figures[ANCHOR].median / figures[OURS].median:.2f}× a line (goal ≤ 1.5)"
    )


if __name__ == "__main__":
    main()
