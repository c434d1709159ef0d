"""Whole King Domino games over real loopback sockets against a hub in a child process.

Scripted clients (one thread each) play legal but random games, now and then sending a
wrong command first.  Afterwards a referee written here replays the game from the
START/ROUND/PLAYER lines with the rules engine and rebuilds, from the spec's
sequence, every line each client should have received; the lists must be equal,
including the final empty ``ROUND`` and the results order.
"""

from __future__ import annotations

import json
import random
import socket
import threading

import pytest

from games.kingdomino import rules
from tests.hubprocess import LOOPBACK, HubProcess


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    hub = HubProcess(tmp_path_factory.mktemp("livehub"), domino=LOOPBACK, web=LOOPBACK)
    hub.extra += ["--set", "domino_answer_seconds=10"]
    with hub:
        yield hub
    assert hub.errors() == [], hub.log()[-3000:]


class ScriptedClient(threading.Thread):
    """Plays one seat: random legal answers; every 5th prompt a wrong command first."""

    def __init__(self, port: int, login: str, seed: int, login_first: bool = False):
        super().__init__(daemon=True)
        self.port, self.login = port, login
        self.rng = random.Random(seed)
        self.login_first = login_first
        self.received: list[str] = []
        self.actions: list[tuple[str, list[int], int]] = []  # (verb, args, errors before)
        self.error: BaseException | None = None
        self.kingdom = rules.Kingdom()
        self.my_picks: list[int] = []
        self.placed = 0

    def run(self) -> None:
        try:
            self._play()
        except BaseException as e:  # reported by the test
            self.error = e

    def _play(self) -> None:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=60)
        reader = sock.makefile("rb")
        if self.login_first:
            sock.sendall(f"LOGIN {self.login}\n".encode())
        current: list[int] = []
        taken: set[int] = set()
        prompts = 0

        def read() -> str:
            raw = reader.readline()
            if not raw:
                return ""
            assert raw.endswith(b"\n"), raw
            line = raw[:-1].decode("ascii")
            self.received.append(line)
            return line

        def command(verb: str, args: list[int], bad: str | None) -> None:
            errors = 0
            if bad is not None:
                sock.sendall(bad.encode() + b"\n")
                assert read() == "ERROR"
                errors = 1
            sock.sendall(" ".join([verb, *map(str, args)]).encode() + b"\n")
            assert read() == "OK"
            self.actions.append((verb, args, errors))

        while True:
            line = read()
            if not line:
                break
            words = line.split()
            if line == "CONNECT" and not self.login_first:
                sock.sendall(f"LOGIN {self.login}\n".encode())
            elif words[0] == "START":
                current = [int(w) for w in words[6:]]
            elif words[0] == "ROUND":
                current = [int(w) for w in words[1:]]
                taken = set()
            elif words[:2] == ["PLAYER", "CHOICE"]:
                taken.add(int(words[3]))
            elif line == "YOUR CHOICE":
                prompts += 1
                d = self.rng.choice([x for x in current if x not in taken])
                bad = None
                if prompts % 5 == 0:
                    bad = f"CHOOSE {min(taken) if taken else 0}"
                command("CHOOSE", [d], bad)
                taken.add(d)
                self.my_picks.append(d)
            elif line == "YOUR MOVE":
                prompts += 1
                p = self.rng.choice(self.kingdom.legal_placements())
                bad = "MOVE 0 0 0" if prompts % 5 == 0 else None
                command("MOVE", p.as_list(), bad)
                self.kingdom.place(self.my_picks[self.placed], p)
                self.placed += 1
            elif words[:3] == ["GAME", "OVER", "RESULTS"]:
                pass
        sock.close()


