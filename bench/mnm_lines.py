"""MNM server CPU per line: whole Nine Men's Morris games through the hub's MNM front
end against a bare Twisted ``LineOnlyReceiver`` with the same lines in and out (issue
19's second row; goal: the hub costs at most 2× the bare server a line).

A pass plays ``games`` games on a real ``twistd -n gamehub``, one after the other: two
blocking clients per game (threads; the morris client's :class:`games.morris.client.Connector` and a
depth-1 search for the move), every line each one sends and reads kept as its script.
The bare server is then given those scripts: it writes each connection's lines when
the client sends the line they followed (the banner at once, the last lines and a
close after the last), and the client replays them one connection at a time.  Both
are timed by their process's CPU time around each pass (:func:`bench.common.
measure_servers`); a line is one line in or out.

    python bench/mnm_lines.py [--games 10] [--rounds 5] [--profile FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import Figure, Row, measure_servers, report  # noqa: E402
from bench.hubproc import Hub  # noqa: E402

#: one connection's script: ``sent``, the lines it sent; ``got``, the lines it got
#: before it spoke, then after each line it sent (until it spoke again)
Script = dict[str, list]

#: the bare server: each connection replays the next script of the file it is given
BARE = r"""
import json, sys
from twisted.internet import reactor
from twisted.internet.protocol import Factory
from twisted.protocols.basic import LineOnlyReceiver

scripts = json.load(open(sys.argv[1]))
turn = [0]

class Replay(LineOnlyReceiver):
    delimiter = b"\n"
    def connectionMade(self):
        self.transport.setTcpNoDelay(True)
        self.script = scripts[turn[0] % len(scripts)]["got"]
        turn[0] += 1
        self.step = 0
        self.answer()
    def answer(self):
        for line in self.script[self.step]:
            self.sendLine(line.encode("ascii"))
        self.step += 1
        if self.step == len(self.script):
            self.transport.loseConnection()
    def lineReceived(self, line):
        line.decode("ascii")
        self.answer()

port = reactor.listenTCP(0, Factory.forProtocol(Replay), interface="127.0.0.1")
print(port.getHost().port, flush=True)
reactor.run()
"""

OURS = "gamehub MNM"
ANCHOR = "bare LineOnlyReceiver"


class Lines:
    """A blocking line client that keeps its :data:`Script`."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.file = self.sock.makefile("rb")
        self.got: list[list[str]] = [[]]
        self.sent: list[str] = []

    def read(self) -> str | None:
        raw = self.file.readline(4096)
        if not raw:
            return None
        text = raw.rstrip(b"\n").decode("ascii")
        self.got[-1].append(text)
        return text

    def send(self, lines: list[str]) -> None:
        for text in lines:
            self.sent.append(text)
            self.got.append([])
            self.sock.sendall(text.encode("ascii") + b"\n")

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def play_one(port: int, game_id: str, seat: int, seed: int, scripts: list[Script]) -> None:
    """One player of one game, to its end (its script appended to ``scripts``)."""
    from bots.morris import decide
    from bots.morris.search import Searcher
    from games.morris.client import Connector

    searcher = Searcher(max_depth=1, rng=random.Random(seed))
    connector = Connector(game_id, seat)
    client = Lines(port)
    try:
        while not connector.finished:
            text = client.read()
            if text is None:
                break
            out = connector.line(text)
            client.send(out)
            request = connector.request
            if request is not None and out == ["THINKING"]:
                view = {"pieces": request.pieces, "to_move": request.me,
                        "capture": request.capture}  # fmt: skip
                client.send(connector.move(decide(searcher, view, None)[0]))
        while client.read() is not None:  # the server closes after QUIT
            pass
    finally:
        client.close()
    scripts.append({"sent": client.sent, "got": client.got})


