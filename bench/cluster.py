"""MNM games per second: one hub against two hubs of a cluster on the two cores (issue
15; goal: ratio ≥ 1.6).

Two ``twistd gamehub`` processes, A and B, run on one PostgreSQL database (a database
of the run's own, ``synchronous_commit`` off so the disk's commit latency is not what
is measured, ``--sync-commit`` keeps it; dropped at the end) for the whole run, and so
do two client processes.  The rounds are interleaved (round 1: one hub, then two hubs;
round 2: again, …) so a noisy machine slows both alike.  One pass plays ``--games``
Nine Men's Morris games (``nmmorris``, two open seats, ``max_turns`` ``--turns``), half
by each client process, ``--concurrency`` games in flight in all: each game is created
through the JSON API (``POST /api/games``, a keep-alive HTTP connection of each slot
of a client) and played to its end by two course-style MNM clients on real loopback
sockets.  The clients are a cheap load generator, the way wrk or tsung are
(:mod:`mnm_replay`): each client process records a few games once with the pure rules
engine (random legal moves) and replays them, many connections on one ``epoll``,
sending what a course C client sends (``VERSION``, ``ID``, ``PLAYER``, ``OKWAIT``,
``THINKING``, ``PLAY``) and checking that the server's rules ended each game with the
recorded result.  A pass's rate is its games over its wall time (the first client's
start to the last one's end).

Printed besides the rates: the CPU time a game of the hubs, of the client processes
and of PostgreSQL (its backends on the run's database, from ``pg_stat_activity`` and
``/proc``); the *capacity ratio*, two cores over the two hubs' CPU a game against one
core over the one hub's (what to expect when each hub has a core of its own and the
clients and PostgreSQL run elsewhere); and what the machine's cores allow from those
CPU times when everything shares them (a hub on one core at most): with hub CPU ``h``
and clients' and PostgreSQL's ``c`` a game, two cores play at most ``1/h`` games a
second with one hub and ``2/(h + c)`` with two, a ratio of ``2h/(h + c)``, so 1.6
needs ``c`` at most a quarter of ``h``.  On a machine shared with other work the
wall-clock ratio also measures the share of the cores the run got; compare the
ratios of one run, and quote the load average (printed).

- **one hub**: both client processes connect to A, every game is created on A (B
  idles, a member of the cluster still);
- **two hubs**: the clients are spread over both doors: the first client process
  connects to A, the second to B, and each game is created on the hub its two
  clients connect to (without the API token, so placement keeps it there).
  ``--cross`` sends the second client of every game to the other door, to be passed
  through to the game's hub (issue 15's "any door works"); it fails while a door may
  hear of a game just created on the other hub after its client asks for it ("Not a
  valid game ID", docs/cluster.md).

Bounded: ``--games`` a pass, ``--rounds`` rounds, each pass at most ``--pass-seconds``
(a pass that does not finish stops the run), no round started after ``--seconds``.
Needs ``GAMEHUB_TEST_PG_DSN`` or ``--dsn`` (a PostgreSQL the run may create a database
on)::

    python bench/cluster.py [--games 160] [--concurrency 48] [--rounds 5] [--turns 40]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from common import ROOT, Figure, report

LISTENING = re.compile(r"gamehub (\w+) front end listening on [^:]+:(\d+)")
TOKEN = "bench-token"


def start_hub(tmp: Path, name: str, dsn: str) -> tuple[subprocess.Popen, dict[str, int]]:
    """A hub on ``dsn`` with its MNM and web front ends on loopback; (process, ports)."""
    folder = tmp / name
    folder.mkdir()
    settings = {"create_rate": 1e9, "create_burst": 1e9, "keep_finished_count": 50}
    args = [sys.executable, "-c", "from twisted.scripts.twistd import run; run()", "-n",
            "--pidfile=", "gamehub", "--data", str(folder / "data"), "--db", dsn,
            "--mnm", "tcp:0:interface=127.0.0.1", "--web", "tcp:0:interface=127.0.0.1",
            "--xml", "none", "--domino", "none", "--acpc", "none",
            "--api-token", TOKEN]  # fmt: skip
    for key, value in settings.items():
        args += ["--set", f"{key}={value}"]
    log = open(folder / "hub.log", "w")  # noqa: SIM115
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.Popen(args, cwd=folder, stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 60
    text = ""
    while time.monotonic() < deadline and proc.poll() is None:
        text = (folder / "hub.log").read_text()
        if " ready: " in text:
            return proc, {m[1]: int(m[2]) for m in LISTENING.finditer(text)}
        time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"hub {name} did not start:\n{text[-3000:]}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Database:
    """A fresh database of the run's own on the server of ``base``
    (``synchronous_commit`` off unless ``sync_commit``); :meth:`drop` removes it."""

    def __init__(self, base: str, sync_commit: bool = False) -> None:
        import psycopg2

        self.name = "gh_bench_" + uuid.uuid4().hex[:12]
        self.admin = psycopg2.connect(base)
        self.admin.autocommit = True
        with self.admin.cursor() as cur:
            cur.execute(f"CREATE DATABASE {self.name}")
            if not sync_commit:  # the disk's commit latency is not what is measured
                cur.execute(f"ALTER DATABASE {self.name} SET synchronous_commit = off")
        self.dsn = urlsplit(base)._replace(path="/" + self.name).geturl()

    def backends(self) -> dict[int, float]:
        """The CPU seconds so far of each PostgreSQL backend on the run's database
        (from ``pg_stat_activity`` and ``/proc``; empty when the server is not on
        this machine)."""
        with self.admin.cursor() as cur:
            cur.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.name,))
            pids = [row[0] for row in cur.fetchall()]
        used = {}
        for pid in pids:
            try:
                used[pid] = cpu_seconds(pid)
            except OSError:  # gone, or on another machine
                pass
        return used

    def drop(self) -> None:
        with self.admin.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")
        self.admin.close()


#: games recorded for the clients to replay (each client process records the same)
RECORDED = 64


def client() -> None:
    """A client process: reads one pass a line (JSON: doors, games, concurrency, turns,
    cross, pass_seconds, first), plays it with :func:`mnm_replay.play` (games recorded
    once, replayed), answers a line (finished, failures, start, end: wall clock)."""
    from mnm_replay import play as replay
    from mnm_replay import record

    recorded: dict[int, list[Any]] = {}
    for line in sys.stdin:  # bounded: the parent sends --rounds passes, then closes
        order = json.loads(line)
        turns = order["turns"]
        if turns not in recorded:
            recorded[turns] = record(RECORDED, turns)
        body = {"type": "nmmorris", "seats": ["open", "open"], "options": {"max_turns": turns}}
        start = time.time()
        finished, failures = replay(
            order["doors"], order["games"], order["concurrency"], recorded[turns], body,
            order["cross"], order["pass_seconds"], order["first"],
        )  # fmt: skip
        decisions = sum(r.decisions for r in recorded[turns]) / len(recorded[turns])
        reply = {"finished": finished, "failures": failures[:5], "start": start,
                 "end": time.time(), "decisions": decisions}  # fmt: skip
        print(json.dumps(reply), flush=True)


def start_clients(count: int) -> list[subprocess.Popen]:
    """``count`` client processes (:func:`client`)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    here = str(Path(__file__).resolve())
    return [
        subprocess.Popen(
            [sys.executable, here, "--client"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        for _ in range(count)
    ]


def run_pass(
    clients: list[subprocess.Popen], doors: list[list[dict[str, int]]], games: int, args: Any
) -> tuple[int, float, float]:
    """One pass: client ``k`` plays its share of ``games`` over ``doors[k]``; (games
    finished, wall seconds from the first start to the last end, moves a game)."""
    share = games // len(clients)
    for k, proc in enumerate(clients):
        order = {
            "doors": doors[k],
            "games": share,
            "concurrency": max(1, args.concurrency // len(clients)),
            "turns": args.turns,
            "cross": args.cross,
            "pass_seconds": args.pass_seconds,
            "first": k * RECORDED // len(clients),  # the clients replay different games
        }
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(order) + "\n")
        proc.stdin.flush()
    replies = []
    for proc in clients:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("a client process ended")
        replies.append(json.loads(line))
    wall = max(r["end"] for r in replies) - min(r["start"] for r in replies)
    finished = sum(r["finished"] for r in replies)
    if finished != share * len(clients):
        failures = [f for r in replies for f in r["failures"]]
        raise SystemExit(
            f"{share * len(clients) - finished} games did not end as recorded: "
            + "; ".join(failures[:6])
        )
    return finished, wall, sum(r["decisions"] for r in replies) / len(replies)


def stop(clients: list[subprocess.Popen], hubs: list[subprocess.Popen]) -> None:
    """End the client processes (their input closes) and the hubs (SIGTERM), bounded."""
    for proc in clients:
        if proc.stdin is not None:
            proc.stdin.close()
    for proc in hubs:
        proc.terminate()
    for proc in clients + hubs:
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@dataclass
class Used:
    """The CPU seconds of one contender's timed passes, and their games."""

    a: float = 0.0
    b: float = 0.0
    clients: float = 0.0
    pg: float = 0.0
    games: int = 0
    decisions: float = 0.0

    def ms(self, seconds: float) -> float:
        """``seconds`` of CPU as milliseconds a game."""
        return 1000 * seconds / max(self.games, 1)

    @property
    def hubs(self) -> float:
        return self.a + self.b


def measure(
    args: Any, db: Database, hubs: list[subprocess.Popen], clients: list[subprocess.Popen],
    contenders: dict[str, list[list[dict[str, int]]]], started: float,
) -> tuple[dict[str, Figure], dict[str, Used]]:  # fmt: skip
    """The interleaved rounds (a warm-up round first): each contender's rates and CPU."""
    figures = {name: Figure(name, "games/s") for name in contenders}
    used = {name: Used() for name in contenders}
    for warm in (True,) + (False,) * args.rounds:
        if time.monotonic() - started > args.seconds:
            print(f"stopped after {args.seconds:g} s")
            break
        for name, doors in contenders.items():
            n = max(args.concurrency, args.games // 4) if warm else args.games
            pg = db.backends()
            before = [cpu_seconds(p.pid) for p in hubs + clients]
            finished, seconds, decisions = run_pass(clients, doors, n, args)
            after = [cpu_seconds(p.pid) for p in hubs + clients]
            pg_after = db.backends()
            if warm:
                continue
            figures[name].rates.append(finished / seconds)
            u = used[name]
            u.a += after[0] - before[0]
            u.b += after[1] - before[1]
            u.clients += sum(after[2:]) - sum(before[2:])
            u.pg += sum(cpu - pg.get(pid, 0.0) for pid, cpu in pg_after.items())
            u.games += finished
            u.decisions = decisions
    return figures, used


def summary(args: Any, figures: dict[str, Figure], used: dict[str, Used], seconds: float) -> None:
    """Print the run's settings, the CPU a game, the rates and the ratios."""
    cores = os.cpu_count() or 1
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    decisions = next(iter(used.values())).decisions
    print(
        f"{args.games} MNM games a pass ({args.concurrency} in flight, max_turns {args.turns},"
        f" {decisions:.0f} moves a game replayed), {args.rounds} rounds, {cores} cores,"
        f" {seconds:.0f} s, load average {load} at the end; two client processes; "
        + ("second client of each game at the other door" if args.cross
           else "each game created on its clients' hub")
        + "; synchronous_commit " + ("on" if args.sync_commit else "off")
    )  # fmt: skip
    for name, u in used.items():
        print(
            f"  {name}: hub CPU {u.ms(u.hubs):.1f} ms a game (A {u.a:.1f} s, B {u.b:.1f} s),"
            f" clients' CPU {u.ms(u.clients):.1f} ms a game,"
            f" PostgreSQL's {u.ms(u.pg):.1f} ms a game"
        )
    report(
        "MNM games per second: two hubs of a cluster against one",
        figures,
        ours="two hubs",
        goals={"one hub": "≥ 1.6"},
    )
    one, two = used["one hub"], used["two hubs"]
    if not (one.games and two.games and one.hubs > 0 and two.hubs > 0):
        return
    capacity = 2 * (one.hubs / one.games) / (two.hubs / two.games)
    print(
        f"  capacity ratio from the hubs' CPU a game (each hub a core of its own,"
        f" clients and PostgreSQL elsewhere): {capacity:.2f}"
    )
    # what the cores allow: a hub uses one core at most, and everything shares them
    cap_one = min(one.games / one.hubs, cores * one.games / (one.hubs + one.clients + one.pg))
    all_two = two.hubs + two.clients + two.pg
    cap_two = min(2 * two.games / two.hubs, cores * two.games / all_two)
    print(
        f"  what {cores} cores allow from the CPU a game (hubs, clients and PostgreSQL on"
        f" them, nothing else): one hub {cap_one:.0f}, two hubs {cap_two:.0f} games/s,"
        f" ratio {cap_two / cap_one:.2f}"
    )


def main() -> None:
    if sys.argv[1:] == ["--client"]:
        client()
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=160, help="games a pass")
    parser.add_argument("--concurrency", type=int, default=48, help="games in flight")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--turns", type=int, default=40, help="max_turns of each game")
    parser.add_argument("--pass-seconds", type=float, default=180.0, help="a pass's limit")
    parser.add_argument("--seconds", type=float, default=600.0, help="no round starts after")
    parser.add_argument("--dsn", default=os.environ.get("GAMEHUB_TEST_PG_DSN"))
    parser.add_argument(
        "--sync-commit", action="store_true", help="keep synchronous_commit on (off by default)"
    )
    parser.add_argument(
        "--cross", action="store_true", help="second client of each game at the other door"
    )
    args = parser.parse_args()
    if not args.dsn:
        raise SystemExit("needs PostgreSQL: --dsn or GAMEHUB_TEST_PG_DSN")
    db = Database(args.dsn, args.sync_commit)
    hubs: list[subprocess.Popen] = []
    clients: list[subprocess.Popen] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp_dir:
        try:
            a, a_ports = start_hub(Path(tmp_dir), "a", db.dsn)
            hubs.append(a)
            b, b_ports = start_hub(Path(tmp_dir), "b", db.dsn)
            hubs.append(b)
            clients = start_clients(2)
            contenders = {"one hub": [[a_ports], [a_ports]], "two hubs": [[a_ports], [b_ports]]}
            if args.cross:
                contenders["two hubs"] = [[a_ports, b_ports], [b_ports, a_ports]]
            figures, used = measure(args, db, hubs, clients, contenders, started)
        finally:
            stop(clients, hubs)
            db.drop()
    summary(args, figures, used, time.monotonic() - started)


if __name__ == "__main__":
    main()
