"""The load generator of ``bench/cluster.py`` against a real hub: recorded games are
played to their end by the hub's rules, and a game that is not legal fails."""

from __future__ import annotations

import dataclasses

import pytest

from bench.hubproc import Hub
from bench.mnm_replay import Recording, play, record
from games.morris import rules

BODY = {"type": "nmmorris", "seats": ["open", "open"], "options": {"max_turns": 30}}


def test_a_recording_is_a_legal_game_to_its_end():
    for game in record(3, max_turns=30, seed=1):
        state = rules.MorrisState(rules.MorrisRules(max_turns=30))
        moves = [iter(game.plays[0]), iter(game.plays[1])]
        while state.outcome is None:
            line = next(moves[state.to_move])
            assert line.startswith(b"PLAY ") and line.endswith(b"\n")
            state.apply(state.parse(line[5:-1].decode()))
        assert all(next(m, None) is None for m in moves)  # nothing left over
        winner = state.outcome.winner
        for n in (0, 1):
            assert game.won[n] == b"+ PLAYER%dWON %s" % (n, b"No" if winner == 1 - n else b"Yes")
        assert game.decisions == sum(map(len, game.plays))


@pytest.fixture(scope="module")
def hub():
    with Hub(frontends=("mnm",)) as running:
        yield running


def test_replayed_games_end_as_recorded_on_a_real_hub(hub):
    games = record(4, max_turns=30, seed=2)
    finished, failures = play([hub.ports], 6, 3, games, BODY, seconds=60)
    assert (finished, failures) == (6, [])
    listed = {g["id"]: g for g in hub.api("GET", "/api/games")}
    assert sum(g["state"] == "over" and g["result"]["turns"] > 0 for g in listed.values()) >= 6


def test_a_game_that_is_not_the_one_recorded_fails(hub):
    (game,) = record(1, max_turns=30, seed=3)
    wrong = dataclasses.replace(game, won=(b"+ PLAYER0WON Maybe", b"+ PLAYER1WON Maybe"))
    illegal = Recording(((b"PLAY A0\n",) * 9, game.plays[1]), game.won, game.decisions)
    for bad, reason in ((wrong, "not the recorded result"), (illegal, "the server refused")):
        finished, failures = play([hub.ports], 1, 1, [bad], BODY, seconds=60)
        assert finished == 0 and any(reason in f for f in failures), failures
