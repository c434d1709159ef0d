"""``python -m bots.kingdomino --host H --port P --login NAME [--tls | --ca FILE]``: a King
Domino bot that plays one game over the domino line protocol and prints the results.
``--tls`` / ``--ca FILE`` connect to a hub's ``ssl:`` domino front end and check its
certificate (:mod:`hub.tls`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from twisted.internet import defer, task
from twisted.internet.endpoints import connectProtocol

from hub.tls import add_client_options, client_endpoint, describe, parse_client_args


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bots.kingdomino", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7000)
    parser.add_argument("--login", required=True, help="non-empty, no spaces")
    parser.add_argument("--bot", choices=["domino", "greedy", "random"], default="domino")
    parser.add_argument("--think", type=float, default=0.8, help="seconds per decision")
    parser.add_argument("--seed", type=int, default=None)
    add_client_options(parser)
    args = parse_client_args(parser, argv)
    if not args.login or " " in args.login or len(args.login) > 64:
        parser.error("--login: 1 to 64 characters without spaces")
    if not 0.01 <= args.think <= 60:
        parser.error("--think: 0.01 to 60 seconds")
    return args


async def _play(reactor, args: argparse.Namespace) -> int:
    from .client import BotClientFactory, make_brain

    factory = BotClientFactory(args.login, make_brain(args.bot, args.seed), args.think, reactor)
    endpoint = client_endpoint(reactor, args.host, args.port, args.tls_client, timeout=10)
    await connectProtocol(endpoint, factory.buildProtocol(None))
    results = await factory.done
    if not results:
        ended = factory.client.ended
        why = f" ({describe(ended)})" if ended is not None else ""
        print(f"no results: the server closed the connection{why}", file=sys.stderr)
        return 1
    print("GAME OVER RESULTS " + " ".join(f"{name} {points}" for name, points in results))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Play one game; exit status 0 when it ended with results."""
    args = parse_args(argv)
    status: list[int] = []

    def run(reactor) -> defer.Deferred:
        d = defer.ensureDeferred(_play(reactor, args))
        d.addCallback(status.append)
        return d

    try:
        task.react(run)
    except SystemExit as e:
        if e.code not in (0, None):
            return int(e.code)
    return status[0] if status else 1


if __name__ == "__main__":
    raise SystemExit(main())
