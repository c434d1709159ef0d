"""Fuzz the MNM front end (Nine Men's Morris) on a real hub, over loopback sockets.

Each connection walks the prolog (``VERSION``, ``ID``, ``PLAYER``) and plays legal
moves against a bot for a random number of turns; then, at a random point (in the
prolog, waiting, asked for a move, thinking), it sends fuzzed lines until the server
closes it (the protocol ends a connection at its first wrong line).
"""

from __future__ import annotations

import json
import random
import socket
import threading

import pytest

from bots.morris import search

from . import common

#: where a connection starts fuzzing, with its weight (deep ones cost a game each)
STATES = {"version": 3, "id": 3, "player": 1, "game": 3}
VERBS = ("VERSION", "ID", "PLAYER", "OKWAIT", "THINKING", "PLAY")


class MNMTarget(common.Target):
    """MNM clients, each in a game of its own against ``morris-random``."""

    name = "mnm"

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.port = self.hub.ports["mnm"]
        self.games: list[str] = []
        self.games_lock = threading.Lock()

    # -- messages ---------------------------------------------------------------------

    def grammar_line(self, rng: random.Random) -> bytes:
        verb = rng.choice(VERBS) if rng.random() < 0.9 else common.text(rng, True, 8)
        arg = rng.choice(
            (
                "",
                f"{rng.randrange(5)}.{rng.randrange(10)}",
                "v" + str(common.number(rng)),
                str(common.number(rng)),
                "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(13)),
                rng.choice(self.games) if self.games else "x",
                f"{rng.choice('ABCD')}{rng.randrange(9)}",
                f"{rng.choice('ABC')}{rng.randrange(8)}:{rng.choice('ABC')}{rng.randrange(8)}",
                common.text(rng, True),
            )
        )
        line = f"{verb} {arg}" if arg or rng.random() < 0.5 else verb
        return line.encode("ascii", "replace")

    def valid_lines(self, gid: str) -> list[bytes]:
        return [b"VERSION 3.1", f"ID {gid}".encode(), b"PLAYER", b"THINKING", b"PLAY A0"]

    def fuzz_line(
        self, rng: random.Random, gid: str, wrong_state: list[bytes]
    ) -> tuple[str, bytes]:
        roll = rng.random()
        if roll < 0.35:
            return "grammar", self.grammar_line(rng)
        if roll < 0.55 and wrong_state:
            return "wrong_state", rng.choice(wrong_state)
        valid = self.valid_lines(gid)
        return "mutated", common.mutate(rng, rng.choice(valid), valid)

    # -- one connection ---------------------------------------------------------------

    def new_game(self) -> str:
        status, body, _ = self.hub.request(
            "POST",
            "/api/games",
            {
                "type": "nmmorris",
                "seats": ["open", "bot:morris-random"],
                "options": {"move_time_ms": 60000, "wait_interval_ms": 600000},
            },
        )
        assert status == 201, body
        gid = json.loads(body)["id"]
        with self.games_lock:
            self.games = (self.games + [gid])[-20:]
        return gid

    def connection(self, rng: random.Random) -> None:
        depth = rng.choices(list(STATES), list(STATES.values()))[0]
        if depth in ("player", "game"):
            gid = self.new_game()
        else:
            gid = rng.choice(self.games) if self.games else "x" * 13
        with socket.create_connection(("127.0.0.1", self.port), timeout=20) as sock:
            reader = sock.makefile("rb")
            client = _Lines(sock, reader, self.count)
            client.read_until(lambda line: line.startswith("+ A"))  # banner, announcement
            wrong = [b"PLAYER", b"THINKING", b"PLAY A0", b"OKWAIT"]
            if depth != "version":
                client.send(b"VERSION 3.1")
                client.read_until(lambda line: "accepted" in line)
                wrong = [b"VERSION 3.1", b"PLAYER", b"PLAY A1", b"THINKING"]
            if depth in ("player", "game"):
                client.send(f"ID {gid}".encode())
                client.read_until(lambda line: line.startswith("+ ") and "PLAYING" not in line)
                wrong = [b"VERSION 3.1", f"ID {gid}".encode(), b"OKWAIT", b"PLAY A2"]
            if depth == "game":
                client.send(b"PLAYER")
                client.read_until(lambda line: line == "+ ENDPLAYERS")
                wrong = [b"PLAYER", b"THINKING", b"PLAY A0", b"VERSION 3.1"]
                if not self.play(rng, client, rng.randrange(8)):
                    return
                wrong = [b"PLAYER", b"PLAY A0", b"OKWAIT", f"ID {gid}".encode()]
                if rng.random() < 0.5:  # asked for a move: fuzz while thinking
                    client.send(b"THINKING")
                    if not client.read_until(lambda line: line == "+ OKTHINK"):
                        return
                    wrong = [b"THINKING", b"PLAYER", b"OKWAIT"]
            for _ in range(rng.choice((1, 1, 2, 4))):
                kind, line = self.fuzz_line(rng, gid, wrong)
                if not client.send(line, kind) or client.closed_after():
                    return

    def play(self, rng: random.Random, client: _Lines, turns: int) -> bool:
        """Answer ``turns`` move requests with legal moves; ``False`` once closed."""
        for _ in range(turns):
            request = client.move_request()
            if request is None:
                return False
            pieces, me, capture = request
            pos = search.position_from_pieces(pieces, me)
            if capture:
                options = [search.name(p) for p in search.bits(search.capturable(pos[1 - me]))]
            else:
                options = [search.turn_text(t)[0] for t in search.gen_turns(pos)]
            if not options:
                return False
            client.send(b"THINKING")
            if not client.read_until(lambda line: line == "+ OKTHINK"):
                return False
            client.send(f"PLAY {rng.choice(options)}".encode())
            if not client.read_until(lambda line: line == "+ MOVEOK"):
                return False
        return client.move_request() is not None

    def served(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=20) as sock:
            reader = sock.makefile("rb")
            assert reader.readline().startswith(b"+ MNM Gameserver v3.1")
            assert reader.readline().startswith(b"+ A")
            sock.sendall(b"VERSION 3.1\n")
            assert reader.readline() == b"+ Client version accepted - please send Game-ID to join\n"


