"""Peer-to-peer hold'em (docs/p2p.md): what mental poker costs a peer.

Three figures, each timed in rounds interleaved with its anchor:

- **the cipher, per card**: encrypting one card (``group.mul``: a scalar
  multiplication on the prime-order subgroup of Ed25519, which also checks its input
  is a point of that subgroup) against a plain libsodium scalar multiplication
  (X25519, ``crypto_scalarmult``), in this process's CPU time;
- **CPU a hand per peer, in process**: whole tables in one process on a fake clock
  (``tests/p2p/sim.py``: the peers' messages are signed, checked, shuffled, locked,
  opened and verified as on the network, with no sockets), heads-up and six-handed;
  against the issue's budgets, 50 and 300 ms a hand per peer;
- **CPU a hand per peer on loopback**: real ``gamehub p2p`` processes (``caller`` bots)
  linked by TCP on 127.0.0.1, their CPU from the kernel (``getrusage`` of each child
  at its end): the difference between a table of ``2H`` hands and one of ``H`` hands,
  per hand and peer (start-up, imports and the table's agreement cancel out).

    python bench/p2p.py [--hands 40] [--rounds 5] [--no-processes]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import Figure, Row, report  # noqa: E402

#: the issue's budgets: ms of CPU a hand per peer
BUDGET = {2: 50.0, 6: 300.0}


def cipher(rounds: int) -> dict[str, Figure]:
    """Cards encrypted a second against plain scalar multiplications a second."""
    from nacl import bindings

    from games.poker.p2p import group

    key = group.random_scalar()
    deck = list(group.CARDS)
    x_key, x_point = bytes(range(32)), bindings.crypto_scalarmult_base(bytes(range(1, 33)))

    def encrypt() -> int:
        for _ in range(4):
            for card in deck:
                group.mul(key, card)
        return 4 * len(deck)

    def plain() -> int:
        for _ in range(4 * len(deck)):
            bindings.crypto_scalarmult(x_key, x_point)
        return 4 * len(deck)

    return measure_cpu({"cipher (one card)": encrypt, "X25519 scalarmult": plain}, "ops/s", rounds)


def measure_cpu(contenders: dict[str, Any], unit: str, rounds: int) -> dict[str, Figure]:
    """:func:`bench.common.measure`, with this process's CPU time instead of the wall
    clock (both contenders run here, one thread: other load then counts less)."""
    figures = {name: Figure(name, unit) for name in contenders}
    for run in contenders.values():
        run()
    for _ in range(max(1, rounds)):
        for name, run in contenders.items():
            t0 = time.process_time()
            done = 0
            while time.process_time() - t0 < 0.2:  # enough clock ticks for a rate
                done += run()
            figures[name].rates.append(done / (time.process_time() - t0))
    return figures


def in_process(players: int, hands: int) -> float:
    """Peer-hands a CPU second: one table of ``players`` bots for ``hands`` hands."""
    from games.poker.p2p.params import Params
    from tests.p2p import sim

    params = Params(players=players, hands=hands, buyin="1000000")
    clock, _net, peers = sim.table(params)
    for peer in peers:
        peer.start()
    t0 = time.process_time()
    sim.run(clock, peers)
    used = time.process_time() - t0
    assert all(p.hands_played == hands for p in peers), [p.reason for p in peers]
    return players * hands / used


def on_loopback(players: int, hands: int) -> float:
    """CPU seconds of all the peers of a table of ``hands`` hands (each process's
    user and system time, read when it ends)."""
    from tests.p2p.peers import free_port

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    first = free_port()
    procs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(players):
            port = first if i == 0 else free_port()
            args = ["p2p", "--name", f"p{i}", "--players", str(players), "--hands", str(hands),
                    "--bot", "caller", "--buyin", "1000000", "--quiet",
                    f"--listen=tcp:{port}:interface=127.0.0.1"]  # fmt: skip
            if i:
                args.append(f"--peer=127.0.0.1:{first}")
            command = [sys.executable, "-c", "from hub.cli import main; raise SystemExit(main())"]
            procs.append(
                subprocess.Popen(command + args, cwd=tmp, env=env, stdout=subprocess.DEVNULL)
            )
        used = 0.0
        for proc in procs:
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            if proc.returncode != 0:
                raise RuntimeError(f"a peer ended with {proc.returncode}")
            used += usage.ru_utime + usage.ru_stime
    return used


def loopback_figure(players: int, hands: int, rounds: int) -> Figure:
    """Peer-hands a CPU second on loopback: ``(2H − H)`` hands' CPU, per peer-hand."""
    figure = Figure(f"gamehub p2p, {players} processes", "peer-hands/s")
    for _ in range(rounds):
        short = on_loopback(players, hands)
        long = on_loopback(players, 2 * hands)
        figure.rates.append(players * hands / max(long - short, 1e-3))
    return figure


def budget(players: int) -> Figure:
    """The issue's budget as a rate (peer-hands a CPU second)."""
    return Figure(f"budget {BUDGET[players]:g} ms a hand", "peer-hands/s", [1000 / BUDGET[players]])


def rows(quick: bool) -> list[Row]:
    """The rows of ``python -m bench``."""
    rounds = 3 if quick else 5
    hands = 10 if quick else 30
    out: list[Row] = []
    c = cipher(rounds)
    out.append(Row("p2p: the cipher, one card, against X25519", c["cipher (one card)"],
                   c["X25519 scalarmult"], cost=True, unit="µs"))  # fmt: skip
    for players in (2, 6):
        f = Figure(f"in process, {players} players", "peer-hands/s")
        f.rates = [in_process(players, hands) for _ in range(rounds)]
        out.append(Row(f"p2p: CPU a hand per peer, {players} players (in process)", f,
                       budget(players), goal=("<=", 1.0), cost=True, unit="µs"))  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    """Run and print."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hands", type=int, default=30)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--no-processes", action="store_true", help="skip the loopback processes")
    args = p.parse_args(argv)
    figures = cipher(args.rounds)
    report("the cipher, per card", figures, "cipher (one card)")
    per_card = 1e6 / figures["cipher (one card)"].median
    plain = 1e6 / figures["X25519 scalarmult"].median
    print(f"  {per_card:.1f} µs a card against {plain:.1f} µs (costs {per_card / plain:.2f}×)")
    results: dict[str, Any] = {}
    for players in (2, 6):
        rates = []
        for _ in range(args.rounds):
            rates.append(in_process(players, args.hands))
        ms = 1000 / statistics.median(rates)
        results[f"in process {players}"] = ms
        print(f"in process, {players} players: {ms:.1f} ms CPU a hand per peer "
              f"(median of {len(rates)}; {1000 / max(rates):.1f}..{1000 / min(rates):.1f}); "
              f"budget {BUDGET[players]:g} ms")  # fmt: skip
    if not args.no_processes:
        for players in (2, 6):
            f = loopback_figure(players, args.hands, max(1, args.rounds // 2))
            ms = 1000 / f.median
            print(f"on loopback, {players} processes: {ms:.1f} ms CPU a hand per peer "
                  f"(median of {len(f.rates)}); budget {BUDGET[players]:g} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
