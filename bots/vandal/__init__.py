"""``vandal``: the adversarial client the domino seed asks for, for every front end.

    python -m bots.vandal --target domino|mnm|xml|web --host 127.0.0.1 --port P --seconds N

It first logs in properly (domino: reads ``CONNECT``, sends ``LOGIN``, reads ``OK``;
MNM: the banner and an accepted ``VERSION``; XML: the greeting and an account login),
then, attack after attack until the time is up: malformed, oversized and out-of-turn
messages, cheating moves (taken dominoes, overlapping, detached or out-of-range
placements, moves for another player), floods, slow byte-by-byte sends, half-open
connections and disconnects at every step.  On the web front end: malformed requests,
bodies declared far over any limit, writes with a foreign ``Host`` (DNS rebinding) or
``Origin``, slow headers and bodies, many event streams at once and pipelined floods.
It reports what the server answered to each attack; an answer that accepts a cheat is
reported as ``ACCEPTED``.

Bounded: at most ``--seconds`` (≤ 600) of wall time, at most ``--max-attacks``
attacks, at most 64 KiB per flood and 200 connections at once, every socket
operation with a timeout.  It refuses
targets that are not loopback addresses.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence

from . import domino, mnm, web, xml  # noqa: F401  (each adds its attacks to ATTACKS)
from .core import ATTACKS, MAX_SECONDS, Refused, Report, Vandal, check_loopback


def main(argv: Sequence[str] | None = None) -> int:
    """Attack one front end for a bounded time and print what it answered."""
    parser = argparse.ArgumentParser(
        prog="python -m bots.vandal", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--target", choices=sorted(ATTACKS), required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--max-attacks", type=int, default=10_000)
    parser.add_argument("--game-id", default=None, help="an MNM game id to join and cheat in")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    if not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"--seconds: more than 0, at most {MAX_SECONDS}")
    if not 1 <= args.max_attacks <= 100_000:
        parser.error("--max-attacks: 1 to 100000")
    try:
        address = check_loopback(args.host)
    except Refused as e:
        print(f"vandal: {e}", file=sys.stderr)
        return 2
    vandal = Vandal(
        args.target,
        address,
        args.port,
        args.seconds,
        random.Random(args.seed),
        max_attacks=args.max_attacks,
        game_id=args.game_id,
    )
    report = vandal.run()
    print(json.dumps(report.to_json()) if args.json else report.text())
    return 0


__all__ = ["ATTACKS", "MAX_SECONDS", "Refused", "Report", "Vandal", "check_loopback", "main"]
