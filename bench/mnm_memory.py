"""Memory per idle MNM connection: the hub's MNM front end against a bare Twisted
``LineOnlyReceiver`` that sends the same two banner lines (issue 19's last row;
goal: at most 1.5× the bare server's).

Each round opens ``connections`` more connections to each server (interleaved), reads
their banner and leaves them idle, then reads the growth of the server's resident
memory (``VmRSS`` in ``/proc``) over the round: the bytes per connection are the
growth over the connections opened.  The connections stay open until the end (a
closed one's memory is kept by the allocator for the next, which would hide it).

    python bench/mnm_memory.py [--connections 1500] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import Figure, Row  # noqa: E402
from bench.hubproc import Hub  # noqa: E402

BARE = r"""
from twisted.internet import reactor
from twisted.internet.protocol import Factory
from twisted.protocols.basic import LineOnlyReceiver

class Banner(LineOnlyReceiver):
    delimiter = b"\n"
    def connectionMade(self):
        self.transport.setTcpNoDelay(True)
        self.sendLine(b"+ MNM Gameserver v3.1 accepting connections")
        self.sendLine(b"+ Announcement: welcome to Gamehub")
    def lineReceived(self, line):
        pass

port = reactor.listenTCP(0, Factory.forProtocol(Banner), interface="127.0.0.1", backlog=1024)
print(port.getHost().port, flush=True)
reactor.run()
"""

OURS = "gamehub MNM"
ANCHOR = "bare LineOnlyReceiver"


def rss_bytes(pid: int) -> int:
    """The resident memory of process ``pid``."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def open_idle(port: int, count: int) -> list[socket.socket]:
    """``count`` connections that read their two banner lines and then stay idle."""
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        socks.append(sock)
    for sock in socks:
        got = b""
        while got.count(b"\n") < 2:
            chunk = sock.recv(4096)
            if not chunk:
                raise ConnectionError("the server closed an idle connection")
            got += chunk
    return socks


def run(connections: int, rounds: int) -> dict[str, Figure]:
    """``rounds`` interleaved rounds of ``connections`` new idle connections each."""
    settings = {"mnm_prolog_timeout": 3600, "listen_backlog": 1024}
    bare = subprocess.Popen([sys.executable, "-c", BARE], stdout=subprocess.PIPE)
    kept: list[socket.socket] = []
    try:
        with Hub(("mnm",), settings) as hub:
            port = int(bare.stdout.readline())  # type: ignore[union-attr]
            servers = {OURS: (hub.pid, hub.ports["mnm"]), ANCHOR: (bare.pid, port)}
            figures = {name: Figure(name, "bytes/connection") for name in servers}
            for warm in (True,) + (False,) * rounds:
                for name, (pid, server_port) in servers.items():
                    before = rss_bytes(pid)
                    kept += open_idle(
                        server_port, max(50, connections // 5) if warm else connections
                    )
                    time.sleep(0.2)  # let the server finish with the last of them
                    if not warm:
                        figures[name].rates.append((rss_bytes(pid) - before) / connections)
            return figures
    finally:
        for sock in kept:
            sock.close()
        bare.terminate()
        bare.wait(30)


def rows(quick: bool) -> list[Row]:
    """The runner's row (``python -m bench``)."""
    figures = run(connections=500 if quick else 1500, rounds=3 if quick else 5)
    return [
        Row(
            "memory per idle MNM connection",
            figures[OURS],
            figures[ANCHOR],
            goal=("<=", 1.5),
            unit="bytes",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=1500, help="new ones a round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    figures = run(args.connections, args.rounds)
    print(f"{args.connections} new idle connections a round, {args.rounds} rounds")
    for f in figures.values():
        lo, hi = f.spread
        print(f"  {f.name:<24} {f.median:8,.0f} bytes/connection (median; {lo:,.0f}..{hi:,.0f})")
    ratio = figures[OURS].median / figures[ANCHOR].median
    print(f"  the hub uses {ratio:.2f}× the bare server's memory a connection (goal ≤ 1.5)")


if __name__ == "__main__":
    main()
