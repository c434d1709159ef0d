"""MNM games per second: one hub against two hubs of a cluster on the two cores (issue
15; goal: ratio ≥ 1.6).

Two ``twistd gamehub`` processes, A and B, run on one PostgreSQL database (a database
of the run's own, ``synchronous_commit`` off so the disk's commit latency is not what
is measured, ``--sync-commit`` keeps it; dropped at the end) for the whole run, and so
do the client processes.  The rounds are interleaved (round 1: one hub, then two hubs;
round 2: again, …) so a noisy machine slows both alike.  One pass plays ``--games``
Nine Men's Morris games (``nmmorris``, two open seats, ``max_turns`` ``--turns``),
``--concurrency`` games in flight in all: each game is created through the JSON API
(``POST /api/games``, a keep-alive HTTP connection of each slot of a client) and
played to its end by two course-style MNM clients on real loopback sockets.  The
clients are a cheap load generator, the way wrk or tsung are: the run records a few
games once with the pure rules engine (random legal moves), and the client processes
replay them, many connections on one ``epoll``, sending what a course C client sends
(``VERSION``, ``ID``, ``PLAYER``, ``OKWAIT``, ``THINKING``, then ``PLAY`` once the hub
answered ``OKTHINK``) and checking that the server's rules ended each game with the
recorded result.  The load generator is C (``mnm_replay.c``, compiled with the
machine's ``cc -O2`` into the run's temporary folder, :mod:`mnm_replay_c`): its CPU a
game is the kernel's work for its sockets, hardly its own.  Without a compiler (or with
``--python-clients``) it is the same clients in Python (:mod:`mnm_replay`), about twice
the CPU a game (more than half of it the interpreter's).  Two client processes, half of
the games each (``--clients``): one process for both doors woke each hub from the other
core and cost the two hubs 1.4 to 2.7 ms a game more than one hub (about nothing with a
process a door).  A pass's rate is its games over its wall time (the first client's
start to the last one's end).

Printed besides the rates: the CPU time a game of the hubs (their reactor threads and
the others: the store's pool), of the client processes (the share that is user time, not
the kernel's) and of PostgreSQL (its backends on the run's database, from
``pg_stat_activity`` and ``/proc``); the *capacity ratio*, two cores over the two hubs'
CPU a game against one core over the one hub's (what to expect when each hub has a core
of its own and the clients and PostgreSQL run elsewhere); and what the machine's cores
allow from those CPU times when everything shares them (a hub on one core at most): with
hub CPU ``h`` and clients' and PostgreSQL's ``c`` a game, two cores play at most ``1/h``
games a second with one hub and ``2/(h + c)`` with two, a ratio of ``2h/(h + c)``, so
1.6 needs ``c`` at most a quarter of ``h``. On a machine shared with other work the
wall-clock ratio also measures the share of the cores the run got; compare the
ratios of one run, and quote the load average (printed).

Every CPU time is the on-CPU time of the processes' threads (``schedstat``), read
before and after each pass.

- **one hub**: every client connects to A, every game is created on A (B idles, a
  member of the cluster still);
- **two hubs**: the clients are spread over both doors: the first client process
  connects to A, the second to B (a single one, ``--clients 1``, creates and plays its
  games on A and B in turn), and each game is created on the hub its two clients
  connect to (without the API token, so placement keeps it there).
  ``--cross`` sends the second client of every game to the other door (issue 31:
  every game crosses doors).  The hubs run on one machine, so the door hands each such
  connection over to the game's hub (the socket itself: :mod:`hub.cluster.handoff`);
  ``--splice`` switches that off (``cluster_handoff`` false), and every byte of those
  clients passes the door, as between hubs on two machines.

Printed too, for each contender: the CPU a game of each process (hub A, hub B, each
client process, PostgreSQL's backends on the run's database), so a reader sees where
the time goes.

Bounded: ``--games`` a pass, ``--rounds`` rounds, each pass at most ``--pass-seconds``
(a pass that does not finish stops the run), no round started after ``--seconds``.
Needs ``GAMEHUB_TEST_PG_DSN`` or ``--dsn`` (a PostgreSQL the run may create a database
on)::

    python bench/cluster.py [--games 400] [--concurrency 48] [--rounds 7] [--turns 40]
                            [--python-clients] [--clients N] [--cross] [--splice]
                            [--sync-commit]

The defaults make a pass long enough (several seconds) that start-up and the last
games' tail do not decide its rate: passes of 160 games swung from 1.26 to 1.6 on the
same code.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import mnm_replay_c
from common import ROOT, Figure, cpu_seconds, report
from hubproc import known_frontends
from mnm_replay import Order, Program, Recording, python_command, record, write_recordings

LISTENING = re.compile(r"gamehub (\w+) front end listening on [^:]+:(\d+)")
TOKEN = "bench-token"


def start_hub(
    tmp: Path, name: str, dsn: str, more: dict[str, Any] | None = None
) -> tuple[subprocess.Popen, dict[str, int]]:
    """A hub on ``dsn`` with its MNM and web front ends on loopback (``more``: other
    settings); (process, ports)."""
    folder = tmp / name
    folder.mkdir()
    settings = {"create_rate": 1e9, "create_burst": 1e9, "keep_finished_count": 50, **(more or {})}
    args = [sys.executable, "-c", "from twisted.scripts.twistd import run; run()", "-n",
            "--pidfile=", "gamehub", "--data", str(folder / "data"), "--db", dsn,
            "--mnm", "tcp:0:interface=127.0.0.1", "--web", "tcp:0:interface=127.0.0.1",
            "--api-token", TOKEN]  # fmt: skip
    for other in known_frontends():  # the others off: no default port taken
        if other not in ("mnm", "web"):
            args += [f"--{other}", "none"]
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


def reactor_seconds(pid: int) -> float:
    """The on-CPU seconds of process ``pid``'s main thread (a hub's reactor)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
            return int(f.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def user_system(pid: int) -> tuple[float, float]:
    """User and system CPU seconds of process ``pid`` (clock ticks: for a split of
    long passes, not for small differences)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


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


#: games recorded for the clients to replay
RECORDED = 64


def start_clients(count: int, command: list[str]) -> list[Program]:
    """``count`` client processes running ``command`` (:class:`mnm_replay.Program`)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    return [Program(command, env) for _ in range(count)]


def generator(args: Any, tmp: Path, recordings: list[Recording]) -> list[str]:
    """The clients' command: the C load generator built into ``tmp`` (the Python
    replay with ``--python-clients``, or when it cannot be built: the reason is
    printed), replaying ``recordings``."""
    path = tmp / "recordings"
    write_recordings(path, recordings)
    body = {"type": "nmmorris", "seats": ["open", "open"], "options": {"max_turns": args.turns}}
    if not args.python_clients:
        try:
            return mnm_replay_c.command(mnm_replay_c.build(tmp), path, body)
        except mnm_replay_c.NoProgram as e:
            print(f"the clients are the Python replay: the C load generator: {e}")
    return python_command(path, body)


def spread(
    count: int, a: dict[str, int], b: dict[str, int], cross: bool
) -> list[list[dict[str, int]]]:
    """The doors of each of ``count`` client processes with two hubs: both doors
    (games created on each in turn; with ``cross``, a game's second client at the
    other door) for one process, else one door each, A and B in turn (both, the
    process's own first, with ``cross``)."""
    if count == 1 or cross:
        return [[a, b] if k % 2 == 0 else [b, a] for k in range(count)]
    return [[a] if k % 2 == 0 else [b] for k in range(count)]


def run_pass(
    clients: list[Program], doors: list[list[dict[str, int]]], games: int, args: Any
) -> tuple[int, float]:
    """One pass: client ``k`` plays its share of ``games`` over ``doors[k]``; (games
    finished, wall seconds from the first start to the last end)."""
    share = games // len(clients)
    for k, client in enumerate(clients):
        order = Order(
            doors=tuple((door["web"], door["mnm"]) for door in doors[k]),
            games=share,
            concurrency=max(1, args.concurrency // len(clients)),
            cross=args.cross,
            seconds=args.pass_seconds,
            first=k * RECORDED // len(clients),  # the clients replay different games
        )
        client.order(order)
    replies = [client.answer() for client in clients]
    wall = max(r["end"] for r in replies) - min(r["start"] for r in replies)
    finished = sum(r["finished"] for r in replies)
    if finished != share * len(clients):
        failures = [f for r in replies for f in r["failures"]]
        raise SystemExit(
            f"{share * len(clients) - finished} games did not end as recorded: "
            + "; ".join(failures[:6])
        )
    return finished, wall


def stop(clients: list[Program], hubs: list[subprocess.Popen]) -> None:
    """End the client processes (their input closes) and the hubs (SIGTERM), bounded."""
    for proc in hubs:
        proc.terminate()
    for client in clients:
        client.close()
    for proc in hubs:
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
    #: the hubs' main threads (their reactors) together
    reactors: float = 0.0
    clients: float = 0.0
    clients_user: float = 0.0
    clients_system: float = 0.0
    pg: float = 0.0
    games: int = 0
    #: each client process's CPU seconds, in order
    each_client: list[float] = field(default_factory=list)
    #: PostgreSQL backends seen on the run's database (most in one pass)
    backends: int = 0

    def ms(self, seconds: float) -> float:
        """``seconds`` of CPU as milliseconds a game."""
        return 1000 * seconds / max(self.games, 1)

    @property
    def hubs(self) -> float:
        return self.a + self.b


def _reading(hubs: list[subprocess.Popen], clients: list[Program]) -> list[float]:
    """CPU seconds so far: each hub, the hubs' reactors, the clients, their user and
    system times, then each client process."""
    split = [user_system(c.pid) for c in clients]
    each = [cpu_seconds(c.pid) for c in clients]
    return [
        *(cpu_seconds(p.pid) for p in hubs),
        sum(reactor_seconds(p.pid) for p in hubs),
        sum(each),
        sum(u for u, _ in split),
        sum(s for _, s in split),
        *each,
    ]


def measure(
    args: Any, db: Database, hubs: list[subprocess.Popen], clients: list[Program],
    contenders: dict[str, list[list[dict[str, int]]]], started: float,
) -> tuple[dict[str, Figure], dict[str, Used]]:  # fmt: skip
    """The interleaved rounds (a warm-up round first): each contender's rates and CPU
    (on-CPU time of every thread, from ``schedstat``)."""
    figures = {name: Figure(name, "games/s") for name in contenders}
    used = {name: Used() for name in contenders}
    for warm in (True,) + (False,) * args.rounds:
        if time.monotonic() - started > args.seconds:
            print(f"stopped after {args.seconds:g} s")
            break
        for name, doors in contenders.items():
            n = max(args.concurrency, args.games // 4) if warm else args.games
            pg = db.backends()
            before = _reading(hubs, clients)
            finished, seconds = run_pass(clients, doors, n, args)
            after = _reading(hubs, clients)
            pg_after = db.backends()
            if warm:
                continue
            figures[name].rates.append(finished / seconds)
            u = used[name]
            a, b, reactors, cpu, user, system, *each = (
                x - y for x, y in zip(after, before, strict=True)
            )
            u.each_client = [
                x + y for x, y in zip(u.each_client or [0.0] * len(each), each, strict=True)
            ]
            u.backends = max(u.backends, len(pg_after))
            u.a += a
            u.b += b
            u.reactors += reactors
            u.clients += cpu
            u.clients_user += user
            u.clients_system += system
            u.pg += sum(cpu - pg.get(pid, 0.0) for pid, cpu in pg_after.items())
            u.games += finished
    return figures, used


def summary(
    args: Any, figures: dict[str, Figure], used: dict[str, Used], seconds: float,
    decisions: float, clients: str,
) -> None:  # fmt: skip
    """Print the run's settings, the CPU a game, the rates and the ratios."""
    cores = os.cpu_count() or 1
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{args.games} MNM games a pass ({args.concurrency} in flight, max_turns {args.turns},"
        f" {decisions:.0f} moves a game replayed), {args.rounds} rounds, {cores} cores,"
        f" {seconds:.0f} s, load average {load} at the end; {clients}; "
        + ("second client of each game at the other door" if args.cross
           else "each game created on its clients' hub")
        + (" (spliced, as between machines)" if args.splice else "")
        + "; synchronous_commit " + ("on" if args.sync_commit else "off")
    )  # fmt: skip
    for name, u in used.items():
        split = u.clients_user + u.clients_system
        user = u.clients_user / split if split else 0.0
        print(
            f"  {name}: hub CPU {u.ms(u.hubs):.1f} ms a game (A {u.a:.1f} s, B {u.b:.1f} s;"
            f" reactors {u.ms(u.reactors):.1f}, other threads {u.ms(u.hubs - u.reactors):.1f}),"
            f" clients' CPU {u.ms(u.clients):.2f} ms a game ({user:.0%} user),"
            f" PostgreSQL's {u.ms(u.pg):.2f} ms a game"
        )
        processes = [("hub A", u.a), ("hub B", u.b)]
        processes += [(f"client {k + 1}", x) for k, x in enumerate(u.each_client)]
        processes.append((f"PostgreSQL ({u.backends} backends)", u.pg))
        print(
            "    CPU a game by process: "
            + ", ".join(f"{name} {u.ms(seconds):.2f} ms" for name, seconds in processes)
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games a pass")
    parser.add_argument("--concurrency", type=int, default=48, help="games in flight")
    parser.add_argument("--rounds", type=int, default=7)
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
    parser.add_argument(
        "--splice",
        action="store_true",
        help="splice every crossing connection (cluster_handoff off: as between machines)",
    )
    parser.add_argument(
        "--python-clients", action="store_true", help="the Python replay, not the C program"
    )
    parser.add_argument(
        "--clients", type=int, default=0, help="client processes (default 2: one a door)"
    )
    args = parser.parse_args()
    if not args.dsn:
        raise SystemExit("needs PostgreSQL: --dsn or GAMEHUB_TEST_PG_DSN")
    db = Database(args.dsn, args.sync_commit)
    hubs: list[subprocess.Popen] = []
    clients: list[Program] = []
    started = time.monotonic()
    recordings = record(RECORDED, args.turns)
    decisions = sum(r.decisions for r in recordings) / len(recordings)
    with tempfile.TemporaryDirectory() as tmp_dir:
        try:
            command = generator(args, Path(tmp_dir), recordings)
            kind = "C" if command[0] != sys.executable else "Python"
            more = {"cluster_handoff": "false"} if args.splice else {}
            a, a_ports = start_hub(Path(tmp_dir), "a", db.dsn, more)
            hubs.append(a)
            b, b_ports = start_hub(Path(tmp_dir), "b", db.dsn, more)
            hubs.append(b)
            count = args.clients or 2
            clients = start_clients(count, command)
            contenders = {
                "one hub": [[a_ports]] * count,
                "two hubs": spread(count, a_ports, b_ports, args.cross),
            }
            figures, used = measure(args, db, hubs, clients, contenders, started)
            described = f"{count} client process{'es' if count > 1 else ''} in {kind}"
        finally:
            stop(clients, hubs)
            db.drop()
    summary(args, figures, used, time.monotonic() - started, decisions, described)


if __name__ == "__main__":
    main()
