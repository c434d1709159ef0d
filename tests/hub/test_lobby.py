"""The lobby core, driven by task.Clock: no sockets."""

from __future__ import annotations

import random

import pytest
from twisted.internet.task import Clock

from bots.hello import HelloBotFactory
from games.hello.server import HelloGameFactory
from hub.connections.transcript import Transcripts
from hub.model import BadAction, Conflict, GameError, IllegalAction, NotFound
from hub.play.lobby import Lobby
from tests.support import DictRegistry, Recorder


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def lobby(clock, tmp_path):
    registry = DictRegistry(games=[HelloGameFactory()], bots=[HelloBotFactory()])
    return Lobby(
        registry,
        clock,
        transcripts=Transcripts(tmp_path, clock),
        rng=random.Random(7),
        keep_finished=60,
    )


def test_create_game_defaults(lobby):
    game = lobby.create_game("hello")
    assert len(game.id) == 13 and game.id.isalnum() and game.id.islower()
    assert [s.kind for s in game.seats] == ["open", "open"]
    assert game.state == "waiting"
    assert lobby.games() == [game]
    assert lobby.get(game.id) is game
    data = game.to_json()
    assert data["type"] == "hello" and data["frontend"] == "xml"
    assert data["seats"][0] == {"seat": 0, "player": None, "kind": "open", "present": True}


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"type_name": "chess"}, NotFound, "chess"),
        ({"type_name": "hello", "seats": []}, BadAction, "1 to 8 seats"),
        ({"type_name": "hello", "seats": ["open"] * 9}, BadAction, "1 to 8 seats"),
        ({"type_name": "hello", "seats": ["sofa"]}, BadAction, "not a seat"),
        ({"type_name": "hello", "seats": [3]}, BadAction, "expected a string"),
        ({"type_name": "hello", "seats": ["bot:nobody"]}, NotFound, "nobody"),
        ({"type_name": "hello", "variant": "turbo"}, BadAction, "no variant"),
        ({"type_name": "hello", "name": "x" * 65}, BadAction, "name"),
        ({"type_name": "hello", "name": "a\nb"}, BadAction, "name"),
        ({"type_name": "hello", "options": [1]}, BadAction, "options"),
    ],
)
def test_create_game_refuses_bad_requests(lobby, kwargs, error, words):
    with pytest.raises(error) as info:
        lobby.create_game(**kwargs)
    assert words in info.value.reason
    assert lobby.games() == []


def test_play_to_the_end_with_observers(lobby, clock):
    listener = Recorder()
    lobby.add_listener(listener)
    game = lobby.create_game("hello", seats=["open", "open"])
    spectator, alice_view = Recorder(), Recorder()
    game.observe(spectator)
    assert game.take_seat("alice") == 0
    game.observe(alice_view, seat=0)
    assert game.take_seat("bob") == 1
    assert game.state == "running"
    with pytest.raises(Conflict):
        game.take_seat("carol")
    game.act(0, {"hello": "hi all"})
    with pytest.raises(IllegalAction, match="already"):
        game.act(0, {"hello": "again"})
    with pytest.raises(BadAction):
        game.act(1, {"bye": "x"})
    game.act(1, {"hello": "hey"})
    assert game.state == "over"
    lines = [e.data["line"] for e in spectator.events if e.kind == "hello"]
    assert lines == ["Hello from alice: hi all", "Hello from bob: hey"]
    assert "over" in spectator.kinds() and "over" in alice_view.kinds()
    assert game.result()["winners"] == [0, 1]
    assert ("created", game.id) in listener.changes
    # a finished game stays listed for keep_finished seconds, then goes
    clock.advance(59)
    assert lobby.games() == [game]
    clock.advance(2)
    assert lobby.games() == []
    assert ("removed", game.id) in listener.changes


def test_private_events_reach_only_their_seat(lobby):
    from hub.model import GameEvent

    game = lobby.create_game("hello")
    seat0, seat1, spectator = Recorder(), Recorder(), Recorder()
    game.observe(seat0, seat=0)
    game.observe(seat1, seat=1)
    game.observe(spectator)
    game._emit(GameEvent("secret", {"cards": [1, 2]}, seats=frozenset({0})))
    assert seat0.kinds() == ["secret"]
    assert seat1.kinds() == [] and spectator.kinds() == []


