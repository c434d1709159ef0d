"""XML frames per server CPU-second: the hub's XML front end against a bare Twisted
``Int32StringReceiver`` that parses each frame with lxml and echoes it (issue 19's
first row; goal: ratio ≥ 0.25).

Both servers run in their own process on loopback; one client here sends the same
mix (a ``gamelist`` request and a lobby chat line, one at a time, waiting for each
answer) to each in turn, round by round, and reads the server's CPU time (user +
system, from ``/proc``) around each pass.  The rate is frames answered per second of
the server's CPU, so the client's own cost does not count.

    python bench/xml_frames.py [--frames 3000] [--rounds 5] [--games 10] [--profile FILE]
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import Figure, Row, measure_servers, report  # noqa: E402
from bench.hubproc import Hub  # noqa: E402

#: a bare server: one frame in, parsed with lxml, the same frame out
BARE = r"""
import sys
from lxml import etree
from twisted.internet import reactor
from twisted.internet.protocol import Factory
from twisted.protocols.basic import Int32StringReceiver

class Echo(Int32StringReceiver):
    MAX_LENGTH = 1 << 20
    def connectionMade(self):
        self.transport.setTcpNoDelay(True)
    def stringReceived(self, data):
        etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
        self.sendString(data)

port = reactor.listenTCP(0, Factory.forProtocol(Echo), interface="127.0.0.1")
print(port.getHost().port, flush=True)
reactor.run()
"""

LISTENING = re.compile(r"gamehub (\w+) front end listening on [^:]+:(\d+)")


class Frames:
    """A blocking client of 4-byte-length frames."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def send(self, document: bytes) -> None:
        self.sock.sendall(len(document).to_bytes(4, "big") + document)

    def read(self) -> bytes:
        while True:
            if len(self.buffer) >= 4:
                n = int.from_bytes(self.buffer[:4], "big")
                if len(self.buffer) >= 4 + n:
                    frame, self.buffer = self.buffer[4 : 4 + n], self.buffer[4 + n :]
                    return frame
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buffer += chunk

    def answer(self, document: bytes) -> bytes:
        """Send a request and read frames until its response (updates skipped)."""
        self.send(document)
        while True:
            frame = self.read()
            if b"<response" in frame or not frame.startswith(b"<?xml"):
                return frame


def request(sid: int, body: str) -> bytes:
    return f'<message sessionid="{sid}"><request>{body}</request></message>'.encode()


def mix(sid: int) -> list[bytes]:
    """The two requests of the mix: the game list and a lobby chat line."""
    return [
        request(sid, '<lobby><gamelist gametype="hello"/></lobby>'),
        request(
            sid, '<game gameid="0"><chat sender="bench"><message>hello all</message></chat></game>'
        ),
    ]


def hub_client(port: int) -> tuple[Frames, int]:
    client = Frames(port)
    client.read()  # the info greeting
    account = '<accountmanagement><create accountname="bench" password="bench-pw" accounttype="0"/></accountmanagement>'
    client.answer(request(0, account))
    answer = client.answer(
        request(
            0, '<authentication><login accountname="bench" password="bench-pw"/></authentication>'
        )
    )
    sid = int(re.search(rb'sessionid="(\d+)"', answer).group(1))  # type: ignore[union-attr]
    return client, sid


def run(frames: int, rounds: int, games: int, profile: str | None = None) -> dict[str, Figure]:
    """Both servers, ``rounds`` interleaved passes of ``frames`` frames each (the bare
    server ten times as many: its CPU time must span many clock ticks too)."""
    bare = subprocess.Popen([sys.executable, "-c", BARE], stdout=subprocess.PIPE)
    try:
        with Hub(("xml",), profile=profile) as hub:
            for _ in range(games):  # a lobby of a few games for the game list
                hub.create_game({"type": "hello", "seats": ["open", "open"]})
            bare_port = int(bare.stdout.readline())  # type: ignore[union-attr]
            ours, sid = hub_client(hub.ports["xml"])
            echo = Frames(bare_port)
            requests = mix(sid)

            def passes(client: Frames, n: int):
                def one(warm: bool) -> int:
                    count = max(2, n // 5) if warm else n
                    for i in range(count):
                        client.answer(requests[i % len(requests)])
                    return count

                return one

            return measure_servers(
                {
                    OURS: (hub.pid, passes(ours, frames)),
                    ANCHOR: (bare.pid, passes(echo, frames * 10)),
                },
                "frames/CPU-s",
                rounds,
            )
    finally:
        bare.terminate()
        bare.wait(30)


OURS = "gamehub XML"
ANCHOR = "bare Int32StringReceiver+lxml"


def rows(quick: bool) -> list[Row]:
    """The runner's row (``python -m bench``)."""
    figures = run(frames=600 if quick else 3000, rounds=3 if quick else 5, games=10)
    return [
        Row(
            "XML frames per server CPU-s (game list of 10 + lobby chat)",
            figures[OURS],
            figures[ANCHOR],
            goal=(">=", 0.25),
            unit="frames/CPU-s",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=3000, help="frames a pass (default 3000)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=10, help="games in the lobby's list")
    parser.add_argument("--profile", help="write a cProfile of the hub to this file (pstats)")
    args = parser.parse_args()
    figures = run(args.frames, args.rounds, args.games, args.profile)
    print(f"{args.frames} frames a pass, {args.rounds} rounds, {args.games} games listed")
    report(
        "XML frames per server CPU-second (game list + lobby chat)",
        figures,
        ours=OURS,
        goals={ANCHOR: "≥ 0.25"},
    )


if __name__ == "__main__":
    main()
