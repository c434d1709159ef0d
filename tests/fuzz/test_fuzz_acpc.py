"""Fuzz the ACPC front end on a real hub, over loopback sockets.

A connection fuzzes on the front end's own port before its version line (then it
leaves), or plays a short match of its own against the in-hub ``caller`` bot on the
port of its seat: before its version, and at each of its turns it sends fuzzed lines
(replies built from the grammar with random fields, replies to older states, byte
mutations of its valid reply) before the valid reply.  The front end answers a line it
ignores with one warning comment and plays on; the match must end normally.
"""

from __future__ import annotations

import json
import random
import socket

import pytest

from bots.acpc.client import play
from bots.acpc.state import GAMES, parse

from . import common

GAME = "holdem.limit.2p.reverse_blinds"
RULES = GAMES[GAME]
#: where a connection starts fuzzing, with its weight
STATES = {"unseated": 1, "match": 5}


class ACPCTarget(common.Target):
    """ACPC programs; each ``match`` connection plays a match of its own."""

    name = "acpc"
    parallel = 4

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.port = self.hub.ports["acpc"]

    def new_match(self, hands: int) -> dict:
        status, body, _ = self.hub.request(
            "POST",
            "/acpc/matches",
            {"game": GAME, "players": ["acpc", "bot:caller"], "hands": hands},
        )
        assert status == 201, body
        return json.loads(body)

    def grammar_line(self, rng: random.Random) -> bytes:
        fields = [
            rng.choice(("MATCHSTATE", "VERSION", "matchstate", common.text(rng, True, 8))),
            str(common.number(rng)),
            str(common.number(rng)),
            "".join(rng.choice("crf/") for _ in range(rng.randrange(12))),
            common.text(rng, True, 20),
            rng.choice(("c", "f", "r", f"r{common.number(rng)}", common.text(rng, True, 4))),
        ]
        return ":".join(fields[: rng.randrange(1, 7)]).encode("ascii", "replace")

    def fuzz_line(self, rng: random.Random, valid: bytes, wrong: list[bytes]) -> tuple[str, bytes]:
        roll = rng.random()
        if roll < 0.35:
            return "grammar", self.grammar_line(rng)
        if roll < 0.55 and wrong:
            return "wrong_state", rng.choice(wrong)
        if roll < 0.6:
            return "grammar", b"x" * rng.choice((1025, 5000))
        return "mutated", common.mutate(rng, valid, wrong)

    def connection(self, rng: random.Random) -> None:
        depth = rng.choices(list(STATES), list(STATES.values()))[0]
        if depth == "unseated":
            with socket.create_connection(("127.0.0.1", self.port), timeout=30) as sock:
                client = _Client(sock)
                for _ in range(rng.randrange(1, 6)):
                    kind, data = self.fuzz_line(rng, b"VERSION:2.0.0", [])
                    if not client.send(data) or client.comment() is None:
                        return
                    self.count(kind)
            return
        match = self.new_match(rng.randrange(1, 4))
        try:
            sock = socket.create_connection(("127.0.0.1", match["ports"][0]), timeout=60)
        except OSError:
            return  # a program of the front end's own port (fuzzing) took the seat first
        with sock:
            client = _Client(sock)
            for _ in range(rng.randrange(3)):
                kind, data = self.fuzz_line(rng, b"VERSION:2.0.0", [])
                if not client.send(data) or client.comment() is None:
                    return
                self.count(kind)
            if not client.send(b"VERSION:2.0.0"):
                return
            self.count("valid")
            self.play(rng, client)

    def play(self, rng: random.Random, client: _Client) -> None:
        seen: list[bytes] = []
        for _ in range(10_000):
            line = client.line()
            if line is None:
                return
            if line.startswith("#"):
                continue
            hand = parse(line, RULES)
            if hand is None or hand.over or hand.next != hand.position:
                seen.append(f"{line}:c".encode())
                continue
            valid = f"{line}:c".encode()
            for _ in range(rng.randrange(5)):
                kind, data = self.fuzz_line(rng, valid, seen[-8:])
                # a fuzzed line that happens to be a valid reply would be played: only
                # lines the front end must ignore are sent (one comment answers each)
                if data.startswith(line.encode() + b":") or b"\n" in data or b"\r" in data:
                    continue
                if not client.send(data):
                    return
                self.count(kind)
                if client.comment() is None:
                    return
            if not client.send(valid):
                return
            self.count("valid")
            seen.append(valid)

    def served(self) -> None:
        match = self.new_match(2)
        seen = play("127.0.0.1", match["ports"][0], GAME, "caller", timeout=60)
        assert seen["hands"] == 2, seen


class _Client:
    """A blocking ACPC program: lines in, lines out."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.reader = sock.makefile("rb")
        self.pending: list[str] = []

    def line(self) -> str | None:
        if self.pending:
            return self.pending.pop(0)
        return self._read()

    def _read(self) -> str | None:
        try:
            common.quick_ack(self.sock)
            raw = self.reader.readline(4096)
        except OSError:
            return None
        return raw.decode("ascii", "replace").rstrip("\r\n") if raw else None

    def comment(self) -> str | None:
        """The next comment line (match states read meanwhile are kept)."""
        for _ in range(1000):
            line = self._read()
            if line is None or line.startswith("#"):
                return line
            self.pending.append(line)
        return None

    def send(self, data: bytes) -> bool:
        try:
            self.sock.sendall(data + b"\r\n")
        except OSError:
            return False
        return True


TARGET = ACPCTarget


def test_fuzz_acpc_bounded(hub):
    """A few thousand fuzzed ACPC lines (the CI run)."""
    common.bounded(hub, TARGET)


@pytest.mark.slow
def test_fuzz_acpc_full(hub):
    """At least 10^5 fuzzed ACPC lines (``GAMEHUB_SOAK=full``)."""
    common.full(hub, TARGET)