def test_bot_seat_plays_on_its_turn(lobby, clock):
    game = lobby.create_game("hello", seats=["bot:hello-bot", "open"])
    assert game.seats[0].player == "hello-bot" and game.seats[0].kind == "bot"
    watcher = Recorder()
    game.observe(watcher)
    game.take_seat("alice")
    assert "hello" not in watcher.kinds()  # the bot thinks on the next tick, not inside
    clock.advance(0)
    said = [e.data["line"] for e in watcher.events if e.kind == "hello"]
    assert said == ["Hello from hello-bot: Hello, I am a bot at seat 0"]
    game.act(1, {"hello": "hello bot"})
    assert game.state == "over"


def test_two_bots_get_distinct_names(lobby, clock):
    game = lobby.create_game("hello", seats=["bot:hello-bot", "bot:hello-bot"])
    assert [s.player for s in game.seats] == ["hello-bot", "hello-bot-2"]
    clock.advance(0)
    assert game.state == "over"


def test_human_seats_are_reserved_for_web_players(lobby):
    game = lobby.create_game("hello", seats=["human", "open"])
    assert game.take_seat("netclient") == 1
    assert game.take_seat("webber", kind="human") == 0
    game2 = lobby.create_game("hello", seats=["human"])
    with pytest.raises(Conflict):
        game2.take_seat("netclient")


def test_take_specific_seat_and_errors(lobby):
    game = lobby.create_game("hello", seats=["open", "open", "open"])
    assert game.take_seat("alice", seat=2) == 2
    with pytest.raises(Conflict):
        game.take_seat("bob", seat=2)
    with pytest.raises(NotFound):
        game.take_seat("bob", seat=7)
    with pytest.raises(Conflict, match="already sits"):
        game.take_seat("alice")
    with pytest.raises(GameError):
        game.take_seat("", seat=0)
    assert game.seats[0].free and game.seats[1].free


def test_leaving_ends_a_game_nobody_can_finish(lobby):
    game = lobby.create_game("hello", seats=["open", "open"])
    game.take_seat("alice")
    game.take_seat("bob")
    game.act(0, {"hello": "hi"})
    game.leave_seat(1)
    assert game.state == "over"
    assert game.result()["winners"] == [0]
    assert game.seats[1].present is False


def test_transcript_records_game_life(lobby, tmp_path):
    game = lobby.create_game("hello", seats=["open"])
    game.transcript.record("c1", "in", "evil\nline\x1b[2J")
    game.take_seat("alice")
    text = lobby.transcripts.read(game.id)
    assert "game created: type=hello" in text
    assert "evil\\nline\\x1b[2J" in text
    assert "seat 0 taken by alice" in text
    assert all(line[:4].isdigit() for line in text.splitlines())


def test_remove_stops_and_notifies(lobby):
    listener = Recorder()
    lobby.add_listener(listener)
    game = lobby.create_game("hello")
    lobby.remove(game.id)
    with pytest.raises(NotFound):
        lobby.get(game.id)
    assert listener.changes[-1] == ("removed", game.id)
    lobby.remove(game.id)  # a second removal is harmless


def test_game_over_hooks_run_once(lobby):
    seen = []
    lobby.on_game_over(lambda game, event: seen.append(game.id))
    game = lobby.create_game("hello", seats=["open"])
    game.take_seat("alice")
    game.act(0, {"hello": "bye"})
    assert seen == [game.id]


def test_failing_observer_does_not_stop_the_game(lobby):
    class Broken:
        def game_event(self, game, event):
            raise RuntimeError("observer bug")

    game = lobby.create_game("hello", seats=["open"])
    good = Recorder()
    game.observe(Broken())
    game.observe(good)
    game.take_seat("alice")
    game.act(0, {"hello": "still here"})
    assert game.state == "over" and "over" in good.kinds()


