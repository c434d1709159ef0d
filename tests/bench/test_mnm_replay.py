"""The load generators of ``bench/cluster.py`` against a real hub, the Python replay
and its C twin alike: recorded games are played to their end by the hub's rules, a
game that is not legal fails, and both send a hub the same lines."""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
import urllib.request
from collections.abc import Callable

import pytest

from bench import mnm_replay_c
from bench.hubproc import TOKEN, Hub
from bench.mnm_replay import Order, Recording, play, read_recordings, record, write_recordings
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


def test_recordings_and_orders_go_to_a_client_process_unchanged(tmp_path):
    games = record(5, max_turns=30, seed=4)
    write_recordings(tmp_path / "r", games)
    assert read_recordings(tmp_path / "r") == games
    order = Order(((8080, 1357), (8081, 1358)), 200, 24, True, 180.0, 32)
    assert Order.parse(order.line()) == order
    assert order.line() == "200 24 1 180.0 32 8080:1357,8081:1358\n"


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    """The C load generator, built here (a skip that says why without a compiler)."""
    try:
        return mnm_replay_c.build(tmp_path_factory.mktemp("mnm-replay-c"))
    except mnm_replay_c.NoProgram as e:
        print(f"the C load generator is not tested: {e}", file=sys.stderr)
        pytest.skip(f"the C load generator cannot be built: {e}")


@pytest.fixture(params=["python", "c"])
def replay(request) -> Callable[..., tuple[int, list[str]]]:
    """``play`` of the Python replay, or of the C program."""
    if request.param == "python":
        return play
    return functools.partial(mnm_replay_c.play, request.getfixturevalue("program"))


@pytest.fixture(scope="module")
def hub():
    with Hub(frontends=("mnm",)) as running:
        yield running


def test_replayed_games_end_as_recorded_on_a_real_hub(hub, replay):
    games = record(4, max_turns=30, seed=2)
    before = {g["id"] for g in hub.api("GET", "/api/games")}
    finished, failures = replay([hub.ports], 6, 3, games, BODY, seconds=60)
    assert (finished, failures) == (6, [])
    listed = [g for g in hub.api("GET", "/api/games") if g["id"] not in before]
    assert len(listed) == 6
    assert all(g["state"] == "over" and g["result"]["turns"] > 0 for g in listed)


def test_a_game_that_is_not_the_one_recorded_fails(hub, replay):
    (game,) = record(1, max_turns=30, seed=3)
    wrong = dataclasses.replace(game, won=(b"+ PLAYER0WON Maybe", b"+ PLAYER1WON Maybe"))
    illegal = Recording(((b"PLAY A0\n",) * 9, game.plays[1]), game.won, game.decisions)
    short = Recording((game.plays[0][:3], game.plays[1]), game.won, game.decisions)
    for bad, reason in (
        (wrong, "not the recorded result"),
        (illegal, "the server refused"),
        (short, "asked for a move after the recorded game"),
    ):
        finished, failures = replay([hub.ports], 1, 1, [bad], BODY, seconds=60)
        assert finished == 0 and any(reason in f for f in failures), failures


def test_a_creation_the_hub_refuses_stops_the_pass(hub, replay):
    (game,) = record(1, max_turns=30, seed=3)
    finished, failures = replay([hub.ports], 2, 1, [game], {"type": "nogame"}, seconds=60)
    assert finished == 0 and any("creating a game failed: " in f for f in failures), failures


#: a transcript line: time, connection, direction, text
LINE = re.compile(r"^\S+ (\S+) (in|out) +(.*)$")


def client_lines(hub: Hub, game_id: str) -> dict[int, list[str]]:
    """Seat → the lines its MNM connection sent the hub (from the game's transcript;
    the game's id as ``<id>``)."""
    url = f"http://127.0.0.1:{hub.ports['web']}/api/games/{game_id}/transcript"
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        text = answer.read().decode()
    sent: dict[str, list[str]] = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if m and m[2] == "in" and m[1].startswith("mnm"):
            sent.setdefault(m[1], []).append(m[3].replace(game_id, "<id>"))
    return {
        int(next(x for x in lines if x.startswith("PLAYER "))[7:]): lines for lines in sent.values()
    }


def test_the_c_clients_send_the_lines_the_python_clients_send(hub, program, tmp_path):
    games = record(2, max_turns=30, seed=5)
    seen = []
    for replay in (play, functools.partial(mnm_replay_c.play, program)):
        before = {g["id"] for g in hub.api("GET", "/api/games")}
        assert replay([hub.ports], 2, 1, games, BODY, seconds=60) == (2, [])
        new = sorted(
            (g for g in hub.api("GET", "/api/games") if g["id"] not in before),
            key=lambda g: g["created"],
        )
        seen.append([client_lines(hub, g["id"]) for g in new])
    assert seen[0] == seen[1]
    first = seen[0][0][0]
    assert first[:3] == ["VERSION 3.0", "ID <id>", "PLAYER 0"] and "THINKING" in first
    assert [line for line in first if line.startswith("PLAY ")] == [
        line.decode().strip() for line in games[0].plays[0]
    ]
