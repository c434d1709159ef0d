"""Four Domino clients that play through other hubs' doors keep their connection and
their seats when the hub that runs their game is drained or stopped (issue 31,
docs/cluster.md "A game that moves"): three ``twistd gamehub`` processes on one
PostgreSQL database; A is the gathering hub (the oldest), so the four logins made at
B's and C's doors are spliced to A, which forms the game.  Mid-game, with one
client's prompt unanswered, ``gamehub cluster drain A`` (or SIGTERM of A) moves the
game; each door follows it by the player's name, the new owner seats each client back
in its seat (not in its queue) and the game is played to its end.  Each client
connects once and checks every line with its own rules engine
(:class:`games.kingdomino.client.Mirror`); at the end its lines are exactly those of
a client of one hub: the rendering of the game's whole event log for its seat, one
``OK`` to its login and to each of its commands, no ``ERROR``.

Waits are bounded; nothing is timed.
"""

from __future__ import annotations

import random
import signal
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from games.kingdomino import rules
from games.kingdomino.adapters import DominoAdapter
from games.kingdomino.client import Mirror
from hub.model import GameEvent
from tests.integration.test_cluster import cluster_dsn, health, start_hub, wait_for
from tests.integration.test_cluster_handover import hub_of
from tests.store.test_cli_and_crash import gamehub

__all__ = ["cluster_dsn"]  # the fixture, used by name

NAMES = ("ann", "bob", "cid", "dee")
#: answers given before one prompt is held while the game's hub is drained
BEFORE = 14
#: a generous bound on any one wait of a client (not a timing assertion)
BOUND = 120.0
#: long enough that nobody is removed for being slow while the game moves
SETTINGS = ["--set", "domino_answer_seconds=120"]


class Pace:
    """The clients answer ``BEFORE`` prompts between them, then the next waits until
    :meth:`release` (the game is drained with that prompt open), or :meth:`drop`
    (the client does not answer it: its hub went)."""

    def __init__(self, hold: str | None = None) -> None:
        self._cond = threading.Condition()
        self.hold = hold  # (``None``: whoever is prompted then)
        self.answered = 0
        self.released = False
        self.dropped = False
        self.holding: str | None = None

    def answer(self, name: str) -> bool:
        """Whether to answer the prompt now (after waiting, if it is the one held)."""
        with self._cond:
            if self.answered >= BEFORE and not self.released and self.hold in (None, name):
                self.holding = name
                self._cond.notify_all()
                if not self._cond.wait_for(lambda: self.released or self.dropped, BOUND):
                    raise AssertionError("never released")
                if not self.released:
                    return False
            self.answered += 1
            return True

    def held(self) -> str | None:
        with self._cond:
            return self.holding

    def release(self) -> None:
        with self._cond:
            self.released = True
            self._cond.notify_all()

    def drop(self) -> None:
        with self._cond:
            self.dropped = True
            self._cond.notify_all()


class Player:
    """One Domino client: logs in, follows every line with its mirror and answers each
    prompt with something legal.  :meth:`connect` plays one connection in a thread of
    its own (a client of a hub that restarted connects again: the same mirror)."""

    def __init__(self, name: str, pace: Pace, seed: int) -> None:
        self.login, self.pace = name, pace
        self.rng = random.Random(seed)
        self.mirror = Mirror()
        self.lines: list[str] = []
        #: the lines of each connection
        self.connections: list[list[str]] = []
        self.sent = 0
        self.failure: BaseException | None = None
        self.sock: socket.socket | None = None
        self.thread: threading.Thread | None = None

    def connect(self, port: int) -> None:
        """Connect (bounded) and play in a thread until the hub closes."""
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=BOUND)
        self.connections.append([])
        self.thread = threading.Thread(
            target=self._run, args=(self.sock,), name=f"domino-{self.login}", daemon=True
        )
        self.thread.start()

    def wait(self) -> None:
        """Until the hub closed the connection (bounded)."""
        assert self.thread is not None
        self.thread.join(BOUND)
        assert not self.thread.is_alive(), f"{self.login} still playing"

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        if self.thread is not None:
            self.thread.join(10)

    def _run(self, sock: socket.socket) -> None:
        try:
            self._play(sock)
        except BaseException as e:  # the test thread reports it
            self.failure = e
        finally:
            sock.close()

    def _play(self, sock: socket.socket) -> None:
        sock.sendall(f"LOGIN {self.login}\n".encode())
        for raw in sock.makefile("rb"):  # until the hub closes (bounded: timeout)
            line = raw.decode("ascii").rstrip("\n")
            self.lines.append(line)
            self.connections[-1].append(line)
            prompt = self.mirror.feed(line)
            if prompt in ("choose", "move") and self.pace.answer(self.login):
                state, me = self.mirror.state, self.mirror.me
                assert state is not None and me is not None
                decision: Any = (
                    self.rng.choice(state.available())
                    if state.phase == rules.CHOOSE
                    else state.kingdoms[me].random_placement(self.rng)
                )
                sock.sendall(self.mirror.command(decision).encode() + b"\n")
                self.sent += 1

    def lines_of_one_hub(self, events: list[dict[str, Any]]) -> list[str]:
        """What a client of one hub gets but ``CONNECT``, ``OK`` and ``ERROR``: the
        lines of each of the game's events for this client's seat."""
        assert self.mirror.me is not None
        seat, adapter = self.mirror.me, DominoAdapter()
        out = []
        for event in events:
            out += adapter.render_event(GameEvent(event["kind"], event["data"]), seat)
        return out