def test_leaving_before_the_start_frees_the_seat(lobby):
    listener = Recorder()
    lobby.add_listener(listener)
    game = lobby.create_game("hello", seats=["open", "human"])
    assert game.take_seat("alice") == 0
    game.leave_seat(0)
    assert game.seats[0].free and game.seats[0].kind == "open" and game.seats[0].present
    assert ("changed", game.id) in listener.changes
    assert game.take_seat("bob") == 0
    assert game.take_seat("webber", kind="human") == 1
    assert game.state == "running"
    game.leave_seat(0)  # after the start a seat is not given back
    assert not game.seats[0].free and not game.seats[0].present


def test_seat_open_event_resets_the_seat_record(lobby):
    from hub.model import SEAT_OPEN, GameEvent

    game = lobby.create_game("hello", seats=["human", "open"])
    game.take_seat("webber", kind="human")
    game._emit(GameEvent(SEAT_OPEN, {"seat": 0}))
    assert game.seats[0].kind == "human" and game.seats[0].free
    game._emit(GameEvent(SEAT_OPEN, {"seat": 99}))  # out of range: ignored
    game._emit(GameEvent(SEAT_OPEN, {"seat": "0"}))  # not a seat number: ignored


def test_a_reopened_seat_forgets_the_bot_given_to_it(lobby, clock):
    from hub.model import SEAT_OPEN, GameEvent

    game = lobby.create_game("hello", seats=["open", "open"])
    game.seat_bot(0, "hello-bot")
    game.take_seat("alice")  # the game starts: the bot is asked to play on the next tick
    assert game.state == "running"
    game._emit(GameEvent(SEAT_OPEN, {"seat": 0}))
    assert game.seats[0].free and game.seats[0].kind == "open" and game.seats[0].bot is None
    clock.advance(0)
    assert game.view(None)["lines"] == []  # the old bot did not speak for the seat


def _finish(lobby, name="alice"):
    game = lobby.create_game("hello", seats=["open"])
    game.take_seat(name)
    game.act(0, {"hello": "bye"})
    assert game.state == "over"
    return game


def test_finished_games_are_bounded_by_count_oldest_first(clock, tmp_path):
    registry = DictRegistry(games=[HelloGameFactory()])
    lobby = Lobby(registry, clock, transcripts=Transcripts(tmp_path, clock), keep_finished_count=3)
    running = lobby.create_game("hello", seats=["open"])
    games = [_finish(lobby) for _ in range(10)]
    clock.advance(0)
    assert lobby.games() == [running, *games[-3:]]
    assert lobby.finished_count == 3
    assert lobby.transcripts.live_count == 1  # only the running game's


def test_finished_games_go_after_keep_finished_seconds(clock, tmp_path):
    registry = DictRegistry(games=[HelloGameFactory()])
    lobby = Lobby(registry, clock, keep_finished=60, retire_after=5)
    game = _finish(lobby)
    clock.advance(59)
    assert lobby.games() == [game]
    clock.advance(1)
    assert lobby.games() == [] and lobby.finished_count == 0
    assert clock.getDelayedCalls() == []


def test_a_retired_game_keeps_only_a_summary(clock, tmp_path):
    registry = DictRegistry(games=[HelloGameFactory()])
    lobby = Lobby(registry, clock, transcripts=Transcripts(tmp_path, clock), retire_after=5)
    game = _finish(lobby)
    view, result, listed = game.view(None), game.result(), game.to_json(detail=True)
    assert game.events_for(None) and game.replay()["events"]
    clock.advance(5)
    assert game.retired
    # the event log goes with the engine but its end: a finished game's record is bounded
    assert [e.kind for e in game.events_for(None)] == ["over"]
    assert [e.kind for e in game.events_for(0, "alice")] == ["over"]
    assert game.events_for(None)[0].data["result"] == result
    assert game.replay() is None and game.current_turn() is None
    assert game.view(None) == view and game.result() == result
    assert game.to_json(detail=True) == listed
    assert game.legal_actions(0) == []
    with pytest.raises(GameError) as refused:
        game.act(0, {"hello": "again"})
    assert refused.value.code == 422
    game.transcript.record("x1", "in", "a late frame")
    lobby.transcripts.flush()
    clock.advance(2)
    assert "a late frame" in lobby.transcripts.read(game.id)


