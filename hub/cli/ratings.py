"""``gamehub ratings …`` and ``gamehub ladder TYPE``: ratings on either database.

``ratings rebuild`` recomputes every rating from the stored rankings of rated games, in
the order they were applied, and says whether that equals what the live updates
stored (``--check``: compare only; status 1 when anything differs).  ``ratings show``
prints a pool's leaderboard.  ``ladder`` plays a bounded round robin among the
installed bots of a game type (:mod:`hub.ratings.ladder`), stores each game as a rated
game of the type's pool and prints the bots' ratings with their intervals.  Each opens
the store as :func:`hub.cli.store.with_store` does (``--data``, ``--db``,
``--config``).
"""

from __future__ import annotations

import argparse
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hub.plugins.registry import Registry
from hub.tap import resolve_place

from .store import store_dsn, store_options, with_store


def ratings_parser() -> argparse.ArgumentParser:
    """The options of ``gamehub ratings``."""
    parser = argparse.ArgumentParser(prog="gamehub ratings", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rebuild = sub.add_parser("rebuild", help="recompute every rating from the rated games")
    rebuild.add_argument("--check", action="store_true", help="compare only; write nothing")
    show = sub.add_parser("show", help="a game type's leaderboard")
    show.add_argument("type", help="the game type (a name the hub's /api/types lists)")
    show.add_argument("--variant", default="", help="the variant key of the pool (default none)")
    show.add_argument("--limit", type=int, default=50, help="most players listed (50)")
    for p in (rebuild, show):
        store_options(p)
    return parser


def table(rows: Sequence[dict[str, Any]], extra: dict[str, str] | None = None) -> str:
    """A leaderboard as text: place, name, kind, mu, the interval mu ± 2 sigma, games
    and, when given, one more column per name (``extra``)."""
    lines = [
        f"{'#':>3}  {'player':<20} {'kind':<8} {'mu':>6}  {'mu ± 2 sigma':<15} {'games':>5}"
        + ("  record" if extra else "")
    ]
    for place, r in enumerate(rows, 1):
        low, high = r["mu"] - 2 * r["sigma"], r["mu"] + 2 * r["sigma"]
        line = (
            f"{place:>3}  {r['name']:<20} {r['kind']:<8} {r['mu']:>6.2f}"
            f"  [{low:6.2f}, {high:6.2f}] {r['games']:>5}"
        )
        if extra:
            line += "  " + extra.get(r["name"], "")
        lines.append(line)
    return "\n".join(lines)


def ratings_main(argv: Sequence[str]) -> int:
    """``gamehub ratings rebuild|show``."""
    args = ratings_parser().parse_args(list(argv))
    dsn = store_dsn(args)

    async def rebuild(store: Any) -> int:
        report = await store.rebuild_ratings(write=not args.check)
        for line in report["differences"]:
            print(f"differs: {line}")
        same = "equal" if not report["differences"] else "differ from"
        verb = "checked" if args.check else "rebuilt"
        print(
            f"{verb} {report['players']} ratings from {report['games']} rated games:"
            f" the recomputed values {same} the stored ones"
            + ("" if args.check or not report["differences"] else " (now stored)")
        )
        return 1 if args.check and report["differences"] else 0

    async def show(store: Any) -> int:
        rows = await store.leaderboard(args.type, args.variant, args.limit)
        if not rows:
            print(f"no rated games of {args.type}" + (f" ({args.variant})" if args.variant else ""))
            return 0
        print(table(rows))
        return 0

    return with_store(dsn, rebuild if args.command == "rebuild" else show)


def ladder_parser() -> argparse.ArgumentParser:
    """The options of ``gamehub ladder``."""
    parser = argparse.ArgumentParser(
        prog="gamehub ladder",
        description="A round robin among the installed bots of a game type: each pair (or"
        " group, for games of more seats) plays --games games, seats rotating; every game"
        " is rated and stored; the bots' ratings are printed with mu ± 2 sigma.",
    )
    parser.add_argument("type", help="the game type (a name the hub's /api/types lists)")
    parser.add_argument("--games", type=int, default=4, help="games per pair or group (4)")
    parser.add_argument(
        "--seconds", type=float, default=0.2, help="most seconds a bot thinks per move (0.2)"
    )
    parser.add_argument(
        "--bots", default=None, help="comma-separated bots (default: every installed one)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option (integer values are numbers), e.g. max_turns=100",
    )
    store_options(parser)
    return parser


def option_pairs(pairs: Sequence[str], command: str = "gamehub ladder") -> dict[str, Any]:
    """Game options from ``--option KEY=VALUE`` arguments (whole numbers are numbers).

    :raises SystemExit: an argument that is no ``KEY=VALUE``, with ``command``'s name.
    """
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"{command}: --option takes KEY=VALUE, not {pair!r}")
        out[key] = int(value) if value.lstrip("-").isdigit() else value
    return out


def ladder_main(argv: Sequence[str]) -> int:
    """``gamehub ladder TYPE``."""
    from hub.ratings import ladder

    args = ladder_parser().parse_args(list(argv))
    if not 1 <= args.games <= 1000 or not 0 < args.seconds <= 60:
        print("gamehub ladder: --games is 1 to 1000, --seconds above 0 up to 60", file=sys.stderr)
        return 2
    options = option_pairs(args.option)
    dsn = store_dsn(args)
    data = resolve_place(args.data, args.db, args.config).data

    async def work(store: Any) -> int:
        from twisted.internet import reactor

        registry = Registry(Path(data), reactor)
        await registry.load()
        bots = args.bots.split(",") if args.bots else None
        record: dict[str, list[int]] = {}
        names: list[str] = []
        pool = (args.type, "")
        run_id = "ladder-" + uuid.uuid4().hex[:12]
        try:
            games = ladder.run(
                registry,
                args.type,
                games=args.games,
                seconds=args.seconds,
                options=options,
                bots=bots,
                run_id=run_id,
                now=reactor.seconds,
            )
            for played in games:
                names = sorted(set(names) | set(played.bots))
                if played.record is None:
                    print(f"{' vs '.join(played.bots)}: did not finish; not rated")
                    continue
                await store.rate_game(played.record)
                pool = played.record.pool
                ranks = {p.player.name: p.rank for p in played.record.placed}
                best = min(ranks.values())
                for name, rank in ranks.items():
                    wins = record.setdefault(name, [0, 0, 0])
                    alone = list(ranks.values()).count(best) == 1
                    wins[0 if rank == best and alone else 1 if rank == best else 2] += 1
                print(
                    f"{' vs '.join(played.bots)}: "
                    + ", ".join(f"{n} {r + 1}." for n, r in ranks.items())
                )
        except ValueError as e:
            print(f"gamehub ladder: {e}", file=sys.stderr)
            return 1
        finally:
            registry.stop()
        rows = [r for r in await store.leaderboard(*pool, limit=10_000) if r["kind"] == "bot"]
        rows = [r for r in rows if r["name"] in names]
        extra = {n: f"{w}-{d}-{lost} (won-tied-lost)" for n, (w, d, lost) in record.items()}
        print(f"\n{args.type} ladder ({run_id}), stored; ranked by mu - 3 sigma:")
        print(table(rows, extra))
        return 0

    return with_store(dsn, work)
