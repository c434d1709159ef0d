"""MNM games per second: one hub against two hubs of a cluster on the two cores (issue
15; goal: ratio ≥ 1.6).

Two ``twistd gamehub`` processes, A and B, run on one PostgreSQL database (a database
of the run's own, ``synchronous_commit`` off so the disk's commit latency is not what
is measured, ``--sync-commit`` keeps it; dropped at the end) for the whole run, and so
do two client processes.  The rounds are interleaved (round 1: one hub, then two hubs;
round 2: again, …) so a noisy machine slows both alike.  One pass plays ``--games``
Nine Men's Morris games (``nmmorris``, two open seats, ``max_turns`` ``--turns``), half
by each client process, ``--concurrency`` games in flight in all: each game is created
through the JSON API (``POST /api/games``) and played to its end by two course-style MNM
clients on real loopback sockets (the project's MNM connector,
:class:`games.morris.client.Connector`, with a cheap random thinker run inline, so the
clients' own cost stays small beside the hubs').  A pass's rate is its games over its
wall time (the first client's start to the last one's end).  The hubs' and the
clients' CPU time per game is printed too, and the *capacity ratio* it gives: two
cores over the two hubs' CPU a game, against one core over the one hub's, the ratio to
expect when each hub has a core of its own and the clients and PostgreSQL run
elsewhere (on a machine shared with other work, the wall-clock ratio measures the
share of the cores the run got as much as the hubs).

- **one hub**: both client processes connect to A, every game is created on A (B
  idles, a member of the cluster still);
- **two hubs**: the clients are spread over both doors: the first client process
  connects to A, the second to B.  *Each game is created on the hub its two clients
  connect to*: passing a connection through to another hub (issue 15's "any door
  works") has not landed on this branch, so a client at the other hub's door would be
  refused.  Once it lands, ``--cross`` sends the second client of every game to the
  other door.

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
import random
import re
import subprocess
import sys
import tempfile
import time
import uuid
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


def make_database(base: str, sync_commit: bool = False) -> tuple[str, Any]:
    """A fresh database on the server of ``base`` (``synchronous_commit`` off unless
    ``sync_commit``): (its DSN, a function dropping it)."""
    import psycopg2

    name = "gh_bench_" + uuid.uuid4().hex[:12]
    admin = psycopg2.connect(base)
    admin.autocommit = True
    with admin.cursor() as cur:
        cur.execute(f"CREATE DATABASE {name}")
        if not sync_commit:  # the disk's commit latency is not what is measured
            cur.execute(f"ALTER DATABASE {name} SET synchronous_commit = off")

    def drop() -> None:
        with admin.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()

    return urlsplit(base)._replace(path="/" + name).geturl(), drop


class Player:
    """One course-style MNM client: the project's connector, a random thinker inline."""

    def __init__(self, game_id: str, seat: int, rng: random.Random) -> None:
        from games.morris.client import Connector

        self.connector = Connector(game_id, seat)
        self.rng = rng

    def think(self, request: Any) -> str:
        """A random legal move (or capture)."""
        from bots.morris.search import Searcher, position_from_pieces, turn_text

        pos = position_from_pieces(request.pieces, request.me)
        result = Searcher(max_depth=1, rng=self.rng).best(pos, None, request.capture)
        return turn_text(result.turn)[0]


def protocol_factory(player: Player, done: Any) -> Any:
    """A Twisted factory of one :class:`Player`'s connection; ``done`` fires at its end."""
    from twisted.internet.protocol import ClientFactory
    from twisted.protocols.basic import LineOnlyReceiver

    class MNMClient(LineOnlyReceiver):
        delimiter = b"\n"
        MAX_LENGTH = 4096

        def lineReceived(self, line: bytes) -> None:  # noqa: N802
            c = player.connector
            out = c.line(line.decode("ascii", "replace"))
            if c.request is not None and c.state == "thinking" and out == ["THINKING"]:
                out += c.move(player.think(c.request))
            for text in out:
                self.sendLine(text.encode("ascii"))

        def connectionLost(self, reason: Any = None) -> None:  # noqa: N802
            if not done.called:
                done.callback(player.connector.finished)

    class Factory(ClientFactory):
        protocol = MNMClient

        def clientConnectionFailed(self, connector: Any, reason: Any) -> None:  # noqa: N802
            if not done.called:
                done.callback(False)

    return Factory()


def one_pass(
    reactor: Any, doors: list[dict[str, int]], games: int, concurrency: int, args: Any
) -> Any:
    """Play ``games`` games over ``doors`` (game ``i`` on door ``i % len(doors)``);
    fires with (games finished, seconds)."""
    import treq
    from twisted.internet import defer
    from twisted.internet.endpoints import TCP4ClientEndpoint

    rng = random.Random(len(doors))
    body = {
        "type": "nmmorris",
        "seats": ["open", "open"],
        "options": {"max_turns": args.turns},
    }
    # without the API token a creation stays on the hub asked (placement moves only a
    # creation the owner would let in: docs/cluster.md), so each game runs on its door
    headers = {"Content-Type": ["application/json"]}

    async def game(i: int) -> bool:
        home = doors[i % len(doors)]
        response = await treq.post(
            f"http://127.0.0.1:{home['web']}/api/games",
            json.dumps(body).encode(),
            headers=headers,
            reactor=reactor,
        )
        created = await treq.json_content(response)
        if response.code != 201:
            raise SystemExit(f"creating a game failed: {response.code} {created}")
        ends = []
        for seat in (0, 1):
            door = doors[(i + seat) % len(doors)] if args.cross else home
            done: defer.Deferred[bool] = defer.Deferred()
            endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", door["mnm"], timeout=30)
            endpoint.connect(protocol_factory(Player(created["id"], seat, rng), done))
            ends.append(done)
        return all(await defer.gatherResults(ends))

    async def run() -> tuple[int, float]:
        started = time.perf_counter()
        queue = iter(range(games))
        finished = 0

        async def worker() -> None:
            nonlocal finished
            for i in queue:
                ended = await game(i)
                finished += int(ended)

        workers = [defer.ensureDeferred(worker()) for _ in range(concurrency)]
        d = defer.gatherResults(workers).addTimeout(args.pass_seconds, reactor)
        await d
        return finished, time.perf_counter() - started

    return defer.ensureDeferred(run())


