"""The nmmorris game plugin driven through the real lobby on a task.Clock."""

from __future__ import annotations

import random

import pytest
from twisted.internet import task
from zope.interface.verify import verifyObject

from games.morris.adapters import MorrisMNMAdapter
from games.morris.server import MorrisGameFactory
from hub.interfaces import IGameFactory, IMNMGameAdapter
from hub.model import BadAction, IllegalAction
from hub.optional_interfaces import IMNMCurrentPieces
from hub.play.lobby import Lobby
from tests.support import DictRegistry, Recorder


def new_game(options=None):
    clock = task.Clock()
    lobby = Lobby(DictRegistry(games=[MorrisGameFactory()]), clock, rng=random.Random(1))
    game = lobby.create_game("nmmorris", options=options or {})
    rec = Recorder()
    game.observe(rec)
    return clock, game, rec


def start(options=None):
    clock, game, rec = new_game(options)
    game.take_seat("alice")
    game.take_seat("bob")
    return clock, game, rec


def turns(rec):
    return [e.data for e in rec.events if e.kind == "turn"]


def test_factory_and_adapter_provide_interfaces() -> None:
    f = MorrisGameFactory()
    verifyObject(IGameFactory, f)
    assert f.name == "nmmorris" and tuple(f.frontends) == ("mnm", "web")
    verifyObject(IMNMGameAdapter, f.adapter("mnm"))
    verifyObject(IMNMCurrentPieces, f.adapter("mnm"))  # the move requests' piece list
    assert f.adapter("xml") is None


def test_the_current_pieces_are_the_piece_list_of_the_view() -> None:
    clock, game, rec = new_game()
    game.take_seat("alice")
    game.take_seat("bob")
    adapter = MorrisGameFactory().adapter("mnm")
    for seat, mv in [(0, "A0"), (1, "B0"), (0, "A1")]:
        game.act(seat, {"move": mv})
        for viewer in (0, 1, None):
            now = adapter.current_pieces(game.engine, viewer)
            assert [list(row) for row in now] == adapter.piece_list(game.view(viewer))


def test_start_turns_and_capture_decision() -> None:
    clock, game, rec = new_game()
    assert game.state == "waiting" and len(game.id) == 13
    game.take_seat("alice")
    assert not turns(rec)
    game.take_seat("bob")
    assert game.state == "running"
    t = turns(rec)[-1]
    assert t["seat"] == 0 and t["capture"] == 0 and t["timeleft_ms"] == 3000
    assert len(t["legal"]) == 24 and {"move": "A0"} in t["legal"]
    for seat, mv in [(0, "A0"), (1, "B0"), (0, "A1"), (1, "B1"), (0, "A2")]:
        game.act(seat, {"move": mv})
    t = turns(rec)[-1]
    assert t["seat"] == 0 and t["capture"] == 1
    assert sorted(a["move"] for a in t["legal"]) == ["B0", "B1"]
    moved = [e.data for e in rec.events if e.kind == "moved"][-1]
    assert moved["mills"] == 1 and moved["capture"] == 1
    game.act(0, {"move": "B1"})
    assert turns(rec)[-1]["seat"] == 1
    assert game.view(None)["pieces"][1][:2] == ["B0", "C"]


@pytest.mark.parametrize(
    "seat,action,error,reason",
    [
        (1, {"move": "A0"}, IllegalAction, "It is not your turn"),
        (0, {"move": "A9"}, BadAction, "Invalid move: A9 is not a field"),
        (0, {"move": 3}, BadAction, "text"),
        (0, {"play": "A0"}, BadAction, "morris action"),
        (0, {"move": "A0:A1"}, IllegalAction, "still have pieces"),
    ],
)
def test_bad_actions_change_nothing(seat, action, error, reason) -> None:
    clock, game, rec = start()
    before = game.view(None)
    with pytest.raises(error) as err:
        game.act(seat, action)
    assert reason in err.value.reason
    assert game.view(None) == before


def test_occupied_field_is_illegal() -> None:
    clock, game, rec = start()
    game.act(0, {"move": "A0"})
    with pytest.raises(IllegalAction, match="Destination is already occupied"):
        game.act(1, {"move": "A0"})


def test_timeout_loses_on_the_clock() -> None:
    clock, game, rec = start({"move_time_ms": 1000, "grace_ms": 200})
    clock.advance(0.9)
    game.act(0, {"move": "A0"})
    clock.advance(1.1)
    assert game.state == "running"  # the new turn got its own full time
    clock.advance(0.2)
    assert game.state == "over"
    r = game.result()
    assert r["winners"] == [0] and r["loser"] == 1 and r["reason"] == "timeout"
    assert rec.kinds()[-1] == "over"
    # only the lobby's own timers (retiring and removing the finished game) remain
    assert all(getattr(c.func, "__self__", None) is game.lobby for c in clock.getDelayedCalls())


