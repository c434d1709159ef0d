"""``gamehub tournament create|list|show|register|start``: tournaments on a running hub,
through its JSON API (``/api/tournaments``, docs/tournaments.md), as ``gamehub
acpc-match`` makes matches: ``--hub URL`` (default ``http://127.0.0.1:8080``) and, from
another host, ``--token T`` (the hub's API token).

- ``create TYPE [--format F] [--rounds N] [--max-entrants N] [--bot NAME]...
  [--option KEY=VALUE]... [--grace S] [--starts-in S]``: prints the new tournament's id;
- ``list``: one line per tournament;
- ``show ID``: rounds, games and standings;
- ``register ID NAME [--frontend mnm|domino|xml] | --bot BOT``: prints the entry and,
  for a network client, the key (the MNM Game-ID of its games);
- ``start ID``: start now (registration closes).
"""

from __future__ import annotations

import argparse
import sys
import time
import urllib.error
from collections.abc import Sequence
from typing import Any

from .http import add_hub_options, refusal, request
from .ratings import option_pairs


def parser() -> argparse.ArgumentParser:
    """The options of ``gamehub tournament``."""
    p = argparse.ArgumentParser(
        prog="gamehub tournament",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True)
    create = sub.add_parser("create", help="a new tournament")
    create.add_argument("type", help="the game type (a name the hub's /api/types lists)")
    create.add_argument(
        "--format", default="swiss", choices=["swiss", "round-robin", "rotation", "sit-and-go"]
    )
    create.add_argument("--name", default=None)
    create.add_argument("--rounds", type=int, default=None)
    create.add_argument("--max-entrants", type=int, default=None)
    create.add_argument("--min-entrants", type=int, default=None)
    create.add_argument("--table-size", type=int, default=None, help="rotation: players a table")
    create.add_argument("--grace", type=float, default=None, help="seconds to take one's seat")
    create.add_argument("--starts-in", type=float, default=None, help="start in S seconds")
    create.add_argument("--no-start-when-full", action="store_true")
    create.add_argument("--rated", action="store_true", help="the games count for ratings")
    create.add_argument("--bot", action="append", default=[], help="register this in-hub bot")
    create.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option for every game (whole numbers are numbers)",
    )
    sub.add_parser("list", help="every tournament")
    show = sub.add_parser("show", help="one tournament: rounds, games, standings")
    show.add_argument("id")
    register = sub.add_parser("register", help="enter a network client or an in-hub bot")
    register.add_argument("id")
    register.add_argument("name", nargs="?", default=None)
    register.add_argument("--frontend", default="mnm", choices=["mnm", "domino", "xml"])
    register.add_argument("--bot", default=None, help="enter this in-hub bot instead")
    start = sub.add_parser("start", help="start now")
    start.add_argument("id")
    for each in (create, sub.choices["list"], show, register, start):
        add_hub_options(each)
    return p  # fmt: skip


def create_spec(args: argparse.Namespace) -> dict[str, Any]:
    """The body of ``POST /api/tournaments`` from ``create``'s arguments."""
    spec: dict[str, Any] = {"type": args.type, "format": args.format}
    for key, value in (
        ("name", args.name),
        ("rounds", args.rounds),
        ("max_entrants", args.max_entrants),
        ("min_entrants", args.min_entrants),
        ("table_size", args.table_size),
        ("grace", args.grace),
    ):
        if value is not None:
            spec[key] = value
    if args.starts_in is not None:
        spec["starts_at"] = time.time() + args.starts_in
    if args.no_start_when_full:
        spec["start_when_full"] = False
    if args.rated:
        spec["rated"] = True
    if args.bot:
        spec["bots"] = list(args.bot)
    if args.option:
        spec["options"] = option_pairs(args.option, "gamehub tournament")
    return spec


def show_text(t: dict[str, Any]) -> str:
    """A tournament as text: its line, each round's games, the standings."""
    lines = [
        f"{t['id']} {t['name']!r}: {t['game_type']} {t['format']}, {t['state']},"
        f" round {t['round']} of {t.get('total_rounds') or '?'}, {len(t['entries'])} entrants"
    ]
    for g in t["games"]:
        names = " vs ".join(g["names"]) if len(g["names"]) > 1 else f"{g['names'][0]} (bye)"
        points = "" if g["points"] is None else " " + "-".join(f"{p:g}" for p in g["points"])
        forfeit = " (forfeit)" if any(g.get("absent") or []) else ""
        game = f" game {g['game_id']}" if g["game_id"] else ""
        lines.append(f"  round {g['round']} board {g['board']}: {names}{points}{forfeit}{game}")
    lines.append(f"{'#':>3}  {'player':<20} {'points':>6} {t['tiebreak']:>17} {'games':>5}")
    for s in t["standings"]:
        lines.append(
            f"{s['place']:>3}  {s['name']:<20} {s['points']:>6g} {s['tiebreak']:>17g}"
            f" {s['games']:>5}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """The command; its exit status."""
    args = parser().parse_args(list(argv) if argv is not None else None)
    base = args.hub.rstrip("/") + "/api/tournaments"
    try:
        if args.command == "create":
            t = request(base, create_spec(args), args.token)
            print(f"tournament {t['id']} created: {t['name']} ({t['state']})")
        elif args.command == "list":
            for t in request(base, token=args.token)["tournaments"]:
                print(f"{t['id']:<6} {t['state']:<12} {t['game_type']:<12} {t['format']:<12}"
                      f" {t['entrants']}/{t['max_entrants']} round {t['round']}  {t['name']}")  # fmt: skip
        elif args.command == "show":
            print(show_text(request(f"{base}/{args.id}", token=args.token)))
        elif args.command == "register":
            if args.bot:
                body = {"kind": "bot", "bot": args.bot}
            elif args.name:
                body = {"kind": "client", "name": args.name, "frontend": args.frontend}
            else:
                raise SystemExit("gamehub tournament register: give a NAME or --bot BOT")
            e = request(f"{base}/{args.id}/entries", body, args.token)
            print(f"entry {e['id']}: {e['name']} ({e['kind']}, {e['frontend']})")
            if e["kind"] == "client":
                print(f"key {e['key']}")
        else:
            t = request(f"{base}/{args.id}/start", {}, args.token)
            print(f"tournament {t['id']} started: round {t['round']}")
    except urllib.error.HTTPError as e:
        print(f"gamehub tournament: {refusal(e)}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as e:
        print(f"gamehub tournament: cannot reach the hub at {args.hub}: {e}", file=sys.stderr)
        return 1
    return 0
