"""Memory per idle MNM connection: the hub's MNM front end against a bare Twisted
``LineOnlyReceiver`` that sends the same two banner lines (issue 36: at most 1.2× the
bare server's, each measured in a fresh process), and a live MNM game's Python memory.

**Idle connections.** Each round starts a *fresh* hub (``twistd -n gamehub`` with the
MNM front end) and a *fresh* bare server, opens ``warm`` connections to each (first-use
allocations, the allocator's first arenas), then ``connections`` more to each
(interleaved: the first server of a round alternates), reads their banner and leaves
them idle, and reads the growth of each server's resident memory (``VmRSS`` in
``/proc``) over them: the bytes per connection are that growth over the connections
opened.  Both processes are stopped at the end of the round, so neither side's figure
carries an earlier round's memory (a long-lived anchor process grows between rounds:
issue 36 measured 0.78× with one and 1.42× with fresh ones).

**A live game** (in process, tracemalloc): the Python memory N live Nine Men's Morris
games of a real lobby keep after 80 turns each over the MNM front end (the test
harness's clients: ``tests/frontends/test_mnm_live_memory.py``, which holds it at
≤ 60 kB); against that budget.

**A kept finished game** (in process, tracemalloc): the Python memory a finished
Nine Men's Morris game keeps once retired (bots play it to the end; the lobby keeps
its summary, the store the rest), measured by ``tests/hub/test_finished_memory.py``'s
own function, which holds it at ≤ 20 kB; against that budget.

    python bench/mnm_memory.py [--connections 1500] [--rounds 5] [--warm 300]
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

#: bytes a live MNM game may keep (issue 36)
BUDGET = 60_000
#: bytes a kept finished game may keep (issue 36)
FINISHED_BUDGET = 20_000
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


def one_round(connections: int, warm: int, hub_first: bool) -> dict[str, float]:
    """A fresh hub and a fresh bare server: their growth in bytes a connection."""
    settings = {"mnm_prolog_timeout": 3600, "listen_backlog": 1024}
    bare = subprocess.Popen([sys.executable, "-c", BARE], stdout=subprocess.PIPE)
    kept: list[socket.socket] = []
    try:
        with Hub(("mnm",), settings) as hub:
            port = int(bare.stdout.readline())  # type: ignore[union-attr]
            servers = [(OURS, hub.pid, hub.ports["mnm"]), (ANCHOR, bare.pid, port)]
            if not hub_first:
                servers.reverse()
            for _, _, server_port in servers:
                kept += open_idle(server_port, warm)
            time.sleep(0.3)
            grown: dict[str, float] = {}
            for name, pid, server_port in servers:
                before = rss_bytes(pid)
                kept += open_idle(server_port, connections)
                time.sleep(0.3)  # let the server finish with the last of them
                grown[name] = (rss_bytes(pid) - before) / connections
            return grown
    finally:
        for sock in kept:
            sock.close()
        bare.terminate()
        bare.wait(30)


def run(connections: int, rounds: int, warm: int = 300) -> dict[str, Figure]:
    """``rounds`` rounds, each with fresh processes (:func:`one_round`)."""
    figures = {name: Figure(name, "bytes/connection") for name in (OURS, ANCHOR)}
    for i in range(rounds):
        for name, value in one_round(connections, warm, hub_first=i % 2 == 0).items():
            figures[name].rates.append(value)
    return figures


def live_game(games: int = 30) -> Figure:
    """Python bytes a live MNM game keeps (tracemalloc; the memory test's games)."""
    import gc
    import random
    import tempfile
    import tracemalloc
    from pathlib import Path

    from hub.frontends.mnm import make_factory
    from tests.frontends.test_mnm_live_memory import clear_shared_caches, play
    from tests.frontends.test_mnm_protocol import make_hub

    with tempfile.TemporaryDirectory() as tmp:
        hub = make_hub(Path(tmp))
        factory = make_factory(hub)
        rng = random.Random(36)
        kept = play(hub, factory, rng, 3)
        clear_shared_caches()
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            kept += play(hub, factory, rng, games)
            clear_shared_caches()
            gc.collect()
            grown = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
    turns = sum(t for *_, t in kept[3:]) / games
    return Figure(f"gamehub, {turns:.0f} turns a game", "bytes/game", [grown / games])


def finished_game() -> Figure:
    """Python bytes a kept, retired finished morris game keeps (tracemalloc; the
    memory test's function)."""
    from tests.hub.test_finished_memory import GAMES, kept_finished_bytes

    kept = kept_finished_bytes("nmmorris", GAMES)
    return Figure("gamehub, morris bots", "bytes/game", [kept])


def _within(what: str, found: Figure, budget: int) -> Row:
    """A row of ``found`` bytes a game against a ``budget`` of bytes."""
    return Row(what, found, Figure(f"budget {budget:,} bytes", "bytes/game", [budget]),
               goal=("<=", 1.0), unit="bytes")  # fmt: skip


def rows(quick: bool) -> list[Row]:
    """The runner's rows (``python -m bench``)."""
    figures = run(connections=500 if quick else 1500, rounds=3 if quick else 5)
    return [
        Row(
            "memory per idle MNM connection, each side a fresh process a round",
            figures[OURS],
            figures[ANCHOR],
            goal=("<=", 1.2),
            unit="bytes",
        ),
        _within(
            "Python memory a live MNM game keeps (80 turns, both connections; tracemalloc)",
            live_game(),
            BUDGET,
        ),
        _within(
            "Python memory a kept finished MNM game keeps (retired; tracemalloc)",
            finished_game(),
            FINISHED_BUDGET,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=1500, help="measured a round")
    parser.add_argument("--rounds", type=int, default=5, help="each with fresh processes")
    parser.add_argument("--warm", type=int, default=300, help="opened first, not measured")
    args = parser.parse_args()
    figures = run(args.connections, args.rounds, args.warm)
    print(f"{args.connections} idle connections a round, {args.rounds} rounds of fresh processes")
    for f in figures.values():
        lo, hi = f.spread
        rates = ", ".join(f"{r:,.0f}" for r in f.rates)
        print(
            f"  {f.name:<24} {f.median:8,.0f} bytes/connection (median; {lo:,.0f}..{hi:,.0f}: {rates})"
        )
    ratio = figures[OURS].median / figures[ANCHOR].median
    per_round = [o / a for o, a in zip(figures[OURS].rates, figures[ANCHOR].rates, strict=True)]
    rounds = ", ".join(f"{r:.2f}" for r in per_round)
    print(
        f"  the hub uses {ratio:.2f}× the bare server's memory a connection (goal ≤ 1.2; by round: {rounds})"
    )
    game = live_game()
    print(f"  a live MNM game: {game.median:,.0f} bytes ({game.name}; budget {BUDGET:,})")
    finished = finished_game()
    print(f"  a kept finished MNM game: {finished.median:,.0f} bytes (budget {FINISHED_BUDGET:,})")


if __name__ == "__main__":
    main()
