"""A King Domino game that moved to another hub (its journal resumed there, issue 31):
a client that logs in again with its name is seated back, not queued; a door's
:class:`hub.frontends.domino.rejoin.Session` then gives the client not one line more or
fewer than a client of one hub gets.  Two domino front ends of hubs on ``task.Clock``
(the old owner, the new one) share a real journal (SQLite); the door is played by
the test with the session, as the splice would (replay, drop, pass on)."""

from __future__ import annotations

from typing import Any

import pytest_twisted

from hub.frontends.domino.rejoin import Session
from hub.model import OVER, GameEvent
from hub.play.resume import Journaling
from tests.frontends.test_domino_protocol import Client, Hub
from tests.journal.test_resume import written
from tests.store.conftest import make_store

NAMES = ("ann", "bob", "cy", "dee")


def command(action: dict[str, Any]) -> str:
    """A legal action of the engine as the client's line."""
    if "choose" in action:
        return f"CHOOSE {action['choose']}"
    return "MOVE " + " ".join(str(v) for v in action["move"])


class Door:
    """One client spliced through a door: what the client sees, and the session."""

    def __init__(self, hub: Hub, name: str) -> None:
        self.name = name
        self.login = f"LOGIN {name}\n".encode()
        self.session = Session(self.login)
        self.seen: list[str] = []
        self.sent = 0
        self.owner = self._connect(hub, self.login, skip=1, until=None)

    def _connect(self, hub: Hub, replay: bytes, skip: int, until: bytes | None) -> Client:
        owner = hub.client()
        owner.send(replay)
        lines = owner.lines()
        dropped, rest = lines[:skip], lines[skip:]
        if until is not None:  # up to that line, at most ``skip`` lines
            assert until.decode() in dropped, (dropped, until)
            end = dropped.index(until.decode()) + 1
            dropped, rest = dropped[:end], dropped[end:] + rest
        assert dropped[0] == "CONNECT"
        self._pass(rest)
        return owner

    def _pass(self, lines: list[str]) -> None:
        self.seen += lines
        self.session.owner(b"".join(line.encode() + b"\n" for line in lines))

    def say(self, line: str) -> None:
        self.sent += 1
        data = self.session.client(line.encode() + b"\n")
        self.owner.send(data)
        self.read()

    def read(self) -> None:
        self._pass(self.owner.lines())

    def follow(self, hub: Hub) -> None:
        """The owner closed without the session's end: on to ``hub``."""
        assert self.owner.closed and not self.session.ended
        rejoin = self.session.rejoin()
        self.owner = self._connect(hub, rejoin.data, rejoin.skip, rejoin.until)

    def lines_of_one_hub(self, game: Any) -> list[str]:
        """What a client of one hub gets in ``game`` but OK and ERROR: the lines of
        every event of its log (the resumed game's log has them all)."""
        seat = NAMES.index(self.name)
        adapter = game.factory.adapter("domino")
        out = []
        for logged in game.events_for(seat, self.name):
            event = GameEvent(logged.kind, logged.data, logged.seats)
            out += adapter.render_event(event, seat)
        return out


def to_act(game: Any) -> int:
    return next(s for s in range(4) if game.legal_actions(s))


def seated_in(hub: Hub) -> Any:
    (game,) = hub.lobby.games()
    return game