class _Lines:
    """A blocking line client that counts what it sends and answers ``+ WAIT``."""

    def __init__(self, sock: socket.socket, reader, count) -> None:
        self.sock, self.reader, self.count = sock, reader, count
        self.closed = False
        self.me = 0

    def send(self, line: bytes, kind: str = "valid") -> bool:
        try:
            self.sock.sendall(line + b"\n")
        except OSError:
            self.closed = True
            return False
        self.count(kind)
        return True

    def line(self) -> str | None:
        try:
            common.quick_ack(self.sock)
            raw = self.reader.readline(4096)
        except OSError:
            raw = b""
        if not raw:
            self.closed = True
            return None
        text = raw.decode("ascii", "replace").rstrip("\n")
        if text.startswith("+ YOU "):
            self.me = int(text.split()[2])
        if text == "+ WAIT":
            self.send(b"OKWAIT")
        return text

    def read_until(self, done) -> bool:
        """Read lines until ``done(line)``; ``False`` at a ``-`` line or the end."""
        while True:
            text = self.line()
            if text is None or text.startswith("- "):
                return False
            if done(text):
                return True

    def move_request(self) -> tuple[list[list[str]], int, int] | None:
        """The next ``+ MOVE`` request: (pieces, me, capture); ``None`` at the end."""
        if not self.read_until(lambda line: line.startswith("+ MOVE ") or line == "+ GAMEOVER"):
            return None
        capture = self.line() or ""
        if not capture.startswith("+ CAPTURE "):
            return None
        pieces: list[list[str]] = [[], []]
        while True:
            text = self.line()
            if text is None:
                return None
            if text.startswith("+ PIECE") and "." in text:
                player = int(text[7])
                pieces[player].append(text.split()[-1])
            elif text == "+ ENDPIECELIST":
                break
        return pieces, self.me, int(capture.split()[-1])

    def closed_after(self) -> bool:
        """Whether the server closed the connection after the last line (it answers a
        wrong line with ``-`` and closes; a right one with lines or nothing)."""
        self.sock.settimeout(0.5)
        try:
            while True:
                text = self.line()
                if text is None or text.startswith("- "):
                    return True
        except TimeoutError:
            return False
        finally:
            self.sock.settimeout(20)


TARGET = MNMTarget


def test_fuzz_mnm_bounded(hub):
    """A few thousand fuzzed MNM lines (the CI run)."""
    common.bounded(hub, TARGET)


@pytest.mark.slow
def test_fuzz_mnm_full(hub):
    """At least 10^5 fuzzed MNM lines (``GAMEHUB_SOAK=full``)."""
    common.full(hub, TARGET)
