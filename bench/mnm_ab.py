"""An A/B of the hub's CPU a MNM line: several hubs alive at once, each running the
code of a checkout (a worktree of ``main`` and one of a branch, say) with settings of
its own, play passes of :mod:`bench.mnm_lines`'s games in turn (the order reversed
every round), and the median CPU a line of each is printed, with its ratio to the
first hub's.  Give the same hub twice for an A/A: on a shared machine that spread is
the noise a difference must beat.  No anchor: it compares versions, not the hub with
the bare server.

    python bench/mnm_ab.py [--rounds 20] [--games 10] NAME=ROOT[:KEY~VALUE,...] ...

e.g. ``main=/work/wt/base branch=/work/wt/mine nojournal=/work/wt/base:journal_max_entries~0
again=/work/wt/base``.

With ``--in-flight N`` the passes are :mod:`bench.mnm_in_flight`'s instead: games
recorded once through the first hub, replayed ``N`` at a time (``max(N, 40)`` games a
pass, fresh games on each hub) from one ``epoll`` client, and the bare server of that
module (a fresh process) takes its turn in the same rounds, so each hub's ratio to it
is printed too (the table's rows, for versions side by side).

    python bench/mnm_ab.py --in-flight 10 --rounds 8 base=/work/wt/base new=/work/wt/mine
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import cpu_seconds  # noqa: E402
from bench.hubproc import Hub  # noqa: E402
from bench.mnm_in_flight import Pass, bare_server  # noqa: E402
from bench.mnm_lines import Game, hub_pass, new_games  # noqa: E402

#: the bare server's name among the hubs (``--in-flight``)
BARE = "bare"
#: the hubs' settings for replayed passes (no client waits on a prolog or a WAIT)
REPLAY_SETTINGS = {"mnm_wait_interval": 600, "mnm_prolog_timeout": 600, "listen_backlog": 2048}


def contender(text: str) -> tuple[str, str, dict[str, str]]:
    """``NAME=ROOT[:KEY~VALUE,...]`` → (name, root, settings)."""
    name, _, rest = text.partition("=")
    root, _, pairs = rest.partition(":")
    if not name or not os.path.isdir(os.path.join(root, "hub")):
        raise argparse.ArgumentTypeError(f"{text!r}: NAME=ROOT, ROOT a checkout of Gamehub")
    settings = {}
    for pair in filter(None, pairs.split(",")):
        key, sep, value = pair.partition("~")
        if not sep:
            raise argparse.ArgumentTypeError(f"{pair!r}: a setting is KEY~VALUE")
        settings[key] = value
    return name, os.path.abspath(root), settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--games", type=int, default=10, help="games a pass (default 10)")
    parser.add_argument("--in-flight", type=int, default=0,
                        help="replay this many games at a time, the bare server alongside")  # fmt: skip
    parser.add_argument("hubs", nargs="+", type=contender, help="NAME=ROOT[:KEY~VALUE,...]")
    args = parser.parse_args()
    if args.in_flight > 0:
        in_flight(args.hubs, args.in_flight, args.rounds)
        return
    hubs = start_hubs(args.hubs, {"mnm_wait_interval": 30})
    per: dict[str, list[float]] = {name: [] for name, _ in hubs}
    seed = 100
    try:
        for _, hub in hubs:  # warm
            hub_pass(hub, new_games(hub, 2), 1, [])
        for n in range(args.rounds):
            for name, hub in hubs if n % 2 == 0 else hubs[::-1]:
                made = new_games(hub, args.games)  # untimed, through the web
                seed += 1000
                before = cpu_seconds(hub.pid)
                lines = hub_pass(hub, made, seed, [])
                per[name].append((cpu_seconds(hub.pid) - before) / lines * 1e6)
    finally:
        stop_hubs(hubs)
    print(f"{args.games} games a pass, {args.rounds} rounds; load {os.getloadavg()[0]:.2f}")
    report(per, hubs[0][0])


def start_hubs(
    specs: list[tuple[str, str, dict[str, str]]], defaults: dict[str, object]
) -> list[tuple[str, Hub]]:
    """A running hub for each of ``specs`` (its settings over ``defaults``), in order;
    those started already are stopped if one fails to start."""
    hubs: list[tuple[str, Hub]] = []
    try:
        for name, root, settings in specs:
            hubs.append((name, Hub(("mnm",), {**defaults, **settings}, root=root).__enter__()))
    except BaseException:
        stop_hubs(hubs)
        raise
    return hubs


def stop_hubs(hubs: list[tuple[str, Hub]]) -> None:
    """Stop each of ``hubs``."""
    for _, hub in hubs:
        hub.__exit__(None, None, None)


def report(per: dict[str, list[float]], first: str, anchor: str | None = None) -> None:
    """Each one's median CPU a line, its range, and its ratio to ``first``'s (and to
    ``anchor``'s)."""
    base = statistics.median(per[first])
    against = statistics.median(per[anchor]) if anchor is not None else None
    for name, values in per.items():
        median = statistics.median(values)
        also = f", {median / against:.3f} of {anchor}" if against is not None else ""
        print(f"  {name:<12} {median:6.2f} µs/line ({min(values):.2f}..{max(values):.2f})"
              f"  {median / base:.3f} of {first}{also}")  # fmt: skip


def in_flight(specs: list[tuple[str, str, dict[str, str]]], level: int, rounds: int) -> None:
    """``--in-flight``: the hubs of ``specs`` and the bare server, ``rounds`` rounds of
    replayed passes (:class:`bench.mnm_in_flight.Pass`), the order reversed every round;
    prints each one's median CPU a line, its ratio to the first hub and to the bare
    server."""
    if any(name == BARE for name, _, _ in specs):
        raise SystemExit(f"{BARE!r} names the bare server here: give the hub another name")
    total = max(level, 40)
    hubs = start_hubs(specs, REPLAY_SETTINGS)
    per: dict[str, list[float]] = {name: [] for name, _ in hubs}
    try:
        games: list[Game] = []
        hub_pass(hubs[0][1], new_games(hubs[0][1], 8), 7, games)
        per[BARE] = []
        with bare_server(games) as (bare_pid, bare_port):
            order: list[tuple[str, Hub | None]] = [*hubs, (BARE, None)]
            for n in range(rounds + 1):  # the first round warms every server up
                for name, hub in order if n % 2 == 0 else order[::-1]:
                    if hub is None:
                        pid, replay = bare_pid, Pass(bare_port, games, total, level)
                    else:
                        made = new_games(hub, total)  # untimed, through the web
                        pid = hub.pid
                        replay = Pass(hub.ports["mnm"], games, total, level, ids=made)
                    before = cpu_seconds(pid)
                    lines = replay.run(120 + total * 0.5)
                    if n:
                        per[name].append((cpu_seconds(pid) - before) / lines * 1e6)
    finally:
        stop_hubs(hubs)
    print(f"{level} games in flight, {total} a pass, {rounds} rounds; "
          f"load {os.getloadavg()[0]:.2f}")  # fmt: skip
    report(per, hubs[0][0], BARE)


if __name__ == "__main__":
    main()