@pytest_twisted.ensureDeferred
async def test_spliced_clients_follow_the_game_and_see_the_lines_of_one_hub(tmp_path):
    store = make_store(f"sqlite:{tmp_path}/hub.sqlite")
    await store.start()
    try:
        (tmp_path / "old").mkdir()
        (tmp_path / "new").mkdir()
        old = Hub(tmp_path / "old")
        journaling = Journaling(old.lobby, store, old.clock, {})
        doors = {name: Door(old, name) for name in NAMES}
        game = seated_in(old)
        for _ in range(9):  # nine answers, then the tenth prompt is held
            seat = to_act(game)
            doors[NAMES[seat]].say(command(game.legal_actions(seat)[0]))
        for door in doors.values():
            door.read()
        holder = doors[NAMES[to_act(game)]]
        held = command(game.legal_actions(to_act(game))[0])
        assert holder.session.prompt is not None
        await written(journaling)
        journaling._seal([game])  # the hand-over: a pause entry, no input taken
        await written(journaling)
        holder.say(held)  # sent while sealed: no answer from the old owner
        assert holder.seen[-1] != "OK"
        old.lobby.remove(game.id, moved=True)  # its connections close without a word

        new = Hub(tmp_path / "new")
        assert await Journaling(new.lobby, store, new.clock, {}).resume() == [game.id]
        again = seated_in(new)
        assert sorted(again.awaiting.values()) == sorted(NAMES)
        holder.follow(new)  # first: its held command is played; the game goes on
        assert holder.seen[-1] == "OK" and not again.legal_actions(NAMES.index(holder.name))
        back = [holder.name]
        for name in [n for n in NAMES if n != holder.name] + [None]:
            for _ in range(500):  # those back play while it is their turn (bounded)
                if again.state == OVER or NAMES[to_act(again)] not in back:
                    break
                seat = to_act(again)
                doors[NAMES[seat]].say(command(again.legal_actions(seat)[0]))
            if name is not None:  # then the next comes back: it is given what it missed
                doors[name].follow(new)
                back.append(name)
                assert NAMES.index(name) not in again.awaiting
        assert again.state == OVER
        for door in doors.values():
            door.read()
            assert door.owner.closed and door.session.ended
            assert door.seen[0] == "OK"  # (the CONNECT was the door's)
            assert [x for x in door.seen if x not in ("OK", "ERROR")] == door.lines_of_one_hub(
                again
            ), door.name
            assert door.seen.count("OK") == 1 + door.sent and "ERROR" not in door.seen
    finally:
        await store.stop()


@pytest_twisted.ensureDeferred
async def test_a_client_logging_in_again_after_a_restart_is_seated_back_not_queued(tmp_path):
    """No door: the hub restarted (its game resumed from the journal) and the players
    connect again.  ``OK``, then the prompt when it is the player's turn; the others'
    moves made before it came back follow, as they would have come.  A stranger and a
    second login of a player back already wait in the queue as before."""
    store = make_store(f"sqlite:{tmp_path}/hub.sqlite")
    await store.start()
    try:
        (tmp_path / "old").mkdir()
        (tmp_path / "new").mkdir()
        old = Hub(tmp_path / "old")
        journaling = Journaling(old.lobby, store, old.clock, {})
        clients = {name: old.client(name) for name in NAMES}
        game = seated_in(old)
        for _ in range(5):
            seat = to_act(game)
            clients[NAMES[seat]].send(command(game.legal_actions(seat)[0]))
        await written(journaling)
        await journaling.seal(timeout=5)  # the hub stops: its game waits in the journal
        old.lobby.remove(game.id, moved=True)

        new = Hub(tmp_path / "new")
        assert await Journaling(new.lobby, store, new.clock, {}).resume() == [game.id]
        again = seated_in(new)
        first = NAMES[to_act(again)]
        back = new.client(first)
        assert back.lines() == [
            "CONNECT",
            "OK",
            "YOUR CHOICE"
            if "choose" in str(again.legal_actions(NAMES.index(first)))
            else "YOUR MOVE",
        ]
        assert new.factory.waiting == [] and back.proto.game is again
        back.send(command(again.legal_actions(NAMES.index(first))[0]))
        assert back.lines()[0] == "OK"
        later = NAMES[to_act(again)]
        assert later != first  # (the pick order of a round: each picks once)
        other = new.client(later)
        lines = other.lines()
        assert lines[:2] == ["CONNECT", "OK"] and lines[-1].startswith("YOUR ")
        assert any(x.startswith(f"PLAYER CHOICE {NAMES.index(first) + 1} ") for x in lines)
        stranger, twice = new.client("zed"), new.client(first)
        assert stranger.lines() == ["CONNECT", "OK"] and twice.lines() == ["CONNECT", "OK"]
        assert new.factory.waiting == [stranger.proto, twice.proto]  # queued as before
    finally:
        await store.stop()
