"""XML frames per server CPU-second: the hub's XML front end against a bare Twisted
``Int32StringReceiver`` that parses each frame with lxml (issue 19's first row; goal:
ratio ≥ 0.25; issue 36: ≥ 0.4 with many clients pipelining).

Both servers run in their own process on loopback; the client here sends the same
mix (a ``gamelist`` request and a lobby chat line) to each in turn, round by round,
and reads the server's CPU time (its threads' on-CPU time, from ``/proc``) around each
pass.  The rate is requests answered per second of the server's CPU, so the client's
own cost does not count.  Two modes, two rows:

- **one client** (issue 19's row): one request at a time, waiting for each answer;
  the anchor echoes each frame after parsing it (its answers are the requests, shorter
  than the hub's game list; the hub's chat line also goes to the one client).
- **pipelined** (``--clients``, ``--depth``; issue 36's row): many logged-in clients
  at once, each with ``--depth`` requests in flight (it sends the next before the
  answers to the ones before have come).  The hub answers each request and sends each
  lobby chat line to every logged-in client (the chat's behaviour), so here the anchor
  does the same work: a fresh process for each run that parses each request with
  lxml, answers a game list with the hub's game-list answer and a chat line with the
  hub's chat answer, and writes the hub's chat update to every client (the bytes the
  hub sent for them, read from the hub first: the same sizes and frames out).

    python bench/xml_frames.py [--frames 3000] [--rounds 5] [--games 10] [--profile FILE]
                               [--clients 16] [--depth 4] [--pipelined-frames 6000]
                               [--mode both|one|pipelined]
"""

from __future__ import annotations

import argparse
import os
import re
import selectors
import socket
import subprocess
import sys
import tempfile

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

#: the pipelined mode's bare server: each frame parsed with lxml, answered with the
#: hub's answer of its kind; a chat line's update written to every client (argv: the
#: files of the hub's game-list answer, chat answer and chat update)
PIPE_BARE = r"""
import sys
from lxml import etree
from twisted.internet import reactor
from twisted.internet.protocol import Factory
from twisted.protocols.basic import Int32StringReceiver

LIST, SAID, LINE = (open(path, "rb").read() for path in sys.argv[1:4])
PARSER = etree.XMLParser(resolve_entities=False, no_network=True)
CLIENTS = []

class Lobby(Int32StringReceiver):
    MAX_LENGTH = 1 << 20
    def connectionMade(self):
        self.transport.setTcpNoDelay(True)
        CLIENTS.append(self)
    def connectionLost(self, reason):
        CLIENTS.remove(self)
    def stringReceived(self, data):
        root = etree.fromstring(data, PARSER)
        if root.find("request/lobby/gamelist") is not None:
            self.sendString(LIST)
        else:
            self.sendString(SAID)
            for client in CLIENTS:
                client.sendString(LINE)

port = reactor.listenTCP(0, Factory.forProtocol(Lobby), interface="127.0.0.1")
print(port.getHost().port, flush=True)
reactor.run()
"""

LISTENING = re.compile(r"gamehub (\w+) front end listening on [^:]+:(\d+)")


class Frames:
    """A blocking client of 4-byte-length frames."""

    def __init__(self, port: int | None = None, sock: socket.socket | None = None) -> None:
        if sock is None:
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
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


def hub_client(port: int, name: str = "bench") -> tuple[Frames, int]:
    client = Frames(port)
    client.read()  # the info greeting
    account = f'<accountmanagement><create accountname="{name}" password="bench-pw" accounttype="0"/></accountmanagement>'
    client.answer(request(0, account))
    answer = client.answer(
        request(
            0, f'<authentication><login accountname="{name}" password="bench-pw"/></authentication>'
        )
    )
    sid = int(re.search(rb'sessionid="(\d+)"', answer).group(1))  # type: ignore[union-attr]
    return client, sid


def is_response(frame: bytes) -> bool:
    """Whether a frame of the mix's is the answer to a request (not a chat update)."""
    return b"<response" in frame[:120]


