"""``gamehub cluster status``: the hubs sharing the database, their load and games;
``gamehub cluster drain HUB``: that hub hands its games to the others.

``status`` reads the cluster's tables (:mod:`hub.store.cluster`) beside the running
hubs and changes nothing.  A database on SQLite holds one single hub, and the command
says so.  ``drain`` sends the hub the notice ``drain`` (:mod:`hub.cluster.drain`) and
waits, at most ``--wait`` seconds, until no game of it is left to move.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from twisted.internet import task

from hub.cluster import CLUSTER, SINGLE
from hub.cluster.service import endpoint_text
from hub.store.store import Store

from .store import store_dsn, store_options, with_store


def _time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _seats(row: dict[str, Any]) -> str:
    seats = row["seats"]
    taken = sum(1 for s in seats if s.get("player") is not None and s.get("present"))
    return f"{taken}/{len(seats)} seated"


async def status(store: Store, as_json: bool) -> int:
    """Print the cluster of ``store``'s database (or that it holds a single hub)."""
    if not store.clustered:
        if as_json:
            print(json.dumps({"mode": SINGLE, "db": store.dialect.describe()}))
        else:
            print(
                f"single hub: {store.dialect.describe()} is SQLite, whose hub is never"
                " part of a cluster (a cluster shares one PostgreSQL database)"
            )
        return 0
    members, dead = await store.cluster_members()
    rows = await store.directory_rows()
    games: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        games.setdefault(row["hub"], []).append(row)
    if as_json:
        for member in members:
            member["game_list"] = games.get(member["hub_id"], [])
        view = {"mode": CLUSTER, "db": store.dialect.describe(), "hubs": members}
        print(json.dumps(view, default=str))
        return 0
    alive = [m for m in members if m["live"]]
    print(f"cluster on {store.dialect.describe()}: {len(alive)} hub(s) alive")
    for member in members:
        state = "live" if member["live"] else ("ended" if member["ended"] else "dead")
        where = ", ".join(
            f"{fe} {endpoint_text(e)}" for fe, e in sorted(member["endpoints"].items())
        )
        load = " ".join(f"{k}={v}" for k, v in sorted(member["load"].items()))
        print(
            f"hub {member['hub_id']} {state:<5} {member['host'] or '?'} pid {member['pid']}"
            f" started {_time(member['started'])} heartbeat {_time(member['heartbeat'])}"
        )
        print(f"  front ends: {where or '-'}")
        print(f"  load: {load or '-'}; {len(games.get(member['hub_id'], []))} game(s) listed")
        for row in games.get(member["hub_id"], []):
            print(f"  game {row['id']} {row['type']} {row['name']!r} {row['state']} {_seats(row)}")
    if dead:
        print(f"{dead} lease(s) of dead hubs wait for recovery by a live hub")
    return 0


async def drain(store: Store, hub: str, wait: float) -> int:
    """Ask ``hub`` to hand its games to the other hubs; wait until it has."""
    if not store.clustered:
        print("gamehub: a single hub (SQLite) has no other hub to hand its games to")
        return 1
    members, _ = await store.cluster_members()
    live = {m["hub_id"] for m in members if m["live"]}
    if hub not in live:
        print(f"gamehub: no live hub {hub[:64]!r} in the cluster (live: {', '.join(sorted(live))})")
        return 1
    if len(live) < 2:
        print(f"gamehub: hub {hub} is the only live hub: no other hub can take its games")
        return 1
    from twisted.internet import reactor as clock  # the one with_store runs

    before = await store.journal_waiting(hub)
    await store.cluster_drain(hub)
    left, deadline = before, clock.seconds() + wait
    while left and clock.seconds() < deadline:
        await task.deferLater(clock, 0.2, lambda: None)
        left = await store.journal_waiting(hub)
    if left:
        print(f"hub {hub}: {left} of {before} game(s) not handed over after {wait:g} s")
        return 1
    print(f"hub {hub} drained: {before} game(s) handed to the other hubs")
    return 0


def main(argv: Sequence[str]) -> int:
    """``gamehub cluster status [--json]``, ``gamehub cluster drain HUB [--wait S]``."""
    parser = argparse.ArgumentParser(
        prog="gamehub cluster", description="The hubs that share this hub's database."
    )
    sub = parser.add_subparsers(dest="action", required=True)
    show = sub.add_parser("status", help="list the hubs, their load and their games")
    show.add_argument("--json", action="store_true", help="print it as JSON")
    store_options(show)
    hand = sub.add_parser("drain", help="a hub hands its games to the other hubs")
    hand.add_argument("hub", help="the hub's id (its /api/health says it)")
    hand.add_argument("--wait", type=float, default=60.0, help="seconds to wait (60)")
    store_options(hand)
    args = parser.parse_args(list(argv))
    try:
        dsn = store_dsn(args)
    except SystemExit as e:
        return int(e.code or 0)
    if args.action == "drain":
        return with_store(dsn, lambda store: drain(store, args.hub, args.wait))
    return with_store(dsn, lambda store: status(store, args.json))
