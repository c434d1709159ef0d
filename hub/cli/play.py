"""``gamehub play --hub HOST:PORT (--game ID | --type TYPE) [--as human | --bot NAME]``:
play a kit game of a hub with no game code installed beforehand.

The game's client module is downloaded from the hub's web front end (``--web URL``;
default the hub's host on port 8080) with :func:`hub.plugins.fetch.fetch` (its size and SHA-256
against the hub's index; its signature when the hub, ``--require-signed`` or
``--config`` require signed plugins), imported from the downloaded archive under a
private name of its own (nothing installed; forgotten afterwards) and played over XML:
as a person at the terminal (the module's text view of the position and its move
parser: a move's number, its words or its JSON) or as a generic bot (``random``,
``mcts``: :mod:`hub.kit.players`).
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import os
import random
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any
from urllib.parse import urljoin

import treq
from twisted.internet import defer, stdio, task
from twisted.protocols.basic import LineReceiver

from hub import kit
from hub.client import GameUpdate, HubClient, RequestFailed
from hub.kit.players import POLICIES, choose_move
from hub.meta import parse_meta
from hub.plugins.fetch import FetchError, describe_error, fetch
from hub.plugins.packages import forget_modules, forget_zip, make_package
from hub.plugins.signing import PluginTrust
from hub.tls import ClientTLS, add_client_options, http_client, parse_client_args

from .fetch import add_signature_options, trust_of

#: the package under which downloaded client modules are imported
CLIENT_ROOT = "gamehub_play"
_counter = itertools.count(1)


class PlayError(Exception):
    """Why the game could not be played."""


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="gamehub play",
        description="Play a kit game of a hub over XML: its client module is downloaded "
        "from the hub, checked and loaded apart (nothing is installed).",
    )
    parser.add_argument("--hub", required=True, metavar="HOST:PORT", help="the XML front end")
    parser.add_argument("--web", metavar="URL", help="the hub's web URL (http://HOST:8080)")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--game", type=int, metavar="ID", help="join this game (its wire id)")
    which.add_argument("--type", metavar="TYPE", help="create a game of this type and join it")
    parser.add_argument(
        "--seat",
        action="append",
        default=[],
        metavar="SPEC",
        help="with --type: each seat of the new game (open, bot:NAME); default: all open",
    )
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--as", dest="role", choices=["human"], default="human")
    who.add_argument("--bot", metavar="NAME", help=f"play as a bot: {', '.join(POLICIES)}")
    parser.add_argument("--name", required=True, help="the account to play as")
    parser.add_argument(
        "--password", default=os.environ.get("GAMEHUB_PASSWORD"), help="($GAMEHUB_PASSWORD)"
    )
    parser.add_argument("--register", action="store_true", help="create the account first")
    parser.add_argument("--think", type=float, default=1.0, help="a bot's most seconds a move")
    add_signature_options(parser)
    add_client_options(parser)
    args = parse_client_args(parser, list(argv))
    host, _, port = args.hub.rpartition(":")
    if not host or not port.isdigit():
        parser.error("--hub is HOST:PORT")
    args.host, args.port = host, int(port)
    args.web = args.web or f"http://{host}:8080"
    if args.password is None:
        parser.error("--password (or $GAMEHUB_PASSWORD) is required")
    if args.bot is not None:
        args.bot = args.bot.removeprefix("kit-")
        if args.bot not in POLICIES:
            parser.error(f"--bot is one of {', '.join(POLICIES)}")
    try:
        args.options = dict(o.split("=", 1) for o in args.option)
        args.trust = trust_of(args)
    except ValueError as e:  # a config file or a key that cannot be used too
        parser.error(f"--option is NAME=VALUE; or {e}")
    return args


# -- the client module --------------------------------------------------------------------


async def download(
    http: Any, web: str, game_type: str, into: Path, trust: PluginTrust, err: IO[str]
) -> kit.Game[Any, Any]:
    """Fetch plugin ``game_type`` into ``into`` (checked) and load its kit game from its
    client module under a private name."""
    base = web.rstrip("/") + "/"
    response = await http.get(urljoin(base, "plugins/index.json"))
    if response.code != 200:
        raise PlayError(f"the hub's plugin index answered {response.code}")
    index = await treq.json_content(response)
    if index.get("require_signed_plugins") is True:
        trust = _as_strict_as_the_hub(index, game_type, trust)
    meta_path = await fetch(game_type, web, into, http, stream=err, trust=trust)
    return load_game(meta_path, game_type)


def _as_strict_as_the_hub(index: Any, game_type: str, trust: PluginTrust) -> PluginTrust:
    """The hub requires signed plugins: so does the client.  Keys the user named are
    the trusted ones; without any, the key the hub trusts for this plugin (its
    signature is still checked against the package and ``.meta`` downloaded)."""
    if trust.keys:
        return PluginTrust.of(True, trust.keys)
    entries = [p for p in index.get("plugins", ()) if isinstance(p, dict)]
    signer = next((p.get("signer") for p in entries if p.get("name") == game_type), None)
    if not isinstance(signer, dict) or signer.get("trusted") is not True:
        raise PlayError(
            f"the hub requires signed plugins and {game_type} is not signed by a key it trusts"
        )
    return PluginTrust.of(True, [str(signer.get("key"))])


def load_game(meta_path: Path, game_type: str) -> kit.Game[Any, Any]:
    """The kit game of the client module of the plugin whose ``.meta`` is ``meta_path``
    (its package beside ``meta/``), imported under a private package name."""
    meta = parse_meta(meta_path)
    if not meta.client or meta.package is None:
        raise PlayError(f"{game_type} has no client module to download")
    package = meta_path.parent.parent / meta.package
    root = package if package.is_file() else package.parent  # an archive holds the folder
    prefix = f"{CLIENT_ROOT}.p{next(_counter)}_{game_type.replace('-', '_')}"
    make_package(CLIENT_ROOT, [])
    make_package(prefix, [str(root)])
    forget_zip(str(root))
    importlib.invalidate_caches()
    try:
        module = importlib.import_module(f"{prefix}.{meta.client}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, kit.Game) and value.name == game_type:
                game: kit.Game[Any, Any] = value()
                return game
    except Exception as e:
        raise PlayError(f"the client module of {game_type} failed: {describe_error(e)}") from e
    finally:
        forget_modules(prefix)  # imported, then forgotten: nothing stays installed
    raise PlayError(f"the client module of {game_type} has no kit game (hub.kit.Game)")


# -- playing ------------------------------------------------------------------------------


class Lines(LineReceiver):
    """Standard input, one line at a time (``None`` at its end)."""

    delimiter = b"\n"

    def __init__(self) -> None:
        self.queue: defer.DeferredQueue[str | None] = defer.DeferredQueue(backlog=1)
        self._buffered: list[str | None] = []

    def lineReceived(self, line: bytes) -> None:  # noqa: N802
        self._feed(line.decode("utf-8", "replace").strip())

    def connectionLost(self, reason: object = None) -> None:  # noqa: N802
        self._feed(None)

    def _feed(self, line: str | None) -> None:
        self._buffered.append(line)
        while self._buffered and self.queue.waiting:
            self.queue.put(self._buffered.pop(0))

    def get(self) -> defer.Deferred[str | None]:
        if self._buffered:
            return defer.succeed(self._buffered.pop(0))
        return self.queue.get()


def payload(update: GameUpdate) -> tuple[str, Any]:
    """``(kind, data)`` of a kit game's XML payload: an event's kind, or ``view``."""
    node = update.payload
    kind = node.get("kind") if node.tag == "event" else node.tag
    return kind, json.loads(node.text or "null")


class Player:
    """Chooses this seat's moves: a person at the terminal or a bot."""

    def __init__(self, engine: kit.Game[Any, Any], args: argparse.Namespace, out: IO[str]):
        self.engine = engine
        self.bot: str | None = args.bot
        self.think = args.think
        self.out = out
        self.lines: Lines | None = None
        self.rng = random.Random()

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def _state(self, view: Mapping[str, Any], seat: int) -> object | None:
        try:
            return self.engine.restore(view.get("game"), seat)
        except (kit.KitError, NotImplementedError, TypeError, KeyError):
            return None

    def show(self, view: Mapping[str, Any], seat: int | None) -> None:
        """The position in the module's words."""
        state = self._state(view, seat if seat is not None else 0)
        self.say(self.engine.text(state, seat) if state is not None else str(view.get("text")))

    async def move(self, view: Mapping[str, Any], legal: list[Mapping[str, Any]], seat: int) -> Any:
        """This seat's move (as JSON) in ``view``."""
        if self.bot is not None:
            seconds = min(self.think, float(view.get("timeleft_ms") or 2000) / 1000 / 2)
            return choose_move(self.engine, self.bot, view, legal, seat, self.rng, seconds)
        self.show(view, seat)
        for i, action in enumerate(legal, 1):
            self.say(f"  {i}. {action.get('label')}")
        state = self._state(view, seat)
        moves = self.engine.legal(state, seat) if state is not None else []
        wire = [kit.jsonable(a.get("move")) for a in legal]
        while True:
            self.say("your move:")
            assert self.lines is not None
            line = await self.lines.get()
            if line is None:
                raise PlayError("standard input ended before the game did")
            if not line:
                continue
            try:
                if moves:
                    chosen = kit.jsonable(self.engine.parse(line, moves))
                else:  # the state could not be rebuilt: the words the hub sent
                    labels = [str(a.get("label", "")).lower() for a in legal]
                    if line.isdigit() and 1 <= int(line) <= len(legal):
                        chosen = wire[int(line) - 1]
                    elif line.lower() in labels:
                        chosen = wire[labels.index(line.lower())]
                    else:
                        raise kit.KitError(f"{line!r} is not one of the legal moves")
            except kit.KitError as e:
                self.say(e.reason)
                continue
            if chosen in wire:
                return chosen
            self.say(f"{line!r} is not one of the legal moves")


