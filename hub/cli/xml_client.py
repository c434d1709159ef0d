"""``gamehub xml-client --hub HOST:PORT [--tls | --ca FILE]``: a small interactive client.

Type ``help`` for the commands: create an account, log in, list game types and games,
create, join, act, chat, part, log out.  State updates are printed as they arrive.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import Any

from lxml import etree
from twisted.internet import defer, stdio, task
from twisted.protocols.basic import LineReceiver

from hub.client import GameUpdate, HubClient, RequestFailed
from hub.tls import add_client_options, parse_client_args

HELP = """commands:
  create NAME PASSWORD        create a player account
  login NAME PASSWORD         log in
  types                       list the game types
  list [TYPE]                 list the games
  details GAMEID              seats and rules of a game
  find NAME                   games where players called NAME... sit
  history GAMEID | @NAME      finished games
  new TYPE NAME [SEATS]       create a game
  join GAMEID                 join a game (takes a free seat where the game does so)
  act GAMEID XML              send XML as the action payload
  chat GAMEID TEXT            chat at a game
  part GAMEID                 leave a game
  logout                      log out
  quit                        leave"""


def _parse_hub(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError("--hub is HOST:PORT")
    return host, int(port)


class Console(LineReceiver):
    """Reads commands from standard input, prints answers and updates."""

    delimiter = b"\n"

    def __init__(self, client: HubClient, out: Any, done: defer.Deferred) -> None:
        self.client = client
        self.out = out
        self.done = done
        self._last: defer.Deferred = defer.succeed(None)
        client.on_state = self._state
        client.on_chat = self._chat
        client.on_lobby = lambda change, gameid, row: self.say(f"[lobby] game {gameid} {change}")
        client.on_notice = lambda text: self.say(f"[hub] {text}")
        client.on_close = lambda reason: self._finish()

    def say(self, text: str) -> None:
        """Print one line."""
        self.out.write(text + "\n")
        self.out.flush()

    def _state(self, update: GameUpdate) -> None:
        if update.payload is None:
            self.say(f"[game {update.gameid}] {update.description}")
            return
        payload = etree.tostring(update.payload, encoding="unicode")
        self.say(f"[game {update.gameid}] {payload}")

    def _chat(self, update: GameUpdate) -> None:
        self.say(f"[game {update.gameid}] <{update.sender}> {update.text}")

    def _finish(self) -> None:
        if not self.done.called:
            self.done.callback(0)

    def connectionMade(self) -> None:  # noqa: N802
        info = self.client.info
        server = info.find("server") if info is not None else None
        name = server.get("name") if server is not None else "hub"
        self.say(f"connected to {name}; type help")

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802
        """Standard input ended: close once the commands read so far are answered
        (``echo types | gamehub xml-client`` prints the types)."""

        def close(_: Any) -> None:
            self.client.close()
            self._finish()

        self._last.addBoth(close)

    def lineReceived(self, line: bytes) -> None:  # noqa: N802
        try:
            words = shlex.split(line.decode("utf-8", "replace"))
        except ValueError as e:
            self.say(f"? {e}")
            return
        if not words:
            return
        # One command at a time: the next is sent once the previous is answered.
        d = self._last.addCallback(lambda _: self.command(words[0].lower(), words[1:]))
        d.addCallback(lambda text: self.say(text) if text else None)
        d.addErrback(self._failed)

    def _failed(self, failure: Any) -> None:
        if failure.check(RequestFailed):
            self.say(f"refused: {failure.value.code} {failure.value.description}")
        else:
            self.say(f"error: {failure.getErrorMessage()}")

    @defer.inlineCallbacks
    def command(self, name: str, args: list[str]) -> Any:
        """Run one command; fires with the text to print."""
        c = self.client
        if name in ("help", "?"):
            return HELP
        if name == "quit":
            yield c.close()
            return ""
        if name == "create" and len(args) == 2:
            yield c.create_account(args[0], args[1])
            return f"account {args[0]} created"
        if name == "login" and len(args) == 2:
            account = yield c.login(args[0], args[1])
            return f"logged in as {account['name']}, balance {account['balance']}"
        if name == "logout":
            yield c.logout()
            return "logged out"
        if name == "types":
            types = yield c.available_games()
            return "\n".join(
                f"{t['type']}: {t.get('summary', '')} (client module {t['clientgame']})"
                for t in types
            )
        if name == "list":
            games = yield c.game_list(args[0] if args else None)
            return (
                "\n".join(
                    f"{g['gameid']}  {g['name']}  {g['gametype']}  {len(g['players'])}/"
                    f"{g['maxplayers']}  {g['state']}  {', '.join(g['players'])}"
                    for g in games
                )
                or "no games"
            )
        if name == "details" and len(args) == 1:
            details = yield c.game_details(int(args[0]))
            seats = [
                f"seat {p['seat']}: {p['name'] or '-'} ({p['kind']})" for p in details["players"]
            ]
            return "\n".join(seats + details["rules"])
        if name == "find" and len(args) == 1:
            found = yield c.find_player(args[0])
            return "\n".join(f"{f['player']} at seat {f['seat']} of {f['gameid']} {f['name']}" for f in found) or "nobody"  # fmt: skip
        if name == "history" and len(args) == 1:
            if args[0].startswith("@"):
                entries = yield c.history(accountname=args[0][1:])
            else:
                entries = yield c.history(gameid=int(args[0]))
            return "\n".join(f"{e.get('time', '')} {e.get('name')}: {e.get('summary')}" for e in entries) or "none"  # fmt: skip
        if name == "new" and len(args) in (2, 3):
            count = int(args[2]) if len(args) == 3 else None
            gameid = yield c.create_game(args[0], args[1], seats=count)
            return f"game {gameid} created"
        if name == "join" and len(args) == 1:
            answer = yield c.join(int(args[0]))
            return f"joined: {answer.description}"
        if name == "act" and len(args) >= 2:
            yield c.act(int(args[0]), " ".join(args[1:]))
            return "ok"
        if name == "chat" and len(args) >= 2:
            yield c.chat(int(args[0]), " ".join(args[1:]))
            return ""
        if name == "part" and len(args) == 1:
            yield c.part(int(args[0]))
            return "left"
        return f"? {name}: type help"


def main(argv: Sequence[str]) -> int:
    """Entry point of ``gamehub xml-client``: 0 once the session ends, 1 when the
    connection (or its certificate) is refused, as the bots and ``fetch`` do."""
    parser = argparse.ArgumentParser(prog="gamehub xml-client", description=__doc__)
    parser.add_argument("--hub", type=_parse_hub, default=("127.0.0.1", 4000), help="HOST:PORT")
    add_client_options(parser)
    args = parse_client_args(parser, list(argv))
    host, port = args.hub
    tls = args.tls_client

    @defer.inlineCallbacks
    def run(reactor: Any) -> Any:
        try:
            client = yield HubClient.connect(reactor, host, port, tls=tls)
        except Exception as e:
            print(f"gamehub xml-client: cannot connect to {host}:{port}: {e}", file=sys.stderr)
            raise SystemExit(1) from None  # task.react exits with the status of this
        done: defer.Deferred = defer.Deferred()
        stdio.StandardIO(Console(client, sys.stdout, done))
        result = yield done
        return result

    try:
        task.react(lambda reactor: run(reactor))
    except SystemExit as e:
        return int(e.code or 0)
    return 0