def test_the_event_log_keeps_private_events_for_whoever_sat_there_then(lobby):
    from hub.model import GameEvent

    game = lobby.create_game("hello", seats=["open", "open"])
    game.take_seat("ann", 0)
    game._emit(GameEvent("secret", {"card": 7}, frozenset({0})))
    game.leave_seat(0)
    game.seats[0].reopen()
    game.seats[0].player = "bob"  # somebody else at seat 0 later
    kinds = [e.kind for e in game.events_for(0, "ann")]
    assert "secret" in kinds and "seated" in kinds
    assert "secret" not in [e.kind for e in game.events_for(0, "bob")]
    assert "secret" not in [e.kind for e in game.events_for(None)]
    replay = game.replay()
    assert "secret" not in [e["kind"] for e in replay["events"]]
    assert replay["complete"] and replay["start"]["seats"][0]["name"] is None


def test_the_event_log_is_bounded(clock):
    registry = DictRegistry(games=[HelloGameFactory()])
    lobby = Lobby(registry, clock, event_log=3)
    game = lobby.create_game("hello", seats=["open", "open"])
    game.take_seat("ann", 0)
    game.take_seat("bob", 1)
    assert len(game.events_for(None)) == 3 and game.log_dropped > 0
    assert game.replay()["complete"] is False


def test_the_turn_has_a_deadline_on_the_clock_until_the_seat_has_decided(clock):
    from games.morris.server import MorrisGameFactory

    lobby = Lobby(DictRegistry(games=[MorrisGameFactory()]), clock)
    game = lobby.create_game("nmmorris", options={"move_time_ms": 10_000})
    assert game.current_turn() is None
    game.take_seat("ann", 0)
    game.take_seat("bob", 1)
    turn = game.current_turn()
    assert turn["seat"] == 0 and turn["timeleft_ms"] == 10_000 and "legal" not in turn
    deadline = turn["deadline"]
    clock.advance(4)
    turn = game.current_turn()
    assert turn["timeleft_ms"] == 6000 and turn["deadline"] == deadline  # it does not move
    game.act(0, {"move": "A0"})
    turn = game.current_turn()
    assert turn["seat"] == 1 and turn["timeleft_ms"] == 10_000
    game.leave_seat(1)  # a forfeit: over, nobody to act
    assert game.current_turn() is None


def test_watchers_are_the_named_observers_without_a_seat(lobby):
    game = lobby.create_game("hello", seats=["open", "open"])

    class Watcher:
        def __init__(self, viewer):
            self.viewer = viewer

        def game_event(self, game, event):
            pass

    ann, anonymous, bob = Watcher("ann"), Watcher(None), Watcher("bob")
    game.observe(ann)
    game.observe(anonymous)
    game.observe(bob, 1)  # a player, not a watcher
    assert game.watchers() == ["ann"] and game.observer_count == 3
    assert game.to_json()["watchers"] == ["ann"]


def test_creation_may_hold_the_bots_until_the_creator_sits(lobby):
    game = lobby.create_game("hello", seats=["human", "bot:hello-bot"], seat_bots=False)
    assert game.seats[1].player is None and game.state == "waiting"
    game.take_seat("ann", 0, kind="human")
    assert game.state == "waiting"
    game.seat_bots()
    game.seat_bots()  # once only
    assert game.seats[1].player == "hello-bot" and game.state == "running"


def test_a_private_turn_is_logged_for_its_seat_but_is_nobody_elses_current_turn(lobby):
    from hub.model import GameEvent

    game = lobby.create_game("hello", seats=["open", "open"])
    game.take_seat("ann", 0)
    game.take_seat("bob", 1)
    public = game.current_turn()
    game._emit(GameEvent("turn", {"seat": 0, "secret": "pick a card", "timeleft_ms": 9}, {0}))
    assert game.current_turn() == public  # what every viewer gets did not change
    assert "secret" not in str(game.turn_clock())
    assert [e.data.get("secret") for e in game.events_for(0, "ann") if e.seats] == ["pick a card"]
    assert all(e.seats is None for e in game.events_for(None))
