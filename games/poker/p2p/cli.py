"""``gamehub p2p``: play fixed-limit hold'em with other peers, no server dealing.

::

    gamehub p2p --name NAME --listen ENDPOINT [--peer HOST:PORT ...] [--players N]
                [--stakes 10/20] [--buyin CHIPS] [--hands N] [--bot holdem]
                [--action-time S] [--step-time S] [--key FILE] [--history FILE]
    gamehub p2p --name NAME --hub HOST:PORT --table NAME [--players N] ...
    gamehub p2p --hub HOST:PORT --list

Without ``--name`` the player's name is asked on the terminal (while the peer already
reaches the others).  With ``--bot NAME`` one of the hub's poker bot plugins plays the
seat; otherwise the person at the terminal does (``fold``, ``check``, ``call``,
``bet``, ``raise``).  ``--hub HOST:PORT --table NAME`` meets the other peers at a hub's
relay front end instead of connecting to them; ``--list`` prints the tables a hub
relays.  The exit status is 0 when the table ended normally, 1 when it could not be
played (see docs/p2p.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from twisted.internet import defer, error, stdio, task
from twisted.protocols.basic import LineOnlyReceiver


def parser() -> argparse.ArgumentParser:
    """The options of ``gamehub p2p``."""
    p = argparse.ArgumentParser(
        prog="gamehub p2p", description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    p.add_argument("--name", help="the player's name (asked on the terminal when not given)")
    p.add_argument("--listen", metavar="ENDPOINT", help="where this peer listens (tcp:7001)")
    p.add_argument(
        "--peer",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="a peer to connect to (repeatable; the others are found through it)",
    )
    p.add_argument("--hub", metavar="HOST:PORT", help="meet at this hub's relay front end")
    p.add_argument("--table", default="p2p", help="the table's name at the hub")
    p.add_argument("--list", action="store_true", help="print the tables the hub relays")
    p.add_argument("--players", type=int, default=2, help="peers at the table (2 to 10)")
    p.add_argument("--stakes", default="10/20", help="small bet/big bet")
    p.add_argument("--buyin", default="1000", help="every player's starting chips")
    p.add_argument("--hands", type=int, default=0, help="hands to play (0: until one is left)")
    p.add_argument("--action-time", type=float, default=30.0, help="seconds to act")
    p.add_argument(
        "--step-time",
        type=float,
        default=10.0,
        help="seconds for a peer's step of the deal, its keys, its answers",
    )
    p.add_argument("--bot", help="a poker bot plugin plays this seat (holdem, caller...)")
    p.add_argument("--seed", type=int, default=None, help="the bot's random seed")
    p.add_argument("--key", metavar="FILE", help="this peer's Ed25519 key (gamehub plugin keygen)")
    p.add_argument("--history", metavar="FILE", help="append a JSON line per hand here")
    p.add_argument("--quiet", action="store_true", help="print only the table's main events")
    return p  # fmt: skip


class Lines(LineOnlyReceiver):
    """The terminal's lines, to whoever wants the next one."""

    delimiter = b"\n"
    MAX_LENGTH = 1000

    def __init__(self) -> None:
        self.waiting: defer.Deferred[str] | None = None
        self.player: Any = None

    def lineReceived(self, line: bytes) -> None:  # noqa: N802
        """A line: the name asked for, else the player's."""
        text = line.decode("utf-8", "replace").strip()
        if self.waiting is not None:
            d, self.waiting = self.waiting, None
            d.callback(text)
        elif self.player is not None:
            self.player.line(text)

    def next_line(self) -> defer.Deferred[str]:
        """The next line."""
        self.waiting = defer.Deferred()
        return self.waiting

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802
        """The terminal closed: a name still awaited is empty."""
        if self.waiting is not None:
            d, self.waiting = self.waiting, None
            d.callback("")


def write(line: str) -> None:
    """A line for the person."""
    print(line, flush=True)


async def load_bot(reactor: Any, name: str, seed: int | None) -> Any:
    """The bot plugin ``name`` for a hold'em seat (through the hub's plugin registry).

    :raises ValueError: no such bot, or it does not play hold'em.
    """
    from hub.model import GameError
    from hub.plugins.registry import Registry

    registry = Registry(None, reactor)
    await registry.load()
    try:
        factory = registry.bot_factory(name)
    except GameError as e:
        raise ValueError(str(e)) from None
    finally:
        registry.stop()
    if "texas-holdem" not in tuple(factory.games):
        raise ValueError(f"bot {name} does not play texas-holdem")
    return factory.create("texas-holdem", 0, {} if seed is None else {"bot_seed": seed})


