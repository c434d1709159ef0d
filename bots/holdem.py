"""The ``holdem`` poker bot as a network client of a hub's XML front end.

Usage::

    python -m bots.holdem --host H --port P --account NAME --password PW
                          [--game GAMEID | --create] [--seat N] [--buyin CHIPS]
                          [--hands N] [--policy holdem|caller|raiser|poker-random]
                          [--tls | --ca FILE]

It logs in through :mod:`hub.client` (creating a ``bot`` account when the login
fails because there is none), joins the table (or creates a fixed-limit Texas Hold'em
table with ``--create``), takes a seat with a buy-in from its balance, and plays with
the same decision code as the in-hub bot (:class:`bots.poker.plugin.PokerBot`),
thinking in a worker thread with a deadline.  After ``--hands`` finished hands it
leaves the seat (its stack goes back to the account) and exits.  ``--tls`` / ``--ca
FILE`` connect to a hub's ``ssl:`` XML front end and check its certificate.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from twisted.internet import defer, error, task

from bots.poker.netplay import NetPlayer, bot_decider
from hub.client import HubClient, RequestFailed
from hub.tls import add_client_options, from_args, parse_client_args


def parser() -> argparse.ArgumentParser:
    """The command line of the network poker bot."""
    p = argparse.ArgumentParser(prog="python -m bots.holdem", description=__doc__.split("\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=4000)
    p.add_argument("--account", required=True)
    p.add_argument("--password", required=True)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--game", type=int, help="wire id of the table to join")
    where.add_argument("--create", action="store_true", help="create a new table")
    p.add_argument("--seat", type=int, default=None)
    p.add_argument("--buyin", default=None, help="chips to buy in with (default: the table's)")
    p.add_argument("--hands", type=int, default=None, help="leave after N hands")
    p.add_argument("--policy", default="holdem")
    p.add_argument("--deadline", type=float, default=5.0, help="most seconds to think")
    add_client_options(p)
    return p


async def play(reactor: Any, args: argparse.Namespace, out: Any = None) -> int:
    """Connect, sit down, play; returns the number of hands played."""
    out = out if out is not None else sys.stdout
    # a lost connection is resumed with the session's token (docs/xml.md): the bot plays on
    client = await HubClient.connect(
        reactor, args.host, args.port, tls=from_args(args), reconnect=True
    )
    try:
        try:
            await client.login(args.account, args.password)
        except RequestFailed as e:
            if e.code not in (401, 404):
                raise
            await client.create_account(args.account, args.password, 1)
            await client.login(args.account, args.password)
        gameid = args.game
        if args.create:
            gameid = await client.create_game("texas-holdem", f"{args.account}'s table", seats=6)
        await client.join(gameid)
        holder: dict[str, Any] = {}
        decide = bot_decider(args.policy, lambda: holder["player"].table.seat)
        player = NetPlayer(client, gameid, decide, reactor, args.hands, args.deadline)
        holder["player"] = player
        await player.take_seat(args.seat, args.buyin)
        print(f"seated at table {gameid}", file=out, flush=True)
        hands = await player.done
        print(f"left after {hands} hands ({player.actions} actions)", file=out)
        return int(hands)
    finally:
        await client.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run until the bot leaves (``--hands``) or the connection ends."""
    args = parse_client_args(parser(), list(sys.argv[1:] if argv is None else argv))

    async def run(reactor: Any) -> None:
        try:
            await play(reactor, args)
        except (RequestFailed, ConnectionError, error.ConnectError, error.ConnectionLost,
                error.TimeoutError) as e:  # fmt: skip
            print(f"holdem: {e}", file=sys.stderr)
            raise SystemExit(1) from None

    try:
        task.react(lambda reactor: defer.ensureDeferred(run(reactor)))
    except SystemExit as e:
        return int(e.code or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