def referee(clients: list[ScriptedClient], names_by_id: dict[int, str] | None = None):
    """Replay the game seen by ``clients[0]`` and check every client's lines."""
    first = clients[0].received
    start = first[2].split()
    order = [int(w) - 1 for w in start[2:6]]
    draws = [tuple(int(w) for w in start[6:10])]
    draws += [tuple(int(w) for w in ln.split()[1:]) for ln in first if ln.startswith("ROUND")]
    assert len(draws) == 13 and draws[-1] == ()
    me0 = int(start[1]) - 1
    # the sequence of actions as clients[0] saw it
    sequence: list[tuple[int, str, list[int]]] = []
    mine = iter(clients[0].actions)
    for line in first[3:]:
        w = line.split()
        if w[:2] == ["PLAYER", "CHOICE"]:
            sequence.append((int(w[2]) - 1, "CHOOSE", [int(w[3])]))
        elif w[:2] == ["PLAYER", "MOVE"]:
            sequence.append((int(w[2]) - 1, "MOVE", [int(x) for x in w[3:6]]))
        elif line == "OK":
            verb, args, _ = next(mine)
            sequence.append((me0, verb, args))
    ids = {int(c.received[2].split()[1]) - 1: c for c in clients}
    if names_by_id is None:
        names_by_id = {i: c.login for i, c in ids.items()}
    for me, client in ids.items():
        state = rules.State(draws=draws[:12], order=order)
        expected = ["CONNECT", "OK", " ".join(["START", str(me + 1), *start[2:10]])]
        if state.to_act == me:
            expected.append("YOUR CHOICE")
        own = iter(client.actions)
        for actor, verb, args in sequence:
            if verb == "CHOOSE":
                records = state.choose(actor, args[0])
            else:
                records = state.move(actor, rules.Placement(*args))
            if actor == me:
                errors = next(own)[2]
                expected += ["ERROR"] * errors + ["OK"]
            for r in records:
                if isinstance(r, rules.Chosen) and r.player != me:
                    expected.append(f"PLAYER CHOICE {r.player + 1} {r.domino}")
                elif isinstance(r, rules.Placed) and r.player != me:
                    p = r.placement
                    expected.append(f"PLAYER MOVE {r.player + 1} {p.x} {p.y} {p.orientation}")
                elif isinstance(r, rules.Dealt):
                    expected.append(" ".join(["ROUND", *map(str, r.dominoes)]))
                elif isinstance(r, rules.Finished):
                    scores = r.scores
                    ranked = sorted(range(4), key=lambda i: (-scores[i], i))
                    parts = [f"{names_by_id[i]} {scores[i]}" for i in ranked]
                    expected.append(" ".join(["GAME OVER RESULTS", *parts]))
            if not state.over and state.to_act == me:
                expected.append("YOUR CHOICE" if state.phase == "choose" else "YOUR MOVE")
        assert state.over
        assert client.received == expected, f"client {client.login}"
        assert expected[-1].startswith("GAME OVER RESULTS")
        assert expected.count("ROUND") == 1 and expected.index("ROUND") < len(expected) - 1
        # the client's own bookkeeping agrees with the results line
        result = client.received[-1].split()[3:]
        points = dict(zip(result[0::2], map(int, result[1::2]), strict=True))
        assert points[client.login] == client.kingdom.score()
    return sequence


def run_clients(clients, timeout=120):
    for c in clients:
        c.start()
    for c in clients:
        c.join(timeout)
        assert not c.is_alive(), f"{c.login} did not finish"
        assert c.error is None, repr(c.error)


def test_two_full_four_player_games(live):
    port = live.ports["domino"]
    for game in range(2):
        clients = [
            ScriptedClient(port, f"g{game}p{i}", seed=game * 10 + i, login_first=(i == 1))
            for i in range(4)
        ]
        # log in one after another so that ids follow the order of logins
        for c in clients:
            c.start()
            while len(c.received) < 2 and c.is_alive() and c.error is None:
                threading.Event().wait(0.01)
        for c in clients:
            c.join(120)
            assert not c.is_alive() and c.error is None, repr(c.error)
        assert [c.received[2].split()[1] for c in clients] == ["1", "2", "3", "4"]
        sequence = referee(clients)
        assert len(sequence) == 96
    assert live.get_json("/api/health")["status"] == "ok"


def test_one_client_against_three_bots_from_the_api(live):
    status, body, _ = live.request(
        "POST",
        "/api/games",
        {
            "type": "kingdomino",
            "seats": ["bot:greedy", "open", "bot:domino", "bot:domino-random"],
            "options": {"answer_seconds": 10, "think_seconds": 0.05},
        },
    )
    assert status == 201, body
    created = json.loads(body)
    assert created["port"] == live.ports["domino"]
    client = ScriptedClient(live.ports["domino"], "solo", seed=99)
    run_clients([client])
    assert client.received[2].startswith("START 2 ")
    referee([client], names_by_id={0: "greedy", 1: "solo", 2: "domino", 3: "domino-random"})
    status, body, _ = live.request("GET", f"/api/games/{created['id']}/transcript", admin=True)
    assert status == 200, body
    transcript = body.decode()
    assert " in  LOGIN solo" in transcript and " out GAME OVER RESULTS " in transcript


def test_network_bots_play_a_game(live):
    """``python -m bots.kingdomino`` x4 (each kind) against the live hub."""
    import subprocess
    import sys

    from tests.hubprocess import ROOT

    procs = []
    for i, bot in enumerate(["domino", "greedy", "random", "greedy"]):
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "bots.kingdomino", "--port", str(live.ports["domino"])]
                + ["--login", f"net{i}", "--bot", bot, "--think", "0.05", "--seed", str(i)],
                cwd=str(ROOT),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        )
    outputs = []
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err.decode()[-2000:]
        outputs.append(out.decode().strip())
    assert all(o == outputs[0] for o in outputs)
    words = outputs[0].split()[3:]
    assert sorted(words[0::2]) == ["net0", "net1", "net2", "net3"]
    points = [int(w) for w in words[1::2]]
    assert points == sorted(points, reverse=True)
