"""What one hub costs its PostgreSQL, per operation: the figures of the capacity model
(issue 31, docs/cluster.md "How far one PostgreSQL goes").

One ``twistd gamehub`` on a PostgreSQL server of the run's own (``tests/pgserver.py``:
``initdb`` in a temporary folder, so that the server's write-ahead log, its backends
and its notices are this hub's alone; ``--dsn`` uses an existing server instead, and
then the WAL figures include whatever else that server did).  Phases, each measured
as differences of the server's counters around it, less the idle phase's rate:

- **idle**: the hub's own rhythm (heartbeat, member checks), per second;
- **game created**: ``POST /api/games`` of a morris game with two open seats;
- **connection**: an MNM client that connects, says ``VERSION`` and ``ID`` and leaves
  (the hub's CPU for a connection's life);
- **move**: both seats of morris games played to the end over MNM (per move: the
  hub's CPU, and what the database sees of a move, which is the journal's part when
  games are journaled, plus each game's history at its end, shared out);
- **hand settled**: a chip table of two bots dealing hands (per hand: its settlement
  and history).

For each: transactions (``pg_stat_database``: commits), rows written (inserted,
updated, deleted), WAL bytes (``pg_current_wal_lsn``), notices and their bytes (a
``LISTEN`` of the run's own on the cluster's channel), PostgreSQL's CPU (its
backends', ``/proc``) and the hub's CPU.

    python bench/cluster_costs.py [--games 20] [--hands-seconds 20] [--dsn …]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cluster import TOKEN, start_hub
from common import ROOT, cpu_seconds
from splice_latency import play

sys.path.insert(0, ROOT)

from hub.store.cluster import channel_name  # noqa: E402
from tests.pgserver import temp_postgres  # noqa: E402

SETTINGS = {"mnm_wait_interval": 30}


@dataclass
class Counters:
    """The server's counters at one moment."""

    commits: int
    rows: int
    wal: int
    pg_cpu: float
    hub_cpu: float
    at: float
    notices: int = 0
    notice_bytes: int = 0


@dataclass
class Server:
    """The database of the run, read through a connection of its own."""

    dsn: str
    hub_pid: int = 0
    listen: Any = None
    notices: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        import psycopg2

        self.conn = psycopg2.connect(self.dsn)
        self.conn.autocommit = True

    def start_listening(self) -> None:
        import psycopg2

        with self.conn.cursor() as cur:
            cur.execute("SELECT current_schema()")
            channel = channel_name(str(cur.fetchone()[0]))
        self.listen = psycopg2.connect(self.dsn)
        self.listen.autocommit = True
        with self.listen.cursor() as cur:
            cur.execute(f'LISTEN "{channel}"')

    def hands(self, game_id: str) -> int:
        """How many hands of ``game_id`` the history has."""
        with self.conn.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM finished_hand WHERE game_id = %s", (game_id,))
            return int(cur.fetchone()[0])

    def read(self) -> Counters:
        time.sleep(1.2)  # the server publishes its statistics at most once a second
        if self.listen is not None:
            self.listen.poll()
            self.notices += [len(n.payload.encode()) for n in self.listen.notifies]
            self.listen.notifies.clear()
        with self.conn.cursor() as cur:
            cur.execute("SELECT pg_stat_clear_snapshot()")
            cur.execute(
                "SELECT xact_commit, tup_inserted + tup_updated + tup_deleted,"
                " pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')"
                " FROM pg_stat_database WHERE datname = current_database()"
            )
            commits, rows, wal = cur.fetchone()
            cur.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid()"
            )
            pids = [r[0] for r in cur.fetchall()]
        pg = 0.0
        for pid in pids:
            try:
                pg += cpu_seconds(pid)
            except OSError:
                pass
        return Counters(
            int(commits), int(rows), int(wal), pg, cpu_seconds(self.hub_pid), time.monotonic(),
            len(self.notices), sum(self.notices),
        )  # fmt: skip


def per(before: Counters, after: Counters, count: int, idle: dict[str, float]) -> dict[str, float]:
    """Each counter's growth per operation, the idle rate taken off."""
    seconds = after.at - before.at
    out = {}
    for key in ("commits", "rows", "wal", "pg_cpu", "hub_cpu", "notices", "notice_bytes"):
        grown = getattr(after, key) - getattr(before, key) - idle.get(key, 0.0) * seconds
        out[key] = max(0.0, grown) / max(count, 1)
    return out