@pytest.mark.slow
@pytest.mark.parametrize("how", ["drain", "sigterm"])
def test_domino_clients_at_doors_keep_their_seats_when_the_game_moves(
    tmp_path: Path,
    cluster_dsn: str,  # noqa: F811
    how: str,
):
    a = start_hub(tmp_path, "a", cluster_dsn, extra=SETTINGS)  # the oldest: it gathers
    b = start_hub(tmp_path, "b", cluster_dsn, extra=SETTINGS)
    c = start_hub(tmp_path, "c", cluster_dsn, extra=SETTINGS)
    hubs = [a, b, c]
    players: list[Player] = []
    pace = Pace()
    try:
        ids = [health(h)["cluster"]["hub"] for h in hubs]
        for hub in hubs:
            wait_for(lambda h=hub: health(h)["cluster"]["alive"] == 3, "the three alive")
        for door, name, seed in zip([b, c, b, c], NAMES, range(4), strict=True):
            players.append(Player(name, pace, seed))
            players[-1].connect(door.ports["domino"])
        holder = wait_for(pace.held, "a prompt held mid-game", BOUND)
        (game_id,) = [
            g["id"]
            for g in a.get_json("/api/games")  # type: ignore[union-attr]
            if g["type"] == "kingdomino" and "remote" not in g
        ]
        if how == "drain":
            r = gamehub("cluster", "drain", ids[0], "--db", cluster_dsn, "--wait", "60")
            assert r.returncode == 0, r.stdout + r.stderr + a.log()[-4000:]
            assert "drained: 1 game(s)" in r.stdout, r.stdout
            pace.release()  # answered after the move: played by the new owner
        else:  # a stop hands its games over the same way; the answer races the seal
            assert a.proc is not None
            a.proc.send_signal(signal.SIGTERM)
            pace.release()
            status = a.proc.wait(timeout=BOUND)  # (once: a second SIGTERM is an error)
            assert status in (0, -signal.SIGTERM), a.log()[-4000:]
            assert "game(s) handed to hub(s)" in a.log(), a.log()[-4000:]
        for player in players:
            player.wait()
        new = wait_for(lambda: hub_of(b, game_id), "the game's new hub")
        assert new in ids[1:], new
        owner = hubs[ids.index(new)]
        replay = owner.get_json(f"/api/games/{game_id}/replay")
        assert replay["game"]["state"] == "over"  # type: ignore[index]
        events = replay["events"]  # type: ignore[index]
        assert replay["complete"]  # type: ignore[index]
        results = set()
        for player in players:
            assert player.failure is None, (player.login, player.failure, player.lines[-5:])
            lines = player.lines
            assert len(player.connections) == 1  # it connected once
            assert lines[0] == "CONNECT" and lines[1] == "OK", lines[:3]
            assert sum(1 for x in lines if x.startswith("START ")) == 1  # one game, no queue
            assert lines.count("OK") == 1 + player.sent and "ERROR" not in lines, (
                player.login,
                lines,
            )
            game_lines = [x for x in lines[1:] if x not in ("OK", "ERROR")]
            assert game_lines == player.lines_of_one_hub(events), player.login
            assert player.mirror.results and lines[-1].startswith("GAME OVER RESULTS")
            results.add(lines[-1])
        (result,) = results  # the same game's results for each
        assert all(f" {n} " in result for n in NAMES), result
        assert holder in NAMES
        for door in (b, c):
            assert "splice: the game moved; passed on to" in door.log(), door.log()[-4000:]
        for hub in hubs:
            assert hub.errors() == [], hub.log()
    finally:
        pace.release()
        for player in players:
            player.close()
        for hub in hubs:
            hub.stop()


