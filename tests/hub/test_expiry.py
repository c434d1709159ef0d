"""Waiting games nobody joins expire (``keep_waiting``, :mod:`hub.play.expiry`): a real lobby
on a task.Clock."""

from __future__ import annotations

from twisted.internet.task import Clock

from bots.hello import HelloBotFactory
from games.hello.server import HelloGameFactory
from hub.play.expiry import WaitingExpiry
from tests.support import DictRegistry, FakeHub


def make(seconds: float = 100.0):
    clock = Clock()
    hub = FakeHub(DictRegistry([HelloGameFactory()], [HelloBotFactory()]), reactor=clock)
    return clock, hub.lobby, WaitingExpiry(hub.lobby, seconds)


def test_a_waiting_game_nobody_joined_expires_after_the_setting():
    clock, lobby, expiry = make(100)
    game = lobby.create_game("hello", seats=["open", "open"])
    removed = []
    lobby.add_listener(type("L", (), {"lobby_changed": lambda s, c, g: removed.append(c)})())
    clock.advance(99)
    assert lobby.games() == [game]
    clock.advance(1)
    assert lobby.games() == [] and removed == ["removed"] and len(expiry) == 0


def test_a_join_gives_it_the_time_again_and_a_started_game_stays():
    clock, lobby, expiry = make(100)
    waiting = lobby.create_game("hello", seats=["open", "open"])
    started = lobby.create_game("hello", seats=["open", "open"])
    clock.advance(60)
    waiting.take_seat("ann", 0)  # someone joined: another 100 s from now
    started.take_seat("bob", 0)
    started.take_seat("cy", 1)
    assert started.state == "running" and len(expiry) == 1
    clock.advance(60)
    assert waiting in lobby.games()
    lobby.changed(waiting)  # a change that is no join (an observer): no more time
    clock.advance(40)
    assert waiting not in lobby.games() and started in lobby.games()


def test_games_removed_before_leave_no_timer_and_zero_keeps_them():
    clock, lobby, expiry = make(100)
    game = lobby.create_game("hello", seats=["open", "open"])
    lobby.remove(game.id)
    assert len(expiry) == 0 and clock.getDelayedCalls() == []
    clock, lobby, expiry = make(0)
    game = lobby.create_game("hello", seats=["open", "open"])
    clock.advance(10**6)
    assert lobby.games() == [game] and len(expiry) == 0


def test_games_there_before_it_started_are_timed_too():
    clock = Clock()
    hub = FakeHub(DictRegistry([HelloGameFactory()], [HelloBotFactory()]), reactor=clock)
    game = hub.lobby.create_game("hello", seats=["open", "open"])
    WaitingExpiry(hub.lobby, 5)
    clock.advance(5)
    assert game not in hub.lobby.games()