def new_games(hub: Hub, games: int) -> list[str]:
    """``games`` new games with two open seats; their ids."""
    return [hub.create_game({"type": "nmmorris", "seats": ["open", "open"]})["id"]
            for _ in range(games)]  # fmt: skip


def hub_pass(hub: Hub, game_ids: list[str], seed: int, keep: list[Script]) -> int:
    """Play the games through the hub, one after the other (as the bare server replays
    one connection at a time); the lines in and out."""
    scripts: list[Script] = []
    for g, game_id in enumerate(game_ids):
        threads = [
            threading.Thread(
                target=play_one,
                args=(hub.ports["mnm"], game_id, seat, seed + 2 * g + seat, scripts),
                daemon=True,
            )  # fmt: skip
            for seat in (0, 1)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
    keep[:] = scripts
    return sum(count(s) for s in scripts)


def count(script: Script) -> int:
    """Lines in and out of one script."""
    return len(script["sent"]) + sum(len(chunk) for chunk in script["got"])


def bare_pass(port: int, scripts: list[Script], repeat: int) -> int:
    """Replay ``scripts`` ``repeat`` times, one connection at a time."""
    done = 0
    for _ in range(repeat):
        for script in scripts:
            sock = socket.create_connection(("127.0.0.1", port), timeout=60)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            file = sock.makefile("rb")
            try:
                sent = [b""] + [line.encode("ascii") + b"\n" for line in script["sent"]]
                for line, chunk in zip(sent, script["got"], strict=True):
                    if line:
                        sock.sendall(line)
                    for _ in chunk:
                        file.readline(4096)
                done += count(script)
            finally:
                file.close()
                sock.close()
    return done


def run(games: int, rounds: int, profile: str | None = None) -> dict[str, Figure]:
    """``rounds`` interleaved passes: ``games`` games on the hub, then their lines on
    the bare server (three times over: its CPU time must span clock ticks too)."""
    settings = {"mnm_wait_interval": 30}  # clients answer at once: no WAIT in a pass
    with tempfile.TemporaryDirectory() as tmp, Hub(("mnm",), settings, profile) as hub:
        scripts: list[Script] = []
        hub_pass(hub, new_games(hub, 2), 1, scripts)  # the scripts the bare server plays
        path = Path(tmp) / "scripts.json"
        path.write_text(json.dumps(scripts))
        bare = subprocess.Popen([sys.executable, "-c", BARE, str(path)], stdout=subprocess.PIPE)
        try:
            port = int(bare.stdout.readline())  # type: ignore[union-attr]
            seeds = iter(range(100, 10**6, 1000))
            made: list[str] = []

            def make(warm: bool) -> None:  # untimed: the games are made through the web
                made[:] = new_games(hub, 2 if warm else games)

            def ours(warm: bool) -> int:
                return hub_pass(hub, made, next(seeds), [])

            def theirs(warm: bool) -> int:
                return bare_pass(port, scripts, 1 if warm else max(1, games * 3 // 2))

            return measure_servers(
                {OURS: (hub.pid, ours), ANCHOR: (bare.pid, theirs)},
                "lines/CPU-s",
                rounds,
                prepare={OURS: make},
            )
        finally:
            bare.terminate()
            bare.wait(30)


def rows(quick: bool) -> list[Row]:
    """The runner's row (``python -m bench``)."""
    figures = run(games=4 if quick else 10, rounds=3 if quick else 5)
    return [
        Row(
            "MNM server CPU per line (whole morris games, 2 clients each)",
            figures[OURS],
            figures[ANCHOR],
            goal=("<=", 2.0),
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
    report("MNM lines per server CPU-second", figures, ours=OURS, goals={ANCHOR: "≥ 0.5"})
    for f in figures.values():
        print(f"  {f.name:<28} {1e6 / f.median:8.2f} µs/line")
    print(f"  the hub costs {figures[ANCHOR].median / figures[OURS].median:.2f}× a line (goal ≤ 2)")


if __name__ == "__main__":
    main()