async def play(reactor: Any, args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """Connect, download the game's client module, play one game; the exit status."""
    client = await HubClient.connect(reactor, args.host, args.port, tls=args.tls_client)
    updates: defer.DeferredQueue[GameUpdate | None] = defer.DeferredQueue()
    client.on_state = updates.put
    client.on_close = lambda reason: updates.put(None)
    try:
        if args.register:
            try:
                await client.create_account(args.name, args.password)
            except RequestFailed as e:
                if e.code != 409:
                    raise
        await client.login(args.name, args.password)
        if args.game is not None:
            rows = {r["gameid"]: r for r in await client.game_list()}
            if args.game not in rows:
                raise PlayError(f"the hub has no game {args.game}")
            gameid, game_type = args.game, rows[args.game]["gametype"]
        else:
            gameid, game_type = None, args.type
        with tempfile.TemporaryDirectory(prefix="gamehub-play-") as tmp:
            http = http_client(reactor, ClientTLS(args.ca) if args.ca else None)
            engine = await download(http, args.web, game_type, Path(tmp), args.trust, err)
        if gameid is None:  # made once the game can be played here
            name = f"{args.name} plays {game_type}"
            seats = args.seat or None
            gameid = await client.create_game(game_type, name, seats=seats, options=args.options)
        player = Player(engine, args, out)
        if args.bot is None:
            player.lines = Lines()
            stdio.StandardIO(player.lines, reactor=reactor)
        await client.join(gameid)
        player.say(f"playing {game_type} game {gameid} as {args.name}")
        return await _loop(client, gameid, updates, player, args.name)
    finally:
        await client.close()


async def _loop(
    client: HubClient,
    gameid: int,
    updates: defer.DeferredQueue[GameUpdate | None],
    player: Player,
    name: str,
) -> int:
    seat: int | None = None
    legal: list[Mapping[str, Any]] | None = None
    while True:
        update = await updates.get()
        if update is None:
            raise PlayError("the hub closed the connection")
        if update.gameid != gameid or update.payload is None:
            continue
        if not update.success:
            raise PlayError(update.description or "the hub ended the game session")
        kind, data = payload(update)
        if kind == "seated" and data.get("name") == name:
            seat = int(data["seat"])
        elif kind == "moved" and player.bot is None:
            player.say(f"seat {data.get('seat')}: {data.get('label')}")
        elif kind == "turn" and data.get("seat") == seat:
            legal = list(data.get("legal") or ())
        elif kind in ("over", "view") and (data.get("result") or {}).get("summary"):
            if kind == "view" and player.bot is None:
                player.show(data, seat)
            player.say(f"game over: {data['result']['summary']}")
            return 0
        elif kind == "view" and seat is not None and seat in (data.get("to_move") or ()):
            if legal:
                chosen, legal = legal, None
                move = await player.move(data, chosen, seat)
                try:
                    await client.act(gameid, f"<action>{json.dumps({'move': move})}</action>")
                except RequestFailed as e:
                    player.say(f"refused: {e}")


def main(argv: Sequence[str]) -> int:
    """Entry point of ``gamehub play``: 0 once the game is over, 1 if it could not be
    played."""
    args = parse_args(argv)
    outcome: dict[str, Any] = {}

    async def run(reactor: Any) -> None:
        try:
            outcome["status"] = await play(reactor, args, sys.stdout, sys.stderr)
        except (PlayError, FetchError) as e:
            outcome["error"] = str(e)
        except RequestFailed as e:
            outcome["error"] = f"the hub refused: {e}"
        except Exception as e:  # connection refused, a certificate that fails...
            outcome["error"] = describe_error(e)

    try:
        task.react(lambda reactor: defer.ensureDeferred(run(reactor)))
    except SystemExit:
        pass
    if "error" in outcome:
        print(f"gamehub play: {outcome['error']}", file=sys.stderr)
        return 1
    return int(outcome.get("status", 1))
