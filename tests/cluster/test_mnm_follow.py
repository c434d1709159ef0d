"""A spliced MNM client whose game moves to another hub in the middle of a move
exchange (issue 31), over real loopback sockets in one process: three MNM front ends
of real hubs (a door, the old owner, the new owner), the door's lobby told where the
game runs (as a cluster's directory would).  The old owner holds a move sent while
the game is sealed and closes the connection when the game is handed over; the door
replays the client's open exchange to the new owner; the client sees the same lines as
a client of one hub, on its one connection.

Each wait is bounded; nothing is timed.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from twisted.internet import defer, reactor
from twisted.internet.endpoints import TCP4ClientEndpoint, connectProtocol
from twisted.internet.task import deferLater
from twisted.protocols.basic import LineReceiver

from bots.morris import RandomMorrisBotFactory
from games.morris.server import MorrisGameFactory
from hub.frontends.mnm import codec, make_factory
from hub.frontends.mnm.states import State
from hub.model import Elsewhere
from tests.support import DictRegistry, FakeHub

BOUND = 30


class Lines(LineReceiver):
    delimiter = b"\n"

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.done: defer.Deferred = defer.Deferred()

    def lineReceived(self, line: bytes) -> None:
        self.lines.append(line.decode("ascii"))

    def connectionLost(self, reason: Any = None) -> None:
        self.done.callback(None)

    def say(self, line: str) -> None:
        self.sendLine(line.encode("ascii"))


async def until(check: Any, what: str) -> None:
    for _ in range(3000):  # bounded
        if check():
            return
        await deferLater(reactor, 0.01, lambda: None)
    raise AssertionError(f"never: {what}")


def a_hub(tmp_path: Path, name: str) -> FakeHub:
    registry = DictRegistry(games=[MorrisGameFactory()], bots=[RandomMorrisBotFactory()])
    lobby = {"rng": random.Random(7), "id_length": codec.id_length("3.1")}  # the same ids
    return FakeHub(registry, reactor=reactor, data=tmp_path / name, lobby=lobby)


@pytest.mark.parametrize("when", ["before-thinking", "after-okthink", "play-held"])
@pytest_twisted.ensureDeferred
async def test_a_move_exchange_goes_on_at_the_new_hub_when_the_game_moves(tmp_path, when):
    old, new, door = a_hub(tmp_path, "old"), a_hub(tmp_path, "new"), a_hub(tmp_path, "door")
    seats = ["open", "bot:morris-random"]
    game = old.lobby.create_game("nmmorris", name="Moving", seats=seats)
    moved = new.lobby.create_game("nmmorris", name="Moving", seats=seats)  # as resumed there
    assert moved.id == game.id
    old_mnm = make_factory(old)
    ports = [reactor.listenTCP(0, f, interface="127.0.0.1") for f in (old_mnm, make_factory(new))]
    door_port = reactor.listenTCP(0, make_factory(door), interface="127.0.0.1")
    old_route, new_route = (("127.0.0.1", p.getHost().port, False) for p in ports)

    def elsewhere(game_id: str, **_: Any) -> Any:
        raise Elsewhere(f"game {game_id} runs on hub old", "old", routes={"mnm": old_route})

    asked: list[str] = []

    def follow(game_id: Any, player: Any, old_hub: str, frontend: str) -> defer.Deferred:
        asked.append(old_hub)
        return defer.succeed(("new", new_route))

    door.lobby.get = elsewhere  # type: ignore[method-assign]
    door.lobby.follow = follow
    try:
        client = Lines()
        endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", door_port.getHost().port)
        await connectProtocol(endpoint, client).addTimeout(BOUND, reactor)
        for line in ("VERSION 3.1", f"ID {game.id}", "PLAYER 0"):
            client.say(line)
        await until(lambda: "+ ENDPIECELIST" in client.lines, "the move request")
        seen = len(client.lines)
        proto = old_mnm._adopted  # the door's connection at the old owner
        assert proto is not None
        if when != "before-thinking":
            client.say("THINKING")
            await until(lambda: client.lines[-1] == "+ OKTHINK", "OKTHINK")
        game.pause("moving")  # the old owner lets the game go (a drain)
        game.funnel.seal()
        if when == "play-held":
            client.say("PLAY A0")
            await until(lambda: proto.state is State.ACTING, "the old owner holds the move")
            assert client.lines[-1] == "+ OKTHINK"  # no answer, no error
        old.lobby.remove(game.id, moved=True)  # handed over: its connections close
        if when == "before-thinking":
            client.say("THINKING")
            await until(lambda: client.lines[-1] == "+ OKTHINK", "OKTHINK from the new owner")
        if when != "play-held":
            client.say("PLAY A0")
        await until(lambda: "+ MOVEOK" in client.lines[seen:], "MOVEOK from the new owner")
        await until(lambda: client.lines[-1] == "+ ENDPIECELIST", "the next move request")
        got = client.lines[seen:]
        assert [x for x in got if x.startswith("-")] == [], got
        # the exchange as with one hub: OKTHINK (old or new owner), MOVEOK (the new),
        # then the next request once the bot moved; not a line more
        assert got[:2] == ["+ OKTHINK", "+ MOVEOK"] and got[2].startswith("+ MOVE "), got
        assert got.count("+ OKTHINK") == 1 and got.count("+ MOVEOK") == 1, got
        assert "A0" in str(moved.view(0)) and asked == ["old"]
        assert client.transport.connected  # type: ignore[union-attr]
        client.transport.loseConnection()  # type: ignore[union-attr]
        await client.done.addTimeout(BOUND, reactor)
    finally:
        for port in [*ports, door_port]:
            await port.stopListening()
        for hub in (old, new, door):
            hub.lobby.stop()
