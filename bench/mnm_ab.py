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
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import cpu_seconds  # noqa: E402
from bench.hubproc import Hub  # noqa: E402
from bench.mnm_lines import hub_pass, new_games  # noqa: E402


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
    parser.add_argument("hubs", nargs="+", type=contender, help="NAME=ROOT[:KEY~VALUE,...]")
    args = parser.parse_args()
    hubs: list[tuple[str, Hub]] = []
    per: dict[str, list[float]] = {}
    seed = 100
    try:
        for name, root, settings in args.hubs:
            hub = Hub(("mnm",), {"mnm_wait_interval": 30, **settings}, root=root)
            hubs.append((name, hub.__enter__()))
            per[name] = []
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
        for _, hub in hubs:
            hub.__exit__(None, None, None)
    first = statistics.median(per[hubs[0][0]])
    print(f"{args.games} games a pass, {args.rounds} rounds; load {os.getloadavg()[0]:.2f}")
    for name, values in per.items():
        median = statistics.median(values)
        print(f"  {name:<12} {median:6.2f} µs/line ({min(values):.2f}..{max(values):.2f})"
              f"  {median / first:.3f} of {hubs[0][0]}")  # fmt: skip


if __name__ == "__main__":
    main()