def client() -> None:
    """A client process: reads one pass a line (JSON: doors, games, concurrency, turns,
    cross, pass_seconds), plays it, answers a line (finished, start, end: wall clock)."""
    from twisted.internet import reactor, stdio
    from twisted.protocols.basic import LineReceiver

    class Commands(LineReceiver):
        delimiter = b"\n"

        def lineReceived(self, line: bytes) -> None:  # noqa: N802
            order = json.loads(line)
            settings = argparse.Namespace(**order)
            start = time.time()
            d = one_pass(reactor, order["doors"], order["games"], order["concurrency"], settings)

            def answer(result: Any) -> None:
                finished = result[0] if isinstance(result, tuple) else 0
                reply = {"finished": finished, "start": start, "end": time.time()}
                self.sendLine(json.dumps(reply).encode())

            d.addBoth(answer)

        def connectionLost(self, reason: Any = None) -> None:  # noqa: N802
            reactor.stop()  # type: ignore[attr-defined]

    stdio.StandardIO(Commands())
    reactor.run()  # type: ignore[attr-defined]


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
) -> tuple[int, float]:
    """One pass: client ``k`` plays its share of ``games`` over ``doors[k]``;
    (games finished, wall seconds from the first start to the last end)."""
    share = games // len(clients)
    for k, proc in enumerate(clients):
        order = {
            "doors": doors[k],
            "games": share,
            "concurrency": max(1, args.concurrency // len(clients)),
            "turns": args.turns,
            "cross": args.cross,
            "pass_seconds": args.pass_seconds,
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
        raise SystemExit(f"{share * len(clients) - finished} games did not end")
    return finished, wall


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
        "--cross", action="store_true", help="second client at the other door (needs splicing)"
    )
    args = parser.parse_args()
    if not args.dsn:
        raise SystemExit("needs PostgreSQL: --dsn or GAMEHUB_TEST_PG_DSN")
    dsn, drop = make_database(args.dsn, args.sync_commit)
    hubs: list[subprocess.Popen] = []
    clients: list[subprocess.Popen] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp_dir:
        try:
            a, a_ports = start_hub(Path(tmp_dir), "a", dsn)
            hubs.append(a)
            b, b_ports = start_hub(Path(tmp_dir), "b", dsn)
            hubs.append(b)
            clients = start_clients(2)
            contenders = {"one hub": [[a_ports], [a_ports]], "two hubs": [[a_ports], [b_ports]]}
            if args.cross:
                contenders["two hubs"] = [[a_ports, b_ports], [b_ports, a_ports]]
            figures = {name: Figure(name, "games/s") for name in contenders}
            used = {name: [0.0, 0.0, 0.0, 0.0] for name in contenders}
            for warm in (True,) + (False,) * args.rounds:
                if time.monotonic() - started > args.seconds:
                    print(f"stopped after {args.seconds:g} s")
                    break
                for name, doors in contenders.items():
                    n = max(args.concurrency, args.games // 4) if warm else args.games
                    before = [cpu_seconds(p.pid) for p in hubs + clients]
                    finished, seconds = run_pass(clients, doors, n, args)
                    if not warm:
                        figures[name].rates.append(finished / seconds)
                        after = [cpu_seconds(p.pid) for p in hubs + clients]
                        used[name][0] += after[0] - before[0]
                        used[name][1] += after[1] - before[1]
                        used[name][2] += sum(after[2:]) - sum(before[2:])
                        used[name][3] += finished
        finally:
            stop(clients, hubs)
            drop()
    print(
        f"{args.games} MNM games a pass ({args.concurrency} in flight, max_turns {args.turns}),"
        f" {args.rounds} rounds, {os.cpu_count()} cores, {time.monotonic() - started:.0f} s;"
        " two client processes; each game created on its clients' hub; synchronous_commit "
        + ("on" if args.sync_commit else "off")
        + ("" if not args.cross else ", second client at the other door")
    )
    for name, (cpu_a, cpu_b, cpu_clients, games) in used.items():
        per = 1000 * (cpu_a + cpu_b) / max(games, 1)
        theirs = 1000 * cpu_clients / max(games, 1)
        print(
            f"  {name}: hub CPU {per:.1f} ms a game (A {cpu_a:.1f} s, B {cpu_b:.1f} s),"
            f" clients' CPU {theirs:.1f} ms a game"
        )
    report(
        "MNM games per second: two hubs of a cluster against one",
        figures,
        ours="two hubs",
        goals={"one hub": "≥ 1.6"},
    )
    one, two = used["one hub"], used["two hubs"]
    if one[3] and two[3] and two[0] + two[1] > 0:
        capacity = 2 * ((one[0] + one[1]) / one[3]) / ((two[0] + two[1]) / two[3])
        print(
            f"  capacity ratio from the hubs' CPU a game (each hub a core of its own,"
            f" clients and PostgreSQL elsewhere): {capacity:.2f}"
        )


if __name__ == "__main__":
    main()