def api(web: int, method: str, path: str, body: Any = None) -> Any:
    request = urllib.request.Request(
        f"http://127.0.0.1:{web}{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        method=method,
    )
    with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310
        return json.load(answer)


def connection(mnm: int, game_id: str) -> None:
    """A client that connects, says VERSION and ID, reads the game's prolog, leaves."""
    import socket

    with socket.create_connection(("127.0.0.1", mnm), timeout=60) as sock:
        f = sock.makefile("rwb")
        f.readline(), f.readline()
        f.write(b"VERSION 3.1\n")
        f.flush()
        f.readline()
        f.write(f"ID {game_id}\n".encode())
        f.flush()
        f.readline(), f.readline()


def measure(args: Any, dsn: str, tmp: Path) -> dict[str, dict[str, float]]:
    hub, ports = start_hub(tmp, "a", dsn, SETTINGS)
    server = Server(dsn, hub.pid)
    try:
        server.start_listening()
        figures: dict[str, dict[str, float]] = {}
        start = server.read()
        time.sleep(args.idle_seconds)
        end = server.read()
        idle = per(start, end, 1, {})
        seconds = end.at - start.at
        figures["idle (a second)"] = {k: v / seconds for k, v in idle.items()}
        idle = figures["idle (a second)"]

        before = server.read()
        made = [api(ports["web"], "POST", "/api/games", {"type": "nmmorris",
                    "seats": ["open", "open"]})["id"] for _ in range(args.games)]  # fmt: skip
        figures["game created"] = per(before, server.read(), len(made), idle)

        before = server.read()
        for game_id in made[: args.games // 2]:
            connection(ports["mnm"], game_id)
        figures["connection"] = per(before, server.read(), args.games // 2, idle)

        before = server.read()
        moves = 0
        for g, game_id in enumerate(made):
            seats = play([ports["mnm"]] * 2, game_id, 100 + g)
            moves += sum(len(s.times) for s in seats) // 2
        figures["move (history shared out)"] = per(before, server.read(), moves, idle)
        figures["game played (its history)"] = per(before, server.read(), len(made), idle)

        before = server.read()
        table = api(ports["web"], "POST", "/api/games", {"type": "texas-holdem",
                    "seats": ["bot:caller", "bot:raiser"],
                    "options": {"showdown_pause": 0, "buyin": 100000}})  # fmt: skip
        time.sleep(args.hands_seconds)
        after = server.read()
        figures["hand settled"] = per(before, after, hands := server.hands(table["id"]), idle)
        figures["_counts"] = {"games": len(made), "moves": moves, "hands": hands}
        return figures
    finally:
        hub.terminate()
        hub.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--idle-seconds", type=float, default=10)
    parser.add_argument("--hands-seconds", type=float, default=20)
    parser.add_argument("--dsn", help="an existing server (default: one of the run's own)")
    args = parser.parse_args()
    own = None
    if args.dsn is None:
        own = temp_postgres()
        if isinstance(own, str):
            raise SystemExit(f"no PostgreSQL of the run's own: {own} (use --dsn)")
        dsn = own.dsn
    else:
        dsn = args.dsn
    try:
        with tempfile.TemporaryDirectory() as tmp:
            figures = measure(args, dsn, Path(tmp))
    finally:
        if own is not None:
            own.remove()
    counts = figures.pop("_counts")
    print(
        f"one hub, PostgreSQL {'of the run' if own else dsn}: {counts['games']} games made and"
        f" played ({counts['moves']} moves), {counts['hands']} hands settled"
    )
    head = ("commits", "rows", "WAL bytes", "notices", "notice bytes", "PG CPU ms", "hub CPU ms")
    print(f"  {'per':28s}" + "".join(f"{h:>14s}" for h in head))
    for name, f in figures.items():
        cells = (f["commits"], f["rows"], f["wal"], f["notices"], f["notice_bytes"],
                 1000 * f["pg_cpu"], 1000 * f["hub_cpu"])  # fmt: skip
        print(f"  {name:28s}" + "".join(f"{c:14.2f}" for c in cells))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"  (load average {load}; the idle rate is taken off every other row)")


if __name__ == "__main__":
    main()
