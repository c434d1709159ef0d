"""The hub's chat service: one set of limits for every front end."""

from __future__ import annotations

import pytest
from twisted.internet.task import Clock

from games.hello.server import HelloGameFactory
from hub.connections.chat import LOBBY, MAX_CHAT, ChatService
from hub.model import GameError
from hub.play.lobby import Lobby
from tests.support import DictRegistry


class Ear:
    def __init__(self) -> None:
        self.heard = []

    def chat_line(self, line) -> None:
        self.heard.append(line)


def test_lines_reach_every_listener_and_are_kept_per_room():
    clock = Clock()
    chat = ChatService(clock, history=3)
    ear = Ear()
    chat.add_listener(ear)
    for n in range(5):
        chat.say(LOBBY, "ann", f"line {n}")
    chat.say("g1", "bob", "  at the\ttable\n ")
    assert [line.text for line in chat.history(LOBBY)] == ["line 2", "line 3", "line 4"]
    assert [(line.room, line.text) for line in chat.history("g1")] == [("g1", "at the table")]
    assert len(ear.heard) == 6 and ear.heard[-1].sender == "bob"
    # kept as typed: escaping is each front end's business
    chat.say(LOBBY, "cy", "<b>&amp;</b>")
    assert chat.history(LOBBY)[-1].text == "<b>&amp;</b>"


@pytest.mark.parametrize(
    ("text", "code"),
    [("", 400), ("   ", 400), (None, 400), (42, 400), ("x" * (MAX_CHAT + 1), 413),
     ("bell\x07", 400), ("nul\x00", 400), ("\ud800", 400)],
)  # fmt: skip
def test_bad_lines_are_refused_and_change_nothing(text, code):
    chat = ChatService(Clock())
    ear = Ear()
    chat.add_listener(ear)
    with pytest.raises(GameError) as e:
        chat.say(LOBBY, "ann", text)
    assert e.value.code == code and e.value.reason
    assert ear.heard == [] and chat.history(LOBBY) == []


def test_a_speaker_is_limited_per_room_and_window():
    clock = Clock()
    chat = ChatService(clock, rate=3, window=10)
    for _ in range(3):
        chat.say(LOBBY, "ann", "hi")
    with pytest.raises(GameError) as e:
        chat.say(LOBBY, "ann", "hi")
    assert e.value.code == 429
    chat.say(LOBBY, "bob", "others may still talk")
    chat.say("g1", "ann", "and ann at a table")
    clock.advance(10)
    chat.say(LOBBY, "ann", "later again")


def test_a_removed_game_takes_its_room_along():
    clock = Clock()
    lobby = Lobby(DictRegistry([HelloGameFactory()]), clock)
    chat = ChatService(clock, lobby)
    game = lobby.create_game("hello")
    chat.say(game.id, "ann", "gg")
    lobby.remove(game.id)
    assert chat.history(game.id) == []