class Pipelined:
    """Many connections to one server, each with ``depth`` requests in flight: a pass
    sends ``n`` requests in all (the same number on each connection, each its own mix)
    and reads every answer; the chat updates that come meanwhile are read and skipped.

    :param socks: the connections (logged in to the hub, or to the anchor).
    :param mixes: each connection's requests, sent in turn.
    """

    def __init__(self, socks: list[socket.socket], mixes: list[list[bytes]], depth: int) -> None:
        self.socks = socks
        self.mixes = mixes
        self.frames = [[len(d).to_bytes(4, "big") + d for d in m] for m in mixes]
        self.depth = depth
        self.buffers = [bytearray() for _ in socks]

    def close(self) -> None:
        for sock in self.socks:
            sock.close()

    def run(self, n: int) -> int:
        """Send about ``n`` requests (a multiple of the connections); wait for every
        answer.  Returns how many were answered."""
        each = max(1, n // len(self.socks))
        selector = selectors.DefaultSelector()
        sent = [0] * len(self.socks)
        owed = [0] * len(self.socks)
        done = 0
        for i, sock in enumerate(self.socks):
            first = min(self.depth, each)
            frames = self.frames[i]
            sock.sendall(b"".join(frames[k % len(frames)] for k in range(first)))
            sent[i] = owed[i] = first
            selector.register(sock, selectors.EVENT_READ, i)
        while done < each * len(self.socks):
            events = selector.select(timeout=30)
            if not events:
                raise TimeoutError(f"no answer for 30 s ({done} answered)")
            for key, _ in events:
                i = key.data
                sock = self.socks[i]
                chunk = sock.recv(1 << 20)
                if not chunk:
                    raise ConnectionError("the server closed a connection")
                buffer = self.buffers[i]
                buffer += chunk
                answered = 0
                at = 0
                while len(buffer) - at >= 4:
                    end = at + 4 + int.from_bytes(buffer[at : at + 4], "big")
                    if end > len(buffer):
                        break
                    if is_response(bytes(buffer[at + 4 : min(end, at + 124)])):
                        answered += 1
                    at = end
                del buffer[:at]
                if answered:
                    if answered > owed[i]:
                        raise RuntimeError("an answer to no request")
                    owed[i] -= answered
                    done += answered
                    more = min(answered, each - sent[i])
                    if more > 0:
                        frames = self.frames[i]
                        start = sent[i]
                        sock.sendall(
                            b"".join(frames[k % len(frames)] for k in range(start, start + more))
                        )
                        sent[i] += more
                        owed[i] += more
        selector.close()
        return done


def pipelined(hub: Hub, clients: int, depth: int) -> tuple[Pipelined, list[bytes]]:
    """``clients`` logged-in connections to the hub, and the hub's answers to the mix
    (a game list, a chat line) and its chat update, as one of them got them."""
    logged_in = [hub_client(hub.ports["xml"], f"bench{i}") for i in range(clients)]
    mixes = [mix(sid) for _, sid in logged_in]
    # the answers, and the update, as the last client gets them (nobody else talks now)
    last = logged_in[-1][0]
    listing = last.answer(mixes[-1][0])
    said = last.answer(mixes[-1][1])
    line = last.read()
    if is_response(line) or b"<chat" not in line:
        raise RuntimeError("the hub's chat line did not come after its answer")
    for other, _ in logged_in[:-1]:  # the others' copies of the line
        if b"<chat" not in other.read():
            raise RuntimeError("a client did not get the lobby's chat line")
    if any(client.buffer for client, _ in logged_in):
        raise RuntimeError("a client got more than the mix's answers")
    return Pipelined([client.sock for client, _ in logged_in], mixes, depth), [listing, said, line]


def anchor_clients(port: int, clients: int, mixes: list[list[bytes]], depth: int) -> Pipelined:
    """``clients`` connections to the pipelined anchor, sending the hub's clients' mixes."""
    socks = []
    for _ in range(clients):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        socks.append(sock)
    return Pipelined(socks, mixes, depth)


def run_pipelined(
    frames: int, rounds: int, games: int, clients: int, depth: int, profile: str | None = None
) -> dict[str, Figure]:
    """The hub and a fresh pipelined anchor, ``rounds`` interleaved passes of about
    ``frames`` requests each, over ``clients`` connections with ``depth`` in flight."""
    settings = {"xml_max_per_address": clients + 4}
    with (
        Hub(("xml",), settings=settings, profile=profile) as hub,
        tempfile.TemporaryDirectory(prefix="gamehub-bench-") as tmp,
    ):
        for _ in range(games):
            hub.create_game({"type": "hello", "seats": ["open", "open"]})
        ours, answers = pipelined(hub, clients, depth)
        paths = []
        for name, data in zip(("list", "said", "line"), answers, strict=True):
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(data)
            paths.append(path)
        bare = subprocess.Popen([sys.executable, "-c", PIPE_BARE, *paths], stdout=subprocess.PIPE)
        try:
            port = int(bare.stdout.readline())  # type: ignore[union-attr]
            echo = anchor_clients(port, clients, ours.mixes, depth)

            def passes(client: Pipelined):
                return lambda warm: client.run(
                    max(clients * depth, frames // 5) if warm else frames
                )

            try:
                return measure_servers(
                    {
                        PIPELINED: (hub.pid, passes(ours)),
                        PIPELINED_ANCHOR: (bare.pid, passes(echo)),
                    },
                    "frames/CPU-s",
                    rounds,
                )
            finally:
                ours.close()
                echo.close()
        finally:
            bare.terminate()
            bare.wait(30)


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
PIPELINED = "gamehub XML, pipelined"
PIPELINED_ANCHOR = "bare Int32StringReceiver+lxml, same answers"
#: the pipelined row's clients and requests in flight on each
CLIENTS = 16
DEPTH = 4


def rows(quick: bool) -> list[Row]:
    """The runner's row (``python -m bench``)."""
    figures = run(frames=600 if quick else 3000, rounds=3 if quick else 5, games=10)
    piped = run_pipelined(frames=1600 if quick else 6400, rounds=3 if quick else 5, games=10,
                          clients=CLIENTS, depth=DEPTH)  # fmt: skip
    return [
        Row(
            "XML frames per server CPU-s (game list of 10 + lobby chat)",
            figures[OURS],
            figures[ANCHOR],
            goal=(">=", 0.25),
            unit="frames/CPU-s",
        ),
        Row(
            f"XML frames per server CPU-s, {CLIENTS} clients pipelining {DEPTH} requests each"
            " (game list of 10 + lobby chat to all)",
            piped[PIPELINED],
            piped[PIPELINED_ANCHOR],
            goal=(">=", 0.4),
            unit="frames/CPU-s",
            note="the anchor sends the hub's answers and chat lines (same frames out)",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=3000, help="frames a pass (default 3000)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=10, help="games in the lobby's list")
    parser.add_argument("--profile", help="write a cProfile of the hub to this file (pstats; "
                        "with --mode both, of the pipelined run's hub)")  # fmt: skip
    parser.add_argument("--clients", type=int, default=CLIENTS, help="pipelining clients")
    parser.add_argument("--depth", type=int, default=DEPTH, help="requests in flight on each")
    parser.add_argument("--pipelined-frames", type=int, default=6400, help="requests a pass")
    parser.add_argument("--mode", choices=("both", "one", "pipelined"), default="both")
    args = parser.parse_args()
    if args.mode != "pipelined":
        figures = run(args.frames, args.rounds, args.games, args.profile)
        print(f"{args.frames} frames a pass, {args.rounds} rounds, {args.games} games listed")
        report(
            "XML frames per server CPU-second (game list + lobby chat), one client",
            figures,
            ours=OURS,
            goals={ANCHOR: "≥ 0.25"},
        )
    if args.mode != "one":
        piped = run_pipelined(args.pipelined_frames, args.rounds, args.games, args.clients,
                              args.depth, args.profile)  # fmt: skip
        print(f"{args.clients} clients, {args.depth} requests in flight on each, "
              f"{args.pipelined_frames} requests a pass, {args.rounds} rounds")  # fmt: skip
        report(
            "XML frames per server CPU-second (game list + lobby chat to all), pipelined",
            piped,
            ours=PIPELINED,
            goals={PIPELINED_ANCHOR: "≥ 0.4"},
        )


if __name__ == "__main__":
    main()
