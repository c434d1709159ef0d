"""``python -m bots.morris --host H --port P --game-id ID [--player N] [--tls | --ca FILE]``.

Joins game ``ID`` on an MNM server (a Gamehub or the course's server) and plays it
with the ``morris`` search.  Exit status 0 when the game was played to its end.
``--tls`` / ``--ca FILE`` connect to a hub's ``ssl:`` MNM front end and check its
certificate (:mod:`hub.tls`).
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

from twisted.internet import defer, task

from games.morris.client import Connector, MoveRequest
from hub.tls import add_client_options, client_endpoint, parse_client_args

from . import TIME_SHARE, Searcher, decide
from .client import MNMBotFactory


def make_thinker(max_seconds: float, seed: int | None = None):
    """The thinker: a search that uses a share of the announced move time."""
    searcher = Searcher(rng=random.Random(seed))

    def think(request: MoveRequest) -> str:
        seconds = max(0.01, min(request.time_ms / 1000.0 * TIME_SHARE, max_seconds))
        view = {"pieces": request.pieces, "to_move": request.me, "capture": request.capture}
        text, _ = decide(searcher, view, seconds)
        return text

    return think


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bots.morris", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1357)
    parser.add_argument("--game-id", required=True)
    parser.add_argument("--player", type=int, choices=(0, 1), default=None)
    parser.add_argument(
        "--max-seconds", type=float, default=2.5, help="think at most this long per move"
    )
    parser.add_argument("--seed", type=int, default=None)
    add_client_options(parser)
    args = parse_client_args(parser, argv)
    return args


async def run(reactor: Any, args: argparse.Namespace) -> int:
    """Connect, play, report."""
    connector = Connector(args.game_id, args.player)
    factory = MNMBotFactory(connector, make_thinker(args.max_seconds, args.seed), reactor)
    endpoint = client_endpoint(reactor, args.host, args.port, args.tls_client, timeout=30)
    connecting = endpoint.connect(factory)
    connecting.addErrback(lambda f: None if factory.done.called else factory.done.errback(f))
    try:
        won = await factory.done
    except Exception as e:
        print(f"morris: {getattr(e, 'args', [e])[0] if e.args else e}", file=sys.stderr)
        return 1
    me = connector.me if connector.me is not None else 0
    if all(won):
        verdict = "draw"
    else:
        verdict = "won" if won[me] else "lost"
    print(f"morris: game {args.game_id} over: player {me} ({connector.name}) {verdict}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = parse_args(argv)
    result: list[int] = []

    async def go(reactor: Any) -> None:
        result.append(await run(reactor, args))

    try:
        task.react(lambda reactor: defer.ensureDeferred(go(reactor)))
    except SystemExit:
        pass
    return result[0] if result else 1


if __name__ == "__main__":
    sys.exit(main())
