"""Fuzz the Domino front end (King Domino) on a real hub, over loopback sockets.

A connection fuzzes before its ``LOGIN``, while it waits for a game, or in a game of
its own against three bots, where at each prompt it sends fuzzed lines before its
legal answer and between prompts lines that are valid but not its turn.  The protocol
answers every line with ``OK`` or ``ERROR``; the driver counts the answers.
"""

from __future__ import annotations

import random
import socket

import pytest

from games.kingdomino import rules

from . import common

#: where a connection starts fuzzing, with its weight
STATES = {"connected": 2, "waiting": 1, "game": 4}
VERBS = ("LOGIN", "CHOOSE", "MOVE", "QUIT", "OK", "ERROR")


class DominoTarget(common.Target):
    """Domino clients; each ``game`` client plays a game of its own."""

    name = "domino"
    # one connection at a time: logins are seated first come first served, so a client
    # waiting for a game would take the game another one just created for itself
    parallel = 1

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.port = self.hub.ports["domino"]

    def grammar_line(self, rng: random.Random) -> bytes:
        verb = rng.choice(VERBS) if rng.random() < 0.85 else common.text(rng, True, 8)
        args = []
        for _ in range(rng.choice((0, 1, 1, 2, 3, 3, 4))):
            args.append(
                rng.choice(
                    (str(common.number(rng)), common.text(rng, True, 6), str(rng.randrange(50)))
                )
            )
        return " ".join([verb, *args]).encode("ascii", "replace")

    def fuzz_line(
        self, rng: random.Random, valid: list[bytes], wrong: list[bytes]
    ) -> tuple[str, bytes]:
        roll = rng.random()
        if roll < 0.35:
            return "grammar", self.grammar_line(rng)
        if roll < 0.55:
            return "wrong_state", rng.choice(wrong)
        return "mutated", common.mutate(rng, rng.choice(valid), valid)

    def new_game(self) -> None:
        status, body, _ = self.hub.request(
            "POST",
            "/api/games",
            {
                "type": "kingdomino",
                "seats": ["open", "bot:domino-random", "bot:domino-random", "bot:domino-random"],
                "options": {"answer_seconds": 60},
            },
        )
        assert status == 201, body

    def connection(self, rng: random.Random) -> None:
        depth = rng.choices(list(STATES), list(STATES.values()))[0]
        login = f"fz{rng.randrange(10**9)}"
        valid = [f"LOGIN {login}".encode(), b"CHOOSE 7", b"MOVE 5 4 0"]
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as sock:
            client = _Client(sock, self.count)
            if client.read() != "CONNECT":
                return
            if depth == "connected":
                client.fuzz(self, rng, valid, [b"CHOOSE 1", b"MOVE 1 2 3"], rng.randrange(1, 8))
                return
            if depth == "game":
                self.new_game()
            if not client.command(f"LOGIN {login}".encode()):
                return
            wrong = [f"LOGIN {login}".encode(), b"LOGIN other", b"CHOOSE 3", b"MOVE 1 0 0"]
            if depth == "waiting":
                client.fuzz(self, rng, valid, wrong, rng.randrange(1, 8))
                return
            self.play(rng, client, valid, rng.randrange(1, 30))

    def play(self, rng: random.Random, client: _Client, valid: list[bytes], prompts: int) -> None:
        """Play legal answers for ``prompts`` prompts, fuzzing before each answer."""
        kingdom = rules.Kingdom()
        picks: list[int] = []
        current: list[int] = []
        taken: set[int] = set()
        placed = 0
        wrong = [b"LOGIN again", b"CHOOSE 99", b"MOVE 0 0 0"]
        while prompts > 0:
            line = client.read()
            if line is None:
                return
            words = line.split()
            if words and words[0] == "START":
                current = [int(w) for w in words[6:]]
            elif words and words[0] == "ROUND":
                current, taken = [int(w) for w in words[1:]], set()
            elif words[:2] == ["PLAYER", "CHOICE"]:
                taken.add(int(words[3]))
            elif line in ("YOUR CHOICE", "YOUR MOVE"):
                prompts -= 1
                if not client.fuzz(self, rng, valid, wrong, rng.randrange(4)):
                    return  # a fuzzed line was taken as the answer: this client stops
                if line == "YOUR CHOICE":
                    choice = rng.choice([d for d in current if d not in taken])
                    if not client.command(f"CHOOSE {choice}".encode()):
                        return
                    taken.add(choice)
                    picks.append(choice)
                else:
                    placement = rng.choice(kingdom.legal_placements())
                    if not client.command(
                        ("MOVE " + " ".join(map(str, placement.as_list()))).encode()
                    ):
                        return
                    kingdom.place(picks[placed], placement)
                    placed += 1
                # not our turn now: valid commands in the wrong state
                if not client.fuzz(self, rng, valid, wrong, rng.randrange(2)):
                    return
            elif words[:2] == ["GAME", "OVER"]:
                return

    def served(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as sock:
            client = _Client(sock, lambda kind: None)
            assert client.read() == "CONNECT"
            assert client.command(b"LOGIN checker")


class _Client:
    """A blocking domino client: lines in, commands out with their OK/ERROR counted."""

    def __init__(self, sock: socket.socket, count) -> None:
        self.sock, self.count = sock, count
        self.reader = sock.makefile("rb")
        self.pending: list[str] = []  # game lines read while waiting for answers

    def read(self) -> str | None:
        if self.pending:
            return self.pending.pop(0)
        return self._line()

    def _line(self) -> str | None:
        try:
            common.quick_ack(self.sock)
            raw = self.reader.readline(4096)
        except OSError:
            return None
        return raw.decode("ascii", "replace").rstrip("\n") if raw else None

    def answers(self, wanted: int) -> list[str] | None:
        """The next ``wanted`` OK/ERROR answers (game lines are kept for :meth:`read`)."""
        got: list[str] = []
        while len(got) < wanted:
            line = self._line()
            if line is None:
                return None
            if line in ("OK", "ERROR"):
                got.append(line)
            else:
                self.pending.append(line)
        return got

    def send(self, data: bytes, kind: str) -> bool:
        try:
            self.sock.sendall(data + b"\n")
        except OSError:
            return False
        self.count(kind)
        return True

    def command(self, line: bytes) -> bool:
        """A valid command; whether it got ``OK``."""
        return self.send(line, "valid") and self.answers(1) == ["OK"]

    def fuzz(self, target, rng, valid, wrong, lines: int) -> bool:
        """``lines`` fuzzed lines, each answered; ``False`` if one was taken (``OK``)
        or the connection ended."""
        for _ in range(lines):
            kind, data = target.fuzz_line(rng, valid, wrong)
            if not self.send(data, kind):
                return False
            got = self.answers(data.count(b"\n") + 1)
            if got is None or "OK" in got:
                return False
        return True


TARGET = DominoTarget


def test_fuzz_domino_bounded(hub):
    """A few thousand fuzzed Domino lines (the CI run)."""
    common.bounded(hub, TARGET)


@pytest.mark.slow
def test_fuzz_domino_full(hub):
    """At least 10^5 fuzzed Domino lines (``GAMEHUB_SOAK=full``)."""
    common.full(hub, TARGET)