async def list_tables(reactor: Any, hub: str) -> int:
    """Print the tables the hub at ``hub`` relays; the exit status."""
    from twisted.internet.endpoints import TCP4ClientEndpoint, connectProtocol
    from twisted.protocols.basic import Int32StringReceiver

    from hub.frontends.relay.codec import encode

    answer: defer.Deferred[bytes] = defer.Deferred()

    class Lister(Int32StringReceiver):
        def connectionMade(self) -> None:  # noqa: N802
            self.sendString(encode("list"))

        def stringReceived(self, data: bytes) -> None:  # noqa: N802
            if not answer.called:
                answer.callback(data)
            self.transport.loseConnection()  # type: ignore[union-attr]

    host, _, port = hub.rpartition(":")
    try:
        await connectProtocol(TCP4ClientEndpoint(reactor, host, int(port), timeout=10), Lister())
        tables = json.loads(await answer).get("tables", [])
    except (OSError, ValueError, error.ConnectError) as e:
        print(f"gamehub p2p: cannot list the tables of {hub}: {e}", file=sys.stderr)
        return 1
    for t in tables:
        names = ", ".join(p["name"] for p in t["peers"]) or "nobody yet"
        state = "playing" if t["game_id"] else "waiting"
        print(f"{t['table']}: {t['game']}, {len(t['peers'])}/{t['seats']} seats ({names}), {state}")
    if not tables:
        print("no tables")
    return 0


async def run(reactor: Any, args: argparse.Namespace) -> int:
    """Play one table; the exit status."""
    if args.list:
        return await list_tables(reactor, args.hub)
    from .gather import Gathering
    from .net import Mesh, PeerService, RefusedError, Relay
    from .params import Params
    from .players import BotPlayer, History, Printer, TerminalPlayer, Watchers
    from .wire import Identity

    try:
        params = Params(stakes=args.stakes, buyin=args.buyin, players=args.players,
                        hands=args.hands, action_time=args.action_time,
                        step_time=args.step_time)  # fmt: skip
    except ValueError as e:
        print(f"gamehub p2p: {e}", file=sys.stderr)
        return 2
    me = Identity.from_pem(args.key) if args.key else Identity()
    lines = Lines()
    if args.bot is None or args.name is None:
        stdio.StandardIO(lines, reactor=reactor)
    player: Any
    if args.bot:
        try:
            player = BotPlayer(reactor, await load_bot(reactor, args.bot, args.seed))
        except ValueError as e:
            print(f"gamehub p2p: {e}", file=sys.stderr)
            return 2
    else:
        player = TerminalPlayer(reactor, write)
        lines.player = player
    watchers: list[Any] = [Printer(write, quiet=args.quiet)]
    history = open(args.history, "a", encoding="utf-8") if args.history else None  # noqa: SIM115
    if history is not None:
        watchers.append(History(history))
    watcher = Watchers(*watchers)
    transport: Any
    name = args.name
    if args.hub:
        if name is None:
            write("Your name? ")
            name = (await lines.next_line()) or "player"
        transport = Relay(reactor, me, args.hub, args.table, params.players, name)
    else:
        transport = Mesh(reactor, me, args.listen, list(args.peer))
    service = PeerService(reactor, me, transport, player, watcher)
    try:
        await service.start()
    except Exception as e:  # noqa: BLE001 - any failure to listen or connect ends the peer
        print(f"gamehub p2p: cannot start: {e}", file=sys.stderr)
        return 1
    address = getattr(transport, "address", None)
    if address:
        write(f"listening on {address}")
    for peer in args.peer:
        write(f"trying to reach {peer}")
    if name is None:
        write("Your name? ")
        name = (await lines.next_line()) or "player"
    write(f"hello, {name}: waiting for {params.players - 1} other peers")
    listen = address if not args.hub else None
    service.gather(Gathering(me, name, params, listen))
    try:
        table = await service.done
    except RefusedError as e:
        print(f"gamehub p2p: the hub refused: {e}", file=sys.stderr)
        return 1
    finally:
        await service.stop()  # what this peer sent last reaches the others
        if history is not None:
            history.close()
    return 1 if table.failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``gamehub p2p``."""
    args = parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.list and not args.hub:
        print("gamehub p2p: --list wants --hub HOST:PORT", file=sys.stderr)
        return 2
    if not args.hub and not args.listen:
        print(
            "gamehub p2p: give --listen ENDPOINT (every peer of a table listens, so that "
            "each reaches each), or meet at a hub with --hub HOST:PORT",
            file=sys.stderr,
        )
        return 2

    async def go(reactor: Any) -> None:
        status = await run(reactor, args)
        if status:
            raise SystemExit(status)

    try:
        task.react(lambda reactor: defer.ensureDeferred(go(reactor)))
    except SystemExit as e:
        return int(e.code or 0)
    return 0
