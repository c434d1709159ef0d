"""``bench/mnm_in_flight.py``: a recording's ``ID`` line names the fresh game, the bare
server serves each connection's prolog and pairs the connections on their ``ID`` line,
and many games replayed at once on one ``epoll`` get the recorded lines (no timing is
checked)."""

from __future__ import annotations

import pytest

from bench.hubproc import Hub
from bench.mnm_in_flight import (
    Pass,
    after_prologs,
    bare_id,
    bare_server,
    prolog,
    with_game_id,
)
from bench.mnm_lines import Event, Game, count, hub_pass, new_games


def event(conn: int, line: str | None, out0: list[str], out1: list[str], close=False) -> Event:
    return {"conn": conn, "line": line, "out": [out0, out1], "close": [close, close]}


#: a made-up game as the driver records it: the first connection's prolog and seat,
#: then the second's, then play
RECORDED: Game = [
    event(0, None, ["+ hello"], []),
    event(0, "VERSION 3", ["+ ok"], []),
    event(0, "ID abc", ["+ in"], []),
    event(0, "PLAYER 0", ["+ you 0"], []),
    event(1, None, [], ["+ hello"]),
    event(1, "VERSION 3", [], ["+ ok"]),
    event(1, "ID abc", ["+ go"], ["+ in"]),
    event(0, "A", ["+ end 0"], ["+ end 1"], close=True),
]
#: another game, its end on the second connection
OTHER: Game = [*RECORDED[:-1], event(1, "B", ["+ end 0"], ["+ end 1", "+ bye"], close=True)]


def test_the_id_lines_name_the_fresh_game():
    fresh = with_game_id(RECORDED, "xyz")
    assert [e["line"] for e in fresh if e["line"] and e["line"].startswith("ID")] == ["ID xyz"] * 2
    assert RECORDED[2]["line"] == "ID abc"  # the recording stays
    assert len(bare_id(12, 3)) == len("8qrndauujv2fo") and bare_id(12, 3) == "000012r000003"


def test_a_connections_prolog_is_what_it_sends_before_its_id_line():
    assert prolog([RECORDED, OTHER]) == [("", ["+ hello"]), ("VERSION 3", ["+ ok"])]
    assert [e["line"] for e in after_prologs(RECORDED)] == ["ID abc", "PLAYER 0", "ID abc", "A"]
    assert count(after_prologs(RECORDED)) + 2 * 3 == count(RECORDED)


def test_prologs_that_differ_or_reach_the_other_connection_are_refused():
    odd = [*RECORDED]
    odd[1] = event(0, "VERSION 3", ["+ ok"], ["+ surprise"])
    with pytest.raises(ValueError, match="other connection"):
        prolog([odd])
    older = [*RECORDED]
    older[1] = event(0, "VERSION 2", ["+ ok"], [])
    with pytest.raises(ValueError, match="differ"):
        prolog([RECORDED, older])


def test_many_games_at_once_pair_their_connections_on_the_bare_server():
    games = [RECORDED, OTHER]
    with bare_server(games) as (_pid, port):
        assert Pass(port, games, 7, 5).run(30) == 4 * count(RECORDED) + 3 * count(OTHER)
        assert Pass(port, games, 40, 40).run(30) == 20 * (count(RECORDED) + count(OTHER))
        with pytest.raises(RuntimeError, match="closed out of turn|more than recorded"):
            Pass(port, [OTHER, RECORDED], 2, 2).run(30)  # the server replays another game


def test_recorded_hub_games_replay_on_fresh_games_many_at_once():
    with Hub(("mnm",), {"mnm_wait_interval": 600}) as hub:
        recorded: list[Game] = []
        hub_pass(hub, new_games(hub, 2), 3, recorded)
        ids = new_games(hub, 6)
        replay = Pass(hub.ports["mnm"], recorded, 6, 4, ids=ids)
        assert replay.run(60) == 3 * (count(recorded[0]) + count(recorded[1]))
        assert all(hub.game(game_id)["state"] == "over" for game_id in ids)
        assert 0 < replay.mean_in_flight <= 4
        with bare_server(recorded) as (_pid, port):
            assert Pass(port, recorded, 6, 6).run(60) == replay.lines