def test_leave_forfeits() -> None:
    clock, game, rec = start()
    game.leave_seat(0)
    r = game.result()
    assert r["winners"] == [1] and r["reason"] == "forfeit" and not r["draw"]
    assert [e for e in rec.events if e.kind == "over"]


def test_draw_by_turns() -> None:
    clock, game, rec = start({"max_turns": 18, "repetitions": 0})
    w = ["A0", "A2", "A5", "B1", "B3", "B6", "C0", "C4", "C7"]
    b = ["A1", "A3", "A6", "B0", "B2", "B5", "C2", "C3", "C5"]
    for x, y in zip(w, b, strict=True):
        game.act(0, {"move": x})
        game.act(1, {"move": y})
    r = game.result()
    assert r["draw"] and r["winners"] == [] and r["reason"] == "turns"
    assert MorrisMNMAdapter().winners(r) == [True, True]


@pytest.mark.parametrize(
    "options", [{"move_time_ms": 5}, {"colour": 1}, {"double_mill_captures": 3}, {"max_turns": "x"}]
)
def test_bad_options(options) -> None:
    with pytest.raises(BadAction):
        new_game(options)


def test_adapter_parse() -> None:
    a = MorrisMNMAdapter()
    assert a.parse_move("A1:B1", {"capture": 0}) == {"move": "A1:B1"}
    assert a.parse_move("C5", {"capture": 1}) == {"move": "C5"}
    with pytest.raises(BadAction, match="A9 is not a field"):
        a.parse_move("A9", {})
    with pytest.raises(BadAction, match="capture"):
        a.parse_move("A1:B1", {"capture": 1})
    with pytest.raises(BadAction):
        a.parse_move("A1:B1:C1", {})
    assert a.winners({"winners": [1], "draw": False}) == [False, True]


def test_random_game_to_the_end() -> None:
    clock, game, rec = start()
    rng = random.Random(5)
    for _ in range(1000):
        if game.state == "over":
            break
        t = turns(rec)[-1]
        game.act(t["seat"], rng.choice(t["legal"]))
    assert game.state == "over" and game.result() is not None


def test_the_view_formats_each_move_once(monkeypatch) -> None:
    """The view's move history is kept as the moves come: a view after a move formats
    that move's text only, not the whole history again (no O(n²) game)."""
    from games.morris import rules

    clock, game, rec = start()
    rng = random.Random(7)
    engine = game.engine.engine
    calls = []
    real = rules.Move.text

    def counted(self):
        calls.append(self)
        return real(self)

    for _ in range(60):
        if game.state == "over":
            break
        t = turns(rec)[-1]
        game.act(t["seat"], rng.choice(t["legal"]))
        monkeypatch.setattr(rules.Move, "text", counted)
        calls.clear()
        history = game.view(None)["history"]
        assert history == [real(r.move) for r in engine.history]
        assert len(calls) <= 1  # the move just made, once
        calls.clear()
        assert game.view(0)["history"] == history and not calls
        monkeypatch.setattr(rules.Move, "text", real)


def test_turn_data_reads_as_the_dict_it_replaces() -> None:
    """A turn event's data is a mapping whose legal actions are built when read: it
    reads (keys, order, values, ``dict()``, ``get``, ``in``) as the plain dict did while
    its turn waits; once the next turn is announced it lets its moves go (a live game's
    memory, issue 36): ``legal`` is then empty, the rest as it was."""
    clock, game, rec = start()
    first = turns(rec)[-1]
    legal_then = game.legal_actions(0)
    expected = {"seat": 0, "legal": legal_then, "timeleft_ms": 3000, "capture": 0}
    assert list(first) == ["seat", "legal", "timeleft_ms", "capture"]
    assert dict(first) == expected and first == expected and len(first) == 4
    assert first["legal"] is first.get("legal") and first["legal"] == legal_then
    assert first.get("nothing", 7) == 7 and "legal" in first and "nothing" not in first
    with pytest.raises(KeyError):
        first["nothing"]
    game.act(0, {"move": "A0"})
    second = turns(rec)[-1]
    assert dict(first) == {**expected, "legal": []} and second["legal"] == game.legal_actions(1)
    game.act(1, {"move": "B0"})
    assert second["legal"] == [] and turns(rec)[-1]["legal"] == game.legal_actions(0) != []
    logged = [e.public_data() for e in game.events_for(None) if e.kind == "turn"][0]
    assert type(logged) is dict and logged == {"seat": 0, "timeleft_ms": 3000, "capture": 0}
