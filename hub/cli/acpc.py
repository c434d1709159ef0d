"""``gamehub acpc-match GAME PLAYER... [--hands N] [--duplicate] [--strict]
[--deals hub|dealer] [--seed SEED] [--allow ADDRESS]... [--hub URL] [--token T] [--wait]``:
make an ACPC match on a running hub (``POST /acpc/matches``) and print each program's
key (with it, its owner reads the program's own lines of the log while the match
runs), then, as the competition's dealer does, one port per ``acpc`` player on one line
(start each program with ``HOST PORT``); ``--wait`` then waits for the end of the match
and prints each player's result and the log's ``SCORE`` line, with exit status 1 when
the match failed (was cut short: the log then has no SCORE, as the reference dealer's)."""

from __future__ import annotations

import argparse
import sys
import time
import urllib.error
from collections.abc import Sequence
from typing import Any

from .http import add_hub_options, refusal, request


def parser() -> argparse.ArgumentParser:
    """The options of ``gamehub acpc-match``."""
    parser = argparse.ArgumentParser(prog="gamehub acpc-match", description=__doc__)
    parser.add_argument("game", help="the name of an ACPC game the hub plays (docs/acpc.md)")
    parser.add_argument("players", nargs="+", help="acpc, acpc:NAME, bot:NAME or open")
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument(
        "--duplicate", action="store_true", help="play each deal twice, seats swapped"
    )
    parser.add_argument("--strict", action="store_true", help="end at the first invalid action")
    parser.add_argument(
        "--deals",
        choices=("hub", "dealer"),
        default="hub",
        help="Gamehub's deals, or the reference dealer's for --seed N",
    )
    parser.add_argument(
        "--seed",
        default=None,
        help="the seed of the deals: 64 hex digits (hub), an integer 0 to 4294967295 (dealer)",
    )
    parser.add_argument(
        "--allow",
        action="append",
        metavar="ADDRESS",
        help="an address or network whose programs may take the seats (repeatable; "
        "default: this command's own address)",
    )
    add_hub_options(parser)
    parser.add_argument("--wait", action="store_true", help="wait for the end; print the results")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command; its exit status."""
    args = parser().parse_args(argv)
    base = args.hub.rstrip("/")
    spec: dict[str, Any] = {
        "game": args.game,
        "players": args.players,
        "hands": args.hands,
        "duplicate": args.duplicate,
        "strict": args.strict,
    }
    if args.deals == "dealer":
        spec["deals"] = "dealer"
        if args.seed is None or not args.seed.isdigit():
            print("gamehub acpc-match: --deals dealer needs --seed N (0 to 4294967295)",
                  file=sys.stderr)  # fmt: skip
            return 2
        spec["seed"] = int(args.seed)
    elif args.seed:
        spec["seed"] = args.seed
    if args.allow:
        spec["allow"] = args.allow
    try:
        match = request(f"{base}/acpc/matches", spec, args.token)
    except urllib.error.HTTPError as e:
        print(f"gamehub acpc-match: {refusal(e)}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as e:
        print(f"gamehub acpc-match: cannot reach the hub at {base}: {e}", file=sys.stderr)
        return 1
    print(
        f"match {match['id']}: {match['game']}, {match['hands']} hands; log at {base}{match['log']}"
    )
    for player in match["players"]:  # shown once: each program's own lines of the log
        if player.get("key"):
            print(f"key of {player['name']} (Authorization: Bearer): {player['key']}")
    print(" ".join(str(p) for p in match["ports"]), flush=True)
    if not args.wait:
        return 0
    deadline = time.monotonic() + 7 * 24 * 3600
    while time.monotonic() < deadline:
        match = request(f"{base}/acpc/matches/{match['id']}")
        if match["state"] == "over":
            break
        time.sleep(1.0)
    for result in match["results"]:
        ci = "" if result["ci95"] is None else f" +- {result['ci95']}"
        print(f"{result['name']}: {result['total']} over {result['hands']} hands, "
              f"{result['mbb_per_hand']}{ci} mbb/hand")  # fmt: skip
    failed = bool(match.get("failed"))
    print(f"{'failed' if failed else 'over'}: {match['reason']}")
    log = request(f"{base}{match['log']}", text=True) if match["played"] else ""
    score = [line for line in log.splitlines() if line.startswith("SCORE:")]
    if score:
        print(score[-1])
    return 1 if failed else 0
