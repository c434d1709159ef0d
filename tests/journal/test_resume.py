"""Games journaled in a real store (SQLite and PostgreSQL) and made again from it:
the same game, the same moves after, bots re-attached, the journal bounded and dropped
at the end."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest_twisted
from twisted.internet.task import Clock

from bots.hello import HelloBotFactory
from bots.kingdomino import RandomBotFactory
from bots.morris import RandomMorrisBotFactory
from games.hello.server import HelloGameFactory
from games.kingdomino.server import KingDominoGameFactory
from games.morris.server import MorrisGameFactory
from hub.model import OVER, GameError
from hub.play.game import GameInstance
from hub.play.lobby import Lobby
from hub.play.resume import Journaling
from tests.store.conftest import dsn, make_store  # noqa: F401  (the fixture)
from tests.support import DictRegistry


def make_lobby(clock: Clock, seed: int = 5) -> Lobby:
    registry = DictRegistry(
        games=[HelloGameFactory(), MorrisGameFactory(), KingDominoGameFactory()],
        bots=[HelloBotFactory(), RandomBotFactory(), RandomMorrisBotFactory()],
    )
    return Lobby(registry, clock, rng=random.Random(seed))


async def written(journaling: Journaling) -> None:
    """Everything waiting is in the store (the writer's turn is the test clock's)."""
    writer = journaling.writer
    for _ in range(20):
        await writer.flush()
        if not (writer._entries or writer._headers or writer._drops):
            return
    raise AssertionError("the journal was not written")


@asynccontextmanager
async def journaled(
    url: str, **options: Any
) -> AsyncIterator[tuple[Any, Clock, Lobby, Journaling]]:
    """A started store on ``url``, and a lobby on a test clock journaling into it."""
    store = make_store(url)
    await store.start()
    try:
        clock = Clock()
        lobby = make_lobby(clock)
        yield store, clock, lobby, Journaling(lobby, store, clock, options)
    finally:
        await store.stop()


def still(view: Any) -> Any:
    """A view without the time left (the resumed game's clock stood still)."""
    if isinstance(view, dict):
        return {k: still(v) for k, v in view.items() if k not in ("timeleft_ms",)}
    if isinstance(view, list):
        return [still(v) for v in view]
    return view


def views(game: GameInstance) -> list[Any]:
    return [still(game.view(seat)) for seat in [None, *range(len(game.seats))]]


def play_first_legal(game: GameInstance, moves: int) -> None:
    for _ in range(moves):
        if game.state == OVER:
            return
        seat = next(s for s in range(len(game.seats)) if game.legal_actions(s))
        game.act(seat, game.legal_actions(seat)[0])


@pytest_twisted.ensureDeferred
async def test_games_resumed_from_their_journal_are_the_same_games(dsn):  # noqa: F811
    store = make_store(dsn)
    await store.start()
    try:
        clock = Clock()
        clock.advance(1000)
        lobby = make_lobby(clock)
        journaling = Journaling(lobby, store, clock, {})
        dominoes = lobby.create_game("kingdomino", seats=["open"] + ["bot:domino-random"] * 3)
        dominoes.take_seat("dave")
        morris = lobby.create_game("nmmorris", seats=["open", "bot:morris-random"])
        people = lobby.create_game("nmmorris")
        people.take_seat("alice")
        people.take_seat("bob", kind="human")
        with_refusal = people.legal_actions(0)[0]
        morris.take_seat("carol")
        play_first_legal(people, 7)
        for _ in range(3):  # the bots answer on the clock; carol plays her turns
            clock.advance(0.01)
            if morris.legal_actions(0):
                play_first_legal(morris, 1)
            if dominoes.legal_actions(0):
                dominoes.act(0, dominoes.legal_actions(0)[0])
        assert dominoes.state != OVER and morris.state != OVER
        try:
            people.act(0, with_refusal)  # an old move: refused, so no input
        except GameError:
            pass
        await written(journaling)
        before = {g.id: views(g) for g in lobby.games()}
        left = morris.view(None)["timeleft_ms"]

        later = Clock()
        later.advance(50_000)  # the hub was away
        lobby2 = make_lobby(later, seed=99)
        journaling2 = Journaling(lobby2, store, later, {})
        resumed = await journaling2.resume()
        assert sorted(resumed) == sorted(before)
        after = {g.id: views(g) for g in lobby2.games()}
        assert after == before
        again = lobby2.get(morris.id)
        # the clock stood still while no hub ran the game: no time was lost
        assert left is None or again.view(None)["timeleft_ms"] >= left
        # the same moves after, on both; the people come back to their seats first
        twin = lobby2.get(people.id)
        assert twin.awaiting == {0: "alice", 1: "bob"} and twin.seat_of("alice") is None
        # a login finds the game keeping its seat by the player's name alone
        assert lobby2.kept_for("alice") == [twin] and lobby2.kept_for("bob") == [twin]
        assert lobby2.kept_for("dave") == [lobby2.get(dominoes.id)]
        assert lobby2.kept_for("mallory") == [] and lobby.kept_for("alice") == []
        for intruder in (lambda: twin.take_seat("mallory", 0), lambda: twin.take_seat("bob", 0)):
            try:
                intruder()
                raise AssertionError("a seat waiting for its player was taken by another")
            except GameError:
                pass
        assert twin.free_seats("client", "alice") == [0] and twin.take_seat("alice") == 0
        assert lobby2.kept_for("alice") == [] and lobby2.kept_for("bob") == [twin]
        assert twin.take_seat("bob", 1, kind="human") == 1 and twin.awaiting == {}
        assert lobby2.kept_for("bob") == []
        assert twin.seat_of("alice") == 0
        for _ in range(6):
            play_first_legal(people, 1)
            play_first_legal(twin, 1)
            assert views(people) == views(twin)
        # the in-hub bots go on by themselves in the resumed games
        dominoes2 = lobby2.get(dominoes.id)
        assert dominoes2.state != OVER
        later.advance(0.01)
        assert dominoes2.legal_actions(0)  # the bots played up to dave's turn
        for _ in range(5):
            if dominoes2.legal_actions(0):
                dominoes2.act(0, dominoes2.legal_actions(0)[0])
        assert not dominoes2.legal_actions(0)  # the bots' turn now
        later.advance(0.01)  # the bots answer
        assert dominoes2.legal_actions(0) or dominoes2.state == OVER
        await written(journaling2)
        lobby2.remove(dominoes2.id)  # a game that leaves keeps no seat
        assert lobby2.kept_for("dave") == []
    finally:
        await store.stop()


@pytest_twisted.ensureDeferred
async def test_the_journal_goes_with_the_game_and_is_bounded(dsn):  # noqa: F811
    async with journaled(dsn, journal_max_entries=6) as (store, clock, lobby, journaling):
        short = lobby.create_game("nmmorris")
        short.take_seat("a")
        short.take_seat("b")
        removed = lobby.create_game("hello")
        long = lobby.create_game("nmmorris")
        long.take_seat("c")
        long.take_seat("d")
        await written(journaling)
        assert set(await store.journal_games()) == {short.id, removed.id, long.id}
        play_first_legal(long, 8)  # past the bound: not journaled any more
        assert long.id in journaling.writer.given_up
        lobby.remove(removed.id)  # removed before it ended
        short.leave_seat(0)  # the other player wins: game over
        assert short.state == OVER
        journaling.history_written(short.id)
        await written(journaling)
        assert await store.journal_games() == {}
        read = await store.journal_read()
        assert read == []


@pytest_twisted.ensureDeferred
async def test_a_refused_input_is_not_journaled_and_a_sealed_game_waits(dsn):  # noqa: F811
    async with journaled(dsn) as (store, clock, lobby, journaling):
        game = lobby.create_game("nmmorris")
        game.take_seat("a")
        try:
            game.take_seat("a")
        except GameError:
            pass
        game.take_seat("b")
        try:
            game.act(1, game.legal_actions(0)[0])  # not b's turn
        except GameError:
            pass
        game.act(0, game.legal_actions(0)[0])
        await journaling.seal()
        game.leave_seat(1)  # the hub stops: its connections go, the game waits
        lobby.stop()
        await written(journaling)
        (journal,) = await store.journal_read()
        assert [e.kind for e in journal.entries] == ["seat", "seat", "act", "pause"]
        assert journal.header.type == "nmmorris" and len(journal.header.seed) == 64
        assert journal.header.data["seats"] == ["open", "open"]


@pytest_twisted.ensureDeferred
async def test_a_player_back_at_a_retired_resumed_game_hears_its_end(dsn):  # noqa: F811
    """What a seat missed of a game resumed here (a Domino client back at it) is every
    event since it went live; once the game is retired (``retire_after``), only its end:
    the log went with the engine."""
    async with journaled(dsn) as (store, clock, lobby, journaling):
        game = lobby.create_game("nmmorris")
        game.take_seat("ann")
        game.take_seat("bob")
        play_first_legal(game, 3)
        await written(journaling)
        later = Clock()
        later.advance(50_000)
        lobby2 = make_lobby(later)
        lobby2.retire_after = 5
        await Journaling(lobby2, store, later, {}).resume()
        twin = lobby2.get(game.id)
        assert twin.take_seat("ann") == 0 and twin.take_seat("bob") == 1
        play_first_legal(twin, 2)
        twin.leave_seat(1)  # ann wins
        assert twin.state == OVER
        assert len(twin.missed(0, "ann")) > 2  # the turn it went live with, moves, the end
        later.advance(5)
        assert twin.retired
        ends = twin.missed(0, "ann")
        assert [e.kind for e in ends] == ["over"] and ends[0].data["result"] == twin.result()
        assert [e.kind for e in twin.events_for(1, "bob")] == ["over"]