@pytest.mark.slow
def test_domino_clients_of_the_drained_hub_itself_come_back_at_any_door(
    tmp_path: Path,
    cluster_dsn: str,  # noqa: F811
):
    """ann and cid play on the gathering hub A itself, bob and dee through B's and C's
    doors; A is drained while bob holds a prompt.  bob and dee keep their connection;
    ann's and cid's end with A's hand-over, and they log in again, ann at A (drained,
    still the gathering hub) and cid at C: each door passes the login to the hub whose
    game seats that name, which seats it back; the game ends with the four."""
    a = start_hub(tmp_path, "a", cluster_dsn, extra=SETTINGS)  # the oldest: it gathers
    b = start_hub(tmp_path, "b", cluster_dsn, extra=SETTINGS)
    c = start_hub(tmp_path, "c", cluster_dsn, extra=SETTINGS)
    hubs = [a, b, c]
    pace = Pace(hold="bob")
    players = [Player(name, pace, seed) for seed, name in enumerate(NAMES)]
    ann, bob, cid, dee = players
    try:
        ids = [health(h)["cluster"]["hub"] for h in hubs]
        for hub in hubs:
            wait_for(lambda h=hub: health(h)["cluster"]["alive"] == 3, "the three alive")
        for player, hub in zip(players, [a, b, a, c], strict=True):
            player.connect(hub.ports["domino"])
        wait_for(pace.held, "bob's prompt held mid-game", BOUND)
        (game_id,) = [
            g["id"]
            for g in a.get_json("/api/games")  # type: ignore[union-attr]
            if g["type"] == "kingdomino" and "remote" not in g
        ]
        r = gamehub("cluster", "drain", ids[0], "--db", cluster_dsn, "--wait", "60")
        assert r.returncode == 0, r.stdout + r.stderr + a.log()[-4000:]
        for player in (ann, cid):  # A closed their connections without a word
            player.wait()
            assert not player.connections[0][-1].startswith("GAME OVER")
        new = wait_for(
            lambda: hub_of(c, game_id) not in (None, ids[0]) and hub_of(c, game_id),
            "the game's new hub",
        )
        assert new in ids[1:], new
        owner = hubs[ids.index(new)]
        for hub in (a, c):  # their views list the game on its new hub
            wait_for(lambda h=hub: hub_of(h, game_id) == new, "the game listed on its new hub")
        ann.connect(a.ports["domino"])
        cid.connect(c.ports["domino"])
        pace.release()
        for player in players:
            player.wait()
        replay = owner.get_json(f"/api/games/{game_id}/replay")
        assert replay["game"]["state"] == "over"  # type: ignore[index]
        events = replay["events"]  # type: ignore[index]
        for player in players:
            assert player.failure is None, (player.login, player.failure, player.lines[-5:])
            assert len(player.connections) == (2 if player in (ann, cid) else 1)
            for lines in player.connections:
                assert lines[:2] == ["CONNECT", "OK"], (player.login, lines[:3])
            lines = player.lines
            assert lines.count("OK") == len(player.connections) + player.sent, player.login
            assert "ERROR" not in lines and lines[-1].startswith("GAME OVER RESULTS")
            game_lines = [x for x in lines if x not in ("CONNECT", "OK")]
            assert game_lines == player.lines_of_one_hub(events), player.login
        for hub in hubs:
            assert hub.errors() == [], hub.log()
    finally:
        pace.release()
        for player in players:
            player.close()
        for hub in hubs:
            hub.stop()
