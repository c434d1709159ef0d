"""``bench/mnm_in_flight.py``: a recording's second connect moves up to the first, its
``ID`` line names the fresh game, and many games replayed at once pair their
connections as the bare server pairs them (no timing is checked)."""

from __future__ import annotations

import pytest

from bench.hubproc import Hub
from bench.mnm_in_flight import Pass, pair_connects, with_game_id
from bench.mnm_lines import Game, bare_server, count, hub_pass, new_games

#: a made-up game as the driver records it: the first connection's prolog comes
#: before the second connects
RECORDED: Game = [
    {"conn": 0, "line": None, "out": [["+ hello 0"], []], "close": [False, False]},
    {"conn": 0, "line": "ID abc", "out": [["+ in"], []], "close": [False, False]},
    {"conn": 1, "line": None, "out": [[], ["+ hello 1"]], "close": [False, False]},
    {"conn": 1, "line": "ID abc", "out": [["+ go"], ["+ in"]], "close": [False, False]},
    {"conn": 0, "line": "A", "out": [["+ end 0"], ["+ end 1"]], "close": [True, True]},
]


def test_the_second_connect_moves_up_and_nothing_else_changes():
    paired = pair_connects(RECORDED)
    assert [e["line"] for e in paired] == [None, None, "ID abc", "ID abc", "A"]
    assert [e["conn"] for e in paired] == [0, 1, 0, 1, 0]
    assert sorted(map(repr, paired)) == sorted(map(repr, RECORDED))
    assert count(paired) == count(RECORDED)


def test_a_game_whose_second_connect_brings_lines_to_the_first_is_refused():
    odd = [dict(e) for e in RECORDED]
    odd[2] = {**odd[2], "out": [["+ surprise"], ["+ hello 1"]]}
    with pytest.raises(ValueError, match="second connect"):
        pair_connects(odd)
    with pytest.raises(ValueError, match="two connects"):
        pair_connects(RECORDED[:2])


def test_the_id_lines_name_the_fresh_game():
    fresh = with_game_id(RECORDED, "xyz")
    assert [e["line"] for e in fresh] == [None, "ID xyz", None, "ID xyz", "A"]
    assert RECORDED[1]["line"] == "ID abc"  # the recording stays


def test_many_games_in_flight_pair_their_connections_on_the_bare_server():
    games = [pair_connects(RECORDED), pair_connects(RECORDED[:4] + [
        {"conn": 1, "line": "B", "out": [["+ end 0"], ["+ end 1", "+ bye"]], "close": [True, True]}
    ])]  # fmt: skip
    with bare_server(games) as (_pid, port):
        first = Pass(port, games, 7, 5)
        assert first.run(30) == 4 * count(games[0]) + 3 * count(games[1])
        # the bare server's count of games goes on: the next pass starts where it is
        assert Pass(port, games, 3, 3, first=7).run(30) == 2 * count(games[1]) + count(games[0])
        with pytest.raises(RuntimeError, match="closed out of turn|more than recorded"):
            Pass(port, games, 2, 2, first=1).run(30)  # out of step with the server's count


def test_recorded_hub_games_replay_on_fresh_games_many_at_once():
    with Hub(("mnm",), {"mnm_wait_interval": 600}) as hub:
        recorded: list[Game] = []
        hub_pass(hub, new_games(hub, 2), 3, recorded)
        games = [pair_connects(game) for game in recorded]
        ids = new_games(hub, 6)
        lines = Pass(hub.ports["mnm"], games, 6, 4, ids=ids).run(60)
        assert lines == 3 * (count(games[0]) + count(games[1]))
        assert all(hub.game(game_id)["state"] == "over" for game_id in ids)
