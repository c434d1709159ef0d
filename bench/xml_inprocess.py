"""The XML request path in process: the hub's XML front end (its protocol, sessions,
decoding, handlers, encoding, the lobby transcript and the hub's telemetry), a real
lobby of ``hello`` games and real transcripts, on string transports (no sockets, no
reactor loop); ``--clients`` logged-in connections send ``bench/xml_frames.py``'s mix
(a game list and a lobby chat line), ``--depth`` requests at a time in one chunk of
bytes (pipelined); prints the CPU time a request.

No anchor: this is the part of ``bench/xml_frames.py``'s hub figure that is the hub's
own Python, for judging a change by instructions rather than by a noisy clock::

    PYTHONHASHSEED=0 valgrind --tool=callgrind python bench/xml_inprocess.py --rounds 1
    PYTHONHASHSEED=0 valgrind --tool=callgrind python bench/xml_inprocess.py --rounds 3

(the difference of the two totals over twice the requests a round is the instructions
a request; docs/performance.md quotes such counts).  A lobby chat line is answered
and also sent to every logged-in connection: with ``--clients 1`` a request costs its
own answer, with more it costs the fan-out too.

    python bench/xml_inprocess.py [--clients 8] [--depth 4] [--requests 4000] [--rounds 7]
                                  [--turn 4]

``--turn``: how many chunks (of as many clients) one turn of the reactor reads; the
calls due at the end of a turn run after them (``clock.advance(0)``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from twisted.internet.address import IPv4Address  # noqa: E402
from twisted.internet.testing import MemoryReactorClock, StringTransport  # noqa: E402

from bench.xml_frames import mix, request  # noqa: E402
from hub.connections.chat import ChatService  # noqa: E402
from hub.frontends.xml import make_factory  # noqa: E402
from hub.ops.telemetry import Telemetry  # noqa: E402
from tests.xml_support import FakeHub  # noqa: E402


class Transport(StringTransport):
    """A transport that keeps nothing but how many bytes were written."""

    written = 0

    def setTcpNoDelay(self, enabled: bool) -> None:  # noqa: N802
        """TCP's no-delay switch: nothing to switch."""

    def write(self, data: bytes) -> None:
        """Count ``data`` and drop it."""
        self.written += len(data)


def framed(documents: list[bytes]) -> bytes:
    """The documents as one chunk of frames."""
    return b"".join(len(d).to_bytes(4, "big") + d for d in documents)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8, help="connections (default 8)")
    parser.add_argument("--depth", type=int, default=4, help="requests a chunk (default 4)")
    parser.add_argument("--requests", type=int, default=4000, help="requests a round")
    parser.add_argument("--games", type=int, default=10, help="games in the lobby's list")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--turn", type=int, default=4,
                        help="chunks read in one turn of the reactor (default 4; the "
                        "pipelined bench's hub reads about 6)")  # fmt: skip
    args = parser.parse_args()
    clock = MemoryReactorClock()
    hub = FakeHub(tempfile.mkdtemp(prefix="gamehub-bench-"), reactor=clock,
                  xml_check_output=False, xml_rate=1e9, xml_burst=1e9)  # fmt: skip
    hub.chat = ChatService(clock, hub.lobby, rate=10**9)  # the bench's setting (hubproc.py)
    for i in range(args.games):
        hub.lobby.create_game("hello", name=f"Bench {i}")
    factory = make_factory(hub)
    factory.telemetry = Telemetry("bench").frontend("xml")  # as the hub's service sets it
    factory.doStart()
    chunks = []
    for n in range(args.clients):
        proto = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", 40000 + n))
        proto.makeConnection(Transport())
        name = f"bench{n}"
        account = f'<accountmanagement><create accountname="{name}" password="bench-pw" accounttype="0"/></accountmanagement>'
        login = f'<authentication><login accountname="{name}" password="bench-pw"/></authentication>'  # fmt: skip
        proto.dataReceived(framed([request(0, account), request(0, login)]))
        sid = proto.connection.lobby_session
        assert sid, "the bench's client did not log in"
        requests = mix(sid)
        # the mix in turn across a client's chunks (a chunk of one request alternates)
        own = [
            framed([requests[(k * args.depth + i) % len(requests)] for i in range(args.depth)])
            for k in range(len(requests))
        ]
        chunks.append((proto, own))
    turns = max(1, args.requests // args.depth)
    done = turns * args.depth
    used: list[float] = []
    for _ in range(args.rounds):
        start = time.process_time()
        for turn in range(turns):
            proto, own = chunks[turn % len(chunks)]
            proto.dataReceived(own[turn // len(chunks) % len(own)])
            if turn % args.turn == args.turn - 1:
                clock.advance(0)  # the reactor's turn ends: what waits for it runs
            if turn % 256 == 255:
                clock.advance(1)  # the transcripts' flush timers
        used.append(time.process_time() - start)
    per_request = [u / done * 1e6 for u in used]
    print(f"{args.clients} clients, {args.depth} requests a chunk, {done} requests a round, "
          f"{args.rounds} rounds: CPU a request median {statistics.median(per_request):.1f} µs")  # fmt: skip
    factory.doStop()


if __name__ == "__main__":
    main()
